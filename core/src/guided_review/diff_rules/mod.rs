//! The rules that turn what io read from git into a review's [`DiffSource`]: which tree entries
//! count as files, how a changed path's status is settled, when two sides that differ by
//! object are the same after all ([`change`]); which paths of a working tree changed and what
//! each side is there ([`working_tree`]); and which commits a `branch` or `commits` review
//! compares, in words when it cannot ([`revisions`]); which files a working-tree review can
//! show ([`shown_files`]); and how a failed read is worded ([`read_failure`]).
//!
//! io reads trees, blobs, the index and the disk and hands each fact over in this module's
//! vocabulary; nothing here reads, so each rule is tested without a repository. Sides hold an
//! object id of io's choosing (`Id`) until io reads the blob, so no bytes are read or copied
//! for a change these rules drop.
//!
//! [`DiffSource`]: crate::effects::DiffSource

pub mod change;
#[cfg(test)]
mod properties;
pub mod read_failure;
pub mod revisions;
pub mod shown_files;
pub mod working_tree;

pub use change::{Change, Content, Settled, Side, Source};

/// A regular file's git mode.
pub const FILE: u32 = 0o100644;
/// An executable file's git mode.
pub const EXECUTABLE: u32 = 0o100755;
/// A symlink's git mode.
pub const LINK: u32 = 0o120000;

/// The mode of the file a tree entry's mode bits name, as git reads them (the type bits, then
/// the owner's execute bit); `None` for a tree or a submodule (a gitlink), whose content is
/// not this repository's to show.
pub fn file_mode(tree_mode: u32) -> Option<u32> {
    const TYPE_BITS: u32 = 0o170000;
    match tree_mode & TYPE_BITS {
        0o100000 if tree_mode & 0o100 != 0 => Some(EXECUTABLE),
        0o100000 => Some(FILE),
        LINK => Some(LINK),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_modes_name_files_symlinks_or_nothing() {
        assert_eq!(file_mode(0o100644), Some(FILE));
        assert_eq!(file_mode(0o100664), Some(FILE));
        assert_eq!(file_mode(0o100755), Some(EXECUTABLE));
        assert_eq!(file_mode(0o120000), Some(LINK));
        assert_eq!(file_mode(0o040000), None, "a tree");
        assert_eq!(file_mode(0o160000), None, "a submodule");
    }
}
