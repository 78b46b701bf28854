//! Simulated agent turns on the virtual clock: quickcheck drives random interleavings of client
//! actions, model responses (text, tool calls, errors, dropped connections), tool results, time
//! and interrupts through `luxe-core`. Every step is checked by the harness's ledger (one
//! `turn_ended` per `turn_started`, every prompt settled once, no tool work outside a turn);
//! here we also check that every request to the model is well-formed: each tool call has its
//! result in the very next message.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use luxe_core::config::Providers;
use luxe_core::effects::HttpMethod;
use luxe_core::effects::{ChangedFile, DiffSource};
use luxe_core::effects::{EffectId, FileContent};
use luxe_core::effects::{EnvFile, Scope, SettingsSource};
use luxe_core::harness::anthropic_sse::{scripted_tool, text_answer, tool_call};
use luxe_core::harness::fake_io::{FakeIo, Step, http_answer};
use luxe_core::harness::{Checked, on_fake_anthropic, test_config};
use luxe_core::model::wire::Endpoint;
use luxe_core::permissions::is_env_file;
use luxe_core::permissions::rules::Rule;
use luxe_core::protocol::events::Event;
use luxe_core::protocol::review::FileStatus;
use luxe_core::protocol::values::PermissionMode;
use luxe_core::{Config, Input, Output};
use luxe_tests::sim::small_review_source;
use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde_json::{Value, json};

#[derive(Clone, Debug)]
enum Op {
    Submit,
    Compact,
    Steer,
    Interrupt,
    AutoApprove(bool),
    Reply(u8),
    Model(ModelOp),
    Effect(bool),
    Advance(u16),
    Review(ReviewOp),
}

/// What a reviewer does; anchors are taken from the loaded review (or invented).
#[derive(Clone, Debug)]
enum ReviewOp {
    Load,
    Comment { valid: bool, send: bool },
    Fix,
    AgentReview,
    Commit,
    OtherReview,
}

impl Arbitrary for ReviewOp {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 7 {
            0 => Self::Load,
            1 | 2 => Self::Comment {
                valid: u8::arbitrary(g) % 4 != 0,
                send: bool::arbitrary(g),
            },
            3 => Self::Fix,
            4 => Self::AgentReview,
            5 => Self::Commit,
            _ => Self::OtherReview,
        }
    }
}

#[derive(Clone, Debug)]
enum ModelOp {
    Text(Vec<usize>),
    Tool(u8, Vec<usize>),
    Status(u16),
    /// A 400 saying the prompt is too long for the context window.
    Overflow,
    Fail,
}

impl Arbitrary for ModelOp {
    fn arbitrary(g: &mut Gen) -> Self {
        let cuts = Vec::<usize>::arbitrary(g);
        match u8::arbitrary(g) % 9 {
            0..=2 => Self::Text(cuts),
            3..=5 => Self::Tool(u8::arbitrary(g), cuts),
            6 => Self::Status(*g.choose(&[400, 429, 500, 529]).expect("non-empty")),
            7 => Self::Overflow,
            _ => Self::Fail,
        }
    }
}

impl Arbitrary for Op {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 20 {
            0..=1 => Self::Submit,
            16 => Self::Compact,
            17..=19 => Self::Review(ReviewOp::arbitrary(g)),
            2 => Self::Steer,
            3 => Self::Interrupt,
            4 => Self::AutoApprove(bool::arbitrary(g)),
            5..=6 => Self::Reply(u8::arbitrary(g)),
            7..=10 => Self::Model(ModelOp::arbitrary(g)),
            11..=13 => Self::Effect(u8::arbitrary(g) % 5 != 0),
            _ => Self::Advance(u16::arbitrary(g) % 3000),
        }
    }
}

/// A small review whose changes hold the secret: a committed `.env` and a file that names it.
fn review_source_with_secrets() -> DiffSource {
    let mut source = small_review_source();
    let changed = |path: &str, old: String, new: String| ChangedFile {
        path: path.into(),
        old_path: None,
        status: FileStatus::Modified,
        old_mode: Some(0o100_644),
        new_mode: Some(0o100_644),
        old: Some(old.into_bytes()),
        new: Some(new.into_bytes()),
    };
    source.files.push(changed(
        ".env",
        "TOKEN=old\n".into(),
        format!("TOKEN={SECRET}\n"),
    ));
    source.files.push(changed(
        "src/config.rs",
        "const T: &str = \"\";\n".into(),
        format!("const T: &str = \"{SECRET}\";\n"),
    ));
    source
}

/// The secret in the project's `.env`.
const SECRET: &str = "supersecretvalue123";

/// Flags and settings for one simulated session.
#[derive(Clone, Debug, Default)]
struct Setup {
    mode: u8,
    auto_approve: bool,
    deny: u8,
}

const DENY_POOL: &[&str] = &["bash(rm *)", "write(**)", "read(a.txt)", "bash(echo *)"];

impl Arbitrary for Setup {
    fn arbitrary(g: &mut Gen) -> Self {
        Self {
            mode: u8::arbitrary(g),
            auto_approve: bool::arbitrary(g),
            deny: u8::arbitrary(g),
        }
    }
}

impl Setup {
    fn deny_rules(&self) -> Vec<Rule> {
        DENY_POOL
            .iter()
            .enumerate()
            .filter(|(i, _)| self.deny & (1 << i) != 0)
            .map(|(_, r)| Rule::parse(r).expect("a valid rule"))
            .collect()
    }

    fn config(&self) -> Config {
        let mut config = config();
        config.auto_approve = self.auto_approve;
        config.permission_mode = Some(
            [
                PermissionMode::Default,
                PermissionMode::AcceptEdits,
                PermissionMode::Bypass,
                PermissionMode::ReadOnly,
            ][usize::from(self.mode % 4)],
        );
        let deny: Vec<String> = self.deny_rules().iter().map(ToString::to_string).collect();
        config.settings = vec![SettingsSource {
            path: "/home/u/.luxe/settings.json".into(),
            text: json!({"permissions": {"deny": deny}}).to_string(),
            scope: Scope::User,
        }];
        config
    }
}

fn config() -> Config {
    let mut config = test_config();
    on_fake_anthropic(&mut config, "k");
    config.timings.retry_base = Duration::from_millis(100);
    config.timings.retry_max = Duration::from_millis(1000);
    config.reviews_dir = Some("/home/u/.luxe/reviews".into());
    // io reads the project's `.env` files before the session starts.
    config.env_files = vec![EnvFile {
        path: "/work/app/.env".into(),
        bytes: format!("TOKEN={SECRET}\n").into_bytes(),
        identity: None,
    }];
    config
}

/// Plays model, tools and client against the core.
struct World {
    checked: Checked,
    denied: Vec<Rule>,
    started: bool,
    http: VecDeque<EffectId>,
    effects: VecDeque<Output>,
    prompt: Option<(String, String)>,
    tool_ids: u32,
    /// The review last loaded, as JSON.
    review: Option<Value>,
    /// The files and commands tools reach.
    io: FakeIo,
    /// The body of each model request not yet answered.
    bodies: BTreeMap<EffectId, Vec<u8>>,
    /// How each turn ended, in order.
    ended: Vec<String>,
    /// The GETs asked of the server, not answered.
    gets: Vec<(EffectId, String)>,
}

impl World {
    fn new() -> Self {
        Self::with(&Setup::default())
    }

    fn with(setup: &Setup) -> Self {
        Self::with_config(setup.config(), setup.deny_rules())
    }

    fn with_config(config: Config, denied: Vec<Rule>) -> Self {
        let mut world = Self {
            bodies: BTreeMap::new(),
            ended: Vec::new(),
            gets: Vec::new(),
            denied,
            started: false,
            checked: Checked::new(config, Instant::now()),
            http: VecDeque::new(),
            effects: VecDeque::new(),
            prompt: None,
            tool_ids: 0,
            review: None,
            io: fake_io(),
        };
        let start = world.checked.take_start();
        world.absorb(start);
        // The start-up probes answer first, as they do within milliseconds in real life.
        while !world.effects.is_empty() {
            world.effect(true);
        }
        world.started = true;
        world.io.guard_env = true;
        world
    }

    fn absorb(&mut self, outputs: Vec<Output>) {
        for output in outputs {
            if let Output::Frame(frame) = &output {
                // What io writes: the frame as it passes the gate.
                let mut line = Vec::new();
                frame.encode(&mut line);
                let text = String::from_utf8_lossy(&line);
                assert!(!text.contains(SECRET), "a frame carries the secret: {text}");
            }
            match output {
                Output::HttpRequest { id, request }
                    if request.method == HttpMethod::Get || request.url.ends_with("/api/show") =>
                {
                    // A question to a local server about its model (GETs, and Ollama's POST
                    // /api/show): it answers when the test says, or never, and nothing waits
                    // for it.
                    self.gets.push((id, request.url));
                }
                Output::HttpRequest { id, request } => {
                    check_request(&request.body);
                    let body = String::from_utf8_lossy(&request.body);
                    assert!(!body.contains(SECRET), "a model request carries the secret");
                    self.bodies.insert(id, request.body.clone());
                    self.http.push_back(id);
                }
                Output::CancelHttp { id } => self.http.retain(|h| *h != id),
                Output::Frame(frame) => match frame.event() {
                    Event::PermissionRequested(p) => {
                        self.prompt = Some(("permission".into(), p.id.clone()));
                    }
                    Event::QuestionAsked(q) => {
                        self.prompt = Some(("question".into(), q.id.clone()));
                    }
                    Event::GuidedReviewLoaded(loaded) => {
                        self.review = serde_json::to_value(&loaded.review).ok();
                    }
                    Event::TurnEnded(end) => {
                        let reason = serde_json::to_value(end.reason).expect("a reason serializes");
                        let error = end.error.clone().unwrap_or_default();
                        self.ended.push(format!("{reason} {error}"));
                    }
                    Event::PermissionResolved(_) | Event::QuestionResolved(_) => {
                        self.prompt = None;
                    }
                    _ => {}
                },
                Output::Exit { .. } => {}
                Output::CloseOpened { handle } => self.io.closed(handle),
                Output::Kill { id } => {
                    // The process dies; its exit is what io would report.
                    self.effects.retain(|e| e.result_id() != Some(id));
                    let out = self.checked.input(Input::ProcessExited {
                        id,
                        status: Ok(None),
                    });
                    self.absorb(out);
                }
                effect => self.effects.push_back(effect),
            }
        }
    }

    fn line(&mut self, frame: Value) {
        let out = self.checked.line(frame.to_string().as_bytes());
        self.absorb(out);
    }

    fn input(&mut self, input: Input<'_>) {
        let out = self.checked.input(input);
        self.absorb(out);
    }

    fn step(&mut self, op: &Op) {
        match op {
            Op::Submit => self.line(json!({"kind":"submit_user_message","content":{"text":"go"}})),
            Op::Compact => self.line(json!({"kind":"compact","content":{"request_id":"c"}})),
            Op::Steer => self.line(json!({"kind":"steer_turn","content":{"text":"and also"}})),
            Op::Interrupt => self.line(json!({"kind":"interrupt_turn"})),
            Op::AutoApprove(on) => {
                self.line(json!({"kind":"set_permission_auto_approve","content":{"enabled":on}}));
            }
            Op::Reply(choice) => {
                let (kind, id) = self
                    .prompt
                    .clone()
                    .unwrap_or(("permission".into(), "perm_404".into()));
                let frame = if kind == "permission" {
                    let reply = ["once", "always", "reject"][usize::from(*choice) % 3];
                    json!({"kind":"respond_permission","content":{"id":id,"reply":reply}})
                } else {
                    json!({"kind":"answer_question","content":{"id":id,"reply":{"answered":["a"]}}})
                };
                self.line(frame);
            }
            Op::Model(model) => self.model(model),
            Op::Review(op) => self.review(op),
            Op::Effect(ok) => self.effect(*ok),
            Op::Advance(ms) => {
                let out = self.checked.advance(Duration::from_millis(u64::from(*ms)));
                self.absorb(out);
            }
        }
    }

    fn model(&mut self, op: &ModelOp) {
        let Some(id) = self.http.pop_front() else {
            return;
        };
        let (body, cuts) = match op {
            ModelOp::Status(code) => {
                let body = br#"{"type":"error","error":{"type":"api_error","message":"boom"}}"#;
                return self.fail_with(id, *code, body);
            }
            ModelOp::Overflow => {
                let body = br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
                return self.fail_with(id, 400, body);
            }
            ModelOp::Fail => {
                return self.input(Input::HttpFailed {
                    id,
                    error: "connection reset".into(),
                });
            }
            ModelOp::Text(cuts) => (text_stream(), cuts),
            ModelOp::Tool(which, cuts) => {
                self.tool_ids += 1;
                (tool_stream(*which, self.tool_ids), cuts)
            }
        };
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
        bounds.extend([0, body.len()]);
        bounds.sort_unstable();
        let parts = bounds.windows(2).map(|w| &body[w[0]..w[1]]);
        self.run(http_answer(id, 200, parts));
    }

    fn review(&mut self, op: &ReviewOp) {
        let id = self
            .review
            .as_ref()
            .map_or(json!("review:none"), |r| r["id"].clone());
        let content = match op {
            ReviewOp::Load => {
                return self.line(json!({"kind":"load_guided_review","content":{"request_id":"l","target":{"kind":"working_tree"}}}));
            }
            ReviewOp::Comment { valid, send } => {
                let hunk = self
                    .review
                    .as_ref()
                    .map_or(Value::Null, |r| r["hunks"][0].clone());
                let line = if *valid {
                    hunk["new_start"].clone()
                } else {
                    json!(999)
                };
                json!({"edit":"comment","body":"why?","severity":"question","send":send,
                    "anchor":{"kind":"line","file_id":hunk["file_id"],"hunk_id":hunk["id"],"side":"new","line":line}})
            }
            ReviewOp::Fix => json!({"edit":"request_fix","comment_id":"finding_1","send":true}),
            ReviewOp::AgentReview => {
                return self.line(json!({"kind":"request_agent_review","content":{"request_id":"a","review_id":id}}));
            }
            ReviewOp::Commit => {
                return self.line(json!({"kind":"commit_review_chapters","content":{"request_id":"k","review_id":id}}));
            }
            ReviewOp::OtherReview => {
                return self.line(json!({"kind":"edit_review","content":{"request_id":"o","review_id":"review:other","edit":"resolve","comment_id":"finding_1"}}));
            }
        };
        let mut content = content;
        content["request_id"] = json!("e");
        content["review_id"] = id;
        self.line(json!({"kind":"edit_review","content":content}));
    }

    /// Answers request `id` with an error `status` and `body`.
    fn fail_with(&mut self, id: EffectId, status: u16, body: &[u8]) {
        self.run(http_answer(id, status, [body]));
    }

    /// Does what fake io answered, in order.
    fn run(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Feed(completion) => completion.lend(|input| self.input(input)),
                Step::Advance(by) => {
                    let out = self.checked.advance(by);
                    self.absorb(out);
                }
            }
        }
    }

    fn effect(&mut self, ok: bool) {
        let Some(effect) = self.effects.pop_front() else {
            return;
        };
        if let Output::Spawn { program, args, .. } = &effect
            && self.started
        {
            let command = args.last().cloned().unwrap_or_default();
            for rule in &self.denied {
                let parts = command.split([';', '&', '|']).map(str::trim);
                for part in std::iter::once(command.as_str()).chain(parts) {
                    assert!(!rule.covers("bash", part), "{command:?} ran despite {rule}");
                }
            }
            // Luxe's own git commands may stage a committed `.env` a review shows.
            let tool = program == "bash";
            assert!(!tool || !command.contains(".env"), "{command:?} ran");
        }
        if let Some(steps) = self.io.answer(&effect, ok) {
            return self.run(steps);
        }
        match effect {
            Output::ReadFile { id, path, .. } if path.contains("/reviews/") => {
                // No session yet, or one that is not a session file.
                let result = if ok {
                    Err("No such file or directory (os error 2)".into())
                } else {
                    Ok(FileContent {
                        bytes: b"{broken".to_vec(),
                        total_len: 7,
                        identity: None,
                    })
                };
                self.input(Input::FileRead { id, result });
            }
            Output::ReadDiff { id, .. } => {
                let result = if ok {
                    Ok(Box::new(review_source_with_secrets()))
                } else {
                    Err("not a git repository: /work/app".into())
                };
                self.input(Input::DiffRead { id, result });
            }
            Output::ReadFile { id, path, .. } => {
                if self.started {
                    assert!(!is_env_file(&path), "a tool read {path}");
                }
                // Every file holds the secret, as a shell trick could print it from anywhere.
                let bytes = if is_env_file(&path) {
                    format!("TOKEN={SECRET}\n").into_bytes()
                } else {
                    format!("hello world {SECRET}\n").into_bytes()
                };
                self.input(Input::FileRead {
                    id,
                    result: if ok {
                        Ok(FileContent::whole(bytes))
                    } else {
                        Err("no such file".into())
                    },
                })
            }
            other => panic!("unexpected effect {other:?}"),
        }
    }
}

/// The fake io of a simulated session: every file holds the secret (as a shell trick could
/// print it from anywhere), a command prints it split across two chunks, a listing finds
/// `a.rs`; `.env` files are guarded once the start-up probes are answered.
fn fake_io() -> FakeIo {
    let (head, tail) = SECRET.split_at(5);
    let output = vec![
        format!("out {head}").into_bytes(),
        format!("{tail} more\n").into_bytes(),
    ];
    let mut io = FakeIo::new(
        format!("hello world {SECRET}\n").into_bytes(),
        (output, Duration::ZERO),
    );
    io.listing = vec!["a.rs".into()];
    io.guard_env = false;
    io
}

fn text_stream() -> Vec<u8> {
    text_answer(None, "All done.")
}

fn tool_stream(which: u8, n: u32) -> Vec<u8> {
    let (name, input) = scripted_tool(usize::from(which));
    tool_call(&format!("toolu_{n}"), name, &input)
}

/// Every `tool_use` in an assistant message has its `tool_result` in the next message, results
/// answer only calls of the message before them, and roles alternate.
fn check_request(body: &[u8]) {
    let body: Value = serde_json::from_slice(body).expect("the request body is JSON");
    let messages = body["messages"].as_array().expect("messages");
    let ids = |m: &Value, kind: &str, field: &str| -> Vec<String> {
        m["content"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|b| b["type"] == kind)
                    .map(|b| b[field].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    for (i, message) in messages.iter().enumerate() {
        let calls = ids(message, "tool_use", "id");
        if !calls.is_empty() {
            let next = messages
                .get(i + 1)
                .expect("tool calls are followed by their results");
            assert_eq!(
                ids(next, "tool_result", "tool_use_id"),
                calls,
                "results pair with calls: {body}"
            );
        }
        let results = ids(message, "tool_result", "tool_use_id");
        if !results.is_empty() {
            let prev = &messages[i - 1];
            assert_eq!(
                ids(prev, "tool_use", "id"),
                results,
                "results answer the calls before them"
            );
        }
    }
    let first = messages.iter().find(|m| m["role"] != "system");
    assert_eq!(first.map(|m| &m["role"]), Some(&json!("user")));
    for pair in messages.windows(2) {
        assert_ne!(
            pair[0]["role"], pair[1]["role"],
            "roles alternate (chat templates reject two in a row): {body}"
        );
    }
}

fn runs() -> u64 {
    std::env::var("QUICKCHECK_TESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

fn random_interleavings_keep_every_promise(setup: Setup, ops: Vec<Op>) -> bool {
    let mut world = World::with(&setup);
    for op in &ops {
        world.step(op);
    }
    // Whatever state it is in, an interrupt ends the turn and the session still answers.
    world.line(json!({"kind":"interrupt_turn"}));
    world.line(json!({"kind":"set_mode","content":{"mode":"plan"}}));
    true
}

#[test]
fn property_random_interleavings_keep_every_promise() {
    QuickCheck::new()
        .tests(runs())
        .quickcheck(random_interleavings_keep_every_promise as fn(Setup, Vec<Op>) -> bool);
}

#[test]
fn a_tool_call_round_trip_in_simulation() {
    let mut world = World::new();
    world.step(&Op::Submit);
    world.step(&Op::Model(ModelOp::Tool(0, vec![7, 99])));
    // The file is opened first; then read inside cwd runs without a prompt, through it.
    assert!(matches!(
        world.effects.front(),
        Some(Output::OpenFile { .. })
    ));
    world.step(&Op::Effect(true));
    assert!(matches!(
        world.effects.front(),
        Some(Output::ReadOpened { .. })
    ));
    world.step(&Op::Effect(true));
    assert_eq!(world.http.len(), 1, "the result went back to the model");
    world.step(&Op::Model(ModelOp::Text(vec![])));
    assert!(world.http.is_empty() && world.effects.is_empty());
}

#[test]
fn retries_back_off_on_the_virtual_clock() {
    let mut world = World::new();
    world.step(&Op::Submit);
    world.step(&Op::Model(ModelOp::Status(529)));
    assert!(world.http.is_empty(), "waiting before the retry");
    world.step(&Op::Advance(2000));
    assert_eq!(world.http.len(), 1, "the retry went out after the backoff");
}

/// A llama.cpp-like server at its context limit: a window of `slack` tokens more than the first
/// request takes (the system prompt and the tools, about 5,000 characters, are most of a small
/// window such as llama-server's `-c 2048`), counting a token for every `chars_per_token`
/// characters of the request body; turn `i`'s user message and answer have sizes from `turns[i]`.
#[derive(Clone, Debug)]
struct ContextLimit {
    slack: u64,
    chars_per_token: u64,
    turns: Vec<(u16, u16)>,
}

impl Arbitrary for ContextLimit {
    fn arbitrary(g: &mut Gen) -> Self {
        let turns: Vec<(u16, u16)> = Vec::arbitrary(g);
        Self {
            slack: 300 + u64::from(u16::arbitrary(g) % 12_288),
            chars_per_token: 2 + u64::from(u8::arbitrary(g) % 3),
            turns: turns.into_iter().take(12).collect(),
        }
    }
}

/// An OpenAI-compatible stream of `text`, with the server's counts.
fn openai_text_stream(text: &str, prompt: u64, completion: u64) -> Vec<u8> {
    openai_sse(&[
        json!({"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}),
        json!({"choices":[{"index":0,"delta":{"content":text}}]}),
        json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        json!({"choices":[],"usage":{"prompt_tokens":prompt,"completion_tokens":completion}}),
    ])
}

/// OpenAI chunks as a server streams them, `[DONE]` last.
fn openai_sse(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for event in events {
        out.push_str(&format!("data: {event}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

/// Turns at the server's context limit: however the conversation grows, every request that
/// reaches the model has alternating roles, a refusal as too long recovers within the turn, and
/// every turn ends with the model's answer.
fn turns_at_the_context_limit_always_recover(limit: ContextLimit) -> bool {
    let mut world = local_world();
    let mut window = None;
    for (i, (message, answer)) in limit.turns.iter().enumerate() {
        // A user message of up to a fifth of the slack: the window holds it with the base.
        let room = usize::try_from(limit.slack * limit.chars_per_token / 5).unwrap_or(1_000);
        let text = format!(
            "question {i}: {}",
            "1, 2, 3, ".repeat(usize::from(*message) % room / 9)
        );
        world.line(json!({"kind":"submit_user_message","content":{"text":text}}));
        let mut refusals = 0;
        while world.ended.len() <= i {
            let Some(id) = world.http.pop_front() else {
                panic!("a turn waits on nothing: {:?}", world.ended);
            };
            let body = world.bodies.remove(&id).expect("a request has a body");
            let tokens = body.len() as u64 / limit.chars_per_token;
            let window = *window.get_or_insert(tokens + limit.slack);
            let max: u64 =
                serde_json::from_slice::<Value>(&body).expect("JSON")["max_completion_tokens"]
                    .as_u64()
                    .expect("max_completion_tokens");
            if tokens > window {
                refusals += 1;
                assert!(refusals <= 8, "refused {refusals} times in one turn");
                let error = json!({"error":{"code":400,"message":format!("request ({tokens} tokens) exceeds the available context size ({window} tokens), try increasing it"),"type":"exceed_context_size_error","n_prompt_tokens":tokens,"n_ctx":window}});
                world.fail_with(id, 400, error.to_string().as_bytes());
                continue;
            }
            let chars = (usize::from(*answer) % 2_000).min(usize::try_from(max).unwrap_or(0) * 2);
            let reply = format!("answer {i} {}", "x".repeat(chars));
            let stream =
                openai_text_stream(&reply, tokens, reply.len() as u64 / limit.chars_per_token);
            world.run(http_answer(id, 200, [&stream[..]]));
        }
        assert!(
            world.ended[i].starts_with("\"end_turn\""),
            "turn {i} ended {:?} with {limit:?}",
            world.ended[i]
        );
    }
    true
}

#[test]
fn property_turns_at_the_context_limit_always_recover() {
    QuickCheck::new()
        .tests(runs() / 3)
        .quickcheck(turns_at_the_context_limit_always_recover as fn(ContextLimit) -> bool);
}

/// A session on a local OpenAI-compatible server's model, outside the catalogue.
/// A session on a local server whose questions about the model stay unanswered; its turns
/// do not wait for them (the waiting has tests of its own).
fn local_world() -> World {
    local_world_waiting(Duration::ZERO)
}

/// The same, with turns waiting up to `window_wait` for the server's word on the window.
fn local_world_waiting(window_wait: Duration) -> World {
    let mut config = config();
    config.timings.window_wait = window_wait;
    config.model = Some("openai/smollm2".into());
    config.providers = Providers {
        anthropic: None,
        openai: Some(Endpoint {
            base_url: "http://llama.test/v1".into(),
            api_key: None,
        }),
    };
    World::with_config(config, Vec::new())
}

/// Streams `events` (OpenAI chunks) as the answer to the oldest model request; its body.
fn answer_openai(world: &mut World, events: &[Value]) -> Value {
    let id = world.http.pop_front().expect("a model request");
    let body = world.bodies.remove(&id).expect("a body");
    world.run(http_answer(id, 200, [&openai_sse(events)[..]]));
    serde_json::from_slice(&body).expect("JSON")
}

/// Answers the server's question `id` with 200 and `body`, all but its end.
fn answer_but_end(world: &mut World, id: EffectId, body: &[u8]) {
    world.input(Input::HttpResponse {
        id,
        status: 200,
        retry_after: None,
    });
    world.input(Input::HttpBody { id, bytes: body });
}

fn submit_go(world: &mut World) {
    world.line(json!({"kind":"submit_user_message","content":{"text":"go"}}));
}

#[test]
fn the_token_limit_in_the_middle_of_a_tool_call_ends_the_turn_max_tokens() {
    let mut world = local_world();
    submit_go(&mut world);
    answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}),
            json!({"choices":[{"index":0,"delta":{"content":"Let me read it."}}]}),
            json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\": \"src/ma"}}]}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}),
        ],
    );
    assert_eq!(world.ended[0], "\"max_tokens\" ");
    submit_go(&mut world);
    let next = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"ok"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert!(
        next.to_string().contains("Let me read it."),
        "the text is kept: {next}"
    );
    assert_eq!(world.ended[1], "\"end_turn\" ");
}

#[test]
fn an_answer_that_is_only_reasoning_is_kept_in_the_conversation() {
    let mut world = local_world();
    submit_go(&mut world);
    answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"reasoning_content":"thinking it over"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert_eq!(world.ended[0], "\"end_turn\" ");
    submit_go(&mut world);
    let next = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"ok"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    let messages = next["messages"].as_array().expect("messages");
    assert_eq!(
        messages[2],
        json!({"role":"assistant","content":"thinking it over"}),
        "{next}"
    );
}

#[test]
fn an_interrupted_turn_counts_what_streamed_and_unknown_prices_make_the_session_cost_null() {
    let mut world = local_world();
    submit_go(&mut world);
    let id = *world.http.front().expect("a model request");
    world.input(Input::HttpResponse {
        id,
        status: 200,
        retry_after: None,
    });
    let mut stream = String::new();
    for _ in 0..120 {
        let chunk = json!({"choices":[{"index":0,"delta":{"content":"word "}}]});
        stream.push_str(&format!("data: {chunk}\n\n"));
    }
    world.input(Input::HttpBody {
        id,
        bytes: stream.as_bytes(),
    });
    let out = world.checked.line(br#"{"kind":"interrupt_turn"}"#);
    let usage = out
        .iter()
        .find_map(|o| match o {
            Output::Frame(frame) => match frame.event() {
                Event::TurnUsage(u) => Some(serde_json::to_value(u).expect("JSON")),
                _ => None,
            },
            _ => None,
        })
        .expect("turn_usage");
    world.absorb(out);
    assert!(
        usage["completion_tokens"].as_u64().unwrap() >= 100,
        "{usage}"
    );
    assert!(usage["prompt_tokens"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(usage["cost_usd"], Value::Null);
    assert_eq!(usage["session_cost_usd"], Value::Null, "{usage}");
}

#[test]
fn a_llama_cpp_overflow_teaches_the_window_and_output_is_capped_to_fit() {
    let mut world = local_world();
    submit_go(&mut world);
    let answer = "1, 2, 3, ".repeat(300);
    answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":answer}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    submit_go(&mut world);
    let id = world.http.pop_front().expect("a model request");
    let first: Value = serde_json::from_slice(&world.bodies.remove(&id).unwrap()).unwrap();
    assert!(
        first["max_completion_tokens"].as_u64().unwrap() <= 4_096,
        "no more than a small model's whole context when the window is not known: {}",
        first["max_completion_tokens"]
    );
    let body = br#"{"error":{"code":400,"message":"request (2117 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":2117,"n_ctx":2048}}"#;
    let out = {
        world.input(Input::HttpResponse {
            id,
            status: 400,
            retry_after: None,
        });
        world.input(Input::HttpBody { id, bytes: body });
        world.checked.input(Input::HttpEnded { id })
    };
    let learned = out.iter().find_map(|o| match o {
        Output::Frame(frame) => match frame.event() {
            Event::StateChanged(s) => s.model.as_ref().and_then(|m| m.context_window),
            _ => None,
        },
        _ => None,
    });
    world.absorb(out);
    assert_eq!(
        learned,
        Some(2048),
        "state_changed shows the window learned"
    );
    let id = *world.http.front().expect("sent again");
    let again: Value = serde_json::from_slice(&world.bodies[&id]).unwrap();
    assert!(
        again["max_completion_tokens"].as_u64().unwrap() <= 2048 / 4 + 256,
        "{}",
        again["max_completion_tokens"]
    );
}

#[test]
fn the_first_request_waits_for_the_window_and_fits_it_with_its_output_cap() {
    let mut world = local_world_waiting(Duration::from_secs(2));
    submit_go(&mut world);
    assert!(
        world.http.is_empty(),
        "no request while the server is asked"
    );
    // A question that fails changes nothing: the others may still say the window.
    let (models, _) = world.gets[0].clone();
    world.input(Input::HttpFailed {
        id: models,
        error: "connection refused".into(),
    });
    assert!(world.http.is_empty(), "/props and /api/show are still out");
    let (props, _) = world.gets[1].clone();
    answer_but_end(
        &mut world,
        props,
        br#"{"default_generation_settings":{"n_ctx":2048}}"#,
    );
    assert!(world.http.is_empty(), "not before the answer is whole");
    world.input(Input::HttpEnded { id: props });
    assert_eq!(world.http.len(), 1, "the window is known: sent");
    let first = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"hi"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    let cap = first["max_completion_tokens"].as_u64().unwrap();
    let chars = first["messages"].to_string().len() + first["tools"].to_string().len();
    assert!(
        (chars as u64).div_ceil(3) + cap <= 2048,
        "{chars} characters at 3 a token and {cap} fit the window"
    );
}

#[test]
fn a_first_request_waits_for_the_window_no_longer_than_window_wait() {
    let mut world = local_world_waiting(Duration::from_secs(2));
    submit_go(&mut world);
    let out = world.checked.advance(Duration::from_millis(1_999));
    world.absorb(out);
    assert!(world.http.is_empty(), "still waiting");
    let out = world.checked.advance(Duration::from_millis(1));
    world.absorb(out);
    assert_eq!(world.http.len(), 1, "sent without the window");
    let sent: Value = serde_json::from_slice(&world.bodies[&world.http[0]]).unwrap();
    assert_eq!(
        sent["max_completion_tokens"], 4096,
        "a model of unknown size"
    );
}

#[test]
fn the_server_says_its_window_and_that_its_template_cannot_use_tools() {
    let mut world = local_world();
    let urls: Vec<&str> = world.gets.iter().map(|(_, url)| url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://llama.test/v1/models",
            "http://llama.test/props",
            "http://llama.test/api/show"
        ]
    );
    // Without a wait, a turn goes ahead while the server has not answered.
    submit_go(&mut world);
    let first = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"hi"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert!(first["tools"].is_array());
    let (props, _) = world.gets[1].clone();
    let answer = br#"{"default_generation_settings":{"n_ctx":2048},"chat_template_caps":{"supports_tools":false}}"#;
    answer_but_end(&mut world, props, answer);
    let out = world.checked.input(Input::HttpEnded { id: props });
    let state = out
        .iter()
        .rev()
        .find_map(|o| match o {
            Output::Frame(frame) => match frame.event() {
                Event::StateChanged(s) => s.model.clone(),
                _ => None,
            },
            _ => None,
        })
        .expect("state_changed says what was learned");
    world.absorb(out);
    assert_eq!(state.context_window, Some(2048));
    assert_eq!(state.supports_tools, Some(false));
    submit_go(&mut world);
    let second = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"hi"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert!(
        second.get("tools").is_none(),
        "no tools for a template that drops them"
    );
    assert!(second["max_completion_tokens"].as_u64().unwrap() <= 2048);
    // The other question times out and is given up.
    let (models, _) = world.gets[0].clone();
    let out = world.checked.advance(Duration::from_secs(6));
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::CancelHttp { id } if *id == models))
    );
}
