//! The review turns' tools and endings as pure functions: what each returns for the model,
//! what it changes on the open review, and what a turn leaves on its thread.

use serde_json::json;

use super::*;
use crate::effects::DiffSource;
use crate::effects::Output;
use crate::protocol::guided_review::ReviewTarget;
use crate::session::guided_review::open::ReviewState;
use crate::session::outbox::Outbox;

fn task(work: ReviewWork) -> ReviewTask {
    ReviewTask {
        review_id: "review:1".into(),
        work,
    }
}

/// A review of `/repo`'s working tree that shows no files.
fn empty_review() -> ReviewState {
    let (mut review, mut outbox) = (ReviewState::new(None), Outbox::default());
    review.load(
        &mut outbox,
        "/repo",
        "load".into(),
        ReviewTarget::WorkingTree,
    );
    let Some(Output::ReadDiff { id, .. }) = outbox.pop() else {
        panic!("a diff read");
    };
    let source = DiffSource {
        root: "/repo".into(),
        ..DiffSource::default()
    };
    let _ = review.diff_read(&mut outbox, id, Ok(Box::new(source)));
    if let Some(Output::ReadFile { id, .. }) = outbox.pop() {
        let _ = review.file_read(
            &mut outbox,
            id,
            &Err("No such file or directory".to_owned()),
        );
    }
    review
}

#[test]
fn a_report_on_the_turns_comment_is_a_pending_entry_and_noted() {
    let review = empty_review();
    let input = json!({"comment_id": "c1", "status": "fixed", "summary": "  Renamed it. "});
    let done =
        task(ReviewWork::Fix("c1".into())).run_tool("report", &input, review.view(), "/repo", 42);
    assert_eq!(done.answer.as_deref(), Ok("Reported on c1 as fixed."));
    assert!(done.reported);
    let Some(Change::Entry {
        finding_id,
        entry,
        pending: true,
    }) = done.change
    else {
        panic!("a pending entry: {:?}", done.change);
    };
    assert_eq!(finding_id, "c1");
    assert_eq!(
        (entry.body.as_str(), entry.at, entry.author),
        ("Renamed it.", 42, Author::Agent)
    );
    assert_eq!(entry.status, Some(ReportStatus::Fixed));
}

#[test]
fn a_report_on_another_comment_or_malformed_changes_nothing() {
    let review = empty_review();
    let fix = task(ReviewWork::Fix("c1".into()));
    let other = json!({"comment_id": "c2", "status": "fixed", "summary": "done"});
    let done = fix.run_tool("report", &other, review.view(), "/repo", 1);
    assert!(done.answer.unwrap_err().contains("must be c1"));
    assert!(done.change.is_none() && !done.reported);
    let done = fix.run_tool("report", &json!({"status": 3}), review.view(), "/repo", 1);
    assert!(done.answer.is_err());
    assert!(done.change.is_none() && !done.reported);
}

#[test]
fn a_tool_of_another_task_or_a_closed_review_is_refused() {
    let review = empty_review();
    let input = json!({"comment_id": "c1", "status": "fixed", "summary": "done"});
    let done = task(ReviewWork::Review).run_tool("report", &input, review.view(), "/repo", 1);
    assert!(
        done.answer
            .unwrap_err()
            .contains("not available in this turn")
    );
    assert!(done.change.is_none());
    let done = task(ReviewWork::Fix("c1".into())).run_tool("report", &input, None, "/repo", 1);
    assert!(done.answer.unwrap_err().contains("no longer open"));
    assert!(done.change.is_none() && !done.reported);
}

#[test]
fn a_finding_where_the_review_shows_nothing_is_dropped_with_a_note_and_a_hint() {
    let review = empty_review();
    let input = json!({"path": "src/lib.rs", "line": 3, "severity": "issue", "body": "off by one"});
    let done = task(ReviewWork::Review).run_tool("add_finding", &input, review.view(), "/repo", 1);
    let why = done.answer.unwrap_err();
    assert!(
        why.starts_with("Not added: ") && why.ends_with("again with one of those paths."),
        "{why}"
    );
    let Some(Change::Note { body }) = done.change else {
        panic!("a note on the review: {:?}", done.change);
    };
    assert!(body.starts_with("An agent finding was dropped: "), "{body}");
}

#[test]
fn an_ending_leaves_the_answer_or_says_how_the_turn_ended() {
    let answer = task(ReviewWork::Answer("c1".into()));
    let (id, entry) = answer.ended(" Because. ", false, "end_turn", 7).unwrap();
    assert_eq!(
        (id.as_str(), entry.body.as_str(), entry.author),
        ("c1", "Because.", Author::Agent)
    );
    assert_eq!(entry.kind, EntryKind::Answer);
    let (_, entry) = answer.ended("  ", false, "interrupted", 7).unwrap();
    assert_eq!(
        entry.body,
        "The agent ended without an answer (interrupted)."
    );
    assert_eq!(
        (entry.author, entry.kind),
        (Author::System, EntryKind::Note)
    );

    let fix = task(ReviewWork::Fix("c2".into()));
    assert_eq!(
        fix.ended("", true, "end_turn", 7).unwrap().1.body,
        "The fix turn ended."
    );
    let (id, entry) = fix.ended("done", false, "max_tokens", 7).unwrap();
    assert_eq!(id, "c2");
    assert_eq!(
        entry.body,
        "The fix turn ended without a report (max_tokens); the comment stays open."
    );
    assert!(
        task(ReviewWork::Review)
            .ended("all good", false, "end_turn", 7)
            .is_none()
    );
}
