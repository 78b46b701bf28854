//! MCP figures, each beside its baseline in the same run, samples taken in turn: spawn-to-`ready`
//! with three configured stdio servers against none (servers start after `ready`, so the two
//! should match within noise; a second pair with servers that cost nothing to start shows what
//! is luxe's and what is the servers' start-up competing for the cores), and a tool call's round trip through luxe (`tool_started` to `tool_finished`
//! of `server-everything`'s `echo`, allowed by a rule; luxe writes `tool_started` just before it
//! sends the call, so the figure starts a pipe hop late) against the same call from a bare client
//! writing JSON-RPC to the same server's stdin.
//!
//! `cargo bench -p luxe-tests --bench mcp` (the release binary; `LUXE_BENCH_RUNS` sets the
//! number of samples, default 20). Needs Node.js; the servers are installed from
//! `tests/mcp/package-lock.json` on first use.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use luxe_tests::bench::{median, medians_in_turn, ms};
use luxe_tests::mcp_servers::everything;
use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{LuxeProcess, Workspace, luxe_bin, spawn_to_first_line};
use serde_json::{Value, json};

fn main() {
    let runs: usize = std::env::var("LUXE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    println!("luxe: {}", luxe_bin().display());

    let none = Workspace::new();
    let three = Workspace::new();
    let servers: serde_json::Map<String, Value> = ["a", "b", "c"]
        .iter()
        .map(|n| (n.to_string(), everything()))
        .collect();
    let settings = json!({"mcpServers": servers}).to_string();
    std::fs::write(three.path().join("home/settings.json"), settings).unwrap();
    let (with_servers, without) =
        medians_in_turn(runs, || time_to_ready(&three), || time_to_ready(&none));
    println!(
        "spawn to ready, 3 stdio MCP servers  median {:>8.3} ms   (none configured: {:.3} ms; {runs} runs each)",
        ms(with_servers),
        ms(without)
    );
    // The same three servers as processes that cost nothing to start: what is left of the
    // difference above is the servers' own start-up (Node) taking the machine's cores from the
    // client reading `ready`, which luxe wrote before it spawned them.
    let idle = Workspace::new();
    let sleepers: serde_json::Map<String, Value> = ["a", "b", "c"]
        .iter()
        .map(|n| (n.to_string(), json!({"command": "sleep", "args": ["30"]})))
        .collect();
    let settings = json!({"mcpServers": sleepers}).to_string();
    std::fs::write(idle.path().join("home/settings.json"), settings).unwrap();
    let (with_idle, without) =
        medians_in_turn(runs, || time_to_ready(&idle), || time_to_ready(&none));
    println!(
        "spawn to ready, 3 idle stdio servers median {:>8.3} ms   (none configured: {:.3} ms; {runs} runs each)",
        ms(with_idle),
        ms(without)
    );

    let through = round_trip_through_luxe(runs);
    let bare = round_trip_bare(runs);
    println!(
        "echo round trip through luxe         median {:>8.3} ms   (a bare client to the same server: {:.3} ms; added {:+.3} ms; {runs} calls each)",
        ms(through),
        ms(bare),
        ms(through) - ms(bare)
    );
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

/// `tool_started` to `tool_finished` of `echo`, as the client sees the frames.
fn round_trip_through_luxe(runs: usize) -> Duration {
    let ws = Workspace::new();
    let settings = json!({
        "mcpServers": {"everything": everything()},
        "permissions": {"allow": ["mcp__everything__echo"]},
    });
    std::fs::write(ws.path().join("home/settings.json"), settings.to_string()).unwrap();
    let server = ModelServer::start();
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url());
    let mut luxe = LuxeProcess::spawn(cmd);
    loop {
        let frame = luxe.recv();
        let servers = &frame["content"]["servers"];
        if frame["kind"] == "mcp_servers_updated" && servers[0]["status"] == "ready" {
            break;
        }
    }
    median(runs, || {
        server.push(Reply::tool_call(
            "t",
            "mcp__everything__echo",
            json!({"message": "x"}),
        ));
        server.push(Reply::text("ok"));
        luxe.send_frame("submit_user_message", json!({"text": "go"}));
        let mut started = None;
        loop {
            let frame = luxe.recv();
            match frame["kind"].as_str() {
                Some("tool_started") => started = Some(Instant::now()),
                Some("tool_finished") => {
                    let elapsed = started.expect("started first").elapsed();
                    luxe.until("turn_ended");
                    return elapsed;
                }
                _ => {}
            }
        }
    })
}

/// The same call written straight to the server's stdin, timed to its answer's line.
fn round_trip_bare(runs: usize) -> Duration {
    let entry = everything();
    let args: Vec<String> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    let mut child = Command::new("node")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut next = 0u64;
    let mut ask = |stdin: &mut std::process::ChildStdin, method: &str, params: Value| {
        next += 1;
        let line = json!({"jsonrpc": "2.0", "id": next, "method": method, "params": params});
        writeln!(stdin, "{line}").unwrap();
        next
    };
    let answer = |stdout: &mut BufReader<std::process::ChildStdout>, id: u64| loop {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("a line");
        let message: Value = serde_json::from_str(&line).expect("JSON");
        if message["id"] == id {
            return message;
        }
    };
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bare", "version": "0"}});
    let id = ask(&mut stdin, "initialize", init);
    answer(&mut stdout, id);
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    let elapsed = median(runs, || {
        let start = Instant::now();
        let params =
            json!({"name": "echo", "arguments": {"message": "x"}, "_meta": {"progressToken": 1}});
        let id = ask(&mut stdin, "tools/call", params);
        answer(&mut stdout, id);
        start.elapsed()
    });
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    elapsed
}
