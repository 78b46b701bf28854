//! `restack` as a flow. Before anything is written: every moving branch must be where the plan
//! saw it, here and on origin, checked out where it was, and clean wherever it is checked out.
//! Then each branch is rebuilt onto its new parent without touching a work tree luxe does not
//! own (`git replay`; before git 2.44 a private detached worktree and `cherry-pick`), the old
//! heads are kept under `refs/luxe/restack/<plan>/`, and all branches go to origin in one
//! atomic push, each leased on the remote head the plan saw. Only then do the local branches
//! follow and the pull requests' bases change, bottom first; what cannot follow is reported,
//! not undone (the push is what counts).

use std::collections::BTreeMap;

use super::git;
use super::plan_flow::Planned;
use super::refs::{parse_ls_remote, parse_refs, parse_worktrees, replayed_head};
use crate::github::gh;
use crate::protocol::stack::{RestackMove, RestackedBranch, RetargetFailed, RetargetPlace};
use crate::steps::{Cmd, Flow, Next, Ran};

/// A pushed restack: the moved branches and what could not follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    /// Every moved branch, bottom first.
    pub branches: Vec<RestackedBranch>,
    /// What could not follow the push.
    pub retarget_failed: Vec<RetargetFailed>,
}

/// A restack that did not push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// What went wrong, in words: `restack_failed.reason`.
    pub reason: String,
    /// Whether the push was started (then the plan is spent, and GitHub needs a look).
    pub push_started: bool,
}

/// How a restack ended.
pub type Restacking = Result<Pushed, Stopped>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Refs,
    LsRemote,
    Worktrees,
    Status(usize),
    Replay(usize),
    WorktreeAdd(usize),
    Pick(usize),
    Head(usize),
    WorktreeRemove(usize),
    Backup(usize),
    Push,
    LocalCheck(usize),
    Local(usize),
    Retarget(usize),
}

/// A confirmed plan being carried out.
#[derive(Debug)]
pub struct RestackFlow {
    id: String,
    planned: Planned,
    phase: Phase,
    /// The worktrees whose cleanliness is checked.
    worktrees: Vec<String>,
    new_heads: BTreeMap<String, String>,
    backups: Vec<(String, String)>,
    /// A failed cherry-pick's reason, reported once its worktree is gone.
    pick_failed: Option<String>,
    failed: Vec<RetargetFailed>,
}

impl RestackFlow {
    /// Carries out plan `id`.
    pub fn new(id: String, planned: Planned) -> Self {
        let mut worktrees: Vec<String> = planned.checked_out.values().cloned().collect();
        worktrees.sort();
        worktrees.dedup();
        Self {
            id,
            planned,
            phase: Phase::Refs,
            worktrees,
            new_heads: BTreeMap::new(),
            backups: Vec::new(),
            pick_failed: None,
            failed: Vec::new(),
        }
    }

    /// The plan back, for a confirmation after a failure that pushed nothing.
    pub fn into_planned(self) -> Planned {
        self.planned
    }

    /// The ref namespace the old heads are kept under.
    pub fn backup_prefix(&self) -> String {
        format!("refs/luxe/restack/{}", self.id)
    }

    fn moves(&self) -> &[RestackMove] {
        &self.planned.moves
    }

    fn stop(&self, reason: String) -> Next<Restacking> {
        Next::Done(Err(Stopped {
            reason,
            push_started: matches!(
                self.phase,
                Phase::Push | Phase::LocalCheck(_) | Phase::Local(_) | Phase::Retarget(_)
            ),
        }))
    }

    fn unchanged(reason: String) -> String {
        format!("{reason}; nothing was pushed and every branch is as it was")
    }

    /// A command failed in `phase`.
    fn failed(&mut self, phase: Phase, reason: String) -> Next<Restacking> {
        let branch = |i: usize| self.planned.moves[i].branch.clone();
        match phase {
            Phase::Refs => self.stop(format!("git for-each-ref: {reason}")),
            Phase::LsRemote => self.stop(format!("git ls-remote origin: {reason}")),
            Phase::Worktrees => self.stop(format!("git worktree list: {reason}")),
            Phase::Status(k) => self.stop(format!("git status in {}: {reason}", self.worktrees[k])),
            Phase::Replay(i) | Phase::Pick(i) | Phase::WorktreeAdd(i) | Phase::Head(i) => {
                let m = &self.planned.moves[i];
                let why = Self::unchanged(format!(
                    "rebuilding {} onto {} stopped (a conflict?): {reason}",
                    m.branch, m.new_parent
                ));
                if matches!(phase, Phase::Replay(_)) {
                    return self.stop(why);
                }
                // The private worktree goes first, whatever state the cherry-pick left.
                self.pick_failed = Some(why);
                self.run(
                    Phase::WorktreeRemove(i),
                    Cmd::git(git::worktree_remove(&self.scratch())),
                )
            }
            Phase::WorktreeRemove(_) => {
                let why = self.pick_failed.take().unwrap_or_else(|| {
                    Self::unchanged(format!("removing luxe's private worktree: {reason}"))
                });
                self.stop(why)
            }
            Phase::Backup(_) => self.stop(Self::unchanged(format!(
                "keeping the old heads under {}: {reason}",
                self.backup_prefix()
            ))),
            Phase::Push => self.stop(format!(
                "the push did not finish: {reason}. Check the branches on GitHub: the push was atomic and leased on the heads the plan saw, so none should have moved, but luxe cannot be sure; the old heads are kept under {}/",
                self.backup_prefix()
            )),
            Phase::Local(i) | Phase::LocalCheck(i) => {
                self.failed.push(RetargetFailed {
                    branch: branch(i),
                    pull_request: None,
                    place: RetargetPlace::Local,
                    reason,
                });
                self.next_local(i + 1)
            }
            Phase::Retarget(i) => {
                let m = &self.planned.moves[i];
                self.failed.push(RetargetFailed {
                    branch: m.branch.clone(),
                    pull_request: Some(m.pull_request),
                    place: RetargetPlace::Github,
                    reason,
                });
                self.next_retarget(i + 1)
            }
        }
    }

    fn run(&mut self, phase: Phase, cmd: Cmd) -> Next<Restacking> {
        self.phase = phase;
        Next::Run(cmd)
    }

    fn scratch(&self) -> String {
        let dir = self.planned.scratch_dir.as_deref().unwrap_or(".git");
        format!("{dir}/luxe-restack-{}", self.id)
    }

    fn next_status(&mut self, k: usize) -> Next<Restacking> {
        match self.worktrees.get(k) {
            Some(path) => {
                let cmd = Cmd::git(git::status_in(path));
                self.run(Phase::Status(k), cmd)
            }
            None => self.next_rebuild(0),
        }
    }

    fn next_rebuild(&mut self, i: usize) -> Next<Restacking> {
        let Some(m) = self.moves().get(i) else {
            return self.start_backups();
        };
        let Some(onto) = self.onto(m) else {
            return self.stop(Self::unchanged(format!(
                "{}'s new parent {} was not rebuilt",
                m.branch, m.new_parent
            )));
        };
        if onto == m.old_parent {
            let (branch, head) = (m.branch.clone(), m.old_head.local.clone());
            self.new_heads.insert(branch, head);
            return self.next_rebuild(i + 1);
        }
        let cmd = match &self.planned.scratch_dir {
            None => Cmd::git(git::replay(&onto, &m.old_parent, &m.branch)),
            Some(_) => Cmd::git(git::worktree_add(&self.scratch(), &onto)),
        };
        let phase = match self.planned.scratch_dir {
            None => Phase::Replay(i),
            Some(_) => Phase::WorktreeAdd(i),
        };
        self.run(phase, cmd)
    }

    /// The commit `m` goes onto: its new parent's, rebuilt or not.
    fn onto(&self, m: &RestackMove) -> Option<String> {
        m.new_parent_sha
            .clone()
            .or_else(|| self.new_heads.get(&m.new_parent).cloned())
    }

    /// Branch `i` was rebuilt as `new`.
    fn rebuilt(&mut self, i: usize, new: String) -> Next<Restacking> {
        let m = &self.planned.moves[i];
        if self.onto(m).as_deref() == Some(new.as_str()) {
            return self.stop(Self::unchanged(format!(
                "{} would have no commits of its own over {}: GitHub would mark #{} merged",
                m.branch, m.new_parent, m.pull_request
            )));
        }
        self.new_heads.insert(m.branch.clone(), new);
        self.next_rebuild(i + 1)
    }

    fn start_backups(&mut self) -> Next<Restacking> {
        let prefix = self.backup_prefix();
        self.backups = self
            .planned
            .moves
            .iter()
            .flat_map(|m| {
                let local = (
                    format!("{prefix}/local/{}", m.branch),
                    m.old_head.local.clone(),
                );
                let remote = m
                    .old_head
                    .remote
                    .as_ref()
                    .filter(|r| **r != m.old_head.local)
                    .map(|r| (format!("{prefix}/remote/{}", m.branch), r.clone()));
                std::iter::once(local).chain(remote)
            })
            .collect();
        self.next_backup(0)
    }

    fn next_backup(&mut self, k: usize) -> Next<Restacking> {
        if let Some((reference, sha)) = self.backups.get(k) {
            let cmd = Cmd::git(git::create_ref(reference, sha));
            return self.run(Phase::Backup(k), cmd);
        }
        let mut pushes = Vec::new();
        for m in self.moves() {
            // A missing head would make the refspec `:refs/heads/B`, a deletion.
            let Some(new) = self.new_heads.get(&m.branch).filter(|h| !h.is_empty()) else {
                return self.stop(Self::unchanged(format!("{} has no new head", m.branch)));
            };
            pushes.push((m.branch.clone(), new.clone(), m.old_head.remote.clone()));
        }
        self.run(Phase::Push, Cmd::git(git::push_leased(&pushes)))
    }

    fn next_local(&mut self, i: usize) -> Next<Restacking> {
        let Some(m) = self.moves().get(i) else {
            return self.next_retarget(0);
        };
        let new = self.new_heads.get(&m.branch).cloned().unwrap_or_default();
        if new == m.old_head.local {
            return self.next_local(i + 1);
        }
        match self.planned.checked_out.get(&m.branch) {
            Some(path) => {
                let cmd = Cmd::git(git::checked_out_in(path));
                self.run(Phase::LocalCheck(i), cmd)
            }
            None => {
                let cmd = Cmd::git(git::move_branch(&m.branch, &new, &m.old_head.local));
                self.run(Phase::Local(i), cmd)
            }
        }
    }

    fn next_retarget(&mut self, from: usize) -> Next<Restacking> {
        let next = self
            .moves()
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, m)| self.planned.old_base.get(&m.branch) != Some(&m.new_base));
        let Some((i, m)) = next else {
            return Next::Done(Ok(self.pushed()));
        };
        let args =
            gh::pr_edit(m.pull_request, None, None, Some(&m.new_base), None).unwrap_or_default();
        self.run(Phase::Retarget(i), Cmd::gh(args))
    }

    fn pushed(&self) -> Pushed {
        let prefix = self.backup_prefix();
        Pushed {
            branches: self
                .moves()
                .iter()
                .map(|m| RestackedBranch {
                    branch: m.branch.clone(),
                    old_head: m.old_head.local.clone(),
                    new_head: self.new_heads.get(&m.branch).cloned().unwrap_or_default(),
                    backup_ref: format!("{prefix}/local/{}", m.branch),
                })
                .collect(),
            retarget_failed: self.failed.clone(),
        }
    }
}

impl Flow for RestackFlow {
    type Output = Restacking;

    /// The first command.
    fn start(&mut self) -> Next<Self::Output> {
        self.phase = Phase::Refs;
        Next::Run(Cmd::git(git::branches()))
    }

    /// Takes the last command's end.
    fn on(&mut self, ran: Ran) -> Next<Self::Output> {
        let phase = self.phase;
        let stdout = match ran.result {
            Ok(stdout) => stdout,
            Err(reason) => return self.failed(phase, reason),
        };
        match phase {
            Phase::Refs => {
                let refs = parse_refs(&stdout);
                for m in self.moves() {
                    let now = refs.local.get(&m.branch);
                    if now != Some(&m.old_head.local) {
                        let now = now.map_or("gone", String::as_str);
                        return self.stop(format!(
                            "{} moved here since the plan ({} → {now}): plan again",
                            m.branch, m.old_head.local
                        ));
                    }
                }
                let branches: Vec<String> = self.moves().iter().map(|m| m.branch.clone()).collect();
                self.run(Phase::LsRemote, Cmd::git(git::ls_remote(&branches)))
            }
            Phase::LsRemote => {
                let remote = parse_ls_remote(&stdout);
                for m in self.moves() {
                    if remote.get(&m.branch) != m.old_head.remote.as_ref() {
                        let was = m.old_head.remote.as_deref().unwrap_or("absent");
                        let now = remote.get(&m.branch).map_or("absent", String::as_str);
                        return self.stop(format!(
                            "{} moved on GitHub since the plan ({was} → {now}): plan again",
                            m.branch
                        ));
                    }
                }
                self.run(Phase::Worktrees, Cmd::git(git::worktrees()))
            }
            Phase::Worktrees => {
                let at = parse_worktrees(&stdout);
                for m in self.moves() {
                    let was = self.planned.checked_out.get(&m.branch);
                    let paths = at.get(&m.branch).map(Vec::as_slice).unwrap_or_default();
                    if was.map(std::slice::from_ref).unwrap_or_default() != paths {
                        let place = |p: &[String]| match p {
                            [] => "nowhere".to_owned(),
                            paths => format!("in {}", paths.join(", ")),
                        };
                        return self.stop(format!(
                            "{} is checked out {} now, {} when planned: plan again",
                            m.branch,
                            place(paths),
                            place(was.map(std::slice::from_ref).unwrap_or_default())
                        ));
                    }
                }
                self.next_status(0)
            }
            Phase::Status(k) => {
                if !stdout.trim().is_empty() {
                    let path = &self.worktrees[k];
                    let branch = self
                        .planned
                        .checked_out
                        .iter()
                        .find(|(_, p)| *p == path)
                        .map_or("", |(b, _)| b.as_str());
                    return self.stop(Self::unchanged(format!(
                        "{branch} is checked out in {path} with uncommitted changes: commit or stash them, then confirm again"
                    )));
                }
                self.next_status(k + 1)
            }
            Phase::Replay(i) => {
                let m = &self.moves()[i];
                match replayed_head(&stdout, &m.branch) {
                    Some((new, old)) if old == m.old_head.local => self.rebuilt(i, new),
                    Some((_, old)) => self.stop(Self::unchanged(format!(
                        "{} moved to {old} while it was rebuilt: plan again",
                        m.branch
                    ))),
                    None => self.stop(Self::unchanged(format!(
                        "git replay printed no new head for {}",
                        m.branch
                    ))),
                }
            }
            Phase::WorktreeAdd(i) => {
                let m = &self.moves()[i];
                let cmd = Cmd::git(git::cherry_pick_in(
                    &self.scratch(),
                    &m.old_parent,
                    &m.old_head.local,
                ));
                self.run(Phase::Pick(i), cmd)
            }
            Phase::Pick(i) => self.run(Phase::Head(i), Cmd::git(git::head_in(&self.scratch()))),
            Phase::Head(i) => {
                self.new_heads
                    .insert(self.moves()[i].branch.clone(), stdout.trim().to_owned());
                self.run(
                    Phase::WorktreeRemove(i),
                    Cmd::git(git::worktree_remove(&self.scratch())),
                )
            }
            Phase::WorktreeRemove(i) => {
                if let Some(reason) = self.pick_failed.take() {
                    return self.stop(reason);
                }
                let branch = self.moves()[i].branch.clone();
                let new = self.new_heads.get(&branch).cloned().unwrap_or_default();
                self.rebuilt(i, new)
            }
            Phase::Backup(k) => self.next_backup(k + 1),
            Phase::Push => self.next_local(0),
            Phase::LocalCheck(i) => {
                // Still the branch, still where the plan saw it: else someone switched or
                // committed there meanwhile, and resetting would take their work tree along.
                let m = &self.planned.moves[i];
                let mut lines = stdout.lines().map(str::trim);
                let (sha, name) = (lines.next(), lines.next());
                let want = format!("refs/heads/{}", m.branch);
                let path = self
                    .planned
                    .checked_out
                    .get(&m.branch)
                    .cloned()
                    .unwrap_or_default();
                if sha != Some(m.old_head.local.as_str()) || name != Some(want.as_str()) {
                    let why = format!(
                        "{path} no longer has {} at {} checked out (it has {} at {}): left as it is",
                        m.branch,
                        m.old_head.local,
                        name.unwrap_or("nothing"),
                        sha.unwrap_or("nothing")
                    );
                    return self.failed(Phase::Local(i), why);
                }
                let new = self.new_heads.get(&m.branch).cloned().unwrap_or_default();
                self.run(Phase::Local(i), Cmd::git(git::reset_keep_in(&path, &new)))
            }
            Phase::Local(i) => self.next_local(i + 1),
            Phase::Retarget(i) => self.next_retarget(i + 1),
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod world;
