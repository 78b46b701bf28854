//! `commit_review_chapters`: refused at once when it cannot start, else the pure
//! [`CommitFlow`] (`crate::guided_review::commit_flow`) runs on the step runner, one at a time, and its
//! answer becomes `review_chapters_committed` — then the review is read again, or the stack it
//! made is remembered for `preview_stack` (both a [`Then`], for the session to route) —
//! or `review_chapters_commit_failed`.

use std::ops::Add;
use std::time::{Duration, Instant};

use crate::effects::Input;
use crate::guided_review::commit_flow::{CommitFlow, Committed, ReadAt};
use crate::protocol::actions::CommitReviewChapters;
use crate::protocol::events::{Event, RequestFailed, ReviewChaptersCommitted};
use crate::protocol::guided_review::{Review, ReviewTarget};
use crate::session::outbox::Outbox;
use crate::session::owners::Owner;
use crate::session::step_runner::{Advance, Shell, StepRunner};
use crate::stack::preview::CommittedBranch;

#[cfg(test)]
mod tests;

/// The commit of chapters under way, if any, with time in `At` (`Instant` in a session; its
/// commands have no deadline, but the step runner is told the time all the same).
#[derive(Debug)]
pub(in crate::session) struct Commits<At = Instant> {
    /// Its commands have no deadline: they work on the local index and objects only, and
    /// have never had one.
    flows: StepRunner<CommitFlow, At>,
}

/// The session's runner for commits of chapters.
pub(in crate::session) fn commits<At>() -> Commits<At> {
    Commits {
        flows: StepRunner::unbounded(),
    }
}

/// What a commit of chapters leaves to other features.
#[derive(Debug, PartialEq)]
#[must_use]
pub(in crate::session) enum Then {
    /// Nothing: the commit runs on, or it failed (and said so).
    Nothing,
    /// HEAD moved: the open review is read again.
    HeadMoved,
    /// A stack of branches was made, for `preview_stack` to offer.
    Stack(Vec<CommittedBranch>),
}

impl<At: Copy + Ord + Add<Duration, Output = At>> Commits<At> {
    /// `commit_review_chapters` of `review` (the open review, read `at`): refused at once when
    /// it cannot start.
    pub(in crate::session) fn start(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        request: &CommitReviewChapters,
        (review, at): (&Review, ReadAt),
    ) -> Result<Then, String> {
        if review.target != ReviewTarget::WorkingTree {
            return Err("only a working_tree review can be committed".into());
        }
        if self.flows.flows().next().is_some() {
            return Err("a commit of chapters is already running".into());
        }
        let flow = CommitFlow::new(request, review, at)?;
        let advance = self.flows.start(flow);
        Ok(self.advance(outbox, shell, now, advance))
    }

    /// Takes a result of the running step.
    pub(in crate::session) fn handle(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        input: &Input<'_>,
    ) -> Then {
        let Some(advance) = self.flows.handle(input) else {
            return Then::Nothing;
        };
        self.advance(outbox, shell, now, advance)
    }

    /// Runs the commit's next step, or answers.
    fn advance(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        advance: Advance<CommitFlow>,
    ) -> Then {
        let Some((flow, answer)) = self.flows.drive(outbox, shell, now, Owner::Commit, advance)
        else {
            return Then::Nothing;
        };
        let request_id = flow.request_id().to_owned();
        match answer {
            Err(reason) => {
                outbox.emit(Event::ReviewChaptersCommitFailed(RequestFailed {
                    request_id,
                    reason,
                }));
                // The review no longer describes the change on top of HEAD: read it again.
                if flow.head_moved() {
                    Then::HeadMoved
                } else {
                    Then::Nothing
                }
            }
            Ok(Committed { commits, stack }) => {
                outbox.emit(Event::ReviewChaptersCommitted(ReviewChaptersCommitted {
                    request_id,
                    commits,
                }));
                // A stack leaves HEAD and the work tree alone: the review still stands.
                stack.map_or(Then::HeadMoved, Then::Stack)
            }
        }
    }
}
