//! [`DiffSource`]: what io reads from git for a review, which files changed between two sides
//! and the bytes of each side. Turning that into hunks is core's work (`crate::guided_review`; the
//! hunks are `crate::protocol::guided_review`'s).

use crate::protocol::guided_review::FileStatus;

/// One changed file as git sees it, with both sides' bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    /// The path on the new side (the old side's for a deletion), relative to the repository
    /// root, `/`-separated, lossy UTF-8 for bytes that are not.
    pub path: String,
    /// The path on the old side, for renames and copies.
    pub old_path: Option<String>,
    /// How it changed.
    pub status: FileStatus,
    /// The old side's git mode (`0o100644`, `0o100755`, `0o120000`), when there is an old side.
    pub old_mode: Option<u32>,
    /// The new side's git mode, when there is a new side.
    pub new_mode: Option<u32>,
    /// The old side's bytes (a symlink's target), `None` when there is no old side.
    pub old: Option<Vec<u8>>,
    /// The new side's bytes, `None` when there is no new side.
    pub new: Option<Vec<u8>>,
}

/// Everything a review is built from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DiffSource {
    /// The repository's work tree root, absolute.
    pub root: String,
    /// The old side's commit id, when it is a commit (none in a repository without commits).
    pub base_commit: Option<String>,
    /// The new side's commit id, when it is a commit (not for the working tree or index).
    pub head_commit: Option<String>,
    /// The changed files, sorted by path.
    pub files: Vec<ChangedFile>,
}
