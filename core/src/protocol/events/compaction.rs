//! `compaction_started` and `compaction_ended`: the older conversation summarized.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::protocol::values::CompactionTrigger;

/// `compaction_started`: the model is asked to summarize the older conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompactionStarted {
    /// The `compact` request's id; absent when a turn compacts on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The turn that compacts; absent for `compact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// What started it: a `compact` request, a request that would come near the window, or a
    /// refusal as too long.
    pub trigger: CompactionTrigger,
    /// The estimated tokens of the model's view now.
    pub tokens_before: u64,
}

/// `compaction_ended`: the summary replaced the older conversation in the model's view, or could
/// not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompactionEnded {
    /// As on `compaction_started`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// As on `compaction_started`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The estimated tokens of the model's view before.
    pub tokens_before: u64,
    /// The estimated tokens after (equal to `tokens_before` when compaction failed).
    pub tokens_after: u64,
    /// Why compaction failed; the conversation is then unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
