//! A local OpenAI-compatible server as luxe meets it: a model outside the catalogue, whose
//! window and tool support luxe asks the server (`/v1/models`, llama.cpp's `/props`, Ollama's
//! `/api/show`) over real HTTP, without delaying `ready` or a turn; and each server's own stream
//! and refusal as too long (llama.cpp, Ollama, vLLM, beside OpenAI's).

use luxe_tests::model_server::{Dialect, ModelServer, Part, Reply, Script, ScriptUsage, Stop};
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

/// The body of the last model request (the questions about the server may arrive after it).
fn last_post(server: &ModelServer) -> Value {
    let posts = model_requests(server);
    posts.last().expect("a model request").clone()
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

fn turn(luxe: &mut LuxeProcess, text: &str) -> Vec<Value> {
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":text}}).to_string());
    until_turn_ended(luxe)
}

/// The bodies of the model requests, in order.
fn model_requests(server: &ModelServer) -> Vec<Value> {
    let requests = server.requests().into_iter();
    requests
        .filter(|r| r.path == "/v1/chat/completions")
        .map(|r| r.body)
        .collect()
}

fn turn_usage(frames: &[Value]) -> Value {
    let usage = frames.iter().find(|f| f["kind"] == "turn_usage");
    usage.expect("turn_usage")["content"].clone()
}

fn assert_answered(frames: &[Value], dialect: Dialect) {
    let reason = &ended(frames)["reason"];
    assert_eq!(reason, "end_turn", "{dialect:?}: {frames:?}");
}

/// The texts of a turn's `token_delta`s, joined.
fn streamed_text(frames: &[Value]) -> String {
    frames
        .iter()
        .filter(|f| f["kind"] == "token_delta")
        .filter_map(|f| f["content"]["delta"].as_str())
        .collect()
}

/// Waits for the `state_changed` that shows `window` as the model's context window.
fn until_window(luxe: &mut LuxeProcess, window: u64) {
    while luxe.expect("state_changed")["model"]["context_window"] != window {}
}

const DIALECTS: [Dialect; 4] = [
    Dialect::LlamaCpp,
    Dialect::Ollama,
    Dialect::Vllm,
    Dialect::OpenAi,
];

#[test]
fn each_servers_stream_gives_a_streamed_turn_a_tool_call_and_its_usage() {
    for dialect in DIALECTS {
        let ws = Workspace::new();
        std::fs::write(ws.path().join("notes.txt"), "banana\n").unwrap();
        let server = ModelServer::start();
        server.speak(dialect);
        let mut luxe = spawn_local(&ws, &server);
        server.push(Reply::tool_call(
            "call_1",
            "read",
            json!({"path": "notes.txt"}),
        ));
        server.push(Reply::Stream(
            Script::new(
                vec![Part::Text(vec!["The word ".into(), "is banana.".into()])],
                Stop::EndTurn,
            )
            .with_usage(ScriptUsage {
                input: 120,
                output: 9,
                cache_read: 30,
                ..ScriptUsage::default()
            }),
        ));
        let frames = turn(&mut luxe, "What is in notes.txt?");
        assert_answered(&frames, dialect);
        let started: Vec<&Value> = frames
            .iter()
            .filter(|f| f["kind"] == "tool_started")
            .collect();
        assert_eq!(started.len(), 1, "{dialect:?}: {frames:?}");
        assert_eq!(started[0]["content"]["name"], "read", "{dialect:?}");
        assert_eq!(streamed_text(&frames), "The word is banana.", "{dialect:?}");
        let usage = turn_usage(&frames);
        // Both requests' usage: 10 + 5 from the call, 120 + 30 cached + 9 from the answer;
        // Ollama and vLLM (unless started with --enable-prompt-tokens-details) do not say what
        // their cache held.
        let cached = match dialect {
            Dialect::Ollama | Dialect::Vllm => 0,
            Dialect::OpenAi | Dialect::LlamaCpp => 30,
        };
        assert_eq!(usage["prompt_tokens"], 160 - cached, "{dialect:?}: {usage}");
        assert_eq!(usage["cache_read_tokens"], cached, "{dialect:?}: {usage}");
        assert_eq!(usage["completion_tokens"], 14, "{dialect:?}: {usage}");
        let posts = model_requests(&server);
        assert_eq!(posts.len(), 2, "{dialect:?}");
        assert_eq!(posts[1]["stream_options"]["include_usage"], true);
        let result = posts[1]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool")
            .expect("the tool result goes back");
        assert_eq!(result["tool_call_id"], "call_1", "{dialect:?}");
        assert!(
            result["content"].to_string().contains("banana"),
            "{dialect:?}: {result}"
        );
    }
}

#[test]
fn ollama_says_its_num_ctx_and_tool_support_through_api_show() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.serve_ollama_info("smollm2", 8192, Some(2048), false);
    let mut luxe = spawn_local(&ws, &server);
    let mut model = Value::Null;
    while model["supports_tools"] != false || model["context_window"] != 2048 {
        model = luxe.expect("state_changed")["model"].clone();
    }
    let shown = server
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/show")
        .expect("luxe asked /api/show");
    assert_eq!(shown.method, "POST");
    assert_eq!(shown.body, json!({"model": "smollm2"}));
}

#[test]
fn vllm_says_its_max_model_len() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.serve_vllm_info("smollm2", 3072);
    let mut luxe = spawn_local(&ws, &server);
    until_window(&mut luxe, 3072);
}

/// A question long enough that its summary is shorter than it.
fn long(question: &str) -> String {
    format!(
        "{question}: {}",
        "some context for the question. ".repeat(40)
    )
}

#[test]
fn an_overflow_in_each_servers_words_recovers_and_teaches_the_window_it_names() {
    for dialect in [Dialect::LlamaCpp, Dialect::Vllm, Dialect::Ollama] {
        let ws = Workspace::new();
        let server = ModelServer::start();
        server.speak(dialect);
        let mut luxe = spawn_local(&ws, &server);
        server.push(Reply::text("first answer"));
        turn(&mut luxe, &long("first question"));

        server.push(Reply::Overflow {
            prompt_tokens: 2300,
            window: 2048,
        });
        server.push(Reply::text("SUMMARY of the first question"));
        server.push(Reply::text("answered after compaction"));
        let frames = turn(&mut luxe, "second question");
        assert_answered(&frames, dialect);
        assert_eq!(streamed_text(&frames), "answered after compaction");
        let window = frames
            .iter()
            .filter(|f| f["kind"] == "state_changed")
            .filter_map(|f| f["content"]["model"]["context_window"].as_u64())
            .next_back();
        let usage = turn_usage(&frames);
        if dialect == Dialect::Ollama {
            // Ollama's refusal names no numbers: the window stays unknown, and the recovery
            // halves the history instead.
            assert_eq!(window, None, "{frames:?}");
            assert_eq!(usage["context_window"], Value::Null);
        } else {
            assert_eq!(window, Some(2048), "{dialect:?}: {frames:?}");
            assert_eq!(usage["context_window"], 2048);
        }
        let posts = model_requests(&server);
        assert_eq!(posts.len(), 4, "{dialect:?}");
        let retried = posts[3].to_string();
        assert!(
            retried.contains("SUMMARY of the first question")
                && !retried.contains("first question:"),
            "{dialect:?}: {retried}"
        );
        if dialect != Dialect::Ollama {
            assert!(
                posts[3]["max_completion_tokens"].as_u64().unwrap() < 2048,
                "{dialect:?}: the answer is capped to fit: {}",
                posts[3]
            );
        }
        // The next turn after the recovery works.
        server.push(Reply::text("third answer"));
        let frames = turn(&mut luxe, "third question");
        assert_answered(&frames, dialect);
    }
}

#[test]
fn a_resumed_session_keeps_an_unknown_cost_unknown() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let mut luxe = spawn_local(&ws, &server);
    server.push(Reply::text("hello"));
    let frames = turn(&mut luxe, "hi");
    assert_eq!(turn_usage(&frames)["session_cost_usd"], Value::Null);
    luxe.send(r#"{"kind":"close"}"#);
    assert_eq!(luxe.wait().0.code(), Some(0));

    // Resumed, then on a model whose prices are known: the first turn's cost stays unknown,
    // so the session's is too (counting it as 0 would show a total that is too low).
    let mut cmd = ws.luxe();
    cmd.env("OPENAI_BASE_URL", server.openai_base_url())
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .arg("-c");
    let mut luxe = LuxeProcess::spawn(cmd);
    assert_eq!(luxe.expect("ready")["resumed"], true);
    luxe.send(r#"{"kind":"set_model","content":{"model":"anthropic/claude-sonnet-4-5"}}"#);
    loop {
        let frame = luxe.recv();
        if frame["kind"] == "state_changed"
            && frame["content"]["model"]["id"] == "anthropic/claude-sonnet-4-5"
        {
            break;
        }
    }
    server.push(Reply::text("priced"));
    let frames = turn(&mut luxe, "again");
    assert_answered(&frames, Dialect::OpenAi);
    let usage = turn_usage(&frames);
    assert!(usage["cost_usd"].as_f64().unwrap() > 0.0, "{usage}");
    assert_eq!(usage["session_cost_usd"], Value::Null, "{usage}");
}

/// vLLM refuses a request whose prompt and output cap exceed `max_model_len`. A fresh session's
/// first request waits for the server's (slow) word on the window, and every request after it
/// fits that window with its cap even when the server counts a third more tokens than luxe's
/// first estimate: nothing is refused.
#[test]
fn every_request_to_a_model_of_unknown_size_fits_its_window_with_its_cap() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.serve_vllm_info("smollm2", 3072);
    server.delay_info(std::time::Duration::from_millis(300));
    server.enforce_window(3072, 3.0);
    let mut luxe = spawn_local(&ws, &server);
    for n in 0..5 {
        // A second reply for a summary, should a turn come near the window and compact.
        server.push(Reply::text(&format!("answer {n}")));
        server.push(Reply::text(&format!("summary or answer {n}")));
        let frames = turn(&mut luxe, &long(&format!("question {n}")));
        assert_answered(&frames, Dialect::Vllm);
        server.clear_replies();
    }
    let posts = model_requests(&server);
    for post in &posts {
        let chars = post["messages"].to_string().chars().count()
            + post
                .get("tools")
                .map_or(0, |t| t.to_string().chars().count());
        let cap = post["max_completion_tokens"].as_u64().unwrap();
        assert!(
            (chars as f64 / 3.0).ceil() as u64 + cap <= 3072,
            "refused: {chars} characters and a cap of {cap}"
        );
    }
}
