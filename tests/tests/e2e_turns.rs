//! Agent turns end to end: the real binary against the loopback model server, on both
//! providers, with real tools in a temporary directory.

use std::time::{Duration, Instant};

use luxe_tests::model_server::{ModelServer, Part, Reply, Script, ScriptUsage, Stop};
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::rig::{
    BOTH, Provider, ended, of_kind, rig, spawn, submit, text_of, until_turn_ended,
};
use serde_json::{Value, json};

/// Every text the request's messages carry, whatever the provider's shape.
fn request_text(body: &Value) -> String {
    body.to_string()
}

fn tool_script(id: &str, name: &str, input: Value) -> Reply {
    Reply::Stream(Script::new(
        vec![
            Part::Text(vec!["Let me look.".into()]),
            Part::ToolCall {
                id: id.into(),
                name: name.into(),
                input,
                chunks: 3,
            },
        ],
        Stop::ToolUse,
    ))
}

#[test]
fn a_streamed_answer_with_usage_and_cost_on_both_providers() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(Reply::Stream(
            Script::new(
                vec![Part::Text(vec![
                    "It is ".into(),
                    "a test ".into(),
                    "repo.".into(),
                ])],
                Stop::EndTurn,
            )
            .with_usage(ScriptUsage {
                input: 1000,
                output: 20,
                cache_read: 200,
                cache_write: 0,
                reasoning: 0,
            }),
        ));
        submit(&mut r.luxe, "what does this repo do?");
        let frames = until_turn_ended(&mut r.luxe);
        assert_eq!(text_of(&frames), "It is a test repo.", "{provider:?}");
        let deltas = of_kind(&frames, "token_delta");
        assert!(deltas.iter().all(|d| d["block"] == 0), "{deltas:?}");
        assert_eq!(ended(&frames)["reason"], "end_turn");
        let usage = of_kind(&frames, "turn_usage");
        assert_eq!(usage.len(), 1);
        let usage = usage[0];
        assert_eq!(usage["completion_tokens"], 20, "{provider:?} {usage}");
        assert_eq!(usage["cache_read_tokens"], 200, "{provider:?} {usage}");
        let expected_prompt = match provider {
            Provider::Anthropic => 1000,
            // OpenAI counts cached tokens inside prompt_tokens; luxe reports them apart.
            Provider::OpenAi => 1000,
        };
        assert_eq!(
            usage["prompt_tokens"], expected_prompt,
            "{provider:?} {usage}"
        );
        assert!(usage["cost_usd"].as_f64().unwrap() > 0.0);
        assert_eq!(usage["session_cost_usd"], usage["cost_usd"]);
        let requests = r.server.requests();
        assert_eq!(requests.len(), 1);
        let body = &requests[0].body;
        assert_eq!(body["stream"], true);
        let text = request_text(body);
        assert!(text.contains("what does this repo do?"));
        let cwd = std::fs::canonicalize(r.ws.path()).unwrap();
        assert!(
            text.contains(&*cwd.to_string_lossy()),
            "the system prompt names cwd"
        );
        match provider {
            Provider::Anthropic => {
                assert_eq!(requests[0].path, "/v1/messages");
                assert!(
                    requests[0]
                        .headers
                        .iter()
                        .any(|(k, v)| k == "x-api-key" && v == "test-anthropic-key")
                );
            }
            Provider::OpenAi => {
                assert_eq!(requests[0].path, "/v1/chat/completions");
                assert_eq!(body["stream_options"]["include_usage"], true);
                assert!(
                    requests[0]
                        .headers
                        .iter()
                        .any(|(k, v)| k == "authorization" && v == "Bearer test-openai-key")
                );
            }
        }
    }
}

#[test]
fn read_tool_result_goes_back_to_the_model() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        std::fs::write(r.ws.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
        r.server.push(tool_script(
            "call_read_1",
            "read",
            json!({"path": "notes.txt"}),
        ));
        r.server.push(Reply::text("The file says alpha and beta."));
        submit(&mut r.luxe, "read notes.txt");
        let frames = until_turn_ended(&mut r.luxe);
        let started = of_kind(&frames, "tool_started");
        assert_eq!(started.len(), 1, "{provider:?}");
        assert_eq!(started[0]["name"], "read");
        assert_eq!(started[0]["input"]["path"], "notes.txt");
        let finished = of_kind(&frames, "tool_finished");
        assert_eq!(finished[0]["status"], "ok");
        assert!(
            finished[0]["output"]
                .as_str()
                .unwrap()
                .contains("     2\tbeta")
        );
        assert!(
            of_kind(&frames, "permission_requested").is_empty(),
            "reads inside cwd run"
        );
        assert_eq!(ended(&frames)["reason"], "end_turn");
        let requests = r.server.requests();
        assert_eq!(requests.len(), 2);
        let second = request_text(&requests[1].body);
        assert!(
            second.contains("call_read_1") && second.contains("beta"),
            "{second}"
        );
    }
}

#[test]
fn bash_asks_permission_streams_output_and_always_remembers() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(tool_script(
            "t1",
            "bash",
            json!({"command": "echo hello; echo oops >&2"}),
        ));
        r.server.push(tool_script(
            "t2",
            "bash",
            json!({"command": "echo hello; echo oops >&2"}),
        ));
        r.server.push(Reply::text("done"));
        submit(&mut r.luxe, "say hello twice");
        let frames = r.luxe.until("permission_requested");
        let prompt = &frames.last().unwrap()["content"];
        assert_eq!(prompt["tool"], "bash");
        assert_eq!(prompt["always_rule"], "bash(echo hello; echo oops >&2)");
        r.luxe.send(
            &json!({"kind":"respond_permission","content":{"id": prompt["id"], "reply": "always"}})
                .to_string(),
        );
        let frames = until_turn_ended(&mut r.luxe);
        let resolved = of_kind(&frames, "permission_resolved");
        assert_eq!(resolved[0]["by"], "client");
        assert_eq!(
            of_kind(&frames, "permission_requested").len(),
            0,
            "always covers the second call"
        );
        let out: String = of_kind(&frames, "tool_output_delta")
            .iter()
            .map(|d| d["chunk"].as_str().unwrap())
            .collect();
        assert!(out.contains("hello") && out.contains("oops"), "{out}");
        let finished = of_kind(&frames, "tool_finished");
        assert_eq!(finished.len(), 2);
        assert!(finished.iter().all(|f| f["status"] == "ok"));
        assert_eq!(ended(&frames)["reason"], "end_turn");
    }
}

#[test]
fn a_rejected_call_is_denied_and_the_model_is_told_why() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(tool_script(
            "t1",
            "write",
            json!({"path": "x.txt", "content": "hi"}),
        ));
        r.server.push(Reply::text("ok, I won't"));
        submit(&mut r.luxe, "write x");
        let frames = r.luxe.until("permission_requested");
        let id = frames.last().unwrap()["content"]["id"].clone();
        r.luxe.send(&json!({"kind":"respond_permission","content":{"id": id, "reply": "reject", "message": "not now"}}).to_string());
        let frames = until_turn_ended(&mut r.luxe);
        let finished = of_kind(&frames, "tool_finished");
        assert_eq!(finished[0]["status"], "denied");
        assert!(!r.ws.path().join("x.txt").exists());
        let second = request_text(&r.server.requests()[1].body);
        assert!(second.contains("not now"), "{second}");
        // A reply to a settled prompt is rejected.
        r.luxe.send(
            &json!({"kind":"respond_permission","content":{"id": id, "reply": "once"}}).to_string(),
        );
        assert_eq!(
            r.luxe.expect("action_rejected")["kind"],
            "respond_permission"
        );
    }
}

#[test]
fn auto_approve_edits_files_and_reports_changes() {
    for provider in BOTH {
        let mut r = rig(provider, &["--auto-approve"], &[]);
        std::fs::write(r.ws.path().join("lib.rs"), "fn a() {}\nfn b() {}\n").unwrap();
        r.server.push(tool_script(
            "e1",
            "edit",
            json!({"path": "lib.rs", "old_text": "fn b() {}", "new_text": "fn b() -> u8 { 1 }"}),
        ));
        r.server.push(tool_script(
            "w1",
            "write",
            json!({"path": "new/dir/file.txt", "content": "fresh"}),
        ));
        r.server.push(Reply::text("edited"));
        submit(&mut r.luxe, "change b");
        let frames = until_turn_ended(&mut r.luxe);
        let resolved = of_kind(&frames, "permission_resolved");
        assert_eq!(resolved.len(), 2);
        assert!(
            resolved
                .iter()
                .all(|p| p["by"] == "auto_approve" && p["reply"] == "once")
        );
        let changed = of_kind(&frames, "files_changed");
        assert_eq!(changed[0]["paths"], json!(["lib.rs"]));
        assert_eq!(changed[1]["paths"], json!(["new/dir/file.txt"]));
        let finished = of_kind(&frames, "tool_finished");
        assert!(
            finished[0]["diff"]
                .as_str()
                .unwrap()
                .contains("+fn b() -> u8 { 1 }")
        );
        assert_eq!(
            std::fs::read_to_string(r.ws.path().join("lib.rs")).unwrap(),
            "fn a() {}\nfn b() -> u8 { 1 }\n"
        );
        assert_eq!(
            std::fs::read_to_string(r.ws.path().join("new/dir/file.txt")).unwrap(),
            "fresh"
        );
    }
}

#[test]
fn an_edit_that_does_not_match_is_an_error_the_model_sees() {
    let mut r = rig(Provider::Anthropic, &["--yolo"], &[]);
    std::fs::write(r.ws.path().join("a.txt"), "x x\n").unwrap();
    r.server.push(tool_script(
        "e1",
        "edit",
        json!({"path": "a.txt", "old_text": "x", "new_text": "y"}),
    ));
    r.server.push(Reply::text("I see"));
    submit(&mut r.luxe, "edit");
    let frames = until_turn_ended(&mut r.luxe);
    let finished = of_kind(&frames, "tool_finished");
    assert_eq!(finished[0]["status"], "error");
    assert!(finished[0]["output"].as_str().unwrap().contains("2 places"));
    assert_eq!(
        std::fs::read_to_string(r.ws.path().join("a.txt")).unwrap(),
        "x x\n"
    );
}

#[test]
fn ask_user_and_update_plan() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(tool_script(
            "q1",
            "ask_user",
            json!({"question": "Which?", "options": [{"label": "red"}, {"label": "blue", "description": "calm"}]}),
        ));
        r.server.push(tool_script(
            "p1",
            "update_plan",
            json!({"entries": [{"content": "paint", "status": "in_progress"}]}),
        ));
        r.server.push(Reply::text("blue it is"));
        submit(&mut r.luxe, "pick a colour");
        let frames = r.luxe.until("question_asked");
        let question = &frames.last().unwrap()["content"];
        assert_eq!(question["options"][1]["description"], "calm");
        r.luxe.send(&json!({"kind":"answer_question","content":{"id": question["id"], "reply": {"answered": ["blue"]}}}).to_string());
        let frames = until_turn_ended(&mut r.luxe);
        assert_eq!(
            of_kind(&frames, "question_resolved")[0]["reply"],
            json!({"answered": ["blue"]})
        );
        assert_eq!(
            of_kind(&frames, "plan_updated")[0]["entries"][0]["status"],
            "in_progress"
        );
        let second = request_text(&r.server.requests()[1].body);
        assert!(second.contains("The user chose: blue"));
    }
}

#[test]
fn grep_and_glob_honour_gitignore() {
    let mut r = rig(Provider::Anthropic, &[], &[]);
    let root = r.ws.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() { needle(); }\n").unwrap();
    std::fs::write(root.join("skipped.log"), "needle\n").unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    r.server
        .push(tool_script("g1", "grep", json!({"pattern": "needle"})));
    r.server
        .push(tool_script("g2", "glob", json!({"pattern": "**/*.rs"})));
    r.server.push(Reply::text("found"));
    submit(&mut r.luxe, "find the needle");
    let frames = until_turn_ended(&mut r.luxe);
    let finished = of_kind(&frames, "tool_finished");
    let grep = finished[0]["output"].as_str().unwrap();
    assert!(
        grep.contains("src/main.rs:1:") && !grep.contains("skipped.log"),
        "{grep}"
    );
    assert_eq!(finished[1]["output"], "src/main.rs");
}

#[test]
fn retries_on_overload_and_rate_limits_then_answers() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(Reply::status(529));
        r.server.push(Reply::Status {
            code: 429,
            body: None,
            retry_after: Some("0".into()),
        });
        r.server.push(Reply::Drop);
        r.server.push(Reply::text("third time lucky"));
        submit(&mut r.luxe, "hi");
        let frames = until_turn_ended(&mut r.luxe);
        let retries = of_kind(&frames, "model_retrying");
        assert_eq!(retries.len(), 3, "{provider:?}: {frames:?}");
        assert_eq!(retries[0]["attempt"], 2);
        assert_eq!(retries[1]["delay_ms"], 0, "retry-after: 0 is honoured");
        assert_eq!(text_of(&frames), "third time lucky");
        assert_eq!(ended(&frames)["reason"], "end_turn");
    }
}

#[test]
fn gives_up_after_five_attempts_and_does_not_retry_a_bad_request() {
    let mut r = rig(Provider::Anthropic, &[], &[]);
    for _ in 0..5 {
        r.server.push(Reply::status(500));
    }
    submit(&mut r.luxe, "hi");
    let frames = until_turn_ended(&mut r.luxe);
    assert_eq!(of_kind(&frames, "model_retrying").len(), 4);
    assert_eq!(ended(&frames)["reason"], "error");
    assert!(
        ended(&frames)["error"]
            .as_str()
            .unwrap()
            .contains("after 5 attempts")
    );

    r.server.push(Reply::Status {
        code: 400,
        body: Some(r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens is too large"}}"#.into()),
        retry_after: None,
    });
    submit(&mut r.luxe, "again");
    let frames = until_turn_ended(&mut r.luxe);
    assert!(of_kind(&frames, "model_retrying").is_empty());
    let error = ended(&frames)["error"].as_str().unwrap();
    assert!(error.contains("max_tokens is too large"), "{error}");
    // The session survives every failure.
    r.server.push(Reply::text("fine"));
    submit(&mut r.luxe, "still there?");
    assert_eq!(text_of(&until_turn_ended(&mut r.luxe)), "fine");
}

#[test]
fn interrupt_during_a_stream_and_during_a_command() {
    for provider in BOTH {
        let mut r = rig(provider, &["--yolo"], &[]);
        r.server.push(Reply::Stream(
            Script::new(vec![Part::Text(vec!["slow ".into(); 50])], Stop::EndTurn)
                .with_delay(Duration::from_millis(100)),
        ));
        submit(&mut r.luxe, "go slowly");
        r.luxe.until("token_delta");
        let start = Instant::now();
        r.luxe.send(r#"{"kind":"interrupt_turn"}"#);
        let frames = until_turn_ended(&mut r.luxe);
        assert!(start.elapsed() < Duration::from_millis(1000));
        assert_eq!(ended(&frames)["reason"], "interrupted");

        let marker = r.ws.path().join("grandchild-alive");
        let command = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        r.server
            .push(tool_script("b1", "bash", json!({"command": command})));
        r.server.push(Reply::text("after interrupt"));
        submit(&mut r.luxe, "run something long");
        r.luxe.until("tool_started");
        std::thread::sleep(Duration::from_millis(200));
        let start = Instant::now();
        r.luxe.send(r#"{"kind":"interrupt_turn"}"#);
        let frames = until_turn_ended(&mut r.luxe);
        assert!(start.elapsed() < Duration::from_millis(1000));
        assert_eq!(
            of_kind(&frames, "tool_finished")[0]["status"],
            "interrupted"
        );
        assert_eq!(ended(&frames)["reason"], "interrupted");
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the whole process group was killed");
        // No tool runs after the interrupt, and the next turn carries a well-formed history.
        submit(&mut r.luxe, "next");
        let frames = until_turn_ended(&mut r.luxe);
        assert_eq!(text_of(&frames), "after interrupt");
    }
}

#[test]
fn steer_joins_the_next_request_and_messages_queue_behind_the_turn() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server
            .push(tool_script("b1", "bash", json!({"command": "true"})));
        r.server.push(Reply::text("steered answer"));
        r.server.push(Reply::text("queued answer"));
        submit(&mut r.luxe, "first");
        let frames = r.luxe.until("permission_requested");
        let id = frames.last().unwrap()["content"]["id"].clone();
        r.luxe
            .send(r#"{"kind":"steer_turn","content":{"text":"also mention steering"}}"#);
        assert_eq!(
            r.luxe.expect("turn_steered")["text"],
            "also mention steering"
        );
        submit(&mut r.luxe, "second message");
        assert_eq!(r.luxe.expect("user_message_queued")["position"], 1);
        r.luxe.send(
            &json!({"kind":"respond_permission","content":{"id": id, "reply": "once"}}).to_string(),
        );
        let frames = until_turn_ended(&mut r.luxe);
        assert_eq!(text_of(&frames), "steered answer");
        let frames = until_turn_ended(&mut r.luxe);
        let started = of_kind(&frames, "turn_started");
        assert_eq!(started[0]["source"], "queue");
        assert_eq!(text_of(&frames), "queued answer");
        let requests = r.server.requests();
        assert!(request_text(&requests[1].body).contains("also mention steering"));
        assert!(request_text(&requests[2].body).contains("second message"));
    }
}

#[test]
fn plan_mode_and_thinking_shape_the_request() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.luxe
            .send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
        r.luxe.expect("state_changed");
        r.luxe
            .send(r#"{"kind":"set_thinking","content":{"thinking":"high"}}"#);
        r.luxe.expect("state_changed");
        r.server.push(Reply::Stream(Script::new(
            vec![
                Part::Thinking {
                    deltas: vec!["hmm".into()],
                    signature: "sig".into(),
                },
                Part::Text(vec!["planned".into()]),
            ],
            Stop::EndTurn,
        )));
        submit(&mut r.luxe, "plan it");
        let frames = until_turn_ended(&mut r.luxe);
        assert_eq!(
            of_kind(&frames, "thinking_delta")[0]["block"],
            0,
            "{provider:?}"
        );
        assert_eq!(
            of_kind(&frames, "token_delta")[0]["block"],
            1,
            "{provider:?}"
        );
        let body = &r.server.requests()[0].body;
        let tools: Vec<&str> = body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["name"]
                    .as_str()
                    .or(t["function"]["name"].as_str())
                    .unwrap()
            })
            .collect();
        assert_eq!(tools, ["read", "grep", "glob", "ask_user", "update_plan"]);
        match provider {
            Provider::Anthropic => assert_eq!(body["thinking"]["type"], "enabled"),
            Provider::OpenAi => assert_eq!(body["reasoning_effort"], "high"),
        }
    }
}

#[test]
fn images_reach_both_providers_in_their_formats() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(Reply::text("a red dot"));
        r.luxe.send(&json!({"kind":"submit_user_message","content":{"text":"what is this?","images":[{"media_type":"image/png","data":"iVBORw0KGgo="}]}}).to_string());
        until_turn_ended(&mut r.luxe);
        let text = request_text(&r.server.requests()[0].body);
        match provider {
            Provider::Anthropic => assert!(text.contains(r#""media_type":"image/png""#), "{text}"),
            Provider::OpenAi => assert!(
                text.contains("data:image/png;base64,iVBORw0KGgo="),
                "{text}"
            ),
        }
    }
}

#[test]
fn list_models_says_which_providers_are_usable() {
    let mut r = rig(Provider::OpenAi, &[], &[]);
    r.luxe
        .send(r#"{"kind":"list_models","content":{"request_id":"m1"}}"#);
    let listed = r.luxe.expect("models_listed");
    assert_eq!(listed["request_id"], "m1");
    let providers = listed["providers"].as_array().unwrap();
    assert_eq!(providers[0]["provider"], "anthropic");
    assert_eq!(providers[0]["available"], false);
    assert!(
        providers[0]["hint"]
            .as_str()
            .unwrap()
            .contains("ANTHROPIC_API_KEY")
    );
    assert_eq!(providers[1]["available"], true);
    assert!(listed["models"].as_array().unwrap().len() >= 6);
}

#[test]
fn bash_timeout_kills_the_command() {
    let mut r = rig(
        Provider::Anthropic,
        &["--yolo"],
        &[("LUXE_BASH_TIMEOUT_MS", "300")],
    );
    r.server
        .push(tool_script("b1", "bash", json!({"command": "sleep 20"})));
    r.server.push(Reply::text("it timed out"));
    submit(&mut r.luxe, "sleep");
    let start = Instant::now();
    let frames = until_turn_ended(&mut r.luxe);
    assert!(start.elapsed() < Duration::from_secs(5));
    let finished = of_kind(&frames, "tool_finished");
    assert_eq!(finished[0]["status"], "error");
    assert!(
        finished[0]["output"]
            .as_str()
            .unwrap()
            .contains("timed out after 300 ms")
    );
}

#[test]
fn system_prompt_carries_git_status_and_agents_md() {
    let ws = Workspace::new();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(ws.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "trunk"]);
    std::fs::write(
        ws.path().join("AGENTS.md"),
        "Always run the frobnicator first.\n",
    )
    .unwrap();
    git(&["add", "AGENTS.md"]);
    git(&["commit", "-q", "-m", "init"]);
    let server = ModelServer::start();
    let mut luxe = spawn(&ws, &server, Provider::Anthropic, &[], &[]);
    server.push(Reply::text("ok"));
    submit(&mut luxe, "hello");
    until_turn_ended(&mut luxe);
    let system = server.requests()[0].body["system"].to_string();
    assert!(system.contains("frobnicator"), "{system}");
    assert!(system.contains("branch trunk"), "{system}");
}

#[test]
fn settings_pick_the_model_and_a_broken_file_stops_start_up() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    std::fs::write(
        ws.path().join("home/settings.json"),
        r#"{"model": "openai/gpt-5-mini"}"#,
    )
    .unwrap();
    let mut cmd = ws.luxe();
    cmd.env("OPENAI_BASE_URL", server.openai_base_url());
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    assert_eq!(
        luxe.expect("state_changed")["model"]["id"],
        "openai/gpt-5-mini"
    );
    drop(luxe);

    std::fs::create_dir_all(ws.path().join(".luxe")).unwrap();
    std::fs::write(
        ws.path().join(".luxe/settings.json"),
        "{\n  \"model\": 7\n}",
    )
    .unwrap();
    let out = ws.luxe().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stdout, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".luxe/settings.json:2:"), "{stderr}");
}

#[test]
fn the_seed_example_client_completes_a_turn_against_a_model() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("This project is a test."));
    let client = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/examples/seed_client.py"
    );
    let bin_dir = luxe_tests::process::luxe_bin().parent().unwrap();
    let out = std::process::Command::new("python3")
        .arg(client)
        .current_dir(ws.path())
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("LUXE_HOME", ws.path().join("home"))
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("This project is a test."), "{stdout}");
    assert!(stdout.contains("turn ended: end_turn"), "{stdout}");
}
