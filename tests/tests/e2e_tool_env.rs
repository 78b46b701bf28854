//! The environment of the model's commands: the providers' keys and secret-looking variables of
//! luxe's own environment never reach `bash` (so `env` cannot show them to the model), unless
//! the user's settings pass one by name; a project's settings cannot.

use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::{Value, json};

const PROVIDER_KEY: &str = "sk-ant-provider-key-1234";
const GITHUB_TOKEN: &str = "ghp_tokenvalue5678";
const DB_PASSWORD: &str = "db-password-90ab";

/// Runs `env` through the model under `flags`, answering prompts with `once`; returns the
/// command's output as the model received it.
fn env_seen_by_the_model(ws: &Workspace, flags: &[&str]) -> String {
    let server = ModelServer::start();
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", PROVIDER_KEY)
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .env("GITHUB_TOKEN", GITHUB_TOKEN)
        .env("DB_PASSWORD", DB_PASSWORD)
        .env("PLAIN_SETTING", "visible-value")
        .args(flags);
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    server.push(Reply::tool_call("e", "bash", json!({"command": "env"})));
    server.push(Reply::text("done"));
    luxe.send_frame(
        "submit_user_message",
        json!({"text": "print the environment"}),
    );
    loop {
        let frame = luxe.recv();
        if frame["kind"] == "permission_requested" {
            let id = frame["content"]["id"].clone();
            luxe.send_frame("respond_permission", json!({"id": id, "reply": "once"}));
        }
        if frame["kind"] == "turn_ended" {
            assert_eq!(frame["content"]["reason"], "end_turn", "{frame}");
            break;
        }
    }
    let requests = server.requests();
    let second = &requests.get(1).expect("a request after the command").body;
    let messages = second["messages"].as_array().expect("messages");
    let result = messages
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|block| block["type"] == "tool_result")
        .expect("the command's result");
    match &result["content"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[test]
fn the_models_commands_do_not_inherit_keys_or_secret_looking_variables() {
    let ws = Workspace::new();
    let seen = env_seen_by_the_model(&ws, &[]);
    assert!(seen.contains("PLAIN_SETTING=visible-value"), "{seen}");
    assert!(seen.contains("PATH="), "{seen}");
    for (name, value) in [
        ("ANTHROPIC_API_KEY", PROVIDER_KEY),
        ("GITHUB_TOKEN", GITHUB_TOKEN),
        ("DB_PASSWORD", DB_PASSWORD),
    ] {
        assert!(!seen.contains(name), "{name} reached the model: {seen}");
        assert!(!seen.contains(value), "{name}'s value reached the model");
    }
}

#[test]
fn a_providers_key_read_from_luxes_own_environment_is_redacted() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", PROVIDER_KEY)
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .arg("--yolo");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    let command = "tr '\\0' '\\n' < /proc/$PPID/environ";
    server.push(Reply::tool_call("e", "bash", json!({"command": command})));
    server.push(Reply::text("done"));
    luxe.send_frame(
        "submit_user_message",
        json!({"text": "read luxe's environment"}),
    );
    let mut frames = Vec::new();
    loop {
        let frame = luxe.recv();
        let ended = frame["kind"] == "turn_ended";
        frames.push(frame.to_string());
        if ended {
            break;
        }
    }
    let shown = frames.join("\n");
    assert!(
        shown.contains("ANTHROPIC_API_KEY="),
        "the command read the environment: {shown}"
    );
    assert!(!shown.contains(PROVIDER_KEY), "{shown}");
    let sent: String = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(!sent.contains(PROVIDER_KEY), "the key went to the model");
}

#[test]
fn the_users_settings_pass_a_variable_by_name_but_never_a_providers_key() {
    let ws = Workspace::new();
    let settings = json!({"tool_environment": {"pass": ["GITHUB_TOKEN", "ANTHROPIC_API_KEY"]}});
    std::fs::write(ws.path().join("home/settings.json"), settings.to_string()).unwrap();
    let seen = env_seen_by_the_model(&ws, &[]);
    assert!(
        seen.contains(&format!("GITHUB_TOKEN={GITHUB_TOKEN}")),
        "{seen}"
    );
    assert!(!seen.contains(PROVIDER_KEY), "{seen}");
    assert!(!seen.contains(DB_PASSWORD), "{seen}");
}

#[test]
fn a_projects_settings_pass_nothing_without_trust() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.path().join(".luxe")).unwrap();
    let settings = json!({"tool_environment": {"pass": ["GITHUB_TOKEN"]}});
    std::fs::write(ws.path().join(".luxe/settings.json"), settings.to_string()).unwrap();
    let seen = env_seen_by_the_model(&ws, &[]);
    assert!(!seen.contains(GITHUB_TOKEN), "{seen}");
    let seen = env_seen_by_the_model(&ws, &["--trust-project"]);
    assert!(seen.contains(GITHUB_TOKEN), "{seen}");
}
