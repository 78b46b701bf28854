//! Stored sessions: a resumed session's conversation (`session_restored`) and the directory's
//! sessions (`sessions_listed`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `session_restored`: a resumed session's conversation, after `ready`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRestored {
    /// The session's id (also in `ready`).
    pub session_id: String,
    /// The conversation so far, oldest first.
    pub messages: Vec<RestoredMessage>,
    /// Turns so far.
    pub turns: u32,
    /// Cost so far (turns with unknown prices count as 0).
    pub cost_usd: f64,
}

/// One message of a restored conversation, as a front end draws it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestoredMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// Its text blocks, joined by newlines.
    pub text: String,
    /// Tool calls the assistant made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<RestoredToolCall>,
    /// Tool results the user message carried back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results: Vec<RestoredToolResult>,
}

/// A tool call in a restored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestoredToolCall {
    /// The provider's call id.
    pub id: String,
    /// The tool's name as offered to the model (`read`, `mcp__<server>__<tool>`, …).
    pub name: String,
    /// The arguments the model gave, as JSON.
    pub input: serde_json::Value,
}

/// A tool result in a restored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestoredToolResult {
    /// The call it answers.
    pub tool_use_id: String,
    /// What the model was told.
    pub content: String,
    /// Whether the call failed.
    pub is_error: bool,
}

/// `sessions_listed`: the answer to `list_sessions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionsListed {
    /// The `list_sessions` request.
    pub request_id: String,
    /// This directory's sessions, newest first.
    pub sessions: Vec<SessionSummary>,
}

/// One stored session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionSummary {
    /// Its id, for `--resume`.
    pub id: String,
    /// Its first user message, cut to 80 characters.
    pub title: String,
    /// When it was last written, seconds since the Unix epoch.
    pub updated: u64,
    /// How many of its turns ended; a turn a crash cut off is not counted.
    pub turns: u32,
    /// What they cost.
    pub cost_usd: f64,
}
