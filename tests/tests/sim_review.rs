//! The review save queue on the virtual clock, with io's answers scripted: a failed write
//! changes nothing, saves go one at a time, and a broken session file is never overwritten.

use luxe_core::effects::{EffectId, FileContent};
use luxe_core::harness::{frames, test_config};
use luxe_core::protocol::events::Event;
use luxe_core::{Input, Output};
use luxe_sim::session::{Sim, small_review_source};
use serde_json::{Value, json};

fn sim() -> Sim {
    let mut config = test_config();
    config.reviews_dir = Some("/home/u/.luxe/reviews".into());
    Sim::with_config(config)
}

fn effect(outputs: &[Output], want: &str) -> EffectId {
    outputs
        .iter()
        .find_map(|o| match (o, want) {
            (Output::ReadDiff { id, .. }, "diff")
            | (Output::ReadFile { id, .. }, "read")
            | (Output::WriteFile { id, .. }, "write") => Some(*id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {want} effect in {outputs:?}"))
}

fn json_of(event: &Event) -> Value {
    serde_json::to_value(event).expect("events serialize")
}

/// Loads the review; the session file answers `file`. Returns the review as JSON and the
/// frames of the load.
fn load(sim: &mut Sim, file: Result<FileContent, String>) -> (Value, Vec<Event>) {
    let out = sim.send_outputs(br#"{"kind":"load_guided_review","content":{"request_id":"l","target":{"kind":"working_tree"}}}"#);
    let id = effect(&out, "diff");
    let out = sim.input(Input::DiffRead {
        id,
        result: Ok(Box::new(small_review_source())),
    });
    let id = effect(&out, "read");
    let out = sim.input(Input::FileRead { id, result: file });
    let events: Vec<Event> = frames(&out).cloned().collect();
    let review = events
        .iter()
        .find_map(|e| match e {
            Event::GuidedReviewLoaded(l) => Some(serde_json::to_value(&l.review).unwrap()),
            _ => None,
        })
        .unwrap_or(Value::Null);
    (review, events)
}

fn comment(review: &Value, request_id: &str) -> Vec<u8> {
    let hunk = &review["hunks"][0];
    let line = hunk["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == "add")
        .unwrap();
    json!({"kind": "edit_review", "content": {"request_id": request_id, "review_id": review["id"],
        "edit": "comment", "severity": "issue", "body": "b",
        "anchor": {"kind": "line", "file_id": hunk["file_id"], "hunk_id": hunk["id"], "side": "new", "line": line["new_line"]}}})
    .to_string()
    .into_bytes()
}

#[test]
fn a_failed_write_changes_nothing_and_saves_go_one_at_a_time() {
    let mut sim = sim();
    let (review, events) = load(
        &mut sim,
        Err("No such file or directory (os error 2)".into()),
    );
    assert_eq!(
        events.iter().map(Event::kind).collect::<Vec<_>>(),
        ["guided_review_loaded", "review_session_restored"]
    );
    let out = sim.send_outputs(&comment(&review, "e1"));
    let first = effect(&out, "write");
    let failed = sim.input(Input::FileWritten {
        id: first,
        result: Err("No space left on device".into()),
    });
    let failed = json_of(frames(&failed).next().unwrap());
    assert_eq!(failed["kind"], "review_session_save_failed");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("No space left")
    );

    // Two edits at once: one write at a time, in order.
    let out = sim.send_outputs(&comment(&review, "e2"));
    let second = effect(&out, "write");
    let out = sim.send_outputs(&comment(&review, "e3"));
    assert!(out.is_empty(), "e3 waits for e2's write: {out:?}");
    let out = sim.input(Input::FileWritten {
        id: second,
        result: Ok(()),
    });
    let saved = json_of(frames(&out).next().unwrap());
    assert_eq!(saved["content"]["request_id"], "e2");
    assert_eq!(
        saved["content"]["session"]["revision"], 1,
        "the failed save did not count"
    );
    assert_eq!(
        saved["content"]["session"]["findings"][0]["id"],
        "finding_1"
    );
    let third = effect(&out, "write");
    let out = sim.input(Input::FileWritten {
        id: third,
        result: Ok(()),
    });
    let saved = json_of(frames(&out).next().unwrap());
    assert_eq!(saved["content"]["request_id"], "e3");
    assert_eq!(saved["content"]["session"]["revision"], 2);
}

#[test]
fn a_broken_session_file_fails_the_load_and_is_not_overwritten() {
    let mut sim = sim();
    let broken = FileContent {
        bytes: b"{ not json".to_vec(),
        total_len: 10,
        identity: None,
    };
    let (_, events) = load(&mut sim, Ok(broken));
    let failed = json_of(&events[0]);
    assert_eq!(failed["kind"], "guided_review_failed");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("move it away")
    );
    let out = sim.send_outputs(br#"{"kind":"edit_review","content":{"request_id":"e","review_id":"review:x","edit":"delete","comment_id":"finding_1"}}"#);
    assert!(!out.iter().any(|o| matches!(o, Output::WriteFile { .. })));
    let failed = json_of(frames(&out).next().unwrap());
    assert_eq!(failed["kind"], "review_session_save_failed");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("no review is open")
    );
}

#[test]
fn a_load_overtaken_by_another_is_still_answered() {
    let mut sim = sim();
    let load = br#"{"kind":"load_guided_review","content":{"request_id":"first","target":{"kind":"working_tree"}}}"#;
    let first = effect(&sim.send_outputs(load), "diff");
    let load = br#"{"kind":"load_guided_review","content":{"request_id":"second","target":{"kind":"working_tree"}}}"#;
    let second = effect(&sim.send_outputs(load), "diff");
    sim.input(Input::DiffRead {
        id: first,
        result: Ok(Box::new(small_review_source())),
    });
    let out = sim.input(Input::DiffRead {
        id: second,
        result: Ok(Box::new(small_review_source())),
    });
    let superseded = json_of(frames(&out).next().expect("the first load's answer"));
    assert_eq!(superseded["kind"], "guided_review_failed");
    assert_eq!(superseded["content"]["request_id"], "first");
    let read = effect(&out, "read");
    let out = sim.input(Input::FileRead {
        id: read,
        result: Err("No such file or directory (os error 2)".into()),
    });
    let loaded = json_of(frames(&out).next().unwrap());
    assert_eq!(loaded["kind"], "guided_review_loaded");
    assert_eq!(loaded["content"]["request_id"], "second");
}
