//! End-to-end figures of `luxe --rpc`, each beside a baseline measured in the same run:
//! spawn-to-`ready` against spawning a trivial process, rejection throughput against the raw
//! stream through `cat`, and peak memory while idle.
//!
//! `cargo bench -p luxe-tests --bench rpc` (uses the release binary; `LUXE_BENCH_RUNS` sets the
//! number of spawns, default 50).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use luxe_tests::bench::{median, ms, proc_status_kib};
use luxe_tests::process::{Workspace, luxe_bin, spawn_to_first_line};

const LINES: usize = 100_000;

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no arguments of its own.
    let runs: usize = std::env::var("LUXE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let ws = Workspace::new();
    println!("luxe: {}", luxe_bin().display());

    let ready = median(runs, || time_to_ready(&ws));
    let trivial = median(runs, time_trivial_spawn);
    println!(
        "spawn to ready      median {:>8.3} ms   (baseline: spawn+exit of `true` {:.3} ms; {runs} runs each)",
        ms(ready),
        ms(trivial)
    );

    let garbage = garbage_lines();
    let (luxe_time, answered) = pipe_through(ws.luxe(), &garbage, LINES);
    assert_eq!(answered, LINES, "every malformed line is answered");
    let mut cat = Command::new("cat");
    cat.current_dir(ws.path());
    let (cat_time, echoed) = pipe_through(cat, &garbage, LINES);
    assert_eq!(echoed, LINES);
    println!(
        "100,000 malformed   {:>10.0} lines/s ({:.1} ms)   (baseline: raw stream through `cat` {:.0} lines/s)",
        LINES as f64 / luxe_time.as_secs_f64(),
        ms(luxe_time),
        LINES as f64 / cat_time.as_secs_f64()
    );

    let (idle_hwm, idle_rss) = idle_memory(&ws);
    println!("idle memory         peak {idle_hwm} KiB, resident {idle_rss} KiB after ready");
}

fn time_to_ready(ws: &Workspace) -> Duration {
    let start = Instant::now();
    let (mut child, first) = spawn_to_first_line(ws.luxe());
    let elapsed = start.elapsed();
    assert!(first.starts_with(r#"{"kind":"ready""#), "{first}");
    drop(child.stdin.take());
    child.wait().expect("luxe exits");
    elapsed
}

fn time_trivial_spawn() -> Duration {
    let start = Instant::now();
    Command::new("true").status().expect("true runs");
    start.elapsed()
}

fn garbage_lines() -> Vec<u8> {
    let shapes = [
        "this is not json",
        "{\"kind\":",
        "[1,2,3]",
        r#"{"kind":"warp_drive","content":{}}"#,
        r#"{"kind":"steer_turn","content":{}}"#,
    ];
    let mut bytes = Vec::new();
    for i in 0..LINES {
        bytes.extend_from_slice(shapes[i % shapes.len()].as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

/// Writes `input` to the process and times until `expect` lines came back (skipping luxe's two
/// start-up frames); returns the time and the number of lines counted.
fn pipe_through(mut cmd: Command, input: &[u8], expect: usize) -> (Duration, usize) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped"));
    let is_luxe = cmd.get_program() != "cat";
    let mut line = Vec::new();
    if is_luxe {
        for _ in 0..2 {
            line.clear();
            stdout.read_until(b'\n', &mut line).expect("start-up frame");
        }
    }
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let start = Instant::now();
    let writer = thread::spawn(move || {
        stdin.write_all(&input).expect("the child reads");
        // Dropping stdin is EOF: both luxe and cat then finish.
    });
    let mut count = 0;
    while count < expect {
        line.clear();
        if stdout.read_until(b'\n', &mut line).expect("reads") == 0 {
            break;
        }
        // The GitHub probe's frame is not an answer to a line.
        if is_luxe && line.starts_with(br#"{"kind":"workspace_updated""#) {
            continue;
        }
        count += 1;
    }
    let elapsed = start.elapsed();
    writer.join().expect("writer");
    let mut rest = Vec::new();
    let _ = stdout.read_to_end(&mut rest);
    child.wait().expect("exits");
    (elapsed, count)
}

fn idle_memory(ws: &Workspace) -> (u64, u64) {
    let (mut child, _ready) = spawn_to_first_line(ws.luxe());
    thread::sleep(Duration::from_millis(200));
    let pid = child.id().to_string();
    let figures = (
        proc_status_kib(&pid, "VmHWM"),
        proc_status_kib(&pid, "VmRSS"),
    );
    drop(child.stdin.take());
    child.wait().expect("exits");
    figures
}
