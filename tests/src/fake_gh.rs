//! A fake `gh` on PATH, since GitHub is out of reach in tests: Luxe runs the user's own `gh`, so
//! a test puts [`FakeGh`]'s `bin/` first on `PATH` and Luxe runs the fake exactly as it would run
//! the real one.
//!
//! The fake is the Python 3 script `tests/fake_gh/gh` (standard library only). It answers from a
//! JSON state file (`$FAKE_GH_STATE`), writes its writes back into it (a comment posted shows up
//! in later reads, a merged pull request is `MERGED`), and appends one JSON line per invocation
//! to `$FAKE_GH_LOG`: `{"argv": [...], "stdin": "..."|null, "env": {...}, "cwd": "..."}`, where
//! `env` keeps the `GH_*` variables and `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`, `CI`,
//! `GITHUB_ACTIONS`, `GITHUB_TOKEN` (tokens as `"<redacted>"`), and `stdin` is read only by the
//! commands that take it (`--input -`, a field's `@-`).
//!
//! It refuses what it does not know as real gh refuses it: an unknown command is exit 1 with
//! `unknown command "x" for "gh pr"`, an unknown flag exit 1 with `unknown flag: --x` and the
//! usage, an unknown `--json` field exit 1 with `Unknown JSON field: "x"`. So a typo in the argv
//! Luxe builds fails the test. A flag real gh has but the fake does not implement is refused the
//! same way, on purpose: the fake could not answer it faithfully.
//!
//! # Commands
//!
//! In gh's order: command, flags and argument count are checked first (exit 1), then
//! authentication (exit 4 and gh's "To get started with GitHub CLI, please run:  gh auth login"
//! when `auth` is false, for every command but `--version` and `auth status`), then the `--json`
//! fields, then the command. `-R/--repo OWNER/NAME` (or `GH_REPO`) must name `state.repo`; a
//! selector is a number, `#N`, a pull request URL or a branch; without one, the pull request of
//! the branch checked out in the working directory (`git rev-parse --abbrev-ref HEAD`).
//!
//! | command | flags | answer |
//! | --- | --- | --- |
//! | `gh --version` | | `gh version 2.63.0 (2024-11-27)` and the release URL |
//! | `gh auth status` | `-h/--hostname H` | the login report on stdout, exit 0; logged out: `You are not logged into any GitHub hosts. To log in, run: gh auth login`, exit 1 |
//! | `gh repo view [OWNER/NAME]` | `--json F` | `state.repo`'s fields; no repo: `no git remotes found` (or `state.repo_error`'s text), exit 1 |
//! | `gh pr view [SEL]` | `--json F`, `-R` | the pull request's fields; none for the branch: `no pull requests found for branch "B"` |
//! | `gh pr list` | `--json F`, `-s/--state open\|closed\|merged\|all`, `-L/--limit N`, `-H/--head B`, `-R` | newest first, open by default (`closed` includes merged) |
//! | `gh pr checks [SEL]` | `--json F`, `-R` | `state.checks[N]`, exit 0 with `--json` whatever they say (as gh: the exporter returns before the exit codes); without `--json`, tab-separated rows and exit 1 failing, 8 pending; no checks: `no checks reported on the 'B' branch`, exit 1 |
//! | `gh pr diff [SEL]` | `-R` | `state.diffs[N]` as it is |
//! | `gh pr comment [SEL]` | `-b/--body T`, `-R` | the comment URL; appended to the pull request's `comments` |
//! | `gh pr edit [SEL]` | `-t/--title`, `-b/--body`, `-B/--base`, `--add-label L,..`, `--remove-label L,..` (repeatable), `-R` | the pull request URL; a label not in `state.labels` (when given): `'L' not found` |
//! | `gh pr merge [SEL]` | one of `-m/--merge`, `-s/--squash`, `-r/--rebase`; `--match-head-commit SHA`, `-d/--delete-branch`, `-R` | nothing (no terminal); `MERGED` after; a SHA other than `headRefOid`: `GraphQL: Head branch was modified. Review and try the merge again. (mergePullRequest)`, exit 1; with `-d`, open pull requests based on the head branch move to its base, as GitHub moves them; already merged: a warning, exit 0; `mergeStateStatus` `BLOCKED`/`BEHIND`/`DIRTY`: `X Pull request #N is not mergeable: ...`, exit 1 |
//! | `gh pr create` | `-t/--title`, `-b/--body` (both required), `-B/--base` (default branch), `-H/--head` (current branch), `-d/--draft`, `-R` | the new URL; an open one for the same head and base: `a pull request for branch "H" into branch "B" already exists:` and its URL |
//! | `gh api graphql` | `-f/--raw-field k=v`, `-F/--field k=v` (`true`, `false`, `null`, integers, `@file`, `@-`), `-X/--method` | by the document: `reviewThreads` of `repository(owner, name){pullRequest(number)}` or of `node(id)`; the mutations `addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId, body})`, `resolveReviewThread(input: {threadId})` and `unresolveReviewThread`; GraphQL errors print the body and `gh: <message>`, exit 1 |
//! | `gh api repos/O/N/pulls/N/reviews` | `-X POST`, `--input FILE\|-` | the review (`html_url`, ...); each comment becomes a thread; a comment whose `path`/`line`/`side` (or `start_line`) is not in `state.diffs[N]`: 422 with body `{"message": "Unprocessable Entity", "errors": [...], "fake_gh_bad_comment": {index, path, line, side, why}}` on stdout and `gh: Unprocessable Entity (HTTP 422)`, exit 1, nothing recorded |
//!
//! Any other `gh api` path answers 404 (`gh: Not Found (HTTP 404)`, and a `fake_gh` field in the
//! body naming what had no answer). Exit 70 means the fake itself was misused (no state file).
//!
//! # The state
//!
//! A JSON object; every key optional but `repo` for the commands about a repository.
//!
//! - `auth`: bool, default true.
//! - `user`: the login of whoever writes (default `"octocat"`).
//! - `repo`: `{nameWithOwner, url, defaultBranchRef: {name}, isPrivate, ...}` (any of gh's
//!   repository fields), or null for a checkout gh cannot map to GitHub; then `repo_error` picks
//!   gh's words: `"no_remotes"` (default), `"not_github"`, `"not_a_repo"`.
//! - `pull_requests`: `[{number, title, body, url, state: OPEN|CLOSED|MERGED, isDraft,
//!   headRefName, headRefOid, baseRefName, author: {login}, reviewDecision, mergeable,
//!   mergeStateStatus, additions, deletions, changedFiles, updatedAt, labels: [{name}],
//!   comments: [...], id, ...}]`, in gh's field names; a field left out answers as GitHub would
//!   for an empty one (`[]` for lists, the URL from the repository's, else null).
//! - `checks`: `{"N": [{name, state, bucket: pass|fail|pending|skipping|cancel, link, workflow,
//!   startedAt, completedAt, event, description}]}`.
//! - `diffs`: `{"N": "<unified diff, as git diff prints it>"}`.
//! - `threads`: `{"N": [{id, isResolved, isOutdated, path, line, startLine, diffSide,
//!   startDiffSide, comments: {nodes: [{id, databaseId, body, author: {login}, createdAt,
//!   url}]}}]}`.
//! - `labels`: the repository's label names; when present, `--add-label` must name one.
//! - `branches`: `{"name": "sha"}`, the head SHA `pr create` records (else `git rev-parse` here,
//!   else zeros).
//! - `delay_ms`: sleep this long before answering (timeouts).
//! - `fail`: `{"pr view": {exit, stderr, stdout?, times?}}`, keyed by the command without `gh `
//!   (`"api"` for both kinds of api): answer so instead, after the argv was checked; `times`
//!   counts down and then the entry goes; `skip` lets that many calls through first.
//! - `now`: the timestamp writes record (default the clock); `next_id`: the next id for comments,
//!   reviews and threads (default 1000), so a replay gives the same ids.
//!
//! Written by the fake: `reviews: {"N": [...]}` (each posted review with its comments),
//! `merges: [{number, method, delete_branch}]`, `deleted_branches: [...]`, and the pull
//! requests' own fields. Writes are all or nothing: a failed command leaves the state as it was.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// The fake's source, `tests/fake_gh/gh`.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fake_gh/gh")
}

/// A temporary `bin/gh` (the fake), its state file and its log, removed when dropped.
pub struct FakeGh {
    dir: tempfile::TempDir,
}

impl FakeGh {
    /// A fake answering from `state` (the schema is in the module documentation).
    pub fn new(state: &Value) -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("mkdir bin");
        // A copy, not a link: the test's fake stays what it was when the test began, and
        // fs::copy keeps the executable bit.
        std::fs::copy(script(), bin.join("gh")).expect("copy the fake gh");
        let fake = Self { dir };
        fake.set_state(state);
        fake
    }

    /// The directory holding `gh`, to put first on `PATH`.
    pub fn bin_dir(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// The fake `gh` itself, to run directly.
    pub fn gh(&self) -> PathBuf {
        self.bin_dir().join("gh")
    }

    /// A `PATH` with the fake first and the rest of this process's `PATH` after it, so git
    /// (and python3 for the fake) are still found.
    pub fn path_env(&self) -> OsString {
        let rest = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.bin_dir()];
        paths.extend(std::env::split_paths(&rest));
        std::env::join_paths(paths).expect("no ':' in the temp dir's path")
    }

    /// The state file (`$FAKE_GH_STATE`).
    pub fn state_path(&self) -> PathBuf {
        self.dir.path().join("state.json")
    }

    /// The invocation log (`$FAKE_GH_LOG`), one JSON line per `gh` run.
    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("log.jsonl")
    }

    /// The environment a process needs to run the fake as `gh`: `PATH`, `FAKE_GH_STATE` and
    /// `FAKE_GH_LOG`, for [`Command::envs`].
    pub fn envs(&self) -> [(&'static str, OsString); 3] {
        [
            ("PATH", self.path_env()),
            ("FAKE_GH_STATE", self.state_path().into_os_string()),
            ("FAKE_GH_LOG", self.log_path().into_os_string()),
        ]
    }

    /// A command running the fake directly with `args`, with [`FakeGh::envs`] and without the
    /// variables that change gh's words (`CI`, `GITHUB_ACTIONS`) or its repository (`GH_REPO`).
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut cmd = Command::new(self.gh());
        cmd.args(args).envs(self.envs());
        for var in ["CI", "GITHUB_ACTIONS", "GH_REPO"] {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Every invocation so far, in order.
    pub fn log(&self) -> Vec<Value> {
        let text = match std::fs::read_to_string(self.log_path()) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => panic!("reading the fake gh's log: {e}"),
        };
        text.lines()
            .map(|line| serde_json::from_str(line).expect("a log line is JSON"))
            .collect()
    }

    /// The argv of every invocation so far (without the program name), in order.
    pub fn argvs(&self) -> Vec<Vec<String>> {
        self.log()
            .iter()
            .map(|call| {
                call["argv"]
                    .as_array()
                    .expect("a logged argv")
                    .iter()
                    .map(|a| a.as_str().expect("argv words are strings").to_owned())
                    .collect()
            })
            .collect()
    }

    /// The state as it is now, with the fake's writes.
    pub fn state(&self) -> Value {
        let text = std::fs::read_to_string(self.state_path()).expect("the state file");
        serde_json::from_str(&text).expect("the state is JSON")
    }

    /// Replaces the state, atomically (write then rename), so a `gh` running meanwhile reads
    /// the old state or the new one, never half of one.
    pub fn set_state(&self, state: &Value) {
        let tmp = self.dir.path().join("state.json.new");
        let text = serde_json::to_string_pretty(state).expect("a state serializes");
        std::fs::write(&tmp, text).expect("write the state");
        std::fs::rename(&tmp, self.state_path()).expect("replace the state");
    }

    /// Changes the state in place with `edit`.
    pub fn update_state(&self, edit: impl FnOnce(&mut Value)) {
        let mut state = self.state();
        edit(&mut state);
        self.set_state(&state);
    }
}

/// The diff of pull request #7 in [`example_state`]: one hunk; new lines 1-4, old lines 1-3.
pub const EXAMPLE_DIFF: &str = concat!(
    "diff --git a/src/frob.rs b/src/frob.rs\n",
    "index 1111111..2222222 100644\n",
    "--- a/src/frob.rs\n",
    "+++ b/src/frob.rs\n",
    "@@ -1,3 +1,4 @@\n",
    " fn a() {}\n",
    "-fn b() {}\n",
    "+fn b() { frob() }\n",
    "+fn c() {}\n",
    " fn d() {}\n",
);

/// A small world to start from: `acme/widgets` (default branch `main`), an open pull request
/// #7 from `frobs` with a one-hunk diff of `src/frob.rs`, a passing and a pending check and one
/// unresolved review thread; and #5, merged.
pub fn example_state() -> Value {
    let head = "1111111111111111111111111111111111111111";
    json!({
        "auth": true,
        "user": "octocat",
        "repo": {
            "nameWithOwner": "acme/widgets",
            "url": "https://github.com/acme/widgets",
            "defaultBranchRef": {"name": "main"},
            "isPrivate": false
        },
        "labels": ["bug", "ready"],
        "pull_requests": [
            {
                "number": 7, "id": "PR_fake7", "title": "Add frobs", "body": "Adds frobs.",
                "url": "https://github.com/acme/widgets/pull/7", "state": "OPEN",
                "isDraft": false, "headRefName": "frobs", "headRefOid": head,
                "baseRefName": "main", "author": {"login": "alice"},
                "reviewDecision": "REVIEW_REQUIRED", "mergeable": "MERGEABLE",
                "mergeStateStatus": "CLEAN", "additions": 2, "deletions": 1,
                "changedFiles": 1, "updatedAt": "2024-05-01T10:00:00Z", "labels": []
            },
            {
                "number": 5, "title": "Old work", "body": "",
                "url": "https://github.com/acme/widgets/pull/5", "state": "MERGED",
                "isDraft": false, "headRefName": "old", "baseRefName": "main",
                "headRefOid": "2222222222222222222222222222222222222222",
                "author": {"login": "bob"}, "updatedAt": "2024-04-01T10:00:00Z"
            }
        ],
        "checks": {"7": [
            {"name": "build", "state": "SUCCESS", "bucket": "pass",
             "link": "https://ci.example/1", "workflow": "CI"},
            {"name": "test", "state": "IN_PROGRESS", "bucket": "pending",
             "link": "https://ci.example/2", "workflow": "CI"}
        ]},
        "diffs": {"7": EXAMPLE_DIFF},
        "threads": {"7": [{
            "id": "PRRT_1", "isResolved": false, "isOutdated": false,
            "path": "src/frob.rs", "line": 2, "startLine": null, "diffSide": "RIGHT",
            "comments": {"nodes": [{
                "id": "PRRC_1", "databaseId": 1, "body": "Why frob here?",
                "author": {"login": "bob"}, "createdAt": "2024-05-01T11:00:00Z",
                "url": "https://github.com/acme/widgets/pull/7#discussion_r1"
            }]}
        }]},
        "now": "2024-05-02T09:00:00Z"
    })
}
