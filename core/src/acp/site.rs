//! [`Site`]: what io gathers about a directory before a session can start there.

use crate::config::{Config, EnvFile, SessionFile};
use crate::settings::SettingsSource;

/// The facts of one directory that a [`Config`] holds for the process's own directory: io
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

impl Site {
    /// The config of a session here: the process's flags and providers, this directory's
    /// facts, and the stored session to continue, if any.
    pub(crate) fn config(&self, base: &Config, resume: Option<SessionFile>) -> Config {
        let mut config = base.clone();
        config.cwd = self.cwd.clone();
        config.session_id = self.session_id.clone();
        config.unix_ms = self.unix_ms;
        config.rng_seed = self.rng_seed;
        config.settings = self.settings.clone();
        config.env_files = self.env_files.clone();
        config.guarded_resolved = self.guarded_resolved.clone();
        config.requested.resume = resume.is_some();
        config.resume = resume;
        config
    }
}
