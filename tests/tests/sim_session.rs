//! Deterministic simulations of a whole session on the virtual clock.

use std::time::Duration;

use luxe_core::harness::{frames, test_config};
use luxe_core::protocol::events::Event;
use luxe_core::protocol::values::{PermissionMode, TurnEndReason};
use luxe_core::{Input, Output};
use luxe_sim::session::Sim;

fn kinds(frames: &[Event]) -> Vec<&'static str> {
    frames.iter().map(Event::kind).collect()
}

#[test]
fn the_seed_session_in_simulation() {
    let mut sim = Sim::new();
    assert_eq!(kinds(sim.start_frames()), ["ready", "state_changed"]);
    let turn =
        sim.send(r#"{"kind":"submit_user_message","content":{"text":"what does this repo do?"}}"#);
    assert_eq!(
        kinds(&turn),
        [
            "state_changed",
            "turn_started",
            "turn_usage",
            "turn_ended",
            "state_changed"
        ]
    );
    let Event::TurnEnded(ended) = &turn[3] else {
        panic!("{turn:?}")
    };
    assert_eq!(ended.reason, TurnEndReason::Error);
    // No turn runs: time passing shows nothing (the GitHub probe that never got an answer is
    // killed at its deadline, an effect, not a frame).
    let later = sim.advance(Duration::from_secs(3600));
    assert_eq!(frames(&later).count(), 0, "{later:?}");
    assert!(
        !later.is_empty() && later.iter().all(|o| matches!(o, Output::Kill { .. })),
        "{later:?}"
    );
    let second = sim.send(r#"{"kind":"submit_user_message","content":{"text":"again"}}"#);
    let Event::TurnStarted(started) = &second[1] else {
        panic!("{second:?}")
    };
    assert_eq!(started.turn_id, "turn_2");
    sim.send(r#"{"kind":"close"}"#);
    assert!(sim.is_closed());
}

#[test]
fn nothing_is_answered_after_close() {
    let mut sim = Sim::new();
    assert!(sim.send(r#"{"kind":"close"}"#).is_empty());
    assert!(sim.is_closed());
    assert!(
        sim.send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#)
            .is_empty()
    );
    assert!(sim.send("garbage").is_empty());
    assert!(sim.input(Input::ClientEof).is_empty());
}

#[test]
fn eof_answers_a_partial_last_line_then_exits() {
    let mut sim = Sim::new();
    let out = sim.input(Input::ClientBytes(
        br#"{"kind":"set_mode","content":{"mode":"plan"}}"#,
    ));
    assert!(out.is_empty(), "no LF yet: {out:?}");
    let out = sim.input(Input::ClientEof);
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(sim.is_closed());
}

#[test]
fn a_failed_stdin_read_is_reported_as_an_error_event() {
    let mut sim = Sim::new();
    let out = sim.input(Input::ClientReadFailed("Input/output error".into()));
    let frames: Vec<_> = luxe_core::harness::frames(&out).collect();
    match frames.as_slice() {
        [Event::Error(error)] => assert!(error.message.contains("Input/output error")),
        other => panic!("{other:?}"),
    }
    assert!(sim.is_closed());
}

#[test]
fn read_only_refuses_github_writes_and_chapter_commits_before_anything_else() {
    let mut config = test_config();
    config.read_only = true;
    config.github_writes = true;
    let mut sim = Sim::with_config(config);
    let Event::Ready(ready) = &sim.start_frames()[0] else {
        panic!()
    };
    assert!(!ready.github_writes && ready.read_only);
    let Event::StateChanged(state) = &sim.start_frames()[1] else {
        panic!()
    };
    assert_eq!(state.permission_mode, PermissionMode::ReadOnly);
    for kind in [
        "restack",
        "commit_review_chapters",
        "post_pull_request_review",
    ] {
        let out = sim.send(&format!(
            r#"{{"kind":"{kind}","content":{{"request_id":"x","review_id":"review:r","verdict":"comment","plan_id":"p"}}}}"#
        ));
        let Event::ActionRejected(rejected) = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!(rejected.reason, "read-only session");
        assert_eq!(rejected.request_id.as_deref(), Some("x"));
    }
}

#[test]
fn github_writes_flag_lets_writes_through_the_gate() {
    let mut config = test_config();
    config.github_writes = true;
    let mut sim = Sim::with_config(config);
    let out = sim.send(r#"{"kind":"open_stack","content":{"request_id":"m"}}"#);
    let Event::ActionRejected(rejected) = &out[0] else {
        panic!("{out:?}")
    };
    assert_eq!(
        rejected.reason,
        "no preview to confirm: send preview_stack with this request_id first"
    );
}

#[test]
fn a_failed_session_write_is_reported_once_and_the_session_goes_on() {
    let mut config = test_config();
    config.sessions_dir = Some("/read-only/sessions".into());
    let mut sim = Sim::with_config(config);
    let first = sim.send(r#"{"kind":"submit_user_message","content":{"text":"hi"}}"#);
    assert!(first.iter().any(|e| e.kind() == "turn_ended"));
    let out = sim.input(Input::ClientBytes(b""));
    assert!(out.is_empty());
    let appends: Vec<_> = sim
        .transcript()
        .iter()
        .filter(|l| l.contains("AppendFile"))
        .cloned()
        .collect();
    assert!(
        !appends.is_empty(),
        "the turn was recorded: {:?}",
        sim.transcript()
    );
    for id in 1..=20 {
        let out = sim.input(Input::FileAppended {
            id: luxe_core::effects::EffectId(id),
            result: Err("read-only file system".into()),
        });
        let errors: Vec<_> = luxe_core::harness::frames(&out)
            .filter(|e| e.kind() == "error")
            .collect();
        assert!(errors.len() <= 1);
    }
    let errors = sim
        .transcript()
        .iter()
        .filter(|l| l.contains("\"kind\":\"error\""))
        .count();
    assert_eq!(errors, 1, "reported once");
    assert_eq!(
        kinds(&sim.send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#)),
        ["state_changed"]
    );
}
