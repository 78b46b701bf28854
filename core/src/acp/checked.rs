//! A checked driver for [`Acp`], shared by the fuzz target and the property tests: it plays
//! client, io and model, and asserts ACP's promises after every step. A panic here is a bug in
//! luxe (or in this file), never an expected outcome.
//!
//! The promises: every request is answered exactly once; no `session/update` for a session
//! before its creation response (but a load's replay), none of a turn's after its prompt's
//! response; every permission request has an id of its own and is settled once; every line is
//! one JSON-RPC message; no `.env` value reaches a line.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::config::{Config, EnvFile, Providers};
use crate::effects::{EffectId, FileContent, FileKind, Input, Opened, Output};
use crate::model::wire::Endpoint;

use super::{Acp, Site};

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
    config.model = Some("anthropic/claude-sonnet-4-5".into());
    config.providers = Providers {
        anthropic: Some(Endpoint {
            base_url: "http://model.test".into(),
            api_key: Some("model-key-0123456789".into()),
        }),
        openai: None,
    };
    config.timings.max_attempts = 1;
    config.timings.bash_timeout = Duration::from_millis(2000);
    config.timings.model_idle_timeout = Duration::from_millis(2500);
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
    /// Paths io holds open, by handle.
    opened: BTreeMap<EffectId, String>,
    sessions_made: u64,
    /// Every session id a creation answer named, in order.
    pub created: Vec<String>,
    /// The next model behaviour.
    pub model: Model,
    /// Every message luxe wrote, in order.
    pub seen: Vec<Value>,
    /// The body of every model request, in order.
    pub model_requests: Vec<String>,
    /// What every command prints, chunk by chunk, and the time that passes after each chunk.
    pub command_output: (Vec<Vec<u8>>, Duration),
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
            opened: BTreeMap::new(),
            sessions_made: 0,
            created: Vec::new(),
            model: Model::Text,
            seen: Vec::new(),
            model_requests: Vec::new(),
            command_output: (vec![b"out\n".to_vec()], Duration::ZERO),
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

    /// Sends a request of `method`; returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let session = params
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if !self.exited {
            self.pending
                .insert(id, (method.to_owned(), session.clone()));
            if method == "session/load"
                && let Some(session) = &session
            {
                *self.loading.entry(session.clone()).or_default() += 1;
            }
            if method == "session/prompt"
                && let Some(session) = session
            {
                *self.prompts.entry(session).or_default() += 1;
            }
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.feed_line(line.to_string().as_bytes());
        id
    }

    /// The lines for luxe's log since the last call.
    pub fn take_logs(&mut self) -> Vec<String> {
        std::mem::take(&mut self.logs)
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.feed_line(line.to_string().as_bytes());
    }

    /// Sends a line that is not a request: it gets one answer under a `null` id, unless it is
    /// blank or an object with an id (then under that id, which `raw` must not reuse).
    pub fn garbage(&mut self, line: &[u8]) {
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if !blank && !self.exited {
            self.null_answers += 1;
        }
        self.feed_line(line);
    }

    fn feed_line(&mut self, line: &[u8]) {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        self.input(Input::ClientBytes(&bytes));
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

    fn drain(&mut self) {
        while let Some(output) = self.acp.poll_output() {
            assert!(!self.exited, "an output after exit: {output:?}");
            match output {
                Output::Message(message) => {
                    let mut line = Vec::new();
                    message.encode(&mut line);
                    self.check(&line);
                }
                Output::Frame(frame) => panic!("an --rpc frame in --acp: {:?}", frame.event()),
                Output::Exit { .. } => self.exited = true,
                // As the driver does: at once, before anything else.
                Output::AppendFile { id, path, bytes } => {
                    self.files
                        .entry(path)
                        .or_default()
                        .extend_from_slice(&bytes);
                    self.acp
                        .handle_input(self.now, Input::FileAppended { id, result: Ok(()) });
                }
                Output::CancelHttp { id } | Output::Kill { id } => {
                    self.effects.retain(|e| e.result_id() != Some(id));
                }
                Output::CloseOpened { handle } => {
                    self.opened.remove(&handle);
                }
                Output::SyncFile { .. } => {}
                Output::Log(line) => self.logs.push(line),
                effect => self.effects.push_back(effect),
            }
        }
    }

    fn check(&mut self, line: &[u8]) {
        self.written += line.len();
        let text = std::str::from_utf8(line).expect("a line is UTF-8");
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "one line: {text}"
        );
        assert!(
            !text.contains(SECRET),
            "a .env value reached the client: {text}"
        );
        let message: Value = serde_json::from_str(text).expect("a line is JSON");
        assert_eq!(message["jsonrpc"], "2.0", "{text}");
        self.seen.push(message.clone());
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            let session = message["params"]["sessionId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            match method {
                "session/update" => {
                    let loading = self.loading.get(&session).is_some_and(|n| *n > 0);
                    assert!(
                        self.open.contains(&session) || loading,
                        "an update before its session's creation answer: {text}"
                    );
                    let kind = message["params"]["update"]["sessionUpdate"]
                        .as_str()
                        .unwrap_or_default();
                    let of_a_turn = !matches!(
                        kind,
                        "available_commands_update"
                            | "current_mode_update"
                            | "config_option_update"
                    );
                    if of_a_turn && !loading {
                        assert!(
                            self.prompts.get(&session).is_some_and(|n| *n > 0),
                            "an update of a turn with no prompt unanswered: {text}"
                        );
                    }
                }
                "session/request_permission" => {
                    let id = message["id"]
                        .as_u64()
                        .expect("a permission request has an id");
                    assert!(self.asked.insert(id), "permission request id {id} twice");
                    assert!(
                        self.prompts.get(&session).is_some_and(|n| *n > 0),
                        "a permission request with no prompt running: {text}"
                    );
                    self.unanswered_asks.push_back((id, session));
                }
                "fs/read_text_file" | "fs/write_text_file" => {
                    let id = message["id"].as_u64().expect("a file request has an id");
                    assert!(self.asked.insert(id), "request id {id} twice");
                    let path = message["params"]["path"].as_str().expect("a path");
                    assert!(
                        !crate::permissions::is_env_file(path),
                        "the client was asked for {path}"
                    );
                    assert!(
                        self.open.contains(&session),
                        "a file request of no session: {text}"
                    );
                    self.unanswered_fs.push_back((id, method.to_owned()));
                }
                "elicitation/create" => {
                    let id = message["id"].as_u64().expect("a question has an id");
                    assert!(self.asked.insert(id), "request id {id} twice");
                    assert!(
                        self.prompts.get(&session).is_some_and(|n| *n > 0),
                        "a question with no prompt running: {text}"
                    );
                    let answer = &message["params"]["requestedSchema"]["properties"]["answer"];
                    let labels = answer["oneOf"]
                        .as_array()
                        .map(|o| {
                            o.iter()
                                .filter_map(|c| c["const"].as_str())
                                .collect::<Vec<_>>()
                        })
                        .or_else(|| {
                            answer["items"]["enum"]
                                .as_array()
                                .map(|e| e.iter().filter_map(Value::as_str).collect())
                        })
                        .expect("the choices");
                    let labels = labels.into_iter().map(str::to_owned).collect();
                    self.unanswered_questions.push_back((id, labels));
                }
                other => panic!("luxe sent an unknown method {other}: {text}"),
            }
            return;
        }
        let id = &message["id"];
        assert!(
            message.get("result").is_some() != message.get("error").is_some(),
            "a response has a result or an error: {text}"
        );
        if id.is_null() {
            assert!(
                self.null_answers > 0,
                "an answer under a null id nobody asked for: {text}"
            );
            self.null_answers -= 1;
            return;
        }
        let id = id.as_u64().expect("our ids are numbers");
        let (method, session) = self
            .pending
            .remove(&id)
            .unwrap_or_else(|| panic!("request {id} answered twice or never asked: {text}"));
        let ok = message.get("result").is_some();
        match method.as_str() {
            "session/new" if ok => {
                let created = message["result"]["sessionId"]
                    .as_str()
                    .expect("sessionId")
                    .to_owned();
                self.open.insert(created.clone());
                self.created.push(created);
            }
            "session/load" | "session/resume" => {
                let session = session.unwrap_or_default();
                if method == "session/load"
                    && let Some(n) = self.loading.get_mut(&session)
                {
                    *n = n.saturating_sub(1);
                }
                if ok {
                    self.open.insert(session.clone());
                    self.created.push(session);
                }
            }
            "session/prompt" => {
                let session = session.unwrap_or_default();
                if let Some(n) = self.prompts.get_mut(&session) {
                    *n = n.saturating_sub(1);
                }
            }
            "session/close" if ok => {
                self.open.remove(&session.unwrap_or_default());
            }
            _ => {}
        }
    }

    /// Answers the oldest permission request with `choice` (0 once, 1 always, 2 reject,
    /// 3 cancelled, else an error); `false` when none waits.
    pub fn answer_permission(&mut self, choice: u8) -> bool {
        let Some((id, _)) = self.unanswered_asks.pop_front() else {
            return false;
        };
        let result = match choice {
            0 => json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}}),
            1 => json!({"outcome": {"outcome": "selected", "optionId": "allow_always"}}),
            2 => json!({"outcome": {"outcome": "selected", "optionId": "reject_once"}}),
            3 => json!({"outcome": {"outcome": "cancelled"}}),
            _ => {
                let line =
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "x"}});
                self.feed_line(line.to_string().as_bytes());
                return true;
            }
        };
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
        self.feed_line(line.to_string().as_bytes());
        true
    }

    /// Answers the oldest question (`choice` 0: the first label; 1: declined; else an error);
    /// `false` when none waits.
    pub fn answer_question(&mut self, choice: u8) -> bool {
        let Some((id, labels)) = self.unanswered_questions.pop_front() else {
            return false;
        };
        let line = match choice {
            0 => json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept",
                "content": {"answer": labels.first().cloned().unwrap_or_default()}}}),
            1 => json!({"jsonrpc": "2.0", "id": id, "result": {"action": "decline"}}),
            _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "no"}}),
        };
        self.feed_line(line.to_string().as_bytes());
        true
    }

    /// Answers the oldest file request to the client (`ok`: with the file, else an error);
    /// `false` when none waits.
    pub fn answer_fs(&mut self, ok: bool) -> bool {
        let Some((id, method)) = self.unanswered_fs.pop_front() else {
            return false;
        };
        let line = match (ok, method.as_str()) {
            (true, "fs/read_text_file") => {
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": "from the editor\n"}})
            }
            (true, _) => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            (false, _) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32002, "message": "gone"}})
            }
        };
        self.feed_line(line.to_string().as_bytes());
        true
    }

    /// Performs the oldest effect io was asked for (`ok`: as it would on a healthy machine);
    /// `false` when none waits.
    pub fn effect(&mut self, ok: bool) -> bool {
        let Some(effect) = self.effects.pop_front() else {
            return false;
        };
        match effect {
            Output::PrepareSite { id, cwd } => {
                self.sessions_made += 1;
                let result = if ok {
                    Ok(Box::new(Site {
                        cwd: cwd.clone(),
                        session_id: format!("sess-{}", self.sessions_made),
                        unix_ms: 1_000,
                        rng_seed: 7,
                        settings: Vec::new(),
                        env_files: vec![EnvFile {
                            path: format!("{cwd}/.env"),
                            bytes: format!("TOKEN={SECRET}\n").into_bytes(),
                            identity: None,
                        }],
                        guarded_resolved: Vec::new(),
                    }))
                } else {
                    Err("no such directory".to_owned())
                };
                self.input(Input::SitePrepared { id, result });
            }
            Output::ReadFile { id, path, .. } => {
                let result = match self.files.get(&path) {
                    Some(bytes) if ok => Ok(FileContent::whole(bytes.clone())),
                    _ => failed(),
                };
                self.input(Input::FileRead { id, result });
            }
            Output::ReadSessions { id, .. } => {
                let files = self
                    .files
                    .iter()
                    .map(|(p, b)| (p.clone(), b.clone(), 5))
                    .collect();
                self.input(Input::SessionsRead {
                    id,
                    result: if ok { Ok(files) } else { failed() },
                });
            }
            Output::HttpRequest { id, request } => {
                let body = String::from_utf8_lossy(&request.body).into_owned();
                assert!(!body.contains(SECRET), "a .env value reached the model");
                self.model_requests.push(body);
                self.model_answer(id, ok);
            }
            Output::Spawn { id, .. } => {
                let (chunks, pace) = self.command_output.clone();
                for bytes in chunks.iter().filter(|_| ok) {
                    self.input(Input::ProcessOutput {
                        id,
                        stream: crate::effects::Stream::Stdout,
                        bytes,
                    });
                    self.advance(pace);
                }
                let status = if ok {
                    Ok(Some(0))
                } else {
                    Err("no such program".into())
                };
                self.input(Input::ProcessExited { id, status });
            }
            Output::OpenFile { id, path, .. } => {
                let result = if ok {
                    self.opened.insert(id, path.clone());
                    Ok(Opened {
                        path,
                        identity: None,
                        kind: Some(FileKind::Regular),
                    })
                } else {
                    failed()
                };
                self.input(Input::FileOpened { id, result });
            }
            Output::ReadOpened { id, handle, .. } => {
                let result = match self.opened.get(&handle) {
                    Some(path) if ok => {
                        assert!(!crate::permissions::is_env_file(path), "a tool read {path}");
                        Ok(FileContent::whole(b"hello\n".to_vec()))
                    }
                    _ => failed(),
                };
                self.input(Input::FileRead { id, result });
            }
            Output::ReplaceOpened { id, handle, .. } => {
                let result = if self.opened.remove(&handle).is_some() && ok {
                    Ok(())
                } else {
                    failed()
                };
                self.input(Input::FileWritten { id, result });
            }
            Output::WriteFile { id, .. } => {
                self.input(Input::FileWritten {
                    id,
                    result: if ok { Ok(()) } else { failed() },
                });
            }
            Output::ResolvePath { id, path } => {
                self.input(Input::PathResolved {
                    id,
                    result: if ok { Ok(path) } else { failed() },
                });
            }
            Output::Search { id, .. } => {
                self.input(Input::SearchDone {
                    id,
                    result: if ok { Ok(Vec::new()) } else { failed() },
                });
            }
            Output::ListFiles { id, .. } => {
                self.input(Input::FilesListed {
                    id,
                    result: if ok { Ok(Vec::new()) } else { failed() },
                });
            }
            Output::ReadDiff { id, .. } => self.input(Input::DiffRead {
                id,
                result: failed(),
            }),
            other => panic!("not an effect: {other:?}"),
        }
        true
    }

    fn model_answer(&mut self, id: EffectId, ok: bool) {
        let model = if ok { self.model } else { Model::Fail };
        let stream = match model {
            Model::Hang => {
                // Headers, then nothing: the request stays open (it is not queued again).
                return self.input(Input::HttpResponse {
                    id,
                    status: 200,
                    retry_after: None,
                });
            }
            Model::Fail => {
                self.input(Input::HttpResponse {
                    id,
                    status: 500,
                    retry_after: None,
                });
                self.input(Input::HttpBody {
                    id,
                    bytes: b"{\"error\":\"down\"}",
                });
                return self.input(Input::HttpEnded { id });
            }
            Model::Text => text_stream(),
            Model::Tool(which) => tool_stream(which),
        };
        // Text next time, so that a tool loop ends.
        self.model = Model::Text;
        self.input(Input::HttpResponse {
            id,
            status: 200,
            retry_after: None,
        });
        for part in stream.chunks(97) {
            self.input(Input::HttpBody { id, bytes: part });
        }
        self.input(Input::HttpEnded { id });
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

fn failed<T>() -> Result<T, String> {
    Err("it failed".to_owned())
}

fn sse(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for event in events {
        let kind = event["type"].as_str().unwrap_or_default();
        out.push_str(&format!("event: {kind}\ndata: {event}\n\n"));
    }
    out.into_bytes()
}

fn envelope(blocks: Vec<Value>, stop: &str) -> Vec<u8> {
    let mut events = vec![json!({"type": "message_start", "message": {"id": "msg_1",
        "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})];
    events.extend(blocks);
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop},
        "usage": {"output_tokens": 5}}),
    );
    events.push(json!({"type": "message_stop"}));
    sse(&events)
}

fn text_stream() -> Vec<u8> {
    envelope(
        vec![
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me see."}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "All done."}}),
            json!({"type": "content_block_stop", "index": 1}),
        ],
        "end_turn",
    )
}

fn tool_stream(which: u8) -> Vec<u8> {
    let (name, input) = match which % 8 {
        0 => ("read", json!({"path": "a.txt"})),
        1 => ("write", json!({"path": "b.txt", "content": "x"})),
        2 => (
            "edit",
            json!({"path": "a.txt", "old_text": "hello", "new_text": "bye"}),
        ),
        3 => ("bash", json!({"command": "echo out"})),
        4 => ("grep", json!({"pattern": "x"})),
        5 => (
            "ask_user",
            json!({"question": "?", "options": [{"label": "a"}]}),
        ),
        6 => (
            "update_plan",
            json!({"entries": [{"content": "s", "status": "done"}]}),
        ),
        _ => ("read", json!({"path": ".env"})),
    };
    envelope(
        vec![
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            json!({"type": "content_block_stop", "index": 0}),
        ],
        "tool_use",
    )
}

/// Fuzz body: a fixed opening (initialize, a session), then `data` split on LF, each line a
/// client line, every answer checked; then everything is settled and every request must have
/// had its answer.
pub fn fuzz(now: Instant, data: &[u8]) {
    let mut checked = Checked::new(now);
    checked.request("initialize", json!({"protocolVersion": 1}));
    checked.request("session/new", json!({"cwd": DIRS[0], "mcpServers": []}));
    checked.effect(true);
    let session = checked.created.first().cloned().unwrap_or_default();
    for line in data.split(|b| *b == b'\n') {
        // A line that parses as a request is sent as one under our ids (its method and params
        // kept, the session id filled in), so that its answer can be checked.
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(map)) if map.get("method").is_some_and(Value::is_string) => {
                let method = map["method"].as_str().unwrap_or_default().to_owned();
                let mut params = map.get("params").cloned().unwrap_or(json!({}));
                if !params.is_object() {
                    params = json!({});
                }
                if params.get("sessionId").is_some() {
                    params["sessionId"] = json!(session);
                }
                if map.contains_key("id") {
                    checked.request(&method, params);
                } else {
                    checked.notify(&method, params);
                }
                checked.effect(line.len() % 3 != 0);
            }
            Ok(Value::Object(map)) if map.contains_key("id") => {}
            _ => checked.garbage(line),
        }
        if checked.is_closed() {
            return;
        }
    }
    checked.finish();
}
