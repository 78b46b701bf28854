//! The git command lines of stacks and restacks (run in the checkout unless `-C` says where).

use super::refs::REF_FORMAT;

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

/// The local branches and origin's, in [`REF_FORMAT`].
pub fn branches() -> Vec<String> {
    owned(&[
        "for-each-ref",
        REF_FORMAT,
        "refs/heads",
        "refs/remotes/origin",
    ])
}

/// The current branch's short name (fails when HEAD is detached).
pub fn current_branch() -> Vec<String> {
    owned(&["symbolic-ref", "--quiet", "--short", "HEAD"])
}

/// Creates `branch` at `sha`, failing if it exists (the empty old value).
pub fn create_branch(branch: &str, sha: &str) -> Vec<String> {
    owned(&[
        "update-ref",
        "-m",
        "luxe: stack of review chapters",
        &format!("refs/heads/{branch}"),
        sha,
        "",
    ])
}

/// HEAD's first-parent line above origin's `default_branch`, newest first.
pub fn first_parent_line(default_branch: &str) -> Vec<String> {
    owned(&[
        "rev-list",
        "--first-parent",
        "--ignore-missing",
        "HEAD",
        "--not",
        &format!("refs/remotes/origin/{default_branch}"),
    ])
}

/// Pushes `branches` to origin, all or none, each tracking its pushed branch.
pub fn push_new(branches: &[String]) -> Vec<String> {
    let mut args = owned(&[
        "push",
        "--atomic",
        "--porcelain",
        "--set-upstream",
        "origin",
    ]);
    args.extend(
        branches
            .iter()
            .map(|b| format!("refs/heads/{b}:refs/heads/{b}")),
    );
    args
}

/// Brings origin's branches up to date (remote-tracking refs only).
pub fn fetch() -> Vec<String> {
    owned(&["fetch", "--quiet", "origin"])
}

/// The commits above origin's `bases` reachable from `tips`, with parents and boundary (see
/// `graph`); tips git does not have are left out.
pub fn graph(tips: &[String], bases: &[String]) -> Vec<String> {
    let mut args = owned(&["rev-list", "--parents", "--boundary", "--ignore-missing"]);
    args.extend(tips.iter().cloned());
    args.push("--not".to_owned());
    args.extend(bases.iter().map(|b| format!("refs/remotes/origin/{b}")));
    args
}

/// Where `refs` have been, newest first: `SHA refs/heads/B@{n}` per line.
pub fn reflogs(refs: &[String]) -> Vec<String> {
    let mut args = owned(&["log", "--walk-reflogs", "--format=%H %gD"]);
    args.extend(refs.iter().cloned());
    args
}

/// origin's heads of `branches`, asked of origin itself.
pub fn ls_remote(branches: &[String]) -> Vec<String> {
    let mut args = owned(&["ls-remote", "origin"]);
    args.extend(branches.iter().map(|b| format!("refs/heads/{b}")));
    args
}

/// Every worktree and its branch.
pub fn worktrees() -> Vec<String> {
    owned(&["worktree", "list", "--porcelain"])
}

/// Changes to tracked files in the worktree at `path` (untracked files do not block).
pub fn status_in(path: &str) -> Vec<String> {
    owned(&["-C", path, "status", "--porcelain", "--untracked-files=no"])
}

/// `git version`: whether git has `git replay` (2.44 and later); older git restacks by
/// cherry-picking in a private worktree.
pub fn version() -> Vec<String> {
    owned(&["version"])
}

/// The repository's common git directory, absolute.
pub fn common_dir() -> Vec<String> {
    owned(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
}

/// Replays `branch`'s commits after `old_parent` onto `onto` without touching a ref or a work
/// tree; prints `update refs/heads/B NEW OLD`. Since git 2.53 replay updates refs itself unless
/// `replay.refAction` says `print` (older git ignores the key); the committer must be one the
/// user configured, never git's guess from the host name, since the push publishes it.
pub fn replay(onto: &str, old_parent: &str, branch: &str) -> Vec<String> {
    owned(&[
        "-c",
        "replay.refAction=print",
        "-c",
        "user.useConfigOnly=true",
        "replay",
        "--onto",
        onto,
        &format!("{old_parent}..refs/heads/{branch}"),
    ])
}

/// A private detached worktree at `path` on `onto` (the fallback without `git replay`).
pub fn worktree_add(path: &str, onto: &str) -> Vec<String> {
    owned(&["worktree", "add", "--quiet", "--detach", path, onto])
}

/// Cherry-picks `from..to` in the worktree at `path`.
pub fn cherry_pick_in(path: &str, from: &str, to: &str) -> Vec<String> {
    owned(&[
        "-c",
        "user.useConfigOnly=true",
        "-C",
        path,
        "cherry-pick",
        "--keep-redundant-commits",
        &format!("{from}..{to}"),
    ])
}

/// The worktree at `path`'s HEAD.
pub fn head_in(path: &str) -> Vec<String> {
    owned(&["-C", path, "rev-parse", "HEAD"])
}

/// Removes the private worktree at `path`, whatever state a failed cherry-pick left it in.
pub fn worktree_remove(path: &str) -> Vec<String> {
    owned(&["worktree", "remove", "--force", path])
}

/// Creates `reference` at `sha` (a backup ref that keeps an old head reachable), failing if
/// it exists: a backup is never overwritten.
pub fn create_ref(reference: &str, sha: &str) -> Vec<String> {
    owned(&[
        "update-ref",
        "-m",
        "luxe: restack backup",
        reference,
        sha,
        "",
    ])
}

/// The branch checked out at `path` and its commit: `SHA` then `refs/heads/B` (or `HEAD`).
pub fn checked_out_in(path: &str) -> Vec<String> {
    owned(&[
        "-C",
        path,
        "rev-parse",
        "HEAD",
        "--symbolic-full-name",
        "HEAD",
    ])
}

/// Pushes every `(branch, new head, old remote head)` in one atomic push, each guarded by a
/// lease on the remote head the plan saw (none: the branch must not exist there).
pub fn push_leased(moves: &[(String, String, Option<String>)]) -> Vec<String> {
    let mut args = owned(&["push", "--atomic", "--porcelain", "origin"]);
    for (branch, _, old) in moves {
        args.push(format!(
            "--force-with-lease=refs/heads/{branch}:{}",
            old.as_deref().unwrap_or("")
        ));
    }
    for (branch, new, _) in moves {
        args.push(format!("{new}:refs/heads/{branch}"));
    }
    args
}

/// Moves `branch` from `old` to `new` (refused if it is not at `old`).
pub fn move_branch(branch: &str, new: &str, old: &str) -> Vec<String> {
    owned(&[
        "update-ref",
        "-m",
        "luxe: restack",
        &format!("refs/heads/{branch}"),
        new,
        old,
    ])
}

/// Moves the branch checked out at `path` to `new`, carrying the work tree along (refused
/// when a local change would be lost).
pub fn reset_keep_in(path: &str, new: &str) -> Vec<String> {
    owned(&["-C", path, "reset", "--quiet", "--keep", new])
}
