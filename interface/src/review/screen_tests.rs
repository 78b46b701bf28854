//! The review view on the whole screen (80×24 and 120×40 snapshots): its chapters and files,
//! a hunk with a finding and its thread, a withheld `.env`, an outdated finding, a comment
//! being written, the verdict picker, and a refusal from the session itself. The review comes
//! as the session's events would bring it (there is no io here to read a diff).

use luxe_core::protocol::events::{GuidedReviewLoaded, ReviewSessionEvent};
use luxe_core::protocol::github::{
    PullRequestReviewPreview, ReviewComment, SkippedFinding, Verdict,
};

use super::*;
use crate::review::{Outcome, fixture};

/// The interface after `/review`, the fixture's review loaded with its session.
fn reviewing(width: u16, height: u16) -> (Interface, Instant) {
    let (mut ui, now) = interface(width, height);
    typed(&mut ui, now, "/review");
    press(&mut ui, now, Key::plain(KeyCode::Enter));
    ui.take_event(&Event::GuidedReviewLoaded(GuidedReviewLoaded {
        request_id: "review_1".into(),
        review: fixture::review(),
    }));
    ui.take_event(&Event::ReviewSessionRestored(ReviewSessionEvent {
        session: fixture::session(),
    }));
    (ui, now)
}

fn keys(ui: &mut Interface, now: Instant, keys: &str) {
    typed(ui, now, keys);
}

/// `P` and the session's preview, answered here rather than by a session with no pull request.
fn previewed(ui: &mut Interface) {
    let Outcome::Send(action) = ui
        .review
        .key(Key::plain(KeyCode::Char('P')), ui.view.writes)
    else {
        panic!("P asks for a preview");
    };
    let luxe_core::protocol::actions::Action::PreviewPullRequestReview(asked) = *action else {
        panic!("not a preview: {action:?}");
    };
    let comment = |line, body: &str| ReviewComment {
        path: "src/lib.rs".into(),
        line,
        side: "RIGHT".into(),
        start_line: None,
        body: body.into(),
    };
    ui.take_event(&Event::PullRequestReviewPreview(Box::new(
        PullRequestReviewPreview {
            request_id: asked.request_id,
            session_revision: 5,
            head_sha: "abc123".into(),
            comments: vec![comment(13, "**question**: Why add 40 here?")],
            skipped: vec![SkippedFinding {
                comment_id: "finding_4".into(),
                reason: "outdated: its line is no longer in the diff".into(),
            }],
            suggested_verdict: Verdict::Comment,
        },
    )));
}

/// Every screen the review snapshots hold, drawn at one size.
fn review_screens(width: u16, height: u16) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let (mut ui, now) = reviewing(width, height);
    out.push(("review_chapters_and_files", screen(&mut ui)));
    keys(&mut ui, now, "jjjj");
    out.push((
        "review_a_hunk_with_a_finding_and_its_thread",
        screen(&mut ui),
    ));
    keys(&mut ui, now, "kc");
    keys(&mut ui, now, "Is 40 right?");
    out.push(("review_a_comment_being_written", screen(&mut ui)));
    press(&mut ui, now, Key::plain(KeyCode::Esc));
    keys(&mut ui, now, "gj");
    out.push(("review_an_outdated_finding", screen(&mut ui)));
    keys(&mut ui, now, "}}");
    out.push(("review_a_withheld_env", screen(&mut ui)));
    // The session has no such review open (it was never loaded there): its refusal.
    keys(&mut ui, now, "A");
    out.push(("review_a_refusal", screen(&mut ui)));
    previewed(&mut ui);
    out.push(("review_the_verdict_picker", screen(&mut ui)));
    out
}

#[test]
fn review_screens_at_80x24_and_120x40() {
    for (width, height) in [(80, 24), (120, 40)] {
        for (name, shown) in review_screens(width, height) {
            insta::assert_snapshot!(format!("{name}_{width}x{height}"), shown);
        }
    }
}

#[test]
fn q_goes_back_to_the_conversation_and_slash_review_comes_back_to_the_review() {
    let (mut ui, now) = reviewing(80, 24);
    keys(&mut ui, now, "n");
    press(&mut ui, now, Key::plain(KeyCode::Char('q')));
    let shown = screen(&mut ui);
    assert!(!shown.contains("Review ·"), "{shown}");
    assert_eq!(
        shown.lines().rev().nth(1),
        Some("›"),
        "the composer: {shown}"
    );
    keys(&mut ui, now, "/review");
    press(&mut ui, now, Key::plain(KeyCode::Enter));
    let shown = screen(&mut ui);
    assert!(shown.contains("Chapter 1 of 3"), "{shown}");
    assert!(
        shown.contains("›@@ -0,0 +1,2 @@"),
        "the cursor where it was: {shown}"
    );
}

#[test]
fn a_permission_prompt_of_a_review_turn_shows_over_the_review_and_takes_y() {
    let (mut ui, now) = reviewing(80, 24);
    event(&mut ui, super::asked_permission());
    let shown = screen(&mut ui);
    assert!(
        shown.contains("Allow bash?") && shown.contains("Review ·"),
        "{shown}"
    );
    press(&mut ui, now, Key::plain(KeyCode::Char('y')));
    // The prompt's answer reached the session (which has no such prompt, and says so).
    let last = ui.view.transcript.cells().last().cloned();
    assert!(
        matches!(&last, Some(Cell::Error(e)) if e.contains("perm_1")),
        "{last:?}"
    );
}
