//! The review session as the protocol sends it (`review_session_*`): findings anchored to the
//! review, their threads and their states. `crate::guided_review::findings` applies edits to it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The review session as the client sees it (`review_session_*`'s `session`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSession {
    /// The `id` of the review whose findings these are.
    pub id: String,
    /// +1 on every saved change.
    pub revision: u64,
    /// The findings, oldest first.
    pub findings: Vec<Finding>,
    /// What luxe says about the review as a whole (an agent finding dropped for an anchor
    /// that is not in the review).
    #[serde(default)]
    pub notes: Vec<ThreadEntry>,
}

/// One finding: an anchored comment and its thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// What edits name as `comment_id`.
    pub id: String,
    /// Where it points.
    pub anchor: Anchor,
    /// How much it matters.
    pub severity: Severity,
    /// `draft` until sent, then `open` until resolved.
    pub status: FindingStatus,
    /// Its anchor is no longer in the review (kept, never deleted).
    pub outdated: bool,
    /// An agent turn is working on it.
    pub pending: bool,
    /// The text of the anchored line (the first, for a range) when the finding was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_text: Option<String>,
    /// The conversation on it, oldest first.
    pub thread: Vec<ThreadEntry>,
}

/// Where a finding points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Anchor {
    /// One line of a hunk.
    Line {
        /// The file's `id` in the review (`files[].id`).
        file_id: String,
        /// The hunk's `id` in the review (`hunks[].id`).
        hunk_id: String,
        /// Which side's numbering `line` uses.
        side: Side,
        /// The line's number on `side`.
        line: u32,
    },
    /// Lines of one hunk, both ends included.
    Range {
        /// The file's `id` in the review (`files[].id`).
        file_id: String,
        /// The hunk's `id` in the review (`hunks[].id`).
        hunk_id: String,
        /// Which side's numbering the lines use.
        side: Side,
        /// The first line's number on `side`.
        start_line: u32,
        /// The last line's number on `side`.
        end_line: u32,
    },
    /// A whole hunk.
    Hunk {
        /// The file's `id` in the review (`files[].id`).
        file_id: String,
        /// The hunk's `id` in the review (`hunks[].id`).
        hunk_id: String,
    },
    /// A whole file.
    File {
        /// The file's `id` in the review (`files[].id`).
        file_id: String,
    },
}

/// A side of the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The old side of the diff (a deleted or context line's old number).
    Old,
    /// The new side of the diff (an added or context line's new number).
    New,
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A question to answer.
    Question,
    /// Could be better.
    Suggestion,
    /// Should be fixed.
    Issue,
    /// A small matter of style or taste; fine to leave.
    Nitpick,
    /// Well done.
    Praise,
}

impl Severity {
    /// Every severity by its protocol name, in the order the docs list them.
    pub const NAMED: [(&'static str, Self); 5] = [
        ("question", Self::Question),
        ("suggestion", Self::Suggestion),
        ("issue", Self::Issue),
        ("nitpick", Self::Nitpick),
        ("praise", Self::Praise),
    ];
}

/// Where a finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindingStatus {
    /// Saved, not sent.
    Draft,
    /// Sent, not resolved.
    Open,
    /// Settled: nothing more to do on it.
    Resolved,
}

/// One message of a finding's `thread` or of the session's `notes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadEntry {
    /// Who wrote it.
    pub author: Author,
    /// What kind of entry: the finding's first comment, a reply, a fix request, the agent's answer
    /// or report, or a note from luxe.
    pub kind: EntryKind,
    /// What the entry says, as its author wrote it.
    pub body: String,
    /// When, in milliseconds since the Unix epoch.
    pub at: u64,
    /// On the agent's `report`: whether it fixed what the comment asks. Absent on other
    /// entries, and on reports saved before reports had it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ReportStatus>,
}

impl ThreadEntry {
    /// An entry without a report status.
    pub fn new(author: Author, kind: EntryKind, body: String, at: u64) -> Self {
        Self {
            author,
            kind,
            body,
            at,
            status: None,
        }
    }
}

/// What a fix turn's `report` says it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportStatus {
    /// The code was changed as asked.
    Fixed,
    /// It was not; the report's body says why.
    NotFixed,
}

/// Who wrote a thread entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    /// The person reviewing.
    Reviewer,
    /// The agent, in a turn of its own: its findings, answers and fix reports.
    Agent,
    /// Luxe itself.
    System,
}

/// What a thread entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// The finding's first entry.
    Comment,
    /// A later reviewer entry.
    Reply,
    /// The reviewer asks for a change.
    FixRequest,
    /// The agent's answer to a comment or reply.
    Answer,
    /// The agent's report on a fix.
    Report,
    /// Something luxe says.
    Note,
}

impl EntryKind {
    /// The kind in words for a person or a prompt (`fix request` where the protocol has
    /// `fix_request`).
    pub fn words(self) -> &'static str {
        match self {
            Self::Comment => "comment",
            Self::Reply => "reply",
            Self::FixRequest => "fix request",
            Self::Answer => "answer",
            Self::Report => "report",
            Self::Note => "note",
        }
    }
}
