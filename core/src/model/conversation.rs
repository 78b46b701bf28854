//! The conversation as luxe keeps it, independent of any provider's wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user, and the results of tools run for the model.
    User,
    /// The model: its text, reasoning and tool calls.
    Assistant,
}

/// One message: a role and its content blocks, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What it holds, in the order the provider streamed or the user sent it.
    pub content: Vec<Block>,
}

impl Message {
    /// Its text blocks, joined.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Plain text.
    Text {
        /// The block's whole text (for the model's, its streamed deltas joined).
        text: String,
    },
    /// An image the user attached.
    Image {
        /// For example `image/png`.
        media_type: String,
        /// The bytes, base64.
        data: String,
    },
    /// The model's reasoning, replayed to providers that require it (Anthropic signs it).
    Thinking {
        /// The reasoning text.
        text: String,
        /// Anthropic's signature over the block; `None` for providers that have none.
        signature: Option<String>,
    },
    /// The model asks for a tool call.
    ToolUse {
        /// The provider's call id (`toolu_…`, `call_…`), echoed by the result.
        id: String,
        /// The tool's name as offered to the model (`read`, `mcp__<server>__<tool>`, …).
        name: String,
        /// The arguments, a JSON object.
        input: Value,
    },
    /// What a tool call returned, sent back in a user message.
    ToolResult {
        /// The `ToolUse::id` this answers.
        tool_use_id: String,
        /// The output as the model sees it (already capped and redacted).
        content: String,
        /// Whether the call failed or was denied.
        is_error: bool,
        /// Images the call returned (an MCP tool's), sent with its result; `content` names
        /// each one where it stood. Absent from older session files.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImageData>,
    },
}

/// An image in a conversation, base64 as providers take it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageData {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes, base64 (standard alphabet, padded).
    pub data: String,
}

/// A tool the model may call: its name, what it does, and a JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls it by (an MCP tool's is made at run time).
    pub name: std::borrow::Cow<'static, str>,
    /// What it does, for the model.
    pub description: std::borrow::Cow<'static, str>,
    /// JSON Schema (an object schema) of its arguments.
    pub input_schema: Value,
}
