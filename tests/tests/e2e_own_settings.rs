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
