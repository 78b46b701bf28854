//! Spawn → a program's first screen, → that screen stable, a key → what it shows, and the
//! memory at the first screen: the same measure for luxe, the harness's floor and each peer.

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use luxe_tests::bench::{median_of, memory_kib, ms, processes_with_home};
use luxe_tests::pty::{Terminal, screen_rows};
use portable_pty::CommandBuilder;
use vt100::Screen;

use crate::settings::{COLS, ROWS, Settings};

/// Keys measured in each run.
const KEYS_PER_RUN: usize = 10;

/// Letters typed into an input box: each prefix of them ends no row of any first screen here,
/// so a row that ends with one is its echo.
const TYPED: &str = "qzjxqzjxqz";

/// A program's command for one run, given its home directory and working directory.
pub type MakeCommand = Box<dyn Fn(&Path, &Path) -> CommandBuilder>;

/// A program measured from its spawn to its first screen.
pub struct Program {
    /// Its name in the report, with its version.
    pub name: String,
    /// Its command for one run, in a fresh home directory and working directory.
    pub command: MakeCommand,
    /// Whether a screen is its first screen.
    pub first_screen: fn(&Screen) -> bool,
    /// How a key shows on that screen.
    pub keys: Keys,
}

/// How a key shows on a program's first screen.
pub enum Keys {
    /// Letters typed into an input box: each is shown once a row ends with what was typed.
    Echo,
    /// No input box: Down and Up move a selection, shown once a row starts with `down` (after
    /// Down) or `up` (after Up).
    Selection {
        /// The start of the selected row before Down.
        up: &'static str,
        /// The start of the selected row after Down.
        down: &'static str,
    },
    /// No key is measured, for this reason.
    None(&'static str),
}

/// A command for `program` with `home` as its `HOME`, run in `cwd`, without the provider keys
/// and settings of this machine (so every program starts as a new user's, with no key), and
/// outside any tmux this runs in.
pub fn fresh_command(program: impl AsRef<OsStr>, home: &Path, cwd: &Path) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(program);
    cmd.cwd(cwd);
    cmd.env("HOME", home);
    for var in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CODEX_API_KEY",
        "LUXE_HOME",
        "LUXE_LOG",
        "NO_COLOR",
        "TMUX",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// `/bin/echo`: the floor of what this harness can measure (a pty, a spawn, one read).
pub fn floor() -> Program {
    Program {
        name: "/bin/echo (the harness's floor)".into(),
        command: Box::new(|home, cwd| {
            let mut cmd = fresh_command("/bin/echo", home, cwd);
            cmd.arg("ready");
            cmd
        }),
        first_screen: |screen| screen.contents().contains("ready"),
        keys: Keys::None("it exits at once"),
    }
}

/// What one run saw.
struct Sample {
    shown: Duration,
    stable: Option<Duration>,
    /// Whether the stable screen is still the first one (a program may go on to another).
    still_first: bool,
    keys: Result<Vec<Duration>, String>,
    memory: (u64, u64),
    /// The screen when it settled, for a program that left its first screen.
    screen: Vec<String>,
}

/// A fresh home directory and working directory, removed when dropped.
pub struct Dirs {
    dir: tempfile::TempDir,
}

impl Dirs {
    /// `home/` and `work/` in a new temporary directory.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        for sub in ["home", "work"] {
            std::fs::create_dir(dir.path().join(sub)).expect("a directory");
        }
        Self { dir }
    }

    /// The home directory.
    pub fn home(&self) -> std::path::PathBuf {
        self.dir.path().join("home")
    }

    /// The working directory.
    pub fn work(&self) -> std::path::PathBuf {
        self.dir.path().join("work")
    }
}

fn sample(program: &Program, settings: &Settings, dirs: &Dirs) -> Result<Sample, String> {
    let cmd = (program.command)(&dirs.home(), &dirs.work());
    let term = Terminal::spawn(cmd, COLS, ROWS).map_err(|e| format!("cannot start: {e}"))?;
    let first = program.first_screen;
    let shown_at = term.wait_for(settings.wait, first)?;
    let memory = memory_kib(&processes_with_home(&dirs.home()));
    let stable_at = term.settle(settings.settle, settings.wait);
    let (still_first, screen) = term.with_screen(|s| (first(s), screen_rows(s)));
    let keys = press_keys(&term, &program.keys, settings);
    Ok(Sample {
        shown: shown_at - term.started(),
        stable: stable_at.map(|at| at - term.started()),
        still_first,
        keys,
        memory,
        screen,
    })
}

fn press_keys(term: &Terminal, keys: &Keys, settings: &Settings) -> Result<Vec<Duration>, String> {
    let mut times = Vec::new();
    for k in 0..KEYS_PER_RUN {
        std::thread::sleep(settings.key_gap);
        let took = match keys {
            Keys::Echo => {
                let typed = TYPED[..=k].to_owned();
                term.press(&TYPED.as_bytes()[k..=k], settings.wait, move |s| {
                    screen_rows(s).iter().any(|row| row.ends_with(&typed))
                })
            }
            Keys::Selection { up, down } => {
                let (key, row) = if k % 2 == 0 {
                    (b'B', *down)
                } else {
                    (b'A', *up)
                };
                // An arrow key as the program asked for it: application mode or not.
                let arrow = if term.with_screen(Screen::application_cursor) {
                    [0x1b, b'O', key]
                } else {
                    [0x1b, b'[', key]
                };
                term.press(&arrow, settings.wait, move |s| {
                    screen_rows(s)
                        .iter()
                        .any(|r| r.trim_start().starts_with(row))
                })
            }
            Keys::None(_) => return Ok(times),
        };
        times.push(took.map_err(|why| format!("key {}: {why}", k + 1))?);
    }
    Ok(times)
}

/// A median time for the report, `-` when there was no sample.
pub fn time(d: Option<Duration>) -> String {
    d.map_or("-".to_owned(), |d| format!("{:.1} ms", ms(d)))
}

/// A median memory figure (KiB) for the report, in MiB, `-` when there was no sample.
pub fn mib(kib: Option<u64>) -> String {
    kib.map_or("-".to_owned(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

/// The report's column heads.
pub fn report_header() {
    println!(
        "\n{:<38} {:>13} {:>13} {:>13}   memory at the first screen: RSS (peak)",
        "spawn → (120x40)", "first screen", "stable", "key → shown",
    );
}

/// Ends every process still running with `home` as its `HOME` (what a program left running).
fn end_everything_of(home: &Path) {
    for pid in processes_with_home(home) {
        if let Ok(pid) = i32::try_from(pid) {
            let pid = nix::unistd::Pid::from_raw(pid);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// Measures `program` and prints its line, and what went wrong in any run. Every run has the
/// same `HOME`, as a person's starts do: the first, not counted, is the program's first start
/// ever (its one-time set-up, printed apart), and what a run leaves running (Codex's app
/// server) is there for the next, as it would be; all of it is ended after the last run.
pub fn report(program: &Program, settings: &Settings) {
    let dirs = Dirs::new();
    let first_start = sample(program, settings, &dirs);
    if let Err(why) = &first_start {
        println!("{:<38} not measured: {why}", program.name);
        end_everything_of(&dirs.home());
        return;
    }
    let mut samples = Vec::new();
    let mut failures = Vec::new();
    for _ in 0..settings.runs {
        match sample(program, settings, &dirs) {
            Ok(sample) => samples.push(sample),
            Err(why) => failures.push(why),
        }
    }
    end_everything_of(&dirs.home());
    let shown = median_of(samples.iter().map(|s| s.shown).collect());
    let stable = median_of(samples.iter().filter_map(|s| s.stable).collect());
    let keys: Vec<Duration> = samples
        .iter()
        .filter_map(|s| s.keys.as_ref().ok())
        .flatten()
        .copied()
        .collect();
    let key_count = keys.len();
    let key = median_of(keys);
    let rss = median_of(samples.iter().map(|s| s.memory.0).collect());
    let peak = median_of(samples.iter().map(|s| s.memory.1).collect());
    let key_shown = match &program.keys {
        Keys::None(_) => "-".to_owned(),
        _ => time(key),
    };
    println!(
        "{:<38} {:>13} {:>13} {:>13}   {} ({})",
        program.name,
        time(shown),
        time(stable),
        key_shown,
        mib(rss),
        mib(peak)
    );
    match &program.keys {
        Keys::None(why) => println!("{:<38} no key measured: {why}", ""),
        Keys::Selection { .. } => println!(
            "{:<38} no input box: a key is Down or Up moving the selection ({key_count} keys)",
            ""
        ),
        Keys::Echo => println!("{:<38} {key_count} keys typed into its input box", ""),
    }
    if let Ok(first) = first_start {
        println!(
            "{:<38} its first start in a new HOME (not counted): first screen {}",
            "",
            time(Some(first.shown))
        );
    }
    if let Some(left) = samples.iter().find(|s| !s.still_first) {
        let shown: Vec<&str> = left
            .screen
            .iter()
            .map(String::as_str)
            .filter(|r| !r.is_empty())
            .collect();
        println!(
            "{:<38} left its first screen in {} of {} runs; it settled on: {}",
            "",
            samples.iter().filter(|s| !s.still_first).count(),
            samples.len(),
            shown.join(" / ")
        );
    }
    if let Some(why) = samples.iter().find_map(|s| s.keys.as_ref().err()) {
        println!("{:<38} keys failed: {why}", "");
    }
    if let Some(why) = failures.first() {
        println!(
            "{:<38} {} of {} runs failed: {why}",
            "",
            failures.len(),
            settings.runs
        );
    }
}
