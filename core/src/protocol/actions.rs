//! Actions: the frames a client sends. Every kind in [`super::kinds::ACTION_KINDS`] that this
//! build serves, or whose content it already validates, is typed here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::findings::{Anchor, Severity};
use super::frame_enum::frame_enum;
use super::github::{
    EditPullRequest, GetPullRequest, ListPullRequests, MergePullRequest, OpenPullRequest,
    PostPullRequestComment, PostPullRequestReview, PreviewPullRequest, PreviewPullRequestReview,
    ReplyToReviewThread, ResolveReviewThread,
};
use super::stack::{OpenStack, PlanRestack, PreviewStack, Restack};
use super::values::{Mode, PermissionReply, QuestionReply, Thinking};
use crate::protocol::guided_review::ReviewTarget;

frame_enum! {
    /// A decoded client frame.
    pub enum Action {
        /// Start a turn, or queue one while a turn runs.
        SubmitUserMessage(SubmitUserMessage) = "submit_user_message",
        /// Add text to the running turn before its next model request.
        SteerTurn(SteerTurn) = "steer_turn",
        /// End the running turn.
        InterruptTurn = "interrupt_turn",
        /// Take back the last message queued behind the running turn.
        WithdrawQueuedMessage = "withdraw_queued_message",
        /// Answer a `permission_requested`.
        RespondPermission(RespondPermission) = "respond_permission",
        /// Answer a `question_asked`.
        AnswerQuestion(AnswerQuestion) = "answer_question",
        /// Approve every prompt without asking the client.
        SetPermissionAutoApprove(SetPermissionAutoApprove) = "set_permission_auto_approve",
        /// Switch the model for the next request.
        SetModel(SetModel) = "set_model",
        /// Switch between `build` and `plan`.
        SetMode(SetMode) = "set_mode",
        /// Set the reasoning effort.
        SetThinking(SetThinking) = "set_thinking",
        /// Ask for the model catalogue.
        ListModels(RequestOnly) = "list_models",
        /// Ask for this directory's sessions.
        ListSessions(RequestOnly) = "list_sessions",
        /// Ask for paths under the working directory that complete what was typed.
        CompletePath(CompletePath) = "complete_path",
        /// Summarise the conversation to free context.
        Compact(Compact) = "compact",
        /// Read a diff as a guided review and open it.
        LoadGuidedReview(LoadGuidedReview) = "load_guided_review",
        /// Change the open review's findings.
        EditReview(EditReview) = "edit_review",
        /// Ask the agent to review the open review's diff.
        RequestAgentReview(ReviewRequest) = "request_agent_review",
        /// Commit the open working-tree review chapter by chapter.
        CommitReviewChapters(CommitReviewChapters) = "commit_review_chapters",
        /// Draft a pull request of the current branch.
        PreviewPullRequest(PreviewPullRequest) = "preview_pull_request",
        /// Open the previewed pull request.
        OpenPullRequest(OpenPullRequest) = "open_pull_request",
        /// Draft a stack of pull requests, one per branch.
        PreviewStack(PreviewStack) = "preview_stack",
        /// Push the previewed stack's branches and open a pull request for each, bottom first;
        /// confirms the `preview_stack` of the same `request_id`.
        OpenStack(OpenStack) = "open_stack",
        /// Draft a pull request review from the open review's findings.
        PreviewPullRequestReview(PreviewPullRequestReview) = "preview_pull_request_review",
        /// Post the previewed pull request review.
        PostPullRequestReview(PostPullRequestReview) = "post_pull_request_review",
        /// Probe the checkout and its pull request again.
        RefreshWorkspace = "refresh_workspace",
        /// List the repository's pull requests, open ones unless `state` says otherwise.
        ListPullRequests(ListPullRequests) = "list_pull_requests",
        /// Read one pull request with its review threads.
        GetPullRequest(GetPullRequest) = "get_pull_request",
        /// Post a comment on a pull request's conversation (a GitHub write).
        PostPullRequestComment(PostPullRequestComment) = "post_pull_request_comment",
        /// Reply on a pull request's review thread (a GitHub write).
        ReplyToReviewThread(ReplyToReviewThread) = "reply_to_review_thread",
        /// Resolve or reopen a review thread.
        ResolveReviewThread(ResolveReviewThread) = "resolve_review_thread",
        /// Change a pull request's title, description or base.
        EditPullRequest(EditPullRequest) = "edit_pull_request",
        /// Merge a pull request at the head luxe last saw.
        MergePullRequest(MergePullRequest) = "merge_pull_request",
        /// Plan moving the stacks of open pull requests onto their bases.
        PlanRestack(PlanRestack) = "plan_restack",
        /// Push the plan of this id.
        Restack(Restack) = "restack",
        /// Ask for the MCP servers and their status.
        ListMcpServers(RequestOnly) = "list_mcp_servers",
        /// Finish writes, end child processes and exit 0.
        Close = "close",
    }
}

/// `load_guided_review`: read a diff (working tree, staged, a branch, a commit, a patch) and open
/// it as a guided review with its chapters and its saved findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadGuidedReview {
    /// Echoed on `guided_review_loaded` or `guided_review_failed`.
    pub request_id: String,
    /// What to compare.
    pub target: ReviewTarget,
}

/// `edit_review`: one change to the open review's findings, answered once under its
/// `request_id` (`review_session_saved`, or `review_session_save_failed` saying why, also when
/// the frame's fields do not make an edit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditReview {
    /// Echoed on the answer.
    pub request_id: String,
    /// The `id` of the open review, from `guided_review_loaded`.
    pub review_id: String,
    /// The change, named by `edit`, with the fields that edit takes.
    #[serde(flatten)]
    pub edit: ReviewEdit,
}

/// A change to a review's findings, by its `edit` name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum ReviewEdit {
    /// A new finding, a `draft` until sent.
    Comment {
        /// The lines, hunk or file it is about.
        anchor: Anchor,
        /// What the reviewer says.
        body: String,
        /// How much it matters.
        severity: Severity,
        /// Send it to the agent in the same save (a turn answers it).
        #[serde(default)]
        send: bool,
    },
    /// The reviewer's reply on a finding's thread.
    Reply {
        /// The finding's `id` in the review session.
        comment_id: String,
        /// What the reviewer says.
        body: String,
        /// Send it to the agent in the same save.
        #[serde(default)]
        send: bool,
    },
    /// Ask the agent to change the code for a finding (a turn starts only with `send`).
    RequestFix {
        /// The finding's `id` in the review session.
        comment_id: String,
        /// What to do, when more than the finding says (default "Please fix this.").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// Send it to the agent in the same save.
        #[serde(default)]
        send: bool,
    },
    /// Change a finding's first text or its severity (at least one).
    Update {
        /// The finding's `id` in the review session.
        comment_id: String,
        /// The finding's first entry's new text; unchanged when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// The finding's new severity; unchanged when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        severity: Option<Severity>,
    },
    /// Remove a finding.
    Delete {
        /// The finding's `id` in the review session.
        comment_id: String,
    },
    /// Mark a finding done.
    Resolve {
        /// The finding's `id` in the review session.
        comment_id: String,
    },
    /// Mark a resolved finding open again.
    Reopen {
        /// The finding's `id` in the review session.
        comment_id: String,
    },
    /// Send a finding to the agent: a turn answers it, or fixes it when the reviewer's last
    /// word on it was a fix request. A resolved finding is reopened first.
    Send {
        /// The finding's `id` in the review session.
        comment_id: String,
    },
}

/// An action naming the open review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewRequest {
    /// Echoed on the answer.
    pub request_id: String,
    /// The `id` of the open review, from `guided_review_loaded`.
    pub review_id: String,
}

/// `commit_review_chapters`: commit the open review's chapters, each as its own commit, in reading
/// order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommitReviewChapters {
    /// Echoed on the answer.
    pub request_id: String,
    /// The open review (a `working_tree` one).
    pub review_id: String,
    /// The chapters to commit (default: all), committed in chapter order whatever the order here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chapter_ids: Option<Vec<String>>,
    /// Commit messages by chapter id; a chapter without one gets its title and summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<std::collections::BTreeMap<String, String>>,
    /// Each commit on its own branch, stacked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<bool>,
}

/// Content of an action whose only field is the client's `request_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestOnly {
    /// Chosen by the client; echoed on the answer.
    pub request_id: String,
}

/// `submit_user_message`: the user's message; it starts a turn, or waits in the queue behind the
/// running one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubmitUserMessage {
    /// What the user wrote.
    pub text: String,
    /// Images attached to the message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
}

/// An image attached to a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Image {
    /// For example `image/png`.
    pub media_type: String,
    /// The image bytes, base64.
    pub data: String,
}

/// `steer_turn`: text added to the running turn, read by the model at its next request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SteerTurn {
    /// Added to the running turn.
    pub text: String,
}

/// `complete_path`: paths under the working directory for what a person typed after `@`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompletePath {
    /// Echoed by `paths_completed`.
    pub request_id: String,
    /// What was typed: a path relative to the working directory, or any part of one.
    pub prefix: String,
}

/// `respond_permission`: the user's answer to a `permission_requested` prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RespondPermission {
    /// The `id` of the `permission_requested` being answered.
    pub id: String,
    /// `once`, `always` (adds `always_rule` for the session) or `reject`.
    pub reply: PermissionReply,
    /// Told to the model with a `reject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `answer_question`: the user's answer to the model's `question_asked`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AnswerQuestion {
    /// The `id` of the `question_asked` being answered.
    pub id: String,
    /// The labels chosen, the user's own words, or `dismissed`.
    pub reply: QuestionReply,
}

/// `set_permission_auto_approve`: whether prompts the rules leave as ask are approved (`once`)
/// without the user; turning it on approves the one open now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetPermissionAutoApprove {
    /// Whether prompts are approved (`once`) without asking.
    pub enabled: bool,
}

/// `set_model`: the model the next turn uses (`provider/id`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetModel {
    /// `provider/model`, for example `anthropic/claude-sonnet-4-5`.
    pub model: String,
}

/// `set_mode`: build (every tool) or plan (read-only tools and `update_plan`) for the next request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetMode {
    /// `build` (every tool) or `plan` (read-only tools and `update_plan`).
    pub mode: Mode,
}

/// `set_thinking`: how much the model reasons before it answers, from the next request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetThinking {
    /// The new reasoning effort.
    pub thinking: Thinking,
}

/// `compact`: summarize the older conversation now, so later requests carry less.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Compact {
    /// Chosen by the client; echoed on `compaction_ended`.
    pub request_id: String,
    /// Extra guidance for the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}
