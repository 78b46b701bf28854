//! The session's routing for guided review: where the review machine's answers go (a review
//! turn, a thread closed, an error), a review turn's tools and ending, and chapter commits.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::effects::DiffSource;
use crate::effects::{EffectId, Input};
use crate::protocol::actions::{CommitReviewChapters, EditReview, LoadGuidedReview, ReviewRequest};
use crate::protocol::codec::Rejection;
use crate::protocol::findings::{ReviewSession, ThreadEntry};
use crate::protocol::guided_review::{Review, ReviewTarget};
use crate::protocol::values::TurnSource;
use crate::session::Session;
use crate::session::guided_review::commit_chapters;
use crate::session::guided_review::open::saving::Answered;
use crate::session::guided_review::open::{self, Loaded};
use crate::session::guided_review::prompts::{agent_review_prompt, finding_prompt};
use crate::session::guided_review::save_queue::Change;
use crate::session::guided_review::turns::{ReviewTask, system_note};
use crate::session::guided_review::work::ReviewWork;
use crate::session::turn::Queued;

impl Session {
    /// `load_guided_review`: a pull request's through gh, any other diff through git.
    pub(in crate::session) fn load_review(&mut self, now: Instant, load: LoadGuidedReview) {
        if let ReviewTarget::PullRequest { .. } = load.target {
            return self.load_pull_request_review(now, load.request_id, load.target);
        }
        (self.review).load(
            &mut self.outbox,
            &self.facts.cwd,
            load.request_id,
            load.target,
        );
    }

    /// io read the diff a review asked for (`id`), or says why it could not: the review
    /// opens, is read again, or answers with the failure.
    pub(in crate::session) fn diff_read(
        &mut self,
        now: Instant,
        id: EffectId,
        result: Result<Box<DiffSource>, String>,
    ) {
        let then = self.review.diff_read(&mut self.outbox, id, result);
        self.follow_review(now, then);
    }

    /// Takes a review file read or write.
    pub(in crate::session) fn review_effect(&mut self, now: Instant, input: &Input<'_>) {
        match input {
            Input::FileRead { id, result } => {
                let then = self.review.file_read(&mut self.outbox, *id, result);
                self.follow_review(now, then);
            }
            Input::FileWritten { id, result } => {
                let written = self.review.written(&mut self.outbox, *id, result.clone());
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
        let then = (self.review).read_session(&mut self.outbox, request_id, target, source);
        self.follow_review(now, then);
    }

    fn follow_review(&mut self, now: Instant, then: open::Then) {
        match then {
            open::Then::Nothing => {}
            open::Then::Opened { moved, stale } => {
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
            open::Then::Failed(reason) => self.report_error(reason),
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
        self.review.refresh(&mut self.outbox, &self.facts.cwd);
    }

    /// `edit_review`: always answered under its `request_id`.
    pub(in crate::session) fn edit_review(&mut self, now: Instant, edit: EditReview) {
        if self.review.edit(&mut self.outbox, edit) {
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
        while let Some(answered) = self.review.save_step(&mut self.outbox, at) {
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

impl Session {
    /// Queues the review turn for `task`, with its prompt built from the review as it is now.
    pub(in crate::session) fn queue_review_turn(&mut self, now: Instant, task: ReviewTask) {
        let Some(open) = self.review.view() else {
            return;
        };
        let text = match &task.work {
            ReviewWork::Answer(id) | ReviewWork::Fix(id) => {
                let fix = matches!(task.work, ReviewWork::Fix(_));
                match open.stored.session.findings.iter().find(|f| &f.id == id) {
                    Some(finding) => finding_prompt(open.review, finding, fix),
                    None => return,
                }
            }
            ReviewWork::Review => agent_review_prompt(open.review),
        };
        let queued = Queued {
            text,
            images: Vec::new(),
            review: Some(task),
        };
        self.submit(now, queued, TurnSource::Review);
    }

    /// The `report` and `add_finding` tools: what they changed, for the model, or why not.
    pub(in crate::session) fn review_tool(
        &mut self,
        now: Instant,
        name: &str,
        input: &Value,
    ) -> Result<String, String> {
        let task = self
            .turns
            .running()
            .and_then(|t| t.review().cloned())
            .ok_or_else(|| format!("{name} is only available in a review turn."))?;
        let at_ms = self.wall_ms(now);
        let open = self.review.view().filter(|o| o.review.id == task.review_id);
        let done = task.run_tool(name, input, open, &self.facts.cwd, at_ms);
        if done.reported
            && let Some(turn) = self.turns.running_mut()
        {
            turn.note_report();
        }
        if let Some(change) = done.change {
            self.queue_change(now, change);
        }
        done.answer
    }

    /// A review turn ended: its answer or a note lands on the thread.
    pub(in crate::session) fn review_turn_ended(
        &mut self,
        now: Instant,
        task: &ReviewTask,
        answer: &str,
        reported: bool,
        why: &str,
    ) {
        if self.check_open(&task.review_id).is_err() {
            return;
        }
        if let Some((finding_id, entry)) = task.ended(answer, reported, why, self.wall_ms(now)) {
            self.close_thread(now, finding_id, entry);
        }
    }
}

impl Session {
    /// `commit_review_chapters` of the open review, in its repository.
    pub(in crate::session) fn commit_chapters(
        &mut self,
        now: Instant,
        request: CommitReviewChapters,
    ) -> Result<(), String> {
        let review = Arc::clone(self.check_open(&request.review_id)?);
        let read_at = (self.review.read_at()).ok_or("no review is open")?;
        let shell = shell!(self);
        let then =
            (self.commit).start(&mut self.outbox, shell, now, &request, (&review, read_at))?;
        self.follow_commit(then);
        Ok(())
    }

    /// Takes a result of the running step.
    pub(in crate::session) fn commit_effect(&mut self, now: Instant, input: &Input<'_>) {
        let then = (self.commit).handle(&mut self.outbox, shell!(self), now, input);
        self.follow_commit(then);
    }

    /// Hands what a commit made to the review or the stacks.
    fn follow_commit(&mut self, then: commit_chapters::Then) {
        match then {
            commit_chapters::Then::Stack(chapters) => self.stacks.committed(chapters),
            commit_chapters::Then::HeadMoved => self.refresh_review(),
            commit_chapters::Then::Nothing => {}
        }
    }
}
