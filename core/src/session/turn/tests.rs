//! The turns machine on its own, without a session, on a clock the test keeps: a turn streams
//! its answer and ends (then the queued message starts), a refused request backs off and the
//! due timer sends the next attempt, silence past the idle deadline gives the request up, tool
//! calls go to the tool-run machine and their results back to the model, an interrupt keeps
//! what was shown, a turn waits for the start-up probes, and `compact` replaces the older
//! conversation with the summary.

use serde_json::json;

use super::*;
use crate::config::{Providers, Timings};
use crate::effects::{EffectId, Frame, Input, Output};
use crate::harness::anthropic_sse::{text_answer, tool_call};
use crate::mcp::config::HostEnv;
use crate::mcp::{Mcp, McpSettings};
use crate::model::catalogue::ModelRef;
use crate::model::wire::Endpoint;
use crate::protocol::actions::Compact;
use crate::protocol::values::{Mode, PermissionMode, Thinking};
use crate::redact::Redactor;
use crate::rng::Rng;
use crate::session::outbox::Outbox;
use crate::session::project_context::ProjectContext;
use crate::session::server_probe::ServerProbes;
use crate::session::state_changed::StateView;
use crate::session::store::Store;
use crate::session::test_clock::Ms;

const CWD: &str = "/work/p";

/// What the machine borrows, kept between inputs.
struct Bench {
    outbox: Outbox,
    store: Store,
    probes: ServerProbes,
    model: Option<ModelRef>,
    providers: Providers,
    timings: Timings,
    context: ProjectContext,
    redactor: Redactor,
    mcp: Mcp,
}

impl Bench {
    /// A session on Anthropic's Sonnet with its probes done.
    fn new() -> Self {
        let timings = Timings {
            max_attempts: 2,
            ..Timings::default()
        };
        let mcp = Mcp::new(
            Vec::new(),
            McpSettings {
                timeout: timings.mcp_timeout,
                restart_base: timings.mcp_restart,
                restart_max: timings.mcp_restart,
                cwd: CWD.into(),
                env: HostEnv(Vec::new()),
                client_version: "0".into(),
            },
        );
        Self {
            outbox: Outbox::default(),
            store: Store::new(None, "s1", CWD, "2026-12-02"),
            probes: ServerProbes::default(),
            model: ModelRef::parse("anthropic/claude-sonnet-4-5").ok(),
            providers: Providers {
                anthropic: Some(Endpoint {
                    base_url: "http://127.0.0.1:9".into(),
                    api_key: Some("k".into()),
                }),
                openai: None,
            },
            timings,
            context: ProjectContext::found_nothing(),
            redactor: Redactor::new(Vec::<String>::new()),
            mcp,
        }
    }

    /// The turns machine on this bench's timings, its back-off drawn from a fixed seed.
    fn turns(&self) -> Turns<Ms> {
        Turns::new(None, self.timings, Rng::new(7))
    }

    fn desk(&mut self) -> TurnDesk<'_> {
        TurnDesk {
            journal: Journal {
                outbox: &mut self.outbox,
                store: &mut self.store,
                settings: Settings {
                    model: self.model.as_ref(),
                    mode: Mode::Build,
                    thinking: Thinking::default(),
                },
            },
            providers: &self.providers,
            probes: &self.probes,
            prompt: Prompt {
                cwd: CWD,
                platform: "linux",
                today: "2026-12-02",
                context: &self.context,
                redactor: &self.redactor,
                questions: true,
                mcp: &self.mcp,
            },
        }
    }

    /// `submit`, followed as the session follows it.
    fn submit(
        &mut self,
        turns: &mut Turns<Ms>,
        at: Ms,
        queued: Queued,
        source: TurnSource,
    ) -> Then {
        let then = turns.submit(&mut self.outbox, self.model.as_ref(), queued, source);
        self.follow(turns, at, then)
    }

    /// The session is free again, as the session makes it: `state_changed`, then the queue.
    fn after_run(&mut self, turns: &mut Turns<Ms>, at: Ms, closed: bool) -> Then {
        self.emit_state(turns);
        let then = turns.after_run(self.model.as_ref(), closed);
        self.follow(turns, at, then)
    }

    /// `compact`, followed as the session follows it.
    fn compact(&mut self, turns: &mut Turns<Ms>, at: Ms, request: Compact) -> Result<Then, String> {
        let then = turns.compact(&self.desk(), request)?;
        Ok(self.follow(turns, at, then))
    }

    /// Does what the session does for a `Then` that asks it to say `state_changed` or learn a
    /// window; returns the first `Then` that asks for more.
    fn follow(&mut self, turns: &mut Turns<Ms>, at: Ms, mut then: Then) -> Then {
        loop {
            let resume = match then {
                Then::StateChanged(resume) => {
                    self.emit_state(turns);
                    resume
                }
                Then::WindowSaid(window, resume) => {
                    let model = self.model.as_ref().expect("a model sent the request");
                    if model.context_window().is_none()
                        && self.probes.learn_window(model.spec(), window)
                    {
                        self.emit_state(turns);
                    }
                    resume
                }
                other => return other,
            };
            then = turns.resume(&mut self.desk(), at, resume);
        }
    }

    /// Says `state_changed` as a session in build mode with default permissions would.
    fn emit_state(&mut self, turns: &Turns<Ms>) {
        let view = StateView {
            model: self.model.as_ref(),
            providers: &self.providers,
            probes: &self.probes,
            mode: Mode::Build,
            thinking: Thinking::default(),
            permission_mode: PermissionMode::Default,
            auto_approve: false,
            trust_project: false,
        };
        self.outbox.emit(view.frame(turns.is_running()));
    }

    /// Everything queued since the last look.
    fn outputs(&mut self) -> Vec<Output> {
        std::iter::from_fn(|| self.outbox.pop()).collect()
    }
}

/// The frames among `outputs`, by their wire names.
fn kinds(outputs: &[Output]) -> Vec<&'static str> {
    outputs
        .iter()
        .filter_map(|output| match output {
            Output::Frame(frame) => Some(frame.event().kind()),
            _ => None,
        })
        .collect()
}

/// The content of the frame of kind `kind` among `outputs`, as JSON.
fn frame(outputs: &[Output], kind: &str) -> serde_json::Value {
    outputs
        .iter()
        .find_map(|output| match output {
            Output::Frame(frame) if frame.event().kind() == kind => Some(to_json(frame)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {kind} among {:?}", kinds(outputs)))
}

fn to_json(frame: &Frame) -> serde_json::Value {
    let mut line = Vec::new();
    frame.encode(&mut line);
    let frame: serde_json::Value = serde_json::from_slice(&line).expect("a frame is JSON");
    frame["content"].clone()
}

/// The model requests among `outputs`.
fn requests(outputs: &[Output]) -> Vec<EffectId> {
    outputs
        .iter()
        .filter_map(|output| match output {
            Output::HttpRequest { id, .. } => Some(*id),
            _ => None,
        })
        .collect()
}

fn message(text: &str) -> Queued {
    Queued {
        text: text.into(),
        images: Vec::new(),
        review: None,
    }
}

/// Answers request `id` with status 200 and `body`, whole: what the turns need once the
/// message is over (its last event, or the stream's end).
fn answer(turns: &mut Turns<Ms>, bench: &mut Bench, at: Ms, id: EffectId, body: &[u8]) -> Then {
    let ok = Input::HttpResponse {
        id,
        status: 200,
        retry_after: None,
    };
    assert!(matches!(
        turns.handle_http(&mut bench.desk(), at, ok),
        Then::Nothing
    ));
    let bytes = Input::HttpBody { id, bytes: body };
    match turns.handle_http(&mut bench.desk(), at, bytes) {
        Then::Nothing => turns.handle_http(&mut bench.desk(), at, Input::HttpEnded { id }),
        then => then,
    }
}

#[test]
fn a_turn_streams_its_answer_and_ends_then_the_queued_message_starts() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    let then = bench.submit(&mut turns, Ms(0), message("hi"), TurnSource::User);
    assert!(matches!(then, Then::Nothing));
    let out = bench.outputs();
    assert_eq!(kinds(&out), ["state_changed", "turn_started"]);
    assert_eq!(frame(&out, "state_changed")["streaming"], true);
    let [first] = requests(&out)[..] else {
        panic!("one request: {out:?}")
    };
    let then = bench.submit(&mut turns, Ms(1), message("next"), TurnSource::User);
    assert!(matches!(then, Then::Nothing));
    let out = bench.outputs();
    assert_eq!(frame(&out, "user_message_queued")["position"], 1);
    assert!(requests(&out).is_empty(), "queued behind the running turn");

    let Then::Ended(ended) = answer(
        &mut turns,
        &mut bench,
        Ms(5),
        first,
        &text_answer(None, "Hello."),
    ) else {
        panic!("the answer ends the turn")
    };
    assert_eq!(
        (ended.answer.as_str(), ended.reported, ended.changed_files),
        ("Hello.", false, false)
    );
    let out = bench.outputs();
    assert_eq!(kinds(&out), ["token_delta", "turn_usage", "turn_ended"]);
    assert_eq!(frame(&out, "turn_ended")["reason"], "end_turn");
    assert_eq!(frame(&out, "turn_usage")["prompt_tokens"], 10);
    assert!(!turns.is_running() && turns.conversation().messages().len() == 2);

    let then = bench.after_run(&mut turns, Ms(6), false);
    assert!(matches!(then, Then::Nothing));
    let out = bench.outputs();
    assert_eq!(
        kinds(&out),
        ["state_changed", "state_changed", "turn_started"],
        "free, then the queued message's turn"
    );
    let started = frame(&out, "turn_started");
    assert_eq!(
        (started["turn_id"].as_str(), started["source"].as_str()),
        (Some("turn_2"), Some("queue"))
    );
    assert_eq!(requests(&out).len(), 1);
}

#[test]
fn a_refused_request_backs_off_until_its_timer_and_fails_after_the_last_attempt() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    let _ = bench.submit(&mut turns, Ms(0), message("hi"), TurnSource::User);
    let first = requests(&bench.outputs())[0];
    let busy = Input::HttpResponse {
        id: first,
        status: 529,
        retry_after: Some("3".into()),
    };
    assert!(matches!(
        turns.handle_http(&mut bench.desk(), Ms(10), busy),
        Then::Nothing
    ));
    let then = turns.handle_http(&mut bench.desk(), Ms(10), Input::HttpEnded { id: first });
    assert!(matches!(then, Then::Nothing));
    let out = bench.outputs();
    let retrying = frame(&out, "model_retrying");
    assert_eq!(
        (retrying["attempt"].as_u64(), retrying["delay_ms"].as_u64()),
        (Some(2), Some(3_000))
    );
    assert_eq!(turns.deadline(), Some(Ms(3_010)), "retry-after is honoured");

    assert!(matches!(
        turns.handle_timeout(&mut bench.desk(), Ms(3_009)),
        Then::Nothing
    ));
    assert!(bench.outputs().is_empty(), "nothing before the timer");
    assert!(matches!(
        turns.handle_timeout(&mut bench.desk(), Ms(3_010)),
        Then::Nothing
    ));
    let second = requests(&bench.outputs())[..].to_vec();
    assert_eq!(second.len(), 1, "the second attempt");
    assert_ne!(second[0], first);

    // A late byte of the first request changes nothing.
    let late = Input::HttpBody {
        id: first,
        bytes: b"data: x\n\n",
    };
    assert!(matches!(
        turns.handle_http(&mut bench.desk(), Ms(3_011), late),
        Then::Nothing
    ));
    assert!(bench.outputs().is_empty());

    let failed = Input::HttpFailed {
        id: second[0],
        error: "connection reset".into(),
    };
    let Then::Ended(ended) = turns.handle_http(&mut bench.desk(), Ms(3_020), failed) else {
        panic!("the last attempt fails the turn")
    };
    assert!(
        ended.why.contains("failed after 2 attempts"),
        "{}",
        ended.why
    );
    let out = bench.outputs();
    assert_eq!(frame(&out, "turn_ended")["reason"], "error");
}

#[test]
fn silence_past_the_idle_deadline_gives_the_request_up_and_retries() {
    let mut bench = Bench::new();
    let idle = bench.timings.model_idle_timeout.as_millis();
    let mut turns = bench.turns();
    let _ = bench.submit(&mut turns, Ms(0), message("hi"), TurnSource::User);
    let first = requests(&bench.outputs())[0];
    let ok = Input::HttpResponse {
        id: first,
        status: 200,
        retry_after: None,
    };
    let _ = turns.handle_http(&mut bench.desk(), Ms(100), ok);
    assert_eq!(
        turns.deadline(),
        Some(Ms(100 + idle)),
        "each input moves the deadline"
    );
    assert!(matches!(
        turns.handle_timeout(&mut bench.desk(), Ms(100 + idle)),
        Then::Nothing
    ));
    let out = bench.outputs();
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::CancelHttp { id } if *id == first)),
        "{out:?}"
    );
    assert!(
        frame(&out, "model_retrying")["reason"]
            .as_str()
            .is_some_and(|r| r.contains("sent nothing"))
    );
}

#[test]
fn tool_calls_go_to_the_tool_run_and_their_results_back_to_the_model() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    let _ = bench.submit(&mut turns, Ms(0), message("list"), TurnSource::User);
    let first = requests(&bench.outputs())[0];
    let call = tool_call("call_1", "glob", &json!({"pattern": "*.rs"}));
    let then = answer(&mut turns, &mut bench, Ms(1), first, &call);
    assert!(matches!(then, Then::RunTools), "{then:?}");
    assert!(turns.tools_mut().is_some(), "the turn holds the calls");
    assert!(turns.deadline().is_none(), "no command runs yet");
    bench.outputs();

    let results = vec![crate::model::conversation::Block::ToolResult {
        tool_use_id: "call_1".into(),
        content: "a.rs".into(),
        is_error: false,
        images: Vec::new(),
    }];
    let answered = Answered {
        results,
        changed_files: true,
    };
    let then = turns.tools_answered(&mut bench.desk(), Ms(2), answered);
    assert!(matches!(then, Then::Nothing));
    let [second] = requests(&bench.outputs())[..] else {
        panic!("the results go back to the model")
    };
    assert_eq!(
        turns.conversation().messages().len(),
        3,
        "ask, call, results"
    );
    let Then::Ended(ended) = answer(
        &mut turns,
        &mut bench,
        Ms(3),
        second,
        &text_answer(None, "a.rs"),
    ) else {
        panic!("the answer ends the turn")
    };
    assert!(
        ended.changed_files,
        "the review is refreshed after the turn"
    );
}

#[test]
fn an_interrupt_keeps_what_was_shown_and_cancels_the_stream_after_the_end() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    let _ = bench.submit(&mut turns, Ms(0), message("hi"), TurnSource::User);
    let first = requests(&bench.outputs())[0];
    let body = text_answer(None, "Half an answer");
    // Everything but the message's end: the text was shown, the answer is not whole.
    let cut = String::from_utf8_lossy(&body)
        .find("event: message_delta")
        .unwrap();
    let ok = Input::HttpResponse {
        id: first,
        status: 200,
        retry_after: None,
    };
    let _ = turns.handle_http(&mut bench.desk(), Ms(1), ok);
    let bytes = Input::HttpBody {
        id: first,
        bytes: &body[..cut],
    };
    let _ = turns.handle_http(&mut bench.desk(), Ms(1), bytes);
    bench.outputs();

    let desk = &mut bench.desk();
    let (then, cleanup) = turns.interrupt(desk.context_window(), &mut desk.journal);
    let Then::Ended(ended) = then else {
        panic!("the turn ends")
    };
    assert_eq!(ended.why, "interrupted");
    assert!(matches!(cleanup[..], [Output::CancelHttp { id }] if id == first));
    let out = bench.outputs();
    assert!(
        !out.iter().any(|o| matches!(o, Output::CancelHttp { .. })),
        "the cancel is left to follow turn_ended"
    );
    assert_eq!(frame(&out, "turn_ended")["reason"], "interrupted");
    let view = turns.conversation().messages();
    assert_eq!(view.len(), 2);
    assert_eq!(
        view[1].text(),
        "Half an answer",
        "what the client saw stays"
    );
}

mod around_turns;
