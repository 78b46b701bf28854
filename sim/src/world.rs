//! One run of the whole system from one source of choices: two `--rpc` sessions (each with
//! flags and settings of its own), an `--acp` host, the terminal interface and MCP servers,
//! side by side on one virtual clock, each step given to one of them. Every door checks its promises after
//! every step (a failure panics); the run keeps a transcript of every step and what it showed,
//! so that two runs of one seed can be compared whole, and the kinds of step it took.

use std::collections::BTreeSet;
use std::time::Instant;

use serde_json::json;

use crate::draw::Draw;
use crate::{acp, interface, mcp, rpc};

/// What one run did.
#[derive(Debug, Default, PartialEq)]
pub struct Run {
    /// Every step and what it showed, in order.
    pub transcript: Vec<String>,
    /// The kinds of step that did something (`rpc Submit`, `acp Prompt`, `ui Resize`, …): a
    /// step that found nothing to act on (a model answer with no request waiting) is not
    /// counted.
    pub reached: BTreeSet<String>,
}

/// Every kind of step the simulator can take, by the names [`Run::reached`] uses.
pub const KINDS: &[&str] = &[
    "rpc Submit",
    "rpc Compact",
    "rpc Steer",
    "rpc Interrupt",
    "rpc AutoApprove",
    "rpc Reply",
    "rpc Model",
    "rpc Effect",
    "rpc Advance",
    "rpc Review",
    "rpc Restart",
    "acp New",
    "acp Prompt",
    "acp Cancel",
    "acp SetMode",
    "acp SetThinking",
    "acp Permission",
    "acp Fs",
    "acp Question",
    "acp Effect",
    "acp Settle",
    "acp Model",
    "acp Garbage",
    "acp Close",
    "acp Load",
    "acp List",
    "acp Advance",
    "ui Type",
    "ui Command",
    "ui Key",
    "ui Paste",
    "ui Resize",
    "ui Wheel",
    "ui Effect",
    "ui Model",
    "ui Advance",
    "mcp Server",
    "clock",
];

/// The kind of a step from its `Debug` form: the variant's name (none for the clock).
fn kind(door: &str, debug: &str) -> String {
    let name = debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or(debug);
    if name.is_empty() {
        door.to_owned()
    } else {
        format!("{door} {name}")
    }
}

/// Takes `step` of `door` by `act`: the transcript names it while it runs (so a broken promise
/// is shown at the step that broke it), then says what it showed; its kind is reached when
/// `act` says it did something.
fn took(run: &mut Run, door: &str, step: String, act: impl FnOnce() -> (String, bool)) {
    run.transcript.push(format!("{door} {step} …"));
    let (showed, acted) = act();
    run.transcript.pop();
    if acted {
        run.reached.insert(kind(door, &step));
    }
    run.transcript.push(format!("{door} {step} → {showed}"));
}

/// Runs `steps` steps drawn from `draw`. Panics (with the step that broke it last in the
/// transcript, which [`crate::run_seed`] prints) when a promise is broken.
pub fn run(draw: &mut impl Draw, steps: usize, transcript: &mut Run) {
    let now = Instant::now();
    let mut sessions = [
        rpc::World::with(&rpc::Setup::draw(draw)),
        rpc::World::with(&rpc::Setup::draw(draw)),
    ];
    let mut host = acp::Host::start(now, (draw.bool(), draw.bool()));
    let (width, height) = (40 + draw.below(120) as u16, 6 + draw.below(50) as u16);
    let mut terminal = interface::Terminal::start(now, width, height);
    for _ in 0..steps {
        match draw.below(12) {
            0..=3 => {
                let which = draw.below(2) as usize;
                let op = rpc::Op::draw(draw);
                let session = &mut sessions[which];
                took(transcript, "rpc", format!("{op:?}"), || {
                    let fed = session.fed();
                    session.step(&op);
                    let shown = format!("{which}: {}", session.take_shown().join(" "));
                    (shown, session.fed() != fed)
                });
            }
            4..=7 => {
                let op = acp::Op::draw(draw);
                took(transcript, "acp", format!("{op:?}"), || {
                    let acted = host.step(&op);
                    (json!(host.take_seen()).to_string(), acted)
                });
                if host.is_closed() {
                    host = acp::Host::start(now, (draw.bool(), draw.bool()));
                }
            }
            8 | 9 => {
                let op = interface::Op::draw(draw);
                took(transcript, "ui", format!("{op:?}"), || {
                    let fed = terminal.fed();
                    let frame = format!("frame {:016x}", terminal.step(&op));
                    (frame, terminal.fed() != fed)
                });
                if terminal.is_closed() {
                    terminal = interface::Terminal::start(now, width, height);
                }
            }
            10 => {
                let server = mcp::Server::draw(draw);
                took(
                    transcript,
                    "mcp",
                    format!("Server {:?}", server.lines),
                    || {
                        server.run(now);
                        ("ok".into(), true)
                    },
                );
            }
            _ => {
                // Time passes for everyone at once.
                let ms = draw.below(5000) as u16;
                took(transcript, "clock", format!("+{ms} ms"), || {
                    for session in &mut sessions {
                        session.step(&rpc::Op::Advance(ms));
                    }
                    host.step(&acp::Op::Advance(ms));
                    terminal.step(&interface::Op::Advance(ms));
                    (String::new(), true)
                });
            }
        }
    }
    // Whatever state they are in: each rpc session still answers, and the ACP host answers
    // every request it was sent once everything is settled.
    for session in &mut sessions {
        session.line(json!({"kind":"interrupt_turn"}));
        session.line(json!({"kind":"set_mode","content":{"mode":"plan"}}));
    }
    host.finish();
}
