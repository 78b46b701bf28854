//! Stacks' frames (design §6 `preview_stack`/`open_stack`, §7 restack): a stack of branches
//! opened as a stack of pull requests, and the plan that moves it when its base moves.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `preview_stack`: what opening a stack of pull requests for a chain of branches would do, without
/// doing it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreviewStack {
    /// Echoed on the preview; `open_stack` confirms with the same id.
    pub request_id: String,
    /// The branches, bottom first. Default: the stack `commit_review_chapters` made last, else
    /// the local branches on HEAD's line down to the default branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branches: Option<Vec<String>>,
}

/// `open_stack`: confirms the preview of the same `request_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OpenStack {
    /// The `request_id` of the `stack_preview` being confirmed.
    pub request_id: String,
    /// Titles instead of the drafted ones, by branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub titles: Option<BTreeMap<String, String>>,
    /// Descriptions instead of the drafted ones, by branch (luxe appends the stack's list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptions: Option<BTreeMap<String, String>>,
    /// Open them as drafts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<bool>,
}

/// `stack_preview`: what `open_stack` will open, bottom first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackPreview {
    /// The `request_id` of the `preview_stack` this answers; `open_stack` confirms with it.
    pub request_id: String,
    /// One per branch, bottom first.
    pub pull_requests: Vec<StackDraft>,
}

/// One drafted pull request of a stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackDraft {
    /// Its head: the local branch, pushed to origin under the same name when the stack opens.
    pub branch: String,
    /// Its base: the branch below, or the default branch for the bottom one.
    pub base: String,
    /// The drafted title: the chapter's title, else the single commit's subject, else the branch
    /// name; `open_stack`'s `titles` can replace it.
    pub title: String,
    /// The drafted description, listing the whole stack.
    pub description: String,
}

/// A branch of a stack waiting for its pull request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StackPending {
    /// Its head: the local branch still without a pull request.
    pub branch: String,
    /// The branch its pull request will be opened on: the branch below, or the default
    /// branch for the bottom one.
    pub base: String,
}

/// An open pull request of a stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StackPullRequest {
    /// Its head: the local branch, pushed to origin under the same name.
    pub branch: String,
    /// The pull request's base: the branch below, or the default branch for the bottom one.
    pub base: String,
    /// The pull request's number on GitHub (`#N`).
    pub number: u64,
    /// The pull request's page on GitHub.
    pub url: String,
}

/// `stack_opened`: the answer to `open_stack`: the pull requests opened or found, bottom first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackOpened {
    /// The `request_id` shared by the preview and the `open_stack` that confirmed it.
    pub request_id: String,
    /// Bottom first.
    pub pull_requests: Vec<StackPullRequest>,
}

/// `stack_open_failed`: what opened and what did not; confirming again finishes the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackOpenFailed {
    /// The `request_id` shared by the preview and the `open_stack` that confirmed it.
    pub request_id: String,
    /// Why it could not be done, in words to show the user.
    pub reason: String,
    /// The pull requests open, bottom first.
    pub opened: Vec<StackPullRequest>,
    /// The branches still without one, bottom first.
    pub pending: Vec<StackPending>,
}

/// `plan_restack`: the rebases that bring each branch of a stack onto its parent again, without
/// running them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanRestack {
    /// Echoed on `restack_planned`.
    pub request_id: String,
    /// `owner/name`; only the checkout's own repository can be restacked here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
}

/// `restack`: pushes the plan of this id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Restack {
    /// The `id` of the plan to push, from `restack_planned`.
    pub plan_id: String,
    /// Echoed on the answer when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// `restack_planned`: a plan, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestackPlanned {
    /// The `request_id` of the `plan_restack` this answers.
    pub request_id: String,
    /// What `restack` would do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<RestackPlan>,
    /// Why there is nothing to confirm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
}

/// A restack plan: the moving branches, bottom first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RestackPlan {
    /// What `restack` names.
    pub id: String,
    /// The moving branches, each after the one it sits on.
    pub branches: Vec<RestackMove>,
}

/// One moving branch of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RestackMove {
    /// The local branch that moves: the head of the open pull request `pull_request`.
    pub branch: String,
    /// The number of its open pull request on GitHub (`#N`).
    pub pull_request: u64,
    /// Where it is now.
    pub old_head: OldHead,
    /// The commit its own commits start after.
    pub old_parent: String,
    /// The branch it will sit on (the base's remote branch, or a branch of the stack).
    pub new_parent: String,
    /// `new_parent`'s commit, when it is not itself moving.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_parent_sha: Option<String>,
    /// The pull request's base after the restack.
    pub new_base: String,
    /// How many commits of its own it carries over.
    pub commits: u32,
}

/// A branch's head before a restack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OldHead {
    /// The commit the branch is at here.
    pub local: String,
    /// The commit the branch is at on origin, if the branch is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
}

/// `restacked`: pushed; what could not follow is in `retarget_failed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Restacked {
    /// The `plan_id` of the `restack` this answers.
    pub plan_id: String,
    /// The `request_id` of the `restack`, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Every moved branch, bottom first.
    pub branches: Vec<RestackedBranch>,
    /// What could not follow the push.
    pub retarget_failed: Vec<RetargetFailed>,
}

/// A branch the restack rebuilt and pushed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RestackedBranch {
    /// The moved branch, by its name here and on origin.
    pub branch: String,
    /// The local branch's commit before the restack, which `backup_ref` keeps reachable.
    pub old_head: String,
    /// Its head now (pushed).
    pub new_head: String,
    /// The backup ref that keeps the old head reachable.
    pub backup_ref: String,
}

/// Where a branch could not follow a pushed restack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RetargetFailed {
    /// The moved branch whose pull request or local ref could not follow.
    pub branch: String,
    /// Its pull request, for a base on GitHub.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
    /// `github` (the pull request's base) or `local` (the branch here).
    #[serde(rename = "where")]
    pub place: RetargetPlace,
    /// Why it could not be done, in words to show the user.
    pub reason: String,
}

/// Which side of a restack could not follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RetargetPlace {
    /// The pull request's base on GitHub.
    Github,
    /// The branch in this repository.
    Local,
}

/// `restack_failed`: nothing was pushed, unless the reason says the push did not finish.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RestackFailed {
    /// The `plan_id` of the `restack` this answers.
    pub plan_id: String,
    /// The `request_id` of the `restack`, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Why it could not be done, in words to show the user.
    pub reason: String,
}
