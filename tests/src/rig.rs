//! Luxe against the loopback model server on either provider: start it, submit, and read a
//! turn's frames.

use serde_json::{Value, json};

use crate::model_server::ModelServer;
use crate::process::{LuxeProcess, Workspace};

/// Which provider a test talks to.
#[derive(Clone, Copy, Debug)]
pub enum Provider {
    /// `anthropic/claude-sonnet-4-5` over the Messages API.
    Anthropic,
    /// `openai/gpt-5` over Chat Completions.
    OpenAi,
}

/// Both providers, for tests that must pass on each.
pub const BOTH: [Provider; 2] = [Provider::Anthropic, Provider::OpenAi];

impl Provider {
    /// The model luxe is started with.
    pub fn model(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic/claude-sonnet-4-5",
            Self::OpenAi => "openai/gpt-5",
        }
    }
}

/// A workspace, a model server, and luxe started against it with `extra` flags.
pub struct Rig {
    /// The temporary directory luxe runs in.
    pub ws: Workspace,
    /// The loopback model server.
    pub server: ModelServer,
    /// The running luxe.
    pub luxe: LuxeProcess,
}

/// A fresh workspace and model server, and luxe started against them.
pub fn rig(provider: Provider, extra: &[&str], env: &[(&str, &str)]) -> Rig {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let luxe = spawn(&ws, &server, provider, extra, env);
    Rig { ws, server, luxe }
}

/// Starts luxe in `ws` against `server` on `provider`, with short retry waits; returns after
/// `ready` and `state_changed`.
pub fn spawn(
    ws: &Workspace,
    server: &ModelServer,
    provider: Provider,
    extra: &[&str],
    env: &[(&str, &str)],
) -> LuxeProcess {
    let mut cmd = ws.luxe();
    match provider {
        Provider::Anthropic => cmd
            .env("ANTHROPIC_API_KEY", "test-anthropic-key")
            .env("ANTHROPIC_BASE_URL", server.anthropic_base_url()),
        Provider::OpenAi => cmd
            .env("OPENAI_API_KEY", "test-openai-key")
            .env("OPENAI_BASE_URL", server.openai_base_url()),
    };
    cmd.args(["--model", provider.model()]).args(extra);
    cmd.env("LUXE_RETRY_BASE_MS", "10")
        .env("LUXE_RETRY_MAX_MS", "50");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

/// Sends `submit_user_message`.
pub fn submit(luxe: &mut LuxeProcess, text: &str) {
    luxe.send(&json!({"kind": "submit_user_message", "content": {"text": text}}).to_string());
}

/// Runs one turn of `text`, answering every permission prompt with `reply`; returns every
/// frame up to `turn_ended`.
pub fn turn_answering(luxe: &mut LuxeProcess, text: &str, reply: &str) -> Vec<Value> {
    submit(luxe, text);
    let mut frames = Vec::new();
    loop {
        let frame = luxe.recv();
        let kind = frame["kind"].as_str().unwrap_or_default().to_owned();
        if kind == "permission_requested" {
            let id = frame["content"]["id"].clone();
            luxe.send(
                &json!({"kind":"respond_permission","content":{"id":id,"reply":reply}}).to_string(),
            );
        }
        frames.push(frame);
        if kind == "turn_ended" {
            return frames;
        }
    }
}

/// Frames until `turn_ended` (included), then the `state_changed` that closes the bracket.
pub fn until_turn_ended(luxe: &mut LuxeProcess) -> Vec<Value> {
    let frames = luxe.until("turn_ended");
    assert_eq!(luxe.expect("state_changed")["streaming"], false);
    frames
}

/// The contents of the frames of `kind`.
pub fn of_kind<'a>(frames: &'a [Value], kind: &str) -> Vec<&'a Value> {
    frames
        .iter()
        .filter(|f| f["kind"] == kind)
        .map(|f| &f["content"])
        .collect()
}

/// The text of every `token_delta`, joined.
pub fn text_of(frames: &[Value]) -> String {
    of_kind(frames, "token_delta")
        .iter()
        .map(|c| c["delta"].as_str().unwrap_or_default())
        .collect()
}

/// The content of the last frame (`turn_ended` after [`until_turn_ended`]).
pub fn ended(frames: &[Value]) -> &Value {
    // until_turn_ended stops at turn_ended, so it is the last frame.
    &frames.last().expect("frames")["content"]
}

/// The `text` of each message of a `session_restored` frame's content, in order.
pub fn restored_texts(restored: &Value) -> Vec<String> {
    restored["messages"]
        .as_array()
        .expect("session_restored has messages")
        .iter()
        .map(|m| m["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}
