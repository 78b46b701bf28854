//! The review view in a real terminal (tmux) against a real repository and the loopback model
//! server: `/review` opens the working tree's review, the keys walk it by chapter and hunk, a
//! comment is sent and the agent's answer shows in its thread, a fix is asked (its edit allowed
//! over the review) and its report shows after the file changed, and the chapters are committed
//! (git log shows the commits). Refused where the person acted, changing nothing: `C` and `S`
//! in a read-only session, and a commit after HEAD moved under the review.

use std::time::Duration;

use luxe_tests::git_repo::{THREE_CHANGES_LIB, git, three_changes};
use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{Workspace, patience};
use luxe_tests::tmux::{Tmux, luxe_exited, luxe_in_tmux, review_cursor_row as cursor_row};
use serde_json::json;

/// A repository with three working-tree changes (`beta` changed, a new file, the README);
/// the files the tmux script writes beside luxe (`before`, `after`, `exit`) are ignored.
fn project() -> Workspace {
    let ws = Workspace::new();
    three_changes(ws.path(), &["before", "after", "exit"]);
    ws
}

/// Presses `key` until the cursor's row holds `needle` (at most 30 times); the screen then.
fn press_until(tmux: &Tmux, key: &str, needle: &str) -> String {
    for _ in 0..30 {
        let screen = tmux.screen();
        if cursor_row(&screen).is_some_and(|row| row.contains(needle)) {
            return screen;
        }
        tmux.keys(&[key]);
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "{key} never brought the cursor to {needle:?}:\n{}",
        tmux.screen()
    );
}

#[test]
fn a_working_tree_review_walked_commented_fixed_and_committed() {
    let (ws, server, tmux) = reviewing("");
    let screen = tmux.screen();
    assert!(screen.contains("Review · working tree"), "{screen}");
    let chapters: usize = screen
        .split("Chapter 1 of ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .expect("the chapter count");
    assert!(
        cursor_row(&screen).is_some_and(|row| row.starts_with("@@")),
        "the cursor on the first hunk: {screen}"
    );
    // Chapter by chapter to the last and back; then hunk by hunk to beta's.
    for n in 2..=chapters {
        tmux.keys(&["}"]);
        tmux.wait_for(&format!("Chapter {n} of {chapters}"), patience());
    }
    tmux.keys(&vec!["{"; chapters]);
    tmux.wait_for("Chapter 1 of", patience());
    press_until(&tmux, "n", "@@ -10,5 +10,5 @@");
    press_until(&tmux, "j", "+    2 + 40");

    // A comment sent at once: the agent's answer lands on its thread.
    server.push(Reply::text("Forty is the offset the caller expects."));
    tmux.keys(&["c"]);
    tmux.wait_for("Comment on src/lib.rs:13", patience());
    tmux.type_text("Why add 40 here?");
    tmux.keys(&["C-s"]);
    let screen = tmux.wait_for("agent · answer: Forty is the offset", patience());
    assert!(
        screen.contains("reviewer · comment: Why add 40 here?"),
        "{screen}"
    );
    let asked = server
        .requests()
        .last()
        .expect("a request")
        .body
        .to_string();
    assert!(asked.contains("Why add 40 here?"), "{asked}");

    // A fix: its edit asks first, over the review; the report lands once the file changed.
    server.push(Reply::tool_call(
        "t1",
        "edit",
        json!({"path": "src/lib.rs", "old_text": "2 + 40", "new_text": "42"}),
    ));
    server.push(Reply::tool_call(
        "t2",
        "report",
        json!({"comment_id": "finding_1", "status": "fixed", "summary": "Folded the constant."}),
    ));
    server.push(Reply::text("Done."));
    tmux.keys(&["j"]);
    tmux.wait_for("s send · f fix", patience());
    tmux.keys(&["f"]);
    tmux.wait_for("Ask the agent to fix finding_1", patience());
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Allow edit?", patience());
    assert!(
        screen.contains("Review ·"),
        "the prompt over the review: {screen}"
    );
    tmux.keys(&["y"]);
    tmux.wait_for("report · fixed: Folded the constant.", patience());
    // The review is read again once the turn has ended: its line changed.
    tmux.wait_for("outdated", patience());
    assert_eq!(
        std::fs::read_to_string(ws.path().join("src/lib.rs")).unwrap(),
        THREE_CHANGES_LIB.replace("    2\n", "    42\n")
    );
    tmux.wait_for("+    42", patience());

    // The chapters committed, one commit each, with the messages as shown.
    tmux.keys(&["C"]);
    tmux.wait_for("one commit each, on the current branch", patience());
    tmux.keys(&["Enter"]);
    let plural = if chapters == 1 { "" } else { "s" };
    tmux.wait_for(
        &format!("committed {chapters} chapter{plural}:"),
        patience(),
    );
    let log = git(ws.path(), &["log", "--format=%s", "main"]);
    let subjects: Vec<&str> = log.lines().collect();
    assert_eq!(subjects.len(), chapters + 1, "{log}");
    assert_eq!(subjects.last(), Some(&"base"));
    let status = git(ws.path(), &["status", "--porcelain"]);
    assert_eq!(status, "", "every change is committed");

    tmux.keys(&["q"]);
    tmux.wait_until_gone("Review ·");
    tmux.wait_for("›", patience());
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

/// `luxe` with `flags` in a [`project`], its working tree's review open on the first chapter.
fn reviewing(flags: &str) -> (Workspace, ModelServer, Tmux) {
    let ws = project();
    let server = ModelServer::start();
    let tmux = luxe_in_tmux(&ws, &server, flags);
    tmux.wait_for("›", patience());
    tmux.type_text("/review");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Chapter 1 of", patience());
    (ws, server, tmux)
}

#[test]
fn in_a_read_only_session_c_and_s_say_why_and_commit_nothing() {
    let (ws, _server, tmux) = reviewing("--read-only");
    let head = git(ws.path(), &["rev-parse", "HEAD"]);
    for key in ["C", "S"] {
        tmux.keys(&[key]);
        let screen = tmux.wait_for(
            &format!("{key} is off: this session is read-only"),
            patience(),
        );
        assert!(
            !screen.contains("one commit each"),
            "no messages to edit: {screen}"
        );
        tmux.keys(&["Enter"]);
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(git(ws.path(), &["rev-parse", "HEAD"]), head, "no commit");
    assert_eq!(git(ws.path(), &["branch", "--list"]).lines().count(), 1);
    tmux.keys(&["q", "C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn committing_after_head_moved_under_the_review_is_refused_and_changes_nothing() {
    let (ws, _server, tmux) = reviewing("");
    // Someone commits every change in another terminal: the review's diff is against the old
    // HEAD, and none of its chapters applies to the new one.
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "--quiet", "-m", "elsewhere"]);
    let head = git(ws.path(), &["rev-parse", "HEAD"]);
    tmux.keys(&["C"]);
    tmux.wait_for("one commit each, on the current branch", patience());
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("HEAD moved since the review was read", patience());
    assert!(!screen.contains("committed "), "{screen}");
    // Read again: the change is HEAD's now, so nothing is left to review.
    tmux.wait_for("Nothing to review", patience());
    assert_eq!(git(ws.path(), &["rev-parse", "HEAD"]), head, "HEAD stays");
    assert_eq!(
        git(ws.path(), &["status", "--porcelain"]),
        "",
        "the tree stays"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("src/lib.rs")).unwrap(),
        THREE_CHANGES_LIB.replace("    2\n", "    2 + 40\n"),
        "the file as it was"
    );
    tmux.keys(&["q", "C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}
