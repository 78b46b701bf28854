//! The review view at scale: `/review` of a working tree that changes 2,000 files (100,000
//! lines; `luxe_tests::large_review`), from the Enter that sends it to the first chapter on
//! screen, beside `git diff HEAD` (with the untracked files' listing) timed in the same run;
//! the memory with that review open; and moving in it, each key to its screen: `}` to the next
//! chapter, `j` a line, `n` a hunk.

use std::path::Path;
use std::time::Duration;

use luxe_tests::bench::{median_of, memory_kib, processes_with_home};
use luxe_tests::large_review::{CHANGED_FILES, CHANGED_LINES, generate, time_git};
use luxe_tests::pty::{Terminal, screen_rows};

use crate::first_screen::{Dirs, mib, time};
use crate::luxe::{command, composer_shown};
use crate::settings::{COLS, ROWS, Settings};

/// What one run saw.
struct Run {
    /// Enter of `/review` → "Chapter 1 of" on screen.
    first_chapter: Duration,
    /// `git diff HEAD` and the untracked files, timed just after.
    git: Duration,
    /// RSS and peak of luxe with the review open.
    memory: (u64, u64),
    /// Each key → its screen, for `}`, `j` and `n`.
    moves: Vec<(&'static str, Duration)>,
}

/// The row the review's cursor (`›` right of the panes' separator) is on.
fn cursor_row(rows: &[String]) -> Option<String> {
    rows.iter()
        .find_map(|row| row.split_once("│›").map(|(_, rest)| rest.to_owned()))
}

fn run(settings: &Settings, repo: &Path) -> Result<Run, String> {
    let dirs = Dirs::new();
    let term =
        Terminal::spawn(command(&dirs.home(), repo, &[]), COLS, ROWS).map_err(|e| e.to_string())?;
    term.wait_for(settings.wait, composer_shown)?;
    term.type_bytes(b"/review");
    term.wait_for(settings.wait, |s| s.contents().contains("› /review"))?;
    std::thread::sleep(settings.key_gap);
    let first_chapter = term.press(b"\r", settings.wait, |s| {
        s.contents().contains("Chapter 1 of")
    })?;
    let git = time_git(repo);
    let memory = memory_kib(&processes_with_home(&dirs.home()));
    let mut moves = Vec::new();
    std::thread::sleep(settings.key_gap);
    let next = term.press(b"}", settings.wait, |s| {
        s.contents().contains("Chapter 2 of")
    })?;
    moves.push(("} (next chapter)", next));
    for (key, name) in [(b"j", "j (a line)"), (b"n", "n (a hunk)")] {
        std::thread::sleep(settings.key_gap);
        let before = cursor_row(&term.rows());
        let moved = term.press(key, settings.wait, move |s| {
            cursor_row(&screen_rows(s)) != before
        })?;
        moves.push((name, moved));
    }
    Ok(Run {
        first_chapter,
        git,
        memory,
        moves,
    })
}

/// Measures and prints the section.
pub fn report(settings: &Settings) {
    let repo = generate();
    let (mut runs, mut failures) = (Vec::new(), Vec::new());
    for n in 0..=settings.runs {
        match run(settings, repo.path()) {
            Ok(r) if n > 0 => runs.push(r),
            Ok(_) => {}
            Err(why) => failures.push(why),
        }
    }
    println!(
        "\n/review of a working tree changing {CHANGED_FILES} files ({CHANGED_LINES} lines), \
         medians of {}:",
        runs.len()
    );
    let first = median_of(runs.iter().map(|r| r.first_chapter).collect());
    let git = median_of(runs.iter().map(|r| r.git).collect());
    println!(
        "  Enter → the first chapter on screen {:>10}   (git diff HEAD + untracked files {})",
        time(first),
        time(git)
    );
    let rss = median_of(runs.iter().map(|r| r.memory.0).collect());
    let peak = median_of(runs.iter().map(|r| r.memory.1).collect());
    println!(
        "  memory with the review open: RSS {} (peak {})",
        mib(rss),
        mib(peak)
    );
    if let Some(first) = runs.first() {
        for (i, (name, _)) in first.moves.iter().enumerate() {
            let key = median_of(
                runs.iter()
                    .filter_map(|r| r.moves.get(i))
                    .map(|m| m.1)
                    .collect(),
            );
            println!("  {name:<18} → its screen {:>10}", time(key));
        }
    }
    if let Some(why) = failures.first() {
        println!("  {} runs failed: {why}", failures.len());
    }
}
