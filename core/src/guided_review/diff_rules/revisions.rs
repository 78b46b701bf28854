//! Which two trees a `branch` or `commits` review compares, and the words for when it cannot:
//! the base a `branch` review takes when none is named (the first of [`DEFAULT_BASES`] that
//! exists), the merge-base it starts from, and what a revision must name.

/// Why a pull request's diff is not read from git.
pub const PULL_REQUESTS: &str = "pull requests are read through gh, not git";

/// Where a `branch` review without a `base` starts, in order: the first that exists. A
/// symbolic ref counts as the branch it points to (`origin/HEAD` is the remote's default
/// branch, as `git clone` set it), else the usual local names.
pub const DEFAULT_BASES: &[&str] = &[
    "refs/remotes/origin/HEAD",
    "refs/heads/main",
    "refs/heads/master",
];

/// A `branch` review needs HEAD to be a commit.
pub const NO_COMMITS: &str = "HEAD has no commits yet: there is no branch to review";

/// What a revision names, as io resolved it (tags peeled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named<Id> {
    /// A commit, and its tree.
    Commit {
        /// The commit's id (a tag peeled to it).
        commit: Id,
        /// The commit's root tree, the side a review compares.
        tree: Id,
    },
    /// A tree that is no commit: the side it gives a review has no commit.
    Tree(Id),
    /// Another kind of object (a blob), by its kind's name.
    Other(String),
    /// Nothing git knows.
    Unknown {
        /// git's reason, in words.
        cause: String,
    },
}

/// What [`branch`] and [`commits`] ask io to look up. Errors are why a read failed, in words.
pub trait Revisions<Id> {
    /// The reference `full` (`refs/…`), when it exists: `Some(target)` names the branch a
    /// symbolic reference points to.
    fn reference(&mut self, full: &str) -> Result<Option<Option<String>>, String>;
    /// What `spec` names.
    fn resolve(&mut self, spec: &str) -> Result<Named<Id>, String>;
    /// The best common ancestor of two commits, `None` when they have none.
    fn merge_base(&mut self, one: &Id, two: &Id) -> Result<Option<Id>, String>;
    /// The id of the tree `commit` records.
    fn tree_of(&mut self, commit: &Id) -> Result<Id, String>;
}

/// The two trees a review compares, and the commits they are when they are commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides<Id> {
    /// The old side's commit.
    pub base_commit: Option<Id>,
    /// The tree the diff starts from: the merge-base's for `branch`, else `from`'s (its commit's
    /// tree, or `from` itself when it names a tree).
    pub old_tree: Id,
    /// The new side's commit.
    pub head_commit: Option<Id>,
    /// The tree the diff ends at: HEAD's for `branch`, else `to`'s (its commit's tree, or `to`
    /// itself when it names a tree).
    pub new_tree: Id,
}

/// `branch`: the merge-base of HEAD (`head`, `None` without commits) and `base` (by default
/// [`default_base`]) → HEAD.
pub fn branch<Id: Clone>(
    head: Option<Id>,
    base: Option<&str>,
    revisions: &mut impl Revisions<Id>,
) -> Result<Sides<Id>, String> {
    let head = head.ok_or(NO_COMMITS)?;
    let base = match base {
        Some(base) => base.to_owned(),
        None => default_base(revisions)?,
    };
    let (Some(commit), _) = resolved(revisions, &base)? else {
        return Err(format!("'{base}' is not a commit, so not a branch"));
    };
    let merge_base = revisions
        .merge_base(&head, &commit)
        .map_err(|err| format!("merge-base of HEAD and '{base}': {err}"))?
        .ok_or_else(|| format!("HEAD and '{base}' have no common ancestor"))?;
    Ok(Sides {
        old_tree: revisions.tree_of(&merge_base)?,
        base_commit: Some(merge_base),
        new_tree: revisions.tree_of(&head)?,
        head_commit: Some(head),
    })
}

/// `commits`: `git diff from to`, each a commit or a tree.
pub fn commits<Id>(
    from: &str,
    to: &str,
    revisions: &mut impl Revisions<Id>,
) -> Result<Sides<Id>, String> {
    let (base_commit, old_tree) = resolved(revisions, from)?;
    let (head_commit, new_tree) = resolved(revisions, to)?;
    Ok(Sides {
        base_commit,
        old_tree,
        head_commit,
        new_tree,
    })
}

/// The base of a `branch` review with none named: the first of [`DEFAULT_BASES`] that exists,
/// a symbolic reference as the branch it points to.
pub fn default_base<Id>(revisions: &mut impl Revisions<Id>) -> Result<String, String> {
    for full in DEFAULT_BASES {
        let found = revisions
            .reference(full)
            .map_err(|err| format!("{full}: {err}"))?;
        if let Some(target) = found {
            return Ok(target.unwrap_or_else(|| (*full).to_owned()));
        }
    }
    Err(
        "no base branch: origin/HEAD is not set and there is no main or master branch; \
         name the base"
            .into(),
    )
}

/// The commit (when it is one) and the tree `spec` names.
fn resolved<Id>(
    revisions: &mut impl Revisions<Id>,
    spec: &str,
) -> Result<(Option<Id>, Id), String> {
    match revisions.resolve(spec)? {
        Named::Commit { commit, tree } => Ok((Some(commit), tree)),
        Named::Tree(tree) => Ok((None, tree)),
        Named::Other(kind) => Err(format!("'{spec}' names a {kind}, not a commit or tree")),
        Named::Unknown { cause } => Err(format!("unknown revision '{spec}': {cause}")),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A history of numbered commits: commit n's tree is 100 + n.
    #[derive(Default)]
    struct History {
        references: BTreeMap<&'static str, Option<&'static str>>,
        names: BTreeMap<&'static str, Named<u32>>,
        merge_bases: BTreeMap<(u32, u32), u32>,
        looked_up: Vec<String>,
        /// A reference that cannot be read.
        broken: Option<&'static str>,
    }

    impl Revisions<u32> for History {
        fn reference(&mut self, full: &str) -> Result<Option<Option<String>>, String> {
            self.looked_up.push(full.to_owned());
            if self.broken == Some(full) {
                return Err("bad ref".into());
            }
            Ok(self
                .references
                .get(full)
                .map(|target| target.map(str::to_owned)))
        }

        fn resolve(&mut self, spec: &str) -> Result<Named<u32>, String> {
            Ok(self.names.get(spec).cloned().unwrap_or(Named::Unknown {
                cause: "not found".into(),
            }))
        }

        fn merge_base(&mut self, one: &u32, two: &u32) -> Result<Option<u32>, String> {
            Ok(self.merge_bases.get(&(*one, *two)).copied())
        }

        fn tree_of(&mut self, commit: &u32) -> Result<u32, String> {
            Ok(100 + commit)
        }
    }

    fn commit(n: u32) -> Named<u32> {
        Named::Commit {
            commit: n,
            tree: 100 + n,
        }
    }

    #[test]
    fn the_default_base_is_the_first_that_exists_symbolic_as_its_target() {
        let mut history = History::default();
        assert_eq!(
            default_base(&mut history).unwrap_err(),
            "no base branch: origin/HEAD is not set and there is no main or master branch; name the base"
        );
        assert_eq!(history.looked_up, DEFAULT_BASES);
        history.references.insert("refs/heads/master", None);
        assert_eq!(default_base(&mut history).unwrap(), "refs/heads/master");
        history.references.insert("refs/heads/main", None);
        assert_eq!(default_base(&mut history).unwrap(), "refs/heads/main");
        history.references.insert(
            "refs/remotes/origin/HEAD",
            Some("refs/remotes/origin/trunk"),
        );
        history.looked_up.clear();
        assert_eq!(
            default_base(&mut history).unwrap(),
            "refs/remotes/origin/trunk"
        );
        assert_eq!(history.looked_up, ["refs/remotes/origin/HEAD"], "no more");
        history.broken = Some("refs/remotes/origin/HEAD");
        assert_eq!(
            default_base(&mut history).unwrap_err(),
            "refs/remotes/origin/HEAD: bad ref"
        );
    }

    #[test]
    fn a_branch_starts_at_the_merge_base() {
        let mut history = History::default();
        assert_eq!(branch(None, None, &mut history).unwrap_err(), NO_COMMITS);
        history.names.insert("main", commit(2));
        history.merge_bases.insert((5, 2), 1);
        assert_eq!(
            branch(Some(5), Some("main"), &mut history).unwrap(),
            Sides {
                base_commit: Some(1),
                old_tree: 101,
                head_commit: Some(5),
                new_tree: 105,
            }
        );
        history.names.insert("lonely", commit(9));
        assert_eq!(
            branch(Some(5), Some("lonely"), &mut history).unwrap_err(),
            "HEAD and 'lonely' have no common ancestor"
        );
        history.names.insert("tree", Named::Tree(7));
        assert_eq!(
            branch(Some(5), Some("tree"), &mut history).unwrap_err(),
            "'tree' is not a commit, so not a branch"
        );
        assert_eq!(
            branch(Some(5), Some("nope"), &mut history).unwrap_err(),
            "unknown revision 'nope': not found"
        );
    }

    #[test]
    fn commits_compare_commits_or_trees() {
        let mut history = History::default();
        history.names.insert("a", commit(1));
        history.names.insert("t", Named::Tree(7));
        history.names.insert("b", Named::Other("blob".into()));
        assert_eq!(
            commits("a", "t", &mut history).unwrap(),
            Sides {
                base_commit: Some(1),
                old_tree: 101,
                head_commit: None,
                new_tree: 7,
            }
        );
        assert_eq!(
            commits("a", "b", &mut history).unwrap_err(),
            "'b' names a blob, not a commit or tree"
        );
    }
}
