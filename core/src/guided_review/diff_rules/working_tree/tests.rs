use std::collections::BTreeMap;

use super::*;
use crate::guided_review::diff_rules::change::tests::{disk as bytes, object};

/// A repository as maps: blob ids are numbers.
#[derive(Default)]
struct World {
    index: BTreeMap<&'static str, IndexEntry<u8>>,
    head: BTreeMap<&'static str, (u32, u8)>,
    disk: BTreeMap<&'static str, OnDisk>,
    asked_head: Vec<String>,
    asked_disk: Vec<String>,
}

impl Lookups<u8> for World {
    fn index_entry(&self, path: &[u8]) -> Option<IndexEntry<u8>> {
        self.index.get(std::str::from_utf8(path).ok()?).cloned()
    }

    fn head_entry(&mut self, path: &[u8]) -> Result<Option<(u32, u8)>, String> {
        let path = String::from_utf8_lossy(path).into_owned();
        let found = self.head.get(path.as_str()).copied();
        self.asked_head.push(path);
        Ok(found)
    }

    fn on_disk(&mut self, path: &[u8]) -> Result<Option<OnDisk>, String> {
        let path = String::from_utf8_lossy(path).into_owned();
        if path == "unreadable" {
            return Err("unreadable: permission denied".into());
        }
        let found = self.disk.get(path.as_str()).cloned();
        self.asked_disk.push(path);
        Ok(found)
    }
}

fn entry(mode: u32, id: u8) -> IndexEntry<u8> {
    IndexEntry {
        tree_mode: Some(mode),
        id,
        intent_to_add: false,
    }
}

fn file(bytes: &[u8]) -> OnDisk {
    OnDisk::File {
        executable: false,
        bytes: bytes.to_vec(),
    }
}

fn tracked(path: &str, status: Tracked) -> StatusItem<u8> {
    StatusItem::Tracked {
        path: path.as_bytes().to_vec(),
        status,
    }
}

fn changes(items: Vec<StatusItem<u8>>, world: &mut World) -> Vec<(String, Change<u8>)> {
    let mut status = Status::default();
    for item in items {
        status.add(item);
    }
    status
        .changes(None, world)
        .unwrap()
        .into_iter()
        .map(|change| (String::from_utf8_lossy(&change.path).into_owned(), change))
        .collect()
}

/// Each change's path and sides.
type Sides = (String, Option<Side<u8>>, Option<Side<u8>>);

fn sides(items: Vec<StatusItem<u8>>, world: &mut World) -> Vec<Sides> {
    changes(items, world)
        .into_iter()
        .map(|(path, change)| (path, change.old, change.new))
        .collect()
}

#[test]
fn stale_stat_data_and_submodules_are_no_change() {
    let mut world = World::default();
    world.index.insert("stat", entry(FILE, 1));
    let items = vec![
        tracked("stat", Tracked::NeedsUpdate),
        tracked("sub", Tracked::SubmoduleModified),
    ];
    assert!(changes(items, &mut world).is_empty());
    assert!(world.asked_disk.is_empty(), "nothing is read");
}

#[test]
fn only_untracked_files_and_symlinks_are_additions() {
    let mut world = World::default();
    world.disk.insert("new", file(b"n"));
    world.disk.insert(
        "link",
        OnDisk::Symlink {
            target: b"new".to_vec(),
        },
    );
    let walked = |path: &str, untracked: bool, kind: PathKind| StatusItem::Walked {
        path: path.as_bytes().to_vec(),
        untracked,
        kind: Some(kind),
    };
    let items = vec![
        walked("new", true, PathKind::File),
        walked("link", true, PathKind::Symlink),
        walked("nested", true, PathKind::Repository),
        walked("fifo", true, PathKind::Untrackable),
        walked("ignored", false, PathKind::File),
    ];
    assert_eq!(
        sides(items, &mut world),
        [
            ("link".into(), None, bytes(LINK, b"new")),
            ("new".into(), None, bytes(FILE, b"n"))
        ]
    );
}

#[test]
fn a_conflicted_path_is_compared_with_heads_own_entry() {
    let mut world = World::default();
    // The index holds "ours" (blob 7) at the conflicted path; HEAD has blob 1.
    world.index.insert("both", entry(FILE, 7));
    world.index.insert("plain", entry(FILE, 2));
    world.head.insert("both", (FILE, 1));
    world.disk.insert("both", file(b"<<<<<<<"));
    world.disk.insert("plain", file(b"p"));
    let items = vec![
        tracked("both", Tracked::Conflict),
        tracked("plain", Tracked::Changed),
    ];
    let mut status = Status::default();
    for item in items {
        status.add(item);
    }
    assert!(status.has_conflicts());
    let found = status.changes(None, &mut world).unwrap();
    assert_eq!(found[0].old, object(FILE, 1));
    assert_eq!(found[0].new, bytes(FILE, b"<<<<<<<"));
    assert_eq!(found[1].old, object(FILE, 2), "the index is HEAD elsewhere");
    assert_eq!(
        world.asked_head,
        ["both"],
        "HEAD is asked only for conflicts"
    );
}

#[test]
fn an_intent_to_add_entry_is_a_new_file() {
    let mut world = World::default();
    world.index.insert(
        "planned",
        IndexEntry {
            intent_to_add: true,
            ..entry(FILE, 0)
        },
    );
    world.disk.insert("planned", file(b"soon"));
    let found = changes(vec![tracked("planned", Tracked::IntentToAdd)], &mut world);
    assert_eq!(found[0].1.old, None);
    assert_eq!(found[0].1.new, bytes(FILE, b"soon"));
}

#[test]
fn the_executable_bit_counts_unless_core_file_mode_is_off() {
    let mut world = World::default();
    world.index.insert("run", entry(EXECUTABLE, 1));
    world.index.insert("plain", entry(FILE, 2));
    world.index.insert("was_link", entry(LINK, 3));
    for path in ["run", "plain", "was_link"] {
        world.disk.insert(
            path,
            OnDisk::File {
                executable: path == "plain",
                bytes: b"x".to_vec(),
            },
        );
    }
    let modes = |file_mode: Option<bool>, world: &mut World| {
        let mut status = Status::default();
        for path in ["run", "plain", "was_link"] {
            status.add(tracked(path, Tracked::Changed));
        }
        let found = status.changes(file_mode, world).unwrap();
        found
            .into_iter()
            .map(|change| change.new.map(|side| side.mode))
            .collect::<Vec<_>>()
    };
    // In path order: plain, run, was_link.
    let on = [Some(EXECUTABLE), Some(FILE), Some(FILE)];
    assert_eq!(modes(None, &mut world), on);
    assert_eq!(modes(Some(true), &mut world), on);
    assert_eq!(
        modes(Some(false), &mut world),
        [Some(FILE), Some(EXECUTABLE), Some(FILE)],
        "the index's mode stands, a symlink's as a plain file"
    );
}

#[test]
fn a_staged_rename_is_one_change_unless_undone_on_disk() {
    let rename = |copy: bool| {
        StatusItem::Staged(Change {
            path: b"to".to_vec(),
            source: Some(Source {
                path: b"from".to_vec(),
                copy,
            }),
            old: object(FILE, 1),
            new: object(FILE, 1),
        })
    };
    let mut world = World::default();
    world.index.insert("to", entry(FILE, 1));
    world.disk.insert("to", file(b"1"));
    let found = changes(vec![rename(false)], &mut world);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].1.source,
        Some(Source {
            path: b"from".to_vec(),
            copy: false
        })
    );
    assert_eq!(found[0].1.old, object(FILE, 1));

    // Put back on disk: the source is a file again, so the two stay apart.
    world.disk.insert("from", file(b"1"));
    let untracked = StatusItem::Walked {
        path: b"from".to_vec(),
        untracked: true,
        kind: Some(PathKind::File),
    };
    let found = changes(vec![rename(false), untracked], &mut world);
    let paths: Vec<_> = found.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["from", "to"]);
    assert!(found.iter().all(|(_, change)| change.source.is_none()));

    // A copy pairs while its source stays.
    let found = changes(vec![rename(true)], &mut world);
    assert_eq!(found.len(), 2);
    assert_eq!(found[1].1.source.as_ref().map(|s| s.copy), Some(true));
    assert_eq!(found[1].1.old, object(FILE, 1));
}

#[test]
fn a_move_on_disk_is_a_deletion_and_an_addition() {
    let mut world = World::default();
    world.index.insert("old", entry(FILE, 1));
    world.disk.insert("new", file(b"1"));
    let items = vec![StatusItem::Moved {
        source: b"old".to_vec(),
        destination: b"new".to_vec(),
    }];
    assert_eq!(
        sides(items, &mut world),
        [
            ("new".into(), None, bytes(FILE, b"1")),
            ("old".into(), object(FILE, 1), None)
        ]
    );
}

#[test]
fn a_read_failure_is_the_answer() {
    let mut world = World::default();
    world.index.insert("unreadable", entry(FILE, 1));
    let mut status = Status::default();
    status.add(tracked("unreadable", Tracked::Changed));
    assert_eq!(
        status.changes(None, &mut world).unwrap_err(),
        "unreadable: permission denied"
    );
}
