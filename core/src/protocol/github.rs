//! The GitHub frames' content (design §7): what clients send to read and write through gh, and
//! what luxe answers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `list_pull_requests`: the repository's pull requests, by state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListPullRequests {
    /// Echoed on the answer.
    pub request_id: String,
    /// `owner/name`; the checkout's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// `open` (default), `closed`, `merged` or `all`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<PullRequestFilter>,
}

/// Which pull requests `list_pull_requests` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PullRequestFilter {
    /// Open ones, drafts included (`gh pr list --state open`); the default.
    Open,
    /// Closed without merging, and merged.
    Closed,
    /// Merged only, not those closed without merging.
    Merged,
    /// Open, closed and merged.
    All,
}

/// `get_pull_request`: one pull request with its review threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetPullRequest {
    /// Echoed on the answer.
    pub request_id: String,
    /// `owner/name`; the checkout's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The pull request's number in the repository.
    pub number: u64,
}

/// `post_pull_request_comment`: a comment on the pull request's conversation (a GitHub write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PostPullRequestComment {
    /// Echoed on the answer.
    pub request_id: String,
    /// `owner/name`; the checkout's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The pull request's number in the repository.
    pub number: u64,
    /// The comment (Markdown).
    pub body: String,
}

/// `reply_to_review_thread`: a reply on a pull request's review thread (a GitHub write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplyToReviewThread {
    /// Echoed on the answer.
    pub request_id: String,
    /// `owner/name`; the checkout's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The thread's GraphQL id (from `pull_request_fetched`).
    pub thread_id: String,
    /// The reply (Markdown).
    pub body: String,
}

/// `resolve_review_thread`: mark a review thread resolved or unresolved (a GitHub write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResolveReviewThread {
    /// Echoed on the answer.
    pub request_id: String,
    /// `owner/name`; the checkout's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The thread's GraphQL id.
    pub thread_id: String,
    /// `false` reopens it; default `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<bool>,
}

/// `edit_pull_request`: change a pull request's title, body, base or draft state (a GitHub write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditPullRequest {
    /// Echoed on the answer.
    pub request_id: String,
    /// `owner/name`; the checkout's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The pull request's number in the repository.
    pub number: u64,
    /// The new title; absent leaves the title as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A new description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A new base branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// `true` turns it back into a draft, `false` marks it ready for review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<bool>,
}

/// `merge_pull_request`: merge a pull request, only at the head Luxe last saw (a GitHub write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MergePullRequest {
    /// Echoed on the answer.
    pub request_id: String,
    /// `owner/name`; the checkout's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The pull request's number in the repository.
    pub number: u64,
    /// Merge commit, squash or rebase.
    pub method: MergeMethod,
    /// Delete the head branch after merging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_branch: Option<bool>,
}

/// How a pull request is merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MergeMethod {
    /// Keep its commits and add a merge commit (`gh pr merge --merge`).
    Merge,
    /// Squash its commits into one commit on the base (`gh pr merge --squash`).
    Squash,
    /// The commits rebased onto the base.
    Rebase,
}

/// Whether gh can be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GithubState {
    /// gh is installed, logged in, and the checkout has a GitHub remote.
    Ready,
    /// gh is not on PATH.
    Missing,
    /// gh is not logged in.
    Unauthenticated,
    /// The checkout has no GitHub remote (or is not a git repository).
    NoRemote,
}

/// `workspace_updated`: the checkout and its pull request, as the dock shows them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkspaceUpdated {
    /// The branch; null when detached or not a repository.
    pub branch: Option<String>,
    /// HEAD's commit; null before the first commit.
    pub head_sha: Option<String>,
    /// The branch's upstream, e.g. `origin/main`; null when it has none.
    pub upstream: Option<String>,
    /// Commits ahead of the upstream.
    pub ahead: u32,
    /// Commits behind the upstream.
    pub behind: u32,
    /// Anything changed, staged or untracked.
    pub dirty: bool,
    /// `owner/name` of the checkout's GitHub repository, when known.
    pub repository: Option<String>,
    /// Whether gh can be used.
    pub github: GithubState,
    /// The branch's pull request, if any.
    pub pull_request: Option<BranchPullRequest>,
}

/// The current branch's pull request in `workspace_updated`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BranchPullRequest {
    /// The pull request's number in the repository.
    pub number: u64,
    /// The pull request's title, as on GitHub.
    pub title: String,
    /// The pull request's page on GitHub.
    pub url: String,
    /// `OPEN`, `CLOSED` or `MERGED`, as GitHub says.
    pub state: String,
    /// Whether it is a draft (not yet ready for review).
    pub draft: bool,
    /// The branch it merges into.
    pub base: String,
    /// The branch its changes come from.
    pub head: String,
    /// `APPROVED`, `CHANGES_REQUESTED`, `REVIEW_REQUIRED`, or null.
    pub review_decision: Option<String>,
    /// `MERGEABLE`, `CONFLICTING` or `UNKNOWN`.
    pub mergeable: Option<String>,
    /// Its checks from `gh pr checks`; empty until they are read, or when there are none.
    pub checks: Vec<Check>,
}

/// One check of a pull request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    /// The check's name, as GitHub lists it on the pull request.
    pub name: String,
    /// The state as GitHub says it (`SUCCESS`, `FAILURE`, `IN_PROGRESS`, …).
    pub state: String,
    /// gh's grouping: `pass`, `fail`, `pending`, `skipping` or `cancel`.
    pub bucket: String,
    /// The check's details page, when GitHub gives one.
    pub link: Option<String>,
}

/// A pull request in a listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestSummary {
    /// The pull request's number in the repository.
    pub number: u64,
    /// The pull request's title, as on GitHub.
    pub title: String,
    /// The pull request's page on GitHub.
    pub url: String,
    /// `OPEN`, `CLOSED` or `MERGED`.
    pub state: String,
    /// Whether it is a draft (not yet ready for review).
    pub draft: bool,
    /// The branch its changes come from.
    pub head: String,
    /// The branch it merges into.
    pub base: String,
    /// The GitHub login of whoever opened it; `null` when GitHub gives none (as for a deleted
    /// account).
    pub author: Option<String>,
    /// When it last changed (ISO 8601, as GitHub says).
    pub updated_at: Option<String>,
}

/// `pull_requests_listed`: the answer to `list_pull_requests`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestsListed {
    /// The `request_id` of the `list_pull_requests` this answers.
    pub request_id: String,
    /// Newest first, as gh lists them.
    pub pull_requests: Vec<PullRequestSummary>,
}

/// `pull_request_fetched`: the answer to `get_pull_request`: the pull request and its review
/// threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestFetched {
    /// The `request_id` of the `get_pull_request` this answers.
    pub request_id: String,
    /// The pull request `number` named, with its review threads.
    pub pull_request: PullRequestDetail,
}

/// One pull request with its description and review threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestDetail {
    /// What a listing says of it.
    #[serde(flatten)]
    pub summary: PullRequestSummary,
    /// The pull request's description (Markdown), as on GitHub.
    pub body: String,
    /// The head branch's commit on GitHub.
    pub head_sha: String,
    /// `APPROVED`, `CHANGES_REQUESTED`, `REVIEW_REQUIRED`, or null.
    pub review_decision: Option<String>,
    /// `MERGEABLE`, `CONFLICTING` or `UNKNOWN`.
    pub mergeable: Option<String>,
    /// Lines added.
    pub additions: u64,
    /// Lines deleted.
    pub deletions: u64,
    /// How many files the pull request changes.
    pub changed_files: u64,
    /// Its review threads (the first 100, each with its first 100 comments).
    pub threads: Vec<ReviewThread>,
}

/// A review thread on a pull request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewThread {
    /// Its GraphQL id, for `reply_to_review_thread` and `resolve_review_thread`.
    pub id: String,
    /// Whether the thread is marked resolved on GitHub.
    pub resolved: bool,
    /// The commented file's path in the repository.
    pub path: String,
    /// The line, when it still exists.
    pub line: Option<u64>,
    /// `LEFT` or `RIGHT`.
    pub side: Option<String>,
    /// The comments, oldest first.
    pub comments: Vec<ThreadComment>,
}

/// A comment of a review thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadComment {
    /// The comment's GraphQL node id.
    pub id: String,
    /// The GitHub login of whoever wrote it; `null` when GitHub gives none (as for a deleted
    /// account).
    pub author: Option<String>,
    /// The comment's text (Markdown).
    pub body: String,
    /// When (ISO 8601).
    pub created_at: Option<String>,
}

/// A GitHub request answered with a link (`pull_request_comment_posted`, `review_thread_replied`,
/// `pull_request_edited`, `pull_request_merged`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GithubDone {
    /// The `request_id` of the write this answers.
    pub request_id: String,
    /// What gh printed as the result's address, when it printed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `review_thread_resolved`: the answer to `resolve_review_thread`: the thread's state now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewThreadResolved {
    /// The `request_id` of the `resolve_review_thread` this answers.
    pub request_id: String,
    /// The `thread_id` it named: the thread's GraphQL id.
    pub thread_id: String,
    /// Whether it is resolved now.
    pub resolved: bool,
}

/// `preview_pull_request`: what opening a pull request from a head onto a base would do, without
/// doing it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreviewPullRequest {
    /// Echoed on the preview; `open_pull_request` confirms with the same id.
    pub request_id: String,
    /// The base branch; the repository's default branch when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The head branch; the current branch when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
}

/// `open_pull_request`: confirms the preview of the same `request_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OpenPullRequest {
    /// The `request_id` of the `pull_request_preview` being confirmed.
    pub request_id: String,
    /// A title instead of the drafted one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description instead of the drafted one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Open it as a draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<bool>,
}

/// `pull_request_preview`: what `open_pull_request` will open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestPreview {
    /// The `request_id` of the `preview_pull_request` this answers; `open_pull_request`
    /// confirms with it.
    pub request_id: String,
    /// The drafted title: the only commit's subject, else the head branch's name;
    /// `open_pull_request`'s `title` replaces it.
    pub title: String,
    /// The drafted description: the commits and, when a review is open, its chapters;
    /// `open_pull_request`'s `description` replaces it.
    pub description: String,
    /// The branch it would merge into: as asked, else the repository's default branch.
    pub base: String,
    /// The branch its changes come from: as asked, else the current branch.
    pub head: String,
    /// The commits it holds, oldest first.
    pub commits: Vec<PreviewCommit>,
}

/// One commit the pull request would hold: one of `origin/<base>..<head>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PreviewCommit {
    /// The commit's full hash.
    pub sha: String,
    /// Its subject line.
    pub subject: String,
}

/// `pull_request_opened`: the answer to `open_pull_request`: the pull request opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestOpened {
    /// The `request_id` shared by the preview and the `open_pull_request` that confirmed it.
    pub request_id: String,
    /// The new pull request's number in the repository.
    pub number: u64,
    /// The new pull request's page on GitHub.
    pub url: String,
}

/// `preview_pull_request_review`: the review a guided review's sent findings would post on the pull
/// request, without posting it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreviewPullRequestReview {
    /// Echoed on the preview; `post_pull_request_review` confirms with the same id.
    pub request_id: String,
    /// The open review (a `branch` review of a branch with an open pull request).
    pub review_id: String,
}

/// `post_pull_request_review`: confirms the preview of the same `request_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PostPullRequestReview {
    /// The `request_id` of the `pull_request_review_preview` being confirmed.
    pub request_id: String,
    /// What the review says of the pull request; the preview's `suggested_verdict` is what the
    /// findings suggest.
    pub verdict: Verdict,
    /// The review's overall text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A pull request review's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Approve the pull request.
    Approve,
    /// Ask for changes (GitHub's `REQUEST_CHANGES` review); suggested
    /// when a posted finding is an `issue`.
    RequestChanges,
    /// Neither approve nor ask for changes (GitHub's `COMMENT` review).
    Comment,
}

/// `pull_request_review_preview`: what `post_pull_request_review` will post.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestReviewPreview {
    /// The `request_id` of the `preview_pull_request_review` this answers;
    /// `post_pull_request_review` confirms with it.
    pub request_id: String,
    /// The review session's revision the comments come from; a later change refuses the post.
    pub session_revision: u64,
    /// The pull request's head the comments are anchored to; a moved head refuses the post.
    pub head_sha: String,
    /// The inline comments, one per finding that can be posted.
    pub comments: Vec<ReviewComment>,
    /// Findings that cannot be posted, and why.
    pub skipped: Vec<SkippedFinding>,
    /// What the findings suggest.
    pub suggested_verdict: Verdict,
}

/// An inline comment of a pull request review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewComment {
    /// The file's path in the repository.
    pub path: String,
    /// The line it is on, numbered in `side`'s version of the file; for a multi-line comment the
    /// last (`start_line` is the first).
    pub line: u64,
    /// `LEFT` (old) or `RIGHT` (new).
    pub side: String,
    /// The first line of a multi-line comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    /// The comment's text (Markdown): the reviewer's entries of the finding's thread.
    pub body: String,
}

/// A finding left out of a pull request review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedFinding {
    /// The skipped finding's `id` in the review session.
    pub comment_id: String,
    /// Why it could not be done, in words to show the user.
    pub reason: String,
}
