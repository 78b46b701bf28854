//! Resuming a long session: time from spawn to `ready` with `--resume` of a session of 10,000
//! entries, beside a fresh session's time to `ready` measured in the same run.
//!
//! `cargo bench -p luxe-tests --bench sessions` (release binary).

use std::time::{Duration, Instant};

use luxe_tests::bench::median;
use luxe_tests::process::{Workspace, spawn_to_first_line};
use serde_json::json;

const ENTRIES: usize = 10_000;
const RUNS: usize = 21;

fn main() {
    let ws = Workspace::new();
    let cwd = std::fs::canonicalize(ws.path()).expect("cwd");
    let dir = ws.path().join("home/sessions");
    std::fs::create_dir_all(&dir).expect("sessions dir");
    let mut file = json!({"type":"session","version":1,"id":"long","cwd":cwd.to_string_lossy(),"created":"2026-11-29"}).to_string();
    file.push('\n');
    for i in 0..ENTRIES {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let record = json!({"type":"message","message":{"role":role,"content":[{"type":"text","text":format!("entry {i}: some words that a real conversation would have in it, about this long")}]}});
        file.push_str(&record.to_string());
        file.push('\n');
    }
    std::fs::write(dir.join("long.jsonl"), &file).expect("session written");
    let fresh = median(RUNS, || time_to_ready(&ws, &[]));
    let resumed = median(RUNS, || time_to_ready(&ws, &["--resume", "long"]));
    println!(
        "resume {ENTRIES} entries ({} KiB)   ready after {:.2} ms   (fresh session: {:.2} ms; median of {RUNS})",
        file.len() / 1024,
        resumed.as_secs_f64() * 1e3,
        fresh.as_secs_f64() * 1e3
    );
}

fn time_to_ready(ws: &Workspace, args: &[&str]) -> Duration {
    let start = Instant::now();
    let mut cmd = ws.luxe();
    cmd.args(args);
    let (mut child, first) = spawn_to_first_line(cmd);
    let elapsed = start.elapsed();
    assert!(first.contains(r#""kind":"ready""#), "{first}");
    // The restored conversation follows `ready` and may not fit the pipe: stop reading, so luxe
    // ends on the closed pipe instead of waiting for a reader.
    drop(child.stdout.take());
    drop(child.stdin.take());
    child.wait().expect("exits");
    elapsed
}
