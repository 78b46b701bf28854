//! The review machine at its seam, without a session: reads and writes answered by hand,
//! frames and what the session must do next out. (The save queue's ordering against a model
//! is `save_queue/tests.rs`'s; these check how the open review drives it.)

use super::super::save_queue::Change;
use super::super::turns::ReviewTask;
use super::super::work::ReviewWork;
use super::saving::Answered;
use super::*;
use crate::effects::FileContent;
use crate::guided_review::commit_flow::ReadAt;
use crate::protocol::actions::{EditReview, ReviewEdit, ReviewRequest};
use crate::protocol::findings::{Author, EntryKind, ThreadEntry};

fn source(root: &str) -> Box<DiffSource> {
    Box::new(DiffSource {
        root: root.into(),
        ..DiffSource::default()
    })
}

fn outputs(outbox: &mut Outbox) -> Vec<Output> {
    std::iter::from_fn(|| outbox.pop()).collect()
}

fn events(outbox: &mut Outbox) -> Vec<Event> {
    outputs(outbox)
        .into_iter()
        .filter_map(|output| match output {
            Output::Frame(frame) => Some(frame.event().clone()),
            _ => None,
        })
        .collect()
}

/// Loads the working tree of `/repo` through `review` and answers its reads: the open
/// review's id.
fn open(review: &mut ReviewState, outbox: &mut Outbox) -> String {
    review.load(outbox, "/repo", "load".into(), ReviewTarget::WorkingTree);
    let Some(Output::ReadDiff { id, .. }) = outbox.pop() else {
        panic!("a diff read");
    };
    let _ = review.diff_read(outbox, id, Ok(source("/repo")));
    if let Some(Output::ReadFile { id, .. }) = outbox.pop() {
        let result = Err("No such file or directory".to_owned());
        let _ = review.file_read(outbox, id, &result);
    }
    outputs(outbox);
    review_id("/repo", &ReviewTarget::WorkingTree)
}

fn note(n: u32) -> Change {
    Change::Note {
        body: format!("note {n}"),
    }
}

#[test]
fn a_diff_read_becomes_guided_review_loaded() {
    let (mut review, mut outbox) = (ReviewState::new(None), Outbox::default());
    review.load(&mut outbox, "/work", "r1".into(), ReviewTarget::Staged);
    let Some(Output::ReadDiff { id, cwd, target }) = outbox.pop() else {
        panic!("a diff read");
    };
    assert_eq!((cwd.as_str(), &target), ("/work", &ReviewTarget::Staged));

    let next = review.diff_read(&mut outbox, id, Ok(source("/repo")));
    let expected_id = review_id("/repo", &ReviewTarget::Staged);
    let moved = false;
    let stale = Vec::new();
    assert_eq!(next, Then::Opened { moved, stale });
    match &events(&mut outbox)[..] {
        [
            Event::GuidedReviewLoaded(loaded),
            Event::ReviewSessionRestored(restored),
        ] => {
            assert_eq!(loaded.request_id, "r1");
            assert_eq!(loaded.review.id, expected_id);
            assert_eq!(restored.session.id, expected_id);
        }
        other => panic!("{other:?}"),
    }
    assert!(review.check_open(&expected_id).is_ok());
    assert_eq!(
        review.read_at(),
        Some(ReadAt {
            root: "/repo".into(),
            head: None
        }),
        "where it was read, against no commit (the source has none)"
    );
    // The same read again is nobody's.
    let again = review.diff_read(&mut outbox, id, Ok(source("/repo")));
    assert_eq!(again, Then::Nothing);
    assert_eq!(outbox.pop(), None);
}

#[test]
fn a_load_reads_the_session_file_and_one_that_cannot_be_read_fails_it() {
    let dir = Some("/home/reviews/".to_owned());
    let (mut review, mut outbox) = (ReviewState::new(dir), Outbox::default());
    let target = ReviewTarget::WorkingTree;
    for request in ["first", "second"] {
        let source = Loaded::Diff(source("/repo"));
        let next = review.read_session(&mut outbox, request.into(), target.clone(), source);
        assert_eq!(next, Then::Nothing);
    }
    let outputs = outputs(&mut outbox);
    let stem = file_stem(&review_id("/repo", &target));
    let reads: Vec<_> = (outputs.iter())
        .filter_map(|output| match output {
            Output::ReadFile { id, path, .. } => Some((*id, path.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(reads[1].1, format!("/home/reviews/{stem}.json"));
    // Every load is answered: the first gave way to the second.
    let superseded = (outputs.iter()).any(|output| {
        matches!(output, Output::Frame(frame) if matches!(frame.event(),
            Event::GuidedReviewFailed(failed) if failed.request_id == "first"))
    });
    assert!(superseded, "{outputs:?}");

    let content = FileContent {
        bytes: b"not json".to_vec(),
        total_len: 8,
        identity: None,
    };
    assert_eq!(
        review.file_read(&mut outbox, reads[0].0, &Ok(content.clone())),
        Then::Nothing
    );
    assert_eq!(outbox.pop(), None, "the first read is no longer waited for");
    assert_eq!(
        review.file_read(&mut outbox, reads[1].0, &Ok(content)),
        Then::Nothing
    );
    match &events(&mut outbox)[..] {
        [Event::GuidedReviewFailed(failed)] => {
            assert_eq!(failed.request_id, "second");
            assert!(failed.reason.contains("move it away"), "{failed:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(review.session().is_none());
}

#[test]
fn failed_diff_reads_fail_the_load_or_are_reported() {
    let (mut review, mut outbox) = (ReviewState::new(None), Outbox::default());
    review.load(&mut outbox, "/repo", "r1".into(), ReviewTarget::WorkingTree);
    let Some(Output::ReadDiff { id, .. }) = outbox.pop() else {
        panic!("a diff read");
    };
    let next = review.diff_read(&mut outbox, id, Err("not a git repository".into()));
    assert_eq!(next, Then::Nothing);
    let failed = RequestFailed {
        request_id: "r1".into(),
        reason: "not a git repository".into(),
    };
    assert_eq!(events(&mut outbox), [Event::GuidedReviewFailed(failed)]);

    open(&mut review, &mut outbox);
    review.refresh(&mut outbox, "/repo");
    let Some(Output::ReadDiff { id, .. }) = outbox.pop() else {
        panic!("a diff read");
    };
    let next = review.diff_read(&mut outbox, id, Err("gone".into()));
    let reason = "the review could not be read again: gone".to_owned();
    assert_eq!(next, Then::Failed(reason));
    assert_eq!(outbox.pop(), None);
}

#[test]
fn a_refresh_rebuilds_the_open_working_tree_review_only() {
    let (mut review, mut outbox) = (ReviewState::new(None), Outbox::default());
    review.refresh(&mut outbox, "/repo");
    assert_eq!(outbox.pop(), None, "no review is open");
    open(&mut review, &mut outbox);
    review.refresh(&mut outbox, "/repo");
    let Some(Output::ReadDiff { id, target, .. }) = outbox.pop() else {
        panic!("a diff read");
    };
    assert_eq!(target, ReviewTarget::WorkingTree);
    let next = review.diff_read(&mut outbox, id, Ok(source("/repo")));
    let moved = true;
    let stale = Vec::new();
    assert_eq!(next, Then::Opened { moved, stale });
    assert!(matches!(
        &events(&mut outbox)[..],
        [Event::GuidedReviewUpdated(_)]
    ));

    let staged = Loaded::Diff(source("/repo"));
    let _ = review.read_session(&mut outbox, "r2".into(), ReviewTarget::Staged, staged);
    outputs(&mut outbox);
    review.refresh(&mut outbox, "/repo");
    assert_eq!(outbox.pop(), None, "a staged review is not read again");
}

#[test]
fn an_edit_on_an_unknown_review_is_refused_and_nothing_is_queued() {
    let (mut review, mut outbox) = (ReviewState::new(None), Outbox::default());
    let edit = |review_id: &str| EditReview {
        request_id: "e1".into(),
        review_id: review_id.into(),
        edit: ReviewEdit::Reply {
            comment_id: "finding_1".into(),
            body: "why?".into(),
            send: false,
        },
    };
    assert!(!review.edit(&mut outbox, edit("review:nope")));
    let refused = RequestFailed {
        request_id: "e1".into(),
        reason: "no review is open: load_guided_review first".into(),
    };
    assert_eq!(
        events(&mut outbox),
        [Event::ReviewSessionSaveFailed(refused)]
    );

    let open_id = open(&mut review, &mut outbox);
    assert!(!review.edit(&mut outbox, edit("review:nope")));
    let reason = format!("review review:nope is not open (the open review is {open_id})");
    let refused = RequestFailed {
        request_id: "e1".into(),
        reason,
    };
    assert_eq!(
        events(&mut outbox),
        [Event::ReviewSessionSaveFailed(refused)]
    );
    assert_eq!(review.save_step(&mut outbox, 1), None);
    assert_eq!(outbox.pop(), None, "nothing was queued");

    let request = ReviewRequest {
        request_id: "a1".into(),
        review_id: "review:nope".into(),
    };
    let rejection = review.request_agent(request).err();
    assert_eq!(
        rejection.and_then(|r| r.kind).as_deref(),
        Some("request_agent_review")
    );
}

#[test]
fn saves_are_written_one_at_a_time_and_answered_when_written() {
    let dir = Some("/home/reviews".to_owned());
    let (mut review, mut outbox) = (ReviewState::new(dir), Outbox::default());
    open(&mut review, &mut outbox);
    review.push(note(1));
    review.push(note(2));
    assert_eq!(review.save_step(&mut outbox, 10), None);
    let writes = |outbox: &mut Outbox| -> Vec<EffectId> {
        outputs(outbox)
            .into_iter()
            .filter_map(|output| match output {
                Output::WriteFile { id, .. } => Some(id),
                _ => None,
            })
            .collect()
    };
    let first = writes(&mut outbox);
    assert_eq!(first.len(), 1);
    // The second waits for the first's write.
    assert_eq!(review.save_step(&mut outbox, 11), None);
    assert_eq!(outbox.pop(), None);
    // A write nobody waits for is nobody's.
    assert_eq!(review.written(&mut outbox, EffectId(999), Ok(())), None);

    assert_eq!(
        review.written(&mut outbox, first[0], Ok(())),
        Some(Answered::Said)
    );
    match &events(&mut outbox)[..] {
        [Event::ReviewSessionSaved(saved)] => {
            assert_eq!(saved.request_id, None);
            assert_eq!(saved.session.notes.len(), 1);
            assert_eq!(saved.session.notes[0].body, "note 1");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(review.save_step(&mut outbox, 12), None);
    let second = writes(&mut outbox);
    assert_eq!(second.len(), 1);
    let failed = review.written(&mut outbox, second[0], Err("disk full".into()));
    let reason = "the review session could not be saved: disk full".to_owned();
    assert_eq!(failed, Some(Answered::Failed(reason)));
    assert_eq!(review.session().map(|s| s.notes.len()), Some(1));
}

#[test]
fn a_review_without_a_file_saves_in_memory_and_starts_the_agents_turn() {
    let (mut review, mut outbox) = (ReviewState::new(None), Outbox::default());
    let review_id = open(&mut review, &mut outbox);
    let request = ReviewRequest {
        request_id: "a1".into(),
        review_id: review_id.clone(),
    };
    assert!(review.request_agent(request).is_ok());
    let task = ReviewTask {
        review_id,
        work: ReviewWork::Review,
    };
    assert_eq!(review.save_step(&mut outbox, 5), Some(Answered::Turn(task)));
    match &events(&mut outbox)[..] {
        [Event::ReviewSessionSaved(saved)] => {
            assert_eq!(saved.request_id.as_deref(), Some("a1"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(review.save_step(&mut outbox, 6), None);
    // Luxe's own change that does not apply is reported, not answered.
    review.push(Change::Entry {
        finding_id: "finding:nope".into(),
        entry: ThreadEntry::new(Author::System, EntryKind::Note, "ended".into(), 7),
        pending: false,
    });
    assert!(matches!(
        review.save_step(&mut outbox, 7),
        Some(Answered::Failed(_))
    ));
    assert_eq!(outbox.pop(), None);
}

#[test]
fn opening_another_review_answers_the_queued_requests() {
    let dir = Some("/home/reviews".to_owned());
    let (mut review, mut outbox) = (ReviewState::new(dir), Outbox::default());
    let review_id = open(&mut review, &mut outbox);
    review.push(note(1));
    for request_id in ["a1", "a2"] {
        let review_id = review_id.clone();
        let request = ReviewRequest {
            request_id: request_id.into(),
            review_id,
        };
        assert!(review.request_agent(request).is_ok());
    }
    assert_eq!(review.save_step(&mut outbox, 1), None);
    outputs(&mut outbox);

    let staged = Loaded::Diff(source("/repo"));
    let _ = review.read_session(&mut outbox, "r2".into(), ReviewTarget::Staged, staged);
    let Some(Output::ReadFile { id, .. }) = outbox.pop() else {
        panic!("a session read");
    };
    let _ = review.file_read(&mut outbox, id, &Err("not found".into()));
    let dropped: Vec<_> = (events(&mut outbox).into_iter())
        .filter_map(|event| match event {
            Event::ReviewSessionSaveFailed(failed) => Some(failed.request_id),
            _ => None,
        })
        .collect();
    assert_eq!(dropped, ["a1", "a2"]);
}

#[test]
fn findings_a_turn_was_working_on_are_stale_once_loaded_again() {
    let dir = Some("/home/reviews".to_owned());
    let (mut review, mut outbox) = (ReviewState::new(dir), Outbox::default());
    let target = ReviewTarget::WorkingTree;
    let id = review_id("/repo", &target);
    let mut stored: serde_json::Value =
        serde_json::from_slice(&Stored::new(&id).to_bytes()).unwrap_or_default();
    stored["session"]["findings"] = serde_json::json!([{
        "id": "finding:1",
        "anchor": {"kind": "file", "file_id": "file:gone"},
        "severity": "issue",
        "status": "open",
        "outdated": true,
        "pending": true,
        "thread": [],
    }]);
    let bytes = stored.to_string().into_bytes();
    let source = Loaded::Diff(source("/repo"));
    let _ = review.read_session(&mut outbox, "r1".into(), target, source);
    let Some(Output::ReadFile { id, .. }) = outbox.pop() else {
        panic!("a session read");
    };
    let total_len = u64::try_from(bytes.len()).unwrap_or_default();
    let content = FileContent {
        bytes,
        total_len,
        identity: None,
    };
    let next = review.file_read(&mut outbox, id, &Ok(content));
    let Then::Opened { stale, .. } = next else {
        panic!("{next:?} {:?}", outputs(&mut outbox));
    };
    assert_eq!(stale, ["finding:1"]);
}
