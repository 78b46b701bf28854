//! The commits of a stack as `git rev-list --parents --boundary TIPS --not BASE` prints them:
//! every commit reachable from a tip but not from the base, with its parents, and the boundary
//! (the base's commits they sit on). Enough to answer which commit is an ancestor of which
//! among a stack's, without a git call per question.

use std::collections::{BTreeMap, BTreeSet};

/// A commit graph cut at the base.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// Commits above the base and their parents.
    pub parents: BTreeMap<String, Vec<String>>,
    /// The base's commits the others sit on.
    pub boundary: BTreeSet<String>,
}

impl Graph {
    /// Parses `git rev-list --parents --boundary` output.
    pub fn parse(stdout: &str) -> Self {
        let mut graph = Self::default();
        for line in stdout.lines() {
            let mut words = line.split_whitespace();
            let Some(first) = words.next() else { continue };
            if let Some(boundary) = first.strip_prefix('-') {
                graph.boundary.insert(boundary.to_owned());
            } else {
                graph
                    .parents
                    .insert(first.to_owned(), words.map(str::to_owned).collect());
            }
        }
        graph
    }

    /// `from` and everything reachable from it inside the cut (boundary commits included).
    pub fn reachable(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(commit) = todo.pop() {
            if !seen.insert(commit.clone()) {
                continue;
            }
            if let Some(parents) = self.parents.get(&commit) {
                todo.extend(parents.iter().cloned());
            }
        }
        seen
    }

    /// Whether `ancestor` is `commit` or one of its ancestors, as far as the cut shows.
    pub fn reaches(&self, commit: &str, ancestor: &str) -> bool {
        self.reachable(commit).contains(ancestor)
    }

    /// The boundary commits `commit` sits on.
    pub fn roots_of(&self, commit: &str) -> BTreeSet<String> {
        self.reachable(commit)
            .into_iter()
            .filter(|c| self.boundary.contains(c))
            .collect()
    }

    /// How many commits above the cut `commit` has that `base` does not.
    pub fn count_between(&self, base: &str, commit: &str) -> usize {
        let below = self.reachable(base);
        self.reachable(commit)
            .iter()
            .filter(|c| self.parents.contains_key(*c) && !below.contains(*c))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestry_inside_the_cut() {
        let graph = Graph::parse("c b\nb a\na m\n-m\nx m\n");
        assert!(graph.reaches("c", "a"));
        assert!(graph.reaches("c", "m"));
        assert!(!graph.reaches("c", "x"));
        assert!(graph.reaches("c", "c"));
        assert_eq!(graph.roots_of("c").into_iter().collect::<Vec<_>>(), ["m"]);
        assert_eq!(graph.count_between("a", "c"), 2);
        assert_eq!(graph.count_between("m", "c"), 3);
        assert_eq!(graph.count_between("c", "c"), 0);
    }
}
