//! A repository, its origin and GitHub as a model for tests: it answers the git and gh
//! commands a restack runs and changes as they would, so a test sees what a push left where.

use std::collections::{BTreeMap, BTreeSet};

use crate::steps::Ran;

/// A repository, its origin and GitHub, as far as a restack sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct World {
    /// Local branches and their heads.
    pub(crate) local: BTreeMap<String, String>,
    /// origin's branches and their heads.
    pub(crate) remote: BTreeMap<String, String>,
    /// The worktree each branch is checked out in.
    pub(crate) worktrees: BTreeMap<String, String>,
    /// Worktrees with changes to tracked files.
    pub(crate) dirty: BTreeSet<String>,
    /// luxe's backup refs and what they keep.
    pub(crate) backups: BTreeMap<String, String>,
    /// Each pull request's base on GitHub.
    pub(crate) bases: BTreeMap<u64, String>,
    /// Branches whose commits conflict wherever they are replayed.
    pub(crate) conflicts: BTreeSet<String>,
    /// The private worktree's HEAD, while it exists.
    pub(crate) scratch: Option<String>,
    /// The push is refused whole (a hook): nothing moves.
    pub(crate) push_refused: bool,
    /// The connection drops after origin took the push.
    pub(crate) push_cut: bool,
    /// Another push moves this branch on origin once luxe has made its checks.
    pub(crate) race: Option<String>,
    /// Someone commits on this branch in its worktree while luxe pushes.
    pub(crate) committed_meanwhile: Option<String>,
    /// Branches whose local ref cannot be moved (locked, or its worktree in the way).
    pub(crate) local_fails: BTreeSet<String>,
    /// Pull requests GitHub refuses to retarget.
    pub(crate) gh_fails: BTreeSet<u64>,
}

/// The commit replaying `from..to` onto `onto` makes.
pub(crate) fn replayed(onto: &str, from: &str, to: &str) -> String {
    format!("{to}~{from}@{onto}")
}

impl World {
    /// The branch checked out at `path`.
    fn branch_at(&self, path: &str) -> Option<String> {
        self.worktrees
            .iter()
            .find(|(_, p)| *p == path)
            .map(|(b, _)| b.clone())
    }

    /// What `args` (git's or gh's, without the program) print in this world, and how they
    /// change it.
    pub(crate) fn answer(&mut self, args: &[String]) -> Ran {
        let mut a: &[String] = args;
        // `-c key=value` settings change nothing the model knows.
        while let [c, _, rest @ ..] = a
            && c == "-c"
        {
            a = rest;
        }
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        match a.as_slice() {
            ["for-each-ref", ..] => Ran::ok(
                self.local
                    .iter()
                    .map(|(b, s)| format!("refs/heads/{b}\0{s}\n"))
                    .collect::<String>(),
            ),
            ["ls-remote", "origin", refs @ ..] => Ran::ok(
                refs.iter()
                    .filter_map(|r| {
                        let b = r.strip_prefix("refs/heads/")?;
                        Some(format!("{}\t{r}\n", self.remote.get(b)?))
                    })
                    .collect::<String>(),
            ),
            ["worktree", "list", "--porcelain"] => Ran::ok(
                self.worktrees
                    .iter()
                    .map(|(b, p)| format!("worktree {p}\nHEAD x\nbranch refs/heads/{b}\n\n"))
                    .collect::<String>(),
            ),
            ["-C", path, "status", ..] => Ran::ok(if self.dirty.contains(*path) {
                " M f\n"
            } else {
                ""
            }),
            ["replay", "--onto", onto, range] => {
                let (from, to) = range.split_once("..").unwrap_or_default();
                let branch = to.trim_start_matches("refs/heads/");
                if self.conflicts.contains(branch) {
                    return Ran::failed("CONFLICT (content): Merge conflict in f");
                }
                let old = &self.local[branch];
                let new = replayed(onto, from, old);
                Ran::ok(format!("update refs/heads/{branch} {new} {old}\n"))
            }
            ["worktree", "add", "--quiet", "--detach", _, onto] => {
                self.scratch = Some((*onto).to_owned());
                Ran::ok("")
            }
            ["-C", _, "cherry-pick", _, range] => {
                let (from, to) = range.split_once("..").unwrap_or_default();
                let branch = self
                    .local
                    .iter()
                    .find(|(_, s)| *s == to)
                    .map(|(b, _)| b.clone());
                if branch.is_some_and(|b| self.conflicts.contains(&b)) {
                    return Ran::failed("CONFLICT (content): Merge conflict in f");
                }
                let onto = self.scratch.clone().unwrap_or_default();
                self.scratch = Some(replayed(&onto, from, to));
                Ran::ok("")
            }
            ["-C", _, "rev-parse", "HEAD"] => Ran::ok(self.scratch.clone().unwrap_or_default()),
            ["worktree", "remove", "--force", _] => {
                self.scratch = None;
                Ran::ok("")
            }
            ["update-ref", "-m", _, reference, sha, ""] if reference.starts_with("refs/luxe/") => {
                if self.backups.contains_key(*reference) {
                    return Ran::failed("reference already exists");
                }
                self.backups
                    .insert((*reference).to_owned(), (*sha).to_owned());
                if let Some(b) = self.race.take() {
                    self.remote.insert(b, "raced".into());
                }
                Ran::ok("")
            }
            ["update-ref", "-m", _, reference, new, old] => {
                let b = reference.trim_start_matches("refs/heads/");
                if self.local_fails.contains(b)
                    || self.local.get(b).map(String::as_str) != Some(*old)
                {
                    return Ran::failed("cannot lock ref");
                }
                self.local.insert(b.to_owned(), (*new).to_owned());
                Ran::ok("")
            }
            [
                "-C",
                path,
                "rev-parse",
                "HEAD",
                "--symbolic-full-name",
                "HEAD",
            ] => {
                let Some(b) = self.branch_at(path) else {
                    return Ran::failed("not a worktree");
                };
                Ran::ok(format!("{}\nrefs/heads/{b}\n", self.local[&b]))
            }
            ["-C", path, "reset", "--quiet", "--keep", new] => {
                let Some(b) = self.branch_at(path) else {
                    return Ran::failed("not a worktree");
                };
                if self.local_fails.contains(&b) {
                    return Ran::failed("Entry 'f' not uptodate. Cannot merge.");
                }
                self.local.insert(b, (*new).to_owned());
                Ran::ok("")
            }
            ["push", "--atomic", "--porcelain", "origin", rest @ ..] => {
                let mut updates = Vec::new();
                for arg in rest {
                    if let Some(lease) = arg.strip_prefix("--force-with-lease=refs/heads/") {
                        let (b, expect) = lease.split_once(':').unwrap_or((lease, ""));
                        let now = self.remote.get(b).map_or("", String::as_str);
                        if now != expect {
                            return Ran::failed(format!("! [rejected] {b} (stale info)"));
                        }
                    } else if let Some((new, b)) = arg.split_once(":refs/heads/") {
                        assert!(!new.is_empty(), "a push must never delete {b}");
                        updates.push((b.to_owned(), new.to_owned()));
                    }
                }
                if self.push_refused {
                    return Ran::failed("! [remote rejected] (pre-receive hook declined)");
                }
                self.remote.extend(updates);
                if let Some(b) = self.committed_meanwhile.take() {
                    self.local.insert(b, "committed-meanwhile".into());
                }
                if self.push_cut {
                    return Ran::failed("fatal: the remote end hung up unexpectedly");
                }
                Ran::ok("Done\n")
            }
            ["pr", "edit", number, "--base", base] => {
                let number: u64 = number.parse().unwrap_or_default();
                if self.gh_fails.contains(&number) {
                    return Ran::failed("GraphQL: Base ref must be a branch");
                }
                self.bases.insert(number, (*base).to_owned());
                Ran::ok("")
            }
            other => Ran::failed(format!("the model does not know {other:?}")),
        }
    }
}
