//! The working tree's rules against a reference: over random repositories (HEAD, an index with
//! staged edits, renames, copies, intents to add and conflicts, and a disk edited after), the
//! changes settled from git's two status halves are exactly HEAD compared with the disk path by
//! path, with each staged rename or copy whose destination is still new paired as one.

use std::collections::{BTreeMap, BTreeSet};

use quickcheck::{Arbitrary, Gen, QuickCheck};

use super::change::{Change, Content, Side, Source};
use super::working_tree::{IndexEntry, Lookups, OnDisk, PathKind, Status, StatusItem, Tracked};
use super::{EXECUTABLE, FILE, LINK};
use crate::effects::ChangedFile;
use crate::protocol::guided_review::FileStatus;

const PATHS: &[&str] = &["a", "b", "c", "d/e", "d/f", "g"];
const MODES: &[u32] = &[FILE, FILE, EXECUTABLE, LINK];
/// Blob `n` holds the byte `b'0' + n`, so that disk bytes can equal a blob's.
const BLOBS: u8 = 3;

fn blob(id: u8) -> Vec<u8> {
    vec![b'0' + id]
}

/// A file as HEAD, the index or the disk has it: its mode and its blob's number.
type Entry = (u32, u8);

#[derive(Debug, Clone)]
struct Repo {
    head: BTreeMap<String, Entry>,
    index: BTreeMap<String, Entry>,
    intent_to_add: BTreeSet<String>,
    conflicts: BTreeSet<String>,
    /// Staged renames and copies: (source, destination, copy).
    rewrites: Vec<(String, String, bool)>,
    disk: BTreeMap<String, Entry>,
}

fn entry(g: &mut Gen) -> Entry {
    (*g.choose(MODES).unwrap(), u8::arbitrary(g) % BLOBS)
}

fn path(g: &mut Gen) -> String {
    (*g.choose(PATHS).unwrap()).to_owned()
}

impl Arbitrary for Repo {
    fn arbitrary(g: &mut Gen) -> Self {
        let mut head = BTreeMap::new();
        for _ in 0..usize::arbitrary(g) % 5 {
            head.insert(path(g), entry(g));
        }
        let mut repo = Repo {
            index: head.clone(),
            head,
            intent_to_add: BTreeSet::new(),
            conflicts: BTreeSet::new(),
            rewrites: Vec::new(),
            disk: BTreeMap::new(),
        };
        // Each path takes part in at most one staged edit, as one `git add` would leave it.
        let mut touched = BTreeSet::new();
        for _ in 0..usize::arbitrary(g) % 5 {
            let (one, other) = (path(g), path(g));
            if touched.contains(&one) || touched.contains(&other) {
                continue;
            }
            let in_head = repo.head.contains_key(&one);
            match u8::arbitrary(g) % 6 {
                0 => {
                    repo.index.insert(one.clone(), entry(g));
                }
                1 => {
                    repo.index.remove(&one);
                }
                2 if !in_head => {
                    repo.index.insert(one.clone(), (FILE, 0));
                    repo.intent_to_add.insert(one.clone());
                }
                3 if in_head => {
                    repo.index.insert(one.clone(), entry(g));
                    repo.conflicts.insert(one.clone());
                }
                4 | 5 if in_head && one != other && !repo.head.contains_key(&other) => {
                    let copy = u8::arbitrary(g) % 5 == 4;
                    let moved = repo.head[&one];
                    if !copy {
                        repo.index.remove(&one);
                    }
                    repo.index.insert(other.clone(), moved);
                    repo.rewrites.push((one.clone(), other.clone(), copy));
                    touched.insert(other);
                }
                _ => continue,
            }
            touched.insert(one);
        }
        repo.disk = repo.index.clone();
        for _ in 0..usize::arbitrary(g) % 5 {
            let at = path(g);
            match u8::arbitrary(g) % 3 {
                0 => {
                    repo.disk.remove(&at);
                }
                _ => {
                    repo.disk.insert(at, entry(g));
                }
            }
        }
        repo
    }
}

impl Repo {
    fn side(entry: Option<&Entry>) -> Option<Side<u8>> {
        entry.map(|&(mode, id)| Side {
            mode,
            content: Content::Object(id),
        })
    }

    /// git's status of the two halves, as io reads it.
    fn status_items(&self) -> Vec<StatusItem<u8>> {
        let mut items = Vec::new();
        let renamed: BTreeSet<&String> = self
            .rewrites
            .iter()
            .flat_map(|(from, to, copy)| [Some(to), (!copy).then_some(from)])
            .flatten()
            .collect();
        for (from, to, copy) in &self.rewrites {
            items.push(StatusItem::Staged(Change {
                path: to.as_bytes().to_vec(),
                source: Some(Source {
                    path: from.as_bytes().to_vec(),
                    copy: *copy,
                }),
                old: Self::side(self.head.get(from)),
                new: Self::side(self.index.get(to)),
            }));
        }
        let staged: BTreeSet<&String> = self.head.keys().chain(self.index.keys()).collect();
        for path in staged {
            let skip = renamed.contains(path)
                || self.intent_to_add.contains(path)
                || self.conflicts.contains(path);
            if !skip && self.head.get(path) != self.index.get(path) {
                items.push(StatusItem::Staged(Change::new(
                    path.as_bytes().to_vec(),
                    Self::side(self.head.get(path)),
                    Self::side(self.index.get(path)),
                )));
            }
        }
        for (path, entry) in &self.index {
            let status = if self.conflicts.contains(path) {
                Tracked::Conflict
            } else if self.intent_to_add.contains(path) {
                Tracked::IntentToAdd
            } else if self.disk.get(path) != Some(entry) {
                Tracked::Changed
            } else {
                continue;
            };
            items.push(StatusItem::Tracked {
                path: path.as_bytes().to_vec(),
                status,
            });
        }
        for (path, &(mode, _)) in &self.disk {
            if !self.index.contains_key(path) {
                items.push(StatusItem::Walked {
                    path: path.as_bytes().to_vec(),
                    untracked: true,
                    kind: Some(if mode == LINK {
                        PathKind::Symlink
                    } else {
                        PathKind::File
                    }),
                });
            }
        }
        items
    }

    /// HEAD against the disk, path by path, then the staged rewrites paired: the review a
    /// working tree should get, by a route that never looks at the index.
    fn reference(&self) -> BTreeMap<String, ChangedFile> {
        let paths: BTreeSet<&String> = self.head.keys().chain(self.disk.keys()).collect();
        let mut files = BTreeMap::new();
        for path in paths {
            let old = self.head.get(path).map(|&(mode, id)| (mode, blob(id)));
            let new = self.disk.get(path).map(|&(mode, id)| (mode, blob(id)));
            let status = match (&old, &new) {
                (None, None) => continue,
                (None, Some(_)) => FileStatus::Added,
                (Some(_), None) => FileStatus::Deleted,
                (Some(old), Some(new)) if old == new => continue,
                (Some((old, _)), Some((new, _))) if (*old == LINK) != (*new == LINK) => {
                    FileStatus::TypeChanged
                }
                _ => FileStatus::Modified,
            };
            files.insert(path.clone(), file(path, None, status, old, new));
        }
        for (from, to, copy) in &self.rewrites {
            let added = files.get(to).is_some_and(|f| f.status == FileStatus::Added);
            if !added || (!copy && self.disk.contains_key(from)) {
                continue;
            }
            if !copy {
                files.remove(from);
            }
            let old = self.head.get(from).map(|&(mode, id)| (mode, blob(id)));
            let new = self.disk.get(to).map(|&(mode, id)| (mode, blob(id)));
            let status = if *copy {
                FileStatus::Copied
            } else {
                FileStatus::Renamed
            };
            files.insert(to.clone(), file(to, Some(from), status, old, new));
        }
        files
    }
}

fn file(
    path: &str,
    old_path: Option<&String>,
    status: FileStatus,
    old: Option<(u32, Vec<u8>)>,
    new: Option<(u32, Vec<u8>)>,
) -> ChangedFile {
    let (old_mode, old) = old.unzip();
    let (new_mode, new) = new.unzip();
    ChangedFile {
        path: path.to_owned(),
        old_path: old_path.cloned(),
        status,
        old_mode,
        new_mode,
        old,
        new,
    }
}

impl Lookups<u8> for Repo {
    fn index_entry(&self, path: &[u8]) -> Option<IndexEntry<u8>> {
        let path = std::str::from_utf8(path).ok()?;
        let &(mode, id) = self.index.get(path)?;
        Some(IndexEntry {
            tree_mode: Some(mode),
            id,
            intent_to_add: self.intent_to_add.contains(path),
        })
    }

    fn head_entry(&mut self, path: &[u8]) -> Result<Option<(u32, u8)>, String> {
        Ok(std::str::from_utf8(path)
            .ok()
            .and_then(|path| self.head.get(path).copied()))
    }

    fn on_disk(&mut self, path: &[u8]) -> Result<Option<OnDisk>, String> {
        let Some(&(mode, id)) = std::str::from_utf8(path)
            .ok()
            .and_then(|path| self.disk.get(path))
        else {
            return Ok(None);
        };
        Ok(Some(if mode == LINK {
            OnDisk::Symlink { target: blob(id) }
        } else {
            OnDisk::File {
                executable: mode == EXECUTABLE,
                bytes: blob(id),
            }
        }))
    }
}

fn settled_from_status(mut repo: Repo) -> BTreeMap<String, ChangedFile> {
    let mut status = Status::default();
    for item in repo.status_items() {
        status.add(item);
    }
    let changes = status.changes(None, &mut repo).unwrap();
    changes
        .into_iter()
        .filter_map(Change::settle)
        .filter_map(|settled| settled.read(&mut |id| Ok::<_, String>(blob(id))).unwrap())
        .map(|file| (file.path.clone(), file))
        .collect()
}

#[test]
fn the_working_tree_is_head_against_the_disk_with_staged_rewrites_paired() {
    fn property(repo: Repo) -> bool {
        let reference = repo.reference();
        let settled = settled_from_status(repo.clone());
        // quickcheck shows the shrunk repository; the two results are in the assertion.
        assert_eq!(
            settled, reference,
            "settled from status against the reference"
        );
        true
    }
    QuickCheck::new()
        .tests(2_000)
        .quickcheck(property as fn(Repo) -> bool);
}
