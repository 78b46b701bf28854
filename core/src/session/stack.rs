//! Stacks in the session: `preview_stack`/`open_stack`, `plan_restack`/`restack`. Each runs a
//! pure flow from `crate::stack` one command at a time; the session spawns what the flow asks
//! for and keeps what must outlive it: the stack `commit_review_chapters` made last, previews
//! waiting for (another) confirmation, and the one plan that may be pushed.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use super::Session;
use super::owners::Owner;
use super::step_runner::{Advance, StepRunner};
use crate::effects::Input;
use crate::protocol::events::{Event, RequestFailed};
use crate::protocol::github::GithubState;
use crate::protocol::stack::{
    OpenStack, PlanRestack, PreviewStack, Restack, RestackFailed, RestackPlan, RestackPlanned,
    Restacked, StackOpenFailed, StackOpened, StackPreview,
};
use crate::stack::open::{OpenFlow, Opened};
use crate::stack::plan_flow::{PlanFlow, Planned};
use crate::stack::preview::{CommittedBranch, PreviewFlow};
use crate::stack::restack::{RestackFlow, Restacking};
use crate::steps::{Flow, Next, Ran};

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

/// The stack part of the session.
#[derive(Debug, Default)]
pub(super) struct Stacks {
    flows: StepRunner<Running>,
    /// The stack `commit_review_chapters{stack: true}` made last.
    committed: Option<Vec<CommittedBranch>>,
    /// Previewed stacks not (fully) open, by request id.
    openings: BTreeMap<String, OpenFlow>,
    /// Request ids whose stack is open.
    opened: BTreeSet<String>,
    /// The newest plan.
    plan: Option<PlanSlot>,
    /// Every plan id handed out, to tell a replaced plan from an unknown one.
    issued: BTreeSet<String>,
}

impl Stacks {
    /// The earliest deadline of a running command.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.flows.deadline()
    }

    /// Remembers the stack a commit of chapters made.
    pub(super) fn committed(&mut self, branches: Vec<CommittedBranch>) {
        self.committed = Some(branches);
    }
}

impl Session {
    /// `preview_stack`.
    pub(super) fn preview_stack(&mut self, now: Instant, preview: PreviewStack) {
        if self.stack_opening(&preview.request_id) {
            return self.emit(Event::GithubReadFailed(RequestFailed {
                reason: format!(
                    "the stack of {} is being opened: wait for its answer",
                    preview.request_id
                ),
                request_id: preview.request_id,
            }));
        }
        let Some(default_branch) = self.github.default_branch().map(str::to_owned) else {
            return self.emit(Event::GithubReadFailed(RequestFailed {
                request_id: preview.request_id,
                reason: self.no_default_branch(),
            }));
        };
        let current = self.github.last().and_then(|w| w.branch.clone());
        let flow = PreviewFlow::new(
            preview.branches,
            self.stacks.committed.as_deref(),
            default_branch,
            current,
        );
        let request_id = preview.request_id;
        self.start_flow(now, Running::Preview { request_id, flow });
    }

    /// `open_stack`: refused when there is nothing (left) to confirm.
    pub(super) fn open_stack(&mut self, now: Instant, open: OpenStack) -> Result<(), String> {
        let request_id = open.request_id;
        if self.stacks.opened.contains(&request_id) {
            return Err(format!(
                "the stack of {request_id} is open already (a stack opens once)"
            ));
        }
        let Some(mut flow) = self.stacks.openings.remove(&request_id) else {
            return Err(if self.stack_opening(&request_id) {
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
        self.start_flow(now, Running::Open { request_id, flow });
        Ok(())
    }

    /// Whether an `open_stack` of `request_id` is running.
    fn stack_opening(&self, request_id: &str) -> bool {
        self.stacks
            .flows
            .flows()
            .any(|r| matches!(r, Running::Open { request_id: r, .. } if r == request_id))
    }

    /// `plan_restack`: always answered by `restack_planned`, with a plan or a refusal.
    pub(super) fn plan_restack(&mut self, now: Instant, plan: PlanRestack) {
        let request_id = plan.request_id;
        let refusal = match (self.github.last(), self.github.default_branch()) {
            _ if matches!(self.stacks.plan, Some(PlanSlot::Running { .. })) => {
                Some("a restack is being pushed: plan again after its answer".into())
            }
            (Some(w), _) if w.github != GithubState::Ready => Some(self.github.not_ready(w.github)),
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
            (_, None) => Some(self.no_default_branch()),
            _ => None,
        };
        if let Some(refusal) = refusal {
            return self.planned(now, request_id, Err(refusal));
        }
        let default_branch = self.github.default_branch().unwrap_or_default().to_owned();
        let flow = PlanFlow::new(default_branch);
        self.start_flow(now, Running::Plan { request_id, flow });
    }

    /// `restack`: refused unless `plan_id` is the newest plan, not pushed.
    pub(super) fn restack(&mut self, now: Instant, restack: Restack) -> Result<(), String> {
        let plan_id = restack.plan_id;
        // The agent may be changing the files of a branch that would move under it.
        if self.turn.is_some() {
            return Err("a turn is running: restack after it ends".into());
        }
        let slot = self.stacks.plan.take();
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
                    _ if self.stacks.issued.contains(&plan_id) => {
                        format!("plan {plan_id} was replaced by a newer plan")
                    }
                    _ => format!("no plan {plan_id}: plan_restack first"),
                };
                self.stacks.plan = other;
                return Err(reason);
            }
        };
        self.stacks.plan = Some(PlanSlot::Running {
            id: plan_id.clone(),
        });
        let flow = Box::new(RestackFlow::new(plan_id.clone(), planned));
        let request_id = restack.request_id;
        self.start_flow(
            now,
            Running::Restack {
                plan_id,
                request_id,
                flow,
            },
        );
        Ok(())
    }

    /// Routes a command's end to its flow.
    pub(super) fn stack_effect(&mut self, now: Instant, input: &Input<'_>) {
        if let Some(advance) = self.stacks.flows.handle(input) {
            self.advance_stack(now, advance);
        }
    }

    /// Kills stack commands past their deadline (their exit comes back as a failure).
    pub(super) fn stack_timeout(&mut self, now: Instant) {
        let overdue = self.stacks.flows.overdue(now);
        self.kill_all(overdue);
    }

    fn start_flow(&mut self, now: Instant, running: Running) {
        let advance = self.stacks.flows.start(running);
        self.advance_stack(now, advance);
    }

    /// Runs the flow's next command, or answers.
    fn advance_stack(&mut self, now: Instant, advance: Advance<Running>) {
        if let Some((running, answer)) =
            self.drive(now, Owner::Stacks, |s| &mut s.stacks.flows, advance)
        {
            self.answer_flow(now, running, answer);
        }
    }

    fn answer_flow(&mut self, now: Instant, running: Running, answer: Answer) {
        match (running, answer) {
            (Running::Preview { request_id, flow }, Answer::Preview(done)) => match done {
                Ok(drafts) => {
                    let opening = OpenFlow::new(drafts.clone(), flow.heads());
                    self.stacks.openings.insert(request_id.clone(), opening);
                    self.stacks.opened.remove(&request_id);
                    self.emit(Event::StackPreview(Box::new(StackPreview {
                        request_id,
                        pull_requests: drafts,
                    })));
                }
                Err(reason) => {
                    self.emit(Event::GithubReadFailed(RequestFailed {
                        request_id,
                        reason,
                    }));
                }
            },
            (Running::Open { request_id, flow }, Answer::Open(done)) => {
                match done {
                    Ok(pull_requests) => {
                        self.stacks.opened.insert(request_id.clone());
                        self.emit(Event::StackOpened(StackOpened {
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
                        self.stacks.openings.entry(request_id).or_insert(flow);
                        self.emit(Event::StackOpenFailed(failed));
                    }
                }
                self.probe_workspace(now, true);
            }
            (Running::Plan { request_id, .. }, Answer::Plan(done)) => {
                if matches!(self.stacks.plan, Some(PlanSlot::Running { .. })) {
                    // A restack started meanwhile: this plan would race it.
                    return self.planned(
                        now,
                        request_id,
                        Err(
                            "a restack was confirmed while this plan was made: plan again after it"
                                .into(),
                        ),
                    );
                }
                self.planned(now, request_id, done);
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
                        self.stacks.plan = Some(PlanSlot::Spent {
                            id: plan_id.clone(),
                        });
                        self.emit(Event::Restacked(Restacked {
                            plan_id,
                            request_id,
                            branches: pushed.branches,
                            retarget_failed: pushed.retarget_failed,
                        }));
                    }
                    Err(stopped) => {
                        self.stacks.plan = Some(if stopped.push_started {
                            PlanSlot::Spent {
                                id: plan_id.clone(),
                            }
                        } else {
                            PlanSlot::Ready {
                                id: plan_id.clone(),
                                planned: flow.into_planned(),
                            }
                        });
                        self.emit(Event::RestackFailed(RestackFailed {
                            plan_id,
                            request_id,
                            reason: stopped.reason,
                        }));
                    }
                }
                self.probe_workspace(now, true);
            }
            // A flow answers in its own kind.
            (_, _) => {}
        }
    }

    /// Answers `plan_restack`: a new plan replaces the older one.
    fn planned(&mut self, now: Instant, request_id: String, done: Result<Planned, String>) {
        let answer = match done {
            Ok(planned) => {
                // Unique across sessions and resumes too: the id names the backup refs.
                let id = format!(
                    "restack-{}-{}",
                    self.wall_ms(now),
                    self.stacks.issued.len() + 1
                );
                self.stacks.issued.insert(id.clone());
                let plan = RestackPlan {
                    id: id.clone(),
                    branches: planned.moves.clone(),
                };
                self.stacks.plan = Some(PlanSlot::Ready { id, planned });
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
        self.emit(Event::RestackPlanned(Box::new(answer)));
    }

    /// Why the default branch is not known.
    fn no_default_branch(&self) -> String {
        match self.github.last() {
            Some(w) if w.github != GithubState::Ready => self.github.not_ready(w.github),
            _ => "the repository's default branch is not known yet (gh repo view has not answered): refresh_workspace, then ask again".into(),
        }
    }
}

/// A flow's answer.
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
