//! `luxe --acp`'s start-up beside the Node ACP adapters of Claude Code and Codex, each spawned
//! the same way: spawn → `initialize` response, and spawn → `session/new` response, median of
//! `LUXE_BENCH_RUNS` (default 20) after a warm-up. No API key is set: each is measured as far
//! as it gets, and where it stops is printed.
//!
//! Then the streaming overhead of a 20,000-token answer through `--acp` (from the prompt to its
//! response) against the same stream read straight from the loopback model server, medians of 101
//! taken in turn.
//! The client reads luxe's lines as the `turns` bench reads `--rpc`'s, telling them apart by
//! their first bytes, so that what is timed is luxe, not a JSON parser in the client. The text
//! the chunks carry must be the answer's, whatever the number of chunks: luxe joins deltas
//! that it reads from the model in one piece (the number is printed).
//!
//! Every agent is spawned in a process group of its own, and the whole group is killed after
//! each sample: the Node adapters start processes of their own, which outlived a plain kill.
//!
//! `cargo bench -p luxe-tests --bench acp` (uses the bench profile's binary); `-- start`,
//! `-- stream` or `-- adapters` runs only the sections whose names contain it. The adapters are
//! installed from npm into a temporary directory first (`@zed-industries/claude-agent-acp`,
//! `@zed-industries/codex-acp`); one that cannot be installed is reported and skipped.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::thread;
use std::time::{Duration, Instant};

use luxe_tests::bench::{
    Provider, cpu_on_core_ms, median_of, medians_in_turn, ms, read_directly, sections,
};
use luxe_tests::model_server::{ModelServer, Part, Reply, Script, Stop};
use luxe_tests::process::{Workspace, luxe_bin};
use serde_json::{Value, json};

/// How long one answer may take before the agent counts as stuck there.
const PATIENCE: Duration = Duration::from_secs(30);

/// How far one spawn got.
struct Sample {
    initialize: Option<Duration>,
    /// The `session/new` answer's time, or what stopped it.
    new: Result<Duration, String>,
}

fn main() {
    let runs: usize = std::env::var("LUXE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let wanted = sections();
    let ws = Workspace::new();
    let cwd = std::fs::canonicalize(ws.path()).expect("the workspace exists");
    let home = ws.path().join("home");
    if wanted("start") {
        let mut luxe = Command::new(luxe_bin());
        luxe.arg("--acp").env("LUXE_HOME", &home);
        report("luxe --acp", runs, &cwd, || clean(&luxe));
    }
    if wanted("stream") {
        streaming_overhead(&ws, &cwd);
    }
    if !wanted("adapters") {
        return;
    }
    let adapters = ws.path().join("adapters");
    for (package, bin) in [
        ("@zed-industries/claude-agent-acp", "claude-agent-acp"),
        ("@zed-industries/codex-acp", "codex-acp"),
    ] {
        match install(&adapters, package) {
            Ok(()) => {
                let mut cmd = Command::new(adapters.join("node_modules/.bin").join(bin));
                cmd.env("HOME", &home);
                report(bin, runs, &cwd, || clean(&cmd));
            }
            Err(why) => println!("{bin:<20} not measured: {why}"),
        }
    }
}

/// `cmd` without provider keys, so that every agent runs as far as it can without one.
fn clean(cmd: &Command) -> Command {
    let mut fresh = Command::new(cmd.get_program());
    fresh.args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => fresh.env(k, v),
            None => fresh.env_remove(k),
        };
    }
    for var in [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CODEX_API_KEY",
    ] {
        fresh.env_remove(var);
    }
    fresh
}

fn install(dir: &Path, package: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
        .arg(dir)
        .arg(package)
        .status()
        .map_err(|e| format!("npm: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("npm install {package} failed"))
    }
}

fn report(name: &str, runs: usize, cwd: &Path, mut cmd: impl FnMut() -> Command) {
    let _warm_up = sample(cmd(), cwd);
    let samples: Vec<Sample> = (0..runs).map(|_| sample(cmd(), cwd)).collect();
    let init = median_of(samples.iter().filter_map(|s| s.initialize).collect());
    let new = median_of(samples.iter().filter_map(|s| s.new.clone().ok()).collect());
    let stopped = samples.iter().find_map(|s| s.new.clone().err());
    let shown = |d: Option<Duration>| d.map_or("-".to_owned(), |d| format!("{:.3} ms", ms(d)));
    println!(
        "{name:<20} spawn→initialize median {:>12}   spawn→session/new median {:>12}{}",
        shown(init),
        shown(new),
        stopped.map_or(String::new(), |why| format!("   (session/new: {why})"))
    );
}

fn sample(mut cmd: Command, cwd: &Path) -> Sample {
    let start = Instant::now();
    let mut child = match cmd
        .current_dir(cwd)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(child) => child,
        Err(err) => {
            return Sample {
                initialize: None,
                new: Err(format!("cannot spawn: {err}")),
            };
        }
    };
    let lines = read_lines(&mut child);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut send = |message: Value| writeln!(stdin, "{message}").is_ok();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}}}));
    let initialize = answer(&lines, 1).map(|_| start.elapsed());
    let new = match initialize {
        None => Err("initialize did not answer".to_owned()),
        Some(_) => {
            send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                "params": {"cwd": cwd, "mcpServers": []}}));
            match answer(&lines, 2) {
                Some(answer) if answer.get("result").is_some() => Ok(start.elapsed()),
                Some(answer) => Err(format!("error {}", answer["error"])),
                None => Err(format!("no answer within {} s", PATIENCE.as_secs())),
            }
        }
    };
    drop(stdin);
    kill_group(&mut child);
    Sample { initialize, new }
}

/// Kills `child`'s process group (it leads one of its own) and reaps `child`.
fn kill_group(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.wait();
}

fn read_lines(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (lines, received) = channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    received
}

/// The response to `id`, skipping notifications and the agent's own requests.
fn answer(lines: &Receiver<String>, id: u64) -> Option<Value> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        let line = lines.recv_timeout(left).ok()?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if message["id"] == id && message.get("method").is_none() {
            return Some(message);
        }
    }
}

/// Tokens of the streamed answer.
const TOKENS: usize = 20_000;

/// Samples of each side. The direct read alone varies from 27 to 48 ms from sample to sample
/// on a 2-core machine: medians of 5, or even 31, still moved by ten points from run to run.
const STREAM_RUNS: usize = 101;

fn streaming_overhead(ws: &Workspace, cwd: &Path) {
    let server = ModelServer::start();
    let mut cpu = Vec::new();
    let mut lines = Vec::new();
    let (d, l) = medians_in_turn(
        STREAM_RUNS,
        || {
            server.push(big_answer());
            read_directly(&server, Provider::Anthropic)
        },
        || {
            server.push(Reply::text("ok"));
            server.push(big_answer());
            let (elapsed, on_core, chunks) = stream_through(ws, &server, cwd);
            cpu.push(on_core);
            lines.push(chunks);
            elapsed
        },
    );
    lines.sort_unstable();
    cpu.sort_by(f64::total_cmp);
    let mid = cpu[cpu.len() / 2];
    println!(
        "stream {TOKENS} tokens     through --acp {:>8.1} ms   directly from the server {:>8.1} ms   overhead {:+.1}%  (medians of {STREAM_RUNS}, in turn)",
        ms(l),
        ms(d),
        (l.as_secs_f64() / d.as_secs_f64() - 1.0) * 100.0
    );
    println!(
        "                        luxe's own CPU time per stream {mid:.1} ms (median), {:.2} µs per token; {} to {} chunks",
        mid * 1e3 / TOKENS as f64,
        lines[0],
        lines[lines.len() - 1]
    );
}

fn big_answer() -> Reply {
    let deltas: Vec<String> = (0..TOKENS).map(|i| format!("tok{i} ")).collect();
    Reply::Stream(Script::new(vec![Part::Text(deltas)], Stop::EndTurn))
}

/// One prompt through a fresh `luxe --acp`, after a first short one (as the `turns` bench waits
/// for the start-up probes: a session's first request waits for `git status` and `AGENTS.md`,
/// which is no part of streaming): the time from sending it to its response, luxe's time on a
/// CPU meanwhile (ms), and how many chunks carried the answer.
fn stream_through(ws: &Workspace, server: &ModelServer, cwd: &Path) -> (Duration, f64, usize) {
    let mut child = Command::new(luxe_bin())
        .args(["--acp", "--model", "anthropic/claude-sonnet-4-5"])
        .env("LUXE_HOME", ws.path().join("home"))
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("luxe spawns");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped"));
    let mut line = Vec::new();
    // luxe writes a message's keys in order: a response begins with its id, a notification
    // with `jsonrpc` and its method.
    let mut answer = |stdout: &mut BufReader<_>, id: u64| -> Value {
        let start = format!("{{\"id\":{id},");
        loop {
            line.clear();
            stdout.read_until(b'\n', &mut line).expect("a line");
            assert!(!line.is_empty(), "luxe ended before answering {id}");
            if line.starts_with(start.as_bytes()) {
                return serde_json::from_slice(&line).expect("an answer is JSON");
            }
        }
    };
    let mut send = |message: Value| writeln!(stdin, "{message}").expect("luxe reads");
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}),
    );
    answer(&mut stdout, 1);
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}}),
    );
    let new = answer(&mut stdout, 2);
    let session = new["result"]["sessionId"].clone();
    let prompt = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}})
    };
    send(prompt(3));
    let warm_up = answer(&mut stdout, 3);
    assert_eq!(warm_up["result"]["stopReason"], "end_turn", "{warm_up}");
    let before = cpu_on_core_ms(child.id());
    let start = Instant::now();
    send(prompt(4));
    let chunk = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"#;
    let end = b"\",\"type\":\"text\"},\"sessionUpdate\":\"agent_message_chunk\"}}}\n";
    let mut chunks = 0;
    // The tokens need no escaping, so a chunk's text is the bytes between its markers.
    let mut text = Vec::with_capacity(TOKENS * 10);
    let done = loop {
        line.clear();
        stdout.read_until(b'\n', &mut line).expect("a line");
        assert!(!line.is_empty(), "luxe ended before answering the prompt");
        if line.starts_with(chunk) && line.ends_with(end) {
            chunks += 1;
            let body = &line[..line.len() - end.len()];
            let from = body
                .windows(11)
                .position(|w| w == b"\"text\":\"tok")
                .expect("a chunk of the answer")
                + 8;
            text.extend_from_slice(&body[from..]);
        } else if line.starts_with(b"{\"id\":4,") {
            break serde_json::from_slice::<Value>(&line).expect("an answer is JSON");
        }
    };
    let elapsed = start.elapsed();
    let after = cpu_on_core_ms(child.id());
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    let expected: String = (0..TOKENS).map(|i| format!("tok{i} ")).collect();
    assert!(text == expected.as_bytes(), "the chunks carry the answer");
    drop(stdin);
    let _ = child.wait();
    (elapsed, after - before, chunks)
}
