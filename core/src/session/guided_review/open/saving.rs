//! Saving the open review's changes: a change queued by an edit, a request for an agent
//! review or luxe itself is applied to the last state on disk and written (the queue is
//! `save_queue.rs`'s machine); only once written is it kept and answered.

use super::super::save_queue::{Change, Kept, SaveOutcome};
use super::super::turns::ReviewTask;
use super::{Owner, ReviewState};
use crate::effects::{EffectId, Output};
use crate::protocol::actions::{EditReview, ReviewRequest};
use crate::protocol::codec::Rejection;
use crate::protocol::events::{Event, RequestFailed, ReviewSessionSaved};
use crate::session::outbox::Outbox;

/// What the session does once a change is answered (its frame is out).
#[derive(Debug, PartialEq)]
pub(in crate::session) enum Answered {
    /// Nothing more.
    Said,
    /// The change starts this agent turn.
    Turn(ReviewTask),
    /// One of luxe's own changes could not be saved: report this; the session goes on.
    Failed(String),
}

impl ReviewState {
    /// `edit_review`: queued when it names the open review ([`ReviewState::save_step`] saves
    /// it in its turn), else refused under its `request_id`.
    pub(in crate::session) fn edit(&mut self, outbox: &mut Outbox, edit: EditReview) -> bool {
        if let Err(reason) = self.check_open(&edit.review_id) {
            outbox.emit(Event::ReviewSessionSaveFailed(RequestFailed {
                request_id: edit.request_id,
                reason,
            }));
            return false;
        }
        let request_id = edit.request_id.clone();
        self.push(Change::Edit {
            request_id,
            edit: edit.edit,
        });
        true
    }

    /// `request_agent_review`: queued when it names the open review, else refused.
    pub(in crate::session) fn request_agent(
        &mut self,
        request: ReviewRequest,
    ) -> Result<(), Rejection> {
        self.check_open(&request.review_id)
            .map_err(|reason| Rejection {
                kind: Some("request_agent_review".into()),
                reason,
                request_id: Some(request.request_id.clone()),
            })?;
        self.push(Change::AgentReviewRequested {
            request_id: request.request_id,
        });
        Ok(())
    }

    /// Queues `change` behind the others; [`ReviewState::save_step`] saves it in its turn.
    pub(in crate::session) fn push(&mut self, change: Change) {
        self.saves.push(change);
    }

    /// The next queued change applied at `at` (ms since the epoch): written (`None`: wait
    /// for the write), or answered at once (no file to write, or refused). `None` too when
    /// nothing is queued or no review is open (the requests among the queued hear so).
    pub(in crate::session) fn save_step(
        &mut self,
        outbox: &mut Outbox,
        at: u64,
    ) -> Option<Answered> {
        let Some(open) = self.open.as_ref() else {
            self.drop_queued_changes(outbox);
            return None;
        };
        let outcome = self.saves.next(&open.stored, &open.review, at)?;
        match (outcome, open.path.clone()) {
            (Ok(kept), Some(path)) => {
                let bytes = kept.next.to_bytes();
                let id = outbox.issue(Owner::Review, |id| Output::WriteFile { id, path, bytes });
                self.saves.writing(id, kept);
                None
            }
            (outcome, _) => Some(self.save_done(outbox, outcome)),
        }
    }

    /// A review file was written: the change it saved is answered, if it was the write in
    /// flight (then save the next with [`ReviewState::save_step`]).
    pub(in crate::session) fn written(
        &mut self,
        outbox: &mut Outbox,
        id: EffectId,
        result: Result<(), String>,
    ) -> Option<Answered> {
        let outcome = self.saves.written(id, result)?;
        Some(self.save_done(outbox, outcome))
    }

    /// A change is kept (on disk, or in memory for a review without a file) or refused.
    fn save_done(&mut self, outbox: &mut Outbox, outcome: SaveOutcome) -> Answered {
        match outcome {
            Ok(kept) => self.saved(outbox, kept),
            Err(refused) => change_failed(outbox, refused.change, refused.reason),
        }
    }

    /// A change is kept: keep it, say so, and start the agent's task.
    fn saved(&mut self, outbox: &mut Outbox, kept: Kept) -> Answered {
        let Some(open) = self.open.as_mut() else {
            return Answered::Said;
        };
        open.stored = kept.next;
        let session = open.stored.session.clone();
        let task = kept.work.map(|work| ReviewTask {
            review_id: open.review.id.clone(),
            work,
        });
        outbox.emit(Event::ReviewSessionSaved(ReviewSessionSaved {
            request_id: request_of(kept.change),
            session,
        }));
        task.map_or(Answered::Said, Answered::Turn)
    }

    /// Answers the requests among the queued changes of a review that is no longer open.
    pub(super) fn drop_queued_changes(&mut self, outbox: &mut Outbox) {
        for change in self.saves.take_queued() {
            if let Some(request_id) = request_of(change) {
                outbox.emit(Event::ReviewSessionSaveFailed(RequestFailed {
                    request_id,
                    reason: "another review was opened before this change was saved".into(),
                }));
            }
        }
    }
}

/// The request a change answers: a client's edit or request for a review; luxe's own have
/// none.
fn request_of(change: Change) -> Option<String> {
    match change {
        Change::Edit { request_id, .. } | Change::AgentReviewRequested { request_id } => {
            Some(request_id)
        }
        Change::AgentFinding { .. }
        | Change::Entry { .. }
        | Change::Note { .. }
        | Change::Follow => None,
    }
}

/// A change could not be saved: an edit's request hears why; luxe's own changes are
/// reported as an error (the session goes on).
fn change_failed(outbox: &mut Outbox, change: Change, reason: String) -> Answered {
    match request_of(change) {
        Some(request_id) => {
            outbox.emit(Event::ReviewSessionSaveFailed(RequestFailed {
                request_id,
                reason,
            }));
            Answered::Said
        }
        None => Answered::Failed(reason),
    }
}
