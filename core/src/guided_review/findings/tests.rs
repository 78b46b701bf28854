//! Every edit, answered or refused with why; anchors follow their hunk or become outdated.

use super::*;
use crate::protocol::actions::EditReview;
use crate::protocol::findings::ReportStatus;
use crate::protocol::guided_review::{FileStatus, HunkLine, LineKind, ReviewFile, ReviewTarget};

fn line(kind: LineKind, old: Option<u32>, new: Option<u32>, text: &str) -> HunkLine<'_> {
    HunkLine {
        kind,
        old_line: old,
        new_line: new,
        text,
        no_newline: false,
    }
}

fn hunk(id: &str, new_start: u32) -> Hunk {
    Hunk {
        id: id.into(),
        file_id: "file:a".into(),
        old_start: new_start,
        old_lines: 2,
        new_start,
        new_lines: 2,
        header: String::new(),
        lines: [
            line(LineKind::Context, Some(new_start), Some(new_start), "ctx"),
            line(LineKind::Del, Some(new_start + 1), None, "old"),
            line(LineKind::Add, None, Some(new_start + 1), "new"),
        ]
        .into_iter()
        .collect(),
    }
}

fn review(hunks: Vec<Hunk>) -> Review {
    Review {
        id: "review:r".into(),
        revision_id: "rev".into(),
        target: ReviewTarget::WorkingTree,
        files: vec![ReviewFile {
            id: "file:a".into(),
            path: "a.rs".into(),
            old_path: None,
            status: FileStatus::Modified,
            binary: false,
            withheld: false,
            additions: 1,
            deletions: 1,
            hunk_ids: hunks.iter().map(|h| h.id.clone()).collect(),
        }],
        hunks,
        chapters: Vec::new(),
    }
}

fn on_new(line: u32) -> Anchor {
    Anchor::Line {
        file_id: "file:a".into(),
        hunk_id: "hunk:1".into(),
        side: Side::New,
        line,
    }
}

fn comment(anchor: Anchor, send: bool) -> ReviewEdit {
    ReviewEdit::Comment {
        anchor,
        body: "why?".into(),
        severity: Severity::Question,
        send,
    }
}

#[test]
fn a_comment_is_a_draft_until_sent_and_each_save_is_one_revision() {
    let r = review(vec![hunk("hunk:1", 10)]);
    let s = Stored::new("review:r");
    let (s, task) = s.apply(comment(on_new(11), false), &r, 5).unwrap();
    assert_eq!(task, None);
    assert_eq!(s.session.revision, 1);
    let f = &s.session.findings[0];
    assert_eq!((f.status, f.pending), (FindingStatus::Draft, false));
    assert_eq!(f.line_text.as_deref(), Some("new"));
    let send = ReviewEdit::Send {
        comment_id: f.id.clone(),
    };
    let (s, task) = s.apply(send.clone(), &r, 6).unwrap();
    assert_eq!(task, Some(("finding_1".into(), AgentTask::Answer)));
    assert_eq!(s.session.revision, 2);
    assert!(s.session.findings[0].pending);
    assert_eq!(s.session.findings[0].status, FindingStatus::Open);
    let err = s.apply(send, &r, 7).unwrap_err();
    assert!(err.contains("already working"), "{err}");
}

/// The life docs/protocol.md describes: draft → resolved → open; a resolved finding sent again
/// is reopened and answered; a fix request starts nothing until it is sent.
#[test]
fn a_finding_is_resolved_reopened_and_sending_a_resolved_one_reopens_it() {
    let r = review(vec![hunk("hunk:1", 10)]);
    let id = || "finding_1".to_owned();
    let status = |s: &Stored| s.session.findings[0].status;
    let (s, _) = Stored::new("review:r")
        .apply(comment(on_new(11), false), &r, 1)
        .unwrap();
    let (s, _) = s
        .apply(ReviewEdit::Resolve { comment_id: id() }, &r, 2)
        .unwrap();
    assert_eq!(status(&s), FindingStatus::Resolved, "a draft resolves");
    let (s, _) = s
        .apply(ReviewEdit::Reopen { comment_id: id() }, &r, 3)
        .unwrap();
    assert_eq!(status(&s), FindingStatus::Open);
    let (s, _) = s
        .apply(ReviewEdit::Resolve { comment_id: id() }, &r, 4)
        .unwrap();
    let fix = |send| ReviewEdit::RequestFix {
        comment_id: id(),
        body: None,
        send,
    };
    let (unsent, task) = s.apply(fix(false), &r, 5).unwrap();
    assert_eq!(task, None, "a fix request alone starts no turn");
    assert_eq!(status(&unsent), FindingStatus::Resolved);
    let (sent, task) = unsent
        .apply(ReviewEdit::Send { comment_id: id() }, &r, 6)
        .unwrap();
    assert_eq!(
        task,
        Some((id(), AgentTask::Fix)),
        "its last word asks a fix"
    );
    assert_eq!(status(&sent), FindingStatus::Open, "sending reopens it");
}

#[test]
fn bad_edits_say_why_and_change_nothing() {
    let r = review(vec![hunk("hunk:1", 10)]);
    let s = Stored::new("review:r");
    let cases = [
        (comment(on_new(99), false), "anchor not in the review"),
        (
            comment(
                Anchor::Hunk {
                    file_id: "file:a".into(),
                    hunk_id: "hunk:zzz".into(),
                },
                false,
            ),
            "anchor not in the review",
        ),
        (
            ReviewEdit::Comment {
                anchor: on_new(11),
                body: "  ".into(),
                severity: Severity::Issue,
                send: false,
            },
            "empty body",
        ),
        (
            ReviewEdit::Reply {
                comment_id: "finding_9".into(),
                body: "x".into(),
                send: false,
            },
            "unknown comment finding_9",
        ),
        (
            ReviewEdit::Update {
                comment_id: "finding_9".into(),
                body: None,
                severity: None,
            },
            "nothing to update",
        ),
    ];
    for (edit, why) in cases {
        let err = s.apply(edit, &r, 1).unwrap_err();
        assert!(err.contains(why), "{err} / {why}");
    }
    assert_eq!(s, Stored::new("review:r"));
}

#[test]
fn fix_requests_updates_resolve_reopen_and_delete() {
    let r = review(vec![hunk("hunk:1", 10)]);
    let (s, _) = Stored::new("review:r")
        .apply(comment(on_new(11), true), &r, 1)
        .unwrap();
    let id = "finding_1".to_owned();
    let err = s
        .apply(
            ReviewEdit::RequestFix {
                comment_id: id.clone(),
                body: None,
                send: true,
            },
            &r,
            2,
        )
        .unwrap_err();
    assert!(err.contains("already working"));
    let mut s = s;
    s.finding_mut(&id).unwrap().pending = false;
    let (s, task) = s
        .apply(
            ReviewEdit::RequestFix {
                comment_id: id.clone(),
                body: None,
                send: true,
            },
            &r,
            2,
        )
        .unwrap();
    assert_eq!(task, Some((id.clone(), AgentTask::Fix)));
    let (s, _) = s
        .apply(
            ReviewEdit::Update {
                comment_id: id.clone(),
                body: Some("better words".into()),
                severity: Some(Severity::Issue),
            },
            &r,
            3,
        )
        .unwrap();
    let f = &s.session.findings[0];
    assert_eq!(
        (f.severity, f.thread[0].body.as_str()),
        (Severity::Issue, "better words")
    );
    let (s, _) = s
        .apply(
            ReviewEdit::Resolve {
                comment_id: id.clone(),
            },
            &r,
            4,
        )
        .unwrap();
    assert_eq!(s.session.findings[0].status, FindingStatus::Resolved);
    let (s, _) = s
        .apply(
            ReviewEdit::Reopen {
                comment_id: id.clone(),
            },
            &r,
            5,
        )
        .unwrap();
    assert_eq!(s.session.findings[0].status, FindingStatus::Open);
    let (s, _) = s
        .apply(ReviewEdit::Delete { comment_id: id }, &r, 6)
        .unwrap();
    assert!(s.session.findings.is_empty() && s.positions.is_empty());
    assert_eq!(s.session.revision, 6);
}

#[test]
fn anchors_follow_their_hunk_and_vanished_ones_are_outdated() {
    let r = review(vec![hunk("hunk:1", 10)]);
    let (mut s, _) = Stored::new("review:r")
        .apply(comment(on_new(11), false), &r, 1)
        .unwrap();
    // Another change above moved the hunk down by 5 lines; its text is the same.
    assert!(s.follow(&review(vec![hunk("hunk:0", 1), hunk("hunk:1", 15)])));
    assert_eq!(s.session.findings[0].anchor, on_new(16));
    assert!(!s.session.findings[0].outdated);
    assert!(s.follow(&review(vec![hunk("hunk:2", 15)])));
    let f = &s.session.findings[0];
    assert!(f.outdated);
    assert_eq!(f.anchor, on_new(16), "kept as it was");
    assert_eq!(f.line_text.as_deref(), Some("new"));
    assert!(
        !s.follow(&review(vec![hunk("hunk:2", 15)])),
        "nothing changes twice"
    );
}

#[test]
fn a_stored_session_reads_back_and_refuses_another_review_or_a_newer_format() {
    let r = review(vec![hunk("hunk:1", 10)]);
    let (s, _) = Stored::new("review:r")
        .apply(comment(on_new(11), false), &r, 1)
        .unwrap();
    assert_eq!(Stored::parse(&s.to_bytes(), "review:r").unwrap(), s);
    assert!(
        Stored::parse(&s.to_bytes(), "review:x")
            .unwrap_err()
            .contains("belongs to")
    );
    let mut newer = s.clone();
    newer.version = STORED_VERSION + 1;
    assert!(
        Stored::parse(&newer.to_bytes(), "review:r")
            .unwrap_err()
            .contains("newer")
    );
    assert!(Stored::parse(b"{", "review:r").is_err());
}

/// An edit drawn at random: some valid, some not (unknown ids, bad anchors, empty bodies).
#[derive(Clone, Debug)]
struct RandomEdit(ReviewEdit);

impl quickcheck::Arbitrary for RandomEdit {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        let id = format!("finding_{}", u8::arbitrary(g) % 4);
        let body = if bool::arbitrary(g) {
            "words".to_owned()
        } else {
            " ".to_owned()
        };
        let line = *g.choose(&[10, 11, 99]).expect("non-empty");
        Self(match u8::arbitrary(g) % 8 {
            0 | 1 => ReviewEdit::Comment {
                anchor: on_new(line),
                body,
                severity: Severity::Issue,
                send: bool::arbitrary(g),
            },
            2 => ReviewEdit::Reply {
                comment_id: id,
                body,
                send: bool::arbitrary(g),
            },
            3 => ReviewEdit::RequestFix {
                comment_id: id,
                body: None,
                send: bool::arbitrary(g),
            },
            4 => ReviewEdit::Update {
                comment_id: id,
                body: Some(body),
                severity: None,
            },
            5 => ReviewEdit::Delete { comment_id: id },
            6 => ReviewEdit::Resolve { comment_id: id },
            _ => ReviewEdit::Send { comment_id: id },
        })
    }
}

quickcheck::quickcheck! {
    /// What a pull request review preview relies on: the revision moves exactly when a change
    /// is saved, so "the findings changed since the preview" is "the revision moved".
    fn the_revision_moves_exactly_when_findings_change(edits: Vec<RandomEdit>) -> bool {
        let review = review(vec![hunk("hunk:1", 10)]);
        let mut stored = Stored::new("review:r");
        for RandomEdit(edit) in edits {
            let before = stored.clone();
            match stored.apply(edit, &review, 1) {
                Ok((next, _)) => {
                    if next.session.revision != before.session.revision + 1 {
                        return false;
                    }
                    stored = next;
                }
                Err(_) => {
                    if stored != before {
                        return false;
                    }
                }
            }
        }
        true
    }
}

#[test]
fn a_session_file_from_before_report_status_still_reads_and_a_status_round_trips() {
    // As luxe wrote it before reports carried a status.
    let before = br#"{
      "version": 1,
      "session": {
        "id": "review:r",
        "revision": 3,
        "findings": [{
          "id": "finding_1",
          "anchor": {"kind": "line", "file_id": "file:a", "hunk_id": "hunk:1", "side": "new", "line": 11},
          "severity": "issue",
          "status": "open",
          "outdated": false,
          "pending": false,
          "line_text": "new",
          "thread": [
            {"author": "reviewer", "kind": "comment", "body": "fix it", "at": 1},
            {"author": "agent", "kind": "report", "body": "Fixed.", "at": 2}
          ]
        }],
        "notes": []
      },
      "positions": {"finding_1": [2, 2]},
      "next_finding": 2
    }"#;
    let mut stored = Stored::parse(before, "review:r").unwrap();
    let report = &stored.session.findings[0].thread[1];
    assert_eq!((report.kind, report.status), (EntryKind::Report, None));
    let entry = ThreadEntry {
        status: Some(ReportStatus::NotFixed),
        ..ThreadEntry::new(Author::Agent, EntryKind::Report, "No.".into(), 3)
    };
    stored.add_entry("finding_1", entry, false).unwrap();
    let bytes = stored.to_bytes();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(text.contains(r#""status": "not_fixed""#), "{text}");
    assert_eq!(
        text.matches(r#""status""#).count(),
        2,
        "the finding's and the new report's; entries without one omit it: {text}"
    );
    assert_eq!(Stored::parse(&bytes, "review:r").unwrap(), stored);
}

#[test]
fn an_edit_request_names_what_it_lacks() {
    let request = |edit: &str, fields: serde_json::Value| {
        let mut frame = serde_json::json!({"request_id":"r","review_id":"review:r","edit":edit});
        frame
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        serde_json::from_value::<EditReview>(frame)
            .map(|request| request.edit)
            .map_err(|e| e.to_string())
    };
    let err = |edit, fields| request(edit, fields).unwrap_err();
    assert_eq!(
        err("reply", serde_json::json!({"body":"b"})),
        "missing field `comment_id`"
    );
    assert_eq!(
        err(
            "comment",
            serde_json::json!({"body":"b", "severity": "issue"})
        ),
        "missing field `anchor`"
    );
    assert_eq!(
        err(
            "comment",
            serde_json::json!({"body":"b", "anchor": {"kind": "file", "file_id": "f"}})
        ),
        "missing field `severity`",
        "a comment needs its severity"
    );
    assert!(err("undo", serde_json::json!({})).starts_with("unknown variant `undo`"));
    assert!(
        err(
            "update",
            serde_json::json!({"comment_id":"c","severity":"bad"})
        )
        .starts_with("unknown variant `bad`")
    );
    assert_eq!(
        request(
            "resolve",
            serde_json::json!({"comment_id":"c", "newer": {"x": 1}})
        ),
        Ok(ReviewEdit::Resolve {
            comment_id: "c".into()
        }),
        "fields a newer luxe knows are ignored"
    );
}
