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
    /// The luxe binary's package version (`0.1.0`); what a client can speak is told by
    /// `protocol_version`, not this.
    pub luxe_version: String,
    /// The session's id (the one id that is not derived from content or counters).
    pub session_id: String,
    /// The session's working directory, where relative paths start (with `--worktree`, the
    /// worktree made).
    pub cwd: String,
    /// Whether the client's GitHub writes are possible (false when read-only, even with the flag).
    pub github_writes: bool,
    /// Whether the session is read-only.
    pub read_only: bool,
    /// Whether this session was restored with `-c` or `--resume`.
    pub resumed: bool,
    /// What `--issue`, `--from-pr` and `--worktree` did before this frame; absent when none
    /// was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<Box<Started>>,
}

/// What the start-up flags did before `ready`, so a client can say so on its first screen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Started {
    /// `--issue N`: the issue whose title and body open the first turn's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<StartedIssue>,
    /// `--from-pr N`: the pull request checked out (`gh pr checkout N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_pr: Option<u64>,
    /// `--worktree`: the worktree made, which is `cwd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<StartedWorktree>,
}

/// The issue `--issue` read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartedIssue {
    /// The issue's number in the checkout's repository (`gh issue view N`).
    pub number: u64,
    /// Its title (redacted like every frame).
    pub title: String,
    /// Its page, as gh gave it (empty when gh gave none).
    pub url: String,
}

/// The worktree `--worktree` made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartedWorktree {
    /// Its directory (the session's `cwd`).
    pub path: String,
    /// The new branch checked out in it.
    pub branch: String,
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
    /// The permission mode in force. At start: read-only (from a flag or a settings file) wins,
    /// then `--yolo` (`bypass`), `--permission-mode`, the settings' `permissions.mode`, else
    /// `default`.
    pub permission_mode: PermissionMode,
    /// Whether prompts are approved without asking the client.
    pub auto_approve: bool,
    /// Whether the project's own `allow` rules count (`--trust-project`).
    pub trust_project: bool,
}
