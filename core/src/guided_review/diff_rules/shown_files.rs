//! Which files a `working_tree` review can show, as what git's status is asked to report: io
//! asks exactly this, and [`super::working_tree::Status`] then keeps the paths it shows.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guided_review::diff_rules::working_tree::{
        IndexEntry, Lookups, OnDisk, PathKind, Status, StatusItem, Tracked,
    };

    #[test]
    fn untracked_files_are_shown_and_submodules_are_not() {
        let untracked_in_submodules_out = StatusQuery {
            untracked_files: true,
            ignored: false,
            empty_directories: false,
            inside_submodules: false,
        };
        assert_eq!(WORKING_TREE, untracked_in_submodules_out);
        // What the query reports, the rules then keep or drop.
        let mut status = Status::<u8>::default();
        let walked = |path: &[u8], kind| StatusItem::Walked {
            path: path.to_vec(),
            untracked: true,
            kind: Some(kind),
        };
        status.add(walked(b"new.rs", PathKind::File));
        status.add(walked(b"vendor/lib", PathKind::Repository));
        status.add(StatusItem::Tracked {
            path: b"sub".to_vec(),
            status: Tracked::SubmoduleModified,
        });
        let changes = status.changes(None, &mut NewFilesOnly).unwrap();
        let paths: Vec<&[u8]> = changes.iter().map(|c| c.path.as_slice()).collect();
        assert_eq!(paths, [b"new.rs".as_slice()]);
    }

    /// A repository with no index entries and a file at every path asked for.
    struct NewFilesOnly;

    impl Lookups<u8> for NewFilesOnly {
        fn index_entry(&self, _: &[u8]) -> Option<IndexEntry<u8>> {
            None
        }

        fn head_entry(&mut self, _: &[u8]) -> Result<Option<(u32, u8)>, String> {
            Ok(None)
        }

        fn on_disk(&mut self, _: &[u8]) -> Result<Option<OnDisk>, String> {
            Ok(Some(OnDisk::File {
                executable: false,
                bytes: b"x\n".to_vec(),
            }))
        }
    }
}
