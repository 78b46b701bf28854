//! A tool call's frames: `tool_started`, its streamed output, `tool_finished`, and the files it
//! changed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `tool_started`: the model called a tool; its permission is decided next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolStarted {
    /// `call_1`, `call_2`, … for the session.
    pub call_id: String,
    /// The tool's name as the model called it: a built-in tool or an MCP server's.
    pub name: String,
    /// A one-line summary for a person, e.g. `read src/main.rs`.
    pub title: String,
    /// The arguments as the model gave them.
    pub input: serde_json::Value,
}

/// `tool_output_delta`: output of a running call (a command's, an MCP server's progress), redacted,
/// as it comes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolOutputDelta {
    /// The `call_id` of the `tool_started` whose call this is.
    pub call_id: String,
    /// `stdout` or `stderr`.
    pub stream: OutputStream,
    /// The text (lossy UTF-8).
    pub chunk: String,
}

/// Which stream a tool's output came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// It did what was asked.
    Ok,
    /// It failed; `output` says why.
    Error,
    /// A rule or the client refused it.
    Denied,
    /// `interrupt_turn` stopped it.
    Interrupted,
}

/// `tool_finished`: a call ended; what the model reads of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolFinished {
    /// The `call_id` of the `tool_started` whose call this is.
    pub call_id: String,
    /// How it ended.
    pub status: ToolStatus,
    /// What the model is told.
    pub output: String,
    /// For a write or an edit that changed its file: a unified diff of the change, as
    /// `git diff -U3` finds it, whose `@@ -a,b +c,d @@` hunk headers carry the real line
    /// numbers of the file before and after (redacted like every frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// For a write that ran: what its path held before, so a client can show what the write
    /// replaced (an edit's change is its `old_text` and `new_text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<FileBefore>,
}

/// What a path held before a write replaced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileBefore {
    /// No file: the write created it.
    Absent,
    /// A file with this text (redacted like every frame).
    Text {
        /// The whole text it held.
        text: String,
    },
    /// A file whose content is not shown: larger than 4 MiB, not UTF-8 text, or unreadable.
    Unshown,
}

/// `files_changed`: a tool wrote files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FilesChanged {
    /// The files, relative to cwd when inside it.
    pub paths: Vec<String>,
}
