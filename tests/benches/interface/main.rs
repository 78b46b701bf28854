//! The terminal interface's figures beside its peers', each program in a 120×40
//! pseudo-terminal of the benchmark's own (`luxe_tests::pty`), read from the screen as a
//! person would see it:
//!
//! - `start`: spawn → the first screen (luxe's: the composer) and → that screen stable, a key
//!   → its echo, and the memory at the first screen; beside `/bin/echo` (the harness's floor);
//! - `peers`: the same for Codex, pi and Claude Code from the npm registry, each started with
//!   no key and a `HOME` of its own (what each one's first screen is: [`peers`]);
//! - `stream`: the CPU time to show a 20,000-token answer from the loopback model server,
//!   beside `luxe -p` and curl reading the same stream to `/dev/null`;
//! - `resume`: `--resume` of a 1,000-turn session: the first frame that shows it, and memory;
//! - `review`: `/review` of 2,000 changed files (100,000 lines) to its first chapter beside `git
//!   diff HEAD`, the memory with it open, and a key's move in it.
//!
//! One frame's draw at 120×40 with 10,000 messages is `cargo bench -p luxe-interface --bench
//! draw`, not measured again here.
//!
//! `cargo bench -p luxe-tests --bench interface` (the release binary, or `LUXE_BIN`);
//! `-- start peers` runs only the sections named. Settings, each from the environment:
//! `LUXE_BENCH_RUNS` (10) samples of each figure after one warm-up, `LUXE_BENCH_WAIT_MS`
//! (20000) the longest wait for one screen, `LUXE_BENCH_SETTLE_MS` (500) how long a screen
//! must stay unchanged to count as stable, `LUXE_BENCH_KEY_GAP_MS` (50) the pause before each
//! key, `LUXE_BENCH_STREAM_PAUSE_US` (0) the model server's pause before each streamed event,
//! `LUXE_BENCH_NPM` (`~/.cache/luxe-bench/npm`) where the peers are installed.
//! docs/benchmarks.md has the figures measured and what they mean.

mod first_screen;
mod luxe;
mod peers;
mod resume;
mod review;
mod settings;
mod stream;

use luxe_tests::bench::sections;

fn main() {
    let settings = settings::Settings::from_env();
    let wanted = sections();
    println!("{settings}");
    // Other work on the machine moves every figure: the load is printed before and after.
    println!("load average before: {}", load_average());
    if wanted("start") {
        first_screen::report_header();
        first_screen::report(&first_screen::floor(), &settings);
        first_screen::report(&luxe::program(), &settings);
    }
    if wanted("peers") {
        if !wanted("start") {
            first_screen::report_header();
        }
        for peer in peers::install(&settings.npm_dir) {
            match peer {
                Ok(program) => first_screen::report(&program, &settings),
                Err(missing) => println!("{missing}"),
            }
        }
        peers::describe();
    }
    if wanted("stream") {
        stream::report(&settings);
    }
    if wanted("resume") {
        resume::report(&settings);
    }
    if wanted("review") {
        review::report(&settings);
    }
    println!("\nload average after: {}", load_average());
}

/// `/proc/loadavg`'s 1, 5 and 15-minute averages.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |e| format!("unknown ({e})"),
        |l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}
