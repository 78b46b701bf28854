//! The [`Ledger`]: what the frames so far promise (turns, prompts, tool calls, compactions,
//! requests answered later, files held open), checked as each frame and effect passes.

use std::collections::{BTreeMap, BTreeSet};

use crate::effects::Output;
use crate::protocol::events::{
    Event, GuidedReviewLoaded, RequestFailed, ReviewChaptersCommitted, ReviewSessionSaved,
};
use crate::protocol::github::{
    GithubDone, PullRequestOpened, PullRequestsListed, ReviewThreadResolved,
};
use crate::protocol::stack::{RestackFailed, Restacked};

/// What the frames so far promise, checked as each one arrives: one `turn_ended` per
/// `turn_started`, every prompt settled exactly once and before its turn ends, every tool call
/// finished, one `compaction_ended` per `compaction_started` (inside its turn, or outside any
/// turn for `compact`), no answer shown while compacting, and no tool work or model request
/// outside a turn or compaction (so none after an interrupt).
#[derive(Debug, Default)]
pub(super) struct Ledger {
    /// The turn under way, by id.
    pub(super) open_turn: Option<String>,
    /// Review and GitHub requests not answered yet, by request id (a count, as ids repeat).
    pub(super) awaiting: BTreeMap<String, u32>,
    /// Every request id ever counted in `awaiting`.
    pub(super) counted: BTreeSet<String>,
    /// `(request_id, turn_id)` of the compaction under way.
    open_compaction: Option<(Option<String>, Option<String>)>,
    turns_seen: BTreeSet<String>,
    open_prompts: BTreeSet<String>,
    settled_prompts: BTreeSet<String>,
    open_calls: BTreeSet<String>,
    /// Files opened for tools and not yet read, replaced or closed: what for, and whether io
    /// has answered that it holds them.
    pub(super) open_files: BTreeMap<crate::effects::EffectId, (crate::effects::OpenFor, bool)>,
    /// True while `Checked::new` drains the start-up outputs: their probes belong to no turn.
    pub(super) starting: bool,
}

impl Ledger {
    pub(super) fn observe(&mut self, event: &Event) {
        let in_turn = self.open_turn.is_some();
        match event {
            Event::TurnStarted(t) => {
                assert!(
                    self.open_compaction.is_none(),
                    "turn {} started during a compaction",
                    t.turn_id
                );
                assert!(
                    !in_turn,
                    "turn {} started inside {:?}",
                    t.turn_id, self.open_turn
                );
                assert!(self.turns_seen.insert(t.turn_id.clone()), "turn id reused");
                self.open_turn = Some(t.turn_id.clone());
            }
            Event::TurnEnded(t) => {
                // An open still on its way is closed when its answer comes (checked there).
                assert!(
                    self.open_files.values().all(|(_, answered)| !answered),
                    "turn {} ended with files held open: {:?}",
                    t.turn_id,
                    self.open_files
                );
                assert!(
                    self.open_compaction.is_none(),
                    "turn {} ended with its compaction open",
                    t.turn_id
                );
                assert_eq!(
                    self.open_turn.take().as_ref(),
                    Some(&t.turn_id),
                    "turn_ended without its turn_started"
                );
                assert!(
                    self.open_prompts.is_empty(),
                    "turn ended with prompts open: {:?}",
                    self.open_prompts
                );
                assert!(
                    self.open_calls.is_empty(),
                    "turn ended with tool calls open: {:?}",
                    self.open_calls
                );
            }
            Event::CompactionStarted(c) => {
                assert!(
                    self.open_compaction.is_none(),
                    "a compaction inside another"
                );
                assert_eq!(
                    c.turn_id, self.open_turn,
                    "a compaction belongs to its turn"
                );
                assert_eq!(c.request_id.is_some(), c.turn_id.is_none());
                self.open_compaction = Some((c.request_id.clone(), c.turn_id.clone()));
            }
            Event::CompactionEnded(c) => {
                assert_eq!(
                    self.open_compaction.take(),
                    Some((c.request_id.clone(), c.turn_id.clone())),
                    "compaction_ended without its compaction_started"
                );
                assert!(c.error.is_some() || c.tokens_after > 0);
            }
            Event::GuidedReviewLoaded(GuidedReviewLoaded { request_id, .. })
            | Event::GuidedReviewFailed(RequestFailed { request_id, .. })
            | Event::ReviewSessionSaveFailed(RequestFailed { request_id, .. })
            | Event::ReviewChaptersCommitFailed(RequestFailed { request_id, .. })
            | Event::ReviewChaptersCommitted(ReviewChaptersCommitted { request_id, .. })
            | Event::ReviewSessionSaved(ReviewSessionSaved {
                request_id: Some(request_id),
                ..
            })
            | Event::GithubReadFailed(RequestFailed { request_id, .. })
            | Event::PullRequestCommentPostFailed(RequestFailed { request_id, .. })
            | Event::ReviewThreadReplyFailed(RequestFailed { request_id, .. })
            | Event::ReviewThreadResolveFailed(RequestFailed { request_id, .. })
            | Event::PullRequestEditFailed(RequestFailed { request_id, .. })
            | Event::PullRequestMergeFailed(RequestFailed { request_id, .. })
            | Event::PullRequestsListed(PullRequestsListed { request_id, .. })
            | Event::PullRequestCommentPosted(GithubDone { request_id, .. })
            | Event::ReviewThreadReplied(GithubDone { request_id, .. })
            | Event::PullRequestEdited(GithubDone { request_id, .. })
            | Event::PullRequestMerged(GithubDone { request_id, .. })
            | Event::ReviewThreadResolved(ReviewThreadResolved { request_id, .. }) => {
                self.answered(request_id);
            }
            Event::PullRequestFetched(fetched) => self.answered(&fetched.request_id),
            Event::PullRequestPreview(preview) => self.answered(&preview.request_id),
            Event::PullRequestReviewPreview(preview) => self.answered(&preview.request_id),
            Event::PullRequestReviewPosted(GithubDone { request_id, .. })
            | Event::PullRequestReviewPostFailed(RequestFailed { request_id, .. }) => {
                self.answered(request_id);
            }
            Event::PullRequestOpened(PullRequestOpened { request_id, .. })
            | Event::PullRequestOpenFailed(RequestFailed { request_id, .. }) => {
                self.answered(request_id);
            }
            Event::StackPreview(preview) => self.answered(&preview.request_id),
            Event::StackOpened(opened) => self.answered(&opened.request_id),
            Event::StackOpenFailed(failed) => self.answered(&failed.request_id),
            Event::RestackPlanned(planned) => self.answered(&planned.request_id),
            Event::Restacked(Restacked {
                request_id: Some(request_id),
                ..
            })
            | Event::RestackFailed(RestackFailed {
                request_id: Some(request_id),
                ..
            }) => self.answered(request_id),
            Event::ActionRejected(r) => {
                if let Some(id) = &r.request_id
                    && self.awaiting.contains_key(id)
                {
                    self.answered(id);
                }
            }
            Event::PermissionRequested(p) => self.open_prompt(&p.id),
            Event::QuestionAsked(q) => self.open_prompt(&q.id),
            Event::PermissionResolved(p) => self.settle_prompt(&p.id),
            Event::QuestionResolved(q) => self.settle_prompt(&q.id),
            Event::ToolStarted(t) => {
                assert!(in_turn, "tool_started outside a turn");
                assert!(self.open_calls.insert(t.call_id.clone()), "call id reused");
            }
            Event::ToolFinished(t) => {
                assert!(
                    self.open_calls.remove(&t.call_id),
                    "tool_finished for {} which is not running",
                    t.call_id
                );
            }
            Event::TokenDelta(_) | Event::ThinkingDelta(_) => {
                assert!(in_turn, "{} outside a turn", event.kind());
                assert!(self.open_compaction.is_none(), "a summary was shown");
            }
            Event::ModelRetrying(_) => {
                assert!(
                    in_turn || self.open_compaction.is_some(),
                    "a retry of nothing"
                );
            }
            Event::ToolOutputDelta(_)
            | Event::TurnUsage(_)
            | Event::TurnSteered(_)
            | Event::PlanUpdated(_)
            | Event::FilesChanged(_) => {
                assert!(in_turn, "{} outside a turn", event.kind());
            }
            _ => {}
        }
    }

    pub(super) fn observe_effect(&mut self, effect: &Output) {
        use crate::effects::OpenFor;
        match effect {
            Output::OpenFile { id, purpose, .. } => {
                assert!(
                    self.open_files.insert(*id, (*purpose, false)).is_none(),
                    "{id:?} opened twice"
                );
            }
            Output::ReadOpened { handle, .. } => match self.open_files.get(handle) {
                Some((OpenFor::Read, true)) => {
                    self.open_files.remove(handle);
                }
                Some((OpenFor::Write, true)) => {}
                _ => panic!("{effect:?} of a file not open"),
            },
            Output::ReplaceOpened { handle, .. } => {
                let purpose = self.open_files.remove(handle);
                assert_eq!(purpose, Some((OpenFor::Write, true)), "{effect:?}");
            }
            Output::CloseOpened { handle } => {
                assert!(
                    self.open_files.remove(handle).is_some(),
                    "{effect:?} of a file not open"
                );
            }
            _ => {}
        }
        let is_tool_work = matches!(
            effect,
            Output::HttpRequest { .. }
                | Output::OpenFile { .. }
                | Output::ReadOpened { .. }
                | Output::ReplaceOpened { .. }
                | Output::WriteFile { .. }
                | Output::Search { .. }
                | Output::ListFiles { .. }
                | Output::Spawn { .. }
                | Output::ReadFile { .. }
        );
        // The start-up probes (git status, AGENTS.md, .env files) run before any turn; a review
        // request works (reads, git) until it is answered, and review progress is saved any time.
        // GitHub's probe (git status, then gh) also runs on refresh and on a poll: only the
        // agent's `bash` is a tool.
        let review_save =
            matches!(effect, Output::WriteFile { path, .. } if path.contains("/reviews/"));
        let not_a_tool = matches!(effect, Output::Spawn { program, .. } if program != "bash");
        if is_tool_work && !self.starting && !review_save && !not_a_tool && self.awaiting.is_empty()
        {
            assert!(
                self.open_turn.is_some() || self.open_compaction.is_some(),
                "{effect:?} outside a turn"
            );
        }
    }

    fn answered(&mut self, request_id: &str) {
        // Requests fed as raw chunks (not through `Checked::line`) were never counted.
        if !self.counted.contains(request_id) {
            return;
        }
        let count = self
            .awaiting
            .get_mut(request_id)
            .unwrap_or_else(|| panic!("{request_id} answered more often than asked"));
        *count -= 1;
        if *count == 0 {
            self.awaiting.remove(request_id);
        }
    }

    fn open_prompt(&mut self, id: &str) {
        assert!(self.open_turn.is_some(), "prompt {id} outside a turn");
        assert!(
            !self.settled_prompts.contains(id) && self.open_prompts.insert(id.to_owned()),
            "prompt id {id} reused"
        );
    }

    fn settle_prompt(&mut self, id: &str) {
        assert!(
            self.open_prompts.remove(id),
            "prompt {id} settled twice or never asked"
        );
        self.settled_prompts.insert(id.to_owned());
    }
}
