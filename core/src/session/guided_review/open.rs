//! The open guided review, as a machine: loading it (io reads the diff, core builds the review
//! and reads its session file), refreshing it after a turn changed files, and what the other
//! rooms read of it. Saving its changes is `open/saving.rs`'s; what the session does with
//! the machine's answers (a review turn, a thread closed, an error) is the session's routing's (`routes/guided_review.rs`).
//! Agent turns on it are `turns.rs`'s.
//!
//! Saves are strictly one at a time: a change is applied to the last state on disk, written
//! atomically, and only then kept and acknowledged. So 50 edits in flight are 50 answers in
//! order, each checked against everything saved before it, and a failed write changes nothing.

use std::sync::Arc;

use crate::effects::DiffSource;
use crate::effects::{EffectId, FileContent, Output};
use crate::guided_review::build::build;
use crate::guided_review::commit_flow::ReadAt;
use crate::guided_review::findings::Stored;
use crate::guided_review::ids::review_id;
use crate::guided_review::patch::build_from_patch;
use crate::protocol::events::{
    Event, GuidedReviewLoaded, GuidedReviewUpdated, RequestFailed, ReviewSessionEvent,
};
use crate::protocol::findings::ReviewSession;
use crate::protocol::guided_review::{Review, ReviewTarget};
use crate::session::outbox::Outbox;
use crate::session::owners::Owner;

use super::save_queue::ReviewSaves;
use super::turns::OpenView;

/// A review session file is never this large; a bigger one is not read.
const SESSION_FILE_MAX: u64 = 64 * 1024 * 1024;

/// The guided review this session has loaded: its diff, what it was read against, and its
/// findings as saved.
#[derive(Debug)]
struct OpenReview {
    /// Shared with the events that carry it: a large review is tens of MB, so never copied.
    review: Arc<Review>,
    /// The repository's work tree root.
    root: String,
    /// HEAD when the diff was read (for a working tree or the index: what it is compared
    /// with), which a commit of its chapters must still find.
    read_against: Option<String>,
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
pub(in crate::session) enum Loaded {
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

    /// The commit the diff's old side is, if it is one.
    fn base_commit(&self) -> Option<String> {
        match self {
            Self::Diff(source) => source.base_commit.clone(),
            Self::Patch { .. } => None,
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
pub(in crate::session) struct ReviewState {
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
    pub(in crate::session) fn new(dir: Option<String>) -> Self {
        Self {
            dir,
            ..Self::default()
        }
    }

    /// The open review as review turns read it.
    pub(in crate::session) fn view(&self) -> Option<OpenView<'_>> {
        self.open.as_ref().map(|open| OpenView {
            review: &open.review,
            root: &open.root,
            stored: &open.stored,
        })
    }
}

/// What the session does once the review machine has acted on a read.
#[derive(Debug, PartialEq)]
#[must_use]
pub(in crate::session) enum Then {
    /// Nothing more.
    Nothing,
    /// A review opened (or the open one was read again): queue `Change::Follow` when its
    /// anchors `moved`, then close the threads of the `stale` findings, whose turns did not
    /// outlive the process that ran them.
    Opened { moved: bool, stale: Vec<String> },
    /// Report this; the session goes on.
    Failed(String),
}

impl ReviewState {
    /// `load_guided_review` of a diff git reads in `cwd` (a pull request's is gh's, through
    /// the GitHub room, and comes back to [`ReviewState::read_session`]).
    pub(in crate::session) fn load(
        &mut self,
        outbox: &mut Outbox,
        cwd: &str,
        request_id: String,
        target: ReviewTarget,
    ) {
        self.read_diff(outbox, cwd, Reading::Load { request_id }, target);
    }

    /// A turn that changed files ended: read the open working-tree review again.
    pub(in crate::session) fn refresh(&mut self, outbox: &mut Outbox, cwd: &str) {
        let Some(open) = &self.open else {
            return;
        };
        if open.review.target != ReviewTarget::WorkingTree {
            return;
        }
        let review_id = open.review.id.clone();
        let reading = Reading::Refresh { review_id };
        self.read_diff(outbox, cwd, reading, ReviewTarget::WorkingTree);
    }

    fn read_diff(
        &mut self,
        outbox: &mut Outbox,
        cwd: &str,
        reading: Reading,
        target: ReviewTarget,
    ) {
        let id = outbox.effect_id(Owner::Review);
        self.reading.push((id, reading, target.clone()));
        outbox.push(Output::ReadDiff {
            id,
            cwd: cwd.to_owned(),
            target,
        });
    }

    /// A diff read ended: a load goes on to the review's session file, a refresh rebuilds the
    /// open review.
    pub(in crate::session) fn diff_read(
        &mut self,
        outbox: &mut Outbox,
        id: EffectId,
        result: Result<Box<DiffSource>, String>,
    ) -> Then {
        let Some(at) = self.reading.iter().position(|(r, ..)| *r == id) else {
            return Then::Nothing;
        };
        let (_, reading, target) = self.reading.remove(at);
        match (reading, result) {
            (Reading::Load { request_id }, Err(reason)) => {
                outbox.emit(Event::GuidedReviewFailed(RequestFailed {
                    request_id,
                    reason,
                }));
                Then::Nothing
            }
            (Reading::Load { request_id }, Ok(source)) => {
                self.read_session(outbox, request_id, target, Loaded::Diff(source))
            }
            (Reading::Refresh { review_id }, Ok(source)) => {
                self.refreshed(outbox, &review_id, &target, source)
            }
            (Reading::Refresh { .. }, Err(reason)) => {
                Then::Failed(format!("the review could not be read again: {reason}"))
            }
        }
    }

    /// The review's session file was read (or could not be): the review opens, or its load
    /// fails.
    pub(in crate::session) fn file_read(
        &mut self,
        outbox: &mut Outbox,
        id: EffectId,
        result: &Result<FileContent, String>,
    ) -> Then {
        let Some(opening) = self.opening.take_if(|o| o.effect == id) else {
            return Then::Nothing;
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
            Ok(stored) => self.open_review(outbox, request_id, &target, source, stored, Some(path)),
            Err(reason) => {
                outbox.emit(Event::GuidedReviewFailed(RequestFailed {
                    request_id,
                    reason,
                }));
                Then::Nothing
            }
        }
    }

    /// The diff is read: read the review's session file (or start an empty one).
    pub(in crate::session) fn read_session(
        &mut self,
        outbox: &mut Outbox,
        request_id: String,
        target: ReviewTarget,
        source: Loaded,
    ) -> Then {
        let Some(dir) = &self.dir else {
            let stored = Stored::new(&review_id(source.root(), &target));
            return self.open_review(outbox, request_id, &target, source, stored, None);
        };
        let stem = file_stem(&review_id(source.root(), &target));
        let path = format!("{}/{stem}.json", dir.trim_end_matches('/'));
        let effect = outbox.issue(Owner::Review, |id| Output::ReadFile {
            id,
            path: path.clone(),
            max_bytes: SESSION_FILE_MAX,
        });
        let replaced = self.opening.replace(Opening {
            effect,
            request_id,
            target,
            source,
            path,
        });
        // Every load is answered: one still waiting for its session file gives way to this one.
        if let Some(earlier) = replaced {
            outbox.emit(Event::GuidedReviewFailed(RequestFailed {
                request_id: earlier.request_id,
                reason: "superseded by a later load_guided_review".into(),
            }));
        }
        Then::Nothing
    }

    /// The diff and the session are read: the review is built and is the open review now.
    fn open_review(
        &mut self,
        outbox: &mut Outbox,
        request_id: String,
        target: &ReviewTarget,
        source: Loaded,
        mut stored: Stored,
        path: Option<String>,
    ) -> Then {
        // Nothing can fail from here on, so the review this one replaces is freed before the
        // new one is built: a large review is tens of MB, and the two together set the peak.
        let replaced = self.open.take().map(|o| o.review.id.clone());
        let review = Arc::new(source.build(target));
        let root = source.root().to_owned();
        let read_against = source.base_commit();
        drop(source);
        // Changes queued for a review that is no longer open have nowhere to go.
        if replaced.as_deref() != Some(review.id.as_str()) {
            self.drop_queued_changes(outbox);
        }
        let moved = stored.follow(&review);
        // A turn that worked on a finding did not outlive the process that ran it.
        let stale = (stored.session.findings.iter())
            .filter(|f| f.pending)
            .map(|f| f.id.clone())
            .collect();
        outbox.emit(Event::GuidedReviewLoaded(GuidedReviewLoaded {
            request_id,
            review: Arc::clone(&review),
        }));
        outbox.emit(Event::ReviewSessionRestored(ReviewSessionEvent {
            session: stored.session.clone(),
        }));
        self.open = Some(OpenReview {
            review,
            root,
            read_against,
            stored,
            path,
        });
        Then::Opened { moved, stale }
    }

    /// A re-read of the open review after a turn changed files.
    fn refreshed(
        &mut self,
        outbox: &mut Outbox,
        review_id: &str,
        target: &ReviewTarget,
        source: Box<DiffSource>,
    ) -> Then {
        let Some(open) = self.open.take_if(|o| o.review.id == review_id) else {
            return Then::Nothing;
        };
        // The review it replaces is freed before it is built, as for a load.
        let OpenReview {
            review: replaced,
            root,
            stored,
            path,
            ..
        } = open;
        drop(replaced);
        let review = Arc::new(build(target, &source));
        let read_against = source.base_commit.clone();
        drop(source);
        self.open = Some(OpenReview {
            review: Arc::clone(&review),
            root,
            read_against,
            stored,
            path,
        });
        outbox.emit(Event::GuidedReviewUpdated(GuidedReviewUpdated { review }));
        Then::Opened {
            moved: true,
            stale: Vec::new(),
        }
    }

    /// The open review's chapters, `(title, summary)`, for a pull request's description.
    pub(in crate::session) fn chapters(&self) -> Option<Vec<(String, String)>> {
        let open = self.open.as_ref()?;
        Some(
            open.review
                .chapters
                .iter()
                .map(|c| (c.title.clone(), c.summary.clone()))
                .collect(),
        )
    }

    /// The open review's session as saved.
    pub(in crate::session) fn session(&self) -> Option<&ReviewSession> {
        self.open.as_ref().map(|o| &o.stored.session)
    }

    /// Where the open review was read: its repository and the HEAD its diff is against.
    pub(in crate::session) fn read_at(&self) -> Option<ReadAt> {
        self.open.as_ref().map(|o| ReadAt {
            root: o.root.clone(),
            head: o.read_against.clone(),
        })
    }

    /// `Ok` when `review_id` is the open review, else why not.
    pub(in crate::session) fn check_open(&self, review_id: &str) -> Result<&Arc<Review>, String> {
        match &self.open {
            Some(open) if open.review.id == review_id => Ok(&open.review),
            Some(open) => Err(format!(
                "review {review_id} is not open (the open review is {})",
                open.review.id
            )),
            None => Err("no review is open: load_guided_review first".into()),
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

pub(in crate::session) mod saving;

#[cfg(test)]
mod tests;
