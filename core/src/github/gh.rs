//! The gh command lines luxe runs. Field names follow gh's `--json` fields
//! (<https://cli.github.com/manual/gh_pr_view>, `gh pr list`, `gh pr checks`, `gh repo view>`)
//! and GitHub's GraphQL schema for review threads.

use crate::protocol::github::{MergeMethod, PullRequestFilter};

/// The fields of a pull request luxe reads with `gh pr view --json`.
pub const PR_FIELDS: &str = "number,title,body,url,state,isDraft,headRefName,headRefOid,baseRefName,author,reviewDecision,mergeable,additions,deletions,changedFiles,updatedAt";

/// The fields of a pull request luxe reads with `gh pr list --json`.
pub const LIST_FIELDS: &str =
    "number,title,url,state,isDraft,headRefName,baseRefName,author,updatedAt";

/// The fields of a check luxe reads with `gh pr checks --json`.
pub const CHECK_FIELDS: &str = "name,state,bucket,link";

/// A pull request's review threads (the first 100, with their first 100 comments).
pub const THREADS_QUERY: &str = "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100) { nodes { id isResolved path line diffSide comments(first: 100) { nodes { id body author { login } createdAt } } } } } } }";

/// A reply on a review thread.
pub const REPLY_MUTATION: &str = "mutation($threadId: ID!, $body: String!) { addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $threadId, body: $body}) { comment { id url } } }";

/// Resolve a review thread.
pub const RESOLVE_MUTATION: &str = "mutation($threadId: ID!) { resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }";

/// Reopen a review thread.
pub const UNRESOLVE_MUTATION: &str = "mutation($threadId: ID!) { unresolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }";

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

fn with_repo(mut args: Vec<String>, repository: Option<&str>) -> Vec<String> {
    if let Some(repository) = repository {
        args.extend(["--repo".to_owned(), repository.to_owned()]);
    }
    args
}

/// `gh auth status`: exit 0 when logged in.
pub fn auth_status() -> Vec<String> {
    owned(&["auth", "status"])
}

/// The checkout's repository.
pub fn repo_view() -> Vec<String> {
    owned(&[
        "repo",
        "view",
        "--json",
        "nameWithOwner,url,defaultBranchRef",
    ])
}

/// The current branch's pull request.
pub fn current_pr() -> Vec<String> {
    owned(&["pr", "view", "--json", PR_FIELDS])
}

/// Pull request `number`.
pub fn pr_view(number: u64, repository: Option<&str>) -> Vec<String> {
    let number = number.to_string();
    with_repo(
        owned(&["pr", "view", &number, "--json", PR_FIELDS]),
        repository,
    )
}

/// Pull request `number`'s checks.
pub fn pr_checks(number: u64, repository: Option<&str>) -> Vec<String> {
    let number = number.to_string();
    with_repo(
        owned(&["pr", "checks", &number, "--json", CHECK_FIELDS]),
        repository,
    )
}

/// Pull requests in `state`.
pub fn pr_list(state: PullRequestFilter, repository: Option<&str>) -> Vec<String> {
    let state = match state {
        PullRequestFilter::Open => "open",
        PullRequestFilter::Closed => "closed",
        PullRequestFilter::Merged => "merged",
        PullRequestFilter::All => "all",
    };
    with_repo(
        owned(&[
            "pr",
            "list",
            "--json",
            LIST_FIELDS,
            "--state",
            state,
            "--limit",
            "100",
        ]),
        repository,
    )
}

/// The review threads of `owner/name`'s pull request `number`.
pub fn review_threads(repository: &str, number: u64) -> Vec<String> {
    let (owner, name) = repository.split_once('/').unwrap_or((repository, ""));
    owned(&[
        "api",
        "graphql",
        "-f",
        &format!("query={THREADS_QUERY}"),
        "-f",
        &format!("owner={owner}"),
        "-f",
        &format!("name={name}"),
        "-F",
        &format!("number={number}"),
    ])
}

/// A comment on pull request `number`.
pub fn pr_comment(number: u64, body: &str, repository: Option<&str>) -> Vec<String> {
    let number = number.to_string();
    with_repo(
        owned(&["pr", "comment", &number, "--body", body]),
        repository,
    )
}

/// A reply on a review thread.
pub fn thread_reply(thread_id: &str, body: &str) -> Vec<String> {
    owned(&[
        "api",
        "graphql",
        "-f",
        &format!("query={REPLY_MUTATION}"),
        "-f",
        &format!("threadId={thread_id}"),
        "-f",
        &format!("body={body}"),
    ])
}

/// Resolve (or reopen) a review thread.
pub fn thread_resolve(thread_id: &str, resolved: bool) -> Vec<String> {
    let query = if resolved {
        RESOLVE_MUTATION
    } else {
        UNRESOLVE_MUTATION
    };
    owned(&[
        "api",
        "graphql",
        "-f",
        &format!("query={query}"),
        "-f",
        &format!("threadId={thread_id}"),
    ])
}

/// Change pull request `number`; `None` when there is nothing to change.
pub fn pr_edit(
    number: u64,
    title: Option<&str>,
    body: Option<&str>,
    base: Option<&str>,
    repository: Option<&str>,
) -> Option<Vec<String>> {
    let mut args = owned(&["pr", "edit", &number.to_string()]);
    for (flag, value) in [("--title", title), ("--body", body), ("--base", base)] {
        if let Some(value) = value {
            args.extend([flag.to_owned(), value.to_owned()]);
        }
    }
    (args.len() > 3).then(|| with_repo(args, repository))
}

/// Marks pull request `number` ready for review, or (`draft`) back to draft.
pub fn pr_ready(number: u64, draft: bool, repository: Option<&str>) -> Vec<String> {
    let mut args = owned(&["pr", "ready", &number.to_string()]);
    if draft {
        args.push("--undo".to_owned());
    }
    with_repo(args, repository)
}

/// Merge pull request `number` only if its head is still `head_sha`.
pub fn pr_merge(
    number: u64,
    method: MergeMethod,
    delete_branch: bool,
    head_sha: &str,
    repository: Option<&str>,
) -> Vec<String> {
    let method = match method {
        MergeMethod::Merge => "--merge",
        MergeMethod::Squash => "--squash",
        MergeMethod::Rebase => "--rebase",
    };
    let mut args = owned(&[
        "pr",
        "merge",
        &number.to_string(),
        method,
        "--match-head-commit",
        head_sha,
    ]);
    if delete_branch {
        args.push("--delete-branch".to_owned());
    }
    with_repo(args, repository)
}

/// Opens a pull request of `head` into `base`.
pub fn pr_create(title: &str, body: &str, base: &str, head: &str, draft: bool) -> Vec<String> {
    let mut args = owned(&[
        "pr", "create", "--title", title, "--body", body, "--base", base, "--head", head,
    ]);
    if draft {
        args.push("--draft".to_owned());
    }
    args
}

/// The commits of `head` not on `base`, oldest first: hash, NUL, subject, RS.
pub fn git_log(base: &str, head: &str) -> Vec<String> {
    owned(&[
        "log",
        "--reverse",
        "--format=%H%x00%s%x1e",
        &format!("{base}..{head}"),
    ])
}

/// Pushes `branch` to `origin` and sets it as the upstream.
pub fn git_push(branch: &str) -> Vec<String> {
    owned(&["push", "--set-upstream", "origin", branch])
}

/// Pull request `number`'s diff, as a unified diff.
pub fn pr_diff_in(number: u64, repository: Option<&str>) -> Vec<String> {
    with_repo(owned(&["pr", "diff", &number.to_string()]), repository)
}

/// Posts the review whose JSON body gh reads on its stdin (never a file: a review's body and
/// comments are not left on disk).
pub fn review_post(repository: &str, number: u64) -> Vec<String> {
    owned(&[
        "api",
        "--method",
        "POST",
        &format!("repos/{repository}/pulls/{number}/reviews"),
        "--input",
        "-",
    ])
}

/// The head commit of pull request `number`, for a merge luxe has not seen the head of.
pub fn pr_head(number: u64, repository: Option<&str>) -> Vec<String> {
    let number = number.to_string();
    with_repo(
        owned(&["pr", "view", &number, "--json", "headRefOid"]),
        repository,
    )
}

/// The fields a stack reads of every pull request.
pub const STACK_FIELDS: &str = "number,state,headRefName,baseRefName,headRefOid,url";

/// The repository's pull requests in `state` (`open` or `all`), with [`STACK_FIELDS`].
pub fn stack_pulls(state: &str) -> Vec<String> {
    owned(&[
        "pr",
        "list",
        "--state",
        state,
        "--limit",
        "500",
        "--json",
        STACK_FIELDS,
    ])
}
