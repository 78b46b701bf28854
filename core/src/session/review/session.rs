//! The review's glue in the session: where the machine's answers go (a review turn, a
//! thread closed, an error), and the names the other rooms call it by.

use std::sync::Arc;
use std::time::Instant;

use super::super::Session;
use super::super::review_saves::Change;
use super::super::review_turns::system_note;
use super::saving::Answered;
use super::{Loaded, Next};
use crate::effects::{EffectId, Input};
use crate::protocol::actions::{EditReview, LoadGuidedReview, ReviewRequest};
use crate::protocol::codec::Rejection;
use crate::protocol::findings::{ReviewSession, ThreadEntry};
use crate::protocol::review::{Review, ReviewTarget};
use crate::review::source::DiffSource;

impl Session {
    /// `load_guided_review`: a pull request's through gh, any other diff through git.
    pub(in crate::session) fn load_review(&mut self, now: Instant, load: LoadGuidedReview) {
        if let ReviewTarget::PullRequest { .. } = load.target {
            return self.load_pull_request_review(now, load.request_id, load.target);
        }
        (self.review).load(
            &mut self.port,
            &self.facts.cwd,
            load.request_id,
            load.target,
        );
    }

    /// A diff read ended.
    pub(in crate::session) fn diff_read(
        &mut self,
        now: Instant,
        id: EffectId,
        result: Result<Box<DiffSource>, String>,
    ) {
        let next = self.review.diff_read(&mut self.port, id, result);
        self.review_next(now, next);
    }

    /// Takes a review file read or write.
    pub(in crate::session) fn review_effect(&mut self, now: Instant, input: &Input<'_>) {
        match input {
            Input::FileRead { id, result } => {
                let next = self.review.file_read(&mut self.port, *id, result);
                self.review_next(now, next);
            }
            Input::FileWritten { id, result } => {
                let written = self.review.written(&mut self.port, *id, result.clone());
                if let Some(answered) = written {
                    self.answered(now, answered);
                    self.save_next(now);
                }
            }
            _ => {}
        }
    }

    /// The diff is read: read the review's session file (or start an empty one).
    pub(in crate::session) fn read_session(
        &mut self,
        now: Instant,
        request_id: String,
        target: ReviewTarget,
        source: Loaded,
    ) {
        let next = (self.review).read_session(&mut self.port, request_id, target, source);
        self.review_next(now, next);
    }

    fn review_next(&mut self, now: Instant, next: Next) {
        match next {
            Next::Done => {}
            Next::Opened { moved, stale } => {
                if moved {
                    self.queue_change(now, Change::Follow);
                }
                for finding_id in stale {
                    let entry = system_note(
                        "The agent's turn on this comment ended when luxe stopped.",
                        self.wall_ms(now),
                    );
                    self.close_thread(now, finding_id, entry);
                }
            }
            Next::Failed(reason) => self.report_error(reason),
        }
    }

    /// Adds `entry` to finding `finding_id`, which no turn works on any more.
    pub(in crate::session) fn close_thread(
        &mut self,
        now: Instant,
        finding_id: String,
        entry: ThreadEntry,
    ) {
        let pending = false;
        self.queue_change(
            now,
            Change::Entry {
                finding_id,
                entry,
                pending,
            },
        );
    }

    /// A turn that changed files ended: read the open working-tree review again.
    pub(in crate::session) fn refresh_review(&mut self) {
        self.review.refresh(&mut self.port, &self.facts.cwd);
    }

    /// `edit_review`: always answered under its `request_id`.
    pub(in crate::session) fn edit_review(&mut self, now: Instant, edit: EditReview) {
        if self.review.edit(&mut self.port, edit) {
            self.save_next(now);
        }
    }

    /// `request_agent_review`: recorded at once, then the agent reviews.
    pub(in crate::session) fn request_agent_review(
        &mut self,
        now: Instant,
        request: ReviewRequest,
    ) -> Result<(), Rejection> {
        self.review.request_agent(request)?;
        self.save_next(now);
        Ok(())
    }

    /// The open review's chapters, `(title, summary)`, for a pull request's description.
    pub(in crate::session) fn review_chapters(&self) -> Option<Vec<(String, String)>> {
        self.review.chapters()
    }

    /// The open review's session as saved.
    pub(in crate::session) fn review_session(&self) -> Option<&ReviewSession> {
        self.review.session()
    }

    /// Where review sessions (and review bodies for gh) are written.
    pub(in crate::session) fn review_dir(&self) -> Option<String> {
        self.review.dir().map(str::to_owned)
    }

    /// The open review's repository root.
    pub(in crate::session) fn review_root(&self) -> Option<String> {
        self.review.root().map(str::to_owned)
    }

    /// `Ok` when `review_id` is the open review, else why not.
    pub(in crate::session) fn check_open(&self, review_id: &str) -> Result<&Arc<Review>, String> {
        self.review.check_open(review_id)
    }

    /// Queues `change` and saves it when it is its turn.
    pub(in crate::session) fn queue_change(&mut self, now: Instant, change: Change) {
        self.review.push(change);
        self.save_next(now);
    }

    /// Applies and writes the next queued changes, until one is being written, acting on
    /// each answer before the next change is applied.
    fn save_next(&mut self, now: Instant) {
        let at = self.wall_ms(now);
        while let Some(answered) = self.review.save_step(&mut self.port, at) {
            self.answered(now, answered);
        }
    }

    fn answered(&mut self, now: Instant, answered: Answered) {
        match answered {
            Answered::Said => {}
            Answered::Turn(task) => self.queue_review_turn(now, task),
            Answered::Failed(reason) => self.report_error(reason),
        }
    }
}
