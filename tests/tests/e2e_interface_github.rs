//! The GitHub sheets in a real terminal (tmux), against a real repository with a bare origin
//! and the fake gh: `/github` shows the branch's pull request and its checks, `/pr` drafts a
//! pull request, takes an edited title and opens it (the branch is pushed, gh opens it once),
//! and without `--github-writes` the key says why it is off and nothing is pushed (nor is a
//! previewed pull request review posted).

use luxe_tests::fake_gh::{FakeGh, example_state};
use luxe_tests::git_repo::{bare_origin, git, init_repo, write};
use luxe_tests::model_server::ModelServer;
use luxe_tests::process::{Workspace, patience};
use luxe_tests::stack_repo::{Stack, advance_main, rev};
use luxe_tests::tmux::{Tmux, luxe_exited, luxe_in_tmux_with, review_cursor_row as cursor_row};

/// A repository on `feature`, two commits over `main`, with a bare origin holding `main`.
fn project() -> (Workspace, tempfile::TempDir) {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("src/frob.rs", "fn frob() {}\n")]);
    let origin = bare_origin(ws.path());
    git(ws.path(), &["checkout", "--quiet", "-b", "feature"]);
    write(ws.path(), "src/frob.rs", "fn frob() { 1 }\n");
    git(ws.path(), &["commit", "--quiet", "-am", "Frob returns one"]);
    (ws, origin)
}

#[test]
fn pr_opens_the_branchs_pull_request_with_the_edited_title() {
    let (ws, origin) = project();
    let fake = FakeGh::new(&example_state());
    let server = ModelServer::start();
    let tmux = luxe_in_tmux_with(&ws, &server, "--github-writes", &fake.envs());
    tmux.wait_for("›", patience());
    tmux.type_text("/pr");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Frob returns one", patience());
    assert!(screen.contains("main ← feature"), "{screen}");
    assert!(screen.contains("Enter opens it"), "{screen}");
    tmux.keys(&["End"]);
    tmux.type_text(", for real");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("✓ opened #", patience());
    let created = fake.state()["pull_requests"]
        .as_array()
        .expect("pull requests")
        .iter()
        .find(|p| p["headRefName"] == "feature")
        .cloned()
        .expect("opened through gh");
    assert_eq!(created["title"], "Frob returns one, for real", "{screen}");
    let number = created["number"].as_u64().expect("a number");
    assert!(screen.contains(&format!("opened #{number}")), "{screen}");
    assert_eq!(
        git(origin.path(), &["rev-parse", "feature"]),
        git(ws.path(), &["rev-parse", "feature"]),
        "the head was pushed"
    );
    // Enter again opens nothing more: the sheet is done.
    tmux.keys(&["Enter"]);
    let opened: Vec<_> = fake.state()["pull_requests"]
        .as_array()
        .expect("pull requests")
        .iter()
        .filter(|p| p["headRefName"] == "feature")
        .cloned()
        .collect();
    assert_eq!(opened.len(), 1);
    tmux.keys(&["Escape"]);
    tmux.wait_for("›", patience());
    tmux.type_text("/github");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Checks (", patience());
    assert!(
        screen.contains(&format!("Pull request #{number}")),
        "{screen}"
    );
    tmux.keys(&["q", "C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn without_github_writes_pr_says_why_and_pushes_nothing() {
    let (ws, origin) = project();
    let fake = FakeGh::new(&example_state());
    let server = ModelServer::start();
    let tmux = luxe_in_tmux_with(&ws, &server, "", &fake.envs());
    tmux.wait_for("›", patience());
    tmux.type_text("/pr");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Frob returns one", patience());
    assert!(
        screen.contains("Enter: off (GitHub writes are off"),
        "{screen}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for(
        "✗ GitHub writes are off: start luxe with --github-writes",
        patience(),
    );
    let refs = git(origin.path(), &["branch", "--list", "feature"]);
    assert!(refs.trim().is_empty(), "nothing pushed: {refs}");
    tmux.keys(&["Escape", "C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn stack_opens_a_stack_and_restack_moves_it_after_its_base_moved() {
    let stack = Stack::new(2);
    stack
        .fake
        .update_state(|s| s["pull_requests"] = serde_json::json!([]));
    let server = ModelServer::start();
    let tmux = luxe_in_tmux_with(&stack.ws, &server, "--github-writes", &stack.fake.envs());
    tmux.wait_for("›", patience());
    tmux.type_text("/stack");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("2 branches, bottom first", patience());
    assert!(
        screen.contains("s1 → main") && screen.contains("s2 → s1"),
        "{screen}"
    );
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("✓ opened 2 pull requests", patience());
    assert!(
        screen.contains("#1 commit 1") && screen.contains("#2 commit 2"),
        "{screen}"
    );
    tmux.keys(&["q"]);
    advance_main(&stack, "other.txt", "new on main\n");
    tmux.type_text("/restack");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("2 branches move, bottom first", patience());
    assert!(
        screen.contains("s1 (#1)") && screen.contains("onto origin/main"),
        "{screen}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("✓ restacked 2 branches and pushed them", patience());
    // s1 now sits on the moved main, on origin too.
    let main = stack.origin_git(&["rev-parse", "main"]);
    let base = git(stack.path(), &["merge-base", "s1", "origin/main"]);
    assert_eq!(base.trim(), main.trim());
    assert_eq!(
        stack.origin_git(&["rev-parse", "s2"]).trim(),
        rev(stack.path(), "s2")
    );
    tmux.keys(&["q", "C-d"]);
    assert_eq!(luxe_exited(&stack.ws), "0");
}

#[test]
fn the_first_screen_says_what_issue_from_pr_and_worktree_did() {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("src/frob.rs", "fn frob() {}\n")]);
    let _origin = bare_origin(ws.path());
    git(ws.path(), &["checkout", "--quiet", "-b", "frobs"]);
    git(ws.path(), &["push", "--quiet", "-u", "origin", "frobs"]);
    git(ws.path(), &["checkout", "--quiet", "main"]);
    let mut state = example_state();
    state["issues"] = serde_json::json!([{"number": 12, "title": "Frobs crash",
        "body": "Steps: frob twice.", "url": "https://github.com/acme/widgets/issues/12",
        "state": "OPEN"}]);
    let fake = FakeGh::new(&state);
    let server = ModelServer::start();
    let flags = "--issue 12 --from-pr 7 --worktree side";
    let tmux = luxe_in_tmux_with(&ws, &server, flags, &fake.envs());
    let screen = tmux.wait_for("your first message", patience());
    assert!(
        screen.contains("--issue: #12 “Frobs crash”"),
        "the issue: {screen}"
    );
    assert!(
        screen.contains("--from-pr: pull request #7 is checked out"),
        "{screen}"
    );
    assert!(
        screen.contains("on the new branch side"),
        "the worktree: {screen}"
    );
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
    // The worktree was made beside the repository: it goes with the test.
    std::fs::remove_dir_all(format!("{}-side", ws.path().display())).expect("the worktree");
}

/// `luxe` with `flags` on branch `frobs`, which is pull request #7 of the fake gh's example
/// state, with `/review pr 7` open on its first chapter (the diff comes from the fake gh).
fn pull_request_seven_reviewed(
    flags: &str,
) -> (Workspace, tempfile::TempDir, FakeGh, ModelServer, Tmux) {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("src/frob.rs", "fn frob() {}\n")]);
    let origin = bare_origin(ws.path());
    git(ws.path(), &["checkout", "--quiet", "-b", "frobs"]);
    let fake = FakeGh::new(&example_state());
    let server = ModelServer::start();
    let tmux = luxe_in_tmux_with(&ws, &server, flags, &fake.envs());
    tmux.wait_for("›", patience());
    tmux.type_text("/review pr 7");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Chapter 1 of", patience());
    (ws, origin, fake, server, tmux)
}

#[test]
fn a_pull_request_review_is_posted_once_with_the_previewed_comment() {
    let (ws, _origin, fake, _server, tmux) = pull_request_seven_reviewed("--github-writes");
    let mut screen = tmux.screen();
    for _ in 0..30 {
        if cursor_row(&screen).is_some_and(|row| row.contains("fn b() { frob() }")) {
            break;
        }
        tmux.keys(&["j"]);
        std::thread::sleep(std::time::Duration::from_millis(100));
        screen = tmux.screen();
    }
    assert!(
        cursor_row(&screen).is_some_and(|row| row.contains("fn b() { frob() }")),
        "{screen}"
    );
    tmux.keys(&["c"]);
    tmux.wait_for("Comment on src/frob.rs", patience());
    tmux.type_text("Why frob here?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("draft", patience());
    tmux.keys(&["P"]);
    let screen = tmux.wait_for("Enter posts", patience());
    assert!(
        screen.contains("src/frob.rs:2: Why frob here?"),
        "the previewed comment: {screen}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("posted the review", patience());
    let posted = fake.state()["reviews"]["7"].clone();
    let posted = posted.as_array().expect("the reviews of #7");
    assert_eq!(posted.len(), 1, "posted once: {posted:?}");
    assert!(
        posted[0].to_string().contains("Why frob here?"),
        "{:?}",
        posted[0]
    );
    // Enter again posts nothing more.
    tmux.keys(&["Enter"]);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        fake.state()["reviews"]["7"].as_array().map(Vec::len),
        Some(1)
    );
    tmux.keys(&["q", "C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn without_github_writes_a_pull_request_review_is_previewed_but_not_posted() {
    let (ws, _origin, fake, _server, tmux) = pull_request_seven_reviewed("");
    // The preview is a read: it works without the flag, and says why Enter cannot post.
    tmux.keys(&["P"]);
    let screen = tmux.wait_for("Enter cannot post: GitHub writes are off", patience());
    assert!(!screen.contains("Enter posts"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("✗", patience());
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        fake.state()["reviews"]["7"].as_array().map(Vec::len),
        None,
        "nothing posted: {}",
        fake.state()["reviews"]
    );
    tmux.keys(&["Escape", "q", "C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}
