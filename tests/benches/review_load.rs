//! Loading a large working-tree review: `luxe_io::git::read_diff` over a generated repository
//! whose working tree changes 2,000 files (100,000 lines replaced) beside 2,000 untouched ones,
//! next to `git diff HEAD` plus `git ls-files --others --exclude-standard` measured in the same
//! run; read_diff's peak memory, from a child process that does only that; and the whole
//! `load_guided_review` through `luxe --rpc` (request to `guided_review_loaded`) beside git
//! again, with luxe's peak memory.
//!
//! `cargo bench -p luxe-tests --bench review_load` (release build; `LUXE_BENCH_RUNS` sets the
//! number of runs, default 11).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use luxe_core::protocol::guided_review::ReviewTarget;
use luxe_io::git::read_diff;
use luxe_tests::bench::{median, ms, proc_status_kib};
use luxe_tests::large_review::{CHANGED_FILES, CHANGED_LINES, generate, time_git};
use luxe_tests::process::luxe_bin;
use tempfile::TempDir;

/// The argument that makes this binary the child whose memory is measured.
const CHILD: &str = "--read-diff-once";

fn main() {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() == Some(CHILD) {
        let dir = args.next().expect("the repository");
        read_once_and_report_memory(&dir);
        return;
    }
    let runs: usize = std::env::var("LUXE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11);
    let repo = generate();
    let dir = repo.path().to_string_lossy().into_owned();

    let source = read_diff(&dir, &ReviewTarget::WorkingTree).expect("diff read");
    assert_eq!(
        source.files.len(),
        CHANGED_FILES,
        "every changed file is read"
    );
    let git = median(runs, || time_git(repo.path()));
    let ours = median(runs, || time_read_diff(&dir));
    println!(
        "working tree, {CHANGED_FILES} files / {} lines changed   read_diff {:.1} ms   (baseline: git diff HEAD + git ls-files --others {:.1} ms; median of {runs})",
        CHANGED_LINES,
        ms(ours),
        ms(git)
    );
    let (at_rest, peak) = read_diff_memory(&dir);
    println!(
        "read_diff memory   peak {peak} KiB   (the same process before reading: {at_rest} KiB)"
    );

    let (load, git_again, peak) = end_to_end(repo.path(), runs);
    println!(
        "load_guided_review end to end (request → guided_review_loaded) {:.1} ms   (baseline: git diff HEAD + git ls-files --others {:.1} ms, ratio {:.2}; median of {runs})",
        ms(load),
        ms(git_again),
        load.as_secs_f64() / git_again.as_secs_f64()
    );
    println!("luxe peak memory after {} loads   {peak} KiB", runs + 1);
}

/// Times `load_guided_review` through a running `luxe --rpc` in `dir`, from writing the request
/// to reading the last byte of `guided_review_loaded` (lines are split, not parsed), with git
/// timed again in the same stretch; returns the medians and luxe's peak resident set in KiB.
fn end_to_end(dir: &Path, runs: usize) -> (Duration, Duration, u64) {
    let home = TempDir::new().expect("LUXE_HOME");
    let mut child = Command::new(luxe_bin())
        .arg("--rpc")
        .current_dir(dir)
        .env("LUXE_HOME", home.path())
        .env_remove("LUXE_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("luxe spawns");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped"));
    let mut line = Vec::new();
    // The GitHub probe's `workspace_updated` comes whenever it ends: not part of a load.
    let mut next_line = |line: &mut Vec<u8>| loop {
        line.clear();
        stdout.read_until(b'\n', line).expect("a frame");
        if !line.starts_with(br#"{"kind":"workspace_updated""#) {
            break;
        }
    };
    for _ in 0..2 {
        next_line(&mut line);
    }
    let mut n = 0;
    let load = median(runs, || {
        n += 1;
        let start = Instant::now();
        writeln!(
            stdin,
            r#"{{"kind":"load_guided_review","content":{{"request_id":"l{n}","target":{{"kind":"working_tree"}}}}}}"#
        )
        .expect("luxe reads");
        next_line(&mut line);
        let elapsed = start.elapsed();
        assert!(
            line.starts_with(br#"{"kind":"guided_review_loaded""#),
            "{}",
            String::from_utf8_lossy(&line[..line.len().min(300)])
        );
        next_line(&mut line);
        assert!(line.starts_with(br#"{"kind":"review_session_restored""#));
        elapsed
    });
    let git_again = median(runs, || time_git(dir));
    let peak = proc_status_kib(&child.id().to_string(), "VmHWM");
    drop(stdin);
    child.wait().expect("luxe exits");
    (load, git_again, peak)
}

fn time_read_diff(dir: &str) -> Duration {
    let start = Instant::now();
    let source = read_diff(dir, &ReviewTarget::WorkingTree).expect("diff read");
    let elapsed = start.elapsed();
    drop(source);
    elapsed
}

/// (VmHWM before reading, VmHWM after), in KiB, of a child that reads the diff once.
fn read_diff_memory(dir: &str) -> (u64, u64) {
    let exe = std::env::current_exe().expect("this bench");
    let output = Command::new(exe)
        .args([CHILD, dir])
        .output()
        .expect("child runs");
    assert!(output.status.success(), "the child failed");
    let text = String::from_utf8(output.stdout).expect("figures");
    let mut figures = text.split_whitespace().map(|n| n.parse().expect("KiB"));
    (
        figures.next().expect("before"),
        figures.next().expect("after"),
    )
}

fn read_once_and_report_memory(dir: &str) {
    let before = proc_status_kib("self", "VmHWM");
    let source = read_diff(dir, &ReviewTarget::WorkingTree).expect("diff read");
    let after = proc_status_kib("self", "VmHWM");
    assert_eq!(source.files.len(), CHANGED_FILES);
    println!("{before} {after}");
}
