//! The stacks machine: `preview_stack`/`open_stack`, `plan_restack`/`restack`. Each runs a
//! pure flow from `crate::stack` one command at a time on the step runner, and the machine
//! keeps what must outlive a flow: the stack `commit_review_chapters` made last, previews
//! waiting for (another) confirmation, and the one plan that may be pushed.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Add;
use std::time::{Duration, Instant};

use super::outbox::Outbox;
use super::owners::Owner;
use super::step_runner::{Advance, Shell, StepRunner};
use crate::effects::Input;
use crate::protocol::events::{Event, RequestFailed};
use crate::protocol::github::{GithubState, WorkspaceUpdated};
use crate::protocol::stack::{
    OpenStack, PlanRestack, PreviewStack, Restack, RestackFailed, RestackPlan, RestackPlanned,
    Restacked, StackOpenFailed, StackOpened, StackPreview,
};
use crate::stack::open::{OpenFlow, Opened};
use crate::stack::plan_flow::{PlanFlow, Planned};
use crate::stack::preview::{CommittedBranch, PreviewFlow};
use crate::stack::restack::{RestackFlow, Restacking};
use crate::steps::{Flow, Next, Ran};

#[cfg(test)]
mod tests;

/// A flow under way, with whom it answers.
#[derive(Debug)]
enum Running {
    Preview {
        request_id: String,
        flow: PreviewFlow,
    },
    Open {
        request_id: String,
        flow: OpenFlow,
    },
    Plan {
        request_id: String,
        flow: PlanFlow,
    },
    Restack {
        plan_id: String,
        request_id: Option<String>,
        flow: Box<RestackFlow>,
    },
}

/// The plan `restack` may confirm.
#[derive(Debug)]
enum PlanSlot {
    Ready { id: String, planned: Planned },
    Running { id: String },
    Spent { id: String },
}

/// The stack part of the session. Time is whatever the caller measures deadlines in
/// (`Instant` in a session), so the machine is driven without a clock.
#[derive(Debug)]
pub(super) struct Stacks<At = Instant> {
    flows: StepRunner<Running, At>,
    /// The stack `commit_review_chapters{stack: true}` made last.
    committed: Option<Vec<CommittedBranch>>,
    /// Previewed stacks not (fully) open, by request id.
    openings: BTreeMap<String, OpenFlow>,
    /// Request ids whose stack is open.
    opened: BTreeSet<String>,
    /// The newest plan and where it stands (ready, being pushed, spent): the only one `restack` can
    /// confirm; a newer `plan_restack` replaces it.
    plan: Option<PlanSlot>,
    /// Every plan id handed out, to tell a replaced plan from an unknown one.
    issued: BTreeSet<String>,
}

impl<At> Default for Stacks<At> {
    fn default() -> Self {
        Self {
            flows: StepRunner::default(),
            committed: None,
            openings: BTreeMap::new(),
            opened: BTreeSet::new(),
            plan: None,
            issued: BTreeSet::new(),
        }
    }
}

impl<At: Copy + Ord> Stacks<At> {
    /// The earliest deadline of a running command.
    pub(super) fn deadline(&self) -> Option<At> {
        self.flows.deadline()
    }

    /// Remembers the stack a commit of chapters made.
    pub(super) fn committed(&mut self, branches: Vec<CommittedBranch>) {
        self.committed = Some(branches);
    }
}

/// `now`, and the wall clock then (ms since the Unix epoch), which a plan's id carries.
pub(super) type When<At> = (At, u64);

/// What the workspace probe last found, as the stacks need it: stacks stand on the default
/// branch, start from the current branch, and are refused when gh cannot work.
#[derive(Debug, Clone)]
pub(super) struct Workspace<'a> {
    /// The workspace as last sent.
    pub(super) last: Option<&'a WorkspaceUpdated>,
    /// The repository's default branch, once the probe read it.
    pub(super) default_branch: Option<&'a str>,
    /// Why gh cannot work, when the last probe found it not ready.
    pub(super) not_ready: Option<String>,
}

impl Workspace<'_> {
    /// Why the default branch is not known.
    fn no_default_branch(&self) -> String {
        match &self.not_ready {
            Some(reason) => reason.clone(),
            None => "the repository's default branch is not known yet (gh repo view has not answered): refresh_workspace, then ask again".into(),
        }
    }
}

impl<At: Copy + Ord + Add<Duration, Output = At>> Stacks<At> {
    /// `preview_stack`; `true` when the workspace must be probed again.
    #[must_use]
    pub(super) fn preview(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        at: When<At>,
        preview: PreviewStack,
        workspace: &Workspace<'_>,
    ) -> bool {
        if self.opening(&preview.request_id) {
            outbox.emit(Event::GithubReadFailed(RequestFailed {
                reason: format!(
                    "the stack of {} is being opened: wait for its answer",
                    preview.request_id
                ),
                request_id: preview.request_id,
            }));
            return false;
        }
        let Some(default_branch) = workspace.default_branch.map(str::to_owned) else {
            outbox.emit(Event::GithubReadFailed(RequestFailed {
                request_id: preview.request_id,
                reason: workspace.no_default_branch(),
            }));
            return false;
        };
        let current = workspace.last.and_then(|w| w.branch.clone());
        let flow = PreviewFlow::new(
            preview.branches,
            self.committed.as_deref(),
            default_branch,
            current,
        );
        let request_id = preview.request_id;
        self.start(outbox, shell, at, Running::Preview { request_id, flow })
    }

    /// `open_stack`: refused when there is nothing (left) to confirm; `true` when the
    /// workspace must be probed again.
    pub(super) fn open(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        at: When<At>,
        open: OpenStack,
    ) -> Result<bool, String> {
        let request_id = open.request_id;
        if self.opened.contains(&request_id) {
            return Err(format!(
                "the stack of {request_id} is open already (a stack opens once)"
            ));
        }
        let Some(mut flow) = self.openings.remove(&request_id) else {
            return Err(if self.opening(&request_id) {
                format!("the stack of {request_id} is being opened")
            } else {
                "no preview to confirm: send preview_stack with this request_id first".into()
            });
        };
        flow.confirm(
            &open.titles.unwrap_or_default(),
            &open.descriptions.unwrap_or_default(),
            open.draft.unwrap_or(false),
        );
        Ok(self.start(outbox, shell, at, Running::Open { request_id, flow }))
    }

    /// Whether an `open_stack` of `request_id` is running.
    fn opening(&self, request_id: &str) -> bool {
        self.flows
            .flows()
            .any(|r| matches!(r, Running::Open { request_id: r, .. } if r == request_id))
    }

    /// `plan_restack`: always answered by `restack_planned`, with a plan or a refusal.
    #[must_use]
    pub(super) fn plan(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        at: When<At>,
        plan: PlanRestack,
        workspace: &Workspace<'_>,
    ) -> bool {
        let request_id = plan.request_id;
        let refusal = match (workspace.last, workspace.default_branch) {
            _ if matches!(self.plan, Some(PlanSlot::Running { .. })) => {
                Some("a restack is being pushed: plan again after its answer".into())
            }
            _ if workspace.not_ready.is_some() => workspace.not_ready.clone(),
            (Some(w), Some(_))
                if plan
                    .repository
                    .as_ref()
                    .is_some_and(|r| w.repository.as_ref() != Some(r)) =>
            {
                Some(format!(
                    "only the checkout's own repository ({}) can be restacked here",
                    w.repository.as_deref().unwrap_or("none")
                ))
            }
            (_, None) => Some(workspace.no_default_branch()),
            _ => None,
        };
        if let Some(refusal) = refusal {
            self.planned(outbox, at.1, request_id, Err(refusal));
            return false;
        }
        let default_branch = workspace.default_branch.unwrap_or_default().to_owned();
        let flow = PlanFlow::new(default_branch);
        self.start(outbox, shell, at, Running::Plan { request_id, flow })
    }

    /// `restack`: refused unless `plan_id` is the newest plan, not pushed, and no turn runs
    /// (`turn_running`); `true` when the workspace must be probed again.
    pub(super) fn restack(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        at: When<At>,
        restack: Restack,
        turn_running: bool,
    ) -> Result<bool, String> {
        let plan_id = restack.plan_id;
        // The agent may be changing the files of a branch that would move under it.
        if turn_running {
            return Err("a turn is running: restack after it ends".into());
        }
        let slot = self.plan.take();
        let planned = match slot {
            Some(PlanSlot::Ready { id, planned }) if id == plan_id => planned,
            other => {
                let reason = match &other {
                    Some(PlanSlot::Running { id }) if *id == plan_id => {
                        format!("plan {plan_id} is being pushed")
                    }
                    Some(PlanSlot::Spent { id }) if *id == plan_id => format!(
                        "plan {plan_id} was pushed already (a plan is pushed once): plan_restack again"
                    ),
                    _ if self.issued.contains(&plan_id) => {
                        format!("plan {plan_id} was replaced by a newer plan")
                    }
                    _ => format!("no plan {plan_id}: plan_restack first"),
                };
                self.plan = other;
                return Err(reason);
            }
        };
        self.plan = Some(PlanSlot::Running {
            id: plan_id.clone(),
        });
        let flow = Box::new(RestackFlow::new(plan_id.clone(), planned));
        let request_id = restack.request_id;
        let running = Running::Restack {
            plan_id,
            request_id,
            flow,
        };
        Ok(self.start(outbox, shell, at, running))
    }

    /// Takes a command's end for its flow; `true` when the workspace must be probed again.
    #[must_use]
    pub(super) fn handle(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        at: When<At>,
        input: &Input<'_>,
    ) -> bool {
        self.flows
            .handle(input)
            .is_some_and(|advance| self.advance(outbox, shell, at, advance))
    }

    /// Kills stack commands past their deadline (their exit comes back as a failure).
    pub(super) fn handle_timeout(&mut self, outbox: &mut Outbox, now: At) {
        self.flows.kill_overdue(outbox, now);
    }

    fn start(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        at: When<At>,
        running: Running,
    ) -> bool {
        let advance = self.flows.start(running);
        self.advance(outbox, shell, at, advance)
    }

    /// Runs the flow's next command, or answers.
    fn advance(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        (now, wall_ms): When<At>,
        advance: Advance<Running>,
    ) -> bool {
        (self.flows.drive(outbox, shell, now, Owner::Stacks, advance))
            .is_some_and(|(running, answer)| self.answer(outbox, wall_ms, running, answer))
    }

    /// Answers a flow that ended; `true` after a push (or a failed one).
    fn answer(
        &mut self,
        outbox: &mut Outbox,
        wall_ms: u64,
        running: Running,
        answer: Answer,
    ) -> bool {
        match (running, answer) {
            (Running::Preview { request_id, flow }, Answer::Preview(done)) => match done {
                Ok(drafts) => {
                    let opening = OpenFlow::new(drafts.clone(), flow.heads());
                    self.openings.insert(request_id.clone(), opening);
                    self.opened.remove(&request_id);
                    outbox.emit(Event::StackPreview(Box::new(StackPreview {
                        request_id,
                        pull_requests: drafts,
                    })));
                }
                Err(reason) => {
                    outbox.emit(Event::GithubReadFailed(RequestFailed {
                        request_id,
                        reason,
                    }));
                }
            },
            (Running::Open { request_id, flow }, Answer::Open(done)) => {
                match done {
                    Ok(pull_requests) => {
                        self.opened.insert(request_id.clone());
                        outbox.emit(Event::StackOpened(StackOpened {
                            request_id,
                            pull_requests,
                        }));
                    }
                    Err(failure) => {
                        let failed = StackOpenFailed {
                            request_id: request_id.clone(),
                            reason: failure.reason,
                            opened: flow.opened(),
                            pending: flow.pending().collect(),
                        };
                        // A preview made meanwhile under the same id is the newer one.
                        self.openings.entry(request_id).or_insert(flow);
                        outbox.emit(Event::StackOpenFailed(failed));
                    }
                }
                return true;
            }
            (Running::Plan { request_id, .. }, Answer::Plan(done)) => {
                if matches!(self.plan, Some(PlanSlot::Running { .. })) {
                    // A restack started meanwhile: this plan would race it.
                    let raced =
                        "a restack was confirmed while this plan was made: plan again after it";
                    self.planned(outbox, wall_ms, request_id, Err(raced.into()));
                } else {
                    self.planned(outbox, wall_ms, request_id, done);
                }
            }
            (
                Running::Restack {
                    plan_id,
                    request_id,
                    flow,
                },
                Answer::Restack(done),
            ) => {
                match done {
                    Ok(pushed) => {
                        self.plan = Some(PlanSlot::Spent {
                            id: plan_id.clone(),
                        });
                        outbox.emit(Event::Restacked(Restacked {
                            plan_id,
                            request_id,
                            branches: pushed.branches,
                            retarget_failed: pushed.retarget_failed,
                        }));
                    }
                    Err(stopped) => {
                        self.plan = Some(if stopped.push_started {
                            PlanSlot::Spent {
                                id: plan_id.clone(),
                            }
                        } else {
                            PlanSlot::Ready {
                                id: plan_id.clone(),
                                planned: flow.into_planned(),
                            }
                        });
                        outbox.emit(Event::RestackFailed(RestackFailed {
                            plan_id,
                            request_id,
                            reason: stopped.reason,
                        }));
                    }
                }
                return true;
            }
            // A flow answers in its own kind.
            (_, _) => {}
        }
        false
    }

    /// Answers `plan_restack`: a new plan replaces the older one.
    fn planned(
        &mut self,
        outbox: &mut Outbox,
        wall_ms: u64,
        request_id: String,
        done: Result<Planned, String>,
    ) {
        let answer = match done {
            Ok(planned) => {
                // Unique across sessions and resumes too: the id names the backup refs.
                let id = format!("restack-{wall_ms}-{}", self.issued.len() + 1);
                self.issued.insert(id.clone());
                let plan = RestackPlan {
                    id: id.clone(),
                    branches: planned.moves.clone(),
                };
                self.plan = Some(PlanSlot::Ready { id, planned });
                RestackPlanned {
                    request_id,
                    plan: Some(plan),
                    refusal: None,
                }
            }
            Err(refusal) => RestackPlanned {
                request_id,
                plan: None,
                refusal: Some(refusal),
            },
        };
        outbox.emit(Event::RestackPlanned(Box::new(answer)));
    }
}

/// A stack flow's answer, by flow: a preview, an opening, a plan, a restack.
#[derive(Debug)]
enum Answer {
    Preview(Result<Vec<crate::protocol::stack::StackDraft>, String>),
    Open(Opened),
    Plan(Result<Planned, String>),
    Restack(Restacking),
}

impl Flow for Running {
    type Output = Answer;

    fn start(&mut self) -> Next<Answer> {
        match self {
            Self::Preview { flow, .. } => flow.start().map(Answer::Preview),
            Self::Open { flow, .. } => flow.start().map(Answer::Open),
            Self::Plan { flow, .. } => flow.start().map(Answer::Plan),
            Self::Restack { flow, .. } => flow.start().map(Answer::Restack),
        }
    }

    fn on(&mut self, ran: Ran) -> Next<Answer> {
        match self {
            Self::Preview { flow, .. } => flow.on(ran).map(Answer::Preview),
            Self::Open { flow, .. } => flow.on(ran).map(Answer::Open),
            Self::Plan { flow, .. } => flow.on(ran).map(Answer::Plan),
            Self::Restack { flow, .. } => flow.on(ran).map(Answer::Restack),
        }
    }
}

/// Why GitHub work cannot run, from the dock's state.
pub(super) fn describe_state(state: GithubState) -> String {
    match state {
        GithubState::Ready => "gh is ready".into(),
        GithubState::Missing => {
            "gh is not installed or not on PATH; install GitHub CLI from https://cli.github.com"
                .into()
        }
        GithubState::Unauthenticated => "gh is not logged in: run `gh auth login`".into(),
        GithubState::NoRemote => {
            "this checkout has no GitHub repository (no remote gh knows)".into()
        }
    }
}
