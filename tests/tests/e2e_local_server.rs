//! A local OpenAI-compatible server as luxe meets it: a model outside the catalogue, whose
//! window and tool support luxe asks the server (`/v1/models`, llama.cpp's `/props`) over real
//! HTTP GETs, without delaying `ready` or a turn.

use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::rig::{ended, until_turn_ended};
use serde_json::{Value, json};

fn spawn_local(ws: &Workspace, server: &ModelServer) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.env("OPENAI_BASE_URL", server.openai_base_url())
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .args(["--model", "openai/smollm2"])
        .env("LUXE_RETRY_BASE_MS", "10")
        .env("LUXE_RETRY_MAX_MS", "50");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    let state = luxe.expect("state_changed");
    assert_eq!(
        state["model"]["context_window"],
        Value::Null,
        "not known yet"
    );
    luxe
}

/// The body of the last model request (the GETs may arrive after it).
fn last_post(server: &ModelServer) -> Value {
    let requests = server.requests();
    let post = requests.iter().rev().find(|r| r.method == "POST");
    post.expect("a model request").body.clone()
}

#[test]
fn luxe_learns_the_window_and_the_missing_tool_support_from_llama_cpp() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.serve_llama_info(2048, false);
    let mut luxe = spawn_local(&ws, &server);
    // Both answers arrive on their own; each says what it taught in a `state_changed`.
    let mut model = Value::Null;
    while model["supports_tools"] != false || model["context_window"] != 2048 {
        model = luxe.expect("state_changed")["model"].clone();
    }
    let asked: Vec<String> = server
        .wait_for_requests(2, std::time::Duration::from_secs(10))
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(asked.contains(&"GET /v1/models".to_owned()), "{asked:?}");
    assert!(asked.contains(&"GET /props".to_owned()), "{asked:?}");

    server.push(Reply::text("hello"));
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":"hi"}}).to_string());
    let frames = until_turn_ended(&mut luxe);
    assert_eq!(ended(&frames)["reason"], "end_turn");
    let usage = frames
        .iter()
        .find(|f| f["kind"] == "turn_usage")
        .expect("turn_usage");
    assert_eq!(usage["content"]["context_window"], 2048);
    assert_eq!(usage["content"]["session_cost_usd"], Value::Null);
    let sent = last_post(&server);
    assert!(sent.get("tools").is_none(), "{sent}");
    assert!(sent["max_completion_tokens"].as_u64().unwrap() <= 2048);
}

#[test]
fn a_server_without_those_endpoints_delays_nothing() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let mut luxe = spawn_local(&ws, &server);
    server.push(Reply::text("hello"));
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":"hi"}}).to_string());
    let frames = until_turn_ended(&mut luxe);
    assert_eq!(ended(&frames)["reason"], "end_turn");
    let sent = last_post(&server);
    assert!(sent["tools"].is_array(), "tools stay offered: {sent}");
    assert!(
        sent["max_completion_tokens"].as_u64().unwrap() <= 4096,
        "no more than a small model's whole context: {sent}"
    );
}
