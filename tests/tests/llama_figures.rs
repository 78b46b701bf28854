//! The figures of docs (README, "Local models"), measured against the real `llama-server`:
//! first token and turn end through luxe beside a direct streaming client sending the same
//! request body (medians of 5, prompt cache off), and a 50-turn session at `-c 2048`: the turns
//! that succeed and the requests the server refused as too long (counted in its log).
//! Run by hand: `cargo test -p luxe-tests --test llama_figures -- --ignored --nocapture`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use luxe_tests::llama::LlamaServer;
use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::rig::{ended, of_kind, until_turn_ended};
use serde_json::{Value, json};

const QUESTION: &str = "Write three sentences about the sea.";

fn spawn_luxe(ws: &Workspace, base_url: &str) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.env("OPENAI_BASE_URL", base_url)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .args(["--model", "openai/smollm2"]);
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.set_patience(Duration::from_secs(900));
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

fn submit(luxe: &mut LuxeProcess, text: &str) {
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":text}}).to_string());
}

/// The body luxe sends for `QUESTION` in a fresh session (read off the loopback server,
/// which answers the window questions as a llama-server at `context` does).
fn luxe_body(context: u64) -> Value {
    let server = ModelServer::start();
    server.serve_llama_info(context, true);
    let ws = Workspace::new();
    let mut luxe = spawn_luxe(&ws, &server.openai_base_url());
    // Let both answers arrive, as they do long before a person types.
    std::thread::sleep(Duration::from_millis(500));
    server.push(Reply::text("x"));
    submit(&mut luxe, QUESTION);
    until_turn_ended(&mut luxe);
    server.requests().last().unwrap().body.clone()
}

/// A direct streaming client: (first content delta, end of stream) after sending `body`.
fn direct(port_url: &str, body: &Value) -> (Duration, Duration) {
    let rest = port_url.trim_start_matches("http://");
    let (host, _) = rest.split_once('/').unwrap();
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_nodelay(true).unwrap();
    let body = body.to_string();
    let start = Instant::now();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut first = None;
    for line in BufReader::new(stream).lines() {
        let line = line.unwrap();
        if first.is_none() && line.contains("\"content\":\"") {
            first = Some(start.elapsed());
        }
        if line.contains("[DONE]") {
            break;
        }
    }
    (first.unwrap_or_default(), start.elapsed())
}

fn through_luxe(luxe: &mut LuxeProcess) -> (Duration, Duration) {
    let start = Instant::now();
    submit(luxe, QUESTION);
    let mut first = None;
    loop {
        let frame = luxe.recv();
        if first.is_none() && frame["kind"] == "token_delta" {
            first = Some(start.elapsed());
        }
        if frame["kind"] == "turn_ended" {
            break;
        }
    }
    let end = start.elapsed();
    assert_eq!(luxe.expect("state_changed")["streaming"], false);
    (first.unwrap_or_default(), end)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
#[ignore = "figures, run by hand against a built llama-server"]
fn figures_streaming_overhead_and_a_long_session() {
    let Some(server) = LlamaServer::start(4096, true) else {
        return;
    };
    let body = luxe_body(4096);
    let (mut luxe_first, mut luxe_end, mut direct_first, mut direct_end) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        // A fresh session each time: the same request body as the direct client's.
        let ws = Workspace::new();
        let mut luxe = spawn_luxe(&ws, &server.base_url());
        std::thread::sleep(Duration::from_millis(300));
        let (f, e) = through_luxe(&mut luxe);
        luxe_first.push(f);
        luxe_end.push(e);
        let (f, e) = direct(&server.base_url(), &body);
        direct_first.push(f);
        direct_end.push(e);
    }
    let (lf, le, df, de) = (
        median(luxe_first),
        median(luxe_end),
        median(direct_first),
        median(direct_end),
    );
    println!(
        "first token: luxe {lf:?}, direct {df:?} ({:+.1}%); turn end: luxe {le:?}, direct {de:?} ({:+.1}%)",
        (lf.as_secs_f64() / df.as_secs_f64() - 1.0) * 100.0,
        (le.as_secs_f64() / de.as_secs_f64() - 1.0) * 100.0
    );
    drop(server);

    // The prompt cache on (it is not timed here). No server-side `-n`: a request's own limit,
    // which luxe always sends, overrides it.
    let Some(server) = LlamaServer::start(2048, false) else {
        return;
    };
    let ws = Workspace::new();
    let mut luxe = spawn_luxe(&ws, &server.base_url());
    let items: String = (1..=120).map(|i| format!("{i}, ")).collect();
    let (mut ok, mut compactions, mut overflows) = (0, 0, 0);
    let start = Instant::now();
    for i in 0..50 {
        submit(
            &mut luxe,
            &format!("Turn {i}. Here is a list: {items}. Reply with one word: ok."),
        );
        let frames = until_turn_ended(&mut luxe);
        let end = ended(&frames);
        if end["reason"] == "end_turn" || end["reason"] == "max_tokens" {
            ok += 1;
        } else {
            println!("turn {i}: {end}");
        }
        compactions += of_kind(&frames, "compaction_started").len();
        overflows += of_kind(&frames, "compaction_started")
            .iter()
            .filter(|c| c["trigger"] == "overflow")
            .count();
        // Progress, for a run cut short.
        let (requests, refused) = server.requests_and_overflows();
        println!(
            "turn {i}: {}; so far {ok} succeeded, {refused} of {requests} requests refused, {compactions} compactions, {:?}",
            end["reason"],
            start.elapsed()
        );
    }
    let (requests, refused) = server.requests_and_overflows();
    println!(
        "50 turns at -c 2048: {ok} succeeded; {refused} of {requests} requests overflowed (refused as too long); {compactions} compactions ({overflows} after a refusal); {:?}",
        start.elapsed()
    );
}
