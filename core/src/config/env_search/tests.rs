use quickcheck::{Arbitrary, Gen, quickcheck};

use super::*;

/// One entry of a made-up walk: its name, whether it is a directory, and whether reading it
/// fails (`None`: the walk itself could not read it).
#[derive(Debug, Clone)]
struct Entry {
    name: &'static str,
    is_dir: bool,
    unreadable: bool,
    walk_failed: bool,
}

const NAMES: [&str; 8] = [
    ".env",
    ".env.local",
    ".ENV.test",
    ".env.example",
    ".envrc",
    "main.rs",
    ".git",
    "env",
];

impl Arbitrary for Entry {
    fn arbitrary(g: &mut Gen) -> Self {
        Self {
            name: g.choose(&NAMES).copied().unwrap_or(".env"),
            is_dir: bool::arbitrary(g),
            unreadable: u8::arbitrary(g) % 5 == 0,
            walk_failed: u8::arbitrary(g) % 7 == 0,
        }
    }
}

/// Runs `search` over `entries` as io does; the files kept and the lines logged.
fn walk(mut search: EnvSearch, entries: &[Entry]) -> (Vec<String>, Vec<String>) {
    let mut logged = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let walked = (!entry.walk_failed).then_some(WalkedEntry {
            name: entry.name,
            is_dir: entry.is_dir,
        });
        match search.next(walked) {
            EnvEntry::Skip => {}
            EnvEntry::Stop(line) => {
                logged.push(line);
                break;
            }
            EnvEntry::Read => {
                let path = format!("/w/{i}/{}", entry.name);
                let read = if entry.unreadable {
                    Err("Permission denied (os error 13)".to_owned())
                } else {
                    Ok(b"A=1".to_vec())
                };
                logged.extend(search.read(path, None, read));
            }
        }
    }
    let found = search.found().into_iter().map(|f| f.path).collect();
    (found, logged)
}

fn entry(name: &'static str, is_dir: bool, unreadable: bool) -> Entry {
    Entry {
        name,
        is_dir,
        unreadable,
        walk_failed: false,
    }
}

#[test]
fn env_files_are_read_and_kept_and_anything_else_is_passed_by() {
    let entries = [
        entry(".env", false, false),
        entry(".env.local", true, false),
        entry("main.rs", false, false),
        entry(".ENV.test", false, false),
        entry(".env.example", false, false),
        entry(".env.prod", false, true),
    ];
    let (found, logged) = walk(EnvSearch::new("/w"), &entries);
    assert_eq!(found, ["/w/0/.env", "/w/3/.ENV.test"]);
    assert_eq!(
        logged,
        ["cannot read /w/5/.env.prod: Permission denied (os error 13)"]
    );
}

#[test]
fn the_walk_stays_out_of_git_directories() {
    assert!(!EnvSearch::enters(".git"));
    assert!(EnvSearch::enters("node_modules"));
    assert!(EnvSearch::enters(".github"));
}

#[test]
fn the_search_stops_after_its_cap_and_says_so() {
    let entries = vec![entry(".env", false, false); 4];
    let (found, logged) = walk(EnvSearch::capped("/w", 3), &entries);
    assert_eq!(found.len(), 3);
    assert_eq!(
        logged,
        ["stopped looking for .env files after 3 entries under /w"]
    );
    // Exactly the cap: every entry was looked at, nothing to say.
    let (found, logged) = walk(EnvSearch::capped("/w", 4), &entries);
    assert_eq!((found.len(), logged.len()), (4, 0));
}

quickcheck! {
    fn what_is_kept_is_every_readable_env_file_within_the_cap(
        entries: Vec<Entry>,
        cap: u8
    ) -> bool {
        let cap = usize::from(cap % 16);
        let (found, logged) = walk(EnvSearch::capped("/w", cap), &entries);
        let looked_at = &entries[..entries.len().min(cap)];
        let expected: Vec<String> = looked_at
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.walk_failed && !e.is_dir && !e.unreadable && is_env_file(e.name))
            .map(|(i, e)| format!("/w/{i}/{}", e.name))
            .collect();
        let stopped = logged.iter().any(|line| line.starts_with("stopped"));
        found == expected && stopped == (entries.len() > cap)
    }
}
