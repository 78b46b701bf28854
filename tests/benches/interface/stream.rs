//! The CPU time to show a 20,000-token answer from the loopback model server, beside two
//! clients that read the same stream without showing it: `luxe -p` to `/dev/null` (the same
//! HTTP, SSE and JSON decoding and session, no screen) and curl to `/dev/null` (HTTP alone).
//!
//! Each client's whole run is measured (its CPU time, once it has been waited for, from
//! `getrusage`), once with the 20,000-token answer and once with a one-token answer, in turn;
//! the difference of the two medians is what the answer cost it, start-up left out. The
//! interface's run: start, the first frame settled, `go` and Enter, the answer's usage line
//! (`… in, 20000 out, …`) on screen, settled, Ctrl+D. Also, the interface's own CPU time from
//! Enter to that line on screen (every thread's schedstat), the wall time, and the frames drawn
//! meanwhile. The answer comes as fast as the server writes it, or with a pause before each
//! event ([`Settings::stream_pause`]), as a model's would.

use std::process::{Command, Stdio};
use std::time::Duration;

use luxe_tests::bench::{cpu_on_core_ms, median_of, ms, waited_children_cpu_ms};
use luxe_tests::model_server::{ModelServer, Part, Reply, Script, ScriptUsage, Stop};
use luxe_tests::process::luxe_bin;
use luxe_tests::pty::Terminal;

use crate::first_screen::Dirs;
use crate::luxe::{command, composer_shown};
use crate::settings::{COLS, ROWS, Settings};

/// Tokens of the long answer.
const TOKENS: usize = 20_000;

/// The model luxe is pointed at (any of the catalogue's, so the usage line has a cost).
const MODEL: &str = "anthropic/claude-sonnet-4-5";

/// An answer of `tokens` text deltas, `tok0 tok1 …`, reporting them as its output tokens, each
/// event after `pause`.
fn answer(tokens: usize, pause: Duration) -> Reply {
    let deltas = (0..tokens).map(|i| format!("tok{i} ")).collect();
    let usage = ScriptUsage {
        input: 10,
        output: tokens as u64,
        ..ScriptUsage::default()
    };
    let script = Script::new(vec![Part::Text(deltas)], Stop::EndTurn).with_usage(usage);
    Reply::Stream(script.with_delay(pause))
}

/// The figures of one interface run.
struct Shown {
    /// The whole run's CPU time, ms.
    whole: f64,
    /// luxe's CPU time from Enter to the usage line on screen, ms.
    window: f64,
    /// The wall time from Enter to the usage line on screen.
    wall: Duration,
    /// Frames drawn meanwhile (synchronized updates) and bytes written to the terminal.
    frames: u64,
    bytes: u64,
}

fn interface(server: &ModelServer, settings: &Settings, tokens: usize) -> Result<Shown, String> {
    let dirs = Dirs::new();
    let mut cmd = command(&dirs.home(), &dirs.work(), &["--model", MODEL]);
    cmd.env("ANTHROPIC_API_KEY", "k");
    cmd.env("ANTHROPIC_BASE_URL", server.anthropic_base_url());
    let before = waited_children_cpu_ms();
    let mut term = Terminal::spawn(cmd, COLS, ROWS).map_err(|e| e.to_string())?;
    term.wait_for(settings.wait, composer_shown)?;
    // The start-up probes (git, the working directory) end before the answer is asked for.
    term.settle(settings.settle, settings.wait);
    server.push(answer(tokens, settings.stream_pause));
    // Every read of the stream would compare whole screens for nothing.
    term.track_changes(false);
    let usage_line = format!(" in, {tokens} out");
    let (cpu, (bytes, frames)) = (cpu_on_core_ms(term.pid()), term.output());
    let wall = term.press(b"go\r", settings.wait, move |s| {
        s.contents().contains(&usage_line)
    })?;
    let window = cpu_on_core_ms(term.pid()) - cpu;
    let (bytes_after, frames_after) = term.output();
    term.settle(settings.settle, settings.wait);
    // Ctrl+D on the empty composer quits.
    term.type_bytes(b"\x04");
    match term.wait_exit(settings.wait) {
        Some(0) => {}
        other => return Err(format!("luxe did not quit with 0 after Ctrl+D: {other:?}")),
    }
    Ok(Shown {
        whole: waited_children_cpu_ms() - before,
        window,
        wall,
        frames: frames_after - frames,
        bytes: bytes_after - bytes,
    })
}

/// The CPU time of a whole run of `cmd` (its stdout to `/dev/null`), ms.
fn whole_run(mut cmd: Command) -> Result<f64, String> {
    let before = waited_children_cpu_ms();
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{:?}: {e}", cmd.get_program()))?;
    if !status.success() {
        return Err(format!("{:?} ended with {status}", cmd.get_program()));
    }
    Ok(waited_children_cpu_ms() - before)
}

fn print_mode(server: &ModelServer, settings: &Settings, tokens: usize) -> Result<f64, String> {
    let dirs = Dirs::new();
    server.push(answer(tokens, settings.stream_pause));
    let mut cmd = Command::new(luxe_bin());
    cmd.args(["-p", "go", "--model", MODEL])
        .current_dir(dirs.work())
        .env("HOME", dirs.home())
        .env_remove("LUXE_HOME")
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url());
    whole_run(cmd)
}

fn curl(server: &ModelServer, settings: &Settings, tokens: usize) -> Result<f64, String> {
    server.push(answer(tokens, settings.stream_pause));
    let body = r#"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"}],"stream":true}"#;
    let mut cmd = Command::new("curl");
    cmd.args([
        "-sS",
        "-N",
        "-o",
        "/dev/null",
        "-H",
        "content-type: application/json",
    ])
    .args(["--data-binary", body])
    .arg(format!("{}/v1/messages", server.anthropic_base_url()));
    whole_run(cmd)
}

/// The medians of each side's samples (with the long answer, with the short one) and their
/// difference.
fn cost(sides: [Vec<f64>; 2]) -> Option<(f64, f64, f64)> {
    let [long, short] = sides;
    let (long, short) = (median_of(long)?, median_of(short)?);
    Some((long - short, long, short))
}

/// Keeps a counted sample, or why it failed.
fn keep<T>(
    result: Result<T, String>,
    into: &mut Vec<T>,
    failures: &mut Vec<String>,
    counted: bool,
) {
    match result {
        Ok(sample) if counted => into.push(sample),
        Ok(_) => {}
        Err(why) => failures.push(why),
    }
}

/// Measures and prints the section.
pub fn report(settings: &Settings) {
    let server = ModelServer::start();
    let mut shown: [Vec<Shown>; 2] = Default::default();
    let mut printed: [Vec<f64>; 2] = Default::default();
    let mut read: [Vec<f64>; 2] = Default::default();
    let mut failures = Vec::new();
    for run in 0..=settings.runs {
        // The first round warms up (the page cache, the server's threads) and is not counted.
        let counted = run > 0;
        for (side, tokens) in [(0, TOKENS), (1, 1)] {
            let f = &mut failures;
            keep(
                interface(&server, settings, tokens),
                &mut shown[side],
                f,
                counted,
            );
            keep(
                print_mode(&server, settings, tokens),
                &mut printed[side],
                f,
                counted,
            );
            keep(curl(&server, settings, tokens), &mut read[side], f, counted);
        }
    }
    let windows = median_of(shown[0].iter().map(|s| s.window).collect());
    let wall = median_of(shown[0].iter().map(|s| s.wall).collect());
    let frames = median_of(shown[0].iter().map(|s| s.frames).collect());
    let bytes = median_of(shown[0].iter().map(|s| s.bytes).collect());
    let [long, short] = shown;
    let wholes = |runs: Vec<Shown>| runs.into_iter().map(|s| s.whole).collect();
    let figures = [
        ("luxe (the interface)", cost([wholes(long), wholes(short)])),
        ("luxe -p > /dev/null", cost(printed)),
        ("curl -N > /dev/null", cost(read)),
    ];
    println!(
        "\nstream of {TOKENS} tokens: the CPU time it cost each client (a whole run with it minus \
         one with a 1-token answer; medians of {})",
        settings.runs
    );
    for (name, figure) in &figures {
        match figure {
            Some((cost, long, short)) => println!(
                "  {name:<22} {cost:>8.1} ms   (runs: {long:.1} ms with it, {short:.1} ms with 1 token)"
            ),
            None => println!("  {name:<22} not measured"),
        }
    }
    if let [
        (_, Some((shown, ..))),
        (_, Some((printed, ..))),
        (_, Some((read, ..))),
    ] = figures
    {
        println!(
            "  the interface against luxe -p: {:+.0}%, against curl: {:+.0}% (target: under 15% more)",
            (shown / printed - 1.0) * 100.0,
            (shown / read - 1.0) * 100.0
        );
    }
    if let (Some(cpu), Some(wall), Some(frames), Some(bytes)) = (windows, wall, frames, bytes) {
        println!(
            "  the interface from Enter to the usage line on screen: {cpu:.1} ms of its CPU time, \
             {:.1} ms wall, {frames} frames, {} KiB written to the terminal",
            ms(wall),
            bytes / 1024
        );
    }
    if let Some(why) = failures.first() {
        println!("  {} runs failed: {why}", failures.len());
    }
}
