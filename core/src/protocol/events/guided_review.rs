//! The guided review's frames: the review loaded or read again, its saved session, and the
//! chapters committed.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::protocol::findings::ReviewSession;
use crate::protocol::guided_review::Review;

/// `guided_review_loaded`: the answer to `load_guided_review`: the review and its saved session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GuidedReviewLoaded {
    /// The `request_id` of the `load_guided_review` this answers.
    pub request_id: String,
    /// The review read: its files, hunks and chapters.
    // Shared with the open review rather than copied: a large one is tens of MB.
    pub review: Arc<Review>,
}

/// `guided_review_updated`: a turn changed files, so the open review was read again; its findings
/// follow their hunks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GuidedReviewUpdated {
    /// The review as it is now.
    // Shared with the open review, as in `GuidedReviewLoaded`.
    pub review: Arc<Review>,
}

/// `review_session_restored`: the open review's saved findings and threads, as read from its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSessionEvent {
    /// The open review's findings and threads, as saved.
    pub session: ReviewSession,
}

/// `review_session_saved`: a change to the review session is on disk; the session as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSessionSaved {
    /// The request whose change this is; absent for progress of an agent turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The whole review session after the change, as now on disk.
    pub session: ReviewSession,
}

/// `review_chapters_committed`: the answer to `commit_review_chapters`: the commits made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewChaptersCommitted {
    /// The `request_id` of the `commit_review_chapters` this answers.
    pub request_id: String,
    /// One per chapter, in order.
    pub commits: Vec<ChapterCommit>,
}

/// One commit of `review_chapters_committed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChapterCommit {
    /// The `id` of the chapter whose hunks the commit holds.
    pub chapter_id: String,
    /// The new commit's hash.
    pub sha: String,
    /// Its branch, for a stack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}
