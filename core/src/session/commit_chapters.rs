//! `commit_review_chapters` in the session: refused at once when it cannot start, else the pure
//! [`CommitFlow`] (`crate::review::commit_flow`) runs on the step runner, one at a time, and its
//! answer becomes `review_chapters_committed` — then the review is read again, or the stack it
//! made is remembered for `preview_stack` — or `review_chapters_commit_failed`.

use std::sync::Arc;
use std::time::Instant;

use super::Session;
use super::owners::Owner;
use super::step_runner::{Advance, StepRunner};
use crate::effects::Input;
use crate::protocol::actions::CommitReviewChapters;
use crate::protocol::events::{Event, RequestFailed, ReviewChaptersCommitted};
use crate::protocol::review::ReviewTarget;
use crate::review::commit_flow::{CommitFlow, Committed};

/// The commit of chapters under way, if any. Its commands have no deadline: they work on the
/// local index and objects only, and have never had one.
pub(super) type Commits = StepRunner<CommitFlow>;

/// The session's runner for commits of chapters.
pub(super) fn commits() -> Commits {
    StepRunner::unbounded()
}

impl Session {
    /// `commit_review_chapters`: refused at once when it cannot start.
    pub(super) fn commit_chapters(
        &mut self,
        now: Instant,
        request: CommitReviewChapters,
    ) -> Result<(), String> {
        let review = Arc::clone(self.check_open(&request.review_id)?);
        if review.target != ReviewTarget::WorkingTree {
            return Err("only a working_tree review can be committed".into());
        }
        if self.commit.flows().next().is_some() {
            return Err("a commit of chapters is already running".into());
        }
        let root = self.review_root().unwrap_or_else(|| self.cwd.clone());
        let flow = CommitFlow::new(&request, &review, root)?;
        let advance = self.commit.start(flow);
        self.advance_commit(now, advance);
        Ok(())
    }

    /// Takes a result of the running step.
    pub(super) fn commit_effect(&mut self, now: Instant, input: &Input<'_>) {
        if let Some(advance) = self.commit.handle(input) {
            self.advance_commit(now, advance);
        }
    }

    /// Runs the commit's next step, or answers.
    fn advance_commit(&mut self, now: Instant, advance: Advance<CommitFlow>) {
        if let Some((flow, answer)) = self.drive(now, Owner::Commit, |s| &mut s.commit, advance) {
            self.committed(flow.request_id().to_owned(), answer);
        }
    }

    /// Answers the commit of chapters for `request_id`.
    fn committed(&mut self, request_id: String, answer: Result<Committed, String>) {
        match answer {
            Err(reason) => self.emit(Event::ReviewChaptersCommitFailed(RequestFailed {
                request_id,
                reason,
            })),
            Ok(Committed { commits, stack }) => {
                self.emit(Event::ReviewChaptersCommitted(ReviewChaptersCommitted {
                    request_id,
                    commits,
                }));
                // A stack leaves HEAD and the work tree alone: the review still stands.
                match stack {
                    Some(chapters) => self.stacks.committed(chapters),
                    None => self.refresh_review(),
                }
            }
        }
    }
}
