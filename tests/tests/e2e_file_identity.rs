//! Decided on the file, not the name: a `.env` file reached by a hard link is refused like the
//! file itself, and a symlink swapped in while a read or write waits for its permission prompt
//! (as an earlier approved command could swap one) changes nothing: the read returns what was
//! opened, the write fails and `.env` keeps its value.

use std::path::Path;

use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::rig::{self, Provider};
use serde_json::{Value, json};

const SECRET: &str = "sk-live-identity-42";

fn project() -> Workspace {
    let ws = Workspace::new();
    std::fs::write(ws.path().join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    std::fs::write(ws.path().join("notes.txt"), "plain notes\n").unwrap();
    ws
}

fn start(ws: &Workspace, server: &ModelServer, flags: &[&str]) -> LuxeProcess {
    rig::spawn(ws, server, Provider::Anthropic, flags, &[])
}

/// Runs one turn; at each permission prompt runs `at_prompt` first, then answers `once`.
/// Returns every frame.
fn turn(luxe: &mut LuxeProcess, mut at_prompt: impl FnMut()) -> Vec<Value> {
    luxe.send_frame("submit_user_message", json!({"text": "go"}));
    let mut frames = Vec::new();
    loop {
        let frame = luxe.recv();
        if frame["kind"] == "permission_requested" {
            at_prompt();
            let id = frame["content"]["id"].clone();
            luxe.send_frame("respond_permission", json!({"id": id, "reply": "once"}));
        }
        let ended = frame["kind"] == "turn_ended";
        frames.push(frame);
        if ended {
            return frames;
        }
    }
}

fn finished(frames: &[Value]) -> Vec<Value> {
    frames
        .iter()
        .filter(|f| f["kind"] == "tool_finished")
        .map(|f| f["content"].clone())
        .collect()
}

fn leaked(frames: &[Value], server: &ModelServer) -> bool {
    let sent: String = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    frames.iter().any(|f| f.to_string().contains(SECRET)) || sent.contains(SECRET)
}

fn swap_for_link(path: &Path, to: &Path) {
    std::fs::remove_file(path).unwrap();
    std::os::unix::fs::symlink(to, path).unwrap();
}

#[test]
fn a_hard_link_to_a_env_file_is_refused_for_reading_and_writing_in_every_mode() {
    for flags in [&[][..], &["--yolo"], &["--permission-mode", "accept-edits"]] {
        let ws = project();
        std::fs::hard_link(ws.path().join(".env"), ws.path().join("copy.txt")).unwrap();
        let server = ModelServer::start();
        let mut luxe = start(&ws, &server, flags);
        server.push(Reply::tool_call("r", "read", json!({"path": "copy.txt"})));
        server.push(Reply::tool_call(
            "w",
            "write",
            json!({"path": "copy.txt", "content": "API_KEY=gone\n"}),
        ));
        server.push(Reply::text("done"));
        let frames = turn(&mut luxe, || {});
        let results = finished(&frames);
        assert_eq!(results.len(), 2, "{flags:?}: {frames:?}");
        for result in &results {
            assert_eq!(result["status"], "denied", "{flags:?}: {result}");
            assert!(
                result["output"]
                    .as_str()
                    .unwrap()
                    .contains(".env files is denied"),
                "{result}"
            );
        }
        assert!(!leaked(&frames, &server), "{flags:?}: the secret leaked");
        let env = std::fs::read_to_string(ws.path().join(".env")).unwrap();
        assert_eq!(env, format!("API_KEY={SECRET}\n"), "{flags:?}");
    }
}

#[test]
fn a_link_swapped_in_while_a_write_waits_for_its_prompt_changes_nothing() {
    let ws = project();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server, &[]);
    server.push(Reply::tool_call(
        "w",
        "write",
        json!({"path": "notes.txt", "content": "API_KEY=overwritten\n"}),
    ));
    server.push(Reply::text("done"));
    let (notes, env) = (ws.path().join("notes.txt"), ws.path().join(".env"));
    let frames = turn(&mut luxe, || swap_for_link(&notes, &env));
    let results = finished(&frames);
    assert_eq!(results[0]["status"], "error", "{results:?}");
    assert!(
        results[0]["output"]
            .as_str()
            .unwrap()
            .contains("changed while luxe was deciding"),
        "{results:?}"
    );
    let env_now = std::fs::read_to_string(&env).unwrap();
    assert_eq!(env_now, format!("API_KEY={SECRET}\n"));
}

#[test]
fn a_link_swapped_in_while_a_read_waits_for_its_prompt_reads_what_was_opened() {
    let ws = project();
    // Outside cwd, so the read asks first.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("out.txt");
    std::fs::write(&target, "outside text\n").unwrap();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server, &[]);
    server.push(Reply::tool_call(
        "r",
        "read",
        json!({"path": target.to_string_lossy()}),
    ));
    server.push(Reply::text("done"));
    let env = ws.path().join(".env");
    let frames = turn(&mut luxe, || swap_for_link(&target, &env));
    let results = finished(&frames);
    assert_eq!(results[0]["status"], "ok", "{results:?}");
    assert!(
        results[0]["output"]
            .as_str()
            .unwrap()
            .contains("outside text"),
        "{results:?}"
    );
    assert!(!leaked(&frames, &server), "the secret leaked");
}

#[test]
fn a_fifo_is_refused_by_luxe_not_read_for_ever() {
    let ws = project();
    let made = std::process::Command::new("mkfifo")
        .arg(ws.path().join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server, &["--yolo"]);
    server.push(Reply::tool_call("r", "read", json!({"path": "pipe"})));
    server.push(Reply::tool_call(
        "w",
        "edit",
        json!({"path": "pipe", "old_text": "a", "new_text": "b"}),
    ));
    server.push(Reply::text("done"));
    let results = finished(&turn(&mut luxe, || {}));
    assert_eq!(results.len(), 2, "{results:?}");
    for result in &results {
        assert_eq!(result["status"], "error", "{result}");
        assert!(
            result["output"]
                .as_str()
                .unwrap()
                .contains("is not a regular file"),
            "{result}"
        );
    }
}
