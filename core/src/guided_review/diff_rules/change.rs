//! One changed path as io read it ([`Change`]), and how its status is settled ([`Settled`]):
//! added, deleted, modified, renamed, copied or a type change, or no change at all once its
//! sides' bytes are compared.

use super::LINK;
use crate::effects::{ChangedFile, DiffSource};
use crate::protocol::guided_review::FileStatus;

/// Where a side's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content<Id> {
    /// A blob in the object database, read only if the file is kept.
    Object(Id),
    /// Bytes already read (from the working tree).
    Bytes(Vec<u8>),
}

/// One side of a changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side<Id> {
    /// Its git mode ([`super::FILE`], [`super::EXECUTABLE`] or [`super::LINK`]).
    pub mode: u32,
    /// Its bytes, or the blob that holds them.
    pub content: Content<Id>,
}

impl<Id> Side<Id> {
    /// A tree or index entry as a side: `None` for a tree or a submodule
    /// ([`super::file_mode`]).
    pub fn object(tree_mode: u32, id: Id) -> Option<Self> {
        Some(Self {
            mode: super::file_mode(tree_mode)?,
            content: Content::Object(id),
        })
    }
}

/// The other path of a rename or copy, as git paired it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The old side's path.
    pub path: Vec<u8>,
    /// A copy (the source stays), not a rename.
    pub copy: bool,
}

/// A changed path before its bytes are read and its status settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change<Id> {
    /// The new side's path (git paths are bytes).
    pub path: Vec<u8>,
    /// The source of a rename or copy.
    pub source: Option<Source>,
    /// The old side; `None` when there is none (or it is a submodule).
    pub old: Option<Side<Id>>,
    /// The new side; `None` when there is none (a deletion), or it is a submodule.
    pub new: Option<Side<Id>>,
}

impl<Id: PartialEq> Change<Id> {
    /// A change that is not a rename or copy.
    pub fn new(path: Vec<u8>, old: Option<Side<Id>>, new: Option<Side<Id>>) -> Self {
        Self {
            path,
            source: None,
            old,
            new,
        }
    }

    /// Its status, and the paths a review shows for it; `None` when there is nothing to show
    /// (no side is a file, or both sides are the same object with the same mode).
    pub fn settle(self) -> Option<Settled<Id>> {
        let Change {
            mut path,
            mut source,
            old,
            new,
        } = self;
        let status = match (&old, &new) {
            (None, None) => return None,
            (None, Some(_)) => FileStatus::Added,
            (Some(_), None) => FileStatus::Deleted,
            (Some(old), Some(new)) => match &source {
                Some(Source { copy: true, .. }) => FileStatus::Copied,
                Some(Source { copy: false, .. }) => FileStatus::Renamed,
                None if old == new => return None,
                None if (old.mode == LINK) != (new.mode == LINK) => FileStatus::TypeChanged,
                None => FileStatus::Modified,
            },
        };
        match status {
            FileStatus::Renamed | FileStatus::Copied => {}
            // A rewrite whose other side is a submodule is a plain addition or deletion.
            FileStatus::Deleted => {
                if let Some(from) = source.take() {
                    path = from.path;
                }
            }
            _ => source = None,
        }
        Some(Settled {
            path,
            old_path: source.map(|from| from.path),
            status,
            old,
            new,
        })
    }
}

/// A change whose status is settled, its blobs not read yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled<Id> {
    path: Vec<u8>,
    old_path: Option<Vec<u8>>,
    status: FileStatus,
    old: Option<Side<Id>>,
    new: Option<Side<Id>>,
}

impl<Id> Settled<Id> {
    /// How it changed.
    pub fn status(&self) -> FileStatus {
        self.status
    }

    /// The blobs still to read, old side first (io orders its reads by where they lie).
    pub fn objects(&self) -> impl Iterator<Item = &Id> {
        [&self.old, &self.new]
            .into_iter()
            .flatten()
            .filter_map(|side| match &side.content {
                Content::Object(id) => Some(id),
                Content::Bytes(_) => None,
            })
    }

    /// The file with both sides' bytes, each blob read by `read`; `None` when a modification's
    /// two sides hold the same bytes and mode after all (only the working tree gets there: a
    /// staged change undone on disk).
    pub fn read<E>(
        self,
        read: &mut impl FnMut(Id) -> Result<Vec<u8>, E>,
    ) -> Result<Option<ChangedFile>, E> {
        let mut bytes = |side: Option<Side<Id>>| -> Result<_, E> {
            let Some(Side { mode, content }) = side else {
                return Ok((None, None));
            };
            let bytes = match content {
                Content::Bytes(bytes) => bytes,
                Content::Object(id) => read(id)?,
            };
            Ok((Some(mode), Some(bytes)))
        };
        let (old_mode, old) = bytes(self.old)?;
        let (new_mode, new) = bytes(self.new)?;
        if self.status == FileStatus::Modified && old_mode == new_mode && old == new {
            return Ok(None);
        }
        Ok(Some(ChangedFile {
            path: lossy(self.path),
            old_path: self.old_path.map(lossy),
            status: self.status,
            old_mode,
            new_mode,
            old,
            new,
        }))
    }
}

/// A git path as a review shows it: UTF-8, invalid sequences replaced.
fn lossy(path: Vec<u8>) -> String {
    String::from_utf8(path)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

/// The review's source: the files sorted by path, as a review lists them.
pub fn diff_source(
    root: String,
    base_commit: Option<String>,
    head_commit: Option<String>,
    mut files: Vec<ChangedFile>,
) -> DiffSource {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    DiffSource {
        root,
        base_commit,
        head_commit,
        files,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{EXECUTABLE, FILE};
    use super::*;

    /// A side in the object database.
    pub(in crate::guided_review::diff_rules) fn object(mode: u32, id: u8) -> Option<Side<u8>> {
        Some(Side {
            mode,
            content: Content::Object(id),
        })
    }

    /// A side read from disk.
    pub(in crate::guided_review::diff_rules) fn disk(mode: u32, bytes: &[u8]) -> Option<Side<u8>> {
        Some(Side {
            mode,
            content: Content::Bytes(bytes.to_vec()),
        })
    }

    fn blob(id: u8) -> Result<Vec<u8>, String> {
        Ok(vec![b'0' + id])
    }

    fn read(change: Change<u8>) -> Option<ChangedFile> {
        change.settle()?.read(&mut blob).unwrap()
    }

    fn rewrite(from: &str, copy: bool, old: Option<Side<u8>>, new: Option<Side<u8>>) -> Change<u8> {
        Change {
            path: b"to".to_vec(),
            source: Some(Source {
                path: from.as_bytes().to_vec(),
                copy,
            }),
            old,
            new,
        }
    }

    #[test]
    fn statuses_follow_the_sides() {
        let status = |change: Change<u8>| change.settle().map(|settled| settled.status());
        let path = || b"f".to_vec();
        assert_eq!(status(Change::new(path(), None, None)), None);
        let added = Change::new(path(), None, object(FILE, 1));
        assert_eq!(status(added), Some(FileStatus::Added));
        let deleted = Change::new(path(), object(FILE, 1), None);
        assert_eq!(status(deleted), Some(FileStatus::Deleted));
        let same = Change::new(path(), object(FILE, 1), object(FILE, 1));
        assert_eq!(status(same), None, "the same blob and mode is no change");
        let executable = Change::new(path(), object(FILE, 1), object(EXECUTABLE, 1));
        assert_eq!(status(executable), Some(FileStatus::Modified));
        let linked = Change::new(path(), object(FILE, 1), object(LINK, 2));
        assert_eq!(status(linked), Some(FileStatus::TypeChanged));
        let renamed = rewrite("from", false, object(FILE, 1), object(FILE, 1));
        assert_eq!(status(renamed), Some(FileStatus::Renamed));
        let copied = rewrite("from", true, object(FILE, 1), object(FILE, 2));
        assert_eq!(status(copied), Some(FileStatus::Copied));
    }

    #[test]
    fn a_rewrite_with_a_submodule_side_is_an_addition_or_a_deletion() {
        let deleted = read(rewrite("from", false, object(FILE, 1), None)).unwrap();
        assert_eq!(
            (deleted.path.as_str(), deleted.old_path, deleted.status),
            ("from", None, FileStatus::Deleted)
        );
        let added = read(rewrite("from", false, None, object(FILE, 1))).unwrap();
        assert_eq!(
            (added.path.as_str(), added.old_path, added.status),
            ("to", None, FileStatus::Added)
        );
        let renamed = read(rewrite("from", false, object(FILE, 1), object(FILE, 2))).unwrap();
        assert_eq!(renamed.old_path.as_deref(), Some("from"));
    }

    #[test]
    fn sides_are_read_and_an_undone_change_dropped() {
        let file = read(Change::new(
            b"f".to_vec(),
            object(FILE, 1),
            disk(FILE, b"new"),
        ))
        .unwrap();
        assert_eq!(
            (file.old_mode, file.old, file.new_mode, file.new),
            (
                Some(FILE),
                Some(b"1".to_vec()),
                Some(FILE),
                Some(b"new".to_vec())
            )
        );
        let undone = Change::new(b"f".to_vec(), object(FILE, 1), disk(FILE, b"1"));
        assert_eq!(read(undone), None);
        let mode_only = Change::new(b"f".to_vec(), object(FILE, 1), disk(EXECUTABLE, b"1"));
        assert!(read(mode_only).is_some());
        let renamed = rewrite("from", false, object(FILE, 1), disk(FILE, b"1"));
        assert!(
            read(renamed).is_some(),
            "a rename with the same bytes is still shown"
        );
    }

    #[test]
    fn blobs_are_read_only_for_kept_changes_and_failures_pass_through() {
        let settled = Change::new(b"f".to_vec(), object(FILE, 1), object(FILE, 2))
            .settle()
            .unwrap();
        assert_eq!(settled.objects().copied().collect::<Vec<_>>(), [1, 2]);
        let failed = settled.read(&mut |id| Err::<Vec<u8>, _>(format!("blob {id}: gone")));
        assert_eq!(failed, Err("blob 1: gone".to_owned()));
    }

    #[test]
    fn paths_are_shown_as_utf8_and_files_sorted() {
        let file = read(Change::new(b"a\xffb".to_vec(), None, disk(FILE, b""))).unwrap();
        assert_eq!(file.path, "a\u{fffd}b");
        let named = |path: &str| ChangedFile {
            path: path.to_owned(),
            old_path: None,
            status: FileStatus::Added,
            old_mode: None,
            new_mode: Some(FILE),
            old: None,
            new: Some(Vec::new()),
        };
        let source = diff_source("/r".into(), None, None, vec![named("b"), named("a")]);
        let paths: Vec<_> = source.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a", "b"]);
    }
}
