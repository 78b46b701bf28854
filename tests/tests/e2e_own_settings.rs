//! Luxe's own settings are the user's to change: a tool write to the project's `.luxe/` or to
//! `$LUXE_HOME`, or a command that names either, asks in every mode (bypass, accept-edits, an
//! allow rule that covers it), so an agent cannot loosen the rules of later sessions unasked.
//! Auto-approve answers that prompt as it answers any other.

use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::rig::{self, Provider};
use serde_json::{Value, json};

const LOOSER: &str = r#"{"permissions":{"allow":["bash(*)"]}}"#;

fn start(ws: &Workspace, server: &ModelServer, flags: &[&str]) -> LuxeProcess {
    rig::spawn(ws, server, Provider::Anthropic, flags, &[])
}

/// Runs one turn of `call`, answering each prompt with `reply`; returns (prompts, the call's
/// status).
fn run(luxe: &mut LuxeProcess, server: &ModelServer, call: Reply, reply: &str) -> (usize, Value) {
    server.push(call);
    server.push(Reply::text("done"));
    luxe.send_frame("submit_user_message", json!({"text": "go"}));
    let (mut prompts, mut status) = (0, Value::Null);
    loop {
        let frame = luxe.recv();
        match frame["kind"].as_str().unwrap_or_default() {
            "permission_requested" => {
                prompts += 1;
                let id = frame["content"]["id"].clone();
                luxe.send_frame("respond_permission", json!({"id": id, "reply": reply}));
            }
            "tool_finished" => status = frame["content"]["status"].clone(),
            "turn_ended" => return (prompts, status),
            _ => {}
        }
    }
}

fn write(path: &str) -> Reply {
    Reply::tool_call("w", "write", json!({"path": path, "content": LOOSER}))
}

#[test]
fn writes_to_luxes_settings_ask_in_every_mode_and_a_rejection_changes_nothing() {
    let user_rules = r#"{"permissions":{"allow":["write(**)","bash(*)"]}}"#;
    for flags in [&["--yolo"][..], &["--permission-mode", "accept-edits"], &[]] {
        let ws = Workspace::new();
        let home = ws.path().join("home");
        std::fs::write(home.join("settings.json"), user_rules).unwrap();
        let server = ModelServer::start();
        let mut luxe = start(&ws, &server, flags);
        let home_settings = home.join("settings.json");
        for (call, path) in [
            (
                write(".luxe/settings.json"),
                ws.path().join(".luxe/settings.json"),
            ),
            (
                write(&home_settings.to_string_lossy()),
                home_settings.clone(),
            ),
            (
                Reply::tool_call(
                    "b",
                    "bash",
                    json!({"command": format!("echo '{LOOSER}' > .luxe/settings.json")}),
                ),
                ws.path().join(".luxe/settings.json"),
            ),
        ] {
            let before = std::fs::read_to_string(&path).ok();
            let (prompts, status) = run(&mut luxe, &server, call, "reject");
            assert_eq!(prompts, 1, "{flags:?} {}: no prompt", path.display());
            assert_eq!(status, "denied", "{flags:?} {}", path.display());
            assert_eq!(std::fs::read_to_string(&path).ok(), before, "{flags:?}");
        }
        // An ordinary file under the same rules runs unasked.
        let (prompts, status) = run(&mut luxe, &server, write("notes.txt"), "reject");
        assert_eq!((prompts, status), (0, json!("ok")), "{flags:?}");
    }
}

#[test]
fn an_always_reply_does_not_stick_and_auto_approve_answers_the_prompt() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server, &["--yolo"]);
    let (prompts, status) = run(&mut luxe, &server, write(".luxe/settings.json"), "always");
    assert_eq!((prompts, status), (1, json!("ok")));
    let (prompts, _) = run(&mut luxe, &server, write(".luxe/settings.json"), "reject");
    assert_eq!(prompts, 1, "the second write asks again");
    drop(luxe);

    let mut luxe = start(&ws, &server, &["--yolo", "--auto-approve"]);
    let (prompts, status) = run(&mut luxe, &server, write(".luxe/other.json"), "reject");
    assert_eq!(prompts, 1, "the prompt is shown");
    assert_eq!(status, "ok", "and auto-approve answered it");
    assert_eq!(
        std::fs::read_to_string(ws.path().join(".luxe/other.json")).unwrap(),
        LOOSER
    );
}

#[test]
fn a_symlinked_luxe_dir_git_dir_and_a_home_given_with_a_slash_are_guarded_too() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.path().join("cfg")).unwrap();
    std::os::unix::fs::symlink("cfg", ws.path().join(".luxe")).unwrap();
    std::fs::create_dir(ws.path().join(".git")).unwrap();
    let home = ws.path().join("home");
    let server = ModelServer::start();
    let home_env = format!("{}/", home.display());
    let mut luxe = rig::spawn(
        &ws,
        &server,
        Provider::Anthropic,
        &["--yolo"],
        &[("LUXE_HOME", home_env.as_str())],
    );
    for path in [
        "cfg/settings.json".to_owned(),
        ".luxe/settings.json".to_owned(),
        ".git/config".to_owned(),
        format!("{}/settings.json", home.display()),
    ] {
        let (prompts, status) = run(&mut luxe, &server, write(&path), "reject");
        assert_eq!((prompts, status), (1, json!("denied")), "{path}");
    }
    assert!(!ws.path().join("cfg/settings.json").exists());
}

#[test]
fn luxes_own_git_never_gets_the_providers_keys() {
    let ws = Workspace::new();
    luxe_tests::git_repo::init_repo(ws.path(), &[("a.txt", "a\n")]);
    // A git first on PATH that records its environment, then runs the real one.
    let bin = tempfile::tempdir().unwrap();
    let seen = bin.path().join("env.txt");
    let wrapper = bin.path().join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nenv >> '{}'\nexec '{}' \"$@\"\n",
            seen.display(),
            luxe_tests::git_repo::real_git().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let server = ModelServer::start();
    let mut luxe = rig::spawn(
        &ws,
        &server,
        Provider::Anthropic,
        &[],
        &[("PATH", path.as_str()), ("GITHUB_TOKEN", "gh-token-kept")],
    );
    luxe.send(r#"{"kind":"refresh_workspace"}"#);
    // The dock's git status has run once the workspace is answered.
    luxe.watch_workspace();
    luxe.expect("workspace_updated");
    let env = std::fs::read_to_string(&seen).unwrap();
    assert!(
        env.contains("GITHUB_TOKEN=gh-token-kept"),
        "gh and git keep the user's tokens"
    );
    assert!(!env.contains("ANTHROPIC_API_KEY"), "{env}");
}
