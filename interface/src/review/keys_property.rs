//! The review view's keys as a property: over random reviews and sessions, random keys,
//! resizes, answers, refusals and the review read again never panic; the cursor is always on
//! an item drawn on screen (its `›` is where the terminal cursor goes); and every action sent
//! decodes as the protocol's codec decodes a client's line, names the open review, and points
//! only at files, hunks, lines and findings that are in it.

use std::sync::Arc;

use luxe_core::protocol::actions::{Action, ReviewEdit};
use luxe_core::protocol::codec;
use luxe_core::protocol::events::{
    ActionRejected, ChapterCommit, Event, GuidedReviewLoaded, GuidedReviewUpdated, RequestFailed,
    ReviewChaptersCommitted, ReviewSessionEvent, ReviewSessionSaved,
};
use luxe_core::protocol::findings::{
    Anchor, Author, EntryKind, Finding, FindingStatus, ReviewSession, Severity, Side, ThreadEntry,
};
use luxe_core::protocol::github::{GithubDone, PullRequestReviewPreview, Verdict};
use luxe_core::protocol::guided_review::{FileStatus, Hunk, LineKind, Review, ReviewTarget};
use quickcheck::{Arbitrary, Gen, QuickCheck};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::fixture::{chapter, file, hunk};
use super::{Outcome, ReviewView};
use crate::keys::{Key, KeyCode, Mods};
use crate::sheet::Writes;

/// A review, another reading of it, and two sessions of findings over it.
#[derive(Debug, Clone)]
struct Scenario {
    review: Review,
    again: Review,
    sessions: Vec<ReviewSession>,
}

fn pick<T: Copy>(g: &mut Gen, from: &[T]) -> T {
    *g.choose(from).expect("something to choose")
}

fn upto(g: &mut Gen, n: usize) -> usize {
    usize::arbitrary(g) % (n + 1)
}

/// A review of 1–4 files of 1–3 hunks (some without lines, one maybe a withheld `.env`), in
/// chapters that may split a file. Two reviews made so share some hunk ids, as two readings
/// of a changing working tree do.
fn review(g: &mut Gen) -> Review {
    let kinds = [LineKind::Context, LineKind::Add, LineKind::Del];
    let mut files = Vec::new();
    let mut hunks: Vec<Hunk> = Vec::new();
    for f in 0..1 + upto(g, 3) {
        let withheld = f == 0 && bool::arbitrary(g);
        let path = if withheld {
            ".env".to_owned()
        } else {
            format!("src/f{f}.rs")
        };
        let file_id = format!("file:{path}");
        let mut mine = Vec::new();
        let (mut old, mut new) = (1 + upto(g, 200) as u32, 1 + upto(g, 200) as u32);
        for h in 0..1 + upto(g, 2) {
            let texts: Vec<String> = (0..upto(g, 6)).map(|_| String::arbitrary(g)).collect();
            let lines: Vec<(LineKind, &str)> = if withheld {
                Vec::new()
            } else {
                texts
                    .iter()
                    .map(|t| (pick(g, &kinds), t.as_str()))
                    .collect()
            };
            let id = format!("hunk:{f}:{h}:{}", u8::arbitrary(g) % 3);
            let header = if lines.is_empty() { "binary file" } else { "" };
            let made = hunk(&id, &file_id, (old, new), header, &lines);
            old += made.old_lines + 5;
            new += made.new_lines + 5;
            mine.push(made);
        }
        let refs: Vec<&Hunk> = mine.iter().collect();
        let status = pick(
            g,
            &[FileStatus::Modified, FileStatus::Added, FileStatus::Renamed],
        );
        files.push(file(&path, status, withheld, &refs));
        hunks.extend(mine);
    }
    let count = 1 + upto(g, 3);
    let mut groups: Vec<Vec<&str>> = vec![Vec::new(); count];
    for h in &hunks {
        groups[upto(g, count - 1)].push(&h.id);
    }
    let chapters = (groups.iter().enumerate())
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(n, ids)| {
            chapter(
                &format!("chapter:{n}"),
                &String::arbitrary(g),
                &String::arbitrary(g),
                ids,
            )
        })
        .collect();
    Review {
        id: "review:random".into(),
        revision_id: "revision".into(),
        target: ReviewTarget::WorkingTree,
        files,
        hunks,
        chapters,
    }
}

/// An anchor into `review`, or (now and then) one that is not in it.
fn anchor(g: &mut Gen, review: &Review) -> Anchor {
    let h = &review.hunks[upto(g, review.hunks.len() - 1)];
    let (file_id, hunk_id) = (h.file_id.clone(), h.id.clone());
    let numbered: Vec<(Side, u32)> = h
        .lines
        .iter()
        .flat_map(|l| {
            let old = l.old_line.map(|n| (Side::Old, n));
            let new = l.new_line.map(|n| (Side::New, n));
            old.into_iter().chain(new)
        })
        .collect();
    match (u8::arbitrary(g) % 6, numbered.is_empty()) {
        (0, _) => Anchor::File { file_id },
        (1, _) | (2 | 3, true) => Anchor::Hunk { file_id, hunk_id },
        (2, false) => {
            let (side, line) = pick(g, &numbered);
            Anchor::Line {
                file_id,
                hunk_id,
                side,
                line,
            }
        }
        (3, false) => {
            let (side, start_line) = pick(g, &numbered);
            let end_line = start_line + upto(g, 2) as u32;
            Anchor::Range {
                file_id,
                hunk_id,
                side,
                start_line,
                end_line,
            }
        }
        (4, _) => Anchor::Line {
            file_id,
            hunk_id: "hunk:gone".into(),
            side: Side::New,
            line: 3,
        },
        _ => Anchor::File {
            file_id: "file:gone".into(),
        },
    }
}

fn session(g: &mut Gen, review: &Review) -> ReviewSession {
    let authors = [Author::Reviewer, Author::Agent, Author::System];
    let kinds = [
        EntryKind::Comment,
        EntryKind::Reply,
        EntryKind::FixRequest,
        EntryKind::Answer,
        EntryKind::Report,
        EntryKind::Note,
    ];
    let statuses = [
        FindingStatus::Draft,
        FindingStatus::Open,
        FindingStatus::Resolved,
    ];
    let findings = (0..upto(g, 6))
        .map(|n| {
            let anchor = anchor(g, review);
            let thread = (0..1 + upto(g, 3))
                .map(|_| {
                    ThreadEntry::new(pick(g, &authors), pick(g, &kinds), String::arbitrary(g), 0)
                })
                .collect();
            Finding {
                id: format!("finding_{n}"),
                anchor,
                severity: pick(g, &Severity::NAMED.map(|(_, s)| s)),
                status: pick(g, &statuses),
                outdated: bool::arbitrary(g),
                pending: bool::arbitrary(g),
                line_text: Option::arbitrary(g),
                thread,
            }
        })
        .collect();
    ReviewSession {
        id: review.id.clone(),
        revision: 1,
        findings,
        notes: Vec::new(),
    }
}

impl Arbitrary for Scenario {
    fn arbitrary(g: &mut Gen) -> Self {
        let review = review(g);
        let again = self::review(g);
        let sessions = vec![session(g, &review), session(g, &again)];
        Self {
            review,
            again,
            sessions,
        }
    }
}

#[derive(Debug, Clone)]
enum Step {
    Key(Key),
    Resize(u16, u16),
    /// The oldest request still waiting gets its answer (or its refusal).
    Answer(bool),
    /// The session saved as `sessions[_]` (progress of an agent turn).
    Saved(usize),
    /// The review read again as the other reading.
    ReadAgain,
    /// The session's writes, as another `ready` would say them.
    Writes(Writes),
}

impl Arbitrary for Step {
    fn arbitrary(g: &mut Gen) -> Self {
        let chars: Vec<char> = "jjjkknp[]{}gGvcsfrxedACSPqy a\u{1b}日".chars().collect();
        match u8::arbitrary(g) % 20 {
            0 => Self::Resize(upto(g, 160) as u16, upto(g, 50) as u16),
            1 | 2 => Self::Answer(bool::arbitrary(g)),
            3 => Self::Saved(upto(g, 1)),
            4 => Self::ReadAgain,
            5 => Self::Writes(Writes {
                github: bool::arbitrary(g),
                read_only: bool::arbitrary(g),
            }),
            6 | 7 => Self::Key(Key::plain(pick(g, &KeyCode::NAMED))),
            8 => {
                let c = pick(g, &['s', 'j', 'u']);
                Self::Key(Key {
                    code: KeyCode::Char(c),
                    mods: Mods {
                        ctrl: true,
                        ..Mods::default()
                    },
                })
            }
            9 => Self::Key(Key {
                code: KeyCode::Enter,
                mods: Mods {
                    shift: true,
                    ..Mods::default()
                },
            }),
            _ => Self::Key(Key::plain(KeyCode::Char(pick(g, &chars)))),
        }
    }
}

/// What the test has seen of the session: the review and findings it sent, and the requests
/// the view made that wait for an answer.
struct World {
    review: Arc<Review>,
    session: ReviewSession,
    waiting: Vec<Action>,
    previews: Vec<String>,
}

/// Whether `anchor` is in `review`: its file, its hunk in that file, its lines on its side.
fn anchored(review: &Review, anchor: &Anchor) -> bool {
    let numbered = |hunk_id: &str, file_id: &str, side: &Side, line: u32| {
        review.hunks.iter().any(|h| {
            h.id == hunk_id
                && h.file_id == file_id
                && h.lines.iter().any(|l| match side {
                    Side::Old => l.old_line == Some(line),
                    Side::New => l.new_line == Some(line),
                })
        })
    };
    match anchor {
        Anchor::File { file_id } => review.files.iter().any(|f| f.id == *file_id),
        Anchor::Hunk { file_id, hunk_id } => review
            .hunks
            .iter()
            .any(|h| h.id == *hunk_id && h.file_id == *file_id),
        Anchor::Line {
            file_id,
            hunk_id,
            side,
            line,
        } => numbered(hunk_id, file_id, side, *line),
        Anchor::Range {
            file_id,
            hunk_id,
            side,
            start_line,
            end_line,
        } => {
            start_line < end_line
                && numbered(hunk_id, file_id, side, *start_line)
                && numbered(hunk_id, file_id, side, *end_line)
        }
    }
}

/// Why `action` is not one the protocol accepts for the open review, if it is not.
fn refused(world: &World, action: &Action) -> Option<String> {
    let line = serde_json::to_vec(action).expect("an action serializes");
    match codec::decode(&line) {
        Ok(Some(incoming)) if incoming.action == *action => {}
        other => return Some(format!("does not decode as sent: {other:?}")),
    }
    let review = &world.review;
    let finding = |id: &str| world.session.findings.iter().any(|f| f.id == id);
    let (review_id, ok) = match action {
        Action::LoadGuidedReview(_) => return None,
        Action::EditReview(edit) => {
            let ok = match &edit.edit {
                ReviewEdit::Comment { anchor, body, .. } => {
                    anchored(review, anchor) && !body.trim().is_empty()
                }
                ReviewEdit::Reply { comment_id, .. }
                | ReviewEdit::RequestFix { comment_id, .. }
                | ReviewEdit::Update { comment_id, .. }
                | ReviewEdit::Delete { comment_id }
                | ReviewEdit::Resolve { comment_id }
                | ReviewEdit::Reopen { comment_id }
                | ReviewEdit::Send { comment_id } => finding(comment_id),
            };
            (&edit.review_id, ok)
        }
        Action::RequestAgentReview(asked) => (&asked.review_id, true),
        Action::PreviewPullRequestReview(asked) => (&asked.review_id, true),
        Action::CommitReviewChapters(commit) => {
            let named = commit.messages.iter().flat_map(|m| m.keys());
            let ok = named.eq(sorted_chapter_ids(review));
            (&commit.review_id, ok)
        }
        Action::PostPullRequestReview(post) => {
            return (!world.previews.contains(&post.request_id)).then(|| "posts no preview".into());
        }
        other => return Some(format!("not a review action: {other:?}")),
    };
    if *review_id != review.id {
        return Some(format!("names {review_id}, not the open review"));
    }
    (!ok).then(|| "points at what is not in the review".into())
}

fn sorted_chapter_ids(review: &Review) -> Vec<&String> {
    let mut ids: Vec<&String> = review.chapters.iter().map(|c| &c.id).collect();
    ids.sort();
    ids
}

fn request_id(action: &Action) -> String {
    let value = serde_json::to_value(action).expect("serializes");
    value["content"]["request_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The answer (or the refusal) to `action`.
fn answer(world: &mut World, action: &Action, ok: bool) -> Event {
    let request_id = request_id(action);
    let failed = RequestFailed {
        request_id: request_id.clone(),
        reason: "no".into(),
    };
    match (action, ok) {
        (Action::LoadGuidedReview(_), true) => Event::GuidedReviewLoaded(GuidedReviewLoaded {
            request_id,
            review: world.review.clone(),
        }),
        (Action::EditReview(_), false) => Event::ReviewSessionSaveFailed(failed),
        (Action::EditReview(_) | Action::RequestAgentReview(_), true) => {
            Event::ReviewSessionSaved(ReviewSessionSaved {
                request_id: Some(request_id),
                session: world.session.clone(),
            })
        }
        (Action::CommitReviewChapters(_), true) => {
            Event::ReviewChaptersCommitted(ReviewChaptersCommitted {
                request_id,
                commits: vec![ChapterCommit {
                    chapter_id: "chapter:0".into(),
                    sha: "0123456789".into(),
                    branch: None,
                }],
            })
        }
        (Action::CommitReviewChapters(_), false) => Event::ReviewChaptersCommitFailed(failed),
        (Action::PreviewPullRequestReview(_), true) => {
            world.previews.push(request_id.clone());
            Event::PullRequestReviewPreview(Box::new(PullRequestReviewPreview {
                request_id,
                session_revision: 1,
                head_sha: "abc".into(),
                comments: Vec::new(),
                skipped: Vec::new(),
                suggested_verdict: Verdict::Approve,
            }))
        }
        (Action::PostPullRequestReview(_), true) => Event::PullRequestReviewPosted(GithubDone {
            request_id,
            url: None,
        }),
        (Action::PostPullRequestReview(_), false) => Event::PullRequestReviewPostFailed(failed),
        _ => Event::ActionRejected(ActionRejected {
            kind: Some(action.kind().into()),
            reason: "no".into(),
            request_id: Some(request_id),
        }),
    }
}

/// Draws the view at `size`; whether the cursor, when there is one, is on an item drawn (its
/// `›` where the terminal cursor goes).
fn cursor_shown(view: &mut ReviewView, (width, height): (u16, u16), writes: Writes) -> bool {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    let (x, y) = super::render::draw(view, area, &mut buf, false, writes);
    let Some(open) = view.open.as_ref() else {
        return true;
    };
    let on_item = open.items.len() <= 1 || (1..open.items.len()).contains(&open.cursor);
    // Only a page with items has a cursor to show, and only when nothing is open over it and
    // there is room for a row of the panes.
    let drawn = view.overlay.is_some()
        || open.items.len() <= 1
        || height < 3
        || width < 2
        || buf[(x, y)].symbol() == "›";
    on_item && drawn
}

fn run(scenario: Scenario, steps: Vec<Step>) -> Result<(), String> {
    let mut world = World {
        review: Arc::new(scenario.review),
        session: scenario.sessions[0].clone(),
        waiting: Vec::new(),
        previews: Vec::new(),
    };
    let mut view = ReviewView::default();
    let mut size = (80, 24);
    let mut writes = Writes::default();
    let load = view.open_target(None).ok_or("no load")?;
    let loaded = answer(&mut world, &load, true);
    view.take(&loaded);
    view.take(&Event::ReviewSessionRestored(ReviewSessionEvent {
        session: world.session.clone(),
    }));
    for step in steps {
        match step {
            Step::Key(key) => match view.key(key, writes) {
                Outcome::Send(action) => {
                    if let Some(why) = refused(&world, &action) {
                        return Err(format!("{action:?} {why}"));
                    }
                    world.waiting.push(*action);
                }
                Outcome::Close => {
                    view.hide();
                    if view.open_target(None).is_some() {
                        return Err("/review reloaded the open review".into());
                    }
                }
                Outcome::Nothing | Outcome::Pass => {}
            },
            Step::Resize(width, height) => size = (width, height),
            Step::Answer(ok) if !world.waiting.is_empty() => {
                let action = world.waiting.remove(0);
                let event = answer(&mut world, &action, ok);
                view.take(&event);
            }
            Step::Answer(_) => {}
            Step::Saved(at) => {
                world.session = scenario.sessions[at].clone();
                view.take(&Event::ReviewSessionSaved(ReviewSessionSaved {
                    request_id: None,
                    session: world.session.clone(),
                }));
            }
            Step::ReadAgain => {
                world.review = Arc::new(scenario.again.clone());
                view.take(&Event::GuidedReviewUpdated(GuidedReviewUpdated {
                    review: world.review.clone(),
                }));
            }
            Step::Writes(now) => writes = now,
        }
        if !cursor_shown(&mut view, size, writes) {
            return Err(format!("the cursor is not on a drawn item at {size:?}"));
        }
    }
    Ok(())
}

#[test]
fn random_keys_over_random_reviews_keep_the_cursor_shown_and_send_only_what_the_review_accepts() {
    fn property(scenario: Scenario, steps: Vec<Step>) -> quickcheck::TestResult {
        match run(scenario, steps) {
            Ok(()) => quickcheck::TestResult::passed(),
            Err(why) => quickcheck::TestResult::error(why),
        }
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(property as fn(Scenario, Vec<Step>) -> quickcheck::TestResult);
}
