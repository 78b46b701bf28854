//! A checked driver for [`Acp`], shared by the fuzz target and the property tests: it plays
//! client, io and model, and asserts ACP's promises after every step. A panic here is a bug in
//! luxe (or in this file), never an expected outcome.
//!
//! The promises: every request is answered exactly once; no `session/update` for a session
//! before its creation response (but a load's replay), none of a turn's after its prompt's
//! response; every permission request has an id of its own and is settled once; every line is
//! one JSON-RPC message; no `.env` value reaches a line.
//!
//! The rooms: `client.rs` plays the client (requests, notifications, answers to luxe's
//! requests), `promises.rs` checks every line luxe writes, `world.rs` plays io and the model
//! (the tool effects through the shared [`FakeIo`]), and `fuzz.rs` is the fuzz target's body.

mod client;
mod fuzz;
mod promises;
mod world;

pub use fuzz::fuzz;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Acp;
use crate::config::Config;
use crate::effects::{Input, Output};
use crate::harness::fake_io::FakeIo;
use crate::harness::on_fake_anthropic;

/// A secret in every session directory's `.env`.
pub const SECRET: &str = "s3cr3t-value-from-dotenv";

/// The directories sessions are opened in.
pub const DIRS: [&str; 2] = ["/work/a", "/work/b"];

/// How the next model request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Thinking, then text, then the end.
    Text,
    /// A tool call (which tool: its index into a fixed list).
    Tool(u8),
    /// A server error.
    Fail,
    /// Nothing yet: the request hangs until cancelled.
    Hang,
}

/// The config the checked host starts from: Anthropic at a fake address, short waits, a store.
pub fn config() -> Config {
    let mut config = Config::new("0.1.0", "unused", "/");
    on_fake_anthropic(&mut config, "model-key-0123456789");
    config.timings.max_attempts = 1;
    config.sessions_dir = Some("/home/u/.luxe/sessions".into());
    config
}

/// An [`Acp`] whose every output is checked.
#[derive(Debug)]
pub struct Checked {
    acp: Acp,
    now: Instant,
    exited: bool,
    next_id: u64,
    /// Requests sent and not answered: id → (method, session).
    pending: BTreeMap<u64, (String, Option<String>)>,
    /// Answers to expect under a `null` id (lines that were not requests).
    null_answers: usize,
    /// Sessions whose creation was answered.
    open: BTreeSet<String>,
    /// Loads unanswered per session: their replay may come before the answer.
    loading: BTreeMap<String, usize>,
    /// Unanswered prompts per session.
    prompts: BTreeMap<String, usize>,
    /// Permission requests seen, and those not yet answered.
    asked: BTreeSet<u64>,
    unanswered_asks: VecDeque<(u64, String)>,
    /// File requests to the client not yet answered: id, method.
    unanswered_fs: VecDeque<(u64, String)>,
    /// Questions to the client not yet answered: id, the labels offered.
    unanswered_questions: VecDeque<(u64, Vec<String>)>,
    /// Effects io was asked for, not yet answered.
    effects: VecDeque<Output>,
    /// Files io appended to (the store).
    files: BTreeMap<String, Vec<u8>>,
    /// Lines for luxe's log, not yet taken.
    logs: Vec<String>,
    sessions_made: u64,
    /// Every session id a creation answer named, in order.
    pub created: Vec<String>,
    /// The next model behaviour.
    pub model: Model,
    /// Every message luxe wrote, in order.
    pub seen: Vec<Value>,
    /// The body of every model request, in order.
    pub model_requests: Vec<String>,
    /// The files and commands tools reach (what a command prints is `io.command_output`).
    pub io: FakeIo,
    /// Bytes luxe wrote in all.
    pub written: usize,
}

impl Checked {
    /// A host started from [`config`].
    pub fn new(now: Instant) -> Self {
        Self {
            acp: Acp::new(config(), now).expect("a valid config"),
            now,
            exited: false,
            next_id: 0,
            pending: BTreeMap::new(),
            null_answers: 0,
            open: BTreeSet::new(),
            loading: BTreeMap::new(),
            prompts: BTreeMap::new(),
            asked: BTreeSet::new(),
            unanswered_asks: VecDeque::new(),
            unanswered_fs: VecDeque::new(),
            unanswered_questions: VecDeque::new(),
            effects: VecDeque::new(),
            files: BTreeMap::new(),
            logs: Vec::new(),
            sessions_made: 0,
            created: Vec::new(),
            model: Model::Text,
            seen: Vec::new(),
            model_requests: Vec::new(),
            io: FakeIo::new(
                b"hello\n".to_vec(),
                (vec![b"out\n".to_vec()], Duration::ZERO),
            ),
            written: 0,
        }
    }

    /// The messages written since the last call.
    pub fn take_seen(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.seen)
    }

    /// Whether the host exited.
    pub fn is_closed(&self) -> bool {
        self.exited
    }

    /// The lines for luxe's log since the last call.
    pub fn take_logs(&mut self) -> Vec<String> {
        std::mem::take(&mut self.logs)
    }

    /// Feeds an input and checks what comes out.
    pub fn input(&mut self, input: Input<'_>) {
        self.acp.handle_input(self.now, input);
        self.drain();
    }

    /// Moves the clock, running what falls due.
    pub fn advance(&mut self, by: Duration) {
        let target = self.now + by;
        while let Some(deadline) = self.acp.poll_timeout().filter(|d| *d <= target) {
            self.now = self.now.max(deadline);
            self.acp.handle_timeout(self.now);
            self.drain();
        }
        self.now = target;
    }

    /// Answers everything that waits (permissions allowed once) until nothing does, then
    /// closes stdin and checks that every request was answered.
    pub fn finish(&mut self) {
        for _ in 0..10_000 {
            if self.model == Model::Hang {
                self.model = Model::Text;
            }
            let answered =
                self.answer_permission(0) || self.answer_fs(true) || self.answer_question(0);
            if !(answered || self.effect(true)) {
                break;
            }
        }
        self.input(Input::ClientEof);
        assert!(self.exited, "EOF ends the process");
        assert!(
            self.pending.is_empty(),
            "requests never answered: {:?}",
            self.pending
        );
        assert_eq!(self.null_answers, 0, "lines never answered");
    }
}
