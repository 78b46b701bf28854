//! `plan_restack` as a flow: fetch origin, read the pull requests, the branches and the commits
//! between them, plan (see [`super::restack_planner`]), then note what a confirmation must find again:
//! where each moving branch is checked out, and how git can rebuild branches here.

use std::collections::BTreeMap;

use super::git;
use super::graph::Graph;
use super::refs::{git_version, has_replay, parse_refs, parse_worktrees};
use super::restack_planner::{Facts, PullRef, parse_pulls, parse_reflogs, plan};
use crate::github::gh;
use crate::protocol::stack::RestackMove;
use crate::steps::{Cmd, Flow, Next, Ran};

/// A plan with what confirming it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The moving branches, bottom first.
    pub moves: Vec<RestackMove>,
    /// Each moving branch's pull request's base now.
    pub old_base: BTreeMap<String, String>,
    /// The worktree each moving branch is checked out in, if any.
    pub checked_out: BTreeMap<String, String>,
    /// Where a private worktree can go when git has no `replay` (git < 2.44); `None` when it
    /// has.
    pub scratch_dir: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Fetch,
    Pulls,
    Refs,
    Reflogs,
    Graph,
    Worktrees,
    Version,
    CommonDir,
}

/// A plan being made.
#[derive(Debug)]
pub struct PlanFlow {
    facts: Facts,
    planned: Option<Planned>,
    phase: Phase,
}

impl PlanFlow {
    /// A plan against origin's `default_branch`.
    pub fn new(default_branch: String) -> Self {
        Self {
            facts: Facts {
                default_branch,
                ..Facts::default()
            },
            planned: None,
            phase: Phase::Fetch,
        }
    }

    fn pull(&self, number: u64) -> Option<&PullRef> {
        self.facts.pulls.iter().find(|p| p.number == number)
    }

    /// The commits between the tips and the bases, read once the reflogs are known.
    fn graph_step(&self) -> (Phase, Cmd) {
        let tips = self.facts.graph_tips();
        let bases = self.facts.graph_bases();
        (Phase::Graph, Cmd::git(git::graph(&tips, &bases)))
    }

    fn done(&mut self) -> Next<Result<Planned, String>> {
        match self.planned.take() {
            Some(planned) => Next::Done(Ok(planned)),
            None => Next::Done(Err("no plan was made".into())),
        }
    }
}

impl Flow for PlanFlow {
    type Output = Result<Planned, String>;

    /// The first command.
    fn start(&mut self) -> Next<Self::Output> {
        Next::Run(Cmd::git(git::fetch()))
    }

    /// Takes the last command's end.
    fn on(&mut self, ran: Ran) -> Next<Self::Output> {
        let stdout = match ran.result {
            Ok(stdout) => stdout,
            // Reflogs only add candidates: without them the plan is made from the heads.
            Err(_) if self.phase == Phase::Reflogs => String::new(),
            Err(reason) => {
                let what = match self.phase {
                    Phase::Fetch => "git fetch origin",
                    Phase::Pulls => "gh pr list",
                    Phase::Refs => "git for-each-ref",
                    Phase::Reflogs => "git log -g",
                    Phase::Graph => "git rev-list",
                    Phase::Worktrees => "git worktree list",
                    Phase::Version => "git version",
                    Phase::CommonDir => "git rev-parse --git-common-dir",
                };
                return Next::Done(Err(format!("{what}: {reason}")));
            }
        };
        let (phase, cmd) = match self.phase {
            Phase::Fetch => (Phase::Pulls, Cmd::gh(gh::stack_pulls("all"))),
            Phase::Pulls => match parse_pulls(&stdout) {
                Ok(pulls) => {
                    self.facts.pulls = pulls;
                    (Phase::Refs, Cmd::git(git::branches()))
                }
                Err(reason) => return Next::Done(Err(reason)),
            },
            Phase::Refs => {
                let refs = parse_refs(&stdout);
                self.facts.local = refs.local;
                self.facts.remote = refs.remote;
                let reflogs = self.facts.reflog_refs();
                if reflogs.is_empty() {
                    // No branch of a pull request is here or on origin: no history to read,
                    // so the step after the reflogs comes straight away.
                    self.graph_step()
                } else {
                    (Phase::Reflogs, Cmd::git(git::reflogs(&reflogs)))
                }
            }
            Phase::Reflogs => {
                let (local, remote) = parse_reflogs(&stdout);
                self.facts.local_reflog = local;
                self.facts.remote_reflog = remote;
                self.graph_step()
            }
            Phase::Graph => {
                self.facts.graph = Graph::parse(&stdout);
                let moves = match plan(&self.facts) {
                    Ok(moves) => moves,
                    Err(refusal) => return Next::Done(Err(refusal)),
                };
                let old_base = moves
                    .iter()
                    .filter_map(|m| {
                        let pull = self.pull(m.pull_request)?;
                        Some((m.branch.clone(), pull.base_ref_name.clone()))
                    })
                    .collect();
                self.planned = Some(Planned {
                    moves,
                    old_base,
                    checked_out: BTreeMap::new(),
                    scratch_dir: None,
                });
                (Phase::Worktrees, Cmd::git(git::worktrees()))
            }
            Phase::Worktrees => {
                let at = parse_worktrees(&stdout);
                if let Some(planned) = self.planned.as_mut() {
                    for m in &planned.moves {
                        if let Some(paths) = at.get(&m.branch).filter(|p| p.len() > 1) {
                            return Next::Done(Err(format!(
                                "{} is checked out in {} worktrees ({}): a restack cannot move it under all of them",
                                m.branch,
                                paths.len(),
                                paths.join(", ")
                            )));
                        }
                    }
                    planned.checked_out = planned
                        .moves
                        .iter()
                        .filter_map(|m| {
                            Some((m.branch.clone(), at.get(&m.branch)?.first()?.clone()))
                        })
                        .collect();
                }
                (Phase::Version, Cmd::git(git::version()))
            }
            Phase::Version => match git_version(&stdout) {
                Some(version) if has_replay(version) => return self.done(),
                Some(_) => (Phase::CommonDir, Cmd::git(git::common_dir())),
                None => return Next::Done(Err(format!("git version printed {stdout:?}"))),
            },
            Phase::CommonDir => {
                if let Some(planned) = self.planned.as_mut() {
                    planned.scratch_dir = Some(stdout.trim().to_owned());
                }
                return self.done();
            }
        };
        self.phase = phase;
        Next::Run(cmd)
    }
}

#[cfg(test)]
mod tests;
