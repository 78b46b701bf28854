//! `open_stack` as a flow: adopt the stack's pull requests that are already open, push every
//! branch in one atomic push, open the missing pull requests bottom first, then write the
//! stack's list with every number into each description. Whatever opened is kept, so a
//! confirmation after a failure opens only what is missing.

use std::collections::{BTreeMap, BTreeSet};

use super::describe::{Entry, own_part, with_stack};
use super::git;
use super::refs::parse_refs;
use super::restack_planner::parse_pulls;
use crate::github::{gh, parse};
use crate::protocol::stack::{StackDraft, StackPending, StackPullRequest};
use crate::steps::{Cmd, Flow, Next, Ran};

/// How an open ended.
pub type Opened = Result<Vec<StackPullRequest>, OpenFailure>;

/// Why an open stopped, with the reason in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFailure {
    /// What went wrong, in words: `stack_open_failed.reason`.
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    ListOpen,
    Heads,
    Push,
    Create(usize),
    Link(usize),
}

/// A stack being opened; kept between confirmations.
#[derive(Debug, Clone)]
pub struct OpenFlow {
    drafts: Vec<StackDraft>,
    /// Each branch's head as previewed: what is pushed must be what was shown.
    heads: Vec<String>,
    draft: bool,
    opened: BTreeMap<String, StackPullRequest>,
    linked: BTreeSet<String>,
    phase: Phase,
}

impl OpenFlow {
    /// A stack to open as `drafts` show it, each branch at its previewed head.
    pub fn new(drafts: Vec<StackDraft>, heads: Vec<String>) -> Self {
        Self {
            drafts,
            heads,
            draft: false,
            opened: BTreeMap::new(),
            linked: BTreeSet::new(),
            phase: Phase::ListOpen,
        }
    }

    /// What a person changed at confirmation: titles and descriptions by branch, and whether
    /// the pull requests open as drafts. Descriptions keep luxe's list of the stack.
    pub fn confirm(
        &mut self,
        titles: &BTreeMap<String, String>,
        descriptions: &BTreeMap<String, String>,
        draft: bool,
    ) {
        for d in &mut self.drafts {
            if let Some(title) = titles.get(&d.branch) {
                d.title.clone_from(title);
            }
            if let Some(text) = descriptions.get(&d.branch) {
                d.description = own_part(text).to_owned();
            }
        }
        self.draft = draft;
    }

    /// Whether every pull request is open and lists the stack.
    pub fn finished(&self) -> bool {
        self.drafts
            .iter()
            .all(|d| self.opened.contains_key(&d.branch) && self.linked.contains(&d.branch))
    }

    /// The open pull requests, bottom first.
    pub fn opened(&self) -> Vec<StackPullRequest> {
        self.drafts
            .iter()
            .filter_map(|d| self.opened.get(&d.branch).cloned())
            .collect()
    }

    /// The branches without a pull request, bottom first.
    pub fn pending(&self) -> impl Iterator<Item = StackPending> + '_ {
        self.drafts
            .iter()
            .filter(|d| !self.opened.contains_key(&d.branch))
            .map(|d| StackPending {
                branch: d.branch.clone(),
                base: d.base.clone(),
            })
    }

    fn entries(&self) -> Vec<Entry<'_>> {
        self.drafts
            .iter()
            .map(|d| Entry {
                branch: &d.branch,
                number: self.opened.get(&d.branch).map(|p| p.number),
            })
            .collect()
    }

    fn next_create(&mut self) -> Next<Opened> {
        let Some(i) = self
            .drafts
            .iter()
            .position(|d| !self.opened.contains_key(&d.branch))
        else {
            return self.next_link();
        };
        self.phase = Phase::Create(i);
        let d = &self.drafts[i];
        let body = with_stack(own_part(&d.description), &self.entries(), i);
        Next::Run(Cmd::gh(gh::pr_create(
            &d.title, &body, &d.base, &d.branch, self.draft,
        )))
    }

    fn next_link(&mut self) -> Next<Opened> {
        let Some(i) = self
            .drafts
            .iter()
            .position(|d| !self.linked.contains(&d.branch))
        else {
            return Next::Done(Ok(self.opened()));
        };
        self.phase = Phase::Link(i);
        let d = &self.drafts[i];
        let number = self.opened.get(&d.branch).map_or(0, |p| p.number);
        let body = with_stack(own_part(&d.description), &self.entries(), i);
        let args = gh::pr_edit(number, None, Some(&body), None, None).unwrap_or_default();
        Next::Run(Cmd::gh(args))
    }
}

impl Flow for OpenFlow {
    type Output = Opened;

    /// The first command of a confirmation.
    fn start(&mut self) -> Next<Self::Output> {
        self.phase = Phase::ListOpen;
        Next::Run(Cmd::gh(gh::stack_pulls("open")))
    }

    /// Takes the last command's end.
    fn on(&mut self, ran: Ran) -> Next<Self::Output> {
        let stdout = match ran.result {
            Ok(stdout) => stdout,
            Err(reason) => {
                let reason = match self.phase {
                    Phase::ListOpen => format!("gh pr list: {reason}"),
                    Phase::Heads => format!("git for-each-ref: {reason}"),
                    Phase::Push => format!("git push: {reason}"),
                    Phase::Create(i) => {
                        format!("gh pr create for {}: {reason}", self.drafts[i].branch)
                    }
                    Phase::Link(i) => format!(
                        "every pull request is open, but the stack could not be listed in {}'s description: {reason}",
                        self.drafts[i].branch
                    ),
                };
                return Next::Done(Err(OpenFailure { reason }));
            }
        };
        match self.phase {
            Phase::ListOpen => {
                let pulls = match parse_pulls(&stdout) {
                    Ok(pulls) => pulls,
                    Err(reason) => return Next::Done(Err(OpenFailure { reason })),
                };
                // One already open for a branch and base (opened before, by luxe or anyone)
                // is adopted, never opened twice.
                for d in &self.drafts {
                    if self.opened.contains_key(&d.branch) {
                        continue;
                    }
                    if let Some(p) = pulls
                        .iter()
                        .find(|p| p.head_ref_name == d.branch && p.base_ref_name == d.base)
                    {
                        let url = p.url.clone().unwrap_or_default();
                        self.opened.insert(d.branch.clone(), pull(d, p.number, url));
                    }
                }
                if self.pending().next().is_none() {
                    return self.next_link();
                }
                self.phase = Phase::Heads;
                Next::Run(Cmd::git(git::branches()))
            }
            Phase::Heads => {
                let local = parse_refs(&stdout).local;
                for (d, head) in self.drafts.iter().zip(&self.heads) {
                    if local.get(&d.branch) != Some(head) {
                        return Next::Done(Err(OpenFailure {
                            reason: format!(
                                "{} moved since the preview ({head} → {}): preview again",
                                d.branch,
                                local.get(&d.branch).map_or("gone", String::as_str)
                            ),
                        }));
                    }
                }
                self.phase = Phase::Push;
                let branches: Vec<String> = self.drafts.iter().map(|d| d.branch.clone()).collect();
                Next::Run(Cmd::git(git::push_new(&branches)))
            }
            Phase::Push => self.next_create(),
            Phase::Create(i) => {
                let opened = parse::printed_url(&stdout)
                    .and_then(|url| Some((parse::pr_number(&url)?, url)));
                let Some((number, url)) = opened else {
                    return Next::Done(Err(OpenFailure {
                        reason: format!(
                            "gh pr create for {} printed no pull request address: check GitHub, then confirm again (an open one is adopted, not opened twice)",
                            self.drafts[i].branch
                        ),
                    }));
                };
                let d = &self.drafts[i];
                self.opened.insert(d.branch.clone(), pull(d, number, url));
                self.next_create()
            }
            Phase::Link(i) => {
                self.linked.insert(self.drafts[i].branch.clone());
                self.next_link()
            }
        }
    }
}

fn pull(draft: &StackDraft, number: u64, url: String) -> StackPullRequest {
    StackPullRequest {
        branch: draft.branch.clone(),
        base: draft.base.clone(),
        number,
        url,
    }
}

#[cfg(test)]
mod tests;
