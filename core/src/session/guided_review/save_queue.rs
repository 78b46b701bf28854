//! The open review's save queue, as a machine of its own. Saves are strictly one at a time: a
//! change is applied to the last state on disk, written atomically, and only then kept and
//! acknowledged. So 50 edits in flight are 50 answers in order, each checked against everything
//! saved before it, and a failed write changes nothing. The session issues the writes and says
//! how they ended; this decides what is saved and in which order.

use std::collections::VecDeque;

use crate::effects::EffectId;
use crate::guided_review::findings::{AgentTask, Stored};
use crate::protocol::actions::ReviewEdit;
use crate::protocol::findings::{Anchor, Severity, ThreadEntry};
use crate::protocol::guided_review::Review;

use super::work::ReviewWork;

/// A change waiting for its turn to be saved.
#[derive(Debug)]
pub(in crate::session) enum Change {
    /// A client's `edit_review`, applied when its turn comes.
    Edit {
        request_id: String,
        edit: ReviewEdit,
    },
    /// `request_agent_review`: recorded, then the agent reviews.
    AgentReviewRequested { request_id: String },
    /// An entry on a finding's thread, and whether a turn still works on it.
    Entry {
        finding_id: String,
        entry: ThreadEntry,
        pending: bool,
    },
    /// A finding the agent added.
    AgentFinding {
        anchor: Anchor,
        severity: Severity,
        body: String,
    },
    /// A note about the whole review.
    Note { body: String },
    /// The re-read review moved anchors.
    Follow,
}

/// A change applied: the state to keep, the change, and the agent's work it starts once kept.
#[derive(Debug)]
pub(in crate::session) struct Kept {
    /// The review session's state with the change.
    pub next: Stored,
    /// The queued change as applied, whose request (if any) is answered once it is kept.
    pub change: Change,
    /// What the agent does next because of it.
    pub work: Option<ReviewWork>,
}

/// A change refused (it did not apply, or its write failed): nothing changed.
#[derive(Debug)]
pub(in crate::session) struct Refused {
    /// The queued change, whose request (if any) is answered with `reason`.
    pub change: Change,
    /// Why, for its request or the error event.
    pub reason: String,
}

/// How a change's save ended.
pub(in crate::session) type SaveOutcome = Result<Kept, Refused>;

/// The changes waiting, and the one being written.
#[derive(Debug, Default)]
pub(in crate::session) struct ReviewSaves {
    queue: VecDeque<Change>,
    writing: Option<(EffectId, Kept)>,
}

impl ReviewSaves {
    /// Queues `change` behind the others.
    pub(in crate::session) fn push(&mut self, change: Change) {
        self.queue.push_back(change);
    }

    /// The changes still queued, taken: their review is no longer open.
    pub(in crate::session) fn take_queued(&mut self) -> VecDeque<Change> {
        std::mem::take(&mut self.queue)
    }

    /// The next change applied to `stored` (the state on disk) at `at` (ms since the epoch),
    /// unless a write is in flight or nothing is queued.
    pub(in crate::session) fn next(
        &mut self,
        stored: &Stored,
        review: &Review,
        at: u64,
    ) -> Option<SaveOutcome> {
        if self.writing.is_some() {
            return None;
        }
        let change = self.queue.pop_front()?;
        Some(match apply_change(stored, &change, review, at) {
            Ok((next, work)) => Ok(Kept { next, change, work }),
            Err(reason) => Err(Refused { change, reason }),
        })
    }

    /// `kept` is being written as `id`; nothing else is applied until it is written.
    pub(in crate::session) fn writing(&mut self, id: EffectId, kept: Kept) {
        self.writing = Some((id, kept));
    }

    /// The write `id` ended: how its change's save ended, if `id` is the write in flight.
    pub(in crate::session) fn written(
        &mut self,
        id: EffectId,
        result: Result<(), String>,
    ) -> Option<SaveOutcome> {
        if !matches!(&self.writing, Some((w, _)) if *w == id) {
            return None;
        }
        let (_, kept) = self.writing.take()?;
        Some(match result {
            Ok(()) => Ok(kept),
            Err(err) => Err(Refused {
                change: kept.change,
                reason: format!("the review session could not be saved: {err}"),
            }),
        })
    }
}

/// Applies `change` to `stored`: the new state and the agent's task, or why not.
fn apply_change(
    stored: &Stored,
    change: &Change,
    review: &Review,
    at: u64,
) -> Result<(Stored, Option<ReviewWork>), String> {
    let mut next = stored.clone();
    let work = match change {
        Change::Edit { edit, .. } => {
            let (applied, task) = stored.apply(edit.clone(), review, at)?;
            next = applied;
            task.map(|(id, task)| match task {
                AgentTask::Answer => ReviewWork::Answer(id),
                AgentTask::Fix => ReviewWork::Fix(id),
            })
        }
        Change::AgentReviewRequested { .. } => {
            next.add_note("The agent was asked to review the change.".into(), at);
            Some(ReviewWork::Review)
        }
        Change::Entry {
            finding_id,
            entry,
            pending,
        } => {
            next.add_entry(finding_id, entry.clone(), *pending)?;
            None
        }
        Change::AgentFinding {
            anchor,
            severity,
            body,
        } => {
            next.add_agent_finding(anchor.clone(), *severity, body.clone(), review, at)?;
            None
        }
        Change::Note { body } => {
            next.add_note(body.clone(), at);
            None
        }
        Change::Follow => {
            next.follow(review);
            next.session.revision += 1;
            None
        }
    };
    Ok((next, work))
}

#[cfg(test)]
mod tests;
