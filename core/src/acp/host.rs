//! The host: the client's requests, the sessions they open, and luxe's own requests to the
//! client (permission prompts). Every message it writes for a session passes that session's
//! redaction gate; one of no session (an error answer, which may echo what the client sent)
//! passes every hosted session's.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::config::Config;
use crate::effects::{EffectId, Input, Output};
use crate::model::catalogue::ProviderAccess;
use crate::permissions::redact::Redactor;
use crate::protocol::actions::{
    Action, Compact, RespondPermission, SetMode, SetModel, SetThinking, SubmitUserMessage,
};
use crate::protocol::codec;
use crate::protocol::events::StateChanged;
use crate::protocol::values::{PermissionReply, TurnEndReason};
use crate::session::Session;

use super::PROTOCOL_VERSION;
use super::chunk::{Chunk, ChunkKind};
use super::effects_table::{EffectTable, Owner, Slot};
use super::jsonrpc::{self, Incoming, Message, RpcError, code};
use super::messages::{ClientCapabilities, Params};
use super::modes::{self, ConfigChange};
use super::prompt::user_message;
use super::translate::{self, Sorted, Step, Translator};

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

/// The least time between two updates of running calls' output in one session: a command's
/// output reaches the client at most this late, and costs it at most
/// [`translate::RUNNING_TAIL_BYTES`](super::translate::RUNNING_TAIL_BYTES) per call this often.
const OUTPUT_EVERY: Duration = Duration::from_millis(100);

mod client_fs;
mod opening;

use opening::{Listing, OpenKind, Opening};
mod questions;

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
            hosted.cancel_queue = true;
            if matches!(hosted.running, Some(Running::Turn { .. })) {
                hosted
                    .session
                    .handle_incoming(now, action(None, Action::InterruptTurn));
            }
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

    fn prompt(
        &mut self,
        now: Instant,
        request: &Value,
        p: &Params<'_>,
    ) -> Option<Result<Value, RpcError>> {
        let slot = match self.hosted(p) {
            Ok(slot) => slot,
            Err(e) => return Some(Err(e)),
        };
        let message = match p.array("prompt").and_then(user_message) {
            Ok(message) => message,
            Err(e) => return Some(Err(e)),
        };
        let hosted = self.sessions.get_mut(&slot)?;
        if hosted.running.is_some() {
            hosted.queue.push_back((request.clone(), message));
            return None;
        }
        self.run(now, slot, request.clone(), message);
        None
    }

    /// Runs a prompt: a turn, or `/compact`.
    fn run(&mut self, now: Instant, slot: Slot, request: Value, message: SubmitUserMessage) {
        self.next_tag += 1;
        let tag = format!("acp_{}", self.next_tag);
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let text = message.text.trim();
        if let Some(rest) = text
            .strip_prefix("/compact")
            .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
        {
            let instructions = Some(rest.trim().to_owned()).filter(|r| !r.is_empty());
            hosted.running = Some(Running::Compact {
                request,
                tag: tag.clone(),
            });
            let compact = Action::Compact(Compact {
                request_id: tag.clone(),
                instructions,
            });
            hosted
                .session
                .handle_incoming(now, action(Some(tag), compact));
        } else {
            if hosted.title.is_none() {
                hosted.title = Some(message.text.chars().take(80).collect());
            }
            hosted.running = Some(Running::Turn {
                request,
                tag: tag.clone(),
            });
            let submit = Action::SubmitUserMessage(message);
            hosted
                .session
                .handle_incoming(now, action(Some(tag), submit));
        }
        self.pump(now, slot);
    }

    fn cancel(&mut self, now: Instant, params: &Value) {
        let p = Params::new("session/cancel", params);
        let Ok(slot) = self.hosted(&p) else {
            return;
        };
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            if hosted.running.is_none() {
                return;
            }
            hosted.cancel_queue = true;
            if matches!(hosted.running, Some(Running::Turn { .. })) {
                hosted
                    .session
                    .handle_incoming(now, action(None, Action::InterruptTurn));
            }
        }
        self.pump(now, slot);
    }

    fn set_mode(&mut self, now: Instant, p: &Params<'_>) -> Result<Value, RpcError> {
        let slot = self.hosted(p)?;
        let mode_id = p.string("modeId")?;
        let hosted = self
            .sessions
            .get_mut(&slot)
            .ok_or_else(|| RpcError::unknown_session(""))?;
        let state = hosted
            .state
            .clone()
            .ok_or_else(|| RpcError::new(code::INTERNAL_ERROR, "the session has no state yet"))?;
        let (permission_mode, mode) = modes::parse_mode(mode_id, &state)?;
        if let Some(permission_mode) = permission_mode
            && permission_mode != state.permission_mode
        {
            hosted
                .session
                .set_permission_mode(permission_mode)
                .map_err(RpcError::invalid_params)?;
        }
        if mode != state.mode {
            hosted
                .session
                .handle_incoming(now, action(None, Action::SetMode(SetMode { mode })));
        }
        self.quietly(now, slot);
        Ok(json!({}))
    }

    fn set_config_option(
        &mut self,
        now: Instant,
        p: &Params<'_>,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let slot = self.hosted(p)?;
        let config_id = p.string("configId")?;
        let value = params.get("value").cloned().unwrap_or(Value::Null);
        let access = self.access;
        let hosted = self
            .sessions
            .get_mut(&slot)
            .ok_or_else(|| RpcError::unknown_session(""))?;
        let state = hosted
            .state
            .clone()
            .ok_or_else(|| RpcError::new(code::INTERNAL_ERROR, "the session has no state yet"))?;
        let offered = modes::config_options(&state, access);
        let change = match modes::parse_config(config_id, &value, &offered)? {
            ConfigChange::Model(model) => Action::SetModel(SetModel { model }),
            ConfigChange::Thinking(thinking) => Action::SetThinking(SetThinking { thinking }),
        };
        hosted.session.handle_incoming(now, action(None, change));
        self.quietly(now, slot);
        let hosted = self
            .sessions
            .get(&slot)
            .ok_or_else(|| RpcError::unknown_session(""))?;
        Ok(json!({"configOptions": hosted.announced.1}))
    }

    /// Pumps a session after the client's own change, which its answer reports.
    fn quietly(&mut self, now: Instant, slot: Slot) {
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            hosted.quiet = true;
        }
        self.pump(now, slot);
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            hosted.quiet = false;
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
        let (slot, perm_id) = match asked {
            Asked::Permission { slot, perm_id } => (slot, perm_id),
            Asked::Question { slot, question_id } => {
                return self.question_answered(now, slot, question_id, result);
            }
            other => return self.fs_answered(now, other, result),
        };
        let outcome = result.ok();
        let outcome = outcome.as_ref().and_then(|r| r.get("outcome"));
        let chosen = outcome
            .filter(|o| o.get("outcome").and_then(Value::as_str) == Some("selected"))
            .and_then(|o| o.get("optionId"))
            .and_then(Value::as_str);
        let cancelled = outcome
            .and_then(|o| o.get("outcome"))
            .and_then(Value::as_str)
            == Some("cancelled");
        let reply = match chosen {
            Some("allow_once") => PermissionReply::Once,
            Some("allow_always") => PermissionReply::Always,
            _ => PermissionReply::Reject,
        };
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let respond = Action::RespondPermission(RespondPermission {
            id: perm_id,
            reply,
            message: None,
        });
        hosted.session.handle_incoming(now, action(None, respond));
        if cancelled {
            hosted.cancel_queue = true;
            hosted
                .session
                .handle_incoming(now, action(None, Action::InterruptTurn));
        }
        self.pump(now, slot);
    }

    /// Takes every output the session has, translating its frames.
    fn pump(&mut self, now: Instant, slot: Slot) {
        loop {
            let Some(hosted) = self.sessions.get_mut(&slot) else {
                return;
            };
            let Some(output) = hosted.session.poll_output() else {
                return;
            };
            match output {
                Output::Frame(frame) => match translate::sort(frame.into_event()) {
                    Sorted::Chunk(kind, text) => self.chunk(slot, kind, text),
                    Sorted::Other(event) => {
                        for step in hosted.translator.steps(event) {
                            self.step(now, slot, step);
                        }
                    }
                },
                // The session was closed through the host; the host decides about the process.
                Output::Exit { .. } => {}
                effect => {
                    self.note_open(slot, &effect);
                    if let Some(effect) = self.through_client(slot, effect) {
                        let effect = self.table.outward(slot, effect);
                        self.outputs.push_back(effect);
                    }
                }
            }
        }
    }

    fn step(&mut self, now: Instant, slot: Slot, step: Step) {
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        match step {
            Step::Update(update) => self.update(slot, update),
            Step::Chunk(kind, text) => self.chunk(slot, kind, text),
            Step::OutputGrew => {
                let due = hosted.output_sent.map(|sent| sent + OUTPUT_EVERY);
                match due.filter(|due| *due > now) {
                    Some(due) => hosted.output_due = Some(due),
                    None => self.send_output(now, slot),
                }
            }
            Step::Ask {
                perm_id,
                tool_call,
                always_rule,
            } => {
                self.next_request += 1;
                let id = self.next_request;
                self.asked.insert(id, Asked::Permission { slot, perm_id });
                let params = json!({
                    "sessionId": &*hosted.id, "toolCall": tool_call,
                    "options": [
                        {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
                        {"optionId": "allow_always", "name": format!("Always allow {always_rule}"),
                         "kind": "allow_always"},
                        {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
                    ],
                });
                let redactor = hosted.redactor.clone();
                self.write(
                    jsonrpc::request(id, "session/request_permission", params),
                    &redactor,
                );
            }
            Step::Settled(settled) => self.asked.retain(|_, a| {
                !matches!(a, Asked::Permission { slot: s, perm_id } if *s == slot && *perm_id == settled)
            }),
            Step::TurnStarted => {}
            Step::TurnEnded { reason, error } => {
                if !matches!(hosted.running, Some(Running::Turn { .. })) {
                    return;
                }
                let answer = match reason {
                    TurnEndReason::EndTurn => Ok("end_turn"),
                    TurnEndReason::MaxTokens => Ok("max_tokens"),
                    TurnEndReason::Refusal => Ok("refusal"),
                    TurnEndReason::Interrupted => Ok("cancelled"),
                    TurnEndReason::Error => Err(RpcError::new(
                        code::INTERNAL_ERROR,
                        error.unwrap_or_else(|| "the turn failed".into()),
                    )),
                };
                self.finish(now, slot, answer);
            }
            Step::Compacted(ended) => {
                let ours = matches!(&hosted.running, Some(Running::Compact { tag, .. }) if Some(tag) == ended.request_id.as_ref());
                if !ours {
                    return;
                }
                let answer = match ended.error {
                    Some(error) => Err(RpcError::new(code::INTERNAL_ERROR, error)),
                    None => {
                        let text = format!(
                            "Compacted the conversation: about {} tokens became {}.",
                            ended.tokens_before, ended.tokens_after
                        );
                        self.chunk(slot, ChunkKind::Agent, text);
                        Ok("end_turn")
                    }
                };
                self.finish(now, slot, answer);
            }
            Step::State(state) => {
                let mode = modes::mode_id(&state).to_owned();
                let options = modes::config_options(&state, self.access);
                let first = hosted.state.is_none();
                hosted.state = Some(state);
                if first || hosted.quiet {
                    hosted.announced = (mode, options);
                    return;
                }
                let mode_changed = hosted.announced.0 != mode;
                let options_changed = hosted.announced.1 != options;
                hosted.announced = (mode.clone(), options.clone());
                if mode_changed {
                    self.update(
                        slot,
                        json!({"sessionUpdate": "current_mode_update", "currentModeId": mode}),
                    );
                }
                if options_changed {
                    self.update(
                        slot,
                        json!({"sessionUpdate": "config_option_update", "configOptions": options}),
                    );
                }
            }
            Step::Rejected(rejected) => {
                let ours = match &hosted.running {
                    Some(Running::Turn { tag, .. } | Running::Compact { tag, .. }) => {
                        rejected.request_id.as_ref() == Some(tag)
                    }
                    None => false,
                };
                if ours {
                    self.finish(
                        now,
                        slot,
                        Err(RpcError::new(code::INTERNAL_ERROR, rejected.reason)),
                    );
                }
            }
            Step::Question(asked) => self.ask_question(now, slot, asked),
            Step::QuestionSettled(settled) => self.asked.retain(|_, a| {
                !matches!(a, Asked::Question { slot: s, question_id } if *s == slot && *question_id == settled)
            }),
        }
    }

    /// Answers the running prompt (the title first, once), then the cancelled queue, then
    /// starts the next.
    fn finish(&mut self, now: Instant, slot: Slot, answer: Result<&str, RpcError>) {
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let Some(Running::Turn { request, .. } | Running::Compact { request, .. }) =
            hosted.running.take()
        else {
            return;
        };
        if !hosted.title_sent
            && let Some(title) = hosted.title.clone()
        {
            hosted.title_sent = true;
            self.update(
                slot,
                json!({"sessionUpdate": "session_info_update", "title": title}),
            );
        }
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let redactor = hosted.redactor.clone();
        let cancelled = std::mem::take(&mut hosted.cancel_queue);
        let mut later = Vec::new();
        if cancelled {
            later.extend(hosted.queue.drain(..).map(|(r, _)| r));
        }
        let next = hosted.queue.pop_front();
        let result = answer.map(|reason| json!({"stopReason": reason}));
        self.write(jsonrpc::response(request, result), &redactor);
        for request in later {
            self.write(
                jsonrpc::response(request, Ok(json!({"stopReason": "cancelled"}))),
                &redactor,
            );
        }
        if let Some((request, message)) = next {
            self.run(now, slot, request, message);
        }
    }

    /// Sends `update` for the session in `slot`.
    fn update(&mut self, slot: Slot, update: Value) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        let params = json!({"sessionId": &*hosted.id, "update": update});
        let redactor = hosted.redactor.clone();
        self.write(jsonrpc::notification("session/update", params), &redactor);
    }

    /// Sends what running calls printed since the client last saw their output.
    fn send_output(&mut self, now: Instant, slot: Slot) {
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        hosted.output_due = None;
        hosted.output_sent = Some(now);
        for update in hosted.translator.running_output() {
            self.update(slot, update);
        }
    }

    /// Sends a text chunk for the session in `slot`. Text that comes while the chunk before it
    /// is still unwritten (deltas read from the model in one piece) joins that chunk: the
    /// client gets the same text in fewer lines, and a model that streams faster than the
    /// client reads costs it less, never later.
    fn chunk(&mut self, slot: Slot, kind: ChunkKind, text: String) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        if let Some(Output::Message(last)) = self.outputs.back_mut()
            && last.extend_chunk(&hosted.id, kind, &text)
        {
            return;
        }
        let chunk = Chunk {
            session_id: Arc::clone(&hosted.id),
            kind,
            text,
        };
        self.outputs
            .push_back(Output::Message(Message::chunk(chunk, &hosted.redactor)));
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
