//! Agent-turn figures against the loopback model server, each beside a baseline from the same
//! run: streaming overhead (100,000 token deltas through luxe, against the same stream read
//! straight from the server), interrupt latency while a stream and while a tool runs, and
//! memory over a 1,000-turn session.
//!
//! `cargo bench -p luxe-tests --bench turns` (release binary).

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use luxe_tests::bench::{Provider, cpu_ms, ms, proc_status_kib, read_directly, sections};
use luxe_tests::model_server::{ModelServer, Part, Reply, Script, Stop};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::json;

const DELTAS: usize = 100_000;

fn main() {
    // `cargo bench --bench turns -- stream` runs only the sections whose names contain `stream`.
    let wanted = sections();
    let ws = Workspace::new();
    if wanted("stream") || wanted("anthropic") {
        streaming_overhead(&ws, Provider::Anthropic);
    }
    if wanted("stream") || wanted("openai") {
        streaming_overhead(&ws, Provider::OpenAi);
    }
    if wanted("interrupt") {
        interrupt_latency(&ws);
    }
    if wanted("memory") {
        memory_over_turns(&ws);
    }
}

fn big_stream() -> Reply {
    let deltas: Vec<String> = (0..DELTAS).map(|i| format!("tok{i} ")).collect();
    Reply::Stream(Script::new(vec![Part::Text(deltas)], Stop::EndTurn))
}

fn start(ws: &Workspace, server: &ModelServer, extra: &[&str]) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .args(extra);
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

fn submit(luxe: &mut LuxeProcess, text: &str) {
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":text}}).to_string());
}

fn streaming_overhead(ws: &Workspace, provider: Provider) {
    let server = ModelServer::start();
    let mut direct = Vec::new();
    let mut through = Vec::new();
    let (mut cpu, mut sys) = (0.0, 0.0);
    for _ in 0..5 {
        server.push(big_stream());
        direct.push(read_directly(&server, provider));
        let (elapsed, (user_ms, sys_ms)) = stream_through(ws, &server, provider);
        through.push(elapsed);
        cpu += user_ms + sys_ms;
        sys += sys_ms;
    }
    direct.sort();
    through.sort();
    let (d, l) = (direct[2], through[2]);
    println!(
        "stream 100,000 deltas ({provider:?})  through luxe {:>8.1} ms   directly from the server {:>8.1} ms   overhead {:+.1}%  (median of 5)",
        ms(l),
        ms(d),
        (l.as_secs_f64() / d.as_secs_f64() - 1.0) * 100.0
    );
    println!(
        "                        luxe's own CPU time per stream {:.1} ms ({:.1} ms of it in the kernel), all threads",
        cpu / 5.0,
        sys / 5.0
    );
}

/// One stream through a fresh `luxe`: the time from submitting to `turn_ended`, and the CPU
/// time (user, kernel) luxe spent meanwhile. A fresh process per stream, because a session's
/// conversation would grow by every stream, and near the context window luxe compacts it
/// with a model request of its own.
fn stream_through(
    ws: &Workspace,
    server: &ModelServer,
    provider: Provider,
) -> (Duration, (f64, f64)) {
    let mut cmd = ws.luxe();
    match provider {
        Provider::Anthropic => cmd
            .env("ANTHROPIC_API_KEY", "k")
            .env("ANTHROPIC_BASE_URL", server.anthropic_base_url()),
        Provider::OpenAi => cmd
            .env("OPENAI_BASE_URL", server.openai_base_url())
            .args(["--model", "openai/gpt-5"]),
    };
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().expect("luxe spawns");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped"));
    let mut line = Vec::new();
    // The start-up probes end with `workspace_updated`; none of their work overlaps the stream.
    loop {
        line.clear();
        stdout
            .read_until(b'\n', &mut line)
            .expect("start-up frames");
        if line.starts_with(br#"{"kind":"workspace_updated""#) {
            break;
        }
    }
    let pid = child.id();
    let before = cpu_ms(pid);
    server.push(big_stream());
    let t = Instant::now();
    writeln!(
        stdin,
        r#"{{"kind":"submit_user_message","content":{{"text":"stream"}}}}"#
    )
    .expect("luxe reads");
    let mut deltas = 0;
    loop {
        line.clear();
        stdout.read_until(b'\n', &mut line).expect("a frame");
        if line.starts_with(br#"{"kind":"token_delta""#) {
            deltas += 1;
        } else if line.starts_with(br#"{"kind":"turn_ended""#) {
            break;
        }
    }
    let elapsed = t.elapsed();
    let after = cpu_ms(pid);
    assert_eq!(deltas, DELTAS);
    drop(stdin);
    child.wait().expect("luxe exits");
    (elapsed, (after.0 - before.0, after.1 - before.1))
}

fn interrupt_latency(ws: &Workspace) {
    let server = ModelServer::start();
    let mut luxe = start(ws, &server, &["--yolo"]);
    let mut stream_times = Vec::new();
    let mut tool_times = Vec::new();
    for _ in 0..15 {
        server.push(Reply::Stream(
            Script::new(vec![Part::Text(vec!["slow ".into(); 1000])], Stop::EndTurn)
                .with_delay(Duration::from_millis(20)),
        ));
        submit(&mut luxe, "stream slowly");
        until(&mut luxe, "token_delta");
        stream_times.push(interrupt(&mut luxe));

        server.push(Reply::tool_call(
            "b",
            "bash",
            json!({"command": "sleep 30"}),
        ));
        submit(&mut luxe, "run a tool");
        until(&mut luxe, "tool_started");
        std::thread::sleep(Duration::from_millis(20));
        tool_times.push(interrupt(&mut luxe));
    }
    stream_times.sort();
    tool_times.sort();
    // Baseline: a client's own round trip through luxe for a frame that does no work.
    let mut echo = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        luxe.send(r#"{"kind":"set_mode","content":{"mode":"build"}}"#);
        luxe.expect("state_changed");
        echo.push(t.elapsed());
    }
    echo.sort();
    println!(
        "interrupt -> turn_ended  while streaming {:>6.2} ms   while a tool runs {:>6.2} ms   (baseline: set_mode -> state_changed {:.2} ms; median of 15)",
        ms(stream_times[7]),
        ms(tool_times[7]),
        ms(echo[7])
    );
}

fn interrupt(luxe: &mut LuxeProcess) -> Duration {
    let t = Instant::now();
    luxe.send(r#"{"kind":"interrupt_turn"}"#);
    until(luxe, "turn_ended");
    t.elapsed()
}

fn until(luxe: &mut LuxeProcess, kind: &str) {
    while luxe.recv()["kind"] != kind {}
}

fn memory_over_turns(ws: &Workspace) {
    let server = ModelServer::start();
    let mut luxe = start(ws, &server, &[]);
    let mut at_10 = 0;
    let t = Instant::now();
    for turn in 1..=1000 {
        server.push(Reply::text("a short answer of a few words"));
        submit(&mut luxe, "another question");
        until(&mut luxe, "turn_ended");
        if turn == 10 {
            at_10 = peak_rss_kib(luxe.pid());
        }
    }
    let at_1000 = peak_rss_kib(luxe.pid());
    println!(
        "1,000 turns              peak RSS {at_10} KiB at turn 10, {at_1000} KiB at turn 1,000 ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
}

fn peak_rss_kib(pid: u32) -> u64 {
    proc_status_kib(&pid.to_string(), "VmHWM")
}
