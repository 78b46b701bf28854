//! Frames that say something failed: `action_rejected`, `error`, and the `RequestFailed` content
//! that every `*_failed` answer to a request shares.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `action_rejected`: a line that was not a valid action, or an action refused; nothing changed.
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

/// `error`: something went wrong outside any request (a save, a probe); the session goes on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorEvent {
    /// What went wrong.
    pub message: String,
}

/// A request that failed, and why (`guided_review_failed`, `review_session_save_failed`,
/// `review_chapters_commit_failed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestFailed {
    /// The `request_id` of the action that failed.
    pub request_id: String,
    /// Why, in words.
    pub reason: String,
}
