//! Events: the frames luxe sends. The `Event` enum is here; each feature's frame contents are in
//! the room named for it, all re-exported so that `crate::protocol::events::X` names every one.

mod compaction;
mod guided_review;
mod mcp;
mod models;
mod paths;
mod plan;
mod problems;
mod prompts;
mod session;
mod stored_sessions;
mod tools;
mod turn;

pub use compaction::{CompactionEnded, CompactionStarted};
pub use guided_review::{
    ChapterCommit, GuidedReviewLoaded, GuidedReviewUpdated, ReviewChaptersCommitted,
    ReviewSessionEvent, ReviewSessionSaved,
};
pub use mcp::{McpServer, McpServersListed, McpServersUpdated};
pub use models::{ModelCost, ModelInfo, ModelsListed, ProviderStatus};
pub use paths::PathsCompleted;
pub use plan::{PlanEntry, PlanStatus, PlanUpdated};
pub use problems::{ActionRejected, ErrorEvent, RequestFailed};
pub use prompts::{
    PermissionRequested, PermissionResolved, QuestionAsked, QuestionOption, QuestionResolved,
    ResolvedBy,
};
pub use session::{Ready, Started, StartedIssue, StartedWorktree, StateChanged};
pub use stored_sessions::{
    RestoredMessage, RestoredToolCall, RestoredToolResult, SessionRestored, SessionSummary,
    SessionsListed,
};
pub use tools::{
    FileBefore, FilesChanged, OutputStream, ToolFinished, ToolOutputDelta, ToolStarted, ToolStatus,
};
pub use turn::{
    ModelRetrying, TokenDelta, TurnEnded, TurnStarted, TurnSteered, TurnUsage, UserMessageQueued,
    UserMessageWithdrawn,
};

use super::frame_enum::frame_enum;
use super::github::{
    GithubDone, PullRequestFetched, PullRequestOpened, PullRequestPreview,
    PullRequestReviewPreview, PullRequestsListed, ReviewThreadResolved, WorkspaceUpdated,
};
use super::stack::{
    RestackFailed, RestackPlanned, Restacked, StackOpenFailed, StackOpened, StackPreview,
};

frame_enum! {
    /// A frame luxe writes to stdout. The union is open: kinds (and fields) are added without a
    /// version bump, so a typed client dispatches on `kind` and keeps a fallback for a kind it
    /// does not know, which it ignores.
    pub enum Event {
        /// Always the first frame.
        Ready(Ready) = "ready",
        /// The session's settings, sent at start and whenever one changes.
        StateChanged(StateChanged) = "state_changed",
        /// An action that was not carried out, and why.
        ActionRejected(ActionRejected) = "action_rejected",
        /// A problem that belongs to no request and no turn; the session goes on.
        Error(ErrorEvent) = "error",
        /// A turn began.
        TurnStarted(TurnStarted) = "turn_started",
        /// A turn ended; exactly one per `turn_started`.
        TurnEnded(TurnEnded) = "turn_ended",
        /// A message arrived while a turn ran; it runs next.
        UserMessageQueued(UserMessageQueued) = "user_message_queued",
        /// A queued message was taken back.
        UserMessageWithdrawn(UserMessageWithdrawn) = "user_message_withdrawn",
        /// Text was added to the running turn.
        TurnSteered(TurnSteered) = "turn_steered",
        /// Streamed answer text.
        TokenDelta(TokenDelta) = "token_delta",
        /// Streamed reasoning text.
        ThinkingDelta(TokenDelta) = "thinking_delta",
        /// A tool call begins.
        ToolStarted(ToolStarted) = "tool_started",
        /// Output of a running tool.
        ToolOutputDelta(ToolOutputDelta) = "tool_output_delta",
        /// A tool call ended.
        ToolFinished(ToolFinished) = "tool_finished",
        /// A tool call needs the client's permission.
        PermissionRequested(PermissionRequested) = "permission_requested",
        /// A permission prompt was settled.
        PermissionResolved(PermissionResolved) = "permission_resolved",
        /// The agent asks the user a question.
        QuestionAsked(QuestionAsked) = "question_asked",
        /// A question was settled.
        QuestionResolved(QuestionResolved) = "question_resolved",
        /// The agent's plan, whole.
        PlanUpdated(PlanUpdated) = "plan_updated",
        /// A `write` or `edit` changed files; sent after its `tool_finished`.
        FilesChanged(FilesChanged) = "files_changed",
        /// A model request failed in a way worth retrying; the next attempt follows the delay.
        ModelRetrying(ModelRetrying) = "model_retrying",
        /// Tokens and cost of the turn, once, just before `turn_ended`.
        TurnUsage(TurnUsage) = "turn_usage",
        /// The model catalogue, answering `list_models`.
        ModelsListed(ModelsListed) = "models_listed",
        /// This directory's stored sessions, answering `list_sessions`.
        SessionsListed(SessionsListed) = "sessions_listed",
        /// The answer to `complete_path`.
        PathsCompleted(PathsCompleted) = "paths_completed",
        /// A resumed session's conversation, after `state_changed`.
        SessionRestored(SessionRestored) = "session_restored",
        /// The model is asked for a summary of the older conversation.
        CompactionStarted(CompactionStarted) = "compaction_started",
        /// The summary replaced the older conversation in the model's view, or compaction failed.
        CompactionEnded(CompactionEnded) = "compaction_ended",
        /// A review was read and opened.
        GuidedReviewLoaded(GuidedReviewLoaded) = "guided_review_loaded",
        /// A review could not be read.
        GuidedReviewFailed(RequestFailed) = "guided_review_failed",
        /// The open review was read again after a turn changed files.
        GuidedReviewUpdated(GuidedReviewUpdated) = "guided_review_updated",
        /// The open review's session, after every load.
        ReviewSessionRestored(ReviewSessionEvent) = "review_session_restored",
        /// A change to the review session is on disk.
        ReviewSessionSaved(ReviewSessionSaved) = "review_session_saved",
        /// An `edit_review` was not saved.
        ReviewSessionSaveFailed(RequestFailed) = "review_session_save_failed",
        /// The chapters were committed, one commit each, answering `commit_review_chapters`.
        ReviewChaptersCommitted(ReviewChaptersCommitted) = "review_chapters_committed",
        /// The chapters could not be committed.
        ReviewChaptersCommitFailed(RequestFailed) = "review_chapters_commit_failed",
        /// A drafted pull request, answering `preview_pull_request`.
        PullRequestPreview(Box<PullRequestPreview>) = "pull_request_preview",
        /// The previewed pull request is open.
        PullRequestOpened(PullRequestOpened) = "pull_request_opened",
        /// The previewed pull request could not be opened (confirm again to retry).
        PullRequestOpenFailed(RequestFailed) = "pull_request_open_failed",
        /// A drafted stack of pull requests, answering `preview_stack`.
        StackPreview(Box<StackPreview>) = "stack_preview",
        /// The previewed stack is open.
        StackOpened(StackOpened) = "stack_opened",
        /// Part of the stack could not be opened (confirm again to finish).
        StackOpenFailed(StackOpenFailed) = "stack_open_failed",
        /// A drafted pull request review, answering `preview_pull_request_review`.
        PullRequestReviewPreview(Box<PullRequestReviewPreview>) = "pull_request_review_preview",
        /// The previewed review is posted.
        PullRequestReviewPosted(GithubDone) = "pull_request_review_posted",
        /// The previewed review could not be posted (confirm again to retry).
        PullRequestReviewPostFailed(RequestFailed) = "pull_request_review_post_failed",
        /// The checkout and its pull request, as the dock shows them.
        WorkspaceUpdated(Box<WorkspaceUpdated>) = "workspace_updated",
        /// Pull requests, answering `list_pull_requests`.
        PullRequestsListed(PullRequestsListed) = "pull_requests_listed",
        /// A pull request, answering `get_pull_request`.
        PullRequestFetched(Box<PullRequestFetched>) = "pull_request_fetched",
        /// A read through gh failed (a listing, a pull request, a preview); `reason` says why.
        GithubReadFailed(RequestFailed) = "github_read_failed",
        /// A comment was posted, answering `post_pull_request_comment`.
        PullRequestCommentPosted(GithubDone) = "pull_request_comment_posted",
        /// A comment could not be posted.
        PullRequestCommentPostFailed(RequestFailed) = "pull_request_comment_post_failed",
        /// A review thread got a reply.
        ReviewThreadReplied(GithubDone) = "review_thread_replied",
        /// A reply could not be posted.
        ReviewThreadReplyFailed(RequestFailed) = "review_thread_reply_failed",
        /// A review thread was resolved or reopened.
        ReviewThreadResolved(ReviewThreadResolved) = "review_thread_resolved",
        /// A review thread could not be resolved.
        ReviewThreadResolveFailed(RequestFailed) = "review_thread_resolve_failed",
        /// A pull request was changed.
        PullRequestEdited(GithubDone) = "pull_request_edited",
        /// A pull request could not be changed.
        PullRequestEditFailed(RequestFailed) = "pull_request_edit_failed",
        /// A pull request was merged, answering `merge_pull_request`.
        PullRequestMerged(GithubDone) = "pull_request_merged",
        /// A pull request could not be merged.
        PullRequestMergeFailed(RequestFailed) = "pull_request_merge_failed",
        /// A restack plan, or why there is none.
        RestackPlanned(Box<RestackPlanned>) = "restack_planned",
        /// A `restack` was pushed; pull requests that could not follow are in `retarget_failed`.
        Restacked(Restacked) = "restacked",
        /// A restack did not happen, or its push did not finish.
        RestackFailed(RestackFailed) = "restack_failed",
        /// An MCP server's status or tools changed; every server, whole.
        McpServersUpdated(McpServersUpdated) = "mcp_servers_updated",
        /// The MCP servers, answering `list_mcp_servers`.
        McpServersListed(McpServersListed) = "mcp_servers_listed",
    }
}
