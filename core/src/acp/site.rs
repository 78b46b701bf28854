//! The config of a session started at a [`Site`] that io gathered for an ACP client.

use crate::config::{Config, SessionFile};
use crate::effects::Site;

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
