//! A simulated `luxe --acp` host: a client (any of its requests, notifications and answers,
//! garbage among them), io and the model played against `luxe_core::acp::checked::Checked`,
//! which checks ACP's promises after every step (every request answered once, no update before
//! its session or after its prompt's answer, every permission settled once, no `.env` value on
//! a line).

use std::time::{Duration, Instant};

use luxe_core::acp::checked::{Checked, DIRS, Model};
use serde_json::{Value, json};

use crate::draw::Draw;

/// One step of a random client, io and model.
#[derive(Debug, Clone)]
pub enum Op {
    /// `session/new` in one of the directories (3: a relative path, refused).
    New(u8),
    /// `session/prompt` to a session: `/compact` when the second number is a multiple of 8,
    /// else a message, whose answer is a tool call (the number picks which) but one time in
    /// seven.
    Prompt(u8, u8),
    /// `session/cancel`.
    Cancel(u8),
    /// `session/set_mode` (the last of six is unknown).
    SetMode(u8, u8),
    /// `session/set_config_option` of thinking.
    SetThinking(u8),
    /// Answers the oldest permission request: which option.
    Permission(u8),
    /// Answers the oldest file request (`true`: as it asked).
    Fs(bool),
    /// Answers the oldest question: which option.
    Question(u8),
    /// io performs its oldest effect (`true`: as a healthy machine would).
    Effect(bool),
    /// io catches up: every effect that waits is performed as a healthy machine would (at
    /// most [`SETTLE_MOST`]), so that a prompt gets past its session's start-up to its tools.
    Settle,
    /// How the model answers from now on.
    Model(u8),
    /// A line that is not JSON-RPC.
    Garbage(u8),
    /// `session/close`.
    Close(u8),
    /// `session/load`.
    Load(u8),
    /// `session/list`.
    List,
    /// The clock moves this many milliseconds.
    Advance(u16),
}

impl Op {
    /// A step, drawn.
    pub fn draw(g: &mut impl Draw) -> Self {
        let small = |g: &mut dyn FnMut() -> u8| g() % 4;
        let mut byte = || g.byte();
        // A prompt's tool call reaches its permission prompt, file request or question only
        // after several io answers in order: effects are drawn often, and what ends a prompt
        // (a cancel, a close, `/compact`) less.
        match byte() % 16 {
            0 => Op::New(small(&mut byte)),
            1 | 2 => Op::Prompt(small(&mut byte), byte()),
            3 if byte().is_multiple_of(2) => Op::Cancel(small(&mut byte)),
            3 => Op::Close(small(&mut byte)),
            4 => Op::SetMode(small(&mut byte), byte() % 6),
            5 => Op::SetThinking(small(&mut byte)),
            6 if byte().is_multiple_of(2) => Op::Permission(byte() % 5),
            7 if byte().is_multiple_of(2) => Op::Fs(!byte().is_multiple_of(4)),
            6 | 7 => Op::Question(byte() % 3),
            8..=10 => Op::Effect(!byte().is_multiple_of(8)),
            11 => Op::Settle,
            12 => Op::Model(byte()),
            13 => Op::Garbage(byte()),
            14 if byte().is_multiple_of(2) => Op::Load(small(&mut byte)),
            14 => Op::List,
            _ => Op::Advance(u16::from_le_bytes([byte(), byte()]) % 3000),
        }
    }
}

impl quickcheck::Arbitrary for Op {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        Self::draw(g)
    }
}

/// The most effects one [`Op::Settle`] performs: a tool loop could otherwise go on.
const SETTLE_MOST: usize = 32;

/// The host and the client that drives it.
#[derive(Debug)]
pub struct Host {
    checked: Checked,
}

impl Host {
    /// A host initialized by a client that reads and writes files itself (`client_fs`) and
    /// can ask the person questions (`elicitation`), or not.
    pub fn start(now: Instant, (client_fs, elicitation): (bool, bool)) -> Self {
        let mut checked = Checked::new(now);
        let fs = json!({"readTextFile": client_fs, "writeTextFile": client_fs});
        let mut caps = json!({"fs": fs});
        if elicitation {
            caps["elicitation"] = json!({"form": {}});
        }
        checked.request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": caps}),
        );
        Self { checked }
    }

    /// Whether the host exited.
    pub fn is_closed(&self) -> bool {
        self.checked.is_closed()
    }

    /// The messages the host wrote since the last call.
    pub fn take_seen(&mut self) -> Vec<Value> {
        self.checked.take_seen()
    }

    /// One of the sessions made so far (`none` before the first).
    fn pick(&self, n: u8) -> String {
        let created = &self.checked.created;
        if created.is_empty() {
            "none".to_owned()
        } else {
            created[usize::from(n) % created.len()].clone()
        }
    }

    /// Does `op` as the ACP client or io would; the agent's messages are checked as they
    /// come. `false` when it found nothing to do (an answer with nothing asked, an effect with
    /// none waiting).
    pub fn step(&mut self, op: &Op) -> bool {
        let c = &mut self.checked;
        match *op {
            Op::New(dir) => {
                let cwd = if dir == 3 {
                    "relative"
                } else {
                    DIRS[usize::from(dir) % 2]
                };
                c.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
            }
            Op::Prompt(n, what) => {
                let session = self.pick(n);
                let compact = what % 8 == 0;
                if what % 8 >= 2 {
                    self.checked.model = Model::Tool(what / 8);
                }
                let text = if compact { "/compact" } else { "go" };
                self.checked.request(
                    "session/prompt",
                    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
                );
            }
            Op::Cancel(n) => {
                let session = self.pick(n);
                self.checked
                    .notify("session/cancel", json!({"sessionId": session}));
            }
            Op::SetMode(n, mode) => {
                let session = self.pick(n);
                let mode = [
                    "default",
                    "accept-edits",
                    "plan",
                    "bypass",
                    "read-only",
                    "x",
                ][usize::from(mode % 6)];
                self.checked.request(
                    "session/set_mode",
                    json!({"sessionId": session, "modeId": mode}),
                );
            }
            Op::SetThinking(n) => {
                let session = self.pick(n);
                self.checked.request(
                    "session/set_config_option",
                    json!({"sessionId": session, "configId": "thinking", "value": "low"}),
                );
            }
            Op::Permission(choice) => return c.answer_permission(choice),
            Op::Question(choice) => return c.answer_question(choice),
            Op::Fs(ok) => return c.answer_fs(ok),
            Op::Effect(ok) => return c.effect(ok),
            Op::Settle => {
                let performed = (0..SETTLE_MOST).take_while(|_| c.effect(true)).count();
                return performed > 0;
            }
            Op::Model(m) => {
                // Tool calls most often: only they lead to permission prompts, file requests
                // and questions, each a chain of steps a run must draw in order.
                c.model = match m % 8 {
                    0 => Model::Text,
                    1 => Model::Fail,
                    2 => Model::Hang,
                    _ => Model::Tool(m / 8),
                }
            }
            Op::Garbage(g) => c.garbage(&[b'{', g]),
            Op::Close(n) => {
                let session = self.pick(n);
                self.checked
                    .request("session/close", json!({"sessionId": session}));
            }
            Op::Load(n) => {
                let session = self.pick(n);
                self.checked.request(
                    "session/load",
                    json!({"sessionId": session, "cwd": DIRS[0], "mcpServers": []}),
                );
            }
            Op::List => {
                c.request("session/list", json!({"cwd": DIRS[0]}));
            }
            Op::Advance(ms) => c.advance(Duration::from_millis(u64::from(ms))),
        }
        true
    }

    /// Answers everything that waits until nothing does, closes stdin, and checks that every
    /// request was answered.
    pub fn finish(mut self) {
        self.checked.finish();
    }
}
