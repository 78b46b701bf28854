//! The host: the client's requests, the sessions they open, and luxe's own requests to the
//! client (permission prompts, questions, its file system). Every message it writes for a
//! session passes that session's redaction gate; one of no session (an error answer, which may
//! echo what the client sent) passes every hosted session's.
//!
//! This file keeps the [`Host`] and what it knows of each session, routes the client's
//! requests, notifications and answers and io's results, answers `initialize`, closes
//! sessions and writes messages. The rooms: `opening.rs` (opening and listing sessions),
//! `prompts.rs` (a prompt from queue to answer), `updates.rs` (a session's outputs pumped into
//! updates, chunks and effects), `session_config.rs` (mode and options), `permissions.rs` and
//! `questions.rs` (asking the client), `client_fs.rs` (the client's file system).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};

use crate::config::Config;
use crate::effects::{EffectId, Input, Message, Output};
use crate::model::catalogue::ProviderAccess;
use crate::protocol::actions::{Action, SubmitUserMessage};
use crate::protocol::codec;
use crate::protocol::events::StateChanged;
use crate::redact::Redactor;
use crate::session::Session;

use super::PROTOCOL_VERSION;
use super::effects_table::{EffectTable, Owner, Slot};
use super::jsonrpc::{self, Incoming, RpcError, code};
use super::messages::{ClientCapabilities, Params};
use super::translate::Translator;

/// What a session is doing for the client's prompt.
#[derive(Debug, Clone, PartialEq)]
enum Running {
    /// A turn for the prompt of this request id.
    Turn { request: Value, tag: String },
    /// `/compact`, as the prompt of this request id.
    Compact { request: Value, tag: String },
}

/// One session and what the host knows of it.
#[derive(Debug)]
struct Hosted {
    /// Shared with every chunk written for it.
    id: Arc<str>,
    session: Session,
    redactor: Redactor,
    translator: Translator,
    state: Option<StateChanged>,
    running: Option<Running>,
    queue: VecDeque<(Value, SubmitUserMessage)>,
    /// `session/cancel` came: prompts queued behind the running one answer `cancelled` too.
    cancel_queue: bool,
    title: Option<String>,
    title_sent: bool,
    /// What the client last heard of the mode and options, so a change it did not ask for is
    /// announced.
    announced: (String, Value),
    /// While the client's own `set_mode` or `set_config_option` is carried out: its answer
    /// says what changed, so no update does.
    quiet: bool,
    /// When a running call's output last went out, and when what came since is due.
    output_sent: Option<Instant>,
    output_due: Option<Instant>,
}

impl Hosted {
    /// `session/cancel`, or the session's end: a running turn is interrupted, and the prompts
    /// queued behind the running one answer `cancelled` with it.
    fn cancel(&mut self, now: Instant) {
        self.cancel_queue = true;
        if matches!(self.running, Some(Running::Turn { .. })) {
            self.session
                .handle_incoming(now, action(None, Action::InterruptTurn));
        }
    }
}

mod client_fs;
mod opening;
mod permissions;
mod prompts;
mod questions;
mod session_config;
mod updates;

use opening::{Listing, OpenKind, Opening};

/// A request luxe sent the client.
#[derive(Debug, Clone)]
enum Asked {
    /// `session/request_permission` for a session's prompt.
    Permission { slot: Slot, perm_id: String },
    /// `fs/read_text_file` for a session's read (its effect id, the most bytes it wants, and
    /// the identity io found for the file).
    Read {
        slot: Slot,
        id: EffectId,
        max_bytes: u64,
        identity: Option<crate::effects::FileIdentity>,
    },
    /// `fs/write_text_file` for a session's replacement of a file.
    Write { slot: Slot, id: EffectId },
    /// `elicitation/create` for a session's `ask_user` question.
    Question { slot: Slot, question_id: String },
}

impl Asked {
    fn slot(&self) -> Slot {
        match self {
            Self::Permission { slot, .. }
            | Self::Read { slot, .. }
            | Self::Write { slot, .. }
            | Self::Question { slot, .. } => *slot,
        }
    }
}

/// The multi-session host.
#[derive(Debug)]
pub(crate) struct Host {
    base: Config,
    access: ProviderAccess,
    initialized: bool,
    client: ClientCapabilities,
    sessions: BTreeMap<Slot, Hosted>,
    by_id: HashMap<String, Slot>,
    next_slot: Slot,
    table: EffectTable,
    opening: BTreeMap<EffectId, Opening>,
    listing: BTreeMap<EffectId, Listing>,
    asked: BTreeMap<u64, Asked>,
    opened_files: client_fs::OpenedFiles,
    next_request: u64,
    next_tag: u64,
    outputs: VecDeque<Output>,
    closed: bool,
}

impl Host {
    pub(crate) fn new(base: Config) -> Self {
        Self {
            access: base.providers.access(),
            base,
            initialized: false,
            client: ClientCapabilities::default(),
            sessions: BTreeMap::new(),
            by_id: HashMap::new(),
            next_slot: 0,
            table: EffectTable::default(),
            opening: BTreeMap::new(),
            listing: BTreeMap::new(),
            asked: BTreeMap::new(),
            opened_files: BTreeMap::new(),
            next_request: 0,
            next_tag: 0,
            outputs: VecDeque::new(),
            closed: false,
        }
    }

    pub(crate) fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.sessions
            .values()
            .flat_map(|h| [h.session.poll_timeout(), h.output_due])
            .flatten()
            .min()
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        let slots: Vec<Slot> = self.sessions.keys().copied().collect();
        for slot in slots {
            if let Some(hosted) = self.sessions.get_mut(&slot) {
                hosted.session.handle_timeout(now);
            }
            self.pump(now, slot);
            if self
                .sessions
                .get(&slot)
                .and_then(|h| h.output_due)
                .is_some_and(|due| due <= now)
            {
                self.send_output(now, slot);
            }
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Ends every session (their pending records are still written) and the process.
    pub(crate) fn close(&mut self, now: Instant, code: i32) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        let slots: Vec<Slot> = self.sessions.keys().copied().collect();
        for slot in slots {
            self.end_session(now, slot);
        }
        // Every request gets its answer, even one that waited for io.
        let waiting: Vec<Value> = (std::mem::take(&mut self.opening)
            .into_values()
            .map(|o| o.request))
        .chain(
            std::mem::take(&mut self.listing)
                .into_values()
                .map(|l| l.request),
        )
        .collect();
        for request in waiting {
            let error = RpcError::new(code::INTERNAL_ERROR, "the agent is shutting down");
            self.answer(request, Err(error));
        }
        self.outputs.push_back(Output::Exit { code });
    }

    /// Answers a line that is not a message with `error` under a `null` id.
    pub(crate) fn refuse_line(&mut self, error: RpcError) {
        self.answer(Value::Null, Err(error));
    }

    pub(crate) fn handle_line(&mut self, now: Instant, line: &[u8]) {
        if self.closed {
            return;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match jsonrpc::parse(line) {
            Err((id, error)) => self.answer(id, Err(error)),
            Ok(Incoming::Request { id, method, params }) => {
                if let Some(answer) = self.request(now, &id, &method, &params) {
                    self.answer(id, answer);
                }
            }
            Ok(Incoming::Notification { method, params }) => {
                if method == "session/cancel" {
                    self.cancel(now, &params);
                }
                // Any other notification (`$/cancel_request`, extensions) is ignored.
            }
            Ok(Incoming::Response { id, result }) => self.client_answered(now, &id, result),
        }
    }

    /// Answers a request now, or returns `None` when the answer comes later.
    fn request(
        &mut self,
        now: Instant,
        id: &Value,
        method: &str,
        params: &Value,
    ) -> Option<Result<Value, RpcError>> {
        let p = Params::new(method, params);
        if method != "initialize" && !self.initialized && method.starts_with("session/") {
            return Some(Err(RpcError::new(
                code::INVALID_REQUEST,
                "initialize first: the connection is not initialized",
            )));
        }
        let answer = match method {
            "initialize" => self.initialize(&p, params),
            "authenticate" => Ok(json!({})),
            "session/new" => return self.open(id, &p, OpenKind::New),
            "session/load" => {
                let session = p.string("sessionId").map(str::to_owned);
                return match session {
                    Ok(session) => self.open(id, &p, OpenKind::Load(session)),
                    Err(e) => Some(Err(e)),
                };
            }
            "session/resume" => {
                let session = p.string("sessionId").map(str::to_owned);
                return match session {
                    Ok(session) => self.open(id, &p, OpenKind::Resume(session)),
                    Err(e) => Some(Err(e)),
                };
            }
            "session/list" => return self.list(id, &p),
            "session/close" => self.close_session(now, &p),
            "session/prompt" => return self.prompt(now, id, &p),
            "session/set_mode" => self.set_mode(now, &p),
            "session/set_config_option" => self.set_config_option(now, &p, params),
            _ => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("{method:?} is not a method of this agent"),
            )),
        };
        Some(answer)
    }

    fn initialize(&mut self, p: &Params<'_>, params: &Value) -> Result<Value, RpcError> {
        let asked = p.integer("protocolVersion")?;
        self.client = ClientCapabilities::read(params);
        self.initialized = true;
        // The client's version when this build speaks it, else ours (the client decides).
        let version = if u64::try_from(asked) == Ok(PROTOCOL_VERSION) {
            asked
        } else {
            PROTOCOL_VERSION as i64
        };
        Ok(json!({
            "protocolVersion": version,
            "agentInfo": {"name": "luxe", "title": "Luxe", "version": self.base.luxe_version},
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": false},
                "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
            },
            "authMethods": [],
        }))
    }

    pub(crate) fn handle_effect(&mut self, now: Instant, input: Input<'_>) {
        if self.closed {
            return;
        }
        let Some((owner, input)) = self.table.inward(input) else {
            return;
        };
        match owner {
            Owner::Session(slot, inner) => {
                self.note_opened(slot, inner, &input);
                if let Some(hosted) = self.sessions.get_mut(&slot) {
                    hosted.session.handle_effect(now, input);
                    self.pump(now, slot);
                }
            }
            Owner::Host => self.own_effect(now, input),
        }
    }

    fn hosted(&self, p: &Params<'_>) -> Result<Slot, RpcError> {
        let id = p.string("sessionId")?;
        self.by_id
            .get(id)
            .copied()
            .ok_or_else(|| RpcError::unknown_session(id))
    }

    fn close_session(&mut self, now: Instant, p: &Params<'_>) -> Result<Value, RpcError> {
        let slot = self.hosted(p)?;
        self.end_session(now, slot);
        Ok(json!({}))
    }

    /// Ends a session: its turn is interrupted (its prompt answers `cancelled`), its records
    /// are written, and what it still runs is stopped.
    fn end_session(&mut self, now: Instant, slot: Slot) {
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            hosted.cancel(now);
            self.pump(now, slot);
        }
        let Some(mut hosted) = self.sessions.remove(&slot) else {
            return;
        };
        hosted.session.close(0);
        while let Some(output) = hosted.session.poll_output() {
            if matches!(output, Output::AppendFile { .. } | Output::SyncFile { .. }) {
                let output = self.table.outward(slot, output);
                self.outputs.push_back(output);
            }
        }
        let redactor = hosted.redactor.clone();
        if let Some(Running::Turn { request, .. } | Running::Compact { request, .. }) =
            hosted.running.take()
        {
            self.write(
                jsonrpc::response(request, Ok(json!({"stopReason": "cancelled"}))),
                &redactor,
            );
        }
        for (request, _) in hosted.queue.drain(..) {
            self.write(
                jsonrpc::response(request, Ok(json!({"stopReason": "cancelled"}))),
                &redactor,
            );
        }
        self.by_id.remove(&*hosted.id);
        self.asked.retain(|_, asked| asked.slot() != slot);
        self.opened_files.retain(|(s, _), _| *s != slot);
        for outer in self.table.forget(slot) {
            // Whatever it was, io ends it or ignores the id.
            self.outputs.push_back(Output::Kill { id: outer });
            self.outputs.push_back(Output::CancelHttp { id: outer });
            self.outputs
                .push_back(Output::CloseOpened { handle: outer });
        }
    }

    fn client_answered(&mut self, now: Instant, id: &Value, result: Result<Value, RpcError>) {
        // An id luxe never sent (or one already settled) is dropped, and said in the log.
        let Some(asked) = id.as_u64().and_then(|id| self.asked.remove(&id)) else {
            let id = match id.as_u64() {
                Some(n) => n.to_string(),
                None => "that is not a number".into(),
            };
            let line = format!(
                "dropped the client's answer to id {id}: luxe sent no such request, or it was settled"
            );
            return self.outputs.push_back(Output::Log(line));
        };
        match asked {
            Asked::Permission { slot, perm_id } => {
                self.permission_answered(now, slot, perm_id, result);
            }
            Asked::Question { slot, question_id } => {
                self.question_answered(now, slot, question_id, result);
            }
            other => self.fs_answered(now, other, result),
        }
    }

    fn answer(&mut self, id: Value, result: Result<Value, RpcError>) {
        self.write_for_all(jsonrpc::response(id, result));
    }

    /// Writes a message that belongs to no one session, through every session's gate.
    fn write_for_all(&mut self, json: Value) {
        let redactors = self.sessions.values().map(|h| h.redactor.clone()).collect();
        self.outputs
            .push_back(Output::Message(Message::gated_by_all(json, redactors)));
    }

    fn write(&mut self, json: Value, redactor: &Redactor) {
        self.outputs
            .push_back(Output::Message(Message::new(json, redactor)));
    }
}

/// An action for a session, tagged so that its refusal can be told apart.
fn action(request_id: Option<String>, action: Action) -> codec::Incoming {
    codec::Incoming { request_id, action }
}
