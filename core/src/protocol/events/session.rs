//! `ready` and `state_changed`: the session as it starts and its settings whenever one changes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::models::ModelInfo;
use crate::protocol::values::{Mode, PermissionMode, Thinking};

/// `ready`: the first frame; the session and what this Luxe speaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ready {
    /// 2. Refuse a number you do not know.
    pub protocol_version: u32,
    /// This build's version.
    pub luxe_version: String,
    /// The session's id (the one id that is not derived from content or counters).
    pub session_id: String,
    /// The working directory.
    pub cwd: String,
    /// Whether the client's GitHub writes are possible (false when read-only, even with the flag).
    pub github_writes: bool,
    /// Whether the session is read-only.
    pub read_only: bool,
    /// Whether this session was restored with `-c` or `--resume`.
    pub resumed: bool,
}

/// `state_changed`: the session's settings and status, whole, whenever one of them changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StateChanged {
    /// The model the next turn uses; `null` when none is configured.
    pub model: Option<ModelInfo>,
    /// True from `turn_started` to `turn_ended`.
    pub streaming: bool,
    /// `build` or `plan`.
    pub mode: Mode,
    /// Reasoning effort.
    pub thinking: Thinking,
    /// The effective permission mode.
    pub permission_mode: PermissionMode,
    /// Whether prompts are approved without asking the client.
    pub auto_approve: bool,
    /// Whether the project's own `allow` rules count (`--trust-project`).
    pub trust_project: bool,
}
