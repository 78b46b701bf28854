//! The MCP machine against scripted servers: the handshake, pagination, calls, every way a
//! server breaks, and a property over random behaviour. It runs from tests/ because its clock
//! starts at `Instant::now()`, which core never reads, not even in its own tests.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use quickcheck::{Arbitrary, Gen, quickcheck};
use serde_json::{Value, json};

use luxe_core::effects::HttpMethod;
use luxe_core::effects::{EffectId, Input, Output, Stream};
use luxe_core::mcp::config::{HostEnv, ServerConfig, Transport};
use luxe_core::mcp::results::CallOutcome;
use luxe_core::mcp::{CallId, Counter, Io, Mcp, McpEvent, McpSettings, jsonrpc, server};

const TIMEOUT: Duration = Duration::from_millis(1000);

fn settings() -> McpSettings {
    McpSettings {
        timeout: TIMEOUT,
        restart_base: Duration::from_millis(500),
        restart_max: Duration::from_secs(4),
        cwd: "/work".into(),
        env: HostEnv(vec![
            ("PATH".into(), "/bin".into()),
            ("OPENAI_API_KEY".into(), "sk-x".into()),
            ("TOKEN".into(), "t".into()),
        ]),
        client_version: "1.0".into(),
    }
}

fn stdio(name: &str, env: &[(&str, &str)]) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio {
            command: "srv".into(),
            args: vec![],
            env: env
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            cwd: None,
        },
        timeout: None,
    }
}

/// The scripted clock's start; only differences from it matter.
fn origin() -> Instant {
    Instant::now()
}

/// What a batch of outputs held: processes spawned (with their environment), messages written
/// (by process), processes killed.
type Drained = (
    Vec<(EffectId, Vec<(String, String)>)>,
    Vec<(EffectId, Value)>,
    Vec<EffectId>,
);

/// A way to break a server, and what its status then says.
type Breakage = (&'static str, Box<dyn Fn(&mut Rig, EffectId)>);

struct Rig {
    mcp: Mcp,
    ids: Counter,
    outputs: VecDeque<Output>,
    now: Instant,
    finished: BTreeMap<CallId, Vec<CallOutcome>>,
    changes: usize,
}

impl Rig {
    fn new(servers: Vec<ServerConfig>) -> Self {
        let mut rig = Self {
            mcp: Mcp::new(servers, settings()),
            ids: Counter::default(),
            outputs: VecDeque::new(),
            now: origin(),
            finished: BTreeMap::new(),
            changes: 0,
        };
        let mut io = Io {
            ids: &mut rig.ids,
            outputs: &mut rig.outputs,
        };
        let events = rig.mcp.start(rig.now, &mut io);
        rig.take(events);
        rig
    }

    fn take(&mut self, events: Vec<McpEvent>) {
        for event in events {
            match event {
                McpEvent::Finished { call, outcome } => {
                    self.finished.entry(call).or_default().push(outcome);
                }
                McpEvent::ServersChanged => self.changes += 1,
                McpEvent::Progress { .. } => {}
            }
        }
    }

    /// The processes spawned since the last look, and every message written (by process).
    fn drain(&mut self) -> Drained {
        let (mut spawned, mut written, mut killed) = (Vec::new(), Vec::new(), Vec::new());
        for output in self.outputs.drain(..) {
            match output {
                Output::SpawnPiped { id, env, .. } => spawned.push((id, env)),
                Output::WriteStdin { id, bytes } => {
                    assert_eq!(bytes.last(), Some(&b'\n'));
                    written.push((id, serde_json::from_slice(&bytes).unwrap()));
                }
                Output::Kill { id } => killed.push(id),
                other => panic!("unexpected {other:?}"),
            }
        }
        (spawned, written, killed)
    }

    fn input(&mut self, input: Input<'_>) {
        let mut io = Io {
            ids: &mut self.ids,
            outputs: &mut self.outputs,
        };
        let events = self
            .mcp
            .handle(self.now, &input, &mut io)
            .expect("a server's");
        self.take(events);
    }

    fn says(&mut self, id: EffectId, line: &str) {
        let bytes = format!("{line}\n");
        self.input(Input::ProcessOutput {
            id,
            stream: Stream::Stdout,
            bytes: bytes.as_bytes(),
        });
    }

    fn answer(&mut self, id: EffectId, request: &Value, result: Value) {
        let line = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        self.says(id, &line.to_string());
    }

    fn call(&mut self, call: u64, name: &str) {
        let mut io = Io {
            ids: &mut self.ids,
            outputs: &mut self.outputs,
        };
        let events = self
            .mcp
            .call(self.now, CallId(call), name, json!({"x": 1}), &mut io);
        self.take(events);
    }

    fn advance(&mut self, by: Duration) {
        self.now += by;
        let mut io = Io {
            ids: &mut self.ids,
            outputs: &mut self.outputs,
        };
        let events = self.mcp.handle_timeout(self.now, &mut io);
        self.take(events);
    }

    fn status(&self) -> (String, Option<String>) {
        let s = &self.mcp.statuses()[0];
        (s.status.clone(), s.error.clone())
    }

    /// The oldest HTTP request of `method` not looked at yet: its id, headers and JSON body
    /// (`Null` when empty).
    fn http_out(&mut self, method: HttpMethod) -> (EffectId, Vec<(String, String)>, Value) {
        let at = self
            .outputs
            .iter()
            .position(
                |o| matches!(o, Output::HttpExchange { request, .. } if request.method == method),
            )
            .unwrap_or_else(|| panic!("a {method:?} in {:?}", self.outputs));
        match self.outputs.remove(at) {
            Some(Output::HttpExchange { id, request }) => (
                id,
                request.headers,
                serde_json::from_slice(&request.body).unwrap_or(Value::Null),
            ),
            _ => unreachable!(),
        }
    }

    /// Whether an HTTP request of `method` is waiting to be looked at.
    fn http_waiting(&self, method: HttpMethod) -> bool {
        self.outputs
            .iter()
            .any(|o| matches!(o, Output::HttpExchange { request, .. } if request.method == method))
    }

    /// The response to the request `id`: its status and headers, then `body` in one piece.
    fn http_answer(&mut self, id: EffectId, status: u16, headers: &[(&str, &str)], body: &str) {
        let headers = headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        self.input(Input::HttpHeaders { id, headers });
        self.input(Input::HttpResponse {
            id,
            status,
            retry_after: None,
        });
        if !body.is_empty() {
            self.input(Input::HttpBody {
                id,
                bytes: body.as_bytes(),
            });
        }
    }

    /// Runs the handshake of the process `id` with `tools`, answering what it wrote.
    fn handshake(&mut self, id: EffectId, tools: Value) {
        let (_, written, _) = self.drain();
        let init = &written
            .iter()
            .find(|(to, m)| *to == id && m["method"] == "initialize")
            .unwrap()
            .1;
        self.answer(
            id,
            init,
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}),
        );
        let (_, written, _) = self.drain();
        assert_eq!(written[0].1["method"], "notifications/initialized");
        let list = &written[1].1;
        assert_eq!(list["method"], "tools/list");
        self.answer(id, list, json!({"tools": tools}));
    }
}

fn tool(name: &str, read_only: bool) -> Value {
    json!({"name": name, "description": "d", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": read_only}})
}

#[test]
fn handshake_pages_and_calls() {
    let mut rig = Rig::new(vec![stdio("srv", &[("A", "${TOKEN}")])]);
    let (spawned, written, _) = rig.drain();
    let (id, env) = spawned[0].clone();
    assert_eq!(
        env,
        [
            ("PATH".to_owned(), "/bin".to_owned()),
            ("A".to_owned(), "t".to_owned())
        ],
        "minimal env, no provider key"
    );
    assert_eq!(rig.status().0, "starting");
    let init = &written[0].1;
    assert_eq!(init["params"]["protocolVersion"], server::PROTOCOL_VERSION);
    rig.answer(
        id,
        init,
        json!({"protocolVersion": "2024-11-05", "capabilities": {"tools": {"listChanged": true}}}),
    );
    let (_, written, _) = rig.drain();
    rig.answer(id, &written[1].1, json!({"tools": [tool("a", true), {"name": "bad", "inputSchema": {"type": "string"}}], "nextCursor": "p2"}));
    let (_, written, _) = rig.drain();
    assert_eq!(written[0].1["params"]["cursor"], "p2");
    rig.answer(id, &written[0].1, json!({"tools": [tool("b", false)]}));
    let (status, note) = rig.status();
    assert_eq!(status, "ready");
    assert!(note.unwrap().contains("left out the tool \"bad\""));
    let names: Vec<_> = rig
        .mcp
        .tools()
        .map(|t| (t.name.clone(), t.read_only))
        .collect();
    assert_eq!(
        names,
        [
            ("mcp__srv__a".to_owned(), true),
            ("mcp__srv__b".to_owned(), false)
        ]
    );

    rig.call(7, "mcp__srv__b");
    let (_, written, _) = rig.drain();
    let request = &written[0].1;
    assert_eq!(request["params"]["name"], "b");
    assert_eq!(request["params"]["_meta"]["progressToken"], 7);
    rig.answer(
        id,
        request,
        json!({"content": [{"type": "text", "text": "done"}]}),
    );
    assert_eq!(
        rig.finished[&CallId(7)],
        [CallOutcome {
            is_error: false,
            text: "done".into(),
            images: Vec::new(),
        }]
    );

    // A ping is answered; list_changed lists again.
    rig.says(id, r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    rig.says(
        id,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
    );
    let (_, written, _) = rig.drain();
    assert_eq!(
        written[0].1,
        json!({"jsonrpc": "2.0", "id": "p", "result": {}})
    );
    rig.answer(id, &written[1].1, json!({"tools": [tool("c", false)]}));
    assert_eq!(
        rig.mcp.tools().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["mcp__srv__c"]
    );
}

#[test]
fn a_server_that_dies_mid_call_fails_the_call_and_restarts_after_backoff() {
    let mut rig = Rig::new(vec![stdio("srv", &[])]);
    let id = rig.spawned();
    rig.handshake(id, json!([tool("t", false)]));
    rig.call(1, "mcp__srv__t");
    rig.input(Input::ProcessOutput {
        id,
        stream: Stream::Stderr,
        bytes: b"boom: out of cheese\n",
    });
    rig.input(Input::ProcessExited {
        id,
        status: Ok(Some(3)),
    });
    let failed = &rig.finished[&CallId(1)][0];
    assert!(failed.is_error);
    assert!(
        failed.text.contains("exited with status 3"),
        "{}",
        failed.text
    );
    assert!(failed.text.contains("out of cheese"), "{}", failed.text);
    assert_eq!(rig.status().0, "failed");
    // Within the backoff: refused at once, saying when.
    rig.call(2, "mcp__srv__t");
    assert!(
        rig.finished[&CallId(2)][0]
            .text
            .contains("starts it again in 1 s")
    );
    // After it: started again, the call waits for the handshake, then goes out.
    rig.advance(Duration::from_millis(600));
    rig.call(3, "mcp__srv__t");
    let spawned = rig.spawned();
    rig.handshake(spawned, json!([tool("t", false)]));
    let (_, written, _) = rig.drain();
    assert_eq!(written[0].1["method"], "tools/call");
    rig.answer(
        spawned,
        &written[0].1,
        json!({"content": [], "isError": true}),
    );
    assert!(rig.finished[&CallId(3)][0].is_error);
}

impl Rig {
    /// The last process spawned; what was written to it stays for the handshake.
    fn spawned(&mut self) -> EffectId {
        let mut spawned = self.outputs.iter().filter_map(|o| match o {
            Output::SpawnPiped { id, .. } => Some(*id),
            _ => None,
        });
        let id = spawned.next_back().expect("spawned");
        self.outputs
            .retain(|o| !matches!(o, Output::SpawnPiped { .. }));
        id
    }
}

#[test]
fn garbage_hangs_refused_versions_and_oversized_messages_fail_the_server() {
    let cases: Vec<Breakage> = vec![
        (
            "not JSON",
            Box::new(|rig, id| rig.says(id, "hello, I am a server")),
        ),
        (
            "did not answer initialize within 1000 ms",
            Box::new(|rig, _| rig.advance(TIMEOUT)),
        ),
        (
            "MCP version \"1999-01-01\"",
            Box::new(|rig, id| {
                rig.says(
                    id,
                    r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01"}}"#,
                )
            }),
        ),
        (
            "larger than 16 MB",
            Box::new(|rig, id| {
                let big = vec![b'x'; jsonrpc::MAX_MESSAGE_BYTES + 10];
                rig.input(Input::ProcessOutput {
                    id,
                    stream: Stream::Stdout,
                    bytes: &big,
                });
            }),
        ),
        (
            "refused initialize: nope",
            Box::new(|rig, id| {
                rig.says(
                    id,
                    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"nope"}}"#,
                )
            }),
        ),
        (
            "could not start",
            Box::new(|rig, id| {
                rig.input(Input::ProcessExited {
                    id,
                    status: Err("no such file".into()),
                })
            }),
        ),
    ];
    for (says, break_it) in cases {
        let mut rig = Rig::new(vec![stdio("srv", &[]), stdio("other", &[])]);
        let kept = rig.outputs.clone();
        let (spawned, _, _) = rig.drain();
        rig.outputs = kept;
        rig.outputs
            .retain(|o| !matches!(o, Output::SpawnPiped { .. }));
        rig.handshake(spawned[1].0, json!([tool("t", true)]));
        break_it(&mut rig, spawned[0].0);
        let (status, error) = rig.status();
        assert_eq!(status, "failed", "{says}");
        assert!(
            error.as_deref().unwrap_or("").contains(says),
            "{says}: {error:?}"
        );
        let (_, _, killed) = rig.drain();
        if !says.contains("could not start") {
            assert_eq!(killed, [spawned[0].0], "{says}");
            // A late line from the killed process is dropped.
            rig.says(spawned[0].0, "{}");
        }
        // The other server goes on.
        assert_eq!(rig.mcp.statuses()[1].status, "ready", "{says}");
        assert_eq!(rig.mcp.tools().count(), 1, "{says}");
    }
}

#[test]
fn a_provider_key_is_never_expanded_and_cancel_tells_the_server() {
    let rig = Rig::new(vec![stdio("srv", &[("K", "${OPENAI_API_KEY}")])]);
    let (status, error) = rig.status();
    assert_eq!(status, "failed");
    assert!(error.unwrap().contains("never passes its provider keys"));

    let mut rig = Rig::new(vec![stdio("srv", &[])]);
    let id = rig.spawned();
    rig.handshake(id, json!([tool("t", false)]));
    rig.call(4, "mcp__srv__t");
    let (_, written, _) = rig.drain();
    let request_id = written[0].1["id"].clone();
    let mut io = Io {
        ids: &mut rig.ids,
        outputs: &mut rig.outputs,
    };
    rig.mcp.cancel(CallId(4), &mut io);
    let (_, written, _) = rig.drain();
    assert_eq!(written[0].1["method"], "notifications/cancelled");
    assert_eq!(written[0].1["params"]["requestId"], request_id);
    // Its late answer ends nothing.
    rig.answer(id, &json!({"id": request_id}), json!({"content": []}));
    assert!(!rig.finished.contains_key(&CallId(4)));
    assert_eq!(rig.mcp.deadline(), None);
}

/// What a scripted server does next.
#[derive(Debug, Clone)]
enum Act {
    /// Answer the oldest request it has not answered (an error answer when `fail`).
    Answer { fail: bool },
    /// The model calls a tool.
    Call,
    /// Time passes (a tenth of the timeout, times n).
    Wait(u8),
    /// The process exits.
    Exit,
    /// It writes a garbage line.
    Garbage,
    /// It says its tools changed.
    ListChanged,
    /// The call is interrupted.
    Cancel,
}

impl Arbitrary for Act {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 16 {
            0..=5 => Act::Answer {
                fail: bool::arbitrary(g),
            },
            6..=8 => Act::Call,
            9..=11 => Act::Wait(u8::arbitrary(g) % 12),
            12 => Act::Exit,
            13 => Act::Garbage,
            14 => Act::ListChanged,
            _ => Act::Cancel,
        }
    }
}

quickcheck! {
    /// Whatever the server does, every call ends exactly once (or is cancelled and never
    /// ends), and once time has passed every request is answered or timed out.
    fn every_call_ends_exactly_once(acts: Vec<Act>) -> bool {
        let mut rig = Rig::new(vec![stdio("srv", &[])]);
        let mut process: Option<EffectId> = None;
        let mut unanswered: VecDeque<Value> = VecDeque::new();
        let mut calls = 0u64;
        let mut cancelled = Vec::new();
        let mut answered_handshake = false;
        for act in acts {
            for output in rig.outputs.drain(..).collect::<Vec<_>>() {
                match output {
                    Output::SpawnPiped { id, .. } => {
                        process = Some(id);
                        unanswered.clear();
                    }
                    Output::WriteStdin { bytes, .. } => {
                        let message: Value = serde_json::from_slice(&bytes).unwrap();
                        if message.get("id").is_some() && message.get("method").is_some() {
                            unanswered.push_back(message);
                        }
                    }
                    Output::Kill { id } if process == Some(id) => process = None,
                    _ => {}
                }
            }
            match (act, process) {
                (Act::Answer { fail }, Some(id)) => {
                    if let Some(request) = unanswered.pop_front() {
                        let method = request["method"].as_str().unwrap_or("");
                        let result = match method {
                            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}}),
                            "tools/list" => json!({"tools": [tool("t", false)]}),
                            _ => json!({"content": [{"type": "text", "text": "ok"}]}),
                        };
                        answered_handshake |= method == "tools/list";
                        if fail {
                            let line = json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": 1, "message": "no"}});
                            rig.says(id, &line.to_string());
                        } else {
                            rig.answer(id, &request, result);
                        }
                    }
                }
                (Act::Call, _) if answered_handshake => {
                    calls += 1;
                    rig.call(calls, "mcp__srv__t");
                }
                (Act::Wait(n), _) => rig.advance(TIMEOUT / 10 * u32::from(n)),
                (Act::Exit, Some(id)) => {
                    rig.input(Input::ProcessExited { id, status: Ok(Some(1)) });
                    process = None;
                }
                (Act::Garbage, Some(id)) => rig.says(id, "garbage"),
                (Act::ListChanged, Some(id)) => rig.says(id, r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
                (Act::Cancel, _) if calls > 0 && !rig.finished.contains_key(&CallId(calls)) => {
                    let mut io = Io { ids: &mut rig.ids, outputs: &mut rig.outputs };
                    rig.mcp.cancel(CallId(calls), &mut io);
                    cancelled.push(CallId(calls));
                }
                _ => {}
            }
        }
        // Time passes: every request still out is timed out.
        rig.advance(TIMEOUT * 2);
        let once = (1..=calls).map(CallId).all(|call| {
            let ends = rig.finished.get(&call).map_or(0, Vec::len);
            if cancelled.contains(&call) { ends <= 1 } else { ends == 1 }
        });
        once && rig.mcp.deadline().is_none_or(|at| at > rig.now)
    }
}

#[test]
fn over_http_the_session_and_version_ride_on_every_post_and_sse_answers_calls() {
    let config = ServerConfig {
        name: "web".into(),
        transport: Transport::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer ${TOKEN}".into())],
        },
        timeout: None,
    };
    let mut rig = Rig::new(vec![config]);
    let post = |rig: &mut Rig| rig.http_out(HttpMethod::Post);
    let (id, headers, init) = post(&mut rig);
    assert_eq!(init["method"], "initialize");
    assert!(headers.contains(&("Authorization".into(), "Bearer t".into())));
    assert!(!headers.iter().any(|(k, _)| k == "Mcp-Session-Id"));
    let answer = json!({"jsonrpc": "2.0", "id": init["id"], "result": {"protocolVersion": "2025-03-26", "capabilities": {"tools": {}}}});
    let session = vec![
        ("mcp-session-id".to_owned(), "s-1".to_owned()),
        ("content-type".to_owned(), "application/json".to_owned()),
    ];
    rig.input(Input::HttpHeaders {
        id,
        headers: session,
    });
    rig.input(Input::HttpResponse {
        id,
        status: 200,
        retry_after: None,
    });
    rig.input(Input::HttpBody {
        id,
        bytes: answer.to_string().as_bytes(),
    });
    rig.input(Input::HttpEnded { id });
    let (note, headers, initialized) = post(&mut rig);
    assert_eq!(initialized["method"], "notifications/initialized");
    assert!(headers.contains(&("Mcp-Session-Id".into(), "s-1".into())));
    assert!(headers.contains(&("MCP-Protocol-Version".into(), "2025-03-26".into())));
    rig.input(Input::HttpResponse {
        id: note,
        status: 202,
        retry_after: None,
    });
    rig.input(Input::HttpEnded { id: note });
    let (list, _, request) = post(&mut rig);
    let tools =
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [tool("t", true)]}});
    let sse = vec![("content-type".to_owned(), "text/event-stream".to_owned())];
    rig.input(Input::HttpHeaders {
        id: list,
        headers: sse.clone(),
    });
    rig.input(Input::HttpResponse {
        id: list,
        status: 200,
        retry_after: None,
    });
    let event = format!("event: message\ndata: {tools}\n\n");
    let (a, b) = event.as_bytes().split_at(20);
    rig.input(Input::HttpBody { id: list, bytes: a });
    rig.input(Input::HttpBody { id: list, bytes: b });
    rig.input(Input::HttpEnded { id: list });
    assert_eq!(rig.status().0, "ready");

    rig.call(9, "mcp__web__t");
    let (call, _, request) = post(&mut rig);
    rig.input(Input::HttpHeaders {
        id: call,
        headers: sse,
    });
    rig.input(Input::HttpResponse {
        id: call,
        status: 200,
        retry_after: None,
    });
    let result = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"content": [{"type": "text", "text": "hi"}]}});
    let event = format!("data: {result}\n\n");
    rig.input(Input::HttpBody {
        id: call,
        bytes: event.as_bytes(),
    });
    assert_eq!(rig.finished[&CallId(9)][0].text, "hi");

    // A server error fails it, and its requests are abandoned.
    rig.call(10, "mcp__web__t");
    let (call, _, _) = post(&mut rig);
    rig.input(Input::HttpResponse {
        id: call,
        status: 500,
        retry_after: None,
    });
    rig.input(Input::HttpBody {
        id: call,
        bytes: b"internal trouble",
    });
    rig.input(Input::HttpEnded { id: call });
    let (status, error) = rig.status();
    assert_eq!(status, "failed");
    assert!(error.unwrap().contains("HTTP 500: internal trouble"));
    assert!(rig.finished[&CallId(10)][0].is_error);
}

#[test]
fn servers_added_later_start_at_once_and_replace_one_of_their_name() {
    let mut rig = Rig::new(vec![stdio("a", &[]), stdio("b", &[])]);
    // The last started: b's.
    let first = rig.spawned();
    rig.handshake(first, json!([tool("t", false)]));
    rig.call(1, "mcp__b__t");
    let mut io = Io {
        ids: &mut rig.ids,
        outputs: &mut rig.outputs,
    };
    let events = rig
        .mcp
        .add_servers(rig.now, vec![stdio("b", &[]), stdio("c", &[])], &mut io);
    rig.take(events);
    // The replaced server's call ended; its process is gone; both new ones started.
    let ended = &rig.finished[&CallId(1)][0].text;
    assert!(ended.contains("replaced"), "{ended}");
    let (spawned, _, killed) = rig.drain();
    assert_eq!(killed, [first]);
    assert_eq!(spawned.len(), 2);
    let names: Vec<_> = rig
        .mcp
        .statuses()
        .into_iter()
        .map(|s| (s.name, s.status))
        .collect();
    let want = [("a", "starting"), ("b", "starting"), ("c", "starting")];
    assert_eq!(names, want.map(|(n, s)| (n.to_owned(), s.to_owned())));
}

/// An http server's machine through its handshake: the session `s-1`, version 2025-06-18, the
/// tool `t`; the GET stream is left unanswered.
fn http_ready() -> Rig {
    let config = ServerConfig {
        name: "web".into(),
        transport: Transport::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: Vec::new(),
        },
        timeout: None,
    };
    let mut rig = Rig::new(vec![config]);
    let (init, _, request) = rig.http_out(HttpMethod::Post);
    assert!(
        !rig.http_waiting(HttpMethod::Get),
        "no GET before initialize"
    );
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true}}}});
    let json_headers = [
        ("mcp-session-id", "s-1"),
        ("content-type", "application/json"),
    ];
    rig.http_answer(init, 200, &json_headers, &answer.to_string());
    rig.input(Input::HttpEnded { id: init });
    let (note, _, initialized) = rig.http_out(HttpMethod::Post);
    assert_eq!(initialized["method"], "notifications/initialized");
    rig.http_answer(note, 202, &[], "");
    rig.input(Input::HttpEnded { id: note });
    let (list, _, request) = rig.http_out(HttpMethod::Post);
    let tools =
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [tool("t", true)]}});
    rig.http_answer(
        list,
        200,
        &[("content-type", "application/json")],
        &tools.to_string(),
    );
    rig.input(Input::HttpEnded { id: list });
    assert_eq!(rig.status().0, "ready");
    rig
}

#[test]
fn over_http_the_server_speaks_on_a_get_stream_and_a_405_means_it_has_none() {
    let mut rig = http_ready();
    let (get, headers, _) = rig.http_out(HttpMethod::Get);
    for header in [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", "s-1"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ] {
        assert!(
            headers.contains(&(header.0.into(), header.1.into())),
            "{headers:?}"
        );
    }
    rig.http_answer(get, 200, &[("content-type", "text/event-stream")], "");
    // What it says there is taken like any message: list_changed lists again.
    let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    let event = format!("id: 1\ndata: {changed}\n\n");
    rig.input(Input::HttpBody {
        id: get,
        bytes: event.as_bytes(),
    });
    let (list, _, request) = rig.http_out(HttpMethod::Post);
    assert_eq!(request["method"], "tools/list");
    let tools = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [tool("t", true), tool("u", false)]}});
    rig.http_answer(
        list,
        200,
        &[("content-type", "application/json")],
        &tools.to_string(),
    );
    rig.input(Input::HttpEnded { id: list });
    assert_eq!(rig.mcp.statuses()[0].tools, 2);
    assert!(rig.mcp.tool("mcp__web__u").is_some());
    // A ping there is answered by a POST.
    let ping = r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#;
    rig.input(Input::HttpBody {
        id: get,
        bytes: format!("data: {ping}\n\n").as_bytes(),
    });
    let (_, _, pong) = rig.http_out(HttpMethod::Post);
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "p1", "result": {}}));
    // A stream that ends is opened again with the next POST.
    rig.input(Input::HttpEnded { id: get });
    assert!(!rig.http_waiting(HttpMethod::Get));
    rig.call(1, "mcp__web__t");
    rig.http_out(HttpMethod::Post);
    let (again, _, _) = rig.http_out(HttpMethod::Get);
    assert_ne!(again, get);

    // 405: no stream; nothing fails, and it is never asked for again.
    let mut rig = http_ready();
    let (get, _, _) = rig.http_out(HttpMethod::Get);
    let changes = rig.changes;
    rig.http_answer(get, 405, &[("allow", "POST, DELETE")], "");
    rig.input(Input::HttpEnded { id: get });
    assert_eq!(rig.status(), ("ready".to_owned(), None));
    assert_eq!(rig.changes, changes, "no change to tell");
    rig.call(2, "mcp__web__t");
    rig.http_out(HttpMethod::Post);
    assert!(!rig.http_waiting(HttpMethod::Get));
    // A stream that fails on the way is not the server failing.
    let mut rig = http_ready();
    let (get, _, _) = rig.http_out(HttpMethod::Get);
    rig.input(Input::HttpFailed {
        id: get,
        error: "connection reset".into(),
    });
    assert_eq!(rig.status().0, "ready");
}

#[test]
fn over_http_the_end_deletes_the_session() {
    let mut rig = http_ready();
    let (get, _, _) = rig.http_out(HttpMethod::Get);
    rig.outputs.clear();
    let mut io = Io {
        ids: &mut rig.ids,
        outputs: &mut rig.outputs,
    };
    rig.mcp.stop(&mut io);
    let farewells: Vec<_> = rig
        .outputs
        .iter()
        .filter_map(|o| match o {
            Output::HttpFarewell { request, within } => Some((request.clone(), *within)),
            _ => None,
        })
        .collect();
    assert_eq!(farewells.len(), 1, "{:?}", rig.outputs);
    let (delete, within) = &farewells[0];
    assert_eq!(delete.method, HttpMethod::Delete);
    assert_eq!(delete.url, "http://127.0.0.1:9/mcp");
    assert!(
        delete
            .headers
            .contains(&("Mcp-Session-Id".into(), "s-1".into()))
    );
    assert!(delete.body.is_empty());
    assert!(*within <= Duration::from_secs(1));
    // The GET stream is abandoned.
    assert!(
        rig.outputs
            .iter()
            .any(|o| matches!(o, Output::CancelHttp { id } if *id == get))
    );

    // A failed server's session is over already: no DELETE.
    let mut rig = http_ready();
    rig.call(1, "mcp__web__t");
    let (call, _, _) = rig.http_out(HttpMethod::Post);
    rig.http_answer(call, 500, &[], "no");
    rig.input(Input::HttpEnded { id: call });
    assert_eq!(rig.status().0, "failed");
    rig.outputs.clear();
    let mut io = Io {
        ids: &mut rig.ids,
        outputs: &mut rig.outputs,
    };
    rig.mcp.stop(&mut io);
    assert!(
        !rig.outputs
            .iter()
            .any(|o| matches!(o, Output::HttpFarewell { .. }))
    );
}
