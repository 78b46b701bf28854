//! Which files a `working_tree` review can show, as what git's status is asked to report: io
//! asks exactly this, and [`super::working_tree::Status`] then keeps the paths it shows
//! (its tests hold those rules; io's `git_diff` tests check the whole against `git diff` and
//! `git ls-files --others` on real repositories).

/// What git's status is asked to report for a review of the working tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusQuery {
    /// Untracked files, each at its own path rather than collapsed into its directory: a new
    /// file is a change to review, line by line.
    pub untracked_files: bool,
    /// Ignored paths (build output, dependencies): reported only to be dropped.
    pub ignored: bool,
    /// Empty directories: git tracks no directories, so there is nothing of them to show.
    pub empty_directories: bool,
    /// What changed inside submodules: another repository's content, with no bytes of this
    /// one to show.
    pub inside_submodules: bool,
}

/// A working-tree review shows tracked and untracked files of this repository: git's status
/// is asked for untracked files one by one, and for nothing ignored, empty or inside a
/// submodule.
pub const WORKING_TREE: StatusQuery = StatusQuery {
    untracked_files: true,
    ignored: false,
    empty_directories: false,
    inside_submodules: false,
};
