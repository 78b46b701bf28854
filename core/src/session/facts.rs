//! What a session starts with and never changes: where it works, the providers and timings,
//! the platform and date of the system prompt, what it may offer and do, what the commands it
//! runs do not inherit, and where its clock started. Every room reads them; none writes them.

use std::time::Instant;

use crate::config::{Providers, Timings};

/// A session's fixed facts, decided at start.
#[derive(Debug)]
pub(super) struct Facts {
    /// The working directory, as the client and the tools see it.
    pub(super) cwd: String,
    pub(super) providers: Providers,
    pub(super) timings: Timings,
    /// The platform and date the system prompt names.
    pub(super) platform: String,
    pub(super) today: String,
    /// What the model's commands do not inherit of luxe's environment.
    pub(super) tool_env_unset: Vec<String>,
    /// What the commands luxe runs for itself (git, gh) do not inherit: the providers' keys.
    pub(super) own_env_unset: Vec<String>,
    /// Whether `ask_user` is offered: someone can answer it.
    pub(super) questions: bool,
    /// `--trust-project`: the project's own `allow` rules count.
    pub(super) trust_project: bool,
    /// Whether GitHub writes are on (`--github-writes`, and not read-only).
    pub(super) github_writes: bool,
    /// `now` at start, and the wall clock then (ms since the epoch), for thread entry times.
    pub(super) clock_origin: (Instant, u64),
}
