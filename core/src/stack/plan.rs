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
    /// Its number.
    pub number: u64,
    /// `OPEN`, `CLOSED` or `MERGED`.
    pub state: String,
    /// Its head branch.
    pub head_ref_name: String,
    /// Its base branch.
    pub base_ref_name: String,
    /// Its head commit on GitHub.
    #[serde(default)]
    pub head_ref_oid: Option<String>,
    /// Its page.
    #[serde(default)]
    pub url: Option<String>,
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
    /// Local branches.
    pub local: BTreeMap<String, String>,
    /// origin's branches (fetched just before).
    pub remote: BTreeMap<String, String>,
    /// The repository's pull requests, any state.
    pub pulls: Vec<PullRef>,
    /// The commits above origin's default branch (see [`Graph`]).
    pub graph: Graph,
}

impl Facts {
    /// The commits the graph must be read from: every local and remote head of a pull
    /// request's branch, and merged pull requests' heads.
    pub fn graph_tips(
        pulls: &[PullRef],
        local: &BTreeMap<String, String>,
        remote: &BTreeMap<String, String>,
    ) -> Vec<String> {
        let mut tips = BTreeSet::new();
        for pull in pulls {
            tips.extend(local.get(&pull.head_ref_name).cloned());
            tips.extend(remote.get(&pull.head_ref_name).cloned());
            tips.extend(pull.head_ref_oid.clone());
        }
        tips.into_iter().collect()
    }
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
    // Newest first, so that the newest pull request of a branch is the one kept.
    let mut pulls: Vec<&PullRef> = facts.pulls.iter().collect();
    pulls.sort_by_key(|p| std::cmp::Reverse(p.number));
    for pull in &pulls {
        if pull.is("OPEN") && facts.local.contains_key(&pull.head_ref_name) {
            open.entry(pull.head_ref_name.as_str()).or_insert(pull);
        }
    }
    if open.is_empty() {
        return Err("no open pull request has its branch in this checkout".into());
    }
    let mut merged: BTreeMap<&str, &PullRef> = BTreeMap::new();
    for pull in &pulls {
        if pull.is("MERGED") {
            merged.entry(pull.head_ref_name.as_str()).or_insert(pull);
        }
    }

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
            match merged.get(base.as_str()) {
                Some(below) if base != facts.default_branch && hops < 64 => {
                    // The branch below merged: its commits (or their squash) are in its base now.
                    candidates.extend(below.head_ref_oid.clone());
                    candidates.extend(facts.local.get(&base).cloned());
                    candidates.extend(facts.remote.get(&base).cloned());
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
            }
            Parent::Remote(below) => {
                let Some(tip) = facts.remote.get(below) else {
                    return Err(format!(
                        "origin/{below}, the base of {branch} (#{}), is not here",
                        pull.number
                    ));
                };
                candidates.push(tip.clone());
            }
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
/// nearest; for a branch on origin's branch with none, the one commit of that branch it forks
/// from.
fn own_start(graph: &Graph, head: &str, candidates: &[String], parent: &Parent) -> Option<String> {
    let ancestors = graph.reachable(head);
    let found: Vec<&String> = candidates
        .iter()
        .filter(|c| ancestors.contains(*c))
        .collect();
    // The nearest: the one every other found candidate is an ancestor of.
    if let Some(nearest) = found
        .iter()
        .find(|c| found.iter().all(|other| graph.reaches(c, other)))
    {
        return Some((*nearest).clone());
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
