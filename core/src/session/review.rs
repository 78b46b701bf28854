//! The open guided review in the session: loading it (io reads the diff, core builds the review
//! and reads its session file), refreshing and editing it, and the save queue that makes every
//! change durable before it is acknowledged. Agent turns on it are `review_turns.rs`'s.
//!
//! Saves are strictly one at a time: a change is applied to the last state on disk, written
//! atomically, and only then kept and acknowledged. So 50 edits in flight are 50 answers in
//! order, each checked against everything saved before it, and a failed write changes nothing.

use super::owners::Owner;
use std::sync::Arc;
use std::time::Instant;

use crate::effects::{EffectId, Input, Output};
use crate::protocol::actions::{EditReview, LoadGuidedReview, ReviewRequest};
use crate::protocol::codec::Rejection;
use crate::protocol::events::{
    Event, GuidedReviewLoaded, GuidedReviewUpdated, RequestFailed, ReviewSessionEvent,
    ReviewSessionSaved,
};
use crate::protocol::findings::ThreadEntry;
use crate::protocol::review::{Review, ReviewTarget};
use crate::review::build::build;
use crate::review::findings::{Edit, Stored};
use crate::review::ids::review_id;
use crate::review::patch::build_from_patch;
use crate::review::source::DiffSource;

use super::Session;
use super::review_saves::{Change, Kept, ReviewSaves, SaveOutcome};
use super::review_turns::ReviewTask;

/// A review session file is never this large; a bigger one is not read.
const SESSION_FILE_MAX: u64 = 64 * 1024 * 1024;

/// The review that is open.
#[derive(Debug)]
struct OpenReview {
    /// Shared with the events that carry it: a large review is tens of MB, so never copied.
    review: Arc<Review>,
    /// The repository's work tree root.
    root: String,
    /// The session as it is on disk.
    stored: Stored,
    /// Its file; `None` when nothing is kept (no `LUXE_HOME`).
    path: Option<String>,
}

/// A diff read for a load, waiting for the review's session file.
#[derive(Debug)]
struct Opening {
    /// The read of the session file.
    effect: EffectId,
    request_id: String,
    target: ReviewTarget,
    /// Kept rather than built now: the open review can be freed before the new one is built
    /// only once the session file has been read, when the load can no longer fail.
    source: Loaded,
    /// The session file.
    path: String,
}

/// What a load read: a diff from git, or a pull request's patch from gh.
#[derive(Debug)]
pub(super) enum Loaded {
    /// Both sides of every changed file.
    Diff(Box<DiffSource>),
    /// A pull request's unified diff, and the checkout it was read from.
    Patch { root: String, patch: String },
}

impl Loaded {
    fn root(&self) -> &str {
        match self {
            Self::Diff(source) => &source.root,
            Self::Patch { root, .. } => root,
        }
    }

    fn build(&self, target: &ReviewTarget) -> Review {
        match self {
            Self::Diff(source) => build(target, source),
            Self::Patch { root, patch } => build_from_patch(target, root, patch),
        }
    }
}

/// Why a diff is being read.
#[derive(Debug)]
enum Reading {
    /// `load_guided_review`.
    Load { request_id: String },
    /// A turn changed files: read the open review again.
    Refresh { review_id: String },
}

/// The review part of the session.
#[derive(Debug, Default)]
pub(super) struct ReviewState {
    /// `$LUXE_HOME/reviews`; `None` keeps nothing.
    dir: Option<String>,
    /// Diff reads in flight.
    reading: Vec<(EffectId, Reading, ReviewTarget)>,
    /// A load waiting for its session file.
    opening: Option<Opening>,
    open: Option<OpenReview>,
    /// The open review's changes, saved one at a time.
    saves: ReviewSaves,
}

impl ReviewState {
    /// Review sessions live in `dir`.
    pub(super) fn new(dir: Option<String>) -> Self {
        Self {
            dir,
            ..Self::default()
        }
    }

    /// The open review as review turns read it.
    pub(super) fn view(&self) -> Option<OpenView<'_>> {
        self.open.as_ref().map(|open| OpenView {
            review: &open.review,
            root: &open.root,
            stored: &open.stored,
        })
    }
}

/// What review turns read of the open review (they change it only through the save queue).
pub(super) struct OpenView<'a> {
    /// The review.
    pub review: &'a Review,
    /// The repository's work tree root.
    pub root: &'a str,
    /// Its session as it is on disk.
    pub stored: &'a Stored,
}

impl Session {
    /// `load_guided_review`.
    pub(super) fn load_review(&mut self, now: Instant, load: LoadGuidedReview) {
        if let ReviewTarget::PullRequest { .. } = load.target {
            return self.load_pull_request_review(now, load.request_id, load.target);
        }
        self.read_diff(
            Reading::Load {
                request_id: load.request_id,
            },
            load.target,
        );
    }

    fn read_diff(&mut self, reading: Reading, target: ReviewTarget) {
        let id = self.effect_id(Owner::Review);
        self.review.reading.push((id, reading, target.clone()));
        self.port.push(Output::ReadDiff {
            id,
            cwd: self.cwd.clone(),
            target,
        });
    }

    /// A diff read ended.
    pub(super) fn diff_read(
        &mut self,
        now: Instant,
        id: EffectId,
        result: Result<Box<DiffSource>, String>,
    ) {
        let Some(at) = self.review.reading.iter().position(|(r, ..)| *r == id) else {
            return;
        };
        let (_, reading, target) = self.review.reading.remove(at);
        match (reading, result) {
            (Reading::Load { request_id }, Err(reason)) => {
                self.emit(Event::GuidedReviewFailed(RequestFailed {
                    request_id,
                    reason,
                }));
            }
            (Reading::Load { request_id }, Ok(source)) => {
                self.read_session(now, request_id, target, Loaded::Diff(source));
            }
            (Reading::Refresh { review_id }, Ok(source)) => {
                self.refreshed(now, &review_id, &target, source);
            }
            (Reading::Refresh { .. }, Err(reason)) => {
                self.report_error(format!("the review could not be read again: {reason}"));
            }
        }
    }

    /// Takes a review file read or write.
    pub(super) fn review_effect(&mut self, now: Instant, input: &Input<'_>) {
        match input {
            Input::FileRead { id, result } => {
                if !matches!(&self.review.opening, Some(o) if o.effect == *id) {
                    return;
                }
                let Some(opening) = self.review.opening.take() else {
                    return;
                };
                let review_id = review_id(opening.source.root(), &opening.target);
                let stored = match result {
                    Ok(content) => Stored::parse(&content.bytes, &review_id).map_err(|err| {
                        format!(
                            "the review session file {} cannot be read ({err}); move it away to start this review afresh",
                            opening.path
                        )
                    }),
                    Err(err) if is_not_found(err) => Ok(Stored::new(&review_id)),
                    Err(err) => Err(format!("the review session file cannot be read: {err}")),
                };
                let Opening {
                    request_id,
                    target,
                    source,
                    path,
                    ..
                } = opening;
                match stored {
                    Ok(stored) => {
                        self.open_review(now, request_id, &target, source, stored, Some(path))
                    }
                    Err(reason) => self.emit(Event::GuidedReviewFailed(RequestFailed {
                        request_id,
                        reason,
                    })),
                }
            }
            Input::FileWritten { id, result } => {
                if let Some(outcome) = self.review.saves.written(*id, result.clone()) {
                    self.save_done(now, outcome);
                    self.save_next(now);
                }
            }
            _ => {}
        }
    }

    /// The diff is read: read the review's session file (or start an empty one).
    pub(super) fn read_session(
        &mut self,
        now: Instant,
        request_id: String,
        target: ReviewTarget,
        source: Loaded,
    ) {
        let Some(dir) = &self.review.dir else {
            let stored = Stored::new(&review_id(source.root(), &target));
            return self.open_review(now, request_id, &target, source, stored, None);
        };
        let stem = file_stem(&review_id(source.root(), &target));
        let path = format!("{}/{stem}.json", dir.trim_end_matches('/'));
        let effect = self.effect_id(Owner::Review);
        self.port.push(Output::ReadFile {
            id: effect,
            path: path.clone(),
            max_bytes: SESSION_FILE_MAX,
        });
        let replaced = self.review.opening.replace(Opening {
            effect,
            request_id,
            target,
            source,
            path,
        });
        // Every load is answered: one still waiting for its session file gives way to this one.
        if let Some(earlier) = replaced {
            self.emit(Event::GuidedReviewFailed(RequestFailed {
                request_id: earlier.request_id,
                reason: "superseded by a later load_guided_review".into(),
            }));
        }
    }

    /// The diff and the session are read: the review is built and is the open review now.
    fn open_review(
        &mut self,
        now: Instant,
        request_id: String,
        target: &ReviewTarget,
        source: Loaded,
        mut stored: Stored,
        path: Option<String>,
    ) {
        // Nothing can fail from here on, so the review this one replaces is freed before the
        // new one is built: a large review is tens of MB, and the two together set the peak.
        let replaced = self.review.open.take().map(|o| o.review.id.clone());
        let review = Arc::new(source.build(target));
        let root = source.root().to_owned();
        drop(source);
        // Changes queued for a review that is no longer open have nowhere to go.
        if replaced.as_deref() != Some(review.id.as_str()) {
            self.drop_queued_changes();
        }
        let moved = stored.follow(&review);
        // A turn that worked on a finding did not outlive the process that ran it.
        let stale: Vec<String> = stored
            .session
            .findings
            .iter()
            .filter(|f| f.pending)
            .map(|f| f.id.clone())
            .collect();
        self.emit(Event::GuidedReviewLoaded(GuidedReviewLoaded {
            request_id,
            review: Arc::clone(&review),
        }));
        self.emit(Event::ReviewSessionRestored(ReviewSessionEvent {
            session: stored.session.clone(),
        }));
        self.review.open = Some(OpenReview {
            review,
            root,
            stored,
            path,
        });
        if moved {
            self.queue_change(now, Change::Follow);
        }
        for finding_id in stale {
            let entry = self.system_entry(
                now,
                "The agent's turn on this comment ended when luxe stopped.",
            );
            self.close_thread(now, finding_id, entry);
        }
    }

    /// Adds `entry` to finding `finding_id`, which no turn works on any more.
    pub(super) fn close_thread(&mut self, now: Instant, finding_id: String, entry: ThreadEntry) {
        self.queue_change(
            now,
            Change::Entry {
                finding_id,
                entry,
                pending: false,
            },
        );
    }

    /// A re-read of the open review after a turn changed files.
    fn refreshed(
        &mut self,
        now: Instant,
        review_id: &str,
        target: &ReviewTarget,
        source: Box<DiffSource>,
    ) {
        let Some(open) = self.review.open.take_if(|o| o.review.id == review_id) else {
            return;
        };
        // The review it replaces is freed before it is built, as for a load.
        let OpenReview {
            review: replaced,
            root,
            stored,
            path,
        } = open;
        drop(replaced);
        let review = Arc::new(build(target, &source));
        drop(source);
        self.review.open = Some(OpenReview {
            review: Arc::clone(&review),
            root,
            stored,
            path,
        });
        self.emit(Event::GuidedReviewUpdated(GuidedReviewUpdated { review }));
        self.queue_change(now, Change::Follow);
    }

    /// A turn that changed files ended: read the open working-tree review again.
    pub(super) fn refresh_review(&mut self) {
        let Some(open) = &self.review.open else {
            return;
        };
        if open.review.target != ReviewTarget::WorkingTree {
            return;
        }
        let review_id = open.review.id.clone();
        self.read_diff(Reading::Refresh { review_id }, ReviewTarget::WorkingTree);
    }

    /// `edit_review`: always answered under its `request_id`.
    pub(super) fn edit_review(&mut self, now: Instant, edit: EditReview) {
        if let Err(reason) = self.check_open(&edit.review_id) {
            return self.emit(Event::ReviewSessionSaveFailed(RequestFailed {
                request_id: edit.request_id,
                reason,
            }));
        }
        let request_id = edit.request_id.clone();
        self.queue_change(
            now,
            Change::Edit {
                request_id,
                edit: Edit::from_request(edit),
            },
        );
    }

    /// `request_agent_review`: recorded at once, then the agent reviews.
    pub(super) fn request_agent_review(
        &mut self,
        now: Instant,
        request: ReviewRequest,
    ) -> Result<(), Rejection> {
        self.check_open(&request.review_id)
            .map_err(|reason| Rejection {
                kind: Some("request_agent_review".into()),
                reason,
                request_id: Some(request.request_id.clone()),
            })?;
        self.queue_change(
            now,
            Change::AgentReviewRequested {
                request_id: request.request_id,
            },
        );
        Ok(())
    }

    /// The open review's chapters, `(title, summary)`, for a pull request's description.
    pub(super) fn review_chapters(&self) -> Option<Vec<(String, String)>> {
        let open = self.review.open.as_ref()?;
        Some(
            open.review
                .chapters
                .iter()
                .map(|c| (c.title.clone(), c.summary.clone()))
                .collect(),
        )
    }

    /// The open review's session as saved.
    pub(super) fn review_session(&self) -> Option<&crate::protocol::findings::ReviewSession> {
        self.review.open.as_ref().map(|o| &o.stored.session)
    }

    /// Where review sessions (and review bodies for gh) are written.
    pub(super) fn review_dir(&self) -> Option<String> {
        self.review.dir.clone()
    }

    /// The open review's repository root.
    pub(super) fn review_root(&self) -> Option<String> {
        self.review.open.as_ref().map(|o| o.root.clone())
    }

    /// `Ok` when `review_id` is the open review, else why not.
    pub(super) fn check_open(&self, review_id: &str) -> Result<&Arc<Review>, String> {
        match &self.review.open {
            Some(open) if open.review.id == review_id => Ok(&open.review),
            Some(open) => Err(format!(
                "review {review_id} is not open (the open review is {})",
                open.review.id
            )),
            None => Err("no review is open: load_guided_review first".into()),
        }
    }

    /// Queues `change` and saves it when it is its turn.
    pub(super) fn queue_change(&mut self, now: Instant, change: Change) {
        self.review.saves.push(change);
        self.save_next(now);
    }

    /// Applies and writes the next queued changes, until one is being written.
    fn save_next(&mut self, now: Instant) {
        let at = self.wall_ms(now);
        loop {
            let Some(open) = self.review.open.as_ref() else {
                return self.drop_queued_changes();
            };
            let Some(outcome) = self.review.saves.next(&open.stored, &open.review, at) else {
                return;
            };
            match (outcome, open.path.clone()) {
                (Ok(kept), Some(path)) => {
                    let id = self.effect_id(Owner::Review);
                    let bytes = kept.next.to_bytes();
                    self.port.push(Output::WriteFile { id, path, bytes });
                    return self.review.saves.writing(id, kept);
                }
                (outcome, _) => self.save_done(now, outcome),
            }
        }
    }

    /// A change is kept (on disk, or in memory for a review without a file) or refused.
    fn save_done(&mut self, now: Instant, outcome: SaveOutcome) {
        match outcome {
            Ok(kept) => self.saved(now, kept),
            Err(refused) => self.change_failed(refused.change, refused.reason),
        }
    }

    /// A change is kept: keep it, say so, and start the agent's task.
    fn saved(&mut self, now: Instant, kept: Kept) {
        let Some(open) = self.review.open.as_mut() else {
            return;
        };
        open.stored = kept.next;
        let session = open.stored.session.clone();
        let task = kept.work.map(|work| ReviewTask {
            review_id: open.review.id.clone(),
            work,
        });
        let request_id = match kept.change {
            Change::Edit { request_id, .. } | Change::AgentReviewRequested { request_id } => {
                Some(request_id)
            }
            _ => None,
        };
        self.emit(Event::ReviewSessionSaved(ReviewSessionSaved {
            request_id,
            session,
        }));
        if let Some(task) = task {
            self.queue_review_turn(now, task);
        }
    }

    /// A change could not be saved: an edit's request hears why; luxe's own changes are
    /// reported as an error (the session goes on).
    fn change_failed(&mut self, change: Change, reason: String) {
        match change {
            Change::Edit { request_id, .. } | Change::AgentReviewRequested { request_id } => {
                self.emit(Event::ReviewSessionSaveFailed(RequestFailed {
                    request_id,
                    reason,
                }));
            }
            Change::AgentFinding { .. }
            | Change::Entry { .. }
            | Change::Note { .. }
            | Change::Follow => {
                self.report_error(reason);
            }
        }
    }

    /// Answers the requests among the queued changes of a review that is no longer open.
    fn drop_queued_changes(&mut self) {
        for change in self.review.saves.take_queued() {
            if let Change::Edit { request_id, .. } | Change::AgentReviewRequested { request_id } =
                change
            {
                self.emit(Event::ReviewSessionSaveFailed(RequestFailed {
                    request_id,
                    reason: "another review was opened before this change was saved".into(),
                }));
            }
        }
    }
}

/// Whether a read failed because the file is not there.
fn is_not_found(error: &str) -> bool {
    error.contains("No such file") || error.contains("not found")
}

/// The file name of a review's session, from its id (`review:abc` → `review-abc`).
fn file_stem(review_id: &str) -> String {
    review_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
