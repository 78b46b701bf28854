//! What `Luxe` is started with: plain data that io and the binary gather (flags, environment
//! facts, the session id), so the core never reads the world itself.

use crate::model::catalogue::ProviderAccess;
use crate::protocol::MAX_FRAME_BYTES;
use crate::protocol::values::PermissionMode;

/// Everything a session starts from.
#[derive(Debug, Clone)]
pub struct Config {
    /// This build's version, for `ready`.
    pub luxe_version: String,
    /// The session's id, made by io (the one id not derived from content or counters).
    pub session_id: String,
    /// The working directory, as io resolved it.
    pub cwd: String,
    /// `--model`, as given.
    pub model: Option<String>,
    /// Which providers the environment configures.
    pub providers: ProviderAccess,
    /// `--permission-mode`, as given.
    pub permission_mode: Option<PermissionMode>,
    /// `--yolo`: the `bypass` mode.
    pub yolo: bool,
    /// `--read-only`: wins over every other mode and flag.
    pub read_only: bool,
    /// `--auto-approve`.
    pub auto_approve: bool,
    /// `--github-writes`: the client may publish to GitHub (never when read-only).
    pub github_writes: bool,
    /// `--trust-project`: the project's own `allow` rules count.
    pub trust_project: bool,
    /// The longest accepted line in bytes.
    pub max_frame_bytes: usize,
}

impl Config {
    /// A config with every flag off, no model and no provider: what `luxe --rpc` gets in an
    /// empty environment.
    pub fn new(luxe_version: &str, session_id: &str, cwd: &str) -> Self {
        Self {
            luxe_version: luxe_version.to_owned(),
            session_id: session_id.to_owned(),
            cwd: cwd.to_owned(),
            model: None,
            providers: ProviderAccess::default(),
            permission_mode: None,
            yolo: false,
            read_only: false,
            auto_approve: false,
            github_writes: false,
            trust_project: false,
            max_frame_bytes: MAX_FRAME_BYTES,
        }
    }

    /// The mode in force: read-only wins over everything, then `--yolo`, then
    /// `--permission-mode`, else `default`.
    pub fn effective_permission_mode(&self) -> PermissionMode {
        if self.read_only || self.permission_mode == Some(PermissionMode::ReadOnly) {
            PermissionMode::ReadOnly
        } else if self.yolo {
            PermissionMode::Bypass
        } else {
            self.permission_mode.unwrap_or_default()
        }
    }
}

/// Why a session cannot start; the binary prints it as one line and exits 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_wins_over_yolo_and_modes() {
        let mut config = Config::new("0", "s", "/");
        config.yolo = true;
        assert_eq!(config.effective_permission_mode(), PermissionMode::Bypass);
        config.permission_mode = Some(PermissionMode::AcceptEdits);
        assert_eq!(config.effective_permission_mode(), PermissionMode::Bypass);
        config.read_only = true;
        assert_eq!(config.effective_permission_mode(), PermissionMode::ReadOnly);
        config.read_only = false;
        config.yolo = false;
        config.permission_mode = Some(PermissionMode::ReadOnly);
        assert_eq!(config.effective_permission_mode(), PermissionMode::ReadOnly);
    }
}
