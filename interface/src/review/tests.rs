//! The review view's keys become the protocol's actions, and its events change what it shows:
//! unit tests on the view alone, over the review of [`super::fixture`].

use luxe_core::protocol::actions::{Action, ReviewEdit};
use luxe_core::protocol::events::{
    ActionRejected, ChapterCommit, Event, GuidedReviewLoaded, GuidedReviewUpdated, RequestFailed,
    ReviewChaptersCommitted, ReviewSessionEvent, ReviewSessionSaved,
};
use luxe_core::protocol::findings::{Anchor, FindingStatus, Severity, Side};
use luxe_core::protocol::github::{GithubDone, PullRequestReviewPreview, Verdict};
use luxe_core::protocol::guided_review::{Review, ReviewTarget};

use super::fixture::{self, lib_line};
use super::open::Focus;
use super::overlay::Overlay;
use super::page::{Item, Section};
use super::{Outcome, ReviewView};
use crate::keys::{Key, KeyCode, Mods};
use crate::sheet::Writes;
use crate::slash::{self, Command};

/// GitHub writes as a session without `--github-writes` has them (off), not read-only.
const NO_WRITES: Writes = Writes {
    github: false,
    read_only: false,
};

/// The view after `/review`, with the fixture's review loaded and its session restored.
fn opened() -> ReviewView {
    let mut view = ReviewView::default();
    let Some(Action::LoadGuidedReview(load)) = view.open_target(None) else {
        panic!("/review loads");
    };
    assert_eq!(load.target, ReviewTarget::WorkingTree);
    view.take(&Event::GuidedReviewLoaded(GuidedReviewLoaded {
        request_id: load.request_id,
        review: fixture::review(),
    }));
    view.take(&Event::ReviewSessionRestored(ReviewSessionEvent {
        session: fixture::session(),
    }));
    view
}

fn key(view: &mut ReviewView, code: KeyCode) -> Outcome {
    view.key(Key::plain(code), NO_WRITES)
}

/// Presses each character of `keys`; what the last one came to.
fn keys(view: &mut ReviewView, keys: &str) -> Outcome {
    let mut last = Outcome::Nothing;
    for c in keys.chars() {
        last = key(view, KeyCode::Char(c));
    }
    last
}

fn ctrl_s(view: &mut ReviewView) -> Outcome {
    view.key(Key::ctrl('s'), NO_WRITES)
}

fn sent(outcome: Outcome) -> Action {
    match outcome {
        Outcome::Send(action) => *action,
        other => panic!("nothing sent: {other:?}"),
    }
}

/// The edit an `edit_review` sent, after checking it names the open review.
fn edit(outcome: Outcome) -> (String, ReviewEdit) {
    match sent(outcome) {
        Action::EditReview(edit) => {
            assert_eq!(edit.review_id, "review:test");
            (edit.request_id, edit.edit)
        }
        other => panic!("not an edit: {other:?}"),
    }
}

fn item(view: &ReviewView) -> Item {
    let open = view.open.as_ref().expect("open");
    open.items[open.cursor]
}

fn hunk_id(view: &ReviewView) -> String {
    let open = view.open.as_ref().expect("open");
    let hunk = open.hunk_of_item(open.cursor).expect("in a hunk");
    open.review.hunks[hunk].id.clone()
}

fn section(view: &ReviewView) -> Section {
    view.open.as_ref().expect("open").section
}

fn notice(view: &ReviewView) -> String {
    view.notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default()
}

/// Moves the cursor down to finding `id` of the page.
fn onto_finding(view: &mut ReviewView, id: &str) {
    for _ in 0..40 {
        if view
            .open
            .as_ref()
            .and_then(|o| o.finding())
            .is_some_and(|f| f.id == id)
        {
            return;
        }
        key(view, KeyCode::Char('j'));
    }
    panic!("no {id} on the page");
}

#[test]
fn slash_review_loads_the_working_tree_and_then_comes_back_to_the_open_review() {
    assert_eq!(slash::parse("/review", "r"), Command::Review(None));
    assert_eq!(
        slash::parse("/review pr 7", "r"),
        Command::Review(Some(ReviewTarget::PullRequest {
            number: 7,
            repository: None
        }))
    );
    assert!(
        matches!(slash::parse("/review all", "r"), Command::Wrong(w) if w.starts_with("/review takes"))
    );
    let mut view = ReviewView::default();
    assert!(view.open_target(None).is_some());
    assert!(view.open_target(None).is_none(), "not twice while loading");
    let mut view = opened();
    assert_eq!(key(&mut view, KeyCode::Char('q')), Outcome::Close);
    view.hide();
    assert!(!view.is_shown());
    assert_eq!(view.open_target(None), None, "the open review comes back");
    assert!(view.is_shown());
    let Some(Action::LoadGuidedReview(load)) = view.open_target(Some(ReviewTarget::Staged)) else {
        panic!("a target loads");
    };
    assert_eq!(load.target, ReviewTarget::Staged);
}

#[test]
fn it_opens_on_the_first_chapter_with_the_page_focused_on_its_first_hunk() {
    let view = opened();
    assert!(view.is_shown());
    assert_eq!(section(&view), Section::Chapter(0));
    assert_eq!(view.open.as_ref().map(|o| o.focus), Some(Focus::Page));
    assert!(matches!(item(&view), Item::Hunk(_)));
    assert_eq!(hunk_id(&view), "hunk:lib");
}

#[test]
fn keys_move_by_line_hunk_file_and_chapter() {
    let mut view = opened();
    keys(&mut view, "j");
    assert_eq!(item(&view), Item::Line { hunk: 2, line: 0 });
    keys(&mut view, "k");
    assert!(matches!(item(&view), Item::Hunk(2)));
    keys(&mut view, "n");
    assert_eq!(
        (item(&view), section(&view)),
        (Item::Hunk(3), Section::Chapter(0))
    );
    keys(&mut view, "n");
    assert_eq!(
        (item(&view), section(&view)),
        (Item::Hunk(1), Section::Chapter(1)),
        "n goes on into the next chapter"
    );
    keys(&mut view, "p");
    assert_eq!(
        (item(&view), section(&view)),
        (Item::Hunk(3), Section::Chapter(0))
    );
    keys(&mut view, "[");
    assert_eq!(item(&view), Item::File(3), "the file's own header first");
    keys(&mut view, "[");
    assert_eq!(item(&view), Item::File(2));
    keys(&mut view, "]]");
    assert_eq!(
        (item(&view), section(&view)),
        (Item::File(1), Section::Chapter(1))
    );
    keys(&mut view, "}");
    assert_eq!(section(&view), Section::Chapter(2));
    keys(&mut view, "}");
    assert_eq!(
        section(&view),
        Section::Elsewhere,
        "then the findings no longer in the diff"
    );
    keys(&mut view, "{{{");
    assert_eq!(section(&view), Section::Chapter(0));
    keys(&mut view, "G");
    let open = view.open.as_ref().expect("open");
    assert_eq!(open.cursor, open.items.len() - 1);
    keys(&mut view, "g");
    assert_eq!(item(&view), Item::File(2));
    key(&mut view, KeyCode::Tab);
    assert_eq!(view.open.as_ref().map(|o| o.focus), Some(Focus::Outline));
    keys(&mut view, "j");
    assert_eq!(section(&view), Section::Chapter(0));
    assert_eq!(
        item(&view),
        Item::File(3),
        "the left pane's file shows in the page"
    );
    keys(&mut view, "j");
    assert_eq!(section(&view), Section::Chapter(1));
    key(&mut view, KeyCode::Enter);
    assert_eq!(view.open.as_ref().map(|o| o.focus), Some(Focus::Page));
}

#[test]
fn c_comments_on_the_cursor_line_enter_saves_a_draft_and_ctrl_s_sends_it() {
    let mut view = opened();
    keys(&mut view, "jjjc");
    assert!(matches!(view.overlay, Some(Overlay::Write(_))));
    keys(&mut view, "Why?");
    let (_, sent_now) = edit(ctrl_s(&mut view));
    assert_eq!(
        sent_now,
        ReviewEdit::Comment {
            anchor: lib_line(13),
            body: "Why?".into(),
            severity: Severity::Question,
            send: true,
        }
    );
    assert!(view.overlay.is_none());
    // The deleted line, by its old number; Tab picks the next severity.
    keys(&mut view, "kc");
    key(&mut view, KeyCode::Tab);
    keys(&mut view, "x");
    let (_, draft) = edit(key(&mut view, KeyCode::Enter));
    assert_eq!(
        draft,
        ReviewEdit::Comment {
            anchor: Anchor::Line {
                file_id: "file:src/lib.rs".into(),
                hunk_id: "hunk:lib".into(),
                side: Side::Old,
                line: 13,
            },
            body: "x".into(),
            severity: Severity::Suggestion,
            send: false,
        }
    );
    // Nothing written: nothing sent, and the composer stays.
    keys(&mut view, "c");
    assert_eq!(key(&mut view, KeyCode::Enter), Outcome::Nothing);
    assert!(matches!(view.overlay, Some(Overlay::Write(_))));
    assert_eq!(key(&mut view, KeyCode::Esc), Outcome::Nothing);
    assert!(view.overlay.is_none());
}

#[test]
fn v_marks_a_range_and_c_comments_on_the_file_and_hunk_headers_too() {
    let mut view = opened();
    keys(&mut view, "jvjjc");
    keys(&mut view, "all of it");
    let (_, range) = edit(key(&mut view, KeyCode::Enter));
    let ReviewEdit::Comment { anchor, .. } = range else {
        panic!("a comment");
    };
    assert_eq!(
        anchor,
        Anchor::Range {
            file_id: "file:src/lib.rs".into(),
            hunk_id: "hunk:lib".into(),
            side: Side::New,
            start_line: 12,
            end_line: 13,
        }
    );
    // Leaving the hunk drops the mark.
    keys(&mut view, "vn");
    assert_eq!(view.open.as_ref().and_then(|o| o.mark), None);
    let (_, on_hunk) = {
        keys(&mut view, "cy");
        edit(key(&mut view, KeyCode::Enter))
    };
    assert!(
        matches!(on_hunk, ReviewEdit::Comment { anchor: Anchor::Hunk { hunk_id, .. }, .. } if hunk_id == "hunk:new")
    );
    keys(&mut view, "gc");
    keys(&mut view, "z");
    let (_, on_file) = edit(key(&mut view, KeyCode::Enter));
    assert!(
        matches!(on_file, ReviewEdit::Comment { anchor: Anchor::File { file_id }, .. } if file_id == "file:src/lib.rs")
    );
}

#[test]
fn keys_on_a_finding_send_fix_reply_resolve_edit_and_delete_it() {
    let mut view = opened();
    assert_eq!(keys(&mut view, "s"), Outcome::Nothing);
    assert!(
        notice(&view).contains("move the cursor onto one"),
        "{}",
        notice(&view)
    );
    onto_finding(&mut view, "finding_1");
    let id = || "finding_1".to_owned();
    assert_eq!(
        edit(keys(&mut view, "s")).1,
        ReviewEdit::Send { comment_id: id() }
    );
    assert_eq!(
        edit(keys(&mut view, "x")).1,
        ReviewEdit::Resolve { comment_id: id() }
    );
    keys(&mut view, "f");
    assert_eq!(
        edit(key(&mut view, KeyCode::Enter)).1,
        ReviewEdit::RequestFix {
            comment_id: id(),
            body: None,
            send: true
        }
    );
    keys(&mut view, "fuse 42");
    assert_eq!(
        edit(key(&mut view, KeyCode::Enter)).1,
        ReviewEdit::RequestFix {
            comment_id: id(),
            body: Some("use 42".into()),
            send: true
        }
    );
    keys(&mut view, "rthanks");
    assert_eq!(
        edit(ctrl_s(&mut view)).1,
        ReviewEdit::Reply {
            comment_id: id(),
            body: "thanks".into(),
            send: true
        }
    );
    keys(&mut view, "e!");
    key(&mut view, KeyCode::Tab);
    assert_eq!(
        edit(key(&mut view, KeyCode::Enter)).1,
        ReviewEdit::Update {
            comment_id: id(),
            body: Some("Why add 40 here?!".into()),
            severity: Some(Severity::Suggestion),
        }
    );
    assert_eq!(keys(&mut view, "dn"), Outcome::Nothing, "d asks first");
    assert_eq!(notice(&view), "kept");
    assert_eq!(
        edit(keys(&mut view, "dy")).1,
        ReviewEdit::Delete { comment_id: id() }
    );
}

#[test]
fn a_resolved_finding_reopens_and_one_no_longer_in_the_diff_takes_no_comment() {
    let mut view = opened();
    keys(&mut view, "}}}");
    assert_eq!(section(&view), Section::Elsewhere);
    assert_eq!(
        view.open
            .as_ref()
            .and_then(|o| o.finding())
            .map(|f| f.status),
        Some(FindingStatus::Resolved)
    );
    assert_eq!(
        edit(keys(&mut view, "x")).1,
        ReviewEdit::Reopen {
            comment_id: "finding_5".into()
        }
    );
    assert_eq!(keys(&mut view, "c"), Outcome::Nothing);
    assert!(view.overlay.is_none());
    assert!(
        notice(&view).starts_with("c comments on"),
        "{}",
        notice(&view)
    );
}

#[test]
fn agent_review_commits_and_a_stack_are_sent_and_read_only_turns_commits_off() {
    let mut view = opened();
    let Action::RequestAgentReview(asked) = sent(keys(&mut view, "A")) else {
        panic!("an agent review");
    };
    assert_eq!(asked.review_id, "review:test");
    keys(&mut view, "C");
    let Some(Overlay::Commit(commits)) = &view.overlay else {
        panic!("the messages first");
    };
    assert_eq!(
        commits.messages[0].2.shown(),
        "src: lib.rs, new.rs\n\nbeta returns 2 + 40, and gamma and delta are new."
    );
    key(&mut view, KeyCode::Tab);
    keys(&mut view, "!");
    let Action::CommitReviewChapters(commit) = sent(key(&mut view, KeyCode::Enter)) else {
        panic!("a commit");
    };
    let messages = commit.messages.expect("messages");
    assert_eq!(
        messages["chapter:docs"],
        "Docs: README.md\n\nThe README mentions gamma.!"
    );
    assert_eq!(messages.len(), 3);
    assert_eq!((commit.stack, commit.chapter_ids), (None, None));
    keys(&mut view, "S");
    let Action::CommitReviewChapters(stack) = sent(key(&mut view, KeyCode::Enter)) else {
        panic!("a stack");
    };
    assert_eq!(stack.stack, Some(true));
    assert!(
        view.take(&Event::ReviewChaptersCommitted(ReviewChaptersCommitted {
            request_id: stack.request_id,
            commits: vec![ChapterCommit {
                chapter_id: "chapter:src".into(),
                sha: "0123456789abcdef".into(),
                branch: Some("main-1-src".into()),
            }],
        }))
    );
    assert_eq!(
        notice(&view),
        "committed 1 chapter as a stack of branches: main-1-src 0123456"
    );

    let read_only = Writes {
        github: false,
        read_only: true,
    };
    let c = Key::plain(KeyCode::Char('C'));
    assert_eq!(view.key(c, read_only), Outcome::Nothing);
    assert!(view.overlay.is_none());
    assert_eq!(
        notice(&view),
        "C is off: this session is read-only, and commits are writes"
    );
}

fn preview(request_id: &str) -> Event {
    Event::PullRequestReviewPreview(Box::new(PullRequestReviewPreview {
        request_id: request_id.into(),
        session_revision: 5,
        head_sha: "abc".into(),
        comments: Vec::new(),
        skipped: Vec::new(),
        suggested_verdict: Verdict::RequestChanges,
    }))
}

#[test]
fn a_pull_request_review_is_previewed_then_posted_with_the_verdict_picked() {
    let mut view = opened();
    let Action::PreviewPullRequestReview(asked) = sent(keys(&mut view, "P")) else {
        panic!("a preview");
    };
    assert!(view.take(&preview(&asked.request_id)));
    assert!(
        matches!(&view.overlay, Some(Overlay::Post(post)) if post.verdict == Verdict::RequestChanges)
    );
    assert_eq!(key(&mut view, KeyCode::Enter), Outcome::Nothing);
    assert_eq!(
        notice(&view),
        "GitHub writes are off: start luxe with --github-writes"
    );
    key(&mut view, KeyCode::Tab);
    keys(&mut view, "LGTM");
    let writes = Writes {
        github: true,
        read_only: false,
    };
    let enter = Key::plain(KeyCode::Enter);
    let Action::PostPullRequestReview(post) = sent(view.key(enter, writes)) else {
        panic!("a post");
    };
    assert_eq!(
        (post.request_id.as_str(), post.verdict),
        (asked.request_id.as_str(), Verdict::Comment)
    );
    assert_eq!(post.body.as_deref(), Some("LGTM"));
    assert_eq!(
        key(&mut view, KeyCode::Enter),
        Outcome::Nothing,
        "once while it posts"
    );
    assert!(
        view.take(&Event::PullRequestReviewPostFailed(RequestFailed {
            request_id: asked.request_id.clone(),
            reason: "the head moved".into(),
        }))
    );
    assert_eq!(
        notice(&view),
        "not posted (Enter tries again): the head moved"
    );
    assert!(matches!(
        sent(view.key(enter, writes)),
        Action::PostPullRequestReview(_)
    ));
    assert!(view.take(&Event::PullRequestReviewPosted(GithubDone {
        request_id: asked.request_id,
        url: Some("https://github.com/o/n/pull/7#review".into()),
    })));
    assert!(view.overlay.is_none());
    assert_eq!(
        notice(&view),
        "posted the review: https://github.com/o/n/pull/7#review"
    );
}

#[test]
fn a_refusal_shows_in_one_line_and_what_was_written_comes_back() {
    let mut view = opened();
    keys(&mut view, "jjjcWhy?");
    let (request_id, _) = edit(key(&mut view, KeyCode::Enter));
    let before = view.open.as_ref().map(|o| o.session.clone());
    assert!(view.take(&Event::ReviewSessionSaveFailed(RequestFailed {
        request_id,
        reason: "anchor not in the review".into(),
    })));
    assert_eq!(notice(&view), "not saved: anchor not in the review");
    assert!(view.notice.as_ref().is_some_and(|n| n.refusal));
    assert!(matches!(&view.overlay, Some(Overlay::Write(w)) if w.text.shown() == "Why?"));
    assert_eq!(
        view.open.as_ref().map(|o| o.session.clone()),
        before,
        "nothing changed"
    );
    key(&mut view, KeyCode::Esc);
    let Action::RequestAgentReview(asked) = sent(keys(&mut view, "A")) else {
        panic!("an agent review");
    };
    assert!(view.take(&Event::ActionRejected(ActionRejected {
        kind: Some("request_agent_review".into()),
        reason: "review review:test is not open".into(),
        request_id: Some(asked.request_id),
    })));
    assert_eq!(
        notice(&view),
        "no agent review: review review:test is not open"
    );
    // Not the view's: left to the conversation.
    assert!(!view.take(&Event::ActionRejected(ActionRejected {
        kind: Some("set_model".into()),
        reason: "unknown provider".into(),
        request_id: None,
    })));
}

/// The fixture's review with its chapters in another order and `src/lib.rs`'s hunk moved down.
fn read_again(keep_lib: bool) -> std::sync::Arc<Review> {
    let mut review = (*fixture::review()).clone();
    review.chapters.rotate_left(1);
    let lib = review
        .hunks
        .iter_mut()
        .find(|h| h.id == "hunk:lib")
        .expect("lib");
    lib.new_start += 8;
    lib.old_start += 8;
    if !keep_lib {
        lib.id = "hunk:lib2".into();
        let chapter = review
            .chapters
            .iter_mut()
            .find(|c| c.id == "chapter:src")
            .expect("src");
        chapter.hunk_ids[0] = "hunk:lib2".into();
        review.files[2].hunk_ids[0] = "hunk:lib2".into();
    }
    std::sync::Arc::new(review)
}

#[test]
fn the_cursor_keeps_its_place_when_the_review_is_read_again_or_the_session_saved() {
    let mut view = opened();
    keys(&mut view, "jjj");
    let here = item(&view);
    view.take(&Event::GuidedReviewUpdated(GuidedReviewUpdated {
        review: read_again(true),
    }));
    assert_eq!(
        (item(&view), section(&view)),
        (here, Section::Chapter(2)),
        "the same line, in its chapter's new place"
    );
    // A finding added above keeps the cursor on its own.
    keys(&mut view, "j");
    assert!(matches!(item(&view), Item::Finding { .. }));
    let mut session = fixture::session();
    let mut earlier = session.findings[1].clone();
    earlier.id = "finding_6".into();
    earlier.anchor = lib_line(12);
    session.findings.insert(0, earlier);
    view.take(&Event::ReviewSessionSaved(ReviewSessionSaved {
        request_id: None,
        session,
    }));
    assert_eq!(
        view.open
            .as_ref()
            .and_then(|o| o.finding())
            .map(|f| f.id.as_str()),
        Some("finding_1")
    );
    // The hunk is gone: the finding stays under the cursor, now at its file's top…
    view.take(&Event::GuidedReviewUpdated(GuidedReviewUpdated {
        review: read_again(false),
    }));
    assert_eq!(section(&view), Section::Chapter(2));
    let open = view.open.as_ref().expect("open");
    assert_eq!(open.finding().map(|f| f.id.as_str()), Some("finding_1"));
    assert!(
        matches!(item(&view), Item::Finding { under: Some(at), .. } if open.items[at] == Item::File(2))
    );
    // …and a cursor on one of its lines goes to the file's header.
    let mut view = opened();
    keys(&mut view, "jjj");
    view.take(&Event::GuidedReviewUpdated(GuidedReviewUpdated {
        review: read_again(false),
    }));
    assert_eq!(
        (item(&view), section(&view)),
        (Item::File(2), Section::Chapter(2))
    );
}

#[test]
fn esc_closes_what_is_open_then_drops_the_mark_then_goes_back() {
    let mut view = opened();
    keys(&mut view, "jvc");
    assert_eq!(key(&mut view, KeyCode::Esc), Outcome::Nothing);
    assert!(view.overlay.is_none());
    keys(&mut view, "v");
    assert!(view.open.as_ref().is_some_and(|o| o.mark.is_some()));
    assert_eq!(key(&mut view, KeyCode::Esc), Outcome::Nothing);
    assert!(view.open.as_ref().is_some_and(|o| o.mark.is_none()));
    assert_eq!(key(&mut view, KeyCode::Esc), Outcome::Close);
    // Keys the view does not take go to the interface.
    assert_eq!(
        view.key(
            Key {
                code: KeyCode::Char('c'),
                mods: Mods {
                    ctrl: true,
                    ..Mods::default()
                }
            },
            NO_WRITES
        ),
        Outcome::Pass
    );
}
