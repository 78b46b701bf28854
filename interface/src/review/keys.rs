//! The review view's keys (the contract: docs/interface.md lists them): moving through the
//! chapters, files, hunks and lines; commenting; acting on the finding under the cursor; and
//! the review's own requests (an agent review, commits, a pull request review).

use luxe_core::protocol::actions::{Action, ReviewEdit, ReviewRequest};
use luxe_core::protocol::findings::{FindingStatus, Severity};
use luxe_core::protocol::github::PreviewPullRequestReview;

use super::anchors::{anchor_of, describe, range_of};
use super::open::{Focus, Open};
use super::overlay::{Commits, Overlay, Purpose, Writing};
use super::page::Item;
use super::{Asked, Outcome, ReviewView};
use crate::composer::Composer;
use crate::keys::{Key, KeyCode};
use crate::sheet::Writes;

impl ReviewView {
    /// A key while the view is on screen; `writes` as `ready` said.
    pub(crate) fn key(&mut self, key: Key, writes: Writes) -> Outcome {
        if let Some(overlay) = self.overlay.take() {
            self.notice = None;
            return self.overlay_key(overlay, key, writes);
        }
        if key.mods.ctrl {
            return Outcome::Pass;
        }
        self.notice = None;
        let Some(open) = self.open.as_mut() else {
            return match key.code {
                KeyCode::Char('q') | KeyCode::Esc => Outcome::Close,
                _ => Outcome::Nothing,
            };
        };
        match key.code {
            KeyCode::Esc if open.mark.is_some() => open.mark = None,
            KeyCode::Char('q') | KeyCode::Esc => return Outcome::Close,
            KeyCode::Char(c @ ('c' | 'v' | 's' | 'f' | 'r' | 'x' | 'e' | 'd')) => {
                return self.on_cursor(c);
            }
            KeyCode::Char('A') => return self.agent_review(),
            KeyCode::Char(c @ ('C' | 'S')) => return self.commit(c == 'S', writes),
            KeyCode::Char('P') => return self.preview(),
            _ => navigate(open, key.code),
        }
        Outcome::Nothing
    }

    /// `c` and `v` on what the cursor is on; the others on the finding it is on.
    fn on_cursor(&mut self, key: char) -> Outcome {
        let Some(open) = self.open.as_mut() else {
            return Outcome::Nothing;
        };
        if key == 'v' {
            match open.items.get(open.cursor) {
                _ if open.mark.is_some() => open.mark = None,
                Some(Item::Line { .. }) => open.mark = Some(open.cursor),
                _ => self.refuse("v marks lines: move the cursor onto a line of a hunk"),
            }
            return Outcome::Nothing;
        }
        if key == 'c' {
            return self.comment();
        }
        let found = open.finding().map(|finding| {
            let first = finding.thread.first().map(|entry| entry.body.clone());
            let resolved = finding.status == FindingStatus::Resolved;
            (finding.id.clone(), resolved, first, finding.severity)
        });
        let Some((comment_id, resolved, first, severity)) = found else {
            self.refuse(format!("{key} acts on a finding: move the cursor onto one"));
            return Outcome::Nothing;
        };
        let write = |purpose, severity, text: String| {
            Some(Overlay::Write(Writing::new(purpose, severity, text)))
        };
        match key {
            's' => return self.edit(ReviewEdit::Send { comment_id }, "sent to the agent", None),
            'x' if resolved => {
                return self.edit(ReviewEdit::Reopen { comment_id }, "reopened", None);
            }
            'x' => return self.edit(ReviewEdit::Resolve { comment_id }, "resolved", None),
            'e' => {
                let text = first.unwrap_or_default();
                self.overlay = write(Purpose::Edit(comment_id), Some(severity), text);
            }
            'f' => self.overlay = write(Purpose::Fix(comment_id), None, String::new()),
            'r' => self.overlay = write(Purpose::Reply(comment_id), None, String::new()),
            _ => self.overlay = Some(Overlay::Delete(comment_id)),
        }
        Outcome::Nothing
    }

    /// `c`: a comment on the marked lines, or on what the cursor is on.
    fn comment(&mut self) -> Outcome {
        let Some(open) = self.open.as_mut() else {
            return Outcome::Nothing;
        };
        let anchor = match open.mark {
            Some(_) => range_of(open),
            None => anchor_of(open, open.cursor),
        };
        let Some(anchor) = anchor else {
            self.refuse("c comments on a line, a hunk or a file: move the cursor onto one");
            return Outcome::Nothing;
        };
        open.mark = None;
        let place = describe(open, &anchor);
        let purpose = Purpose::Comment { anchor, place };
        let severity = Some(Severity::Question);
        self.overlay = Some(Overlay::Write(Writing::new(
            purpose,
            severity,
            String::new(),
        )));
        Outcome::Nothing
    }

    /// `A`: the agent reviews the diff.
    fn agent_review(&mut self) -> Outcome {
        let saying = "asking the agent to review…";
        self.about_review(Asked::AgentReview, saying, |request_id, review_id| {
            Action::RequestAgentReview(ReviewRequest {
                request_id,
                review_id,
            })
        })
    }

    /// A request about the open review, `made` of a new request id and the review's id;
    /// `saying` is shown until it is answered.
    fn about_review(
        &mut self,
        asked: Asked,
        saying: &str,
        made: impl FnOnce(String, String) -> Action,
    ) -> Outcome {
        let Some(review_id) = self.open.as_ref().map(|o| o.review.id.clone()) else {
            return Outcome::Nothing;
        };
        let request_id = self.ask(asked);
        self.say(saying);
        Outcome::Send(Box::new(made(request_id, review_id)))
    }

    /// `C` (or `S`, as a stack of branches): the chapters' messages, to edit before
    /// committing.
    fn commit(&mut self, stack: bool, writes: Writes) -> Outcome {
        let key = if stack { 'S' } else { 'C' };
        if writes.read_only {
            self.refuse(format!(
                "{key} is off: this session is read-only, and commits are writes"
            ));
            return Outcome::Nothing;
        }
        let Some(open) = self.open.as_ref() else {
            return Outcome::Nothing;
        };
        if open.review.chapters.is_empty() {
            self.refuse("nothing to commit: the review has no changes");
            return Outcome::Nothing;
        }
        let messages = (open.review.chapters.iter())
            .map(|chapter| {
                // What luxe commits when no message is given: the title, then the summary.
                let mut text = Composer::default();
                text.set(format!("{}\n\n{}", chapter.title, chapter.summary));
                (chapter.id.clone(), chapter.title.clone(), text)
            })
            .collect();
        self.overlay = Some(Overlay::Commit(Commits {
            stack,
            messages,
            at: 0,
        }));
        Outcome::Nothing
    }

    /// `P`: what a pull request review of the findings would post.
    fn preview(&mut self) -> Outcome {
        let saying = "asking for the pull request review's preview…";
        self.about_review(Asked::Preview, saying, |request_id, review_id| {
            Action::PreviewPullRequestReview(PreviewPullRequestReview {
                request_id,
                review_id,
            })
        })
    }
}

/// A key that moves: by line (`j`/`k`, arrows, a page), hunk (`n`/`p`), file (`]`/`[`),
/// chapter (`}`/`{`), to the top or the bottom (`g`/`G`), or between the panes (Tab).
fn navigate(open: &mut Open, code: KeyCode) {
    let outline = open.focus == Focus::Outline;
    let page = isize::try_from(open.items_shown.max(1)).unwrap_or(1);
    match code {
        KeyCode::Tab | KeyCode::BackTab if outline => open.focus = Focus::Page,
        KeyCode::Tab | KeyCode::BackTab => open.focus = Focus::Outline,
        KeyCode::Enter if outline => open.focus = Focus::Page,
        KeyCode::Char('j') | KeyCode::Down if outline => open.outline_by(1),
        KeyCode::Char('k') | KeyCode::Up if outline => open.outline_by(-1),
        KeyCode::PageDown if outline => open.outline_by(10),
        KeyCode::PageUp if outline => open.outline_by(-10),
        KeyCode::Char('g') | KeyCode::Home if outline => open.select(0),
        KeyCode::Char('G') | KeyCode::End if outline => {
            open.select(open.outline.len().saturating_sub(1));
        }
        KeyCode::Char('j') | KeyCode::Down => open.move_by(1),
        KeyCode::Char('k') | KeyCode::Up => open.move_by(-1),
        KeyCode::PageDown => open.move_by(page),
        KeyCode::PageUp => open.move_by(-page),
        KeyCode::Char('g') | KeyCode::Home => open.edge(false),
        KeyCode::Char('G') | KeyCode::End => open.edge(true),
        KeyCode::Char('n') => open.jump(true, |item| matches!(item, Item::Hunk(_))),
        KeyCode::Char('p') => open.jump(false, |item| matches!(item, Item::Hunk(_))),
        KeyCode::Char(']') => open.jump(true, |item| matches!(item, Item::File(_))),
        KeyCode::Char('[') => open.jump(false, |item| matches!(item, Item::File(_))),
        KeyCode::Char('}') => open.next_section(true),
        KeyCode::Char('{') => open.next_section(false),
        _ => {}
    }
}
