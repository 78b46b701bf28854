//! Stacks end to end: real repositories with a bare origin on disk, the fake `gh` for pull
//! requests, the real binary. After every restack case, no commit reachable before is
//! unreachable now (luxe keeps old heads under `refs/luxe/restack/`).

use std::collections::BTreeSet;
use std::path::Path;

use std::time::Duration;

use luxe_tests::fake_gh::FakeGh;
use luxe_tests::git_repo::{bare_origin, clone_as, git, init_repo, real_git, write};
use luxe_tests::model_server::{ModelServer, Part, Reply, Script, Stop};
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::stack_repo::{Stack, advance_main, rev};
use serde_json::{Value, json};

/// Every commit reachable from some ref.
/// Every commit reachable from some ref, here or on origin (a force-push must not drop what
/// only origin had).
fn reachable(stack: &Stack) -> BTreeSet<String> {
    let here = git(stack.path(), &["rev-list", "--all"]);
    let there = stack.origin_git(&["rev-list", "--all"]);
    here.lines()
        .chain(there.lines())
        .map(str::to_owned)
        .collect()
}

fn assert_nothing_lost(before: &BTreeSet<String>, stack: &Stack) {
    let after = reachable(stack);
    let lost: Vec<&String> = before.difference(&after).collect();
    assert!(lost.is_empty(), "commits no longer reachable: {lost:?}");
}

/// Every branch here and on origin, `name sha`.
fn all_branches(dir: &Path) -> String {
    git(
        dir,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/heads",
            "refs/remotes",
        ],
    )
}

fn origin_branches(stack: &Stack) -> String {
    stack.origin_git(&[
        "for-each-ref",
        "--format=%(refname) %(objectname)",
        "refs/heads",
    ])
}

/// Plans; returns the plan (panics on a refusal).
fn plan(luxe: &mut LuxeProcess) -> Value {
    luxe.send_frame("plan_restack", json!({"request_id": "p"}));
    let frame = luxe.answer();
    assert_eq!(frame["kind"], "restack_planned", "{frame}");
    assert!(frame["content"]["refusal"].is_null(), "{frame}");
    frame["content"]["plan"].clone()
}

fn refusal(luxe: &mut LuxeProcess) -> String {
    luxe.send_frame("plan_restack", json!({"request_id": "p"}));
    let frame = luxe.answer();
    assert_eq!(frame["kind"], "restack_planned", "{frame}");
    assert!(frame["content"]["plan"].is_null(), "{frame}");
    frame["content"]["refusal"].as_str().unwrap().to_owned()
}

fn confirm(luxe: &mut LuxeProcess, plan: &Value) -> Value {
    luxe.send_frame("restack", json!({"plan_id": plan["id"], "request_id": "r"}));
    luxe.answer()
}

fn moving(plan: &Value) -> Vec<String> {
    plan["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["branch"].as_str().unwrap().to_owned())
        .collect()
}

fn flag<'a>(argv: &'a [String], name: &str) -> Option<&'a str> {
    let at = argv.iter().position(|a| a == name)?;
    argv.get(at + 1).map(String::as_str)
}

/// `(head, base)` of every `gh pr create`, in order.
fn creates(fake: &FakeGh) -> Vec<(String, String)> {
    fake.argvs()
        .iter()
        .filter(|a| a.starts_with(&["pr".to_owned(), "create".to_owned()]))
        .map(|a| {
            (
                flag(a, "--head").unwrap().to_owned(),
                flag(a, "--base").unwrap().to_owned(),
            )
        })
        .collect()
}

/// Commits on `branch` over `base` (as origin has them).
fn own_commits(stack: &Stack, base: &str, branch: &str) -> usize {
    stack
        .origin_git(&["rev-list", &format!("{base}..{branch}")])
        .lines()
        .count()
}

/// Squash-merges `branch` into origin's main from a scratch clone, as GitHub's squash does.
fn squash_into_main(stack: &Stack, branch: &str) {
    let clone = clone_as(stack.origin.path(), "GitHub");
    git(
        clone.path(),
        &["merge", "--quiet", "--squash", &format!("origin/{branch}")],
    );
    git(
        clone.path(),
        &["commit", "--quiet", "-m", &format!("{branch} (squashed)")],
    );
    git(clone.path(), &["push", "--quiet", "origin", "main"]);
}

/// Adds a commit to origin's main touching `path` from a scratch clone.

// ---------------------------------------------------------------------------------------------
// Opening a stack.

#[test]
fn a_stack_of_three_opens_bottom_first_each_on_the_one_below() {
    let stack = Stack::new(3);
    // No pull requests yet: this stack is new.
    stack.fake.update_state(|s| s["pull_requests"] = json!([]));
    let mut luxe = stack.luxe();
    luxe.send_frame("preview_stack", json!({"request_id": "st"}));
    let preview = luxe.expect("stack_preview");
    let drafts = preview["pull_requests"].as_array().unwrap();
    let bases: Vec<(&str, &str)> = drafts
        .iter()
        .map(|d| (d["branch"].as_str().unwrap(), d["base"].as_str().unwrap()))
        .collect();
    assert_eq!(bases, [("s1", "main"), ("s2", "s1"), ("s3", "s2")]);
    assert_eq!(drafts[1]["title"], "commit 2");
    assert!(
        drafts[1]["description"]
            .as_str()
            .unwrap()
            .contains("2. `s2` ← this pull request")
    );

    luxe.send_frame(
        "open_stack",
        json!({"request_id": "st", "titles": {"s3": "Top"}, "draft": true}),
    );
    let opened = luxe.answer();
    assert_eq!(opened["kind"], "stack_opened", "{opened}");
    let numbers: Vec<u64> = opened["content"]["pull_requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3]);
    assert_eq!(
        creates(&stack.fake),
        [
            ("s1".into(), "main".into()),
            ("s2".into(), "s1".into()),
            ("s3".into(), "s2".into())
        ]
    );
    // Every description lists the whole stack with its numbers; titles as confirmed.
    let state = stack.fake.state();
    for pull in state["pull_requests"].as_array().unwrap() {
        let body = pull["body"].as_str().unwrap();
        assert!(
            body.contains("3. #3 `s3`")
                && body.contains("2. #2 `s2`")
                && body.contains("1. #1 `s1`"),
            "{body}"
        );
        assert_eq!(pull["isDraft"], true);
    }
    assert_eq!(state["pull_requests"][2]["title"], "Top");
    // The branches were pushed.
    for b in ["s1", "s2", "s3"] {
        assert_eq!(
            stack.origin_git(&["rev-parse", b]).trim(),
            rev(stack.path(), b)
        );
    }
    // A stack opens once.
    luxe.send_frame("open_stack", json!({"request_id": "st"}));
    let again = luxe.answer();
    assert_eq!(again["kind"], "action_rejected");
    assert!(
        again["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("opens once")
    );
    assert_eq!(creates(&stack.fake).len(), 3);
}

#[test]
fn a_failed_second_open_is_finished_by_confirming_again_without_duplicates() {
    let stack = Stack::new(3);
    stack.fake.update_state(|s| {
        s["pull_requests"] = json!([]);
        s["fail"] = json!({"pr create": {"skip": 1, "times": 1, "exit": 1,
                                         "stderr": "GraphQL: was submitted too quickly"}});
    });
    let mut luxe = stack.luxe();
    luxe.send_frame("open_stack", json!({"request_id": "st"}));
    let rejected = luxe.answer();
    assert_eq!(
        rejected["kind"], "action_rejected",
        "no preview yet: {rejected}"
    );
    luxe.send_frame(
        "preview_stack",
        json!({"request_id": "st", "branches": ["s1", "s2", "s3"]}),
    );
    luxe.expect("stack_preview");
    luxe.send_frame("open_stack", json!({"request_id": "st"}));
    let failed = luxe.answer();
    assert_eq!(failed["kind"], "stack_open_failed", "{failed}");
    let content = &failed["content"];
    assert!(
        content["reason"].as_str().unwrap().contains("too quickly"),
        "{content}"
    );
    assert_eq!(content["opened"].as_array().unwrap().len(), 1);
    assert_eq!(content["opened"][0]["branch"], "s1");
    let pending: Vec<&str> = content["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["branch"].as_str().unwrap())
        .collect();
    assert_eq!(pending, ["s2", "s3"]);

    luxe.send_frame("open_stack", json!({"request_id": "st"}));
    let opened = luxe.answer();
    assert_eq!(opened["kind"], "stack_opened", "{opened}");
    let state = stack.fake.state();
    let heads: Vec<&str> = state["pull_requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["headRefName"].as_str().unwrap())
        .collect();
    assert_eq!(heads, ["s1", "s2", "s3"], "exactly three pull requests");
    assert_eq!(
        creates(&stack.fake),
        [
            ("s1".into(), "main".into()),
            ("s2".into(), "s1".into()),
            ("s2".into(), "s1".into()),
            ("s3".into(), "s2".into())
        ]
    );
}

#[test]
fn chapters_committed_as_a_stack_become_branches_and_then_pull_requests() {
    let ws = Workspace::new();
    init_repo(
        ws.path(),
        &[
            ("Cargo.toml", "[package]\nname = \"w\"\n"),
            ("src/lib.rs", "pub fn a() {}\n"),
            ("docs/guide.md", "# Guide\n"),
        ],
    );
    let _origin = bare_origin(ws.path());
    git(ws.path(), &["checkout", "--quiet", "-b", "feat"]);
    write(
        ws.path(),
        "Cargo.toml",
        "[package]\nname = \"w\"\n\n[dependencies]\nserde = \"1\"\n",
    );
    write(ws.path(), "src/lib.rs", "pub fn a() {}\npub fn b() {}\n");
    write(ws.path(), "docs/guide.md", "# Guide\n\nUse b.\n");
    let head = rev(ws.path(), "HEAD");
    let status = git(ws.path(), &["status", "--porcelain"]);
    let fake = FakeGh::new(&json!({
        "repo": {"nameWithOwner": "acme/widgets", "url": "https://github.com/acme/widgets",
                 "defaultBranchRef": {"name": "main"}},
        "pull_requests": [],
    }));
    let mut cmd = ws.luxe();
    cmd.envs(fake.envs())
        .env("LUXE_GH_TIMEOUT_MS", "10000")
        .arg("--github-writes");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    // The default branch comes from the first dock.
    luxe.watch_workspace();
    luxe.expect("workspace_updated");
    luxe.send_frame(
        "load_guided_review",
        json!({"request_id": "l", "target": {"kind": "working_tree"}}),
    );
    let loaded = luxe.answer();
    assert_eq!(loaded["kind"], "guided_review_loaded", "{loaded}");
    let review = loaded["content"]["review"].clone();
    assert_eq!(luxe.answer()["kind"], "review_session_restored");
    let chapters = review["chapters"].as_array().unwrap();
    assert!(chapters.len() >= 3, "{chapters:?}");
    // A branch with the first chapter's name exists already: it must not be touched.
    let first_title = chapters[0]["title"].as_str().unwrap().to_lowercase();
    let slug: String = first_title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let taken = format!("feat-1-{slug}");
    git(ws.path(), &["branch", &taken, "main"]);
    let taken_sha = rev(ws.path(), &taken);

    luxe.send_frame(
        "commit_review_chapters",
        json!({"request_id": "c", "review_id": review["id"], "stack": true}),
    );
    let committed = luxe.answer();
    assert_eq!(
        committed["kind"], "review_chapters_committed",
        "{committed}"
    );
    let committed = committed["content"].clone();
    let commits = committed["commits"].as_array().unwrap();
    assert_eq!(commits.len(), chapters.len());
    let branches: Vec<String> = commits
        .iter()
        .map(|c| c["branch"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(branches[0], format!("{taken}-2"), "never clobbers {taken}");
    assert_eq!(rev(ws.path(), &taken), taken_sha);
    // Each branch is its chapter's commit, on the one below; the bottom on HEAD.
    let mut below = head.clone();
    for (commit, branch) in commits.iter().zip(&branches) {
        assert_eq!(rev(ws.path(), branch), commit["sha"].as_str().unwrap());
        assert_eq!(rev(ws.path(), &format!("{branch}^")), below);
        below = rev(ws.path(), branch);
    }
    // The whole stack is the working tree's change; the user's branch, HEAD and files stay.
    assert_eq!(git(ws.path(), &["diff", branches.last().unwrap()]), "");
    assert_eq!(rev(ws.path(), "HEAD"), head);
    assert_eq!(
        git(ws.path(), &["symbolic-ref", "--short", "HEAD"]).trim(),
        "feat"
    );
    assert_eq!(git(ws.path(), &["status", "--porcelain"]), status);

    // The committed stack is what preview_stack drafts by default, titled by its chapters.
    luxe.send_frame("preview_stack", json!({"request_id": "s"}));
    let preview = luxe.answer();
    assert_eq!(preview["kind"], "stack_preview", "{preview}");
    let drafts = preview["content"]["pull_requests"].as_array().unwrap();
    let drafted: Vec<&str> = drafts
        .iter()
        .map(|d| d["branch"].as_str().unwrap())
        .collect();
    assert_eq!(
        drafted,
        branches.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(drafts[0]["title"], chapters[0]["title"]);
    assert_eq!(drafts[0]["base"], "main");
    assert_eq!(drafts[1]["base"], branches[0].as_str());
    luxe.send_frame("open_stack", json!({"request_id": "s"}));
    let opened = luxe.answer();
    assert_eq!(opened["kind"], "stack_opened", "{opened}");
    let created = creates(&fake);
    assert_eq!(created.len(), branches.len());
    assert_eq!(created[0], (branches[0].clone(), "main".to_owned()));
    assert_eq!(created[1], (branches[1].clone(), branches[0].clone()));
}

// ---------------------------------------------------------------------------------------------
// Restacking.

#[test]
fn a_squash_merged_bottom_moves_the_rest_onto_main_and_retargets() {
    let stack = Stack::new(4);
    squash_into_main(&stack, "s1");
    stack.merged(1, None);
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let plan = plan(&mut luxe);
    assert_eq!(moving(&plan), ["s2", "s3", "s4"]);
    let s2 = &plan["branches"][0];
    assert_eq!(s2["pull_request"], 2);
    assert_eq!(s2["old_parent"], rev(stack.path(), "s1").as_str());
    assert_eq!(s2["new_parent"], "origin/main");
    assert_eq!(s2["new_base"], "main");
    assert_eq!(s2["old_head"]["local"], rev(stack.path(), "s2").as_str());
    assert_eq!(s2["old_head"]["remote"], rev(stack.path(), "s2").as_str());
    let done = confirm(&mut luxe, &plan);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_eq!(done["content"]["request_id"], "r");
    assert_eq!(done["content"]["retarget_failed"], json!([]));
    // Each carries only its own commit now, on main's squash.
    assert_eq!(own_commits(&stack, "main", "s2"), 1);
    assert_eq!(own_commits(&stack, "s2", "s3"), 1);
    assert_eq!(own_commits(&stack, "s3", "s4"), 1);
    assert_eq!(
        stack.origin_git(&["rev-parse", "s2^"]),
        stack.origin_git(&["rev-parse", "main"])
    );
    // Here follows there; the checked-out top moved with its work tree, clean.
    for b in ["s2", "s3", "s4"] {
        assert_eq!(
            rev(stack.path(), b),
            stack.origin_git(&["rev-parse", b]).trim()
        );
    }
    assert_eq!(git(stack.path(), &["status", "--porcelain"]), "");
    assert_eq!(stack.base_of(2), "main");
    assert_eq!(stack.base_of(3), "s2");
    let edits: Vec<Vec<String>> = stack
        .fake
        .argvs()
        .into_iter()
        .filter(|a| a.starts_with(&["pr".to_owned(), "edit".to_owned()]))
        .collect();
    assert_eq!(edits, [["pr", "edit", "2", "--base", "main"]]);
    assert_nothing_lost(&before, &stack);
    // A plan is pushed once.
    let again = confirm(&mut luxe, &plan);
    assert_eq!(again["kind"], "action_rejected", "{again}");
    assert!(
        again["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("pushed already")
    );
    assert_eq!(again["content"]["request_id"], "r");
}

#[test]
fn a_merge_committed_bottom_and_a_retargeted_next_restack_past_it() {
    let stack = Stack::new(3);
    // GitHub merged #1 with a merge commit, deleted s1, and moved #2 onto main.
    let clone = clone_as(stack.origin.path(), "GitHub");
    git(
        clone.path(),
        &["merge", "--quiet", "--no-ff", "-m", "Merge #1", "origin/s1"],
    );
    git(clone.path(), &["push", "--quiet", "origin", "main", ":s1"]);
    stack.merged(1, Some("main"));
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let plan = plan(&mut luxe);
    assert_eq!(moving(&plan), ["s2", "s3"]);
    assert_eq!(plan["branches"][0]["new_base"], "main");
    let done = confirm(&mut luxe, &plan);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_eq!(own_commits(&stack, "main", "s2"), 1);
    assert_eq!(own_commits(&stack, "s2", "s3"), 1);
    // Already on main: no retarget asked.
    assert!(
        !stack
            .fake
            .argvs()
            .iter()
            .any(|a| a.get(1).is_some_and(|x| x == "edit"))
    );
    assert_nothing_lost(&before, &stack);
}

#[test]
fn a_moved_base_moves_the_whole_stack_and_the_checked_out_top_follows() {
    let stack = Stack::new(5);
    advance_main(&stack, "other.txt", "new on main\n");
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let plan = plan(&mut luxe);
    assert_eq!(moving(&plan), ["s1", "s2", "s3", "s4", "s5"]);
    assert_eq!(plan["branches"][1]["new_parent"], "s1");
    assert!(plan["branches"][1]["new_parent_sha"].is_null());
    let done = confirm(&mut luxe, &plan);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_eq!(own_commits(&stack, "main", "s1"), 1);
    assert_eq!(own_commits(&stack, "s1", "s2"), 1);
    assert_eq!(own_commits(&stack, "s2", "s3"), 1);
    assert_eq!(own_commits(&stack, "s3", "s4"), 1);
    assert_eq!(own_commits(&stack, "s4", "s5"), 1);
    assert_eq!(
        rev(stack.path(), "HEAD"),
        stack.origin_git(&["rev-parse", "s5"]).trim()
    );
    assert!(
        stack.path().join("other.txt").exists(),
        "the work tree followed"
    );
    assert_eq!(git(stack.path(), &["status", "--porcelain"]), "");
    let branches = done["content"]["branches"].as_array().unwrap();
    assert_eq!(branches.len(), 5);
    for b in branches {
        let backup = b["backup_ref"].as_str().unwrap();
        assert_eq!(rev(stack.path(), backup), b["old_head"].as_str().unwrap());
    }
    assert_nothing_lost(&before, &stack);
}

#[test]
fn a_middle_branch_amended_by_hand_is_pushed_and_the_top_rebuilt_on_it() {
    let stack = Stack::new(3);
    git(stack.path(), &["checkout", "--quiet", "s2"]);
    write(stack.path(), "f2.txt", "file 2, amended\n");
    git(
        stack.path(),
        &[
            "commit",
            "--quiet",
            "-a",
            "--amend",
            "-m",
            "commit 2 (amended)",
        ],
    );
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let plan = plan(&mut luxe);
    assert_eq!(moving(&plan), ["s2", "s3"]);
    assert_eq!(
        plan["branches"][1]["old_parent"],
        stack.origin_git(&["rev-parse", "s2"]).trim()
    );
    let done = confirm(&mut luxe, &plan);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_eq!(
        stack.origin_git(&["rev-parse", "s2"]).trim(),
        rev(stack.path(), "s2")
    );
    assert_eq!(own_commits(&stack, "s2", "s3"), 1);
    assert_eq!(
        stack.origin_git(&["show", "s3:f2.txt"]),
        "file 2, amended\n"
    );
    assert_nothing_lost(&before, &stack);
}

#[test]
fn each_refusal_at_confirmation_changes_nothing() {
    let stack = Stack::new(3);
    advance_main(&stack, "other.txt", "x\n");
    let mut luxe = stack.luxe();

    // Moved here.
    let p = plan(&mut luxe);
    write(stack.path(), "late.txt", "late\n");
    git(stack.path(), &["add", "late.txt"]);
    git(stack.path(), &["commit", "--quiet", "-m", "late"]);
    let snapshot = (all_branches(stack.path()), origin_branches(&stack));
    let failed = confirm(&mut luxe, &p);
    assert_eq!(failed["kind"], "restack_failed", "{failed}");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("s3 moved here"),
        "{failed}"
    );
    assert_eq!(failed["content"]["plan_id"], p["id"]);
    assert_eq!(
        (all_branches(stack.path()), origin_branches(&stack)),
        snapshot
    );

    // Moved on GitHub between plan and confirmation.
    let p = plan(&mut luxe);
    let s1 = stack.origin_git(&["rev-parse", "s1"]);
    stack.origin_git(&["update-ref", "refs/heads/s2", s1.trim()]);
    let snapshot = (all_branches(stack.path()), origin_branches(&stack));
    let failed = confirm(&mut luxe, &p);
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("s2 moved on GitHub"),
        "{failed}"
    );
    assert_eq!(
        (all_branches(stack.path()), origin_branches(&stack)),
        snapshot
    );
    let s2 = rev(stack.path(), "s2");
    stack.origin_git(&["update-ref", "refs/heads/s2", &s2]);

    // Checked out in another worktree since the plan.
    let other = tempfile::tempdir().unwrap();
    let wt_path = other.path().join("wt").to_string_lossy().into_owned();
    let p = plan(&mut luxe);
    git(
        stack.path(),
        &["worktree", "add", "--quiet", &wt_path, "s1"],
    );
    let snapshot = (all_branches(stack.path()), origin_branches(&stack));
    let failed = confirm(&mut luxe, &p);
    assert_eq!(failed["kind"], "restack_failed", "{failed}");
    assert_eq!(
        (all_branches(stack.path()), origin_branches(&stack)),
        snapshot
    );
    let reason = failed["content"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("s1 is checked out in") && reason.contains("nowhere when planned"),
        "{failed}"
    );
    git(stack.path(), &["worktree", "remove", &wt_path]);

    // A newer plan replaces it.
    let newer = plan(&mut luxe);
    let replaced = confirm(&mut luxe, &p);
    assert_eq!(replaced["kind"], "action_rejected", "{replaced}");
    let reason = replaced["content"]["reason"].as_str().unwrap();
    assert!(reason.contains("replaced"), "{reason}");

    // Dirty where it is checked out; once clean, the same plan goes through.
    write(stack.path(), "f3.txt", "edited, not committed\n");
    let snapshot = (all_branches(stack.path()), origin_branches(&stack));
    let failed = confirm(&mut luxe, &newer);
    assert_eq!(failed["kind"], "restack_failed", "{failed}");
    let reason = failed["content"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("s3 is checked out in") && reason.contains("uncommitted changes"),
        "{reason}"
    );
    assert_eq!(
        (all_branches(stack.path()), origin_branches(&stack)),
        snapshot
    );
    git(stack.path(), &["checkout", "--quiet", "--", "f3.txt"]);
    let before = reachable(&stack);
    let done = confirm(&mut luxe, &newer);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_nothing_lost(&before, &stack);
}

#[test]
fn a_squash_merged_bottom_deleted_on_origin_with_the_next_retargeted_restacks() {
    // GitHub squashed #1, deleted s1 and moved #2 onto main; s1 is gone here too.
    let stack = Stack::new(3);
    squash_into_main(&stack, "s1");
    stack.origin_git(&["update-ref", "-d", "refs/heads/s1"]);
    git(stack.path(), &["branch", "--quiet", "-D", "s1"]);
    git(
        stack.path(),
        &["update-ref", "-d", "refs/remotes/origin/s1"],
    );
    stack.merged(1, Some("main"));
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let plan = plan(&mut luxe);
    assert_eq!(moving(&plan), ["s2", "s3"]);
    assert_eq!(
        plan["branches"][0]["commits"], 1,
        "only its own commit: {plan}"
    );
    let done = confirm(&mut luxe, &plan);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_eq!(own_commits(&stack, "main", "s2"), 1);
    assert_eq!(own_commits(&stack, "s2", "s3"), 1);
    assert_nothing_lost(&before, &stack);
}

#[test]
fn a_branch_someone_else_pushed_to_is_not_overwritten() {
    let stack = Stack::new(2);
    advance_main(&stack, "other.txt", "x\n");
    // A teammate adds a commit to s2 on origin; this checkout never had it.
    let clone = clone_as(stack.origin.path(), "Teammate");
    git(clone.path(), &["checkout", "--quiet", "s2"]);
    write(clone.path(), "theirs.txt", "theirs\n");
    git(clone.path(), &["add", "-A"]);
    git(clone.path(), &["commit", "--quiet", "-m", "teammate"]);
    git(clone.path(), &["push", "--quiet", "origin", "s2"]);
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let why = refusal(&mut luxe);
    assert!(
        why.contains("s2 on origin has commits this checkout does not"),
        "{why}"
    );
    assert_nothing_lost(&before, &stack);
}

#[test]
fn a_conflict_stops_everything_with_nothing_pushed() {
    let stack = Stack::new(3);
    advance_main(&stack, "f1.txt", "main wrote this first\n");
    let mut luxe = stack.luxe();
    let p = plan(&mut luxe);
    let before = reachable(&stack);
    let snapshot = (all_branches(stack.path()), origin_branches(&stack));
    let failed = confirm(&mut luxe, &p);
    assert_eq!(failed["kind"], "restack_failed", "{failed}");
    let reason = failed["content"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("rebuilding s1") && reason.contains("nothing was pushed"),
        "{reason}"
    );
    assert_eq!(
        (all_branches(stack.path()), origin_branches(&stack)),
        snapshot
    );
    assert_eq!(git(stack.path(), &["status", "--porcelain"]), "");
    assert_nothing_lost(&before, &stack);
}

#[test]
fn a_push_that_loses_its_lease_to_a_racing_push_moves_nothing_and_spends_the_plan() {
    let stack = Stack::new(3);
    advance_main(&stack, "other.txt", "x\n");
    // Another push lands on origin's s3 at the moment luxe writes its backup refs, after its
    // checks and before its push: a reference-transaction hook races it for real.
    let hooks = stack.path().join(".git/hooks");
    let origin = stack.origin.path().to_string_lossy().into_owned();
    let s2 = rev(stack.path(), "s2");
    std::fs::write(
        hooks.join("reference-transaction"),
        format!(
            "#!/bin/sh\n[ \"$1\" = committed ] || exit 0\nif grep -q refs/luxe/restack; then\n  git --git-dir={origin} update-ref refs/heads/s3 {s2}\nfi\nexit 0\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        hooks.join("reference-transaction"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let p = plan(&mut luxe);
    let s1_there = stack.origin_git(&["rev-parse", "s1"]);
    let failed = confirm(&mut luxe, &p);
    assert_eq!(failed["kind"], "restack_failed", "{failed}");
    let reason = failed["content"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("did not finish") && reason.contains("Check the branches on GitHub"),
        "{reason}"
    );
    assert_eq!(
        stack.origin_git(&["rev-parse", "s1"]),
        s1_there,
        "atomic: s1 did not move"
    );
    assert_eq!(
        stack.origin_git(&["rev-parse", "s3"]).trim(),
        s2,
        "the racing push stands"
    );
    assert_nothing_lost(&before, &stack);
    let again = confirm(&mut luxe, &p);
    assert_eq!(again["kind"], "action_rejected", "{again}");
}

#[test]
fn a_base_github_refuses_to_change_comes_back_in_retarget_failed() {
    let stack = Stack::new(2);
    squash_into_main(&stack, "s1");
    stack.merged(1, None);
    stack.fake.update_state(|s| {
        s["fail"] = json!({"pr edit": {"exit": 1, "stderr": "GraphQL: Base branch was modified"}});
    });
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let p = plan(&mut luxe);
    let done = confirm(&mut luxe, &p);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_nothing_lost(&before, &stack);
    let failed = done["content"]["retarget_failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{done}");
    assert_eq!(failed[0]["branch"], "s2");
    assert_eq!(failed[0]["pull_request"], 2);
    assert_eq!(failed[0]["where"], "github");
    assert!(
        failed[0]["reason"]
            .as_str()
            .unwrap()
            .contains("Base branch was modified")
    );
    assert_eq!(own_commits(&stack, "main", "s2"), 1);
}

#[test]
fn a_local_branch_that_cannot_follow_comes_back_as_local() {
    let stack = Stack::new(2);
    advance_main(&stack, "g.txt", "main's g\n");
    // s1 is checked out, clean, but holds an untracked g.txt its new head would overwrite.
    git(stack.path(), &["checkout", "--quiet", "s1"]);
    std::fs::write(stack.path().join("g.txt"), "untracked here\n").unwrap();
    let before = reachable(&stack);
    let mut luxe = stack.luxe();
    let p = plan(&mut luxe);
    assert_eq!(moving(&p), ["s1", "s2"]);
    let done = confirm(&mut luxe, &p);
    assert_nothing_lost(&before, &stack);
    assert_eq!(done["kind"], "restacked", "{done}");
    let failed = done["content"]["retarget_failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{done}");
    assert_eq!(
        (failed[0]["branch"].as_str(), failed[0]["where"].as_str()),
        (Some("s1"), Some("local"))
    );
    // Pushed all the same; the untracked file is untouched.
    assert_eq!(own_commits(&stack, "main", "s1"), 1);
    assert_eq!(
        std::fs::read_to_string(stack.path().join("g.txt")).unwrap(),
        "untracked here\n"
    );
}

#[test]
fn plans_refuse_without_gh_without_open_pull_requests_and_with_nothing_to_do() {
    let stack = Stack::new(2);
    let mut luxe = stack.luxe();
    assert!(refusal(&mut luxe).contains("nothing to restack"));
    stack.fake.update_state(|s| {
        for p in s["pull_requests"].as_array_mut().unwrap() {
            p["state"] = json!("CLOSED");
        }
    });
    assert!(refusal(&mut luxe).contains("no open pull request"));
    drop(luxe);

    // No gh on PATH at all.
    let bare = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(real_git(), bare.path().join("git")).unwrap();
    let mut cmd = stack.ws.luxe();
    cmd.env("PATH", bare.path()).arg("--github-writes");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.watch_workspace();
    luxe.expect("workspace_updated");
    let why = refusal(&mut luxe);
    assert!(why.contains("gh is not installed"), "{why}");
}

#[test]
fn a_merged_pull_request_whose_branch_is_gone_everywhere_is_refused_and_the_session_goes_on() {
    // The only pull request was merged and its branch deleted here and on origin: nothing has a
    // reflog to read. This used to overflow the stack and kill luxe.
    let stack = Stack::new(1);
    stack.merged(1, None);
    git(stack.path(), &["checkout", "--quiet", "main"]);
    git(stack.path(), &["branch", "--quiet", "-D", "s1"]);
    git(
        stack.path(),
        &["push", "--quiet", "origin", "--delete", "s1"],
    );
    let mut luxe = stack.luxe();
    let why = refusal(&mut luxe);
    assert!(why.contains("no open pull request"), "{why}");
    luxe.send_frame("list_models", json!({"request_id": "m"}));
    assert_eq!(luxe.answer()["kind"], "models_listed");
}

#[test]
fn a_branch_left_with_no_commits_of_its_own_is_refused_at_planning() {
    let stack = Stack::new(1);
    // #2's branch holds nothing over s1: once s1 is squashed into main it would be empty, its
    // head in its base, and GitHub would mark #2 merged.
    git(stack.path(), &["branch", "empty", "s1"]);
    git(stack.path(), &["push", "--quiet", "origin", "empty"]);
    let s1 = rev(stack.path(), "s1");
    stack.fake.update_state(|s| {
        s["pull_requests"].as_array_mut().unwrap().push(json!({
            "number": 2, "title": "Empty", "body": "", "state": "OPEN",
            "url": "https://github.com/acme/widgets/pull/2", "headRefName": "empty",
            "baseRefName": "s1", "headRefOid": s1, "isDraft": false,
        }));
    });
    squash_into_main(&stack, "s1");
    stack.merged(1, None);
    let mut luxe = stack.luxe();
    let why = refusal(&mut luxe);
    assert!(
        why.contains("empty (#2) has no commits of its own")
            && why.contains("mark the pull request merged"),
        "{why}"
    );
}

#[test]
fn without_git_replay_a_private_worktree_rebuilds_the_branches() {
    let stack = Stack::new(3);
    advance_main(&stack, "other.txt", "x\n");
    // A git that says it is 2.40 (no `replay`) and logs what it is asked.
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("git.log");
    let real = real_git();
    let wrapper = bin.path().join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> {}\nif [ \"$1\" = version ]; then echo 'git version 2.40.1'; exit 0; fi\nexec {} \"$@\"\n",
            log.display(),
            real.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = std::ffi::OsString::from(bin.path());
    path.push(":");
    path.push(stack.fake.path_env());
    let before = reachable(&stack);
    let mut luxe = stack.luxe_with(&[("PATH", path)]);
    let p = plan(&mut luxe);
    let done = confirm(&mut luxe, &p);
    assert_eq!(done["kind"], "restacked", "{done}");
    assert_eq!(own_commits(&stack, "main", "s1"), 1);
    assert_eq!(own_commits(&stack, "s1", "s2"), 1);
    assert_eq!(own_commits(&stack, "s2", "s3"), 1);
    let asked = std::fs::read_to_string(&log).unwrap();
    assert!(
        asked.contains("cherry-pick") && !asked.contains("replay"),
        "{asked}"
    );
    let worktrees = git(stack.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(
        worktrees.matches("worktree ").count(),
        1,
        "the private worktree is gone: {worktrees}"
    );
    assert_nothing_lost(&before, &stack);
}

#[test]
fn a_restack_waits_for_the_running_turn() {
    let stack = Stack::new(2);
    advance_main(&stack, "other.txt", "x\n");
    let server = ModelServer::start();
    let mut luxe = stack.luxe_with(&[
        ("ANTHROPIC_API_KEY", "k".into()),
        ("ANTHROPIC_BASE_URL", server.anthropic_base_url().into()),
    ]);
    let p = plan(&mut luxe);
    // The agent may be editing the branch that would move: a turn holds the restack off.
    server.push(Reply::Stream(
        Script::new(vec![Part::Text(vec!["slow".into(); 50])], Stop::EndTurn)
            .with_delay(Duration::from_millis(100)),
    ));
    luxe.send_frame("submit_user_message", json!({"text": "work"}));
    luxe.until("turn_started");
    let refused = confirm(&mut luxe, &p);
    assert_eq!(refused["kind"], "action_rejected", "{refused}");
    assert!(
        refused["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("a turn is running")
    );
    luxe.send_frame("interrupt_turn", json!({}));
    luxe.until("turn_ended");
    luxe.send_frame("restack", json!({"plan_id": p["id"], "request_id": "r"}));
    let done = loop {
        // Frames of the ended turn (its closing `state_changed`) may come first.
        let frame = luxe.answer();
        if frame["kind"] != "state_changed" {
            break frame;
        }
    };
    assert_eq!(done["kind"], "restacked", "{done}");
}
