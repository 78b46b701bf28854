//! Events: the frames luxe sends. Each later capability adds its frames here with its behaviour.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::frame_enum::frame_enum;
use super::github::{
    GithubDone, PullRequestFetched, PullRequestOpened, PullRequestPreview,
    PullRequestReviewPreview, PullRequestsListed, ReviewThreadResolved, WorkspaceUpdated,
};
use super::stack::{
    RestackFailed, RestackPlanned, Restacked, StackOpenFailed, StackOpened, StackPreview,
};
use super::values::{
    CompactionTrigger, Mode, PermissionMode, PermissionReply, QuestionReply, Thinking,
    TurnEndReason, TurnSource,
};
use crate::protocol::findings::ReviewSession;
use crate::protocol::review::Review;

frame_enum! {
    /// A frame luxe writes to stdout.
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
        /// Files a tool changed.
        FilesChanged(FilesChanged) = "files_changed",
        /// A model request failed in a way worth retrying; the next attempt follows the delay.
        ModelRetrying(ModelRetrying) = "model_retrying",
        /// Tokens and cost of the turn, once, just before `turn_ended`.
        TurnUsage(TurnUsage) = "turn_usage",
        /// The model catalogue, answering `list_models`.
        ModelsListed(ModelsListed) = "models_listed",
        /// This directory's stored sessions, answering `list_sessions`.
        SessionsListed(SessionsListed) = "sessions_listed",
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
        /// The chapters were committed.
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
        /// A GitHub read failed.
        GithubReadFailed(RequestFailed) = "github_read_failed",
        /// A comment was posted.
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
        /// A pull request was merged.
        PullRequestMerged(GithubDone) = "pull_request_merged",
        /// A pull request could not be merged.
        PullRequestMergeFailed(RequestFailed) = "pull_request_merge_failed",
        /// A restack plan, or why there is none.
        RestackPlanned(Box<RestackPlanned>) = "restack_planned",
        /// A restack was pushed.
        Restacked(Restacked) = "restacked",
        /// A restack did not happen, or its push did not finish.
        RestackFailed(RestackFailed) = "restack_failed",
        /// An MCP server's status or tools changed; every server, whole.
        McpServersUpdated(McpServersUpdated) = "mcp_servers_updated",
        /// The MCP servers, answering `list_mcp_servers`.
        McpServersListed(McpServersListed) = "mcp_servers_listed",
    }
}

/// One configured MCP server, as `mcp_servers_updated` and `mcp_servers_listed` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServer {
    /// Its name in the settings (its tools are `mcp__<name>__<tool>`).
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// `starting`, `ready`, `failed` or `stopped`.
    pub status: String,
    /// How many tools it offers.
    pub tools: u32,
    /// Why it failed; for a ready server, the tools it listed that were left out and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `mcp_servers_updated`: an MCP server started, became ready, failed or stopped; every server's
/// state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServersUpdated {
    /// Every configured server, in settings order.
    pub servers: Vec<McpServer>,
}

/// `mcp_servers_listed`: the answer to `list_mcp_servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServersListed {
    /// The `list_mcp_servers` request.
    pub request_id: String,
    /// Every configured server.
    pub servers: Vec<McpServer>,
}

/// `guided_review_loaded`: the answer to `load_guided_review`: the review and its saved session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GuidedReviewLoaded {
    /// The `load_guided_review`'s.
    pub request_id: String,
    /// The review.
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

/// A request that failed, and why (`guided_review_failed`, `review_session_save_failed`,
/// `review_chapters_commit_failed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestFailed {
    /// The request's.
    pub request_id: String,
    /// Why, in words.
    pub reason: String,
}

/// `review_session_restored`: the open review's saved findings and threads, as read from its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSessionEvent {
    /// The session.
    pub session: ReviewSession,
}

/// `review_session_saved`: a change to the review session is on disk; the session as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSessionSaved {
    /// The request whose change this is; absent for progress of an agent turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The session as saved.
    pub session: ReviewSession,
}

/// `review_chapters_committed`: the answer to `commit_review_chapters`: the commits made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewChaptersCommitted {
    /// The request's.
    pub request_id: String,
    /// One per chapter, in order.
    pub commits: Vec<ChapterCommit>,
}

/// One commit of `review_chapters_committed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChapterCommit {
    /// The chapter.
    pub chapter_id: String,
    /// The commit.
    pub sha: String,
    /// Its branch, for a stack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// `ready`: the first frame; the session and what this Luxe speaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ready {
    /// 2. Refuse a number you do not know.
    pub protocol_version: u32,
    /// This build's version.
    pub luxe_version: String,
    /// The session's id (the one id that is not derived from content or counters).
    pub session_id: String,
    /// The working directory.
    pub cwd: String,
    /// Whether the client's GitHub writes are possible (false when read-only, even with the flag).
    pub github_writes: bool,
    /// Whether the session is read-only.
    pub read_only: bool,
    /// Whether this session was restored with `-c` or `--resume`.
    pub resumed: bool,
}

/// `state_changed`: the session's settings and status, whole, whenever one of them changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StateChanged {
    /// The model the next turn uses; `null` when none is configured.
    pub model: Option<ModelInfo>,
    /// True from `turn_started` to `turn_ended`.
    pub streaming: bool,
    /// `build` or `plan`.
    pub mode: Mode,
    /// Reasoning effort.
    pub thinking: Thinking,
    /// The effective permission mode.
    pub permission_mode: PermissionMode,
    /// Whether prompts are approved without asking the client.
    pub auto_approve: bool,
    /// Whether the project's own `allow` rules count (`--trust-project`).
    pub trust_project: bool,
}

/// A model as the catalogue describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelInfo {
    /// `provider/model`, as `set_model` takes it.
    pub id: String,
    /// `anthropic` or `openai`.
    pub provider: String,
    /// A display name.
    pub name: String,
    /// Tokens of context; `null` for a model outside the catalogue.
    pub context_window: Option<u32>,
    /// Most tokens one response may have; `null` for a model outside the catalogue.
    pub max_output_tokens: Option<u32>,
    /// Whether the model takes a reasoning setting.
    pub reasoning: bool,
    /// Whether its provider is configured (a key, or for `openai` a base URL).
    pub available: bool,
    /// Prices; `null` when unknown.
    pub cost: Option<ModelCost>,
    /// `false` when the server said the model's chat template cannot use tools (llama.cpp's
    /// `/props`): tools are then not offered. Absent when not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_tools: Option<bool>,
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelCost {
    /// Prompt tokens.
    pub input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Prompt tokens read from the cache.
    pub cache_read: f64,
    /// Prompt tokens written to the cache.
    pub cache_write: f64,
}

/// `action_rejected`: a line that was not a valid action, or an action refused; nothing changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionRejected {
    /// The rejected frame's kind; `null` when the line had no readable kind.
    pub kind: Option<String>,
    /// Why, in words for a person.
    pub reason: String,
    /// The rejected frame's `content.request_id`, when it had a readable one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// `error`: something went wrong outside any request (a save, a probe); the session goes on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorEvent {
    /// What went wrong.
    pub message: String,
}

/// `turn_started`: a queued message became a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnStarted {
    /// `turn_1`, `turn_2`, … in order.
    pub turn_id: String,
    /// What started it.
    pub source: TurnSource,
}

/// `turn_ended`: a turn is over, and why; `turn_usage` comes just before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnEnded {
    /// The `turn_started.turn_id`.
    pub turn_id: String,
    /// Why it ended.
    pub reason: TurnEndReason,
    /// With reason `error`: what failed, in words for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `user_message_queued`: a message waits behind the running turn (or a compaction).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UserMessageQueued {
    /// The queued message.
    pub text: String,
    /// Its place in the queue, from 1.
    pub position: u32,
}

/// `turn_steered`: `steer_turn`'s text joined the running turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnSteered {
    /// The running turn.
    pub turn_id: String,
    /// The added text.
    pub text: String,
}

/// `compaction_started`: the model is asked to summarize the older conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompactionStarted {
    /// The `compact` request's id; absent when a turn compacts on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The turn that compacts; absent for `compact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// What started it: a `compact` request, a request that would come near the window, or a
    /// refusal as too long.
    pub trigger: CompactionTrigger,
    /// The estimated tokens of the model's view now.
    pub tokens_before: u64,
}

/// `compaction_ended`: the summary replaced the older conversation in the model's view, or could
/// not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompactionEnded {
    /// As on `compaction_started`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// As on `compaction_started`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The estimated tokens of the model's view before.
    pub tokens_before: u64,
    /// The estimated tokens after (equal to `tokens_before` when compaction failed).
    pub tokens_after: u64,
    /// Why compaction failed; the conversation is then unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `token_delta` and `thinking_delta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenDelta {
    /// Index of the content block in the assistant message, from 0.
    pub block: u32,
    /// The new text.
    pub delta: String,
}

/// `tool_started`: the model called a tool; its permission is decided next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolStarted {
    /// `call_1`, `call_2`, … for the session.
    pub call_id: String,
    /// The tool.
    pub name: String,
    /// A one-line summary for a person, e.g. `read src/main.rs`.
    pub title: String,
    /// The arguments as the model gave them.
    pub input: serde_json::Value,
}

/// `tool_output_delta`: output of a running call (a command's, an MCP server's progress), redacted,
/// as it comes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolOutputDelta {
    /// The call.
    pub call_id: String,
    /// `stdout` or `stderr`.
    pub stream: OutputStream,
    /// The text (lossy UTF-8).
    pub chunk: String,
}

/// Which stream a tool's output came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// It did what was asked.
    Ok,
    /// It failed; `output` says why.
    Error,
    /// A rule or the client refused it.
    Denied,
    /// `interrupt_turn` stopped it.
    Interrupted,
}

/// `tool_finished`: a call ended; what the model reads of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolFinished {
    /// The call.
    pub call_id: String,
    /// How it ended.
    pub status: ToolStatus,
    /// What the model is told.
    pub output: String,
    /// For edits: a unified diff of the change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// Who settled a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResolvedBy {
    /// The client's reply.
    Client,
    /// A rule, without asking.
    Rule,
    /// Auto-approve.
    AutoApprove,
    /// The turn was interrupted.
    Interrupt,
}

/// `permission_requested`: a call the rules leave as ask waits for `respond_permission`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRequested {
    /// `perm_1`, … — echo it in `respond_permission`.
    pub id: String,
    /// The tool call waiting.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// A one-line summary.
    pub title: String,
    /// What exactly would happen (the command, the path).
    pub detail: String,
    /// The rule an `always` reply adds for this session.
    pub always_rule: String,
}

/// `permission_resolved`: a permission prompt was settled, and by whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionResolved {
    /// The prompt.
    pub id: String,
    /// The decision.
    pub reply: PermissionReply,
    /// Who made it.
    pub by: ResolvedBy,
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionOption {
    /// What is chosen.
    pub label: String,
    /// More about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `question_asked`: the model asks the user (`ask_user`); the turn waits for `answer_question`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionAsked {
    /// `q_1`, … — echo it in `answer_question`.
    pub id: String,
    /// The `ask_user` call waiting.
    pub call_id: String,
    /// The question.
    pub question: String,
    /// The choices.
    pub options: Vec<QuestionOption>,
    /// Whether several may be chosen.
    pub multiple: bool,
}

/// `question_resolved`: a question was answered or dismissed, and by whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionResolved {
    /// The question.
    pub id: String,
    /// The answer.
    pub reply: QuestionReply,
    /// Who gave it.
    pub by: ResolvedBy,
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanEntry {
    /// The step.
    pub content: String,
    /// `pending`, `in_progress` or `done`.
    pub status: PlanStatus,
}

/// Where a plan step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Not started.
    Pending,
    /// Under way.
    InProgress,
    /// Done: the step is finished.
    Done,
}

/// `plan_updated`: the model's plan (`update_plan`), whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanUpdated {
    /// The whole plan.
    pub entries: Vec<PlanEntry>,
}

/// `files_changed`: a tool wrote files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FilesChanged {
    /// The files, relative to cwd when inside it.
    pub paths: Vec<String>,
}

/// `model_retrying`: a model request failed in a way worth another try; the next attempt waits
/// `delay_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelRetrying {
    /// The attempt that follows, from 2.
    pub attempt: u32,
    /// How long luxe waits first.
    pub delay_ms: u64,
    /// What failed.
    pub reason: String,
}

/// `turn_usage`: what a turn took (tokens, cost, the context now), just before its `turn_ended`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnUsage {
    /// Prompt tokens not read from or written to the cache, summed over the turn's requests.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache.
    pub cache_write_tokens: u64,
    /// Completion tokens spent reasoning.
    pub reasoning_tokens: u64,
    /// The turn's cost; `null` when the model's prices are unknown.
    pub cost_usd: Option<f64>,
    /// Tokens in the context after the last request.
    pub context_tokens: u64,
    /// The model's context window; `null` when unknown.
    pub context_window: Option<u32>,
    /// The session's cost so far; `null` once a turn's or `compact` run's prices were unknown.
    pub session_cost_usd: Option<f64>,
}

/// `models_listed`: the answer to `list_models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelsListed {
    /// The `list_models` request.
    pub request_id: String,
    /// The catalogue; `available` says whether each can be used now.
    pub models: Vec<ModelInfo>,
    /// Each provider and whether it is configured.
    pub providers: Vec<ProviderStatus>,
}

/// A provider and whether it can be called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderStatus {
    /// `anthropic` or `openai`.
    pub provider: String,
    /// Whether its variables are set.
    pub available: bool,
    /// What to set when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// `session_restored`: a resumed session's conversation, after `ready`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRestored {
    /// The session's id (also in `ready`).
    pub session_id: String,
    /// The conversation so far, oldest first.
    pub messages: Vec<RestoredMessage>,
    /// Turns so far.
    pub turns: u32,
    /// Cost so far (turns with unknown prices count as 0).
    pub cost_usd: f64,
}

/// One message of a restored conversation, as a front end draws it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestoredMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// Its text blocks, joined by newlines.
    pub text: String,
    /// Tool calls the assistant made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<RestoredToolCall>,
    /// Tool results the user message carried back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results: Vec<RestoredToolResult>,
}

/// A tool call in a restored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestoredToolCall {
    /// The provider's call id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub input: serde_json::Value,
}

/// A tool result in a restored conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestoredToolResult {
    /// The call it answers.
    pub tool_use_id: String,
    /// What the model was told.
    pub content: String,
    /// Whether the call failed.
    pub is_error: bool,
}

/// `sessions_listed`: the answer to `list_sessions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionsListed {
    /// The `list_sessions` request.
    pub request_id: String,
    /// This directory's sessions, newest first.
    pub sessions: Vec<SessionSummary>,
}

/// One stored session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionSummary {
    /// Its id, for `--resume`.
    pub id: String,
    /// Its first user message, cut to 80 characters.
    pub title: String,
    /// When it was last written, seconds since the Unix epoch.
    pub updated: u64,
    /// Turns it ran.
    pub turns: u32,
    /// What they cost.
    pub cost_usd: f64,
}
