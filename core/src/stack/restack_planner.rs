//! The restack planner: from the open pull requests, the branches here and on origin, and the
//! commits between them, which branches move where. Pure, so that every case (a merged bottom,
//! a moved base, a middle branch amended by hand) is a unit test and a property.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::graph::Graph;
use crate::protocol::stack::{OldHead, RestackMove};

/// A pull request as `gh pr list --json number,state,headRefName,baseRefName,headRefOid,url`
/// prints it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullRef {
    /// The pull request's number in the repository.
    pub number: u64,
    /// `OPEN`, `CLOSED` or `MERGED`.
    pub state: String,
    /// The branch its changes come from (`headRefName`), by short name; a fork's when
    /// `is_cross_repository`.
    pub head_ref_name: String,
    /// The branch it merges into (`baseRefName`), by its short name on origin (`main`).
    pub base_ref_name: String,
    /// Its head commit on GitHub.
    #[serde(default)]
    pub head_ref_oid: Option<String>,
    /// Its page on GitHub; `None` when gh printed none.
    #[serde(default)]
    pub url: Option<String>,
    /// Whether its head is in a fork: then the branch of that name here is not its head.
    #[serde(default)]
    pub is_cross_repository: bool,
}

impl PullRef {
    fn is(&self, state: &str) -> bool {
        self.state.eq_ignore_ascii_case(state)
    }
}

/// Parses gh's list.
pub fn parse_pulls(stdout: &str) -> Result<Vec<PullRef>, String> {
    serde_json::from_str(stdout).map_err(|err| format!("gh printed a list luxe cannot read: {err}"))
}

/// What the planner looks at.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The repository's default branch.
    pub default_branch: String,
    /// Each local branch's commit, by short name (`refs/heads/` left off).
    pub local: BTreeMap<String, String>,
    /// origin's branches (fetched just before).
    pub remote: BTreeMap<String, String>,
    /// The repository's pull requests, any state.
    pub pulls: Vec<PullRef>,
    /// The commits above origin's branches the pull requests are based on (see [`Graph`]).
    pub graph: Graph,
    /// Where each local branch has been, newest first (its reflog).
    pub local_reflog: BTreeMap<String, Vec<String>>,
    /// Where each of origin's branches has been seen, newest first.
    pub remote_reflog: BTreeMap<String, Vec<String>>,
}

impl Facts {
    /// The pull requests a restack may touch: the repository's own branches (a fork's head
    /// named like a branch here is not that branch), never the default branch as a head.
    fn own_pulls(&self) -> impl Iterator<Item = &PullRef> {
        self.pulls
            .iter()
            .filter(|p| !p.is_cross_repository && p.head_ref_name != self.default_branch)
    }

    /// The commits the graph must be read from: every local and remote head of a pull
    /// request's branch, merged pull requests' heads, and where those branches have been.
    pub fn graph_tips(&self) -> Vec<String> {
        let mut tips = BTreeSet::new();
        for pull in self.own_pulls() {
            let head = &pull.head_ref_name;
            tips.extend(self.local.get(head).cloned());
            tips.extend(self.remote.get(head).cloned());
            tips.extend(pull.head_ref_oid.clone());
            for log in [&self.local_reflog, &self.remote_reflog] {
                tips.extend(log.get(head).into_iter().flatten().cloned());
            }
        }
        tips.into_iter().collect()
    }

    /// Where the graph is cut: origin's default branch and every base of an open pull request
    /// that is no pull request's head, as origin has them.
    pub fn graph_bases(&self) -> Vec<String> {
        let heads: BTreeSet<&str> = self
            .own_pulls()
            .filter(|p| p.is("OPEN"))
            .map(|p| p.head_ref_name.as_str())
            .collect();
        let mut bases = BTreeSet::from([self.default_branch.clone()]);
        for pull in self.own_pulls().filter(|p| p.is("OPEN")) {
            let base = &pull.base_ref_name;
            if !heads.contains(base.as_str()) && self.remote.contains_key(base) {
                bases.insert(base.clone());
            }
        }
        bases.into_iter().collect()
    }

    /// The branches whose reflogs are read, as `refs/heads/B` and `refs/remotes/origin/B`.
    pub fn reflog_refs(&self) -> Vec<String> {
        let mut refs = BTreeSet::new();
        for pull in self.own_pulls() {
            let head = &pull.head_ref_name;
            if self.local.contains_key(head) {
                refs.insert(format!("refs/heads/{head}"));
            }
            if self.remote.contains_key(head) {
                refs.insert(format!("refs/remotes/origin/{head}"));
            }
        }
        refs.into_iter().collect()
    }

    /// Where `branch` has been, here and on origin, newest first.
    fn history(&self, branch: &str) -> impl Iterator<Item = &String> {
        let local = self.local_reflog.get(branch).into_iter().flatten();
        let remote = self.remote_reflog.get(branch).into_iter().flatten();
        local.chain(remote)
    }
}

/// Parses `git log -g --format=%H %gD REFS`: each ref's past heads, newest first, as
/// `(local, origin's)` by branch.
pub fn parse_reflogs(
    stdout: &str,
) -> (BTreeMap<String, Vec<String>>, BTreeMap<String, Vec<String>>) {
    let mut local: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut remote: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in stdout.lines() {
        let Some((sha, selector)) = line.split_once(' ') else {
            continue;
        };
        let Some((name, _)) = selector.rsplit_once("@{") else {
            continue;
        };
        if let Some(branch) = name.strip_prefix("refs/heads/") {
            local
                .entry(branch.to_owned())
                .or_default()
                .push(sha.to_owned());
        } else if let Some(branch) = name.strip_prefix("refs/remotes/origin/") {
            remote
                .entry(branch.to_owned())
                .or_default()
                .push(sha.to_owned());
        }
    }
    (local, remote)
}

/// Where a branch's pull request sits.
enum Parent {
    /// On another open pull request's branch.
    Stacked(String),
    /// On a branch of origin's that is no pull request's (the default branch).
    Remote(String),
}

/// The moving branches, bottom first, or why there is nothing to confirm.
pub fn plan(facts: &Facts) -> Result<Vec<RestackMove>, String> {
    let mut open: BTreeMap<&str, &PullRef> = BTreeMap::new();
    let mut merged: BTreeMap<&str, &PullRef> = BTreeMap::new();
    // Newest first, so that a branch's newest merged pull request is the one kept.
    let mut pulls: Vec<&PullRef> = facts.own_pulls().collect();
    pulls.sort_by_key(|p| std::cmp::Reverse(p.number));
    for pull in &pulls {
        let head = pull.head_ref_name.as_str();
        if pull.is("OPEN") && facts.local.contains_key(head) {
            if let Some(other) = open.get(head)
                && other.base_ref_name != pull.base_ref_name
            {
                return Err(format!(
                    "{head} has two open pull requests on different bases (#{} on {}, #{} on {}): close one, then plan again",
                    other.number, other.base_ref_name, pull.number, pull.base_ref_name
                ));
            }
            open.entry(head).or_insert(pull);
        } else if pull.is("MERGED") {
            merged.entry(head).or_insert(pull);
        }
    }
    if open.is_empty() {
        return Err("no open pull request has its branch in this checkout".into());
    }
    // Every merged head: a branch holding one holds commits its base has now (squashed or not).
    let merged_heads: Vec<String> = pulls
        .iter()
        .filter(|p| p.is("MERGED"))
        .filter_map(|p| p.head_ref_oid.clone())
        .collect();

    // Each open branch's parent, new base and candidates for where its own commits start.
    struct Node<'a> {
        pull: &'a PullRef,
        parent: Parent,
        new_base: String,
        candidates: Vec<String>,
    }
    let mut nodes: BTreeMap<&str, Node<'_>> = BTreeMap::new();
    for (&branch, &pull) in &open {
        let mut base = pull.base_ref_name.clone();
        let mut candidates = Vec::new();
        let mut hops = 0;
        let parent = loop {
            if open.contains_key(base.as_str()) {
                break Parent::Stacked(base.clone());
            }
            // A branch below that merged and is gone from origin, or still where it merged
            // (a living branch once merged, such as `develop`, is a base like any other).
            let below = merged.get(base.as_str()).filter(|below| {
                let there = facts.remote.get(&base);
                there.is_none() || there == below.head_ref_oid.as_ref()
            });
            match below {
                Some(below) if base != facts.default_branch && hops < 64 => {
                    candidates.extend(below.head_ref_oid.clone());
                    candidates.extend(facts.local.get(&base).cloned());
                    candidates.extend(facts.remote.get(&base).cloned());
                    candidates.extend(facts.history(&base).cloned());
                    base = below.base_ref_name.clone();
                    hops += 1;
                }
                _ => break Parent::Remote(base.clone()),
            }
        };
        match &parent {
            Parent::Stacked(below) => {
                candidates.extend(facts.remote.get(below).cloned());
                candidates.extend(open[below.as_str()].head_ref_oid.clone());
                candidates.extend(facts.local.get(below).cloned());
                candidates.extend(facts.history(below).cloned());
            }
            Parent::Remote(below) => {
                let Some(tip) = facts.remote.get(below) else {
                    return Err(format!(
                        "origin/{below}, the base of {branch} (#{}), is not here",
                        pull.number
                    ));
                };
                candidates.push(tip.clone());
                candidates.extend(merged_heads.iter().cloned());
            }
        }
        // A head on origin this checkout never had is someone else's push: restacking would
        // overwrite it.
        let local = &facts.local[branch];
        if let Some(there) = facts.remote.get(branch)
            && there != local
            && !facts.graph.reaches(local, there)
            && !facts
                .local_reflog
                .get(branch)
                .is_some_and(|log| log.contains(there))
        {
            return Err(format!(
                "{branch} on origin has commits this checkout does not ({there}): pull them into {branch} first, then plan again"
            ));
        }
        nodes.insert(
            branch,
            Node {
                pull,
                parent,
                new_base: base,
                candidates,
            },
        );
    }

    // Bottom first: a branch after the one it sits on.
    let mut order: Vec<&str> = Vec::new();
    let mut placed: BTreeSet<&str> = BTreeSet::new();
    while order.len() < nodes.len() {
        let before = order.len();
        for (&branch, node) in &nodes {
            if placed.contains(branch) {
                continue;
            }
            let ready = match &node.parent {
                Parent::Stacked(below) => placed.contains(below.as_str()),
                Parent::Remote(_) => true,
            };
            if ready {
                order.push(branch);
                placed.insert(branch);
            }
        }
        if order.len() == before {
            return Err("the open pull requests' bases form a cycle".into());
        }
    }

    let mut moves = Vec::new();
    let mut moving: BTreeSet<&str> = BTreeSet::new();
    for branch in order {
        let node = &nodes[branch];
        let local = &facts.local[branch];
        let old_parent = own_start(&facts.graph, local, &node.candidates, &node.parent)
            .ok_or_else(|| {
                format!(
                    "cannot tell where {branch}'s own commits start (#{}): rebase it by hand",
                    node.pull.number
                )
            })?;
        let (new_parent, new_parent_sha) = match &node.parent {
            Parent::Stacked(below) if moving.contains(below.as_str()) => (below.clone(), None),
            Parent::Stacked(below) => (below.clone(), facts.local.get(below).cloned()),
            Parent::Remote(below) => (format!("origin/{below}"), facts.remote.get(below).cloned()),
        };
        let commits = facts.graph.count_between(&old_parent, local);
        let rebuilt = new_parent_sha.as_deref() != Some(old_parent.as_str());
        let remote = facts.remote.get(branch).cloned();
        let pushed = remote.as_deref() != Some(local.as_str());
        let retarget = node.pull.base_ref_name != node.new_base;
        if !(rebuilt || pushed || retarget) {
            continue;
        }
        if commits == 0 {
            return Err(format!(
                "{branch} (#{}) has no commits of its own over {new_parent}: its new head would be in its base, and GitHub would mark the pull request merged; close it or add to it first",
                node.pull.number
            ));
        }
        moving.insert(branch);
        moves.push(RestackMove {
            branch: branch.to_owned(),
            pull_request: node.pull.number,
            old_head: OldHead {
                local: local.clone(),
                remote,
            },
            old_parent,
            new_parent,
            new_parent_sha,
            new_base: node.new_base.clone(),
            commits: u32::try_from(commits).unwrap_or(u32::MAX),
        });
    }
    if moves.is_empty() {
        return Err("nothing to restack: every open pull request's branch sits on its base".into());
    }
    Ok(moves)
}

/// The commit `head`'s own commits start after: of the candidates that are its ancestors, the
/// nearest (the one with the most history above the cut); for a branch on origin's branch
/// with none, the one commit of that branch it forks from.
fn own_start(graph: &Graph, head: &str, candidates: &[String], parent: &Parent) -> Option<String> {
    let ancestors = graph.reachable(head);
    let nearest = candidates
        .iter()
        .filter(|c| ancestors.contains(*c))
        .max_by_key(|c| graph.reachable(c).len());
    if let Some(nearest) = nearest {
        return Some(nearest.clone());
    }
    match parent {
        Parent::Remote(_) => {
            let roots = graph.roots_of(head);
            (roots.len() == 1)
                .then(|| roots.into_iter().next())
                .flatten()
        }
        Parent::Stacked(_) => None,
    }
}

#[cfg(test)]
mod tests;
