//! A simulated `luxe --rpc` session: the client, the model (Anthropic's wire format), the tools'
//! machine and the clock played against `luxe-core`, every step checked by the harness's ledger
//! (one `turn_ended` per `turn_started`, every prompt settled once, no tool work outside a
//! turn), and every model request well formed (each tool call has its result in the very next
//! message, roles alternate). No `.env` value reaches a frame, a request or a command.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use luxe_core::config::{Fresh, SessionFile};
use luxe_core::effects::EnvFile;
use luxe_core::effects::HttpMethod;
use luxe_core::effects::{ChangedFile, DiffSource};
use luxe_core::effects::{Completion, EffectId, FileContent};
use luxe_core::effects::{Scope, SettingsSource};
use luxe_core::harness::anthropic_sse::{scripted_tool, text_answer, tool_call};
use luxe_core::harness::fake_io::{FakeIo, Step, http_answer};
use luxe_core::harness::{Checked, on_fake_anthropic, test_config};
use luxe_core::permissions::is_env_file;
use luxe_core::permissions::rules::Rule;
use luxe_core::protocol::events::Event;
use luxe_core::protocol::guided_review::FileStatus;
use luxe_core::protocol::values::PermissionMode;
use luxe_core::{Config, Input, Output};
use serde_json::{Value, json};

use crate::draw::Draw;
use crate::session::small_review_source;

/// One step of a simulated rpc session.
#[derive(Clone, Debug)]
pub enum Op {
    /// `submit_user_message`.
    Submit,
    /// `compact` with no instructions: summarise the conversation now.
    Compact,
    /// `steer_turn`.
    Steer,
    /// `interrupt_turn`.
    Interrupt,
    /// `set_permission_auto_approve`.
    AutoApprove(bool),
    /// Answers the prompt or question waiting (or one that does not exist): which answer.
    Reply(u8),
    /// The model answers its oldest request.
    Model(ModelOp),
    /// io performs its oldest effect (`true`: as a healthy machine would).
    Effect(bool),
    /// The clock moves this many milliseconds.
    Advance(u16),
    /// A reviewer's action on the session's guided review.
    Review(ReviewOp),
    /// The process is killed and started again on its session file (`true`: an append in
    /// flight is cut halfway, as a crash mid-write leaves it). Nothing io confirmed is lost.
    Restart(bool),
}

/// What a reviewer does; anchors are taken from the loaded review (or invented).
#[derive(Clone, Debug)]
pub enum ReviewOp {
    /// `load_guided_review` of the working tree.
    Load,
    /// A comment on the first hunk (`valid`: on a line it shows), sent to the agent or not.
    Comment {
        /// Whether its line is one the hunk shows.
        valid: bool,
        /// Whether it is sent at once.
        send: bool,
    },
    /// A fix asked of the agent.
    Fix,
    /// `request_agent_review`.
    AgentReview,
    /// `commit_review_chapters`.
    Commit,
    /// An edit of a review that is not open.
    OtherReview,
}

impl ReviewOp {
    /// A reviewer's step, drawn.
    pub fn draw(g: &mut impl Draw) -> Self {
        match g.byte() % 7 {
            0 => Self::Load,
            1 | 2 => Self::Comment {
                valid: !g.byte().is_multiple_of(4),
                send: g.bool(),
            },
            3 => Self::Fix,
            4 => Self::AgentReview,
            5 => Self::Commit,
            _ => Self::OtherReview,
        }
    }
}

/// How the model answers a request.
#[derive(Clone, Debug)]
pub enum ModelOp {
    /// Text, in chunks cut at these positions.
    Text(Vec<usize>),
    /// A tool call (which of the scripted tools), in chunks cut at these positions.
    Tool(u8, Vec<usize>),
    /// An error with this HTTP status.
    Status(u16),
    /// A 400 saying the prompt is too long for the context window.
    Overflow,
    /// The connection drops before a status line (io's failure, retried like a 5xx).
    Fail,
}

impl ModelOp {
    /// How the model answers, drawn.
    pub fn draw(g: &mut impl Draw) -> Self {
        let cuts = g.cuts();
        match g.byte() % 9 {
            0..=2 => Self::Text(cuts),
            3..=5 => Self::Tool(g.byte(), cuts),
            6 => Self::Status(*g.pick(&[400, 429, 500, 529])),
            7 => Self::Overflow,
            _ => Self::Fail,
        }
    }
}

impl Op {
    /// A step of the client, the model, io or the clock, drawn.
    pub fn draw(g: &mut impl Draw) -> Self {
        match g.byte() % 20 {
            15 if g.byte().is_multiple_of(4) => Self::Restart(g.bool()),
            0..=1 => Self::Submit,
            16 => Self::Compact,
            17..=19 => Self::Review(ReviewOp::draw(g)),
            2 => Self::Steer,
            3 => Self::Interrupt,
            4 => Self::AutoApprove(g.bool()),
            5..=6 => Self::Reply(g.byte()),
            7..=10 => Self::Model(ModelOp::draw(g)),
            11..=13 => Self::Effect(!g.byte().is_multiple_of(5)),
            _ => Self::Advance((g.number() % 3000) as u16),
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
pub const SECRET: &str = "supersecretvalue123";

/// Flags and settings for one simulated session.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// The permission mode (of four).
    mode: u8,
    /// `--auto-approve` at start (an `AutoApprove` op can change it later).
    auto_approve: bool,
    /// Which deny rules of a small pool the settings hold (a bit each).
    deny: u8,
    /// Whether the session is kept in a file (and so can be restarted on it).
    store: bool,
}

const DENY_POOL: &[&str] = &["bash(rm *)", "write(**)", "read(a.txt)", "bash(echo *)"];

impl Setup {
    /// Flags and settings, drawn.
    pub fn draw(g: &mut impl Draw) -> Self {
        Self {
            mode: g.byte(),
            auto_approve: g.bool(),
            deny: g.byte(),
            store: g.bool(),
        }
    }

    fn deny_rules(&self) -> Vec<Rule> {
        DENY_POOL
            .iter()
            .enumerate()
            .filter(|(i, _)| self.deny & (1 << i) != 0)
            .map(|(_, r)| Rule::parse(r).expect("a valid rule"))
            .collect()
    }

    /// The config of a session with this setup.
    pub fn config(&self) -> Config {
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
        if self.store {
            config.sessions_dir = Some(SESSIONS.into());
        }
        config
    }
}

/// Where a kept session's file is written.
const SESSIONS: &str = "/home/u/.luxe/sessions";

/// The session files io wrote, and what of them it confirmed.
#[derive(Debug, Default)]
struct Disk {
    /// Each file's bytes as they are on disk.
    files: BTreeMap<String, Vec<u8>>,
    /// Turn ends whose appends io confirmed: a restart must find at least these.
    confirmed_turns: u32,
}

/// The config every simulated rpc session starts from: a fake Anthropic, short retries, a
/// reviews directory, and a `.env` holding [`SECRET`].
pub fn config() -> Config {
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
pub struct World {
    /// The session, checked at every step.
    pub checked: Checked,
    denied: Vec<Rule>,
    /// Model requests not yet answered, oldest first.
    pub http: VecDeque<EffectId>,
    /// Effects io has not yet performed, oldest first.
    pub effects: VecDeque<Output>,
    prompt: Option<(String, String)>,
    tool_ids: u32,
    /// The review last loaded, as JSON.
    review: Option<Value>,
    /// The files and commands tools reach.
    io: FakeIo,
    /// The body of each model request not yet answered.
    pub bodies: BTreeMap<EffectId, Vec<u8>>,
    /// How each turn ended, in order.
    pub ended: Vec<String>,
    /// The GETs asked of the server, not answered.
    pub gets: Vec<(EffectId, String)>,
    /// The frames written since [`World::take_shown`] last took them, as io writes them.
    shown: Vec<String>,
    /// The config it started from, to start again from after a restart.
    config: Config,
    /// The disk the session file is on: it outlives a restart.
    disk: Disk,
    /// How many times the session took something (a line, an io result, time passing), across
    /// restarts: a step that fed it nothing did nothing.
    fed: u64,
}

impl World {
    /// A session with the default setup.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self::with(&Setup::default())
    }

    /// A session with `setup`.
    pub fn with(setup: &Setup) -> Self {
        Self::with_config(setup.config(), setup.deny_rules())
    }

    /// A session with `config`, whose settings deny `denied` (checked against every command
    /// run); its start-up probes answered.
    pub fn with_config(config: Config, denied: Vec<Rule>) -> Self {
        let mut world = Self {
            bodies: BTreeMap::new(),
            ended: Vec::new(),
            gets: Vec::new(),
            shown: Vec::new(),
            disk: Disk::default(),
            denied,
            checked: Checked::new(config.clone(), Instant::now()),
            config,
            http: VecDeque::new(),
            effects: VecDeque::new(),
            prompt: None,
            tool_ids: 0,
            review: None,
            io: fake_io(),
            fed: 0,
        };
        let start = world.checked.take_start();
        world.absorb(start);
        // The start-up probes answer first, as they do within milliseconds in real life.
        while !world.effects.is_empty() {
            world.effect(true);
        }
        world.io.guard_env = true;
        world
    }

    /// Takes the session's outputs: frames checked, effects queued for io or the model.
    pub fn absorb(&mut self, outputs: Vec<Output>) {
        for output in outputs {
            if let Output::Frame(frame) = &output {
                // What io writes: the frame as it passes the gate.
                let mut line = Vec::new();
                frame.encode(&mut line);
                // The harness checks it holds no `.env` value (SECRET among them).
                self.shown
                    .push(String::from_utf8_lossy(&line).trim_end().to_owned());
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

    /// The frames written since the last call, as io writes them.
    pub fn take_shown(&mut self) -> Vec<String> {
        std::mem::take(&mut self.shown)
    }

    /// How many times the session took something so far: a step that leaves it as it was did
    /// nothing (a model answer with no request waiting, a restart with no session file).
    pub fn fed(&self) -> u64 {
        self.fed
    }

    /// Sends a client line.
    pub fn line(&mut self, frame: Value) {
        self.fed += 1;
        let out = self.checked.line(frame.to_string().as_bytes());
        self.absorb(out);
    }

    /// Hands the session an io `input`, as io would, and takes what it answers.
    pub fn input(&mut self, input: Input<'_>) {
        self.fed += 1;
        let out = self.checked.input(input);
        self.absorb(out);
    }

    /// Does `op` as the client, io, the model or the clock would; its outputs are checked
    /// as they come.
    pub fn step(&mut self, op: &Op) {
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
            Op::Restart(torn) => self.restart(*torn),
            Op::Advance(ms) => {
                self.fed += 1;
                let out = self.checked.advance(Duration::from_millis(u64::from(*ms)));
                self.absorb(out);
            }
        }
    }

    fn model(&mut self, op: &ModelOp) {
        let Some(id) = self.http.pop_front() else {
            return;
        };
        let steps = model_answer(op, id, &mut self.tool_ids);
        self.run(steps);
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
    pub fn fail_with(&mut self, id: EffectId, status: u16, body: &[u8]) {
        self.run(http_answer(id, status, [body]));
    }

    /// Does what fake io answered, in order.
    pub fn run(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Feed(completion) => completion.lend(|input| self.input(input)),
                Step::Advance(by) => {
                    self.fed += 1;
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
            && self.io.guard_env
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
        let effect = match effect {
            Output::AppendFile { id, path, bytes } => return self.append(id, path, &bytes, ok),
            // Made durable: the disk here never loses what it was given.
            Output::SyncFile { .. } => return,
            effect => effect,
        };
        let steps = performed(&mut self.io, effect, ok);
        self.run(steps);
    }

    /// Appends `bytes` to the file at `path` (`ok`: whole; else the disk fills halfway).
    fn append(&mut self, id: EffectId, path: String, bytes: &[u8], ok: bool) {
        let file = self.disk.files.entry(path).or_default();
        let result = if ok {
            file.extend_from_slice(bytes);
            self.disk.confirmed_turns += turn_ends(bytes);
            Ok(())
        } else {
            file.extend_from_slice(&bytes[..bytes.len() / 2]);
            Err("No space left on device (os error 28)".into())
        };
        self.input(Input::FileAppended { id, result });
    }

    /// The process dies and starts again on its session file, as `--resume` starts it: every
    /// turn whose end io confirmed is there. `torn`: an append in flight is cut halfway.
    fn restart(&mut self, torn: bool) {
        let Some((path, _)) = self.disk.files.iter().next() else {
            return;
        };
        let path = path.clone();
        if torn
            && let Some(Output::AppendFile { bytes, .. }) = (self.effects.iter())
                .find(|e| matches!(e, Output::AppendFile { path: p, .. } if *p == path))
        {
            let cut = bytes[..bytes.len() / 2].to_vec();
            self.disk.files.entry(path.clone()).or_default().extend(cut);
        }
        let bytes = self.disk.files[&path].clone();
        let fresh = Fresh {
            session_id: self.config.session_id.clone(),
            unix_ms: self.config.unix_ms,
            rng_seed: self.config.rng_seed,
            today: self.config.today.clone(),
        };
        let config = self
            .config
            .next_session(fresh, Some(SessionFile { path, bytes }));
        let disk = std::mem::take(&mut self.disk);
        let confirmed = disk.confirmed_turns;
        let fed = self.fed;
        *self = Self::with_config(config, std::mem::take(&mut self.denied));
        self.disk = disk;
        self.fed = fed + 1;
        let restored = (self.shown.iter())
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|frame| frame["kind"] == "session_restored")
            .expect("a resumed session says what it restored");
        let turns = restored["content"]["turns"].as_u64().unwrap_or(0);
        assert!(
            turns >= u64::from(confirmed),
            "{confirmed} turn ends were confirmed written, {turns} restored"
        );
    }
}

/// What io does for `effect` (`ok`: as a healthy machine would), as steps to feed: tools through
/// `io`; a review's session file is missing (or broken); a diff holds the secret; every other
/// file holds the secret too (no tool may read a `.env` once `io` guards them, after start-up).
pub(crate) fn performed(io: &mut FakeIo, effect: Output, ok: bool) -> Vec<Step> {
    if let Some(steps) = io.answer(&effect, ok) {
        return steps;
    }
    let feed = |completion| vec![Step::Feed(completion)];
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
            feed(Completion::FileRead { id, result })
        }
        Output::ReadDiff { id, .. } => {
            let result = if ok {
                Ok(Box::new(review_source_with_secrets()))
            } else {
                Err("not a git repository: /work/app".into())
            };
            feed(Completion::DiffRead { id, result })
        }
        Output::ReadFile { id, path, .. } => {
            if io.guard_env {
                assert!(!is_env_file(&path), "a tool read {path}");
            }
            // Every file holds the secret, as a shell trick could print it from anywhere.
            let bytes = if is_env_file(&path) {
                format!("TOKEN={SECRET}\n").into_bytes()
            } else {
                format!("hello world {SECRET}\n").into_bytes()
            };
            feed(Completion::FileRead {
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

/// The model's answer to request `id` as `op` says, as steps to feed (tool call ids counted by
/// `calls`).
pub(crate) fn model_answer(op: &ModelOp, id: EffectId, calls: &mut u32) -> Vec<Step> {
    let (body, cuts) = match op {
        ModelOp::Status(code) => {
            let body = br#"{"type":"error","error":{"type":"api_error","message":"boom"}}"#;
            return http_answer(id, *code, [&body[..]]);
        }
        ModelOp::Overflow => {
            let body = br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
            return http_answer(id, 400, [&body[..]]);
        }
        ModelOp::Fail => {
            return vec![Step::Feed(Completion::HttpFailed {
                id,
                error: "connection reset".into(),
            })];
        }
        ModelOp::Text(cuts) => (text_stream(), cuts),
        ModelOp::Tool(which, cuts) => {
            *calls += 1;
            (tool_stream(*which, *calls), cuts)
        }
    };
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
    bounds.extend([0, body.len()]);
    bounds.sort_unstable();
    let parts = bounds.windows(2).map(|w| &body[w[0]..w[1]]);
    http_answer(id, 200, parts)
}

/// How many turn ends `bytes` (whole records of a session file) hold.
fn turn_ends(bytes: &[u8]) -> u32 {
    let records = bytes.split(|b| *b == b'\n');
    let ends = records.filter(|line| {
        serde_json::from_slice::<Value>(line).is_ok_and(|record| record["type"] == "turn_ended")
    });
    u32::try_from(ends.count()).unwrap_or(u32::MAX)
}

/// The fake io of a simulated session: every file holds the secret (as a shell trick could
/// print it from anywhere), a command prints it split across two chunks, a listing finds
/// `a.rs`; `.env` files are guarded once the start-up probes are answered.
pub(crate) fn fake_io() -> FakeIo {
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

impl quickcheck::Arbitrary for Op {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        Self::draw(g)
    }
}

impl quickcheck::Arbitrary for Setup {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        Self::draw(g)
    }
}
