//! What opens over the review for the person to write or confirm: a comment, a reply, a fix's
//! instruction or an edit (with the severity picker); a deletion to confirm; the chapters'
//! commit messages; the pull request review's preview with its verdict and body. Each key
//! either edits it, or sends what it holds and closes it.

use std::collections::BTreeMap;

use luxe_core::protocol::actions::{Action, CommitReviewChapters, EditReview, ReviewEdit};
use luxe_core::protocol::findings::{Anchor, Severity};
use luxe_core::protocol::github::{PostPullRequestReview, PullRequestReviewPreview, Verdict};

use super::anchors::in_review;
use super::{Asked, Outcome, ReviewView};
use crate::composer::Composer;
use crate::keys::{Key, KeyCode};
use crate::sheet::Writes;

/// The verdicts a pull request review can give, with their words, in the order Tab walks.
pub(crate) const VERDICTS: [(Verdict, &str); 3] = [
    (Verdict::Approve, "approve"),
    (Verdict::RequestChanges, "request changes"),
    (Verdict::Comment, "comment"),
];

/// What is open over the review.
#[derive(Debug, Clone)]
pub(crate) enum Overlay {
    /// Text being written for a finding.
    Write(Writing),
    /// Deleting this finding, once `y` confirms.
    Delete(String),
    /// The commit messages, one per chapter.
    Commit(Commits),
    /// The pull request review to post.
    Post(Post),
}

/// What the text being written is for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Purpose {
    /// A new finding at `anchor` (`place` in words).
    Comment {
        /// Where the finding goes: its lines, hunk or file, as the protocol anchors it.
        anchor: Anchor,
        /// Where, for a person.
        place: String,
    },
    /// A reply on this finding.
    Reply(String),
    /// A fix of this finding, with an optional instruction.
    Fix(String),
    /// This finding's first text and severity, changed.
    Edit(String),
}

/// Text being written for a finding.
#[derive(Debug, Clone)]
pub(crate) struct Writing {
    /// What the text will become: a new finding, a reply, a fix request, or a finding's edit.
    pub purpose: Purpose,
    /// The text as being typed, with its cursor.
    pub text: Composer,
    /// The severity picked (a comment and an edit have one).
    pub severity: Option<Severity>,
}

/// The chapters' commit messages, shown for editing before they are committed.
#[derive(Debug, Clone)]
pub(crate) struct Commits {
    /// As a stack of branches (`S`) rather than on the current branch (`C`).
    pub stack: bool,
    /// Each chapter's id, title and message.
    pub messages: Vec<(String, String, Composer)>,
    /// The message being edited.
    pub at: usize,
}

/// A pull request review previewed, to post.
#[derive(Debug, Clone)]
pub(crate) struct Post {
    /// The preview's (the post confirms it).
    pub request_id: String,
    /// What will be posted.
    pub preview: PullRequestReviewPreview,
    /// The verdict picked; at first the preview's `suggested_verdict`.
    pub verdict: Verdict,
    /// The review's own text.
    pub body: Composer,
    /// Sent, waiting for its answer.
    pub posting: bool,
}

impl Overlay {
    /// The preview `preview` to post, its suggested verdict picked.
    pub(crate) fn post(preview: PullRequestReviewPreview) -> Self {
        Self::Post(Post {
            request_id: preview.request_id.clone(),
            verdict: preview.suggested_verdict,
            preview,
            body: Composer::default(),
            posting: false,
        })
    }

    /// The text being written, if any.
    pub(crate) fn composer(&mut self) -> Option<&mut Composer> {
        match self {
            Self::Write(writing) => Some(&mut writing.text),
            Self::Commit(commits) => commits.messages.get_mut(commits.at).map(|m| &mut m.2),
            Self::Post(post) => Some(&mut post.body),
            Self::Delete(_) => None,
        }
    }
}

impl Writing {
    /// Text for `purpose`, starting as `text`.
    pub(crate) fn new(purpose: Purpose, severity: Option<Severity>, text: String) -> Self {
        let mut composer = Composer::default();
        composer.set(text);
        Self {
            purpose,
            text: composer,
            severity,
        }
    }

    /// What is being written, for its title.
    pub(crate) fn title(&self) -> String {
        match &self.purpose {
            Purpose::Comment { place, .. } => format!("Comment on {place}"),
            Purpose::Reply(id) => format!("Reply on {id}"),
            Purpose::Fix(id) => format!("Ask the agent to fix {id} (what to do, or nothing)"),
            Purpose::Edit(id) => format!("Edit {id}"),
        }
    }

    /// The keys it takes, in words.
    pub(crate) fn keys(&self) -> &'static str {
        match self.purpose {
            Purpose::Comment { .. } => {
                "Tab: severity · Enter saves a draft · Ctrl+S saves and sends · Esc cancels"
            }
            Purpose::Reply(_) => "Enter saves · Ctrl+S saves and sends · Esc cancels",
            Purpose::Fix(_) => "Enter asks for the fix · Esc cancels",
            Purpose::Edit(_) => "Tab: severity · Enter saves · Esc cancels",
        }
    }
}

/// Applies an editing key to `text`. Shift+Enter, Alt+Enter and Ctrl+J write a new line, as in
/// the composer; a Ctrl key that edits nothing is the interface's (Ctrl+C, Ctrl+Z, …).
fn edit_text(text: &mut Composer, key: Key) -> Outcome {
    let ctrl = key.mods.ctrl;
    match key.code {
        KeyCode::Enter if key.mods.shift || key.mods.alt => text.insert('\n'),
        KeyCode::Char('j') if ctrl => text.insert('\n'),
        KeyCode::Char('u') if ctrl => text.clear(),
        KeyCode::Char(c) if !ctrl => text.insert(c),
        KeyCode::Backspace => text.backspace(),
        KeyCode::Delete => text.delete(),
        KeyCode::Left => text.left(),
        KeyCode::Right => text.right(),
        KeyCode::Home => text.home(),
        KeyCode::End => text.end(),
        KeyCode::Up => text.up(),
        KeyCode::Down => text.down(),
        _ if ctrl => return Outcome::Pass,
        _ => {}
    }
    Outcome::Nothing
}

/// The item after (or before) `current` in `all`, round.
fn cycle<T: PartialEq + Copy>(all: &[T], current: T, forward: bool) -> T {
    let at = all.iter().position(|x| *x == current).unwrap_or(0);
    let next = if forward {
        (at + 1) % all.len()
    } else {
        (at + all.len() - 1) % all.len()
    };
    all[next]
}

/// Whether `key` is a plain Enter (not one that writes a new line).
fn is_enter(key: Key) -> bool {
    key.code == KeyCode::Enter && !key.mods.shift && !key.mods.alt && !key.mods.ctrl
}

impl ReviewView {
    /// A key while `overlay` is open; `writes` as `ready` said.
    pub(super) fn overlay_key(&mut self, overlay: Overlay, key: Key, writes: Writes) -> Outcome {
        if key.code == KeyCode::Esc {
            return Outcome::Nothing;
        }
        match overlay {
            Overlay::Write(writing) => self.write_key(writing, key),
            Overlay::Delete(comment_id) if key.code == KeyCode::Char('y') => {
                match self.gone(&Purpose::Edit(comment_id.clone())) {
                    Some(gone) => {
                        self.refuse(gone);
                        Outcome::Nothing
                    }
                    None => self.edit(ReviewEdit::Delete { comment_id }, "deleted", None),
                }
            }
            Overlay::Delete(comment_id) if key.mods.ctrl => {
                self.overlay = Some(Overlay::Delete(comment_id));
                Outcome::Pass
            }
            Overlay::Delete(_) => {
                self.say("kept");
                Outcome::Nothing
            }
            Overlay::Commit(commits) => self.commit_key(commits, key),
            Overlay::Post(post) => self.post_key(post, key, writes),
        }
    }

    fn write_key(&mut self, mut writing: Writing, key: Key) -> Outcome {
        let send = key.mods.ctrl && key.code == KeyCode::Char('s');
        if is_enter(key) || send {
            return self.submit(writing, send);
        }
        let outcome = match (key.code, writing.severity) {
            (KeyCode::Tab | KeyCode::BackTab, Some(severity)) => {
                let all = Severity::NAMED.map(|(_, s)| s);
                writing.severity = Some(cycle(&all, severity, key.code == KeyCode::Tab));
                Outcome::Nothing
            }
            _ => edit_text(&mut writing.text, key),
        };
        self.overlay = Some(Overlay::Write(writing));
        outcome
    }

    /// Sends what `writing` holds (`send`: to the agent too); an empty text, or one for
    /// what is no longer in the review, stays open.
    fn submit(&mut self, mut writing: Writing, send: bool) -> Outcome {
        let restore = Overlay::Write(writing.clone());
        if let Some(gone) = self.gone(&writing.purpose) {
            self.overlay = Some(restore);
            self.refuse(gone);
            return Outcome::Nothing;
        }
        let body = writing.text.take();
        let blank = body.trim().is_empty();
        let (edit, done) = match (writing.purpose, writing.severity) {
            (Purpose::Comment { anchor, .. }, Some(severity)) if !blank => (
                ReviewEdit::Comment {
                    anchor,
                    body,
                    severity,
                    send,
                },
                if send {
                    "sent to the agent"
                } else {
                    "saved as a draft (s sends it)"
                },
            ),
            (Purpose::Reply(comment_id), _) if !blank => (
                ReviewEdit::Reply {
                    comment_id,
                    body,
                    send,
                },
                if send {
                    "reply sent to the agent"
                } else {
                    "reply saved (s sends it)"
                },
            ),
            (Purpose::Fix(comment_id), _) => (
                ReviewEdit::RequestFix {
                    comment_id,
                    body: (!blank).then_some(body),
                    send: true,
                },
                "fix asked of the agent",
            ),
            (Purpose::Edit(comment_id), severity) if !blank => (
                ReviewEdit::Update {
                    comment_id,
                    body: Some(body),
                    severity,
                },
                "changed",
            ),
            _ => {
                self.overlay = Some(restore);
                self.refuse("nothing written yet (Esc cancels)");
                return Outcome::Nothing;
            }
        };
        self.edit(edit, done, Some(Box::new(restore)))
    }

    /// Why what `purpose` is for is no longer in the review (it was read again, or the
    /// finding deleted, while the text was being written), if it is not.
    fn gone(&self, purpose: &Purpose) -> Option<String> {
        let open = self.open.as_ref()?;
        match purpose {
            Purpose::Comment { anchor, place } if !in_review(open, anchor) => Some(format!(
                "{place} is no longer in the diff (it was read again): Esc, and comment where it is now"
            )),
            Purpose::Reply(id) | Purpose::Fix(id) | Purpose::Edit(id)
                if !open.session.findings.iter().any(|f| f.id == *id) =>
            {
                Some(format!("{id} is no longer in the review"))
            }
            _ => None,
        }
    }

    fn commit_key(&mut self, mut commits: Commits, key: Key) -> Outcome {
        if is_enter(key) {
            return self.commit_messages(commits);
        }
        let outcome = match key.code {
            KeyCode::Tab | KeyCode::BackTab => {
                let all: Vec<usize> = (0..commits.messages.len()).collect();
                commits.at = cycle(&all, commits.at, key.code == KeyCode::Tab);
                Outcome::Nothing
            }
            _ => match commits.messages.get_mut(commits.at) {
                Some((_, _, text)) => edit_text(text, key),
                None => Outcome::Nothing,
            },
        };
        self.overlay = Some(Overlay::Commit(commits));
        outcome
    }

    /// `commit_review_chapters` with the messages as edited; an empty one stays open.
    fn commit_messages(&mut self, commits: Commits) -> Outcome {
        let Some(open) = self.open.as_ref() else {
            return Outcome::Nothing;
        };
        let review_id = open.review.id.clone();
        let now: Vec<&String> = open.review.chapters.iter().map(|c| &c.id).collect();
        if !now
            .iter()
            .copied()
            .eq(commits.messages.iter().map(|m| &m.0))
        {
            self.refuse("the review was read again and its chapters changed: C shows them anew");
            return Outcome::Nothing;
        }
        let empty =
            (commits.messages.iter()).position(|(_, _, text)| text.shown().trim().is_empty());
        if let Some(at) = empty {
            self.refuse(format!("chapter {}'s message is empty", at + 1));
            self.overlay = Some(Overlay::Commit(commits));
            return Outcome::Nothing;
        }
        let stack = commits.stack;
        let messages: BTreeMap<String, String> = (commits.messages.into_iter())
            .map(|(id, _, mut text)| (id, text.take()))
            .collect();
        let request_id = self.ask(Asked::Commit { stack });
        self.say(if stack {
            "committing the chapters as a stack of branches…"
        } else {
            "committing the chapters…"
        });
        Outcome::Send(Box::new(Action::CommitReviewChapters(
            CommitReviewChapters {
                request_id,
                review_id,
                chapter_ids: None,
                messages: Some(messages),
                stack: stack.then_some(true),
            },
        )))
    }

    fn post_key(&mut self, mut post: Post, key: Key, writes: Writes) -> Outcome {
        let outcome = match (key.code, writes.off()) {
            _ if is_enter(key) && post.posting => Outcome::Nothing,
            (_, Some(off)) if is_enter(key) => {
                self.refuse(off);
                Outcome::Nothing
            }
            _ if is_enter(key) => {
                post.posting = true;
                self.asked.insert(post.request_id.clone(), Asked::Post);
                let body = post.body.shown().trim().to_owned();
                self.say("posting the review…");
                Outcome::Send(Box::new(Action::PostPullRequestReview(
                    PostPullRequestReview {
                        request_id: post.request_id.clone(),
                        verdict: post.verdict,
                        body: (!body.is_empty()).then_some(body),
                    },
                )))
            }
            (KeyCode::Tab | KeyCode::BackTab, _) => {
                let all = VERDICTS.map(|(v, _)| v);
                post.verdict = cycle(&all, post.verdict, key.code == KeyCode::Tab);
                Outcome::Nothing
            }
            _ => edit_text(&mut post.body, key),
        };
        self.overlay = Some(Overlay::Post(post));
        outcome
    }

    /// `edit_review` of `edit` on the open review; `done` says what it did once saved, and
    /// `restore` comes back if it is refused.
    pub(super) fn edit(
        &mut self,
        edit: ReviewEdit,
        done: &'static str,
        restore: Option<Box<Overlay>>,
    ) -> Outcome {
        let Some(review_id) = self.open.as_ref().map(|open| open.review.id.clone()) else {
            return Outcome::Nothing;
        };
        let request_id = self.ask(Asked::Edit { done, restore });
        Outcome::Send(Box::new(Action::EditReview(EditReview {
            request_id,
            review_id,
            edit,
        })))
    }
}
