//! The fake `gh` run directly, as Luxe will run it: each supported command answers with gh's
//! fields and texts, writes show up in later reads, and everything gh would refuse is refused.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use luxe_tests::fake_gh::{FakeGh, example_state};
use luxe_tests::git_repo::{git, init_repo};
use serde_json::{Value, json};

const HEAD: &str = "1111111111111111111111111111111111111111";
const NOT_LOGGED_IN: &str = "To get started with GitHub CLI, please run:  gh auth login\n";

/// What one run of the fake gave back.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    #[track_caller]
    fn ok(self) -> Self {
        assert_eq!(self.code, 0, "{self:?}");
        self
    }

    /// gh's failure: exit 1 and exactly `stderr`.
    #[track_caller]
    fn fails_with(self, stderr: &str) -> Self {
        assert_eq!((self.code, self.stderr.as_str()), (1, stderr), "{self:?}");
        self
    }

    /// gh's failure: exit 1 and a stderr that starts with `prefix` (a usage may follow).
    #[track_caller]
    fn fails_starting(self, prefix: &str) -> Self {
        assert_eq!(self.code, 1, "{self:?}");
        assert!(
            self.stderr.starts_with(prefix),
            "stderr should start {prefix:?}: {self:?}"
        );
        self
    }
}

fn finish(mut cmd: Command, stdin: Option<&str>) -> Out {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the fake gh runs");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("piped stdin");
        pipe.write_all(text.as_bytes())
            .expect("the fake reads stdin");
    }
    let out = child.wait_with_output().expect("the fake gh ends");
    Out {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

fn gh(fake: &FakeGh, args: &[&str]) -> Out {
    finish(fake.command(args), None)
}

fn gh_stdin(fake: &FakeGh, args: &[&str], stdin: &str) -> Out {
    finish(fake.command(args), Some(stdin))
}

fn gh_in(fake: &FakeGh, dir: &Path, args: &[&str]) -> Out {
    let mut cmd = fake.command(args);
    cmd.current_dir(dir);
    finish(cmd, None)
}

fn example() -> FakeGh {
    FakeGh::new(&example_state())
}

fn pr(state: &Value, number: u64) -> &Value {
    state["pull_requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pr| pr["number"] == number)
        .unwrap_or_else(|| panic!("no #{number} in {state}"))
}

const THREADS_QUERY: &str = "query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100) {
        nodes { id isResolved path line startLine diffSide
          comments(first: 100) { nodes { id body author { login } createdAt url } } }
      }
    }
  }
}";

/// The review-threads query for pull request `number`, its number sent with `flag` (`-F` types
/// it, `-f` sends a string).
fn threads_call(fake: &FakeGh, flag: &str, number: &str) -> Out {
    let query = format!("query={THREADS_QUERY}");
    let number = format!("number={number}");
    let fields = ["-F", "owner=acme", "-F", "name=widgets", flag, &number];
    gh(
        fake,
        &[&["api", "graphql", "-f", &query][..], &fields].concat(),
    )
}

/// The review threads of pull request `number`.
fn threads(fake: &FakeGh, number: &str) -> Value {
    let out = threads_call(fake, "-F", number).ok();
    out.json()["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"].clone()
}

#[test]
fn version_and_auth_status() {
    let fake = example();
    let out = gh(&fake, &["--version"]).ok();
    assert!(out.stdout.starts_with("gh version 2."), "{out:?}");

    let out = gh(&fake, &["auth", "status"]).ok();
    assert!(
        out.stdout
            .contains("Logged in to github.com account octocat"),
        "gh reports on stdout since 2.31: {out:?}"
    );
    gh(&fake, &["auth", "status", "--hostname", "github.com"]).ok();

    fake.update_state(|s| s["auth"] = json!(false));
    gh(&fake, &["auth", "status"])
        .fails_with("You are not logged into any GitHub hosts. To log in, run: gh auth login\n");
    gh(&fake, &["--version"]).ok();
}

#[test]
fn unauthenticated_commands_exit_4_and_change_nothing() {
    let fake = example();
    fake.update_state(|s| s["auth"] = json!(false));
    let before = fake.state();
    let commands: &[&[&str]] = &[
        &["repo", "view", "--json", "url"],
        &["pr", "view", "7", "--json", "number"],
        &["pr", "list", "--json", "number"],
        &["pr", "checks", "7", "--json", "name"],
        &["pr", "diff", "7"],
        &["pr", "comment", "7", "--body", "hi"],
        &["pr", "edit", "7", "--title", "t"],
        &["pr", "merge", "7", "--squash"],
        &["pr", "create", "--title", "t", "--body", "b", "--head", "x"],
        &["api", "graphql", "-f", "query=query { viewer { login } }"],
    ];
    for args in commands {
        let out = gh(&fake, args);
        assert_eq!(out.code, 4, "{args:?}: {out:?}");
        assert!(out.stderr.starts_with(NOT_LOGGED_IN), "{args:?}: {out:?}");
        assert_eq!(out.stdout, "");
    }
    assert_eq!(fake.state(), before);

    // gh words it for automation when CI is set.
    let mut cmd = fake.command(["pr", "diff", "7"]);
    cmd.env("CI", "true");
    let out = finish(cmd, None);
    assert_eq!(out.code, 4);
    assert_eq!(
        out.stderr,
        "gh: To use GitHub CLI in automation, set the GH_TOKEN environment variable.\n"
    );

    // Flags are parsed before authentication is checked: a typo is still a typo.
    gh(&fake, &["pr", "view", "7", "--jsn", "number"]).fails_starting("unknown flag: --jsn\n");
}

#[test]
fn repo_view_answers_the_fields_asked_or_says_there_is_no_remote() {
    let fake = example();
    let out = gh(
        &fake,
        &[
            "repo",
            "view",
            "--json",
            "nameWithOwner,url,defaultBranchRef,isPrivate",
        ],
    )
    .ok();
    assert_eq!(
        out.json(),
        json!({
            "nameWithOwner": "acme/widgets",
            "url": "https://github.com/acme/widgets",
            "defaultBranchRef": {"name": "main"},
            "isPrivate": false
        })
    );

    fake.update_state(|s| s["repo"] = Value::Null);
    gh(&fake, &["repo", "view", "--json", "url"]).fails_with("no git remotes found\n");
    gh(&fake, &["pr", "list", "--json", "number"]).fails_with("no git remotes found\n");

    fake.update_state(|s| s["repo_error"] = json!("not_github"));
    gh(&fake, &["repo", "view", "--json", "url"]).fails_starting(
        "none of the git remotes configured for this repository point to a known GitHub host",
    );
}

#[test]
fn pr_view_answers_every_field_luxe_reads() {
    let fake = example();
    let fields = "number,title,body,url,state,isDraft,headRefName,headRefOid,baseRefName,\
                  author,reviewDecision,mergeable,additions,deletions,changedFiles,updatedAt";
    let out = gh(&fake, &["pr", "view", "7", "--json", fields]).ok();
    assert_eq!(
        out.json(),
        json!({
            "number": 7, "title": "Add frobs", "body": "Adds frobs.",
            "url": "https://github.com/acme/widgets/pull/7", "state": "OPEN",
            "isDraft": false, "headRefName": "frobs", "headRefOid": HEAD,
            "baseRefName": "main", "author": {"login": "alice"},
            "reviewDecision": "REVIEW_REQUIRED", "mergeable": "MERGEABLE", "additions": 2,
            "deletions": 1, "changedFiles": 1, "updatedAt": "2024-05-01T10:00:00Z"
        })
    );
    // gh prints Go's compact encoding, keys sorted.
    assert!(
        out.stdout.starts_with("{\"additions\":2,\"author\":"),
        "{out:?}"
    );

    // The same pull request by #N, by URL and with -R before the subcommand.
    for args in [
        &["pr", "view", "#7", "--json", "number"][..],
        &[
            "pr",
            "view",
            "https://github.com/acme/widgets/pull/7",
            "--json",
            "number",
        ],
        &["pr", "-R", "acme/widgets", "view", "7", "--json", "number"],
        &[
            "pr",
            "view",
            "frobs",
            "--json",
            "number",
            "--repo",
            "acme/widgets",
        ],
    ] {
        assert_eq!(
            gh(&fake, args).ok().json(),
            json!({"number": 7}),
            "{args:?}"
        );
    }
    // A field the state leaves out answers as GitHub would for an empty one.
    let out = gh(
        &fake,
        &["pr", "view", "5", "--json", "labels,comments,closed"],
    )
    .ok();
    assert_eq!(
        out.json(),
        json!({"labels": [], "comments": [], "closed": true})
    );

    gh(&fake, &["pr", "view", "99", "--json", "number"]).fails_with(
        "GraphQL: Could not resolve to a PullRequest with the number of 99. \
         (repository.pullRequest)\n",
    );
    gh(
        &fake,
        &["pr", "view", "7", "--json", "number", "-R", "other/repo"],
    )
    .fails_starting("GraphQL: Could not resolve to a Repository");
}

#[test]
fn pr_view_without_a_number_is_the_checked_out_branch() {
    let fake = example();
    let repo = tempfile::tempdir().unwrap();
    init_repo(repo.path(), &[("README", "hi\n")]);
    git(repo.path(), &["checkout", "--quiet", "-b", "frobs"]);
    let out = gh_in(
        &fake,
        repo.path(),
        &["pr", "view", "--json", "number,headRefName"],
    )
    .ok();
    assert_eq!(out.json(), json!({"number": 7, "headRefName": "frobs"}));
    let out = gh_in(&fake, repo.path(), &["pr", "checks", "--json", "name"]).ok();
    assert_eq!(out.json().as_array().unwrap().len(), 2);

    git(repo.path(), &["checkout", "--quiet", "-b", "lonely"]);
    gh_in(&fake, repo.path(), &["pr", "view", "--json", "number"])
        .fails_with("no pull requests found for branch \"lonely\"\n");

    // --repo needs a selector: the branch here means nothing in another repository.
    gh_in(
        &fake,
        repo.path(),
        &["pr", "view", "-R", "acme/widgets", "--json", "number"],
    )
    .fails_starting("argument required when using the --repo flag\n");
}

#[test]
fn pr_list_filters_by_state_head_and_limit() {
    let fake = example();
    let numbers = |args: &[&str]| -> Vec<u64> {
        let args = [&["pr", "list", "--json", "number,state"][..], args].concat();
        let out = gh(&fake, &args).ok();
        out.json()
            .as_array()
            .unwrap()
            .iter()
            .map(|pr| pr["number"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(numbers(&[]), [7], "open by default");
    assert_eq!(numbers(&["--state", "all"]), [7, 5], "newest first");
    assert_eq!(numbers(&["--state", "merged"]), [5]);
    assert_eq!(numbers(&["-s", "closed"]), [5], "closed includes merged");
    assert_eq!(numbers(&["--state", "all", "-L", "1"]), [7]);
    assert_eq!(numbers(&["--state", "all", "--head", "old"]), [5]);
    assert_eq!(numbers(&["--head", "nothing"]), Vec::<u64>::new());

    gh(
        &fake,
        &["pr", "list", "--json", "number", "--state", "opened"],
    )
    .fails_starting(
        "invalid argument \"opened\" for \"-s, --state\" flag: valid values are \
         {open|closed|merged|all}\n",
    );
    gh(&fake, &["pr", "list", "--json", "number", "--limit", "0"])
        .fails_starting("invalid value for --limit: 0\n");
}

#[test]
fn pr_checks_with_json_exit_0_even_when_pending_as_gh_does() {
    let fake = example();
    let out = gh(
        &fake,
        &[
            "pr",
            "checks",
            "7",
            "--json",
            "name,state,bucket,link,workflow",
        ],
    )
    .ok();
    assert_eq!(
        out.json(),
        json!([
            {"name": "build", "state": "SUCCESS", "bucket": "pass",
             "link": "https://ci.example/1", "workflow": "CI"},
            {"name": "test", "state": "IN_PROGRESS", "bucket": "pending",
             "link": "https://ci.example/2", "workflow": "CI"}
        ])
    );
    // Without --json gh reports the verdict in its exit code: 8 pending, 1 failing.
    let out = gh(&fake, &["pr", "checks", "7"]);
    assert_eq!(out.code, 8, "{out:?}");
    assert!(out.stdout.contains("test\tpending\t"));
    fake.update_state(|s| s["checks"]["7"][1]["bucket"] = json!("fail"));
    assert_eq!(gh(&fake, &["pr", "checks", "7"]).code, 1);
    gh(&fake, &["pr", "checks", "7", "--json", "bucket"]).ok();

    gh(&fake, &["pr", "checks", "5", "--json", "name"])
        .fails_with("no checks reported on the 'old' branch\n");
    gh(&fake, &["pr", "checks", "7", "--json", "conclusion"])
        .fails_starting("Unknown JSON field: \"conclusion\"\nAvailable fields:\n");
}

#[test]
fn pr_diff_prints_the_diff_as_it_is() {
    let fake = example();
    let out = gh(&fake, &["pr", "diff", "7"]).ok();
    assert_eq!(out.stdout, luxe_tests::fake_gh::EXAMPLE_DIFF);
    let out = gh(&fake, &["pr", "diff", "7", "--repo", "acme/widgets"]).ok();
    assert_eq!(out.stdout, luxe_tests::fake_gh::EXAMPLE_DIFF);
}

#[test]
fn a_comment_shows_up_in_later_reads() {
    let fake = example();
    let out = gh(&fake, &["pr", "comment", "7", "--body", "Ship it"]).ok();
    assert_eq!(
        out.stdout,
        "https://github.com/acme/widgets/pull/7#issuecomment-1000\n"
    );
    let comments = gh(&fake, &["pr", "view", "7", "--json", "comments"])
        .ok()
        .json();
    let comment = &comments["comments"][0];
    assert_eq!(comment["body"], "Ship it");
    assert_eq!(comment["author"]["login"], "octocat");
    assert_eq!(
        comment["url"],
        "https://github.com/acme/widgets/pull/7#issuecomment-1000"
    );

    gh(&fake, &["pr", "comment", "7"]).fails_starting(
        "`--body`, `--body-file` or `--web` required when not running interactively\n",
    );
}

#[test]
fn edit_changes_title_body_base_and_labels() {
    let fake = example();
    let out = gh(
        &fake,
        &[
            "pr",
            "edit",
            "7",
            "--title",
            "Frobs, all of them",
            "--body",
            "New body",
            "--base",
            "develop",
            "--add-label",
            "bug,ready",
        ],
    )
    .ok();
    assert_eq!(out.stdout, "https://github.com/acme/widgets/pull/7\n");
    gh(&fake, &["pr", "edit", "7", "--remove-label", "bug"]).ok();
    let view = gh(
        &fake,
        &["pr", "view", "7", "--json", "title,body,baseRefName,labels"],
    )
    .ok()
    .json();
    assert_eq!(view["title"], "Frobs, all of them");
    assert_eq!(view["body"], "New body");
    assert_eq!(view["baseRefName"], "develop");
    let labels: Vec<&str> = view["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["ready"]);

    gh(&fake, &["pr", "edit", "7", "--add-label", "nope"]).fails_with("'nope' not found\n");
    gh(&fake, &["pr", "edit", "7"]).fails_starting("--tile, --body, --reviewer");
}

#[test]
fn merge_checks_the_head_and_then_the_pull_request_is_merged() {
    let fake = example();
    gh(
        &fake,
        &[
            "pr",
            "merge",
            "7",
            "--squash",
            "--match-head-commit",
            "abc123",
        ],
    )
    .fails_with(
        "GraphQL: Head branch was modified. Review and try the merge again. (mergePullRequest)\n",
    );
    gh(&fake, &["pr", "merge", "7"])
        .fails_starting("--merge, --rebase, or --squash required when not running interactively\n");
    gh(&fake, &["pr", "merge", "7", "--squash", "--rebase"])
        .fails_starting("only one of --merge, --rebase, or --squash can be enabled\n");
    assert_eq!(pr(&fake.state(), 7)["state"], "OPEN");

    // A pull request stacked on #7's branch, which GitHub retargets when that branch goes.
    fake.update_state(|s| {
        let stacked = json!({"number": 9, "state": "OPEN", "headRefName": "frobs-2",
                             "baseRefName": "frobs", "headRefOid": HEAD});
        s["pull_requests"].as_array_mut().unwrap().push(stacked);
    });
    let out = gh(
        &fake,
        &[
            "pr",
            "merge",
            "7",
            "--squash",
            "--match-head-commit",
            HEAD,
            "--delete-branch",
        ],
    )
    .ok();
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", ""));
    let view = gh(&fake, &["pr", "view", "7", "--json", "state,mergedAt"])
        .ok()
        .json();
    assert_eq!(
        view,
        json!({"state": "MERGED", "mergedAt": "2024-05-02T09:00:00Z"})
    );
    let state = fake.state();
    assert_eq!(
        state["merges"],
        json!([{"number": 7, "method": "squash", "delete_branch": true}])
    );
    assert_eq!(state["deleted_branches"], json!(["frobs"]));
    assert_eq!(pr(&state, 9)["baseRefName"], "main");

    // Merging again is a warning, not a failure, in gh 2.x.
    let out = gh(&fake, &["pr", "merge", "7", "--merge"]).ok();
    assert_eq!(out.stderr, "! Pull request #7 was already merged\n");

    fake.update_state(|s| {
        s["pull_requests"][1]["state"] = json!("OPEN");
        s["pull_requests"][1]["mergeStateStatus"] = json!("DIRTY");
    });
    gh(&fake, &["pr", "merge", "5", "--merge"]).fails_starting(
        "X Pull request #5 is not mergeable: the merge commit cannot be cleanly created.\n",
    );
}

#[test]
fn create_adds_a_pull_request_that_later_reads_see() {
    let fake = example();
    fake.update_state(|s| {
        s["branches"] = json!({"stack-2": "3333333333333333333333333333333333333333"})
    });
    let out = gh(
        &fake,
        &[
            "pr", "create", "--title", "Stack 2", "--body", "Second", "--base", "frobs", "--head",
            "stack-2", "--draft",
        ],
    )
    .ok();
    assert_eq!(out.stdout, "https://github.com/acme/widgets/pull/8\n");
    let view = gh(
        &fake,
        &[
            "pr",
            "view",
            "8",
            "--json",
            "state,isDraft,baseRefName,headRefName,headRefOid,title",
        ],
    )
    .ok()
    .json();
    assert_eq!(
        view,
        json!({
            "state": "OPEN", "isDraft": true, "baseRefName": "frobs", "headRefName": "stack-2",
            "headRefOid": "3333333333333333333333333333333333333333", "title": "Stack 2"
        })
    );
    let listed = gh(
        &fake,
        &["pr", "list", "--json", "number", "--head", "stack-2"],
    )
    .ok();
    assert_eq!(listed.json(), json!([{"number": 8}]));

    gh(
        &fake,
        &[
            "pr", "create", "--title", "Again", "--body", "", "--base", "frobs", "--head",
            "stack-2",
        ],
    )
    .fails_with(
        "a pull request for branch \"stack-2\" into branch \"frobs\" already exists:\n\
         https://github.com/acme/widgets/pull/8\n",
    );
    gh(
        &fake,
        &["pr", "create", "--title", "No body", "--head", "x"],
    )
    .fails_starting("must provide `--title` and `--body`");
}

#[test]
fn review_threads_replies_and_resolution_round_trip() {
    let fake = example();
    let nodes = threads(&fake, "7");
    assert_eq!(nodes.as_array().unwrap().len(), 1);
    let thread = &nodes[0];
    for key in [
        "id",
        "isResolved",
        "path",
        "line",
        "startLine",
        "diffSide",
        "comments",
    ] {
        assert!(thread.get(key).is_some(), "{key} in {thread}");
    }
    assert_eq!(thread["comments"]["nodes"][0]["author"]["login"], "bob");

    let reply = "query=mutation($thread: ID!, $body: String!) {
      addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $thread, body: $body}) {
        comment { id url } } }";
    let out = gh(
        &fake,
        &[
            "api",
            "graphql",
            "-f",
            reply,
            "-f",
            "thread=PRRT_1",
            "-f",
            "body=Because.",
        ],
    )
    .ok();
    let comment = &out.json()["data"]["addPullRequestReviewThreadReply"]["comment"];
    assert_eq!(comment["body"], "Because.");
    assert_eq!(
        comment["url"],
        "https://github.com/acme/widgets/pull/7#discussion_r1000"
    );

    let resolve = "query=mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { \
                   thread { id isResolved } } }";
    let out = gh(&fake, &["api", "graphql", "-f", resolve, "-f", "id=PRRT_1"]).ok();
    assert_eq!(
        out.json(),
        json!({"data": {"resolveReviewThread": {"thread": {"id": "PRRT_1", "isResolved": true}}}})
    );
    let nodes = threads(&fake, "7");
    assert_eq!(nodes[0]["isResolved"], true);
    let bodies: Vec<&Value> = nodes[0]["comments"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["body"])
        .collect();
    assert_eq!(bodies, [&json!("Why frob here?"), &json!("Because.")]);

    let unresolve = resolve.replace("resolveReviewThread", "unresolveReviewThread");
    gh(
        &fake,
        &["api", "graphql", "-f", &unresolve, "-f", "id=PRRT_1"],
    )
    .ok();
    assert_eq!(threads(&fake, "7")[0]["isResolved"], false);

    // GraphQL errors: the body on stdout, the message on stderr, exit 1.
    let out = gh(
        &fake,
        &["api", "graphql", "-f", resolve, "-f", "id=PRRT_nope"],
    )
    .fails_with("gh: Could not resolve to a node with the global id of 'PRRT_nope'\n");
    assert_eq!(out.json()["data"], Value::Null);
    // -f sends a string where the query wants Int!: GitHub refuses it, so does the fake.
    threads_call(&fake, "-f", "7").fails_starting("gh: Variable $number of type Int!");
}

fn review(comments: Value) -> String {
    json!({"commit_id": HEAD, "event": "COMMENT", "body": "Review", "comments": comments})
        .to_string()
}

const REVIEWS: &str = "repos/acme/widgets/pulls/7/reviews";

/// Posts a review of #7 with `body` on stdin, as `gh api --input -` sends it.
fn post_review(fake: &FakeGh, body: &str) -> Out {
    gh_stdin(fake, &["api", "-X", "POST", REVIEWS, "--input", "-"], body)
}

#[test]
fn a_review_comment_off_the_diff_is_a_422_and_records_nothing() {
    let fake = example();
    let before = fake.state();
    let body = review(json!([
        {"path": "src/frob.rs", "line": 3, "side": "RIGHT", "body": "fine"},
        {"path": "src/frob.rs", "line": 9, "side": "RIGHT", "body": "off the diff"}
    ]));
    // --method spelled out, where post_review says -X.
    let out = gh_stdin(
        &fake,
        &["api", "--method", "POST", REVIEWS, "--input", "-"],
        &body,
    )
    .fails_with("gh: Unprocessable Entity (HTTP 422)\n");
    let answer = out.json();
    assert_eq!(answer["message"], "Unprocessable Entity");
    assert_eq!(answer["errors"], json!(["Line could not be resolved"]));
    assert_eq!(answer["fake_gh_bad_comment"]["index"], 1);
    assert_eq!(answer["fake_gh_bad_comment"]["line"], 9);
    assert_eq!(
        fake.state(),
        before,
        "a refused review leaves nothing behind"
    );

    // The hunk is old lines 1-3 and new lines 1-4: new line 4 is in it, old line 4 is not.
    let left = review(json!([{"path": "src/frob.rs", "line": 4, "side": "LEFT", "body": "x"}]));
    post_review(&fake, &left).fails_with("gh: Unprocessable Entity (HTTP 422)\n");
    let wrong_path = review(json!([{"path": "src/nope.rs", "line": 1, "body": "x"}]));
    let out = post_review(&fake, &wrong_path).fails_with("gh: Unprocessable Entity (HTTP 422)\n");
    assert_eq!(
        out.json()["errors"],
        json!(["Pull request review thread path is invalid"])
    );
}

#[test]
fn a_review_on_the_diff_is_recorded_and_its_comments_become_threads() {
    let fake = example();
    let body = review(json!([
        {"path": "src/frob.rs", "line": 3, "side": "RIGHT", "body": "new fn"},
        {"path": "src/frob.rs", "line": 2, "side": "LEFT", "body": "why remove?"},
        {"path": "src/frob.rs", "start_line": 1, "line": 4, "side": "RIGHT", "body": "all of it"}
    ]));
    let file = fake.state_path().with_file_name("review.json");
    std::fs::write(&file, &body).unwrap();
    let out = gh(
        &fake,
        &[
            "api",
            "--method",
            "POST",
            REVIEWS,
            "--input",
            file.to_str().unwrap(),
        ],
    )
    .ok();
    let answer = out.json();
    assert_eq!(answer["state"], "COMMENTED");
    assert_eq!(
        answer["html_url"],
        format!(
            "https://github.com/acme/widgets/pull/7#pullrequestreview-{}",
            answer["id"]
        )
    );
    let state = fake.state();
    assert_eq!(
        state["reviews"]["7"][0]["comments"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let nodes = threads(&fake, "7");
    let placed: Vec<(Value, Value, Value)> = nodes
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["line"].clone(),
                t["diffSide"].clone(),
                t["startLine"].clone(),
            )
        })
        .collect();
    assert_eq!(
        placed[1..],
        [
            (json!(3), json!("RIGHT"), Value::Null),
            (json!(2), json!("LEFT"), Value::Null),
            (json!(4), json!("RIGHT"), json!(1)),
        ]
    );

    let approve = json!({"commit_id": HEAD, "event": "APPROVE", "body": "LGTM"}).to_string();
    let out = post_review(&fake, &approve).ok();
    assert_eq!(out.json()["state"], "APPROVED");
    let view = gh(&fake, &["pr", "view", "7", "--json", "reviewDecision"]).ok();
    assert_eq!(view.json(), json!({"reviewDecision": "APPROVED"}));

    gh(&fake, &["api", "repos/acme/widgets/issues"]).fails_with("gh: Not Found (HTTP 404)\n");
}

#[test]
fn typos_are_refused_as_gh_refuses_them() {
    let fake = example();
    let before = fake.state();
    let cases: &[(&[&str], &str)] = &[
        (
            &["pr", "veiw", "7"],
            "unknown command \"veiw\" for \"gh pr\"\n\nDid you mean this?\n\tview\n",
        ),
        (&["prs", "list"], "unknown command \"prs\" for \"gh\""),
        (
            &["pr", "view", "7", "--jsn", "number"],
            "unknown flag: --jsn\n\nUsage:  gh pr view",
        ),
        (
            &["pr", "view", "7", "--json"],
            "Specify one or more comma-separated fields for `--json`:\n",
        ),
        (
            &["pr", "view", "7", "--json", "numbr"],
            "Unknown JSON field: \"numbr\"\n",
        ),
        (
            &["pr", "view", "7", "8", "--json", "number"],
            "accepts at most 1 arg(s), received 2\n",
        ),
        (
            &["pr", "list", "--json", "number", "--base", "main"],
            "unknown flag: --base\n",
        ),
        (
            &["pr", "list", "--json", "number", "extra"],
            "unknown argument \"extra\"; please quote",
        ),
        (
            &["pr", "checks", "7", "--json", "name", "--watch"],
            "unknown flag: --watch\n",
        ),
        (
            &["pr", "merge", "7", "--squash", "--match-head", HEAD],
            "unknown flag: --match-head\n",
        ),
        (
            &["pr", "merge", "7", "--squash", "--auto"],
            "unknown flag: --auto\n",
        ),
        (
            &["pr", "merge", "7", "-x"],
            "unknown shorthand flag: 'x' in -x\n",
        ),
        (
            &["pr", "comment", "7", "--body"],
            "flag needs an argument: --body\n",
        ),
        (
            &["pr", "create", "--title", "t", "--body", "b", "--fill"],
            "unknown flag: --fill\n",
        ),
        (
            &["pr", "edit", "7", "--add-labels", "bug"],
            "unknown flag: --add-labels\n",
        ),
        (
            &["api", "graphql", "--raw-fields", "query=x"],
            "unknown flag: --raw-fields\n",
        ),
        (
            &["api", "-X", "POST", REVIEWS, "--input", "-", "--paginate"],
            "unknown flag: --paginate\n",
        ),
        (&["api"], "accepts 1 arg(s), received 0\n"),
        (
            &["repo", "view", "--json", "name,defaultBranch"],
            "Unknown JSON field: \"defaultBranch\"\n",
        ),
        (
            &["auth", "status", "--hostnme", "github.com"],
            "unknown flag: --hostnme\n",
        ),
        (&["--verison"], "unknown flag: --verison\n"),
    ];
    for (args, stderr) in cases {
        let out = gh(&fake, args).fails_starting(stderr);
        assert_eq!(out.stdout, "", "{args:?}");
    }
    assert_eq!(fake.state(), before);
}

#[test]
fn the_log_records_argv_env_stdin_and_cwd() {
    let fake = example();
    let mut cmd = fake.command(["pr", "view", "7", "--json", "number"]);
    cmd.env("GH_PROMPT_DISABLED", "1")
        .env("GH_NO_UPDATE_NOTIFIER", "1")
        .env("NO_COLOR", "1")
        .env("GH_PAGER", "cat")
        .env("GH_TOKEN", "ghp_secret")
        .env("UNRELATED", "x");
    finish(cmd, None).ok();
    let body = review(json!([]));
    post_review(&fake, &body).ok();
    gh(&fake, &["pr", "vew"]);

    let log = fake.log();
    assert_eq!(log.len(), 3, "{log:?}");
    assert_eq!(
        log[0]["argv"],
        json!(["pr", "view", "7", "--json", "number"])
    );
    let env = &log[0]["env"];
    for (key, value) in [
        ("GH_NO_UPDATE_NOTIFIER", "1"),
        ("GH_PAGER", "cat"),
        ("GH_PROMPT_DISABLED", "1"),
        ("GH_TOKEN", "<redacted>"),
        ("NO_COLOR", "1"),
    ] {
        assert_eq!(env[key], value, "{key} in {env}");
    }
    assert!(
        env.get("UNRELATED").is_none(),
        "only gh's own variables: {env}"
    );
    assert_eq!(
        log[0]["stdin"],
        Value::Null,
        "stdin is read only when a command takes it"
    );
    assert_eq!(log[1]["stdin"], json!(body));
    assert_eq!(
        log[2]["argv"],
        json!(["pr", "vew"]),
        "refused calls are logged too"
    );
    assert!(log[0]["cwd"].is_string());
}

#[test]
fn delays_and_injected_failures() {
    let fake = example();
    fake.update_state(|s| {
        s["delay_ms"] = json!(300);
        s["fail"] =
            json!({"pr view": {"exit": 1, "stderr": "HTTP 502: Bad Gateway\n", "times": 1}});
    });
    let start = Instant::now();
    let out = gh(&fake, &["pr", "view", "7", "--json", "number"]);
    assert!(start.elapsed() >= Duration::from_millis(300));
    out.fails_with("HTTP 502: Bad Gateway\n");
    // Once only: the next call answers.
    gh(&fake, &["pr", "view", "7", "--json", "number"]).ok();
    assert_eq!(fake.state()["fail"], json!({}));
    // The argv is checked before the injected failure: a typo is still a typo.
    fake.update_state(|s| s["fail"] = json!({"pr view": {"exit": 4, "stderr": "x"}}));
    gh(&fake, &["pr", "view", "7", "--jsn", "number"]).fails_starting("unknown flag: --jsn\n");
    assert_eq!(gh(&fake, &["pr", "view", "7", "--json", "number"]).code, 4);
    // `skip` lets calls through before the failures start.
    fake.update_state(|s| {
        s["delay_ms"] = json!(0);
        s["fail"] = json!({"pr view": {"exit": 1, "stderr": "late\n", "skip": 2, "times": 1}});
    });
    gh(&fake, &["pr", "view", "7", "--json", "number"]).ok();
    gh(&fake, &["pr", "view", "7", "--json", "number"]).ok();
    gh(&fake, &["pr", "view", "7", "--json", "number"]).fails_with("late\n");
    gh(&fake, &["pr", "view", "7", "--json", "number"]).ok();
}

#[test]
fn concurrent_writes_are_all_kept() {
    let fake = example();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut cmd = fake.command(["pr", "comment", "7", "--body", &format!("c{i}")]);
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
            cmd.spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let comments = gh(&fake, &["pr", "view", "7", "--json", "comments"])
        .ok()
        .json();
    assert_eq!(comments["comments"].as_array().unwrap().len(), 8);
}
