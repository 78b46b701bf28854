//! Actions that take a default from the workspace (the checkout's repository, branch, default
//! branch or pull request) and arrive before the workspace probe has said what those are: they
//! wait for the probe and are answered from what it found, exactly once, so a client may send
//! them as its first frame after `ready`.

use crate::protocol::actions::Action;
use crate::protocol::codec::Incoming;
use crate::protocol::github::GithubState;
use crate::protocol::guided_review::ReviewTarget;

use super::Github;

impl<At> Github<At> {
    /// Whether `action` must wait for a probe: it needs a workspace fact nobody knows yet and
    /// a probe is running or none has finished. `review` is the open review's target, for
    /// `preview_pull_request_review` of that review.
    pub(in crate::session) fn must_wait(
        &self,
        action: &Action,
        review: Option<&ReviewTarget>,
    ) -> bool {
        if !self.probing && self.last.is_some() {
            // A finished probe is the answer, whatever it found.
            return false;
        }
        let last = self.last.as_ref();
        let repository = last.is_some_and(|w| w.repository.is_some());
        let branch = last.is_some_and(|w| w.branch.is_some());
        let default_branch = self.default_branch.is_some();
        match action {
            Action::GetPullRequest(get) => get.repository.is_none() && !repository,
            Action::PreviewPullRequest(preview) => {
                (preview.head.is_none() && !branch) || (preview.base.is_none() && !default_branch)
            }
            Action::PreviewPullRequestReview(_) => match review {
                // Its head was read when it was loaded; only the repository can be missing.
                Some(ReviewTarget::PullRequest {
                    repository: named, ..
                }) => named.is_none() && !repository,
                Some(ReviewTarget::Branch { .. }) => {
                    let pull = last.and_then(|w| w.pull_request.as_ref());
                    !repository || pull.is_none_or(|p| !self.heads.contains_key(&(None, p.number)))
                }
                // Not a review a pull request review is made of: refused at once.
                _ => false,
            },
            Action::PreviewStack(preview) => {
                !default_branch || (preview.branches.is_none() && !branch)
            }
            Action::PlanRestack(_) => last.is_none() || !default_branch,
            _ => false,
        }
    }

    /// Keeps `incoming` until the running probe ends; `true` when no probe runs, so the caller
    /// starts one.
    pub(in crate::session) fn wait(&mut self, incoming: Incoming) -> bool {
        self.waiting.push(incoming);
        !self.probing
    }

    /// The actions that waited for the probe that just ended, in the order they came.
    pub(super) fn take_waiting(&mut self) -> Vec<Incoming> {
        std::mem::take(&mut self.waiting)
    }

    /// Why a fact the workspace did not give is missing: what the finished probe found when it
    /// found no GitHub, else `missing`.
    pub(in crate::session) fn unknown(&self, missing: &str) -> String {
        match (&self.last, &self.probe_failure) {
            (Some(w), Some(reason)) if w.github != GithubState::Ready => {
                format!("{missing}: the workspace probe failed ({reason})")
            }
            _ => missing.to_owned(),
        }
    }

    /// Why gh is not ready in `state`: the failure the probe met, when one of its commands
    /// failed (a timeout is not a logout), else what the state means.
    pub(in crate::session) fn not_ready(&self, state: GithubState) -> String {
        match &self.probe_failure {
            Some(reason) => format!("the workspace probe failed: {reason}"),
            None => super::super::stack::describe_state(state),
        }
    }
}
