//! Reads what a review compares from a git repository with gix: trees, the index, git's status,
//! the disk and blobs, handed to core's [`diff_rules`] in their vocabulary, which decide what
//! changed and how; the result is a [`DiffSource`]. Turning bytes into hunks is core's work too.
//!
//! Everything here is gix; nothing needs the git CLI.

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice as _};
use gix::diff::index::ChangeRef;
use gix::dir::entry::{Kind as DiskKind, Status as DirStatus};
use gix::dir::walk::EmissionMode;
use gix::objs::FindExt as _;
use gix::objs::tree::EntryMode;
use gix::odb::pack::Find as _;
use gix::status::index_worktree::Item as WorktreeItem;
use gix::status::plumbing::index_as_worktree::{Change as WorktreeChange, EntryStatus};
use gix::status::tree_index::TrackRenames;
use luxe_core::effects::{ChangedFile, DiffSource};
use luxe_core::guided_review::diff_rules::read_failure::{self, ReadFailure};
use luxe_core::guided_review::diff_rules::revisions::{self, Named, Revisions, Sides};
use luxe_core::guided_review::diff_rules::shown_files;
use luxe_core::guided_review::diff_rules::working_tree::{
    IndexEntry, Lookups, OnDisk, PathKind, Status, StatusItem, Tracked,
};
use luxe_core::guided_review::diff_rules::{self, Change, Settled, Side, Source};
use luxe_core::protocol::guided_review::ReviewTarget;

/// The most the pack cache holds while a diff is read.
const PACK_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// What changed between the two sides `target` names, in the repository that holds `cwd`: what
/// git holds read here, what it means decided by core's [`diff_rules`].
///
/// Submodules (gitlinks) and untracked nested repositories are left out: their content is
/// another repository's, and a review of this one has no bytes to show for them.
///
/// Renames and copies are reported as git's tree diff pairs them (by similarity, as
/// `diff.renames` says) for `branch`, `commits` and `staged`. For `working_tree`, a rename that
/// is staged (`git mv`) is reported as one; a file moved on disk but not staged is a deletion
/// plus an untracked addition, as `git diff HEAD` and `git ls-files --others` show it.
pub fn read_diff(cwd: &str, target: &ReviewTarget) -> Result<DiffSource, String> {
    let repo = open(cwd)?;
    let workdir = repo.workdir().ok_or_else(|| ReadFailure::Bare {
        git_dir: repo.git_dir().display().to_string(),
    })?;
    let root = std::fs::canonicalize(workdir).map_err(|err| path_failure(workdir, &err))?;
    let (base_commit, head_commit, files) = match target {
        ReviewTarget::WorkingTree => working_tree(&repo, &root)?,
        ReviewTarget::Staged => staged(&repo)?,
        ReviewTarget::Branch { base } => {
            let head = head_commit(&repo)?;
            trees(
                &repo,
                revisions::branch(head, base.as_deref(), &mut History(&repo))?,
            )?
        }
        ReviewTarget::Commits { from, to } => {
            trees(&repo, revisions::commits(from, to, &mut History(&repo))?)?
        }
        ReviewTarget::PullRequest { .. } => return Err(revisions::PULL_REQUESTS.into()),
    };
    Ok(diff_rules::change::diff_source(
        root.to_string_lossy().into_owned(),
        base_commit.map(|id| id.to_string()),
        head_commit.map(|id| id.to_string()),
        files,
    ))
}

/// The commits a read compares (when they are commits) and its changed files.
type Read = (Option<ObjectId>, Option<ObjectId>, Vec<ChangedFile>);

fn open(cwd: &str) -> Result<gix::Repository, String> {
    use gix::discover::upwards::Error as Upwards;
    let mut repo = gix::discover(cwd).map_err(|err| match err.downcast_any_ref::<Upwards>() {
        Some(
            Upwards::NoGitRepository { .. }
            | Upwards::NoGitRepositoryWithinCeiling { .. }
            | Upwards::NoGitRepositoryWithinFs { .. },
        ) => ReadFailure::NotARepository { cwd: cwd.into() },
        _ => ReadFailure::CannotOpen {
            cwd: cwd.into(),
            reason: reason(&err),
        },
    })?;
    // Packed blobs of similar files are deltas on shared bases; without a cache of decoded
    // objects each blob inflates its whole chain again. Read in pack order (see `read_all`),
    // 2,000 changed files read 3x faster with 256 entries than with 64, and no faster with
    // more. gix sets one up only with its `max-performance` feature, which also brings
    // threads. No object cache: each blob is read once, and a cache would copy it.
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::StaticLinkedList::<256>::new(
            PACK_CACHE_BYTES,
        ))
    });
    // Where a blob lies in its pack is asked for only while packs stay put.
    repo.objects.prevent_pack_unload();
    Ok(repo)
}

/// A gix error in words, as core's [`read_failure::reason`] puts its message and cause.
fn reason(err: &gix::Error) -> String {
    read_failure::reason(&err.to_string(), &err.probable_cause().to_string())
}

/// A path that could not be read, in core's words.
fn path_failure(path: &Path, err: &io::Error) -> ReadFailure {
    ReadFailure::Path {
        path: path.display().to_string(),
        reason: err.to_string(),
    }
}

/// A side whose blob is in the object database.
type Object = ObjectId;

/// A tree entry's mode as core reads it.
fn tree_mode(mode: EntryMode) -> u32 {
    u32::from(mode.value())
}

/// An index entry's side: one whose mode cannot be a tree entry's is none.
fn index_side(mode: gix::index::entry::Mode, id: impl Into<ObjectId>) -> Option<Side<Object>> {
    Side::object(tree_mode(mode.to_tree_entry_mode()?), id.into())
}

/// Every change core keeps, with both sides' bytes, in no particular order.
fn read_all(
    repo: &gix::Repository,
    changes: Vec<Change<Object>>,
) -> Result<Vec<ChangedFile>, String> {
    let mut settled: Vec<Settled<Object>> =
        changes.into_iter().filter_map(Change::settle).collect();
    // Read in the order the blobs lie in their packs (loose ones first), not by path: a
    // delta's base lies before it, so the bases each blob needs are then mostly in the pack
    // cache. The source sorts the files by path again.
    let mut scratch = Vec::new();
    settled.sort_by_cached_key(|change| {
        change
            .objects()
            .filter_map(|id| repo.objects.location_by_oid(id, &mut scratch).ok()?)
            .map(|location| (location.pack_id, location.pack_offset))
            .min()
    });
    let mut files = Vec::with_capacity(settled.len());
    // Blobs are decoded into `buffer`, reused from file to file, and copied out at their exact
    // size: a decoded delta's buffer is larger than the blob.
    let mut buffer = Vec::new();
    let mut read = |id: ObjectId| -> Result<Vec<u8>, String> {
        repo.objects
            .find_blob(&id, &mut buffer)
            .map(|blob| blob.data.to_vec())
            .map_err(|err| {
                String::from(ReadFailure::Blob {
                    blob: id.to_string(),
                    reason: err.to_string(),
                })
            })
    };
    for change in settled {
        files.extend(change.read(&mut read)?);
    }
    Ok(files)
}

/// HEAD's commit, `None` in a repository without commits.
fn head_commit(repo: &gix::Repository) -> Result<Option<ObjectId>, String> {
    let mut head = repo.head().map_err(|err| ReadFailure::Head(reason(&err)))?;
    if head.is_unborn() {
        return Ok(None);
    }
    head.peel_to_commit()
        .map(|commit| Some(commit.id))
        .map_err(|err| ReadFailure::Head(reason(&err)).into())
}

fn commit_tree(repo: &gix::Repository, commit: ObjectId) -> Result<ObjectId, String> {
    repo.find_commit(commit)
        .and_then(|commit| commit.tree_id())
        .map(gix::Id::detach)
        .map_err(|err| {
            ReadFailure::Commit {
                commit: commit.to_string(),
                reason: reason(&err),
            }
            .into()
        })
}

/// The tree HEAD points to, the empty tree when there are no commits.
fn head_tree(repo: &gix::Repository, head: Option<ObjectId>) -> Result<ObjectId, String> {
    match head {
        Some(commit) => commit_tree(repo, commit),
        None => Ok(ObjectId::empty_tree(repo.object_hash())),
    }
}

/// The index, or an empty one when there is none yet.
fn index(repo: &gix::Repository) -> Result<gix::worktree::Index, String> {
    repo.index_or_empty()
        .map_err(|err| ReadFailure::Index(reason(&err)).into())
}

/// HEAD → the index, as `git diff --cached`.
fn staged(repo: &gix::Repository) -> Result<Read, String> {
    let head = head_commit(repo)?;
    let tree = head_tree(repo, head)?;
    let index = index(repo)?;
    // Empty patterns must match the whole repository, not the part under this process's cwd.
    let mut pathspec = repo
        .pathspec(
            false,
            None::<&str>,
            false,
            &index,
            gix::worktree::stack::state::attributes::Source::IdMapping,
        )
        .map_err(|err| reason(&err))?;
    let mut changes = Vec::new();
    repo.tree_index_status(
        &tree,
        &index,
        Some(&mut pathspec),
        TrackRenames::AsConfigured,
        |change, _, _| {
            changes.push(index_change(&change));
            Ok(std::ops::ControlFlow::Continue(()))
        },
    )
    .map_err(|err| ReadFailure::HeadAgainstIndex(reason(&err)))?;
    Ok((head, None, read_all(repo, changes)?))
}

fn index_change(change: &ChangeRef<'_, '_>) -> Change<Object> {
    match change {
        ChangeRef::Addition {
            location,
            entry_mode,
            id,
            ..
        } => Change::new(
            location.to_vec(),
            None,
            index_side(*entry_mode, id.as_ref()),
        ),
        ChangeRef::Deletion {
            location,
            entry_mode,
            id,
            ..
        } => Change::new(
            location.to_vec(),
            index_side(*entry_mode, id.as_ref()),
            None,
        ),
        ChangeRef::Modification {
            location,
            previous_entry_mode,
            previous_id,
            entry_mode,
            id,
            ..
        } => Change::new(
            location.to_vec(),
            index_side(*previous_entry_mode, previous_id.as_ref()),
            index_side(*entry_mode, id.as_ref()),
        ),
        ChangeRef::Rewrite {
            source_location,
            source_entry_mode,
            source_id,
            location,
            entry_mode,
            id,
            copy,
            ..
        } => Change {
            path: location.to_vec(),
            source: Some(Source {
                path: source_location.to_vec(),
                copy: *copy,
            }),
            old: index_side(*source_entry_mode, source_id.as_ref()),
            new: index_side(*entry_mode, id.as_ref()),
        },
    }
}

/// HEAD → the working tree, as `git diff HEAD` plus the untracked files that are not ignored
/// (core's [`shown_files`] says what status reports): gix's status of the two halves, HEAD →
/// index and index → working tree, handed item by item to core's [`Status`], which asks for
/// the index entries, HEAD entries and files it needs.
fn working_tree(repo: &gix::Repository, root: &Path) -> Result<Read, String> {
    let query = shown_files::WORKING_TREE;
    let head = head_commit(repo)?;
    let index = index(repo)?;
    let items = repo
        .status(gix::progress::Discard)
        .map_err(|err| reason(&err))?
        .index(index.clone().into())
        .head_tree(head_tree(repo, head)?)
        .untracked_files(if query.untracked_files {
            gix::status::UntrackedFiles::Files
        } else {
            gix::status::UntrackedFiles::None
        })
        .dirwalk_options(|options| {
            // Empty patterns must match the whole repository, not the part under this
            // process's cwd.
            options
                .empty_patterns_match_prefix(false)
                .emit_ignored(query.ignored.then_some(EmissionMode::Matching))
                .emit_empty_directories(query.empty_directories)
        })
        .index_worktree_submodules(
            query
                .inside_submodules
                .then_some(gix::status::Submodule::AsConfigured { check_dirty: false }),
        )
        .tree_index_track_renames(TrackRenames::AsConfigured)
        .into_iter(Vec::new())
        .map_err(|err| ReadFailure::Status(reason(&err)))?;
    let mut status = Status::default();
    for item in items {
        status.add(status_item(
            item.map_err(|err| ReadFailure::Status(reason(&err)))?,
        ));
    }
    let head_tree = match (head, status.has_conflicts()) {
        (Some(commit), true) => Some(
            repo.find_tree(commit_tree(repo, commit)?)
                .map_err(|err| reason(&err))?,
        ),
        _ => None,
    };
    let file_mode = repo.config_snapshot().boolean("core.fileMode");
    let mut worktree = Worktree {
        root,
        index: &index,
        head_tree,
    };
    let changes = status.changes(file_mode, &mut worktree)?;
    Ok((head, None, read_all(repo, changes)?))
}

/// One item of gix's status in core's words.
fn status_item(item: gix::status::Item) -> StatusItem<Object> {
    match item {
        gix::status::Item::TreeIndex(change) => StatusItem::Staged(index_change(&change)),
        gix::status::Item::IndexWorktree(item) => match item {
            WorktreeItem::Modification {
                rela_path, status, ..
            } => StatusItem::Tracked {
                path: rela_path.into(),
                status: match status {
                    EntryStatus::Conflict { .. } => Tracked::Conflict,
                    EntryStatus::Change(WorktreeChange::SubmoduleModification(_)) => {
                        Tracked::SubmoduleModified
                    }
                    EntryStatus::NeedsUpdate(_) => Tracked::NeedsUpdate,
                    EntryStatus::Change(_) => Tracked::Changed,
                    EntryStatus::IntentToAdd => Tracked::IntentToAdd,
                },
            },
            WorktreeItem::DirectoryContents { entry, .. } => StatusItem::Walked {
                path: entry.rela_path.into(),
                untracked: entry.status == DirStatus::Untracked,
                kind: entry.disk_kind.map(|kind| match kind {
                    DiskKind::File => PathKind::File,
                    DiskKind::Symlink => PathKind::Symlink,
                    DiskKind::Directory => PathKind::Directory,
                    DiskKind::Repository => PathKind::Repository,
                    DiskKind::Untrackable => PathKind::Untrackable,
                }),
            },
            // Only with index → worktree rename tracking, which is off; kept correct anyway.
            WorktreeItem::Rewrite {
                source,
                dirwalk_entry,
                ..
            } => StatusItem::Moved {
                source: source.rela_path().to_vec(),
                destination: dirwalk_entry.rela_path.into(),
            },
        },
    }
}

/// What the working tree's rules look up: the index, HEAD's tree (read only when a path is
/// conflicted) and the disk.
struct Worktree<'a> {
    root: &'a Path,
    index: &'a gix::worktree::Index,
    head_tree: Option<gix::Tree<'a>>,
}

impl Lookups<Object> for Worktree<'_> {
    fn index_entry(&self, path: &[u8]) -> Option<IndexEntry<Object>> {
        let entry = self.index.entry_by_path(path.as_bstr())?;
        Some(IndexEntry {
            tree_mode: entry.mode.to_tree_entry_mode().map(tree_mode),
            id: entry.id,
            intent_to_add: entry
                .flags
                .contains(gix::index::entry::Flags::INTENT_TO_ADD),
        })
    }

    fn head_entry(&mut self, path: &[u8]) -> Result<Option<(u32, Object)>, String> {
        let Some(tree) = &self.head_tree else {
            return Ok(None);
        };
        let entry = tree
            .lookup_entry_by_path(fs_path(path.as_bstr()))
            .map_err(|err| ReadFailure::InHead {
                path: path.as_bstr().to_string(),
                reason: reason(&err),
            })?;
        Ok(entry.map(|entry| (tree_mode(entry.mode()), entry.object_id())))
    }

    fn on_disk(&mut self, path: &[u8]) -> Result<Option<OnDisk>, String> {
        read_disk(self.root, path.as_bstr())
    }
}

/// A working-tree file: a symlink's target, or a regular file's bytes and whether its owner
/// may execute it. `None` when nothing git could track is there (gone, or a directory now).
fn read_disk(root: &Path, path: &BStr) -> Result<Option<OnDisk>, String> {
    let full = root.join(fs_path(path));
    let metadata = match std::fs::symlink_metadata(&full) {
        Ok(metadata) => metadata,
        Err(err) if is_absent(&err) => return Ok(None),
        Err(err) => return Err(path_failure(&full, &err).into()),
    };
    if metadata.is_symlink() {
        let target = std::fs::read_link(&full).map_err(|err| path_failure(&full, &err))?;
        return Ok(Some(OnDisk::Symlink {
            target: target.into_os_string().into_vec(),
        }));
    }
    if !metadata.is_file() {
        return Ok(None);
    }
    match std::fs::read(&full) {
        Ok(bytes) => Ok(Some(OnDisk::File {
            executable: metadata.permissions().mode() & 0o100 != 0,
            bytes,
        })),
        Err(err) if is_absent(&err) => Ok(None),
        Err(err) => Err(path_failure(&full, &err).into()),
    }
}

/// A repository path as a file system path: git paths are bytes, and so are Unix paths.
fn fs_path(path: &BStr) -> &Path {
    Path::new(OsStr::from_bytes(path))
}

fn is_absent(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// The changes between the two trees core chose.
fn trees(repo: &gix::Repository, sides: Sides<ObjectId>) -> Result<Read, String> {
    let changes = diff_trees(repo, sides.old_tree, sides.new_tree)?;
    Ok((
        sides.base_commit,
        sides.head_commit,
        read_all(repo, changes)?,
    ))
}

/// What a `branch` or `commits` review's rules look up in the repository.
struct History<'a>(&'a gix::Repository);

impl Revisions<ObjectId> for History<'_> {
    fn reference(&mut self, full: &str) -> Result<Option<Option<String>>, String> {
        let found = self
            .0
            .try_find_reference(full)
            .map_err(|err| reason(&err))?;
        Ok(found.map(|found| {
            found
                .target()
                .try_name()
                .map(|target| target.as_bstr().to_str_lossy().into_owned())
        }))
    }

    fn resolve(&mut self, spec: &str) -> Result<Named<ObjectId>, String> {
        let object = self
            .0
            .rev_parse_single(spec)
            .and_then(|id| id.object())
            .and_then(gix::Object::peel_tags_to_end);
        let object = match object {
            Ok(object) => object,
            Err(err) => {
                return Ok(Named::Unknown {
                    cause: err.probable_cause().to_string(),
                });
            }
        };
        Ok(match object.kind {
            gix::object::Kind::Commit => Named::Commit {
                commit: object.id,
                tree: commit_tree(self.0, object.id)?,
            },
            gix::object::Kind::Tree => Named::Tree(object.id),
            kind => Named::Other(kind.to_string()),
        })
    }

    fn merge_base(&mut self, one: &ObjectId, two: &ObjectId) -> Result<Option<ObjectId>, String> {
        self.0
            .merge_base(*one, *two)
            .map(|found| found.map(gix::Id::detach))
            .map_err(|err| reason(&err))
    }

    fn tree_of(&mut self, commit: &ObjectId) -> Result<ObjectId, String> {
        commit_tree(self.0, *commit)
    }
}

/// The changes from tree `old` to tree `new`, renames and copies paired as the repository's
/// `diff.renames` says (renames by default).
fn diff_trees(
    repo: &gix::Repository,
    old: ObjectId,
    new: ObjectId,
) -> Result<Vec<Change<Object>>, String> {
    use gix::object::tree::diff::ChangeDetached;
    let tree = |id: ObjectId| {
        repo.find_tree(id).map_err(|err| ReadFailure::Tree {
            tree: id.to_string(),
            reason: reason(&err),
        })
    };
    let (old, new) = (tree(old)?, tree(new)?);
    let changes = repo
        .diff_tree_to_tree(&old, &new, None)
        .map_err(|err| ReadFailure::Diff(reason(&err)))?;
    let side = |mode: EntryMode, id: ObjectId| Side::object(tree_mode(mode), id);
    Ok(changes
        .into_iter()
        .map(|change| match change {
            ChangeDetached::Addition {
                location,
                entry_mode,
                id,
                ..
            } => Change::new(location.into(), None, side(entry_mode, id)),
            ChangeDetached::Deletion {
                location,
                entry_mode,
                id,
                ..
            } => Change::new(location.into(), side(entry_mode, id), None),
            ChangeDetached::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } => Change::new(
                location.into(),
                side(previous_entry_mode, previous_id),
                side(entry_mode, id),
            ),
            ChangeDetached::Rewrite {
                source_location,
                source_entry_mode,
                source_id,
                entry_mode,
                id,
                location,
                copy,
                ..
            } => Change {
                path: location.into(),
                source: Some(Source {
                    path: source_location.into(),
                    copy,
                }),
                old: side(source_entry_mode, source_id),
                new: side(entry_mode, id),
            },
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_shows_paths_as_gix_would() {
        // Invalid UTF-8 of every kind: a lone continuation byte, a truncated sequence, an
        // overlong encoding, a surrogate, a code point past U+10FFFF.
        let paths: [&[u8]; 6] = [
            b"plain/path.rs",
            b"a\x80b",
            b"\xe2\x82",
            b"\xc0\xafslash",
            b"\xed\xa0\x80x",
            b"\xf4\x90\x80\x80\xff",
        ];
        for path in paths {
            let change = Change::new(
                path.to_vec(),
                None,
                Some(Side::object(0o100644, 0u8).unwrap()),
            );
            let file = change
                .settle()
                .unwrap()
                .read(&mut |_| Ok::<_, String>(Vec::new()))
                .unwrap()
                .unwrap();
            assert_eq!(file.path, path.as_bstr().to_str_lossy(), "{path:?}");
        }
    }
}
