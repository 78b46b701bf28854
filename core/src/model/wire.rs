//! What every provider's wire format shares: the request luxe builds (put in a provider's
//! format as an [`crate::effects::HttpRequest`] for io to send) and the events a streamed
//! response decodes to.

use super::conversation::{Message, ToolSpec};
use crate::protocol::values::Thinking;

/// Where a provider is and how to authenticate; from `*_BASE_URL` and `*_API_KEY`.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The base URL without a trailing slash, e.g. `https://api.anthropic.com` or
    /// `http://127.0.0.1:11434/v1` (OpenAI-compatible bases include their `/v1`).
    pub base_url: String,
    /// The key, when one is set (local OpenAI-compatible servers need none).
    pub api_key: Option<String>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Keys never reach logs.
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// One model request, before it is put in a provider's format.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall<'a> {
    /// The model id as the provider names it (without `provider/`).
    pub model: &'a str,
    /// The system prompt.
    pub system: &'a str,
    /// The conversation so far; the last message is the user's (or tool results).
    pub messages: &'a [Message],
    /// The tools the model may call: the mode's (`plan` offers only those that change nothing), a
    /// review turn's review tools, and the MCP servers' tools.
    pub tools: &'a [ToolSpec],
    /// The most tokens the response may have.
    pub max_tokens: u32,
    /// Reasoning effort; `Off` sends no reasoning setting.
    pub thinking: Thinking,
}

/// Token counts of one model request. A decoder may report them more than once; the latest
/// report replaces the earlier ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens not read from or written to the cache.
    pub prompt_tokens: u64,
    /// Completion tokens (reasoning included).
    pub completion_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_write_tokens: u64,
    /// Completion tokens spent on reasoning, when the provider says.
    pub reasoning_tokens: u64,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit the `max_tokens` limit (Anthropic `max_tokens`, OpenAI `length`): the answer is cut
    /// short.
    MaxTokens,
    /// It declined (Anthropic `refusal`, OpenAI `content_filter`).
    Refusal,
    /// Anything else the provider said, as it said it.
    Other(String),
}

/// One thing a streamed response said, in a provider-neutral form. `block` is the index of the
/// content block in the assistant message, numbered from 0 in the order blocks first appear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelEvent {
    /// Text for a text block.
    TextDelta {
        /// The content block it belongs to, numbered from 0 in the order blocks first appear.
        block: u32,
        /// The next piece of the block's text; joined, the pieces are the whole.
        text: String,
    },
    /// Reasoning text for a thinking block.
    ThinkingDelta {
        /// The content block it belongs to, numbered from 0 in the order blocks first appear.
        block: u32,
        /// The next piece of the block's reasoning; joined, the pieces are the whole.
        text: String,
    },
    /// The signature of a thinking block (Anthropic), to replay with it.
    ThinkingSignature {
        /// The content block it belongs to, numbered from 0 in the order blocks first appear.
        block: u32,
        /// A piece of the block's opaque signature; the pieces are joined and replayed unchanged.
        signature: String,
    },
    /// A tool call begins.
    ToolCallStarted {
        /// The content block it belongs to, numbered from 0 in the order blocks first appear.
        block: u32,
        /// The provider's call id.
        id: String,
        /// The tool's name as offered to the model (`read`, `mcp__<server>__<tool>`, …).
        name: String,
    },
    /// More of a tool call's arguments, as a fragment of JSON text.
    ToolCallInputDelta {
        /// The content block it belongs to, numbered from 0 in the order blocks first appear.
        block: u32,
        /// The next piece of the arguments' JSON text; joined, the pieces are the whole.
        json: String,
    },
    /// Token counts so far (the latest replaces earlier ones).
    Usage(Usage),
    /// The response is complete.
    Finished(StopReason),
    /// The provider reported an error inside the stream (e.g. `overloaded_error`).
    Error {
        /// The provider's error type, e.g. `overloaded_error`, when it gave one.
        kind: Option<String>,
        /// What went wrong, in the provider's words (or luxe's, when the stream was cut short).
        message: String,
    },
}

/// A provider's streamed-response decoder: bytes in any chunking, [`ModelEvent`]s out; after
/// `Finished` or `Error`, nothing more.
pub trait StreamDecoder: std::fmt::Debug {
    /// Feeds response bytes, appending what they complete to `out`.
    fn push(&mut self, bytes: &[u8], out: &mut Vec<ModelEvent>);
    /// Ends the response; a stream cut short ends in an `Error`.
    fn finish(&mut self, out: &mut Vec<ModelEvent>);
}
