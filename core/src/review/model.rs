//! A review as the protocol sends it: files, hunks with numbered lines, and chapters.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::source::{FileStatus, ReviewTarget};

/// `review` of `guided_review_loaded` and `guided_review_updated`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Review {
    /// `review:` and a hash of the repository root and the target: the same review reloaded
    /// has the same id, so its session comes back.
    pub id: String,
    /// A hash of the whole diff: it changes when any hunk does.
    pub revision_id: String,
    /// What was compared.
    pub target: ReviewTarget,
    /// The changed files, by path.
    pub files: Vec<ReviewFile>,
    /// Every hunk, in file order and then line order.
    pub hunks: Vec<Hunk>,
    /// Reading order: every hunk in exactly one chapter.
    pub chapters: Vec<Chapter>,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewFile {
    /// `file:` and a hash of the path.
    pub id: String,
    /// The path (new side; old side for a deletion).
    pub path: String,
    /// The old path of a rename or copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// How it changed.
    pub status: FileStatus,
    /// Whether either side is binary (then its one hunk has no lines).
    pub binary: bool,
    /// Lines added.
    pub additions: u32,
    /// Lines deleted.
    pub deletions: u32,
    /// Its hunks, in order. A file whose change has no lines (binary, a mode change, an empty
    /// file, a pure rename) has one hunk without lines, so chapters and commits still cover it.
    pub hunk_ids: Vec<String>,
}

/// One hunk: a run of changed lines with up to three lines of context around.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hunk {
    /// `hunk:` and a hash of the file's path and the hunk's lines (not their numbers): it stays
    /// while the text does, wherever other hunks move it.
    pub id: String,
    /// The file it belongs to.
    pub file_id: String,
    /// As in `@@ -old_start,old_lines +new_start,new_lines @@`.
    pub old_start: u32,
    /// Old-side lines covered.
    pub old_lines: u32,
    /// New-side first line.
    pub new_start: u32,
    /// New-side lines covered.
    pub new_lines: u32,
    /// The function-context text git prints after the second `@@` (empty when none); for a
    /// hunk without lines, what changed (`binary file`, `mode 100644 → 100755`, …).
    pub header: String,
    /// The lines, in order.
    pub lines: Vec<HunkLine>,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HunkLine {
    /// Context, added or deleted.
    pub kind: LineKind,
    /// Its number on the old side (context and deletions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_line: Option<u32>,
    /// Its number on the new side (context and additions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_line: Option<u32>,
    /// The text without its `\n` (a `\r` of a CRLF line stays; lossy UTF-8).
    pub text: String,
    /// True for a last line without a newline (git's `\ No newline at end of file`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_newline: bool,
}

/// What a hunk line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// On both sides.
    Context,
    /// Only on the new side.
    Add,
    /// Only on the old side.
    Del,
}

/// A chapter: hunks that are read together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Chapter {
    /// `chapter:` and a hash of its hunk ids.
    pub id: String,
    /// A short title.
    pub title: String,
    /// One line saying what changed.
    pub summary: String,
    /// Its hunks, in reading order.
    pub hunk_ids: Vec<String>,
}
