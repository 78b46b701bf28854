//! `luxe --resume` of a 1,000-turn session: spawn → the first frame that shows it (the
//! composer, and the note `resumed: 1000 turns` under the conversation), and the memory then,
//! beside a fresh start measured in turn. The session file is written as luxe writes one: its
//! own records (`luxe_core::store`), a question, an answer and a turn's end per turn.

use std::path::Path;
use std::time::Duration;

use luxe_core::model::conversation::{Block, Message, Role};
use luxe_core::store::{FORMAT_VERSION, Record, Writer, encode};
use luxe_tests::bench::{median_of, memory_kib, processes_with_home};
use luxe_tests::pty::Terminal;

use crate::first_screen::{Dirs, mib, time};
use crate::luxe::{command, composer_shown};
use crate::settings::{COLS, ROWS, Settings};

/// Turns in the resumed session.
const TURNS: usize = 1_000;

/// The session's id.
const ID: &str = "long";

/// Writes the session file under `home` (as `HOME`) for a session that ran in `cwd`; its size.
fn write_session(home: &Path, cwd: &Path) -> usize {
    let dir = home.join(".luxe/sessions");
    std::fs::create_dir_all(&dir).expect("the sessions directory");
    let cwd = std::fs::canonicalize(cwd).expect("the working directory");
    let message = |role, text: String| Message {
        role,
        content: vec![Block::Text { text }],
    };
    let mut file = encode(&Record::Session {
        version: FORMAT_VERSION,
        id: ID.into(),
        cwd: cwd.to_string_lossy().into_owned(),
        created: "2026-12-01".into(),
    });
    for turn in 0..TURNS {
        let question = format!("question {turn}: some words that a real question would have in it");
        let answer = format!(
            "answer {turn}: a few sentences of an answer, about as long as a short one is, \
             with a word or two of code in it such as `cargo test` and a path like src/main.rs"
        );
        for record in [
            Record::Message {
                message: message(Role::User, question),
                by: Some(Writer::Person),
            },
            Record::Message {
                message: message(Role::Assistant, answer),
                by: None,
            },
            Record::TurnEnded {
                turn_id: format!("t{turn}"),
                cost_usd: Some(0.001),
            },
        ] {
            file.extend(encode(&record));
        }
    }
    std::fs::write(dir.join(format!("{ID}.jsonl")), &file).expect("the session file");
    file.len()
}

/// What one start saw: the first frame, the screen stable, memory then (RSS, peak).
struct Start {
    shown: Duration,
    stable: Option<Duration>,
    memory: (u64, u64),
}

fn start(settings: &Settings, resume: bool) -> Result<Start, String> {
    let dirs = Dirs::new();
    let args: &[&str] = if resume { &["--resume", ID] } else { &[] };
    if resume {
        write_session(&dirs.home(), &dirs.work());
    }
    let term = Terminal::spawn(command(&dirs.home(), &dirs.work(), args), COLS, ROWS)
        .map_err(|e| e.to_string())?;
    let note = format!("resumed: {TURNS} turns");
    let shown = term.wait_for(settings.wait, move |s| {
        composer_shown(s) && (!resume || s.contents().contains(&note))
    })?;
    let memory = memory_kib(&processes_with_home(&dirs.home()));
    let stable = term.settle(settings.settle, settings.wait);
    Ok(Start {
        shown: shown - term.started(),
        stable: stable.map(|at| at - term.started()),
        memory,
    })
}

/// Measures and prints the section.
pub fn report(settings: &Settings) {
    let size = {
        let dirs = Dirs::new();
        write_session(&dirs.home(), &dirs.work())
    };
    let (mut resumed, mut fresh, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..=settings.runs {
        for (resume, into) in [(true, &mut resumed), (false, &mut fresh)] {
            match start(settings, resume) {
                Ok(s) if run > 0 => into.push(s),
                Ok(_) => {}
                Err(why) => failures.push(why),
            }
        }
    }
    println!(
        "\n--resume of a {TURNS}-turn session ({} KiB), medians of {} in turn with a fresh start:",
        size / 1024,
        settings.runs
    );
    for (name, starts) in [("resumed", resumed), ("fresh", fresh)] {
        let shown = median_of(starts.iter().map(|s| s.shown).collect());
        let stable = median_of(starts.iter().filter_map(|s| s.stable).collect());
        let rss = median_of(starts.iter().map(|s| s.memory.0).collect());
        let peak = median_of(starts.iter().map(|s| s.memory.1).collect());
        println!(
            "  {name:<8} first frame {:>10}   stable {:>10}   RSS then {} (peak {})",
            time(shown),
            time(stable),
            mib(rss),
            mib(peak)
        );
    }
    if let Some(why) = failures.first() {
        println!("  {} runs failed: {why}", failures.len());
    }
}
