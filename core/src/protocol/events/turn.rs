//! A turn's own frames: its start and end, queued and steered messages, the streamed text,
//! model retries and the usage just before `turn_ended`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::protocol::values::{TurnEndReason, TurnSource};

/// `turn_started`: a queued message became a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnStarted {
    /// `turn_1`, `turn_2`, … in order.
    pub turn_id: String,
    /// What started it.
    pub source: TurnSource,
}

/// `turn_ended`: a turn is over, and why; `turn_usage` comes just before it.
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

/// `user_message_queued`: a message waits behind the running turn (or a compaction).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UserMessageQueued {
    /// The message's text, whole.
    pub text: String,
    /// Its place in the queue, from 1.
    pub position: u32,
}

/// `user_message_withdrawn`: `withdraw_queued_message` took a queued message back; it will not
/// run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UserMessageWithdrawn {
    /// The message taken back, whole (a client may put it back in its composer).
    pub text: String,
    /// The place it had in the queue, from 1; the messages behind it move up one.
    pub position: u32,
}

/// `turn_steered`: `steer_turn`'s text joined the running turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnSteered {
    /// The `turn_id` of the running turn the text joined.
    pub turn_id: String,
    /// The text `steer_turn` added.
    pub text: String,
}

/// `token_delta` and `thinking_delta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenDelta {
    /// Index of the content block in the assistant message, from 0.
    pub block: u32,
    /// The new text.
    pub delta: String,
}

/// `model_retrying`: a model request failed in a way worth another try; the next attempt waits
/// `delay_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelRetrying {
    /// The attempt that follows, from 2.
    pub attempt: u32,
    /// How long luxe waits first.
    pub delay_ms: u64,
    /// What failed.
    pub reason: String,
}

/// `turn_usage`: what a turn took (tokens, cost, the context now), just before its `turn_ended`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnUsage {
    /// Prompt tokens not read from or written to the cache, summed over the turn's requests.
    pub prompt_tokens: u64,
    /// Tokens the model generated (reasoning included), summed over the turn's requests.
    pub completion_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_write_tokens: u64,
    /// Completion tokens spent reasoning.
    pub reasoning_tokens: u64,
    /// The turn's cost; `null` when the model's prices are unknown.
    pub cost_usd: Option<f64>,
    /// Tokens in the context after the last request.
    pub context_tokens: u64,
    /// The model's context window; `null` when unknown.
    pub context_window: Option<u32>,
    /// The session's cost so far; `null` once a turn's or `compact` run's prices were unknown.
    pub session_cost_usd: Option<f64>,
}
