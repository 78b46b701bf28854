//! Reads what a review compares from a git repository with gix: which files changed between two
//! sides, how, and both sides' bytes ([`DiffSource`]). Turning bytes into hunks is core's work.
//!
//! Everything here is gix; nothing needs the git CLI.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice as _};
use gix::diff::index::ChangeRef;
use gix::dir::entry::{Kind as DiskKind, Status as DirStatus};
use gix::objs::FindExt as _;
use gix::objs::tree::{EntryKind, EntryMode};
use gix::odb::pack::Find as _;
use gix::status::index_worktree::Item as WorktreeItem;
use gix::status::plumbing::index_as_worktree::{Change as WorktreeChange, EntryStatus};
use gix::status::tree_index::TrackRenames;
use luxe_core::protocol::review::{FileStatus, ReviewTarget};
use luxe_core::review::source::{ChangedFile, DEFAULT_BASES, DiffSource};

/// A symlink's git mode.
const LINK: u32 = 0o120000;
/// A regular file's git mode.
const FILE: u32 = 0o100644;
/// An executable file's git mode.
const EXECUTABLE: u32 = 0o100755;

const PULL_REQUESTS: &str = "pull requests are read through gh, not git";

/// The most the pack cache holds while a diff is read.
const PACK_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// What changed between the two sides `target` names, in the repository that holds `cwd`.
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
    let workdir = repo.workdir().ok_or_else(|| {
        format!(
            "{}: a bare repository has no working tree to review",
            repo.git_dir().display()
        )
    })?;
    let root =
        std::fs::canonicalize(workdir).map_err(|err| format!("{}: {err}", workdir.display()))?;
    let mut source = match target {
        ReviewTarget::WorkingTree => working_tree(&repo, &root)?,
        ReviewTarget::Staged => staged(&repo)?,
        ReviewTarget::Branch { base } => branch(&repo, base.as_deref())?,
        ReviewTarget::Commits { from, to } => commits(&repo, from, to)?,
        ReviewTarget::PullRequest { .. } => return Err(PULL_REQUESTS.into()),
    };
    source.root = root.to_string_lossy().into_owned();
    source.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(source)
}

fn open(cwd: &str) -> Result<gix::Repository, String> {
    use gix::discover::upwards::Error as Upwards;
    let mut repo = gix::discover(cwd).map_err(|err| match err.downcast_any_ref::<Upwards>() {
        Some(
            Upwards::NoGitRepository { .. }
            | Upwards::NoGitRepositoryWithinCeiling { .. }
            | Upwards::NoGitRepositoryWithinFs { .. },
        ) => format!("not a git repository: {cwd} (nor any of its parents)"),
        _ => format!("{cwd}: {}", reason(&err)),
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

/// A gix error in words: what failed, and the deepest cause when that says more.
fn reason(err: &gix::Error) -> String {
    let what = err.to_string();
    let cause = err.probable_cause().to_string();
    if what.contains(&cause) {
        what
    } else {
        format!("{what}: {cause}")
    }
}

/// One side of a changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Side {
    /// Its git mode.
    mode: u32,
    content: Content,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Content {
    /// A blob in the object database, read only if the file is kept.
    Object(ObjectId),
    /// Bytes already read (from the working tree).
    Bytes(Vec<u8>),
}

/// A changed file before its bytes are read and its status settled.
struct Change {
    path: BString,
    /// The source of a rename or copy.
    source: Option<(BString, bool)>,
    old: Option<Side>,
    new: Option<Side>,
}

impl Change {
    fn new(path: BString, old: Option<Side>, new: Option<Side>) -> Self {
        Self {
            path,
            source: None,
            old,
            new,
        }
    }

    /// The file with both sides' bytes, or `None` when the two sides are the same after all.
    fn read(
        self,
        repo: &gix::Repository,
        buffer: &mut Vec<u8>,
    ) -> Result<Option<ChangedFile>, String> {
        let Change {
            mut path,
            mut source,
            old,
            new,
        } = self;
        let status = match (&old, &new) {
            (None, None) => return Ok(None),
            (None, Some(_)) => FileStatus::Added,
            (Some(_), None) => FileStatus::Deleted,
            (Some(old), Some(new)) => match &source {
                Some((_, true)) => FileStatus::Copied,
                Some((_, false)) => FileStatus::Renamed,
                None if old == new => return Ok(None),
                None if (old.mode == LINK) != (new.mode == LINK) => FileStatus::TypeChanged,
                None => FileStatus::Modified,
            },
        };
        match status {
            FileStatus::Renamed | FileStatus::Copied => {}
            // A rewrite whose other side is a submodule is a plain addition or deletion.
            FileStatus::Deleted => {
                if let Some((from, _)) = source.take() {
                    path = from;
                }
            }
            _ => source = None,
        }
        let (old_mode, old) = read_side(repo, old, buffer)?;
        let (new_mode, new) = read_side(repo, new, buffer)?;
        if status == FileStatus::Modified && old_mode == new_mode && old == new {
            // Only the working tree gets here: a staged change undone on disk.
            return Ok(None);
        }
        Ok(Some(ChangedFile {
            path: path.to_str_lossy().into_owned(),
            old_path: source.map(|(from, _)| from.to_str_lossy().into_owned()),
            status,
            old_mode,
            new_mode,
            old,
            new,
        }))
    }
}

/// The side's mode and bytes. Blobs are decoded into `buffer`, reused from file to file, and
/// copied out at their exact size: a decoded delta's buffer is larger than the blob.
fn read_side(
    repo: &gix::Repository,
    side: Option<Side>,
    buffer: &mut Vec<u8>,
) -> Result<(Option<u32>, Option<Vec<u8>>), String> {
    let Some(Side { mode, content }) = side else {
        return Ok((None, None));
    };
    let bytes = match content {
        Content::Bytes(bytes) => bytes,
        Content::Object(id) => repo
            .objects
            .find_blob(&id, buffer)
            .map_err(|err| format!("blob {id}: {err}"))?
            .data
            .to_vec(),
    };
    Ok((Some(mode), Some(bytes)))
}

/// A tree or index entry as a side; trees and submodules are none.
fn object_side(mode: EntryMode, id: impl Into<ObjectId>) -> Option<Side> {
    let mode = match mode.kind() {
        EntryKind::Blob => FILE,
        EntryKind::BlobExecutable => EXECUTABLE,
        EntryKind::Link => LINK,
        EntryKind::Tree | EntryKind::Commit => return None,
    };
    Some(Side {
        mode,
        content: Content::Object(id.into()),
    })
}

fn index_side(mode: gix::index::entry::Mode, id: impl Into<ObjectId>) -> Option<Side> {
    object_side(mode.to_tree_entry_mode()?, id)
}

/// Every change with both sides' bytes, in no particular order.
fn read_all(repo: &gix::Repository, mut changes: Vec<Change>) -> Result<Vec<ChangedFile>, String> {
    // Read in the order the blobs lie in their packs (loose ones first), not by path: a
    // delta's base lies before it, so the bases each blob needs are then mostly in the pack
    // cache. `read_diff` sorts the files by path again.
    let mut scratch = Vec::new();
    changes.sort_by_cached_key(|change| {
        let objects = [&change.old, &change.new].into_iter().flatten();
        let ids = objects.filter_map(|side| match side.content {
            Content::Object(id) => Some(id),
            Content::Bytes(_) => None,
        });
        ids.filter_map(|id| repo.objects.location_by_oid(&id, &mut scratch).ok()?)
            .map(|location| (location.pack_id, location.pack_offset))
            .min()
    });
    let mut files = Vec::with_capacity(changes.len());
    let mut buffer = Vec::new();
    for change in changes {
        files.extend(change.read(repo, &mut buffer)?);
    }
    Ok(files)
}

/// HEAD's commit, `None` in a repository without commits.
fn head_commit(repo: &gix::Repository) -> Result<Option<ObjectId>, String> {
    let mut head = repo
        .head()
        .map_err(|err| format!("HEAD: {}", reason(&err)))?;
    if head.is_unborn() {
        return Ok(None);
    }
    head.peel_to_commit()
        .map(|commit| Some(commit.id))
        .map_err(|err| format!("HEAD: {}", reason(&err)))
}

fn commit_tree(repo: &gix::Repository, commit: ObjectId) -> Result<ObjectId, String> {
    repo.find_commit(commit)
        .and_then(|commit| commit.tree_id())
        .map(gix::Id::detach)
        .map_err(|err| format!("commit {commit}: {}", reason(&err)))
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
        .map_err(|err| format!("the index: {}", reason(&err)))
}

/// HEAD → the index, as `git diff --cached`.
fn staged(repo: &gix::Repository) -> Result<DiffSource, String> {
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
    .map_err(|err| format!("HEAD against the index: {}", reason(&err)))?;
    Ok(DiffSource {
        base_commit: head.map(|id| id.to_string()),
        files: read_all(repo, changes)?,
        ..DiffSource::default()
    })
}

fn index_change(change: &ChangeRef<'_, '_>) -> Change {
    match change {
        ChangeRef::Addition {
            location,
            entry_mode,
            id,
            ..
        } => Change::new(
            location.as_ref().into(),
            None,
            index_side(*entry_mode, id.as_ref()),
        ),
        ChangeRef::Deletion {
            location,
            entry_mode,
            id,
            ..
        } => Change::new(
            location.as_ref().into(),
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
            location.as_ref().into(),
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
            path: location.as_ref().into(),
            source: Some((source_location.as_ref().into(), *copy)),
            old: index_side(*source_entry_mode, source_id.as_ref()),
            new: index_side(*entry_mode, id.as_ref()),
        },
    }
}

/// HEAD → the working tree, as `git diff HEAD` plus the untracked files that are not ignored.
///
/// gix's status gives the two halves, HEAD → index and index → working tree; a path either
/// half mentions is a candidate, and its HEAD side and disk side are compared. A path neither
/// mentions is unchanged, and is never read.
fn working_tree(repo: &gix::Repository, root: &Path) -> Result<DiffSource, String> {
    let head = head_commit(repo)?;
    let index = index(repo)?;
    let status = repo
        .status(gix::progress::Discard)
        .map_err(|err| reason(&err))?
        .index(index.clone().into())
        .head_tree(head_tree(repo, head)?)
        .untracked_files(gix::status::UntrackedFiles::Files)
        .dirwalk_options(|options| {
            // Empty patterns must match the whole repository, not the part under this
            // process's cwd.
            options
                .empty_patterns_match_prefix(false)
                .emit_ignored(None)
                .emit_empty_directories(false)
        })
        // Submodules are left out of reviews: no need to look inside them.
        .index_worktree_submodules(None)
        .tree_index_track_renames(TrackRenames::AsConfigured)
        .into_iter(Vec::new())
        .map_err(|err| format!("status: {}", reason(&err)))?;

    // What HEAD has at each path that differs between HEAD and the index. At every other
    // tracked path HEAD has what the index has.
    let mut in_head: BTreeMap<BString, Option<Side>> = BTreeMap::new();
    // Staged renames and copies: (source, destination, copy).
    let mut rewrites = Vec::new();
    // Tracked paths that differ between the index and the disk.
    let mut on_disk = BTreeSet::new();
    // Paths with unmerged entries: the index does not say what HEAD has there.
    let mut conflicts = BTreeSet::new();
    let mut untracked = BTreeSet::new();
    for item in status {
        match item.map_err(|err| format!("status: {}", reason(&err)))? {
            gix::status::Item::TreeIndex(change) => {
                let change = index_change(&change);
                if let Some((source, copy)) = change.source {
                    in_head.insert(source.clone(), change.old);
                    in_head.entry(change.path.clone()).or_insert(None);
                    rewrites.push((source, change.path, copy));
                } else {
                    in_head.insert(change.path, change.old);
                }
            }
            gix::status::Item::IndexWorktree(item) => match item {
                WorktreeItem::Modification {
                    rela_path, status, ..
                } => match status {
                    EntryStatus::Conflict { .. } => {
                        conflicts.insert(rela_path);
                    }
                    EntryStatus::Change(WorktreeChange::SubmoduleModification(_))
                    | EntryStatus::NeedsUpdate(_) => {}
                    EntryStatus::Change(_) | EntryStatus::IntentToAdd => {
                        on_disk.insert(rela_path);
                    }
                },
                WorktreeItem::DirectoryContents { entry, .. } => {
                    if entry.status == DirStatus::Untracked
                        && matches!(entry.disk_kind, Some(DiskKind::File | DiskKind::Symlink))
                    {
                        untracked.insert(entry.rela_path);
                    }
                }
                // Only with index → worktree rename tracking, which is off; kept correct anyway.
                WorktreeItem::Rewrite {
                    source,
                    dirwalk_entry,
                    ..
                } => {
                    on_disk.insert(source.rela_path().to_owned());
                    untracked.insert(dirwalk_entry.rela_path);
                }
            },
        }
    }

    let file_mode = repo
        .config_snapshot()
        .boolean("core.fileMode")
        .unwrap_or(true);
    let head_tree = match (head, conflicts.is_empty()) {
        (Some(commit), false) => Some(
            repo.find_tree(commit_tree(repo, commit)?)
                .map_err(|err| reason(&err))?,
        ),
        _ => None,
    };
    let mut paths: BTreeSet<&BString> = in_head.keys().collect();
    paths.extend(&on_disk);
    paths.extend(&conflicts);
    paths.extend(&untracked);
    let mut changes: BTreeMap<BString, Change> = BTreeMap::new();
    for path in paths {
        let tracked = index.entry_by_path(path.as_ref());
        let old = if conflicts.contains(path) {
            match &head_tree {
                Some(tree) => tree
                    .lookup_entry_by_path(fs_path(path.as_ref()))
                    .map_err(|err| format!("{path} in HEAD: {}", reason(&err)))?
                    .and_then(|entry| object_side(entry.mode(), entry.object_id())),
                None => None,
            }
        } else {
            match in_head.get(path) {
                Some(side) => side.clone(),
                // An intent-to-add entry is a promise of a new file, not what HEAD has.
                None => tracked
                    .filter(|entry| {
                        !entry
                            .flags
                            .contains(gix::index::entry::Flags::INTENT_TO_ADD)
                    })
                    .and_then(|entry| index_side(entry.mode, entry.id)),
            }
        };
        let new = if tracked.is_some() || untracked.contains(path) {
            let index_mode = tracked.and_then(|entry| index_side(entry.mode, entry.id));
            read_disk(
                root,
                path.as_ref(),
                file_mode,
                index_mode.map(|side| side.mode),
            )?
        } else {
            None
        };
        changes.insert(path.clone(), Change::new(path.clone(), old, new));
    }
    pair_rewrites(&mut changes, rewrites);
    Ok(DiffSource {
        base_commit: head.map(|id| id.to_string()),
        files: read_all(repo, changes.into_values().collect())?,
        ..DiffSource::default()
    })
}

/// Turns a staged rename (or copy) whose destination is still an addition on disk into one
/// change, as `git diff HEAD` pairs it; one undone on disk stays what it became.
fn pair_rewrites(changes: &mut BTreeMap<BString, Change>, rewrites: Vec<(BString, BString, bool)>) {
    for (source, destination, copy) in rewrites {
        let added = changes
            .get(&destination)
            .is_some_and(|change| change.old.is_none() && change.new.is_some());
        let source_side = match changes.get(&source) {
            Some(change) if added && copy => change.old.clone(),
            Some(change) if added && change.new.is_none() => change.old.clone(),
            _ => continue,
        };
        if !copy {
            changes.remove(&source);
        }
        if let Some(change) = changes.get_mut(&destination) {
            change.old = source_side;
            change.source = Some((source, copy));
        }
    }
}

/// A working-tree file as git would see it: symlinks as their target, the executable bit as
/// the mode unless `core.fileMode` is off (then the index's mode stands). `None` when nothing
/// git could track is there (gone, or a directory now).
fn read_disk(
    root: &Path,
    path: &BStr,
    file_mode: bool,
    index_mode: Option<u32>,
) -> Result<Option<Side>, String> {
    let full = root.join(fs_path(path));
    let metadata = match std::fs::symlink_metadata(&full) {
        Ok(metadata) => metadata,
        Err(err) if is_absent(&err) => return Ok(None),
        Err(err) => return Err(format!("{}: {err}", full.display())),
    };
    let (mode, bytes) = if metadata.is_symlink() {
        let target =
            std::fs::read_link(&full).map_err(|err| format!("{}: {err}", full.display()))?;
        (LINK, target.into_os_string().into_vec())
    } else if metadata.is_file() {
        let mode = if !file_mode {
            index_mode.filter(|&mode| mode != LINK).unwrap_or(FILE)
        } else if metadata.permissions().mode() & 0o100 != 0 {
            EXECUTABLE
        } else {
            FILE
        };
        match std::fs::read(&full) {
            Ok(bytes) => (mode, bytes),
            Err(err) if is_absent(&err) => return Ok(None),
            Err(err) => return Err(format!("{}: {err}", full.display())),
        }
    } else {
        return Ok(None);
    };
    Ok(Some(Side {
        mode,
        content: Content::Bytes(bytes),
    }))
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

/// The merge-base of HEAD and `base` → HEAD.
fn branch(repo: &gix::Repository, base: Option<&str>) -> Result<DiffSource, String> {
    let head = head_commit(repo)?.ok_or("HEAD has no commits yet: there is no branch to review")?;
    let base = match base {
        Some(base) => base.to_owned(),
        None => default_base(repo)?,
    };
    let (base_commit, _) = resolve(repo, &base)?;
    let base_commit =
        base_commit.ok_or_else(|| format!("'{base}' is not a commit, so not a branch"))?;
    let merge_base = repo
        .merge_base(head, base_commit)
        .map_err(|err| format!("merge-base of HEAD and '{base}': {}", reason(&err)))?
        .ok_or_else(|| format!("HEAD and '{base}' have no common ancestor"))?
        .detach();
    let changes = diff_trees(
        repo,
        commit_tree(repo, merge_base)?,
        commit_tree(repo, head)?,
    )?;
    Ok(DiffSource {
        base_commit: Some(merge_base.to_string()),
        head_commit: Some(head.to_string()),
        files: read_all(repo, changes)?,
        ..DiffSource::default()
    })
}

/// The base of a `branch` review with none named: the first of core's [`DEFAULT_BASES`] that
/// exists, a symbolic ref as the branch it points to.
fn default_base(repo: &gix::Repository) -> Result<String, String> {
    for full in DEFAULT_BASES {
        let found = repo
            .try_find_reference(*full)
            .map_err(|err| format!("{full}: {}", reason(&err)))?;
        let Some(found) = found else { continue };
        return Ok(match found.target().try_name() {
            Some(target) => target.as_bstr().to_str_lossy().into_owned(),
            None => full.to_string(),
        });
    }
    Err(
        "no base branch: origin/HEAD is not set and there is no main or master branch; \
         name the base"
            .into(),
    )
}

/// `git diff from to`.
fn commits(repo: &gix::Repository, from: &str, to: &str) -> Result<DiffSource, String> {
    let (base_commit, old) = resolve(repo, from)?;
    let (head_commit, new) = resolve(repo, to)?;
    let changes = diff_trees(repo, old, new)?;
    Ok(DiffSource {
        base_commit: base_commit.map(|id| id.to_string()),
        head_commit: head_commit.map(|id| id.to_string()),
        files: read_all(repo, changes)?,
        ..DiffSource::default()
    })
}

/// The commit (when it is one) and tree a revision names.
fn resolve(repo: &gix::Repository, spec: &str) -> Result<(Option<ObjectId>, ObjectId), String> {
    let unknown = |err: gix::Error| format!("unknown revision '{spec}': {}", err.probable_cause());
    let object = repo
        .rev_parse_single(spec)
        .and_then(|id| id.object())
        .and_then(gix::Object::peel_tags_to_end)
        .map_err(unknown)?;
    match object.kind {
        gix::object::Kind::Commit => {
            let commit = object.id;
            Ok((Some(commit), commit_tree(repo, commit)?))
        }
        gix::object::Kind::Tree => Ok((None, object.id)),
        kind => Err(format!("'{spec}' names a {kind}, not a commit or tree")),
    }
}

/// The changes from tree `old` to tree `new`, renames and copies paired as the repository's
/// `diff.renames` says (renames by default).
fn diff_trees(repo: &gix::Repository, old: ObjectId, new: ObjectId) -> Result<Vec<Change>, String> {
    use gix::object::tree::diff::ChangeDetached;
    let tree = |id: ObjectId| {
        repo.find_tree(id)
            .map_err(|err| format!("tree {id}: {}", reason(&err)))
    };
    let (old, new) = (tree(old)?, tree(new)?);
    let changes = repo
        .diff_tree_to_tree(&old, &new, None)
        .map_err(|err| format!("diff: {}", reason(&err)))?;
    Ok(changes
        .into_iter()
        .map(|change| match change {
            ChangeDetached::Addition {
                location,
                entry_mode,
                id,
                ..
            } => Change::new(location, None, object_side(entry_mode, id)),
            ChangeDetached::Deletion {
                location,
                entry_mode,
                id,
                ..
            } => Change::new(location, object_side(entry_mode, id), None),
            ChangeDetached::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } => Change::new(
                location,
                object_side(previous_entry_mode, previous_id),
                object_side(entry_mode, id),
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
                path: location,
                source: Some((source_location, copy)),
                old: object_side(source_entry_mode, source_id),
                new: object_side(entry_mode, id),
            },
        })
        .collect())
}
