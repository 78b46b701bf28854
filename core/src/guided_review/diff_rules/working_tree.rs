//! A `working_tree` review, HEAD → the disk: which paths changed, from what git's status said
//! of the two halves (HEAD → index and index → working tree), and what each side is.
//!
//! A path either half mentions is a candidate; its HEAD side and its disk side are compared. A
//! path neither mentions is unchanged, and is never read. A rename that is staged (`git mv`)
//! is one change; a file moved on disk but not staged is a deletion plus an untracked
//! addition, as `git diff HEAD` and `git ls-files --others` show it.

use std::collections::{BTreeMap, BTreeSet};

use super::change::{Change, Content, Side, Source};
use super::{EXECUTABLE, FILE, LINK};

/// What git's status says of a tracked path between the index and the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tracked {
    /// It has unmerged entries: the index does not say what HEAD has there.
    Conflict,
    /// A submodule's content changed (reviews leave submodules out).
    SubmoduleModified,
    /// Only its stat data is stale; the bytes are what the index has.
    NeedsUpdate,
    /// Its content, mode or kind differs from the index.
    Changed,
    /// It was added with `git add -N`: a promise of a new file.
    IntentToAdd,
}

/// What a directory walk found at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// A regular file.
    File,
    /// A symlink, not followed; an untracked one is a new file like a regular one.
    Symlink,
    /// A plain directory; an untracked one is no change of its own.
    Directory,
    /// A directory holding a repository of its own.
    Repository,
    /// A FIFO, socket or device, which git cannot track.
    Untrackable,
}

/// One item of git's status, in the words io read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusItem<Id> {
    /// HEAD → the index: a staged change (renames and copies paired as configured).
    Staged(Change<Id>),
    /// The index → the disk, at a tracked path.
    Tracked {
        /// The path from the repository's top, as git's bytes.
        path: Vec<u8>,
        /// How it differs.
        status: Tracked,
    },
    /// An entry of the directory walk.
    Walked {
        /// The path from the repository's top, as git's bytes.
        path: Vec<u8>,
        /// Whether it is untracked and not ignored.
        untracked: bool,
        /// What is on disk there, when known.
        kind: Option<PathKind>,
    },
    /// The index → the disk, a tracked file found again at an untracked path.
    Moved {
        /// The tracked path.
        source: Vec<u8>,
        /// Where it is now.
        destination: Vec<u8>,
    },
}

/// A path's entry in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry<Id> {
    /// Its mode as a tree entry's bits; `None` when it cannot be one.
    pub tree_mode: Option<u32>,
    /// The object id of its staged content: the blob the index records.
    pub id: Id,
    /// Added with `git add -N`.
    pub intent_to_add: bool,
}

/// What is on disk at a path, when git could track it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnDisk {
    /// A symlink, and where it points.
    Symlink {
        /// The link's target, as bytes.
        target: Vec<u8>,
    },
    /// A regular file.
    File {
        /// The owner may execute it.
        executable: bool,
        /// Its content.
        bytes: Vec<u8>,
    },
}

/// What [`Status::changes`] asks io to look up, path by path.
pub trait Lookups<Id> {
    /// The index entry at `path`.
    fn index_entry(&self, path: &[u8]) -> Option<IndexEntry<Id>>;
    /// HEAD's entry at `path` (tree mode bits and object), asked only for a conflicted path;
    /// `None` without commits. An error is why it could not be read.
    fn head_entry(&mut self, path: &[u8]) -> Result<Option<(u32, Id)>, String>;
    /// What is on disk at `path`; `None` when nothing git could track is there (gone, or a
    /// directory now). An error is why it could not be read.
    fn on_disk(&mut self, path: &[u8]) -> Result<Option<OnDisk>, String>;
}

/// Git's status gathered item by item ([`Status::add`]).
#[derive(Debug, Clone)]
pub struct Status<Id> {
    /// What HEAD has at each path that differs between HEAD and the index. At every other
    /// tracked path HEAD has what the index has.
    in_head: BTreeMap<Vec<u8>, Option<Side<Id>>>,
    /// Staged renames and copies: (source, destination, copy).
    rewrites: Vec<(Vec<u8>, Vec<u8>, bool)>,
    /// Tracked paths that differ between the index and the disk.
    on_disk: BTreeSet<Vec<u8>>,
    /// Paths with unmerged entries.
    conflicts: BTreeSet<Vec<u8>>,
    untracked: BTreeSet<Vec<u8>>,
}

impl<Id> Default for Status<Id> {
    fn default() -> Self {
        Self {
            in_head: BTreeMap::new(),
            rewrites: Vec::new(),
            on_disk: BTreeSet::new(),
            conflicts: BTreeSet::new(),
            untracked: BTreeSet::new(),
        }
    }
}

impl<Id: Clone + PartialEq> Status<Id> {
    /// Takes in one status item.
    pub fn add(&mut self, item: StatusItem<Id>) {
        match item {
            StatusItem::Staged(change) => match change.source {
                Some(Source { path: source, copy }) => {
                    self.in_head.insert(source.clone(), change.old);
                    self.in_head.entry(change.path.clone()).or_insert(None);
                    self.rewrites.push((source, change.path, copy));
                }
                None => {
                    self.in_head.insert(change.path, change.old);
                }
            },
            StatusItem::Tracked { path, status } => match status {
                Tracked::Conflict => {
                    self.conflicts.insert(path);
                }
                Tracked::SubmoduleModified | Tracked::NeedsUpdate => {}
                Tracked::Changed | Tracked::IntentToAdd => {
                    self.on_disk.insert(path);
                }
            },
            StatusItem::Walked {
                path,
                untracked,
                kind,
            } => {
                // Untracked nested repositories are another repository's content.
                if untracked && matches!(kind, Some(PathKind::File | PathKind::Symlink)) {
                    self.untracked.insert(path);
                }
            }
            StatusItem::Moved {
                source,
                destination,
            } => {
                self.on_disk.insert(source);
                self.untracked.insert(destination);
            }
        }
    }

    /// Whether a path is conflicted: then [`Lookups::head_entry`] will be asked.
    pub fn has_conflicts(&self) -> bool {
        !self.conflicts.is_empty()
    }

    /// Every candidate path's change, both sides as git sees them: HEAD's (for a conflicted
    /// path HEAD's own entry, else what the index has unless it is only an intent to add) and
    /// the disk's (symlinks as their target; the executable bit as the mode unless
    /// `core.fileMode`, true when unset, is off: then the index's mode stands).
    pub fn changes(
        self,
        core_file_mode: Option<bool>,
        lookups: &mut impl Lookups<Id>,
    ) -> Result<Vec<Change<Id>>, String> {
        let file_mode = core_file_mode.unwrap_or(true);
        let mut paths: BTreeSet<&Vec<u8>> = self.in_head.keys().collect();
        paths.extend(&self.on_disk);
        paths.extend(&self.conflicts);
        paths.extend(&self.untracked);
        let mut changes: BTreeMap<Vec<u8>, Change<Id>> = BTreeMap::new();
        for path in paths {
            let tracked = lookups.index_entry(path);
            let index_side = |entry: &IndexEntry<Id>| {
                entry
                    .tree_mode
                    .and_then(|mode| Side::object(mode, entry.id.clone()))
            };
            let old = if self.conflicts.contains(path) {
                lookups
                    .head_entry(path)?
                    .and_then(|(mode, id)| Side::object(mode, id))
            } else {
                match self.in_head.get(path) {
                    Some(side) => side.clone(),
                    // An intent-to-add entry is a promise of a new file, not what HEAD has.
                    None => tracked
                        .as_ref()
                        .filter(|entry| !entry.intent_to_add)
                        .and_then(index_side),
                }
            };
            let new = if tracked.is_some() || self.untracked.contains(path) {
                let index_mode = tracked.as_ref().and_then(index_side).map(|side| side.mode);
                lookups
                    .on_disk(path)?
                    .map(|disk| disk_side(disk, file_mode, index_mode))
            } else {
                None
            };
            changes.insert(path.clone(), Change::new(path.clone(), old, new));
        }
        pair_rewrites(&mut changes, self.rewrites);
        Ok(changes.into_values().collect())
    }
}

/// A file on disk as git would see it.
fn disk_side<Id>(disk: OnDisk, file_mode: bool, index_mode: Option<u32>) -> Side<Id> {
    let (mode, bytes) = match disk {
        OnDisk::Symlink { target } => (LINK, target),
        OnDisk::File { executable, bytes } => {
            let mode = if !file_mode {
                index_mode.filter(|&mode| mode != LINK).unwrap_or(FILE)
            } else if executable {
                EXECUTABLE
            } else {
                FILE
            };
            (mode, bytes)
        }
    };
    Side {
        mode,
        content: Content::Bytes(bytes),
    }
}

/// Turns a staged rename (or copy) whose destination is still an addition on disk into one
/// change, as `git diff HEAD` pairs it; one undone on disk stays what it became. One lookup
/// per rewrite, so pairing costs no more than the changes it pairs.
fn pair_rewrites<Id: Clone>(
    changes: &mut BTreeMap<Vec<u8>, Change<Id>>,
    rewrites: Vec<(Vec<u8>, Vec<u8>, bool)>,
) {
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
            change.source = Some(Source { path: source, copy });
        }
    }
}

#[cfg(test)]
mod tests;
