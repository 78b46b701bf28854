//! GitHub end to end: the real binary running the fake `gh` (tests/fake_gh) in a real
//! repository with a bare origin on disk; every test checks the frames and what gh was asked.

use luxe_tests::fake_gh::{FakeGh, example_state};
use luxe_tests::git_repo::{bare_origin, git, init_repo, write};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::{Value, json};

/// A repository on branch `frobs` (PR #7 in the example state) with a bare origin.
fn project() -> (Workspace, tempfile::TempDir) {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("src/frob.rs", "fn frob() {}\n")]);
    let origin = bare_origin(ws.path());
    git(ws.path(), &["checkout", "--quiet", "-b", "frobs"]);
    (ws, origin)
}

fn start(ws: &Workspace, fake: &FakeGh, flags: &[&str]) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.envs(fake.envs())
        .env("LUXE_GH_TIMEOUT_MS", "5000")
        .args(flags);
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.watch_workspace();
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

/// The project, the example fake gh, and luxe started with `flags` after its first dock.
fn rig(flags: &[&str]) -> (Workspace, tempfile::TempDir, FakeGh, LuxeProcess) {
    let (ws, origin) = project();
    let fake = FakeGh::new(&example_state());
    let mut luxe = start(&ws, &fake, flags);
    luxe.expect("workspace_updated");
    (ws, origin, fake, luxe)
}

/// Confirms the review preview `request_id` with `verdict`; returns the answer.
fn post(luxe: &mut LuxeProcess, request_id: &str, verdict: &str) -> Value {
    let content = json!({"request_id": request_id, "verdict": verdict});
    luxe.send_frame("post_pull_request_review", content);
    luxe.answer()
}

#[test]
fn the_dock_shows_the_branch_its_pull_request_and_its_checks() {
    let (ws, _origin) = project();
    let fake = FakeGh::new(&example_state());
    let mut luxe = start(&ws, &fake, &[]);
    let dock = luxe.expect("workspace_updated");
    assert_eq!(dock["branch"], "frobs");
    assert_eq!(dock["repository"], "acme/widgets");
    assert_eq!(dock["github"], "ready");
    assert_eq!(dock["dirty"], false);
    let pr = &dock["pull_request"];
    assert_eq!(
        (pr["number"].as_u64(), pr["state"].as_str()),
        (Some(7), Some("OPEN"))
    );
    assert_eq!(pr["review_decision"], "REVIEW_REQUIRED");
    let buckets: Vec<&str> = pr["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["bucket"].as_str().unwrap())
        .collect();
    assert_eq!(buckets, ["pass", "pending"]);
    let calls = fake.argvs();
    assert_eq!(calls[0], ["auth", "status"]);
    assert_eq!(calls[1][..2], ["repo", "view"]);
    assert_eq!(calls[2][..2], ["pr", "view"]);
    assert_eq!(
        calls[3],
        ["pr", "checks", "7", "--json", "name,state,bucket,link"]
    );
    for call in fake.log() {
        let env = &call["env"];
        assert_eq!(env["GH_PROMPT_DISABLED"], "1", "{call}");
        assert_eq!(
            (&env["GH_NO_UPDATE_NOTIFIER"], &env["NO_COLOR"]),
            (&json!("1"), &json!("1"))
        );
        assert_eq!(env["GH_PAGER"], "cat");
    }

    // refresh_workspace always answers; a change on GitHub shows.
    fake.update_state(|s| s["checks"]["7"][1]["bucket"] = json!("fail"));
    luxe.send(r#"{"kind":"refresh_workspace"}"#);
    let dock = luxe.expect("workspace_updated");
    assert_eq!(dock["pull_request"]["checks"][1]["bucket"], "fail");
}

#[test]
fn missing_unauthenticated_and_no_remote_show_in_the_dock_and_in_reasons() {
    let (ws, _origin) = project();
    // No gh at all: only git on PATH.
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(luxe_tests::git_repo::real_git(), bin.path().join("git")).unwrap();
    let mut cmd = ws.luxe();
    cmd.env("PATH", bin.path());
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.watch_workspace();
    luxe.expect("ready");
    luxe.expect("state_changed");
    assert_eq!(luxe.expect("workspace_updated")["github"], "missing");
    luxe.send_frame("list_pull_requests", json!({"request_id": "l"}));
    let failed = luxe.expect("github_read_failed");
    assert!(
        failed["reason"].as_str().unwrap().contains("not installed"),
        "{failed}"
    );

    let mut state = example_state();
    state["auth"] = json!(false);
    let fake = FakeGh::new(&state);
    let mut luxe = start(&ws, &fake, &[]);
    assert_eq!(
        luxe.expect("workspace_updated")["github"],
        "unauthenticated"
    );
    luxe.send_frame(
        "get_pull_request",
        json!({"request_id": "g", "number": 7, "repository": "acme/widgets"}),
    );
    let failed = luxe.expect("github_read_failed");
    assert!(
        failed["reason"].as_str().unwrap().contains("gh auth login"),
        "{failed}"
    );

    // Logged in, a remote, but no pull request for this branch.
    let mut state = example_state();
    state["pull_requests"] = json!([]);
    let fake = FakeGh::new(&state);
    let mut luxe = start(&ws, &fake, &[]);
    let dock = luxe.expect("workspace_updated");
    assert_eq!(
        (&dock["github"], &dock["pull_request"]),
        (&json!("ready"), &Value::Null)
    );

    let mut state = example_state();
    state["repo"] = Value::Null;
    let fake = FakeGh::new(&state);
    let mut luxe = start(&ws, &fake, &[]);
    let dock = luxe.expect("workspace_updated");
    assert_eq!(dock["github"], "no_remote");
    assert_eq!(dock["branch"], "frobs", "git still answers");
}

#[test]
fn reads_list_and_fetch_pull_requests_with_their_threads() {
    let (_ws, _origin, fake, mut luxe) = rig(&[]);
    luxe.send_frame("list_pull_requests", json!({"request_id": "l1"}));
    let listed = luxe.expect("pull_requests_listed");
    assert_eq!(listed["request_id"], "l1");
    let numbers: Vec<u64> = listed["pull_requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [7]);
    luxe.send_frame(
        "list_pull_requests",
        json!({"request_id": "l2", "state": "all"}),
    );
    assert_eq!(
        luxe.expect("pull_requests_listed")["pull_requests"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    luxe.send_frame("get_pull_request", json!({"request_id": "g", "number": 7}));
    let fetched = luxe.expect("pull_request_fetched");
    let pr = &fetched["pull_request"];
    assert_eq!(
        (pr["number"].as_u64(), pr["body"].as_str()),
        (Some(7), Some("Adds frobs."))
    );
    assert_eq!(pr["threads"][0]["id"], "PRRT_1");
    assert_eq!(pr["threads"][0]["path"], "src/frob.rs");
    luxe.send_frame(
        "get_pull_request",
        json!({"request_id": "g2", "number": 99}),
    );
    let failed = luxe.expect("github_read_failed");
    assert_eq!(failed["request_id"], "g2");
    let last = fake.argvs().pop().unwrap();
    assert_eq!(last[..3], ["pr", "view", "99"]);
}

#[test]
fn writes_go_through_gh_and_the_dock_follows() {
    let (_ws, _origin, fake, mut luxe) = rig(&["--github-writes"]);

    luxe.send_frame(
        "post_pull_request_comment",
        json!({"request_id": "c", "number": 7, "body": "Looks good"}),
    );
    let posted = luxe.answer();
    assert_eq!(posted["kind"], "pull_request_comment_posted", "{posted}");
    assert!(
        posted["content"]["url"]
            .as_str()
            .unwrap()
            .contains("/pull/7")
    );
    assert_eq!(
        luxe.expect("workspace_updated")["github"],
        "ready",
        "the dock follows a write"
    );
    luxe.send_frame(
        "reply_to_review_thread",
        json!({"request_id": "r", "thread_id": "PRRT_1", "body": "Fixed"}),
    );
    assert_eq!(luxe.answer()["kind"], "review_thread_replied");
    luxe.send_frame(
        "resolve_review_thread",
        json!({"request_id": "s", "thread_id": "PRRT_1"}),
    );
    let resolved = luxe.answer();
    assert_eq!(
        (&resolved["kind"], &resolved["content"]["resolved"]),
        (&json!("review_thread_resolved"), &json!(true))
    );
    luxe.send_frame(
        "edit_pull_request",
        json!({"request_id": "e", "number": 7, "title": "Add frobs (v2)"}),
    );
    assert_eq!(luxe.answer()["kind"], "pull_request_edited");
    assert_eq!(fake.state()["pull_requests"][0]["title"], "Add frobs (v2)");
    assert_eq!(fake.state()["threads"]["7"][0]["isResolved"], true);
    luxe.send_frame(
        "edit_pull_request",
        json!({"request_id": "d", "number": 7, "body": "Now a draft.", "draft": true}),
    );
    assert_eq!(luxe.answer()["kind"], "pull_request_edited");
    let pr = &fake.state()["pull_requests"][0];
    assert_eq!(
        (&pr["isDraft"], &pr["body"]),
        (&json!(true), &json!("Now a draft."))
    );
    luxe.send_frame(
        "edit_pull_request",
        json!({"request_id": "r", "number": 7, "draft": false}),
    );
    assert_eq!(luxe.answer()["kind"], "pull_request_edited");
    assert_eq!(fake.state()["pull_requests"][0]["isDraft"], false);

    // The head moved on GitHub since luxe saw it: the merge is refused, not forced.
    fake.update_state(|s| s["pull_requests"][0]["headRefOid"] = json!("3".repeat(40)));
    luxe.send_frame(
        "merge_pull_request",
        json!({"request_id": "m", "number": 7, "method": "squash"}),
    );
    let failed = luxe.answer();
    assert_eq!(failed["kind"], "pull_request_merge_failed", "{failed}");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("Head branch was modified")
    );
    let merge = fake
        .argvs()
        .into_iter()
        .rev()
        .find(|a| a[..2] == ["pr", "merge"])
        .unwrap();
    assert_eq!(
        merge,
        [
            "pr",
            "merge",
            "7",
            "--squash",
            "--match-head-commit",
            &"1".repeat(40)
        ]
    );
    // Read again, then the merge goes through at the new head.
    luxe.send_frame("get_pull_request", json!({"request_id": "g", "number": 7}));
    luxe.answer();
    luxe.send_frame(
        "merge_pull_request",
        json!({"request_id": "m2", "number": 7, "method": "merge", "delete_branch": true}),
    );
    assert_eq!(luxe.answer()["kind"], "pull_request_merged");
    assert_eq!(fake.state()["pull_requests"][0]["state"], "MERGED");
}

#[test]
fn every_write_needs_the_flag_and_read_only_wins() {
    let (ws, _origin) = project();
    let fake = FakeGh::new(&example_state());
    let writes = [
        (
            "post_pull_request_comment",
            json!({"request_id": "w", "number": 7, "body": "x"}),
        ),
        (
            "reply_to_review_thread",
            json!({"request_id": "w", "thread_id": "PRRT_1", "body": "x"}),
        ),
        (
            "resolve_review_thread",
            json!({"request_id": "w", "thread_id": "PRRT_1"}),
        ),
        (
            "edit_pull_request",
            json!({"request_id": "w", "number": 7, "title": "x"}),
        ),
        (
            "merge_pull_request",
            json!({"request_id": "w", "number": 7, "method": "merge"}),
        ),
        ("open_pull_request", json!({"request_id": "w"})),
        ("open_stack", json!({"request_id": "w"})),
        (
            "post_pull_request_review",
            json!({"request_id": "w", "verdict": "comment"}),
        ),
        ("plan_restack", json!({"request_id": "w"})),
        ("restack", json!({"request_id": "w", "plan_id": "p"})),
    ];
    for (flags, refusal) in [
        (
            &[][..],
            Some("GitHub writes are off: start luxe with --github-writes"),
        ),
        (
            &["--github-writes", "--read-only"],
            Some("read-only session"),
        ),
        (&["--github-writes"], None),
    ] {
        let mut luxe = start(&ws, &fake, flags);
        for (kind, content) in &writes {
            let calls = fake.log().len();
            luxe.send_frame(kind, content.clone());
            let frame = luxe.answer();
            match refusal {
                Some(reason) => {
                    assert_eq!(frame["kind"], "action_rejected", "{kind} {flags:?}");
                    assert_eq!(frame["content"]["reason"], reason, "{kind}");
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    let wrote = fake.log()[calls..].iter().any(|c| {
                        let argv = c["argv"].to_string();
                        !argv.contains("\"view\"")
                            && !argv.contains("\"status\"")
                            && !argv.contains("\"checks\"")
                    });
                    assert!(!wrote, "{kind} ran gh without the flag");
                }
                // Through the gate: answered as that write answers, under its request id.
                None => {
                    assert_eq!(frame["content"]["request_id"], "w", "{kind}: {frame}");
                    assert_ne!(
                        frame["content"]["reason"],
                        "GitHub writes are off: start luxe with --github-writes",
                        "{kind}"
                    );
                }
            }
        }
        luxe.send(r#"{"kind":"close"}"#);
        luxe.wait();
    }
    // Neither a settings key nor continuing a session started with the flag turns writes on.
    write(
        ws.path(),
        ".luxe/settings.json",
        r#"{"github_writes": true}"#,
    );
    write(
        ws.path(),
        "home/settings.json",
        r#"{"github_writes": true}"#,
    );
    // A session started with the flag, kept (one turn, which ends at once with no model).
    let mut flagged = start(&ws, &fake, &["--github-writes"]);
    flagged.send(r#"{"kind":"submit_user_message","content":{"text":"hi"}}"#);
    flagged.until("turn_ended");
    flagged.send(r#"{"kind":"close"}"#);
    flagged.wait();
    for flags in [&["--trust-project"][..], &["-c"]] {
        let mut luxe = start(&ws, &fake, flags);
        luxe.send_frame("post_pull_request_comment", writes[0].1.clone());
        let mut frame = luxe.answer();
        if frame["kind"] == "session_restored" {
            frame = luxe.answer();
        }
        assert_eq!(
            frame["content"]["reason"], "GitHub writes are off: start luxe with --github-writes",
            "{flags:?}"
        );
        luxe.send(r#"{"kind":"close"}"#);
        luxe.wait();
    }
}

#[test]
fn a_slow_gh_is_stopped_at_its_timeout() {
    let (ws, _origin) = project();
    let fake = FakeGh::new(&example_state());
    let mut cmd = ws.luxe();
    cmd.envs(fake.envs()).env("LUXE_GH_TIMEOUT_MS", "1500");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.watch_workspace();
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.expect("workspace_updated");
    fake.update_state(|s| s["delay_ms"] = json!(5000));
    luxe.send_frame("list_pull_requests", json!({"request_id": "slow"}));
    let started = std::time::Instant::now();
    let failed = luxe.answer();
    assert_eq!(failed["kind"], "github_read_failed");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("did not answer in time")
    );
    assert!(started.elapsed() < std::time::Duration::from_millis(4500));
}

#[test]
fn open_pull_request_confirms_its_preview_pushes_and_opens_once() {
    let (ws, origin) = project();
    git(ws.path(), &["checkout", "--quiet", "-b", "feature"]);
    write(ws.path(), "src/frob.rs", "fn frob() { 1 }\n");
    git(ws.path(), &["commit", "--quiet", "-am", "Frob returns one"]);
    write(ws.path(), "src/more.rs", "fn more() {}\n");
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "--quiet", "-m", "Add more"]);
    let fake = FakeGh::new(&example_state());
    let mut luxe = start(&ws, &fake, &["--github-writes"]);
    luxe.expect("workspace_updated");
    luxe.send_frame("open_pull_request", json!({"request_id": "nope"}));
    assert!(
        luxe.answer()["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("no preview")
    );

    luxe.send_frame("preview_pull_request", json!({"request_id": "p"}));
    let preview = luxe.answer();
    assert_eq!(preview["kind"], "pull_request_preview", "{preview}");
    let content = &preview["content"];
    assert_eq!(
        (content["base"].as_str(), content["head"].as_str()),
        (Some("main"), Some("feature"))
    );
    let subjects: Vec<&str> = content["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    assert_eq!(subjects, ["Frob returns one", "Add more"]);
    assert!(
        content["description"]
            .as_str()
            .unwrap()
            .contains("Frob returns one")
    );

    luxe.send_frame(
        "open_pull_request",
        json!({"request_id": "p", "title": "Frobs, more"}),
    );
    let opened = luxe.answer();
    assert_eq!(opened["kind"], "pull_request_opened", "{opened}");
    let number = opened["content"]["number"].as_u64().unwrap();
    assert!(number > 7);
    let pushed = git(origin.path(), &["rev-parse", "feature"]);
    assert_eq!(
        pushed,
        git(ws.path(), &["rev-parse", "feature"]),
        "the head was pushed"
    );
    let created = fake.state()["pull_requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["number"] == number)
        .cloned()
        .unwrap();
    assert_eq!(
        (created["title"].as_str(), created["baseRefName"].as_str()),
        (Some("Frobs, more"), Some("main"))
    );
    luxe.send_frame("open_pull_request", json!({"request_id": "p"}));
    assert_eq!(
        luxe.answer()["kind"],
        "action_rejected",
        "a pull request opens once"
    );
}

#[test]
fn a_branch_review_posts_as_a_pull_request_review_once_and_only_as_previewed() {
    let (ws, _origin) = project();
    // main holds the base of PR #7's diff; frobs (checked out) its head.
    git(ws.path(), &["checkout", "--quiet", "main"]);
    write(
        ws.path(),
        "src/frob.rs",
        "fn a() {}\nfn b() {}\nfn d() {}\n",
    );
    git(ws.path(), &["commit", "--quiet", "-am", "base"]);
    git(ws.path(), &["checkout", "--quiet", "-B", "frobs"]);
    write(
        ws.path(),
        "src/frob.rs",
        "fn a() {}\nfn b() { frob() }\nfn c() {}\nfn d() {}\n",
    );
    git(ws.path(), &["commit", "--quiet", "-am", "frob"]);
    let fake = FakeGh::new(&example_state());
    let mut luxe = start(&ws, &fake, &["--github-writes"]);
    luxe.expect("workspace_updated");
    luxe.send_frame(
        "load_guided_review",
        json!({"request_id": "l", "target": {"kind": "branch", "base": "main"}}),
    );
    let loaded = luxe.answer();
    assert_eq!(loaded["kind"], "guided_review_loaded", "{loaded}");
    let review = loaded["content"]["review"].clone();
    assert_eq!(luxe.answer()["kind"], "review_session_restored");
    let hunk = &review["hunks"][0];
    let id = review["id"].clone();
    let line = json!({"kind": "line", "file_id": hunk["file_id"], "hunk_id": hunk["id"], "side": "new", "line": 2});
    let file = json!({"kind": "file", "file_id": hunk["file_id"]});
    for (rid, anchor, severity) in [("c1", line, "issue"), ("c2", file, "nitpick")] {
        luxe.send_frame(
            "edit_review",
            json!({"request_id": rid, "review_id": id, "edit": "comment",
            "anchor": anchor, "body": format!("body of {rid}"), "severity": severity}),
        );
        assert_eq!(luxe.answer()["kind"], "review_session_saved");
    }
    let preview = |luxe: &mut LuxeProcess, rid: &str| {
        luxe.send_frame(
            "preview_pull_request_review",
            json!({"request_id": rid, "review_id": id}),
        );
        let frame = luxe.answer();
        assert_eq!(frame["kind"], "pull_request_review_preview", "{frame}");
        frame["content"].clone()
    };
    let shown = preview(&mut luxe, "p1");
    assert_eq!(shown["head_sha"], "1".repeat(40));
    assert_eq!(shown["suggested_verdict"], "request_changes");
    assert_eq!(
        shown["comments"],
        json!([{"path": "src/frob.rs", "line": 2, "side": "RIGHT", "body": "body of c1"}])
    );
    assert_eq!(shown["skipped"][0]["comment_id"], "finding_2");

    // The findings change after the preview: the post is refused.
    luxe.send_frame(
        "edit_review",
        json!({"request_id": "e", "review_id": id, "edit": "resolve", "comment_id": "finding_2"}),
    );
    assert_eq!(luxe.answer()["kind"], "review_session_saved");
    let failed = post(&mut luxe, "p1", "comment");
    assert_eq!(failed["kind"], "pull_request_review_post_failed");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("findings changed")
    );

    let shown = preview(&mut luxe, "p2");
    assert!(
        shown["skipped"].as_array().unwrap().is_empty(),
        "a resolved finding is left out"
    );
    luxe.send_frame(
        "post_pull_request_review",
        json!({"request_id": "p2", "verdict": "comment", "body": "Thanks"}),
    );
    let posted = luxe.answer();
    assert_eq!(posted["kind"], "pull_request_review_posted", "{posted}");
    let reviews = &fake.state()["reviews"]["7"];
    assert_eq!(reviews.as_array().unwrap().len(), 1);
    let call = fake
        .log()
        .into_iter()
        .rev()
        .find(|c| c["argv"][0] == "api")
        .unwrap();
    assert_eq!(
        call["argv"].as_array().unwrap()[1..],
        [
            json!("--method"),
            json!("POST"),
            json!("repos/acme/widgets/pulls/7/reviews"),
            json!("--input"),
            json!("-"),
        ],
        "the body goes on gh's stdin"
    );
    assert_eq!(
        bodies_left(&ws),
        Vec::<String>::new(),
        "nothing of a post on disk"
    );
    assert_eq!(
        post(&mut luxe, "p2", "comment")["kind"],
        "action_rejected",
        "a review posts once"
    );

    // GitHub refuses a comment (the diff changed under the preview): the post fails and can be
    // confirmed again once GitHub would take it.
    let shown = preview(&mut luxe, "p4");
    assert_eq!(shown["comments"].as_array().unwrap().len(), 1);
    let diff = fake.state()["diffs"]["7"].clone();
    let elsewhere = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n";
    fake.update_state(|s| s["diffs"]["7"] = json!(elsewhere));
    let failed = post(&mut luxe, "p4", "comment");
    assert_eq!(failed["kind"], "pull_request_review_post_failed");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("HTTP 422"),
        "{failed}"
    );
    assert_eq!(
        bodies_left(&ws),
        Vec::<String>::new(),
        "nor of a failed one"
    );
    fake.update_state(|s| s["diffs"]["7"] = diff.clone());
    assert_eq!(
        post(&mut luxe, "p4", "comment")["kind"],
        "pull_request_review_posted"
    );

    // The head moves on GitHub after a preview: refused too.
    preview(&mut luxe, "p3");
    fake.update_state(|s| s["pull_requests"][0]["headRefOid"] = json!("4".repeat(40)));
    let failed = post(&mut luxe, "p3", "approve");
    assert!(
        failed["content"]["reason"]
            .as_str()
            .unwrap()
            .contains("head moved"),
        "{failed}"
    );
}

/// Files under `$LUXE_HOME` other than sessions and review sessions: what a post could leave.
fn bodies_left(ws: &Workspace) -> Vec<String> {
    let home = ws.path().join("home");
    let mut left = Vec::new();
    for dir in ["", "reviews"] {
        let Ok(entries) = std::fs::read_dir(home.join(dir)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let kept = entry.path().is_dir() || name.starts_with("review");
            if !kept {
                left.push(format!("{dir}/{name}"));
            }
        }
    }
    left
}

#[test]
fn issue_and_from_pr_prepare_the_session_before_the_first_frame() {
    let (ws, _origin) = project();
    git(ws.path(), &["checkout", "--quiet", "main"]);
    let mut state = example_state();
    state["issues"] = json!([{"number": 12, "title": "Frobs crash", "body": "Steps: frob twice.",
        "url": "https://github.com/acme/widgets/issues/12", "state": "OPEN"}]);
    let fake = FakeGh::new(&state);
    let server = luxe_tests::model_server::ModelServer::start();
    server.push(luxe_tests::model_server::Reply::text("On it."));
    let mut cmd = ws.luxe();
    cmd.envs(fake.envs())
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .args(["--issue", "12", "--from-pr", "7"]);
    let mut luxe = LuxeProcess::spawn(cmd);
    let ready = luxe.expect("ready");
    assert_eq!(
        ready["started"],
        json!({"issue": {"number": 12, "title": "Frobs crash",
            "url": "https://github.com/acme/widgets/issues/12"}, "from_pr": 7}),
        "ready says what the flags did: {ready}"
    );
    luxe.expect("state_changed");
    let branch = git(ws.path(), &["branch", "--show-current"]);
    assert_eq!(
        branch.trim(),
        "frobs",
        "--from-pr checked out the pull request's branch"
    );
    luxe.send(r#"{"kind":"submit_user_message","content":{"text":"fix it"}}"#);
    luxe.until("turn_ended");
    let sent = server.requests()[0].body.to_string();
    assert!(
        sent.contains("Frobs crash")
            && sent.contains("Steps: frob twice.")
            && sent.contains("fix it"),
        "{sent}"
    );
    let calls = fake.argvs();
    assert_eq!(calls[0], ["pr", "checkout", "7"]);
    assert_eq!(
        calls[1],
        ["issue", "view", "12", "--json", "number,title,body,url"]
    );

    // An issue that does not exist stops start-up with the flag named.
    let out = ws
        .luxe()
        .envs(fake.envs())
        .args(["--issue", "99"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("luxe: --issue 99:") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn a_poll_sends_the_dock_again_only_when_it_changed() {
    let (ws, _origin) = project();
    let fake = FakeGh::new(&example_state());
    let mut cmd = ws.luxe();
    cmd.envs(fake.envs()).env("LUXE_GITHUB_POLL_MS", "200");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.watch_workspace();
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.expect("workspace_updated");
    // Let several polls pass with nothing changed, then change a check.
    let probes = |fake: &FakeGh| {
        fake.argvs()
            .iter()
            .filter(|a| a[..] == ["auth", "status"])
            .count()
    };
    let deadline = std::time::Instant::now() + luxe_tests::process::patience();
    while probes(&fake) < 3 {
        assert!(std::time::Instant::now() < deadline, "luxe stopped polling");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    fake.update_state(|s| s["checks"]["7"][1]["bucket"] = json!("pass"));
    let dock = luxe.expect("workspace_updated");
    assert_eq!(
        dock["pull_request"]["checks"][1]["bucket"], "pass",
        "the first frame since is the change"
    );
}

#[test]
fn a_pull_request_review_is_read_through_gh_and_posts_back_to_it() {
    let (_ws, _origin, fake, mut luxe) = rig(&["--github-writes"]);
    luxe.send_frame(
        "load_guided_review",
        json!({"request_id": "l", "target": {"kind": "pull_request", "number": 7}}),
    );
    let loaded = luxe.answer();
    assert_eq!(loaded["kind"], "guided_review_loaded", "{loaded}");
    let review = loaded["content"]["review"].clone();
    assert_eq!(luxe.answer()["kind"], "review_session_restored");
    assert_eq!(review["files"][0]["path"], "src/frob.rs");
    let hunk = &review["hunks"][0];
    let added: Vec<&Value> = hunk["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "add")
        .collect();
    assert_eq!(added[0]["text"], "fn b() { frob() }");
    let anchor = json!({"kind": "line", "file_id": hunk["file_id"], "hunk_id": hunk["id"], "side": "new", "line": added[0]["new_line"]});
    luxe.send_frame(
        "edit_review",
        json!({"request_id": "c", "review_id": review["id"], "edit": "comment",
        "anchor": anchor, "body": "Why frob here?", "severity": "question"}),
    );
    assert_eq!(luxe.answer()["kind"], "review_session_saved");
    luxe.send_frame(
        "preview_pull_request_review",
        json!({"request_id": "p", "review_id": review["id"]}),
    );
    let preview = luxe.answer();
    assert_eq!(preview["content"]["head_sha"], "1".repeat(40), "{preview}");
    assert_eq!(preview["content"]["comments"][0]["line"], 2);
    assert_eq!(
        post(&mut luxe, "p", "comment")["kind"],
        "pull_request_review_posted"
    );
    let posted = &fake.state()["reviews"]["7"][0];
    assert_eq!(posted["commit_id"], "1".repeat(40));
    let calls = fake.argvs();
    assert!(
        calls.iter().any(|a| a[..] == ["pr", "diff", "7"]),
        "{calls:?}"
    );

    // Naming the repository reads it there (`--repo`), as for another repository's PR.
    let target = json!({"kind": "pull_request", "number": 7, "repository": "acme/widgets"});
    luxe.send_frame(
        "load_guided_review",
        json!({"request_id": "l2", "target": target}),
    );
    assert_eq!(luxe.answer()["kind"], "guided_review_loaded");
    let named = ["pr", "diff", "7", "--repo", "acme/widgets"];
    assert!(fake.argvs().iter().any(|a| a[..] == named));
}
