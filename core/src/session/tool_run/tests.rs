//! The tool-run machine on its own, without a session: calls run in order and each gets one
//! result, prompts and questions wait for their answers, an `always` reply grants its rule,
//! a command is killed once at its deadline, an interrupt answers every call, and the
//! review's and MCP's calls are handed to the session.

use serde_json::json;

use super::*;
use crate::effects::{FileContent, Opened};
use crate::mcp::OfferedTool;
use crate::permissions::{Permissions, RuleSet};
use crate::protocol::actions::{AnswerQuestion, RespondPermission};
use crate::protocol::values::{PermissionMode, PermissionReply, QuestionReply};
use crate::redact::Redactor;
use crate::session::test_clock::Ms;

mod diffs;

const CWD: &str = "/work/p";

/// What the machine borrows, kept between inputs.
struct Bench {
    outbox: Outbox,
    gate: ToolGate,
    redactor: Redactor,
    ids: CallIds,
    mode: Mode,
    auto_approve: bool,
}

impl Bench {
    fn new(mode: Mode) -> Self {
        let permissions = Permissions::new(PermissionMode::Default, RuleSet::default());
        Self {
            outbox: Outbox::default(),
            gate: ToolGate::new(CWD, permissions, Vec::new(), Vec::new()),
            redactor: Redactor::new(["s3cret-value".to_owned()]),
            ids: CallIds::default(),
            mode,
            auto_approve: false,
        }
    }

    fn desk(&mut self) -> Desk<'_> {
        Desk {
            outbox: &mut self.outbox,
            gate: &mut self.gate,
            work: WorkContext {
                cwd: CWD,
                redactor: &self.redactor,
                bash_timeout: Duration::from_secs(120),
                tool_env_unset: &[],
            },
            mode: self.mode,
            auto_approve: self.auto_approve,
            ids: &mut self.ids,
        }
    }

    /// Everything queued since the last look.
    fn outputs(&mut self) -> Vec<Output> {
        std::iter::from_fn(|| self.outbox.pop()).collect()
    }

    /// The events among `outputs`, by their wire names.
    fn events(outputs: &[Output]) -> Vec<String> {
        outputs
            .iter()
            .filter_map(|output| match output {
                Output::Frame(frame) => Some(frame.event().kind().to_owned()),
                _ => None,
            })
            .collect()
    }
}

fn step(calls: &[(&str, Value)]) -> ToolStep<Ms> {
    let calls = calls
        .iter()
        .enumerate()
        .map(|(at, (name, input))| (format!("tu_{at}"), (*name).to_owned(), input.clone()))
        .collect();
    ToolStep::new(calls)
}

fn answered(need: Then) -> Answered {
    match need {
        Then::Answered(answered) => answered,
        other => panic!("not answered: {other:?}"),
    }
}

/// `(tool_use_id, content, is_error)` of each result.
fn results(answered: &Answered) -> Vec<(String, String, bool)> {
    answered
        .results
        .iter()
        .map(|block| match block {
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => (tool_use_id.clone(), content.clone(), *is_error),
            other => panic!("not a result: {other:?}"),
        })
        .collect()
}

/// The effect id of the single output of `kind` in `outputs`.
fn effect(outputs: &[Output], kind: &str) -> EffectId {
    let ids: Vec<EffectId> = outputs
        .iter()
        .filter_map(|output| match (kind, output) {
            ("open", Output::OpenFile { id, .. })
            | ("spawn", Output::Spawn { id, .. })
            | ("read", Output::ReadOpened { id, .. }) => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 1, "one {kind} in {outputs:?}");
    ids[0]
}

#[test]
fn a_read_is_opened_then_decided_then_read_and_its_result_is_redacted() {
    let mut bench = Bench::new(Mode::Build);
    let mut tools = step(&[("read", json!({"path": "a.txt"}))]);
    assert!(matches!(
        tools.run_next(&mut bench.desk(), Ms(0)),
        Then::Nothing
    ));
    let outputs = bench.outputs();
    assert_eq!(Bench::events(&outputs), ["tool_started"]);
    let open = effect(&outputs, "open");
    let opened = Opened {
        path: "/work/p/a.txt".into(),
        identity: Some(FileIdentity { dev: 1, ino: 2 }),
        kind: Some(FileKind::Regular),
    };
    let need = tools.handle(
        &mut bench.desk(),
        Ms(1),
        Input::FileOpened {
            id: open,
            result: Ok(opened),
        },
    );
    assert!(matches!(need, Then::Nothing));
    let read = effect(&bench.outputs(), "read");
    let content = FileContent::whole(b"token=s3cret-value\n".to_vec());
    let need = tools.handle(
        &mut bench.desk(),
        Ms(2),
        Input::FileRead {
            id: read,
            result: Ok(content),
        },
    );
    let answered = answered(need);
    let [(id, content, is_error)] = &results(&answered)[..] else {
        panic!("one result");
    };
    assert_eq!((id.as_str(), *is_error), ("tu_0", false));
    assert!(!content.contains("s3cret-value"), "{content}");
    assert!(!answered.changed_files);
    assert_eq!(Bench::events(&bench.outputs()), ["tool_finished"]);
}

#[test]
fn calls_refused_before_any_effect_still_get_one_result_each_in_order() {
    let mut bench = Bench::new(Mode::Plan);
    let mut tools = step(&[
        ("write", json!({"path": "a.txt", "content": "x"})),
        ("read", json!({})),
        ("read", json!({"path": ".env"})),
    ]);
    let answered = answered(tools.run_next(&mut bench.desk(), Ms(0)));
    let results = results(&answered);
    let ids: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, ["tu_0", "tu_1", "tu_2"]);
    assert!(results.iter().all(|r| r.2), "{results:?}");
    assert!(results[0].1.contains("not available in plan mode"));
    let outputs = bench.outputs();
    assert!(
        outputs.iter().all(|o| matches!(o, Output::Frame(_))),
        "no effect: {outputs:?}"
    );
    assert_eq!(
        Bench::events(&outputs),
        ["tool_started", "tool_finished"].repeat(3)
    );
}

#[test]
fn a_prompt_waits_for_its_own_reply_and_always_grants_the_rule_for_the_next_call() {
    let mut bench = Bench::new(Mode::Build);
    let touch = json!({"command": "touch made"});
    let mut tools = step(&[("bash", touch.clone()), ("bash", touch)]);
    assert!(matches!(
        tools.run_next(&mut bench.desk(), Ms(0)),
        Then::Nothing
    ));
    assert_eq!(
        Bench::events(&bench.outputs()),
        ["tool_started", "permission_requested"]
    );
    let reply = |id: &str, reply| RespondPermission {
        id: id.into(),
        reply,
        message: None,
    };
    let wrong = tools.respond_permission(
        &mut bench.desk(),
        Ms(1),
        reply("perm_9", PermissionReply::Once),
    );
    assert_eq!(wrong.unwrap_err(), no_open_prompt("perm_9"));
    assert!(bench.outputs().is_empty(), "a wrong reply changes nothing");
    let need = tools.respond_permission(
        &mut bench.desk(),
        Ms(1),
        reply("perm_1", PermissionReply::Always),
    );
    assert!(matches!(need, Ok(Then::Nothing)));
    let outputs = bench.outputs();
    assert_eq!(Bench::events(&outputs), ["permission_resolved"]);
    let first = effect(&outputs, "spawn");
    let exited = Input::ProcessExited {
        id: first,
        status: Ok(Some(0)),
    };
    assert!(matches!(
        tools.handle(&mut bench.desk(), Ms(2), exited),
        Then::Nothing
    ));
    let outputs = bench.outputs();
    assert_eq!(Bench::events(&outputs), ["tool_finished", "tool_started"]);
    let second = effect(&outputs, "spawn");
    let exited = Input::ProcessExited {
        id: second,
        status: Ok(Some(0)),
    };
    let answered = answered(tools.handle(&mut bench.desk(), Ms(3), exited));
    assert_eq!(results(&answered).len(), 2);
}

#[test]
fn under_auto_approve_a_prompt_is_approved_as_it_opens() {
    let mut bench = Bench::new(Mode::Build);
    bench.auto_approve = true;
    let mut tools = step(&[("bash", json!({"command": "touch made"}))]);
    assert!(matches!(
        tools.run_next(&mut bench.desk(), Ms(0)),
        Then::Nothing
    ));
    let outputs = bench.outputs();
    assert_eq!(
        Bench::events(&outputs),
        [
            "tool_started",
            "permission_requested",
            "permission_resolved"
        ]
    );
    effect(&outputs, "spawn");
}

#[test]
fn a_command_past_its_deadline_is_killed_once_and_its_exit_ends_the_call() {
    let mut bench = Bench::new(Mode::Build);
    bench.auto_approve = true;
    let mut tools = step(&[("bash", json!({"command": "sleep 9", "timeout_ms": 50}))]);
    let _ = tools.run_next(&mut bench.desk(), Ms(100));
    let spawned = effect(&bench.outputs(), "spawn");
    assert_eq!(tools.deadline(), Some(Ms(150)));
    tools.handle_timeout(&mut bench.outbox, Ms(149));
    assert!(bench.outputs().is_empty(), "killed early");
    tools.handle_timeout(&mut bench.outbox, Ms(150));
    let kills = bench.outputs();
    assert!(matches!(kills[..], [Output::Kill { id }] if id == spawned));
    tools.handle_timeout(&mut bench.outbox, Ms(151));
    assert!(bench.outputs().is_empty(), "killed twice");
    let exited = Input::ProcessExited {
        id: spawned,
        status: Ok(None),
    };
    let answered = answered(tools.handle(&mut bench.desk(), Ms(152), exited));
    assert!(results(&answered)[0].2, "a timed-out command is an error");
}

#[test]
fn a_question_takes_its_answer_and_an_interrupt_settles_the_prompt_and_answers_every_call() {
    let mut bench = Bench::new(Mode::Build);
    let ask = json!({"question": "which?", "options": [{"label": "a"}, {"label": "b"}]});
    let mut tools = step(&[
        ("ask_user", ask),
        ("bash", json!({"command": "touch made"})),
        ("read", json!({"path": "later.txt"})),
    ]);
    let _ = tools.run_next(&mut bench.desk(), Ms(0));
    assert_eq!(
        Bench::events(&bench.outputs()),
        ["tool_started", "question_asked"]
    );
    let answer = AnswerQuestion {
        id: "q_1".into(),
        reply: QuestionReply::Answered(vec!["a".into()]),
    };
    assert!(matches!(
        tools.answer_question(&mut bench.desk(), Ms(1), answer),
        Ok(Then::Nothing)
    ));
    assert_eq!(
        Bench::events(&bench.outputs()),
        [
            "question_resolved",
            "tool_finished",
            "tool_started",
            "permission_requested"
        ]
    );
    let interrupted = tools.interrupt(&mut bench.outbox, |_, _| panic!("no MCP call runs"));
    assert!(interrupted.cleanup.is_empty(), "nothing ran");
    assert_eq!(
        Bench::events(&bench.outputs()),
        ["permission_resolved", "tool_finished"]
    );
    let results = results(&interrupted.answered);
    assert_eq!(results.len(), 3, "every call has a result");
    assert_eq!(results[0].1, "The user chose: a");
    assert!(
        results[1..]
            .iter()
            .all(|r| r.2 && r.1 == "interrupted by the user")
    );
}

#[test]
fn review_and_mcp_calls_go_to_the_session_and_their_ends_come_back() {
    let mut bench = Bench::new(Mode::Build);
    bench.auto_approve = true;
    let mut tools = step(&[
        ("add_finding", json!({"title": "t"})),
        ("mcp__files__gone", json!({})),
        ("mcp__files__read", json!({"path": "a"})),
    ]);
    let Then::Review { name, .. } = tools.run_next(&mut bench.desk(), Ms(0)) else {
        panic!("the review's tool is the session's");
    };
    assert_eq!(name, "add_finding");
    let Then::McpTool { name, input } =
        tools.finish(&mut bench.desk(), Ms(1), ToolStatus::Ok, "noted".into())
    else {
        panic!("an MCP tool is looked up by the session");
    };
    assert_eq!(name, "mcp__files__gone");
    let Then::McpTool { name, input } =
        tools.decide_mcp(&mut bench.desk(), Ms(2), &name, None, input)
    else {
        panic!("the next MCP tool");
    };
    let offered = OfferedTool {
        name: name.clone(),
        server: "files".into(),
        tool: "read".into(),
        description: String::new(),
        input_schema: json!({}),
        read_only: true,
    };
    let need = tools.decide_mcp(&mut bench.desk(), Ms(3), &name, Some(offered), input);
    let Then::SendMcp { call, name, input } = need else {
        panic!("an allowed MCP call is sent: {need:?}");
    };
    assert_eq!(
        (name.as_str(), input),
        ("mcp__files__read", json!({"path": "a"}))
    );
    assert_eq!(tools.running_mcp_call(call), Some("call_3"));
    assert_eq!(tools.running_mcp_call(CallId(call.0 + 1)), None);
    let need = tools.finish_with_images(
        &mut bench.desk(),
        Ms(4),
        ToolStatus::Ok,
        "read".into(),
        Vec::new(),
    );
    let results = results(&answered(need));
    let outcomes: Vec<(&str, bool)> = results.iter().map(|r| (r.1.as_str(), r.2)).collect();
    assert_eq!(outcomes[0], ("noted", false));
    assert!(outcomes[1].1 && outcomes[1].0.contains("there is no tool mcp__files__gone"));
    assert_eq!(outcomes[2], ("read", false));
}
