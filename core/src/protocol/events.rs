//! Events: the frames luxe sends. Each later capability adds its frames here with its behaviour.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::frame_enum::frame_enum;
use super::values::{Mode, PermissionMode, Thinking, TurnEndReason, TurnSource};

frame_enum! {
    /// A frame luxe writes to stdout.
    pub enum Event {
        /// Always the first frame.
        Ready(Ready) = "ready",
        /// The session's settings, sent at start and whenever one changes.
        StateChanged(StateChanged) = "state_changed",
        /// An action that was not carried out, and why.
        ActionRejected(ActionRejected) = "action_rejected",
        /// A problem that belongs to no request and no turn; the session goes on.
        Error(ErrorEvent) = "error",
        /// A turn began.
        TurnStarted(TurnStarted) = "turn_started",
        /// A turn ended; exactly one per `turn_started`.
        TurnEnded(TurnEnded) = "turn_ended",
    }
}

/// `ready`.
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

/// `state_changed`.
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

/// A model as the catalogue describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelInfo {
    /// `provider/model`, as `set_model` takes it.
    pub id: String,
    /// `anthropic` or `openai`.
    pub provider: String,
    /// A display name.
    pub name: String,
    /// Tokens of context; `null` for a model outside the catalogue.
    pub context_window: Option<u32>,
    /// Most tokens one response may have; `null` for a model outside the catalogue.
    pub max_output_tokens: Option<u32>,
    /// Whether the model takes a reasoning setting.
    pub reasoning: bool,
    /// Whether its provider is configured (a key, or for `openai` a base URL).
    pub available: bool,
    /// Prices; `null` when unknown.
    pub cost: Option<ModelCost>,
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelCost {
    /// Prompt tokens.
    pub input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Prompt tokens read from the cache.
    pub cache_read: f64,
    /// Prompt tokens written to the cache.
    pub cache_write: f64,
}

/// `action_rejected`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionRejected {
    /// The rejected frame's kind; `null` when the line had no readable kind.
    pub kind: Option<String>,
    /// Why, in words for a person.
    pub reason: String,
    /// The rejected frame's `content.request_id`, when it had a readable one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorEvent {
    /// What went wrong.
    pub message: String,
}

/// `turn_started`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnStarted {
    /// `turn_1`, `turn_2`, … in order.
    pub turn_id: String,
    /// What started it.
    pub source: TurnSource,
}

/// `turn_ended`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnEnded {
    /// The `turn_started.turn_id`.
    pub turn_id: String,
    /// Why it ended.
    pub reason: TurnEndReason,
    /// With reason `error`: what failed, in words for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
