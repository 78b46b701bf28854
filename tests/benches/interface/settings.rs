//! How many samples and how long each wait: every one from the environment, with a default.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// The terminal every program runs in.
pub const COLS: u16 = 120;
/// The terminal every program runs in.
pub const ROWS: u16 = 40;

/// The settings of one run of the benchmark.
pub struct Settings {
    /// Samples of each figure, after one warm-up that is not counted.
    pub runs: usize,
    /// The longest wait for one screen (a program's first, an echo, an answer).
    pub wait: Duration,
    /// How long a screen must stay unchanged to count as drawn stably.
    pub settle: Duration,
    /// The pause before each key, so that each is read and drawn on its own.
    pub key_gap: Duration,
    /// Where the peers are installed from npm (outside the repository).
    pub npm_dir: PathBuf,
    /// The model server's pause before each event of a streamed answer (none: as fast as it
    /// writes, so a 20,000-token answer arrives in a few dozen frames; a model's pace brings
    /// one frame per few tokens).
    pub stream_pause: Duration,
}

impl Settings {
    /// The settings named by `LUXE_BENCH_*` variables, defaults for the rest.
    pub fn from_env() -> Self {
        let number = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        let millis = |name: &str, default: u64| Duration::from_millis(number(name, default));
        let npm_dir = std::env::var_os("LUXE_BENCH_NPM").map_or_else(
            || {
                let home = std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into());
                PathBuf::from(home).join(".cache/luxe-bench/npm")
            },
            PathBuf::from,
        );
        Self {
            runs: usize::try_from(number("LUXE_BENCH_RUNS", 10).max(1)).unwrap_or(10),
            wait: millis("LUXE_BENCH_WAIT_MS", 20_000),
            settle: millis("LUXE_BENCH_SETTLE_MS", 500),
            key_gap: millis("LUXE_BENCH_KEY_GAP_MS", 50),
            npm_dir,
            stream_pause: Duration::from_micros(number("LUXE_BENCH_STREAM_PAUSE_US", 0)),
        }
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{COLS}x{ROWS} pty; medians of {} runs after a warm-up; a screen waited for up to {} ms, \
             stable after {} ms unchanged; {} ms before each key; {} µs before each streamed event; \
             {} cores",
            self.runs,
            self.wait.as_millis(),
            self.settle.as_millis(),
            self.key_gap.as_millis(),
            self.stream_pause.as_micros(),
            std::thread::available_parallelism().map_or(0, usize::from),
        )
    }
}
