//! One server's life: started, the handshake (`initialize`, `notifications/initialized`),
//! `tools/list` page by page, ready; re-listed on `notifications/tools/list_changed`; failed
//! with a reason when it exits, hangs past its timeout or writes garbage — every call it holds
//! then fails with that reason — and started again by a later call, after a backoff that grows
//! with each failure in a row.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::config::{ServerConfig, Transport};
use super::http::HttpLink;
use super::jsonrpc::{self, Lines, Message, RpcError};
use super::results::{CallOutcome, outcome};
use super::{CallId, Io, McpEvent, McpSettings};
use crate::effects::{EffectId, Input, Output, Stream};

/// The MCP version luxe asks for: the newest the official servers speak.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Every version luxe accepts in the server's answer: those the official TypeScript SDK still
/// speaks, 2024-11-05 onward.
pub const ACCEPTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The most `tools/list` pages one listing may take: a server that pages for ever is broken.
const MAX_PAGES: usize = 100;

/// The most of a server's stderr kept, for the reason it failed.
const STDERR_TAIL: usize = 2000;

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Started; the handshake or the first listing is under way.
    Starting,
    /// Its tools are known and calls go to it.
    Ready,
    /// It exited, hung or broke the protocol; a later call starts it again.
    Failed(String),
    /// The session ended it.
    Stopped,
}

/// A tool a server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The server's own name for it.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// Its argument schema (a JSON Schema object).
    pub input_schema: Value,
    /// Whether the server annotates it `readOnlyHint: true` (untrusted: it only narrows what
    /// is offered, never skips a prompt).
    pub read_only: bool,
}

/// What a request to the server is for.
#[derive(Debug, Clone, PartialEq)]
enum Purpose {
    Initialize,
    ListTools,
    Call(CallId),
}

#[derive(Debug)]
struct Pending {
    purpose: Purpose,
    deadline: Instant,
}

/// One configured server and what luxe knows of it.
#[derive(Debug)]
pub struct Server {
    pub(super) config: ServerConfig,
    pub(super) status: Status,
    /// The running process, for a stdio server.
    process: Option<EffectId>,
    /// Processes luxe killed whose exit has not come yet: their late output is dropped.
    retired: Vec<EffectId>,
    /// The HTTP side, for an http server that was started.
    http: Option<HttpLink>,
    lines: Lines,
    stderr: String,
    next_request: u64,
    pending: BTreeMap<u64, Pending>,
    /// The tools of the last complete listing.
    pub(super) tools: Vec<Tool>,
    /// A listing under way: the pages so far and the cursors seen.
    listing: Option<(Vec<Tool>, Vec<String>)>,
    /// `list_changed` arrived while a listing ran: list again after it.
    relist: bool,
    /// What was left out of the last listing, and why.
    pub(super) notes: Vec<String>,
    /// Calls that wait for the server to be ready, with their tool and arguments.
    queued: Vec<(CallId, String, Value)>,
    /// Whether [`Server::start`] ran once.
    launched: bool,
    /// Failures in a row, for the backoff.
    failures: u32,
    /// No restart before this.
    retry_at: Option<Instant>,
}

impl Server {
    /// A server not started yet.
    pub fn new(config: ServerConfig) -> Self {
        Self {
            config,
            status: Status::Starting,
            process: None,
            retired: Vec::new(),
            http: None,
            lines: Lines::default(),
            stderr: String::new(),
            next_request: 0,
            pending: BTreeMap::new(),
            tools: Vec::new(),
            listing: None,
            relist: false,
            notes: Vec::new(),
            queued: Vec::new(),
            launched: false,
            failures: 0,
            retry_at: None,
        }
    }

    /// Whether it was ever started.
    pub fn launched(&self) -> bool {
        self.launched
    }

    /// Whether `id` is this server's running process.
    pub fn owns(&self, id: EffectId) -> bool {
        self.process == Some(id)
    }

    /// Whether `id` is a process of this server that luxe killed: its late output is dropped,
    /// and it is forgotten once its exit comes (`exited`).
    pub fn retired(&mut self, id: EffectId, exited: bool) -> bool {
        let found = self.retired.contains(&id);
        if exited {
            self.retired.retain(|r| *r != id);
        }
        found
    }

    fn kill(&mut self, io: &mut Io<'_>) {
        if let Some(id) = self.process.take() {
            io.push(Output::Kill { id });
            self.retired.push(id);
        }
        if let Some(mut http) = self.http.take() {
            http.close(io);
        }
    }

    /// Whether `id` is one of this server's HTTP requests.
    pub fn owns_post(&self, id: EffectId) -> bool {
        self.http.as_ref().is_some_and(|http| http.owns(id))
    }

    /// One of this server's HTTP requests got an answer (or failed).
    pub fn http_input(
        &mut self,
        now: Instant,
        input: &Input<'_>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let Some(http) = self.http.as_mut() else {
            return Vec::new();
        };
        let messages = match input {
            Input::HttpHeaders { id, headers } => {
                http.headers(*id, headers);
                Ok(Vec::new())
            }
            Input::HttpResponse { id, status, .. } => {
                http.status(*id, *status);
                Ok(Vec::new())
            }
            Input::HttpBody { id, bytes } => http.body(*id, bytes),
            Input::HttpEnded { id } => http.ended(*id),
            Input::HttpFailed { id, error } => match http.failed(*id, error) {
                Some(why) => Err(why),
                None => Ok(Vec::new()),
            },
            _ => Ok(Vec::new()),
        };
        match messages {
            Ok(messages) => self.messages(now, messages, settings, io),
            Err(why) => self.fail(now, why, settings, io),
        }
    }

    fn timeout(&self, settings: &McpSettings) -> Duration {
        self.config.timeout.unwrap_or(settings.timeout)
    }

    /// Starts the process and sends `initialize`.
    pub fn start(
        &mut self,
        now: Instant,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.status = Status::Starting;
        self.launched = true;
        self.lines = Lines::default();
        self.stderr.clear();
        let (command, args, env, cwd) = match &self.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => (command, args, env, cwd),
            Transport::Http { url, headers } => {
                match settings.expand_all(headers, "header") {
                    Ok(headers) => self.http = Some(HttpLink::new(url.clone(), headers)),
                    Err(why) => return self.fail(now, why, settings, io),
                }
                self.initialize(now, settings, io);
                return Vec::new();
            }
        };
        let mut environment = settings.env.inherited();
        match settings.expand_all(env, "env") {
            Ok(env) => environment.extend(env),
            Err(why) => return self.fail(now, why, settings, io),
        }
        let id = io.id();
        self.process = Some(id);
        io.push(Output::SpawnPiped {
            id,
            program: command.clone(),
            args: args.clone(),
            cwd: cwd.clone().unwrap_or_else(|| settings.cwd.clone()),
            env: environment,
        });
        self.initialize(now, settings, io);
        Vec::new()
    }

    fn initialize(&mut self, now: Instant, settings: &McpSettings, io: &mut Io<'_>) {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "luxe", "version": settings.client_version},
        });
        self.request(now, Purpose::Initialize, "initialize", params, settings, io);
    }

    /// Sends a request and remembers what it is for.
    fn request(
        &mut self,
        now: Instant,
        purpose: Purpose,
        method: &str,
        params: Value,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) {
        self.next_request += 1;
        let id = self.next_request;
        let deadline = now + self.timeout(settings);
        self.pending.insert(id, Pending { purpose, deadline });
        self.send(jsonrpc::request(id, method, params), Some(id), io);
    }

    /// Sends one message (`request`: its id when it is a request).
    fn send(&mut self, mut bytes: Vec<u8>, request: Option<u64>, io: &mut Io<'_>) {
        if let Some(id) = self.process {
            bytes.push(b'\n');
            io.push(Output::WriteStdin { id, bytes });
        } else if let Some(http) = &mut self.http {
            http.post(bytes, request, io);
        }
    }

    /// The process wrote `bytes` on `stream`.
    pub fn output(
        &mut self,
        now: Instant,
        stream: Stream,
        bytes: &[u8],
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        if stream == Stream::Stderr {
            self.stderr.push_str(&String::from_utf8_lossy(bytes));
            if self.stderr.len() > STDERR_TAIL * 2 {
                let mut cut = self.stderr.len() - STDERR_TAIL;
                while !self.stderr.is_char_boundary(cut) {
                    cut += 1;
                }
                self.stderr.drain(..cut);
            }
            return Vec::new();
        }
        match self.lines.push(bytes) {
            Ok(lines) => self.messages(now, lines, settings, io),
            Err(why) => self.fail(now, why, settings, io),
        }
    }

    /// Messages the server wrote, in order; the first broken one fails it.
    fn messages(
        &mut self,
        now: Instant,
        lines: Vec<Vec<u8>>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let mut events = Vec::new();
        for line in lines {
            let message = match jsonrpc::parse(&line) {
                Ok(message) => message,
                Err(why) => {
                    events.extend(self.fail(now, why, settings, io));
                    return events;
                }
            };
            events.extend(self.message(now, message, settings, io));
            if matches!(self.status, Status::Failed(_)) {
                break;
            }
        }
        events
    }

    fn message(
        &mut self,
        now: Instant,
        message: Message,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        match message {
            Message::Response { id, outcome } => match self.pending.remove(&id) {
                Some(pending) => self.answered(now, pending.purpose, outcome, settings, io),
                None => Vec::new(),
            },
            Message::Request { id, method } => {
                let answer = match method.as_str() {
                    "ping" => Ok(json!({})),
                    _ => Err(RpcError {
                        code: jsonrpc::METHOD_NOT_FOUND,
                        message: format!("luxe does not offer {method}"),
                    }),
                };
                self.send(jsonrpc::response(&id, answer), None, io);
                Vec::new()
            }
            Message::Notification { method, params } => match method.as_str() {
                "notifications/tools/list_changed" if self.status == Status::Ready => {
                    if self.listing.is_some() {
                        self.relist = true;
                    } else {
                        self.list(now, None, settings, io);
                    }
                    Vec::new()
                }
                "notifications/progress" => self.progress(now, &params, settings),
                _ => Vec::new(),
            },
        }
    }

    /// A call's progress: shown, and its wait starts again (a long call that reports is alive).
    fn progress(&mut self, now: Instant, params: &Value, settings: &McpSettings) -> Vec<McpEvent> {
        let Some(token) = params.get("progressToken").and_then(Value::as_u64) else {
            return Vec::new();
        };
        let timeout = self.timeout(settings);
        let Some(pending) = self
            .pending
            .values_mut()
            .find(|p| p.purpose == Purpose::Call(CallId(token)))
        else {
            return Vec::new();
        };
        pending.deadline = now + timeout;
        let number = |key: &str| {
            params
                .get(key)
                .filter(|v| v.is_number())
                .map(Value::to_string)
        };
        let mut text = match (number("progress"), number("total")) {
            (Some(done), Some(total)) => format!("progress {done}/{total}"),
            (Some(done), None) => format!("progress {done}"),
            _ => "progress".to_owned(),
        };
        if let Some(message) = params.get("message").and_then(Value::as_str) {
            text.push_str(": ");
            text.push_str(message);
        }
        text.push('\n');
        vec![McpEvent::Progress {
            call: CallId(token),
            text,
        }]
    }

    fn answered(
        &mut self,
        now: Instant,
        purpose: Purpose,
        answer: Result<Value, RpcError>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        match (purpose, answer) {
            (Purpose::Initialize, Ok(result)) => {
                let version = result.get("protocolVersion").and_then(Value::as_str);
                match version {
                    Some(v) if ACCEPTED_VERSIONS.contains(&v) => {}
                    Some(v) => {
                        let why = format!(
                            "it speaks MCP version {v:?}, which luxe does not (luxe speaks {})",
                            ACCEPTED_VERSIONS.join(", ")
                        );
                        return self.fail(now, why, settings, io);
                    }
                    None => {
                        let why = "its initialize answer names no protocolVersion".to_owned();
                        return self.fail(now, why, settings, io);
                    }
                }
                if let (Some(http), Some(version)) = (&mut self.http, version) {
                    http.negotiated(version);
                }
                self.send(
                    jsonrpc::notification("notifications/initialized", None),
                    None,
                    io,
                );
                if result.pointer("/capabilities/tools").is_some() {
                    self.list(now, None, settings, io);
                    Vec::new()
                } else {
                    self.listed(now, Vec::new(), settings, io)
                }
            }
            (Purpose::Initialize, Err(error)) => {
                let why = format!("it refused initialize: {}", error.message);
                self.fail(now, why, settings, io)
            }
            (Purpose::ListTools, Ok(result)) => self.page(now, &result, settings, io),
            (Purpose::ListTools, Err(error)) => {
                let why = format!("it refused tools/list: {}", error.message);
                self.fail(now, why, settings, io)
            }
            (Purpose::Call(call), Ok(result)) => vec![McpEvent::Finished {
                call,
                outcome: outcome(&result),
            }],
            (Purpose::Call(call), Err(error)) => vec![McpEvent::Finished {
                call,
                outcome: CallOutcome::failed(format!(
                    "{} answered with an error: {}",
                    self.config.name, error.message
                )),
            }],
        }
    }

    /// Asks for a page of tools.
    fn list(
        &mut self,
        now: Instant,
        cursor: Option<String>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let (_, cursors) = self.listing.get_or_insert_with(Default::default);
        cursors.extend(cursor);
        self.request(now, Purpose::ListTools, "tools/list", params, settings, io);
    }

    /// A page of `tools/list`: the next is asked for, or the listing is complete.
    fn page(
        &mut self,
        now: Instant,
        result: &Value,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let (mut tools, cursors) = self.listing.take().unwrap_or_default();
        let Some(listed) = result.get("tools").and_then(Value::as_array) else {
            let why = "its tools/list answer has no tools array".to_owned();
            return self.fail(now, why, settings, io);
        };
        let mut notes = if cursors.is_empty() {
            Vec::new()
        } else {
            std::mem::take(&mut self.notes)
        };
        for tool in listed {
            match parse_tool(tool) {
                Ok(tool) => tools.push(tool),
                Err(note) => notes.push(note),
            }
        }
        self.notes = notes;
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) if cursors.iter().any(|c| c == next) || cursors.len() >= MAX_PAGES => {
                let why = "its tools/list pages never end".to_owned();
                self.fail(now, why, settings, io)
            }
            Some(next) => {
                self.listing = Some((tools, cursors));
                self.list(now, Some(next.to_owned()), settings, io);
                Vec::new()
            }
            None => self.listed(now, tools, settings, io),
        }
    }

    /// A listing is complete: the server is ready, queued calls go out.
    fn listed(
        &mut self,
        now: Instant,
        tools: Vec<Tool>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.tools = tools;
        self.status = Status::Ready;
        self.failures = 0;
        self.retry_at = None;
        let mut events = vec![McpEvent::ServersChanged];
        for (call, tool, args) in std::mem::take(&mut self.queued) {
            events.extend(self.call(now, call, &tool, args, settings, io));
        }
        if std::mem::take(&mut self.relist) {
            self.list(now, None, settings, io);
        }
        events
    }

    /// Calls `tool`; the result comes as [`McpEvent::Finished`], now or later.
    pub fn call(
        &mut self,
        now: Instant,
        call: CallId,
        tool: &str,
        args: Value,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        match &self.status {
            Status::Ready => {
                let params = json!({
                    "name": tool,
                    "arguments": args,
                    "_meta": {"progressToken": call.0},
                });
                self.request(now, Purpose::Call(call), "tools/call", params, settings, io);
                Vec::new()
            }
            Status::Starting => {
                self.queued.push((call, tool.to_owned(), args));
                Vec::new()
            }
            Status::Failed(why) if self.retry_at.is_some_and(|at| at > now) => {
                let wait = self
                    .retry_at
                    .map_or(0, |at| (at - now).as_millis().div_ceil(1000));
                let text = format!(
                    "the MCP server {} failed ({why}); luxe starts it again in {wait} s",
                    self.config.name
                );
                vec![McpEvent::Finished {
                    call,
                    outcome: CallOutcome::failed(text),
                }]
            }
            Status::Failed(_) => {
                self.queued.push((call, tool.to_owned(), args));
                let mut events = self.start(now, settings, io);
                events.push(McpEvent::ServersChanged);
                events
            }
            Status::Stopped => vec![McpEvent::Finished {
                call,
                outcome: CallOutcome::failed(format!(
                    "the MCP server {} was stopped",
                    self.config.name
                )),
            }],
        }
    }

    /// Gives up a call: the server is told (`notifications/cancelled`); no result follows.
    pub fn cancel(&mut self, call: CallId, io: &mut Io<'_>) {
        self.queued.retain(|(queued, _, _)| *queued != call);
        let found = self
            .pending
            .iter()
            .find(|(_, p)| p.purpose == Purpose::Call(call))
            .map(|(id, _)| *id);
        if let Some(id) = found {
            self.pending.remove(&id);
            let params = json!({"requestId": id, "reason": "the user interrupted the call"});
            let note = jsonrpc::notification("notifications/cancelled", Some(params));
            self.send(note, None, io);
            // Over HTTP the call's answer streams on its own POST: that stream is given up too.
            if let Some(http) = &mut self.http {
                http.abandon(id, io);
            }
        }
    }

    /// The process ended.
    pub fn exited(
        &mut self,
        now: Instant,
        status: &Result<Option<i32>, String>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.process = None;
        let mut why = match status {
            Ok(Some(code)) => format!("it exited with status {code}"),
            Ok(None) => "it was killed by a signal".to_owned(),
            Err(err) => format!("it could not start: {err}"),
        };
        let stderr = self.stderr.trim();
        if !stderr.is_empty() {
            let last: String = stderr
                .lines()
                .last()
                .unwrap_or("")
                .chars()
                .take(300)
                .collect();
            why.push_str(&format!(" (its last words: {last})"));
        }
        self.fail(now, why, settings, io)
    }

    /// The earliest deadline of a request in flight.
    pub fn deadline(&self) -> Option<Instant> {
        self.pending.values().map(|p| p.deadline).min()
    }

    /// A request ran out of time: the server is taken as hung.
    pub fn timeout_at(
        &mut self,
        now: Instant,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let late = self
            .pending
            .values()
            .find(|p| p.deadline <= now)
            .map(|p| p.purpose.clone());
        let Some(purpose) = late else {
            return Vec::new();
        };
        let what = match purpose {
            Purpose::Initialize => "initialize",
            Purpose::ListTools => "tools/list",
            Purpose::Call(_) => "a tool call",
        };
        let ms = self.timeout(settings).as_millis();
        self.fail(
            now,
            format!("it did not answer {what} within {ms} ms"),
            settings,
            io,
        )
    }

    /// Marks the server failed for `why`: its process killed, every call it held failed.
    pub fn fail(
        &mut self,
        now: Instant,
        why: String,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.kill(io);
        self.failures = self.failures.saturating_add(1);
        let backoff = settings
            .restart_base
            .saturating_mul(1 << self.failures.min(16).saturating_sub(1));
        self.retry_at = Some(now + backoff.min(settings.restart_max));
        let text = format!("the MCP server {} failed: {why}", self.config.name);
        self.status = Status::Failed(why);
        self.listing = None;
        self.relist = false;
        let mut events = vec![McpEvent::ServersChanged];
        let held = std::mem::take(&mut self.pending)
            .into_values()
            .filter_map(|p| match p.purpose {
                Purpose::Call(call) => Some(call),
                _ => None,
            });
        let queued = std::mem::take(&mut self.queued)
            .into_iter()
            .map(|(call, _, _)| call);
        for call in held.chain(queued) {
            events.push(McpEvent::Finished {
                call,
                outcome: CallOutcome::failed(text.clone()),
            });
        }
        events
    }

    /// Ends the server for good (over HTTP, its session too).
    pub fn stop(&mut self, io: &mut Io<'_>) {
        if let Some(http) = &mut self.http {
            http.end_session(io);
        }
        self.kill(io);
        self.pending.clear();
        self.queued.clear();
        self.status = Status::Stopped;
    }
}

/// A listed tool, or why it is left out (the model cannot be offered a tool without a valid
/// schema: the provider would refuse the whole request).
fn parse_tool(tool: &Value) -> Result<Tool, String> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty());
    let Some(name) = name else {
        return Err("left out a tool without a name".to_owned());
    };
    let schema = tool
        .get("inputSchema")
        .filter(|s| s.is_object() && s.get("type").and_then(Value::as_str) == Some("object"));
    let Some(schema) = schema else {
        return Err(format!(
            "left out the tool {name:?}: its inputSchema is not a JSON Schema object of type \"object\""
        ));
    };
    Ok(Tool {
        name: name.to_owned(),
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        input_schema: schema.clone(),
        read_only: tool
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool)
            == Some(true),
    })
}
