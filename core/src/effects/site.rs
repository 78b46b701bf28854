//! [`Site`]: what io gathers about a directory before a session can start there (its settings
//! files, its `.env` files, its guarded directories), for the process's own directory at start
//! and for each directory an ACP client opens a session in.

use super::FileIdentity;

/// The facts of one directory that a [`crate::Config`] holds for the process's own directory: io
/// gathers them for each directory an ACP client opens a session in, as it does at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The directory, symlinks resolved (as `Config::cwd`).
    pub cwd: String,
    /// A new session id, made by io (used by `session/new`; a loaded session keeps its own).
    pub session_id: String,
    /// The wall clock now, milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// Seeds the session's retry jitter.
    pub rng_seed: u64,
    /// Settings files in order of precedence, lowest first (user, then this project).
    pub settings: Vec<SettingsSource>,
    /// The `.env` files under the directory, read whole: their values are redacted.
    pub env_files: Vec<EnvFile>,
    /// The guarded directories under it and `$LUXE_HOME`, symlinks resolved.
    pub guarded_resolved: Vec<String>,
}

/// Whose file it is: a project's own `allow` rules and mode count only with `--trust-project`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `$LUXE_HOME/settings.json`.
    User,
    /// `<cwd>/.luxe/settings.json`.
    Project,
}

/// A settings file as io read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsSource {
    /// Where it was read, for messages.
    pub path: String,
    /// The file's whole content, not yet parsed.
    pub text: String,
    /// Whose it is: the user's always counts, the project's loosens nothing unless the project is
    /// trusted (see [`crate::settings::load`]).
    pub scope: Scope,
}

/// A `.env` file under cwd (one [`crate::permissions::is_env_file`] names), found and read whole
/// by io at start: its values are what the redaction gate cuts out.
#[derive(Clone, PartialEq, Eq)]
pub struct EnvFile {
    /// Its path under cwd, as io's walk reached it; for messages.
    pub path: String,
    /// Its whole content.
    pub bytes: Vec<u8>,
    /// Which file it is: another name for it (a hard link) is refused as it is.
    pub identity: Option<FileIdentity>,
}

impl std::fmt::Debug for EnvFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The content is secrets: never in a log.
        f.debug_struct("EnvFile")
            .field("path", &self.path)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}
