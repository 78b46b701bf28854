//! A repository whose working tree is a large review: 2,000 changed files (100,000 lines
//! replaced, Rust, so every line is coloured) beside 2,000 untouched ones, over a packed base
//! commit as a real history would be; and the baseline any reader of it is measured beside,
//! `git diff HEAD` plus the untracked files' listing.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::git_repo::git_bytes as git;

/// The files the working tree changes.
pub const CHANGED_FILES: usize = 2_000;
/// The files it leaves alone.
pub const UNTOUCHED_FILES: usize = 2_000;
/// Lines in each file.
pub const LINES_PER_FILE: usize = 200;
/// Every fourth line changes: 50 per file.
pub const CHANGE_EVERY: usize = 4;
/// Lines changed in all (100,000).
pub const CHANGED_LINES: usize = CHANGED_FILES * LINES_PER_FILE / CHANGE_EVERY;
/// Files in each directory, so the tree has directories as real ones do.
const FILES_PER_DIR: usize = 50;

/// The repository: its base commit packed, then every fourth line of the first
/// [`CHANGED_FILES`] files changed in the working tree.
pub fn generate() -> TempDir {
    let repo = TempDir::new().expect("temp dir");
    git(
        repo.path(),
        &["-c", "init.defaultBranch=main", "init", "-q"],
    );
    let write_all = |changed: bool| {
        for n in 0..CHANGED_FILES + UNTOUCHED_FILES {
            if changed && n >= CHANGED_FILES {
                break;
            }
            let path = repo
                .path()
                .join(format!("src/module{}/file{n}.rs", n / FILES_PER_DIR));
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("dirs");
            std::fs::write(path, content(n, changed)).expect("written");
        }
    };
    write_all(false);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "base"]);
    git(repo.path(), &["gc", "-q"]);
    write_all(true);
    repo
}

/// File `file`'s text, before or after the change.
fn content(file: usize, changed: bool) -> String {
    let mut text = String::new();
    for line in 0..LINES_PER_FILE {
        if changed && line % CHANGE_EVERY == 0 {
            let _ = writeln!(
                text,
                "    let changed_{line} = file_{file}(\"a new line\");"
            );
        } else {
            let _ = writeln!(
                text,
                "    let value_{line} = compute_{file}(input, {line}); // ordinary code"
            );
        }
    }
    text
}

/// How long git takes to show the same change: `git diff HEAD` and the untracked files.
pub fn time_git(dir: &Path) -> Duration {
    let start = Instant::now();
    let diff = git(dir, &["diff", "--no-ext-diff", "HEAD"]);
    let others = git(dir, &["ls-files", "--others", "--exclude-standard"]);
    let elapsed = start.elapsed();
    assert!(!diff.is_empty() && others.is_empty());
    elapsed
}
