//! The guided review view (`/review`): a review read in chapters, full screen over the
//! conversation. The chapters and their files on the left; on the right the chapter's page —
//! its summary, its hunks with their lines, and the findings with their threads under what they
//! anchor. Keys move a cursor and become the protocol's review actions (`edit_review`,
//! `request_agent_review`, `commit_review_chapters`, `preview_pull_request_review`,
//! `post_pull_request_review`); the session's review events change what is shown, and every
//! refusal of a request the view made is one line under it.
//!
//! Like the rest of the interface it is a client of the protocol: it holds the review and the
//! session as the events gave them and never reads the session's fields.

mod anchors;
mod keys;
mod open;
mod outline;
mod overlay;
mod overlay_rows;
mod page;
pub(crate) mod render;
mod spans;
mod target;
mod thread_rows;

#[cfg(test)]
mod figures;
#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod keys_property;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use luxe_core::protocol::actions::{Action, LoadGuidedReview};
use luxe_core::protocol::events::Event;
use luxe_core::protocol::guided_review::ReviewTarget;

use open::Open;
use overlay::Overlay;
pub(crate) use target::parse_target;

/// What a key in the view comes to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// Nothing to send (what is shown may have changed).
    Nothing,
    /// Send this action to the session.
    Send(Box<Action>),
    /// Back to the conversation (the review stays open behind it).
    Close,
    /// Not the view's key: the interface's own (Ctrl+C, Ctrl+Z, …).
    Pass,
}

/// One line under the view: what a request came to, or why a key or the session refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Notice {
    /// What to show.
    pub text: String,
    /// Whether it says why something was not done.
    pub refusal: bool,
}

/// A request of the view's waiting for its answer.
#[derive(Debug, Clone)]
enum Asked {
    Load,
    /// An edit: `done` says what it did once saved; `restore` brings back what was being
    /// written when it is refused, so no text is lost.
    Edit {
        done: &'static str,
        restore: Option<Box<Overlay>>,
    },
    AgentReview,
    Commit {
        stack: bool,
    },
    Preview,
    Post,
}

impl Asked {
    /// How a refusal of this request begins.
    fn refused(&self) -> &'static str {
        match self {
            Self::Load => "cannot load the review",
            Self::Edit { .. } => "not saved",
            Self::AgentReview => "no agent review",
            Self::Commit { .. } => "not committed",
            Self::Preview => "no pull request review",
            Self::Post => "not posted (Enter tries again)",
        }
    }
}

/// The review view: whether it is on screen, the open review, and the requests it waits on.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReviewView {
    shown: bool,
    open: Option<Open>,
    /// What is being loaded, in words.
    loading: Option<String>,
    asked: BTreeMap<String, Asked>,
    next_request: u64,
    notice: Option<Notice>,
    overlay: Option<Overlay>,
}

impl ReviewView {
    /// Whether the view is on screen.
    pub(crate) fn is_shown(&self) -> bool {
        self.shown
    }

    /// `/review`: shows the view and loads `target`; without one, shows the open review, or
    /// loads the working tree when none is open (nor loading).
    pub(crate) fn open_target(&mut self, target: Option<ReviewTarget>) -> Option<Action> {
        self.shown = true;
        self.notice = None;
        if target.is_none() && (self.open.is_some() || self.loading.is_some()) {
            return None;
        }
        let target = target.unwrap_or(ReviewTarget::WorkingTree);
        self.loading = Some(target::describe(&target));
        let request_id = self.ask(Asked::Load);
        Some(Action::LoadGuidedReview(LoadGuidedReview {
            request_id,
            target,
        }))
    }

    /// Back to the conversation.
    pub(crate) fn hide(&mut self) {
        self.shown = false;
        self.notice = None;
    }

    /// A new request id for `asked`.
    fn ask(&mut self, asked: Asked) -> String {
        self.next_request += 1;
        let request_id = format!("review_{}", self.next_request);
        self.asked.insert(request_id.clone(), asked);
        request_id
    }

    fn say(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            refusal: false,
        });
    }

    fn refuse(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            refusal: true,
        });
    }

    /// Pasted text, for what is being written.
    pub(crate) fn paste(&mut self, text: &str) {
        if let Some(composer) = self.overlay.as_mut().and_then(Overlay::composer) {
            composer.paste(text);
        }
    }

    /// The wheel: three items up or down.
    pub(crate) fn wheel(&mut self, up: bool) {
        if let (Some(open), None) = (self.open.as_mut(), &self.overlay) {
            open.move_by(if up { -3 } else { 3 });
        }
    }

    /// Takes one event of the session; whether it answered a request of the view's (then it
    /// is shown here, not in the conversation).
    pub(crate) fn take(&mut self, event: &Event) -> bool {
        match event {
            Event::GuidedReviewLoaded(loaded) => {
                let ours = self.asked.remove(&loaded.request_id).is_some();
                self.loading = None;
                self.overlay = None;
                self.notice = None;
                self.open = Some(Open::new(loaded.review.clone()));
                ours
            }
            Event::GuidedReviewUpdated(updated) => {
                if let Some(open) = self.open.as_mut() {
                    open.replace_review(updated.review.clone());
                }
                false
            }
            Event::ReviewSessionRestored(restored) => {
                if let Some(open) = self.open.as_mut() {
                    open.replace_session(restored.session.clone());
                }
                false
            }
            Event::ReviewSessionSaved(saved) => {
                if let Some(open) = self.open.as_mut() {
                    open.replace_session(saved.session.clone());
                }
                let asked = (saved.request_id.as_ref()).and_then(|id| self.asked.remove(id));
                match asked {
                    Some(Asked::Edit { done, .. }) => self.say(done),
                    Some(Asked::AgentReview) => {
                        self.say("the agent is reviewing: its findings appear as they are added");
                    }
                    Some(_) | None => return false,
                }
                true
            }
            Event::GuidedReviewFailed(failed)
            | Event::ReviewSessionSaveFailed(failed)
            | Event::ReviewChaptersCommitFailed(failed)
            | Event::PullRequestReviewPostFailed(failed) => {
                self.refused(&failed.request_id, &failed.reason)
            }
            Event::ActionRejected(rejected) => match &rejected.request_id {
                Some(request_id) => self.refused(request_id, &rejected.reason),
                None => false,
            },
            Event::ReviewChaptersCommitted(committed) => {
                let Some(Asked::Commit { stack }) = self.asked.remove(&committed.request_id) else {
                    return false;
                };
                let shas: Vec<String> = (committed.commits.iter())
                    .map(|c| match &c.branch {
                        Some(branch) if stack => format!("{branch} {}", short(&c.sha)),
                        _ => short(&c.sha).to_owned(),
                    })
                    .collect();
                let plural = if shas.len() == 1 { "" } else { "s" };
                let how = if stack { " as a stack of branches" } else { "" };
                self.say(format!(
                    "committed {} chapter{plural}{how}: {}",
                    shas.len(),
                    shas.join(", ")
                ));
                true
            }
            Event::PullRequestReviewPreview(preview) => {
                if self.asked.remove(&preview.request_id).is_none() {
                    return false;
                }
                self.notice = None;
                self.overlay = Some(Overlay::post((**preview).clone()));
                true
            }
            Event::PullRequestReviewPosted(posted) => {
                if self.asked.remove(&posted.request_id).is_none() {
                    return false;
                }
                self.overlay = None;
                match &posted.url {
                    Some(url) => self.say(format!("posted the review: {url}")),
                    None => self.say("posted the review"),
                }
                true
            }
            _ => false,
        }
    }

    /// A refusal of request `request_id`, if it is the view's: shown in one line, and what
    /// was being written comes back.
    fn refused(&mut self, request_id: &str, reason: &str) -> bool {
        let Some(asked) = self.asked.remove(request_id) else {
            return false;
        };
        self.refuse(format!("{}: {reason}", asked.refused()));
        match asked {
            Asked::Load => self.loading = None,
            Asked::Edit {
                restore: Some(overlay),
                ..
            } => self.overlay = Some(*overlay),
            Asked::Post => {
                if let Some(Overlay::Post(post)) = self.overlay.as_mut() {
                    post.posting = false;
                }
            }
            _ => {}
        }
        true
    }
}

/// A commit's hash cut to seven characters, as git shows it.
fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}
