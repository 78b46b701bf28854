//! The command line (design §3): flags that shape the session, and those that stop it.

use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::Value;

fn start_frames(cmd: std::process::Command) -> (Value, Value) {
    let mut luxe = LuxeProcess::spawn(cmd);
    let ready = luxe.expect("ready");
    let state = luxe.expect("state_changed");
    (ready, state)
}

fn refused(cmd: &mut std::process::Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn on_ask_with_rpc_exits_2_with_one_line_and_no_frame() {
    let ws = Workspace::new();
    for extra in [&["--on-ask"][..], &["--on-ask", "deny"]] {
        let (code, stdout, stderr) = refused(ws.luxe().args(extra));
        assert_eq!(code, 2);
        assert_eq!(stdout, "");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("--on-ask") && stderr.contains("--rpc"),
            "{stderr}"
        );
    }
}

#[test]
fn continue_with_resume_is_a_usage_error() {
    let ws = Workspace::new();
    let (code, stdout, stderr) = refused(ws.luxe().args(["-c", "--resume", "abc"]));
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert!(stderr.contains("--resume"), "{stderr}");
}

#[test]
fn start_up_flags_that_cannot_be_prepared_exit_2_saying_why() {
    // No gh on PATH here (only git), and not a git repository.
    let ws = Workspace::new();
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(luxe_tests::git_repo::real_git(), bin.path().join("git")).unwrap();
    for (args, why) in [
        (&["--issue", "12"][..], "--issue 12: gh is not installed"),
        (&["--from-pr", "7"], "--from-pr 7: gh is not installed"),
        (&["--worktree"], "--worktree: not in a git repository"),
        (
            &["--worktree", "feature"],
            "--worktree: not in a git repository",
        ),
        // Refused before any worktree is made: a new one has no session to continue.
        (
            &["--worktree", "-c"],
            "--worktree cannot be used with -c or --resume",
        ),
    ] {
        let mut cmd = ws.luxe();
        cmd.args(args).env("PATH", bin.path());
        let (code, stdout, stderr) = refused(&mut cmd);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
}

#[test]
fn worktree_starts_the_session_in_a_new_worktree_on_a_new_branch() {
    let ws = Workspace::new();
    luxe_tests::git_repo::init_repo(ws.path(), &[("a.txt", "a\n")]);
    let mut luxe = luxe_tests::process::LuxeProcess::spawn({
        let mut cmd = ws.luxe();
        cmd.args(["--worktree", "feat"]);
        cmd
    });
    let ready = luxe.expect("ready");
    let top = ws.path().canonicalize().unwrap();
    let expected = format!("{}-feat", top.display());
    assert_eq!(ready["cwd"], expected.as_str());
    assert!(std::path::Path::new(&expected).join("a.txt").exists());
    let branch = luxe_tests::git_repo::git(
        std::path::Path::new(&expected),
        &["branch", "--show-current"],
    );
    assert_eq!(branch.trim(), "feat");
    luxe.send(r#"{"kind":"close"}"#);
    assert_eq!(luxe.wait().0.code(), Some(0));
    luxe_tests::git_repo::git(ws.path(), &["worktree", "remove", "--force", &expected]);
}

#[test]
fn unknown_model_provider_stops_start_up() {
    let ws = Workspace::new();
    let (code, stdout, stderr) = refused(ws.luxe().args(["--model", "acme/rocket"]));
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.contains("unknown provider \"acme\""), "{stderr}");
}

#[test]
fn read_only_wins_over_github_writes_and_yolo() {
    let ws = Workspace::new();
    let mut cmd = ws.luxe();
    cmd.args(["--read-only", "--github-writes", "--yolo"]);
    let (ready, state) = start_frames(cmd);
    assert_eq!(ready["read_only"], true);
    assert_eq!(ready["github_writes"], false);
    assert_eq!(state["permission_mode"], "read-only");
}

#[test]
fn session_flags_show_in_ready_and_state() {
    let ws = Workspace::new();
    let mut cmd = ws.luxe();
    cmd.args([
        "--github-writes",
        "--yolo",
        "--auto-approve",
        "--trust-project",
        "--model",
        "openai/gpt-5",
    ]);
    let (ready, state) = start_frames(cmd);
    assert_eq!(ready["github_writes"], true);
    assert_eq!(state["permission_mode"], "bypass");
    assert_eq!(state["auto_approve"], true);
    assert_eq!(state["trust_project"], true);
    assert_eq!(state["model"]["id"], "openai/gpt-5");
    assert_eq!(state["model"]["available"], false);
    assert_eq!(state["model"]["context_window"], 400_000);

    let mut cmd = ws.luxe();
    cmd.args(["--permission-mode", "accept-edits"]);
    assert_eq!(start_frames(cmd).1["permission_mode"], "accept-edits");
}

#[test]
fn a_provider_key_in_the_environment_picks_the_default_model() {
    let ws = Workspace::new();
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", "test-key");
    let (_, state) = start_frames(cmd);
    assert_eq!(state["model"]["provider"], "anthropic");
    assert_eq!(state["model"]["available"], true);

    let mut cmd = ws.luxe();
    cmd.env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    let (_, state) = start_frames(cmd);
    assert_eq!(state["model"]["provider"], "openai");
    assert_eq!(state["model"]["available"], true);
}

#[test]
fn help_and_version_work() {
    let ws = Workspace::new();
    let (code, stdout, _) = refused(ws.luxe().arg("--version"));
    assert_eq!(code, 0);
    assert_eq!(stdout.trim(), format!("luxe {}", env!("CARGO_PKG_VERSION")));
    let (code, stdout, _) = refused(ws.luxe().arg("--help"));
    assert_eq!(code, 0);
    for flag in [
        "--rpc",
        "--github-writes",
        "--permission-mode",
        "--worktree",
    ] {
        assert!(stdout.contains(flag), "--help lists {flag}");
    }
}

#[test]
fn without_rpc_luxe_says_what_to_run() {
    let ws = Workspace::new();
    let bin = luxe_tests::process::luxe_bin();
    let out = std::process::Command::new(bin)
        .current_dir(ws.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("luxe --rpc"));
}

#[test]
fn set_model_with_an_unknown_provider_is_rejected_and_a_known_one_accepted() {
    let ws = Workspace::new();
    let mut luxe = LuxeProcess::spawn(ws.luxe());
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.send(r#"{"kind":"set_model","content":{"model":"acme/rocket"}}"#);
    let rejected = luxe.expect("action_rejected");
    assert_eq!(rejected["kind"], "set_model");
    assert!(rejected["reason"].as_str().unwrap().contains("acme"));
    luxe.send(r#"{"kind":"set_model","content":{"model":"openai/qwen3-coder"}}"#);
    let state = luxe.expect("state_changed");
    assert_eq!(state["model"]["id"], "openai/qwen3-coder");
    assert!(state["model"]["cost"].is_null());
    luxe.send(r#"{"kind":"set_permission_auto_approve","content":{"enabled":true}}"#);
    assert_eq!(luxe.expect("state_changed")["auto_approve"], true);
    luxe.send(r#"{"kind":"set_thinking","content":{"thinking":"high"}}"#);
    assert_eq!(luxe.expect("state_changed")["thinking"], "high");
}
