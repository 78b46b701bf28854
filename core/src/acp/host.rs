//! The host: the client's requests, the sessions they open, and luxe's own requests to the
//! client (permission prompts). Every message it writes for a session passes that session's
//! redaction gate; its own (initialize, errors about no session) pass an empty one.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Instant;

use serde_json::{Value, json};

use crate::config::{Config, SessionFile};
use crate::effects::{EffectId, Input, Output};
use crate::model::catalogue::ProviderAccess;
use crate::permissions::redact::Redactor;
use crate::protocol::actions::{
    Action, Compact, RespondPermission, SetMode, SetModel, SetThinking, SubmitUserMessage,
};
use crate::protocol::codec;
use crate::protocol::events::{SessionSummary, StateChanged};
use crate::protocol::values::{PermissionReply, TurnEndReason};
use crate::session::Session;

use super::PROTOCOL_VERSION;
use super::effects_table::{EffectTable, Owner, Slot};
use super::jsonrpc::{self, Incoming, Message, RpcError, code};
use super::messages::{ClientCapabilities, McpServer, Params};
use super::modes::{self, ConfigChange};
use super::prompt::user_message;
use super::site::Site;
use super::translate::{Step, Translator};

/// The most bytes of a session file read for `session/load` and `resume`.
const SESSION_FILE_MAX: u64 = 1 << 30;

/// Sessions one `session/list` page holds.
const LIST_PAGE: usize = 50;

/// How a session is being opened.
#[derive(Debug, Clone, PartialEq, Eq)]
enum OpenKind {
    New,
    /// `session/load` of this id: replay, then answer.
    Load(String),
    /// `session/resume` of this id: answer, no replay.
    Resume(String),
}

/// A `session/new`, `load` or `resume` waiting for io.
#[derive(Debug)]
struct Opening {
    request: Value,
    kind: OpenKind,
    mcp_servers: Vec<McpServer>,
    site: Option<Site>,
}

/// A `session/list` waiting for the store to be read.
#[derive(Debug)]
struct Listing {
    request: Value,
    cwd: Option<String>,
    offset: usize,
}

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
    id: String,
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
    /// Kept for when MCP lands: the servers the client asked for.
    #[allow(dead_code)]
    mcp_servers: Vec<McpServer>,
}

mod client_fs;
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
    /// For messages that belong to no session.
    plain: Redactor,
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
            plain: Redactor::default(),
            closed: false,
        }
    }

    pub(crate) fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.sessions
            .values()
            .filter_map(|h| h.session.poll_timeout())
            .min()
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        let slots: Vec<Slot> = self.sessions.keys().copied().collect();
        for slot in slots {
            if let Some(hosted) = self.sessions.get_mut(&slot) {
                hosted.session.handle_timeout(now);
            }
            self.pump(now, slot);
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
                // `mcpCapabilities` is advertised once MCP servers are started (see messages.rs).
                "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
            },
            "authMethods": [],
        }))
    }

    /// Starts opening a session: io looks at the directory first.
    fn open(
        &mut self,
        request: &Value,
        p: &Params<'_>,
        kind: OpenKind,
    ) -> Option<Result<Value, RpcError>> {
        let checked = (|| {
            let cwd = p.cwd()?.to_owned();
            let mcp_servers = p.mcp_servers(matches!(kind, OpenKind::New | OpenKind::Load(_)))?;
            if let OpenKind::Load(id) | OpenKind::Resume(id) = &kind {
                crate::store::file_name(id)
                    .map_err(|e| RpcError::invalid_params(format!("`sessionId`: {e}")))?;
                let opening = self.opening.values().any(|o| {
                    matches!(&o.kind, OpenKind::Load(other) | OpenKind::Resume(other) if other == id)
                });
                if self.by_id.contains_key(id) || opening {
                    return Err(RpcError::invalid_params(format!(
                        "session {id:?} is already open in this agent"
                    )));
                }
                if self.base.sessions_dir.is_none() {
                    return Err(RpcError::new(
                        code::RESOURCE_NOT_FOUND,
                        "no sessions are kept (no LUXE_HOME and no home directory)",
                    ));
                }
            }
            Ok((cwd, mcp_servers))
        })();
        let (cwd, mcp_servers) = match checked {
            Ok(checked) => checked,
            Err(e) => return Some(Err(e)),
        };
        let id = self.table.own();
        self.opening.insert(
            id,
            Opening {
                request: request.clone(),
                kind,
                mcp_servers,
                site: None,
            },
        );
        self.outputs.push_back(Output::PrepareSite { id, cwd });
        None
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

    fn own_effect(&mut self, now: Instant, input: Input<'_>) {
        match input {
            Input::SitePrepared { id, result } => {
                let Some(mut opening) = self.opening.remove(&id) else {
                    return;
                };
                let site = match result {
                    Ok(site) => *site,
                    Err(reason) => {
                        return self.answer(
                            opening.request,
                            Err(RpcError::invalid_params(format!("`cwd`: {reason}"))),
                        );
                    }
                };
                match &opening.kind {
                    OpenKind::New => self.start(now, opening, site, None),
                    OpenKind::Load(session) | OpenKind::Resume(session) => {
                        let (Some(dir), Ok(name)) =
                            (&self.base.sessions_dir, crate::store::file_name(session))
                        else {
                            return;
                        };
                        let path = format!("{dir}/{name}");
                        let read = self.table.own();
                        opening.site = Some(site);
                        self.opening.insert(read, opening);
                        self.outputs.push_back(Output::ReadFile {
                            id: read,
                            path,
                            max_bytes: SESSION_FILE_MAX,
                        });
                    }
                }
            }
            Input::FileRead { id, result } => {
                let Some(mut opening) = self.opening.remove(&id) else {
                    return;
                };
                let Some(site) = opening.site.take() else {
                    return;
                };
                let (OpenKind::Load(session) | OpenKind::Resume(session)) = &opening.kind else {
                    return;
                };
                let file = match result {
                    Ok(content) => content.bytes,
                    Err(_) => {
                        let error = RpcError::new(
                            code::RESOURCE_NOT_FOUND,
                            format!("no stored session {session:?}"),
                        );
                        return self.answer(opening.request, Err(error));
                    }
                };
                let path = format!(
                    "{}/{}",
                    self.base.sessions_dir.as_deref().unwrap_or_default(),
                    crate::store::file_name(session).unwrap_or_default()
                );
                let resume = SessionFile { path, bytes: file };
                self.start(now, opening, site, Some(resume));
            }
            Input::SessionsRead { id, result } => {
                if let Some(listing) = self.listing.remove(&id) {
                    self.listed(listing, result);
                }
            }
            _ => {}
        }
    }

    /// Starts the session and answers its opening request.
    fn start(&mut self, now: Instant, opening: Opening, site: Site, resume: Option<SessionFile>) {
        let config = site.config(&self.base, resume);
        let session = match Session::start(&config, now) {
            Ok(session) => session,
            Err(err) => {
                let error = RpcError::new(code::INTERNAL_ERROR, err.0);
                return self.answer(opening.request, Err(error));
            }
        };
        let id = session.id().to_owned();
        let slot = self.next_slot;
        self.next_slot += 1;
        let redactor = session.redactor().clone();
        self.sessions.insert(
            slot,
            Hosted {
                id: id.clone(),
                session,
                redactor,
                translator: Translator::new(
                    &site.cwd,
                    !matches!(opening.kind, OpenKind::Resume(_)),
                ),
                state: None,
                running: None,
                queue: VecDeque::new(),
                cancel_queue: false,
                title: None,
                title_sent: false,
                announced: (String::new(), Value::Null),
                quiet: false,
                mcp_servers: opening.mcp_servers,
            },
        );
        self.by_id.insert(id.clone(), slot);
        // A load's replay goes out here, before its answer.
        self.pump(now, slot);
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let Some(state) = hosted.state.clone() else {
            return;
        };
        let modes = modes::modes(&state);
        let options = modes::config_options(&state, self.access);
        hosted.announced = (modes::mode_id(&state).to_owned(), options.clone());
        let mut result = json!({"modes": modes, "configOptions": options});
        if opening.kind == OpenKind::New {
            result["sessionId"] = json!(id);
        }
        let redactor = hosted.redactor.clone();
        self.write(jsonrpc::response(opening.request, Ok(result)), &redactor);
        let commands = json!({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "compact", "description": "Summarise the older conversation to free context",
             "input": {"hint": "what the summary should keep"}},
        ]});
        self.update(slot, commands);
    }

    fn list(&mut self, request: &Value, p: &Params<'_>) -> Option<Result<Value, RpcError>> {
        let parsed = (|| {
            let cwd = p.opt_string("cwd")?.map(str::to_owned);
            let offset = match p.opt_string("cursor")? {
                Some(cursor) => cursor.parse::<usize>().map_err(|_| {
                    RpcError::invalid_params("session/list: `cursor` is not one this agent gave")
                })?,
                None => 0,
            };
            Ok((cwd, offset))
        })();
        let (cwd, offset) = match parsed {
            Ok(parsed) => parsed,
            Err(e) => return Some(Err(e)),
        };
        let Some(dir) = self.base.sessions_dir.clone() else {
            return Some(Ok(json!({"sessions": []})));
        };
        let id = self.table.own();
        self.listing.insert(
            id,
            Listing {
                request: request.clone(),
                cwd,
                offset,
            },
        );
        self.outputs.push_back(Output::ReadSessions { id, dir });
        None
    }

    fn listed(&mut self, listing: Listing, result: Result<Vec<(String, Vec<u8>, u64)>, String>) {
        let files = match result {
            Ok(files) => files,
            Err(reason) => {
                let error = RpcError::new(
                    code::INTERNAL_ERROR,
                    format!("the sessions could not be listed: {reason}"),
                );
                return self.answer(listing.request, Err(error));
            }
        };
        // Every directory's when no `cwd` is given: each file names its own.
        let mut found: Vec<(String, SessionSummary)> = Vec::new();
        let cwds: Vec<String> = match &listing.cwd {
            Some(cwd) => vec![cwd.clone()],
            None => {
                let mut cwds: Vec<String> = files
                    .iter()
                    .filter_map(|(_, bytes, _)| {
                        let first = bytes.split(|b| *b == b'\n').next()?;
                        crate::store::header(first).map(|(_, cwd, _)| cwd)
                    })
                    .collect();
                cwds.sort();
                cwds.dedup();
                cwds
            }
        };
        // Titles are the sessions' first user text, which may quote any hosted session's `.env`.
        for cwd in cwds {
            for summary in crate::store::summaries(&files, &cwd, &|t| self.redact_all(t)) {
                found.push((cwd.clone(), summary));
            }
        }
        found.sort_by(|a, b| {
            b.1.updated
                .cmp(&a.1.updated)
                .then_with(|| b.1.id.cmp(&a.1.id))
        });
        let page: Vec<Value> = found
            .iter()
            .skip(listing.offset)
            .take(LIST_PAGE)
            .map(|(cwd, s)| {
                let mut info =
                    json!({"sessionId": s.id, "cwd": cwd, "updatedAt": rfc3339(s.updated)});
                if !s.title.is_empty() {
                    info["title"] = json!(s.title);
                }
                info
            })
            .collect();
        let mut result = json!({"sessions": page});
        if listing.offset + LIST_PAGE < found.len() {
            result["nextCursor"] = json!((listing.offset + LIST_PAGE).to_string());
        }
        let plain = self.plain.clone();
        self.write(jsonrpc::response(listing.request, Ok(result)), &plain);
    }

    /// `text` with every hosted session's secrets cut out, for what may quote any session.
    fn redact_all(&self, text: &str) -> String {
        self.sessions.values().fold(text.to_owned(), |text, h| {
            h.redactor.redact(&text).into_owned()
        })
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
        self.by_id.remove(&hosted.id);
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
        // An id luxe never sent (or one already settled) is dropped.
        let Some(asked) = id.as_u64().and_then(|id| self.asked.remove(&id)) else {
            return;
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
                Output::Frame(frame) => {
                    let steps = hosted.translator.steps(frame.event());
                    for step in steps {
                        self.step(now, slot, step);
                    }
                }
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
            Step::Ask {
                perm_id,
                tool_call,
                always_rule,
            } => {
                self.next_request += 1;
                let id = self.next_request;
                self.asked.insert(id, Asked::Permission { slot, perm_id });
                let params = json!({
                    "sessionId": hosted.id, "toolCall": tool_call,
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
                        self.update(
                            slot,
                            json!({"sessionUpdate": "agent_message_chunk",
                            "content": {"type": "text", "text": text}}),
                        );
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
        let params = json!({"sessionId": hosted.id, "update": update});
        let redactor = hosted.redactor.clone();
        self.write(jsonrpc::notification("session/update", params), &redactor);
    }

    fn answer(&mut self, id: Value, result: Result<Value, RpcError>) {
        let plain = self.plain.clone();
        self.write(jsonrpc::response(id, result), &plain);
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

/// Seconds since the epoch as RFC 3339 UTC.
fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil(i64::try_from(days).unwrap_or(0));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 as a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    (era * 400 + yoe + i64::from(m <= 2), m, d)
}
