//! `luxe --acp`'s host driven in process through `luxe_core::acp::checked::Checked`, which
//! checks the ACP invariants after every step: scenarios, then random sequences.

use std::time::{Duration, Instant};

use quickcheck::QuickCheck;
use serde_json::{Value, json};

use luxe_core::acp::checked::{Checked, DIRS, Model, SECRET};
use luxe_core::effects::Input;
use luxe_sim::acp::{Host, Op};

fn started() -> (Checked, String) {
    let mut c = Checked::new(Instant::now());
    c.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    c.request("session/new", json!({"cwd": DIRS[0], "mcpServers": []}));
    while c.effect(true) {}
    let session = c.created[0].clone();
    (c, session)
}

fn updates(seen: &[Value]) -> Vec<String> {
    seen.iter()
        .map(|m| match m["method"].as_str() {
            Some("session/update") => m["params"]["update"]["sessionUpdate"]
                .as_str()
                .unwrap_or("?")
                .to_owned(),
            Some(other) => other.to_owned(),
            None if m.get("error").is_some() => format!("error {}", m["error"]["code"]),
            None => format!(
                "response {}",
                m["result"]["stopReason"].as_str().unwrap_or("-")
            ),
        })
        .collect()
}

fn prompt(c: &mut Checked, session: &str, text: &str) -> u64 {
    c.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
    )
}

fn settle(c: &mut Checked) {
    while c.effect(true) {}
}

#[test]
fn initialize_names_luxe_and_its_capabilities() {
    let mut c = Checked::new(Instant::now());
    c.request("initialize", json!({"protocolVersion": 7}));
    let seen = c.take_seen();
    let result = &seen[0]["result"];
    assert_eq!(
        result["protocolVersion"], 1,
        "ours when the client's is unknown"
    );
    assert_eq!(result["agentInfo"]["name"], "luxe");
    assert_eq!(result["agentCapabilities"]["loadSession"], true);
    assert_eq!(
        result["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
        true
    );
    assert_eq!(
        result["agentCapabilities"]["mcpCapabilities"],
        json!({"http": true, "sse": false})
    );
    assert_eq!(result["authMethods"], json!([]));
    c.finish();
}

#[test]
fn a_new_session_answers_then_offers_its_commands() {
    let mut c = Checked::new(Instant::now());
    c.request("initialize", json!({"protocolVersion": 1}));
    c.request("session/new", json!({"cwd": DIRS[0], "mcpServers": []}));
    settle(&mut c);
    let seen = c.take_seen();
    assert_eq!(
        updates(&seen),
        ["response -", "response -", "available_commands_update"]
    );
    let result = &seen[1]["result"];
    assert_eq!(result["modes"]["currentModeId"], "default");
    assert_eq!(
        result["configOptions"][0]["currentValue"],
        "anthropic/claude-sonnet-4-5"
    );
    c.finish();
}

#[test]
fn a_streamed_answer_comes_before_its_response() {
    let (mut c, session) = started();
    c.take_seen();
    prompt(&mut c, &session, "hello");
    settle(&mut c);
    let seen = updates(&c.take_seen());
    assert_eq!(
        seen,
        [
            "agent_thought_chunk",
            "agent_message_chunk",
            "usage_update",
            "session_info_update",
            "response end_turn"
        ]
    );
    c.finish();
}

fn ask_bash(choice: u8) -> Vec<String> {
    let (mut c, session) = started();
    c.model = Model::Tool(3);
    prompt(&mut c, &session, "run it");
    settle(&mut c);
    assert!(c.answer_permission(choice));
    settle(&mut c);
    let seen = updates(&c.take_seen());
    c.finish();
    seen
}

/// A command printing `chunks` lines of `size` bytes, `pace` apart, in bypass mode: the bytes
/// luxe wrote from the prompt on, and the `tool_call_update`s.
fn command_printing(chunks: usize, size: usize, pace: Duration) -> (usize, Vec<Value>) {
    let (mut c, session) = started();
    c.request(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "bypass"}),
    );
    let lines = (0..chunks)
        .map(|i| format!("{i:0>width$}\n", width = size - 1).into_bytes())
        .collect();
    c.io.command_output = (lines, pace);
    c.model = Model::Tool(3);
    c.take_seen();
    let before = c.written;
    prompt(&mut c, &session, "print a lot");
    settle(&mut c);
    let written = c.written - before;
    let calls = c
        .take_seen()
        .into_iter()
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "tool_call_update")
        .map(|m| m["params"]["update"].clone())
        .collect();
    c.finish();
    (written, calls)
}

fn text(update: &Value) -> &str {
    update["content"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn a_commands_output_costs_the_client_linear_bytes_not_quadratic() {
    // 300 KiB in 1 KiB lines, all at once and 1 ms apart (everything so far in every update
    // was 45 MB); and 12 lines slower than updates go out, each its own update.
    let size = 1024;
    for (chunks, pace, most_updates) in [(300, 0, 1), (300, 1, 4), (12, 150, 12)] {
        let printed = chunks * size;
        let (written, calls) = command_printing(chunks, size, Duration::from_millis(pace));
        let running: Vec<&Value> = calls
            .iter()
            .filter(|u| u["status"] == "in_progress" && u.get("content").is_some())
            .collect();
        assert!(
            (1..=most_updates).contains(&running.len()),
            "{} running updates at a {pace} ms pace",
            running.len()
        );
        // Each shows at most the last 8 KiB, after a line saying how much it leaves out, and
        // ends with the last line printed before it.
        for update in &running {
            let shown = text(update);
            assert!(shown.len() <= 8 * 1024 + 64, "{} bytes shown", shown.len());
            assert!(shown.ends_with('\n'));
        }
        let last = text(running.last().unwrap());
        if pace == 150 {
            assert!(
                last.ends_with(&format!("{:0>1023}\n", chunks - 1)),
                "the end"
            );
            let left_out = printed - last.lines().skip(1).count() * size;
            assert!(
                last.starts_with(&format!("[{left_out} bytes of earlier output not shown]\n")),
                "{}",
                &last[..60]
            );
        }
        // The final update: the output as the model was told it (capped, its start kept).
        let done = calls.last().unwrap();
        assert_eq!(done["status"], "completed");
        assert!(text(done).starts_with(&format!("{:0>1023}\n", 0)));
        assert_eq!(text(done).contains("[output truncated: "), printed > 30_000);
        // Linear in what was printed, and in the number of updates; the rest of the turn (the
        // final update's 30,000 bytes, the answer, usage) is under 64 KiB.
        let per_update = 8 * 1024 + 256;
        assert!(
            written <= running.len() * per_update + 64 * 1024,
            "{written} bytes written for {printed} printed at a {pace} ms pace"
        );
        if pace <= 1 {
            assert!(written <= printed / 4, "{written} bytes for {printed}");
        }
    }
}

#[test]
fn a_tool_call_asks_and_runs_when_allowed() {
    let seen = ask_bash(0);
    let ask = seen
        .iter()
        .position(|u| u == "session/request_permission")
        .unwrap();
    assert_eq!(seen[ask - 1], "tool_call");
    assert!(seen[ask..].contains(&"tool_call_update".to_owned()));
    assert_eq!(seen.last().unwrap(), "response end_turn");
}

#[test]
fn a_rejected_call_fails_and_the_turn_goes_on() {
    let (mut c, session) = started();
    c.model = Model::Tool(3);
    prompt(&mut c, &session, "run it");
    settle(&mut c);
    c.answer_permission(2);
    settle(&mut c);
    let seen = c.take_seen();
    let failed = seen
        .iter()
        .any(|m| m["params"]["update"]["status"] == "failed");
    assert!(failed, "{seen:?}");
    assert_eq!(updates(&seen).last().unwrap(), "response end_turn");
    c.finish();
}

#[test]
fn a_cancelled_permission_ends_the_turn_cancelled() {
    let seen = ask_bash(3);
    assert_eq!(seen.last().unwrap(), "response cancelled");
}

#[test]
fn allow_always_stops_the_next_ask() {
    let (mut c, session) = started();
    c.model = Model::Tool(3);
    prompt(&mut c, &session, "run it");
    settle(&mut c);
    c.answer_permission(1);
    settle(&mut c);
    c.model = Model::Tool(3);
    prompt(&mut c, &session, "again");
    settle(&mut c);
    assert!(
        !c.answer_permission(0),
        "the rule the first answer added covers the second"
    );
    c.finish();
}

#[test]
fn cancel_settles_an_open_permission_request_and_its_late_answer_is_dropped() {
    let (mut c, session) = started();
    c.model = Model::Tool(3);
    prompt(&mut c, &session, "run it");
    settle(&mut c);
    assert!(
        updates(&c.take_seen()).contains(&"session/request_permission".to_owned()),
        "it asks"
    );
    c.notify("session/cancel", json!({"sessionId": session}));
    let seen = c.take_seen();
    let outline = updates(&seen);
    assert_eq!(outline.last().unwrap(), "response cancelled", "{outline:?}");
    let call = seen
        .iter()
        .rfind(|m| m["params"]["update"]["sessionUpdate"] == "tool_call_update")
        .expect("the call's end");
    assert_eq!(call["params"]["update"]["status"], "failed");
    // The client answers as ACP asks after a cancel, and luxe, which settled it, writes nothing.
    assert!(c.answer_permission(3));
    assert!(c.take_seen().is_empty(), "a late answer is dropped");
    c.finish();
}

#[test]
fn a_turn_ends_with_its_usage_title_and_plan() {
    let (mut c, session) = started();
    c.model = Model::Tool(6);
    prompt(&mut c, &session, "plan it");
    settle(&mut c);
    let seen = c.take_seen();
    let update = |kind: &str| {
        seen.iter()
            .find(|m| m["params"]["update"]["sessionUpdate"] == kind)
            .map(|m| m["params"]["update"].clone())
            .unwrap_or_else(|| panic!("no {kind}"))
    };
    assert_eq!(
        update("plan")["entries"],
        json!([{"content": "s", "priority": "medium", "status": "completed"}])
    );
    let usage = update("usage_update");
    assert!(usage["used"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(usage["size"], 200_000);
    assert_eq!(usage["cost"]["currency"], "USD");
    assert!(usage["cost"]["amount"].as_f64().unwrap() > 0.0, "{usage}");
    assert_eq!(update("session_info_update")["title"], "plan it");
    c.finish();
}

#[test]
fn list_pages_this_directorys_sessions() {
    let mut c = Checked::new(Instant::now());
    c.request("initialize", json!({"protocolVersion": 1}));
    for n in 0..53 {
        let cwd = if n < 51 { DIRS[0] } else { DIRS[1] };
        c.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        settle(&mut c);
        let session = c.created.last().unwrap().clone();
        prompt(&mut c, &session, "hi");
        settle(&mut c);
    }
    c.take_seen();
    let mut listed = |params: Value| {
        c.request("session/list", params);
        settle(&mut c);
        c.take_seen().pop().unwrap()
    };
    let first = listed(json!({"cwd": DIRS[0]}));
    let sessions = first["result"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 50, "a page");
    assert!(sessions.iter().all(|s| s["cwd"] == DIRS[0]));
    let cursor = first["result"]["nextCursor"].clone();
    let rest = listed(json!({"cwd": DIRS[0], "cursor": cursor}));
    assert_eq!(rest["result"]["sessions"].as_array().unwrap().len(), 1);
    assert!(rest["result"].get("nextCursor").is_none(), "the last page");
    let all = listed(json!({}));
    assert_eq!(all["result"]["sessions"].as_array().unwrap().len(), 50);
    let bad = listed(json!({"cursor": "not-ours"}));
    assert_eq!(bad["error"]["code"], -32602);
    assert!(bad["error"]["message"].as_str().unwrap().contains("cursor"));
    c.finish();
}

#[test]
fn cancel_mid_stream_answers_cancelled() {
    let (mut c, session) = started();
    c.model = Model::Hang;
    prompt(&mut c, &session, "hello");
    settle(&mut c);
    c.take_seen();
    c.notify("session/cancel", json!({"sessionId": session}));
    assert_eq!(
        updates(&c.take_seen()).last().unwrap(),
        "response cancelled"
    );
    c.finish();
}

#[test]
fn a_second_prompt_waits_for_the_first() {
    let (mut c, session) = started();
    c.take_seen();
    let first = prompt(&mut c, &session, "one");
    let second = prompt(&mut c, &session, "two");
    settle(&mut c);
    let answers: Vec<u64> = c
        .take_seen()
        .iter()
        .filter(|m| m.get("result").is_some())
        .filter_map(|m| m["id"].as_u64())
        .collect();
    assert_eq!(answers, [first, second]);
    c.finish();
}

#[test]
fn bad_input_gets_its_error_and_changes_nothing() {
    let (mut c, session) = started();
    c.take_seen();
    c.garbage(b"not json");
    c.garbage(b"[1,2]");
    c.request("session/unknown", json!({}));
    c.request("session/new", json!({"cwd": "relative", "mcpServers": []}));
    c.request("session/prompt", json!({"sessionId": "nope", "prompt": []}));
    c.request(
        "session/prompt",
        json!({"sessionId": session, "prompt": "text"}),
    );
    c.notify("something/else", json!({}));
    let seen = c.take_seen();
    let codes: Vec<i64> = seen
        .iter()
        .map(|m| m["error"]["code"].as_i64().unwrap())
        .collect();
    assert_eq!(codes, [-32700, -32600, -32601, -32602, -32002, -32602]);
    assert!(
        seen[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`cwd`")
    );
    assert!(
        seen[5]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`prompt`")
    );
    // An answer to a request luxe never sent changes nothing and gets no answer, but the log
    // says it was dropped.
    assert!(c.take_logs().is_empty());
    c.input(Input::ClientBytes(
        b"{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n",
    ));
    c.input(Input::ClientBytes(
        b"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}\n",
    ));
    assert!(c.take_seen().is_empty(), "no answer to an answer");
    let logs = c.take_logs();
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(
        logs[0].contains("id 999") && logs[0].contains("no such request"),
        "{logs:?}"
    );
    assert!(logs[1].contains("not a number"), "{logs:?}");
    prompt(&mut c, &session, "still here");
    settle(&mut c);
    assert_eq!(updates(&c.take_seen()).last().unwrap(), "response end_turn");
    c.finish();
}

#[test]
fn an_embedded_env_file_is_refused_and_its_text_goes_nowhere() {
    let (mut c, session) = started();
    c.take_seen();
    c.request("session/prompt", json!({"sessionId": session, "prompt": [
        {"type": "resource", "resource": {"uri": "file:///work/a/.env", "text": format!("TOKEN={SECRET}")}}
    ]}));
    let seen = c.take_seen();
    assert!(
        seen[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/work/a/.env")
    );
    c.finish();
}

#[test]
fn modes_switch_and_read_only_is_refused() {
    let (mut c, session) = started();
    c.take_seen();
    c.request(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "bypass"}),
    );
    c.request(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "read-only"}),
    );
    let seen = c.take_seen();
    assert_eq!(
        updates(&seen),
        ["response -", "error -32602"],
        "no update for the client's own change"
    );
    c.model = Model::Tool(3);
    prompt(&mut c, &session, "run it");
    settle(&mut c);
    assert!(!c.answer_permission(0), "bypass asks nothing");
    c.request(
        "session/set_config_option",
        json!({"sessionId": session, "configId": "thinking", "value": "high"}),
    );
    let seen = c.take_seen();
    let options = &seen.last().unwrap()["result"]["configOptions"];
    assert_eq!(options[1]["currentValue"], "high");
    c.finish();
}

#[test]
fn the_client_serves_reads_and_takes_writes_when_it_offers_fs() {
    let mut c = Checked::new(Instant::now());
    let fs = json!({"readTextFile": true, "writeTextFile": true});
    c.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {"fs": fs}}),
    );
    c.request("session/new", json!({"cwd": DIRS[0], "mcpServers": []}));
    settle(&mut c);
    let session = c.created[0].clone();
    c.model = Model::Tool(0);
    prompt(&mut c, &session, "read a.txt");
    settle(&mut c);
    assert!(c.answer_fs(true), "the read went to the client");
    settle(&mut c);
    let seen = c.take_seen();
    let read = seen
        .iter()
        .find(|m| m["method"] == "fs/read_text_file")
        .unwrap();
    assert_eq!(read["params"]["path"], "/work/a/a.txt");
    let done = seen
        .iter()
        .find(|m| m["params"]["update"]["status"] == "completed")
        .unwrap();
    let output = done["params"]["update"]["content"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(output.contains("from the editor"), "{output}");
    c.model = Model::Tool(7);
    prompt(&mut c, &session, "read .env");
    settle(&mut c);
    assert!(
        !c.answer_fs(true),
        "a .env read is refused before the client is asked"
    );
    c.finish();
}

#[test]
fn ask_user_goes_to_the_clients_elicitation_or_is_dismissed() {
    for elicitation in [true, false] {
        let mut c = Checked::new(Instant::now());
        let caps = if elicitation {
            json!({"elicitation": {"form": {}}})
        } else {
            json!({})
        };
        c.request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": caps}),
        );
        c.request("session/new", json!({"cwd": DIRS[0], "mcpServers": []}));
        settle(&mut c);
        let session = c.created[0].clone();
        c.model = Model::Tool(5);
        prompt(&mut c, &session, "ask me");
        settle(&mut c);
        assert_eq!(c.answer_question(0), elicitation);
        settle(&mut c);
        let seen = c.take_seen();
        let done = seen
            .iter()
            .find(|m| {
                m["params"]["update"]["sessionUpdate"] == "tool_call_update"
                    && m["params"]["update"]["content"].is_array()
                    && m["params"]["update"]["status"] != "in_progress"
            })
            .unwrap();
        let told = done["params"]["update"]["content"][0]["content"]["text"].to_string();
        assert_eq!(told.contains("chose: a"), elicitation, "{told}");
        c.finish();
    }
}

#[test]
fn two_sessions_run_at_once_without_mixing() {
    let (mut c, first) = started();
    c.request("session/new", json!({"cwd": DIRS[1], "mcpServers": []}));
    settle(&mut c);
    let second = c.created[1].clone();
    assert_ne!(first, second);
    c.model = Model::Hang;
    prompt(&mut c, &first, "one");
    settle(&mut c);
    c.model = Model::Text;
    prompt(&mut c, &second, "two");
    settle(&mut c);
    let seen = c.take_seen();
    let done: Vec<&Value> = seen
        .iter()
        .filter(|m| m["result"]["stopReason"] == "end_turn")
        .collect();
    assert_eq!(
        done.len(),
        1,
        "the second ended while the first still waits"
    );
    c.notify("session/cancel", json!({"sessionId": first}));
    assert_eq!(
        updates(&c.take_seen()).last().unwrap(),
        "response cancelled"
    );
    c.finish();
}

#[test]
fn load_replays_before_its_answer_and_resume_does_not() {
    let (mut c, session) = started();
    prompt(&mut c, &session, "remember me");
    settle(&mut c);
    c.request("session/close", json!({"sessionId": session}));
    c.take_seen();
    c.request(
        "session/load",
        json!({"sessionId": session, "cwd": DIRS[0], "mcpServers": []}),
    );
    settle(&mut c);
    let seen = c.take_seen();
    assert_eq!(
        updates(&seen),
        [
            "user_message_chunk",
            "agent_message_chunk",
            "response -",
            "available_commands_update"
        ]
    );
    assert_eq!(
        seen[0]["params"]["update"]["content"]["text"],
        "remember me"
    );
    c.request("session/close", json!({"sessionId": session}));
    c.request(
        "session/resume",
        json!({"sessionId": session, "cwd": DIRS[0]}),
    );
    settle(&mut c);
    let seen = updates(&c.take_seen());
    assert_eq!(
        seen,
        ["response -", "response -", "available_commands_update"]
    );
    c.request("session/list", json!({}));
    settle(&mut c);
    let seen = c.take_seen();
    let listed = &seen[0]["result"]["sessions"];
    assert_eq!(listed[0]["sessionId"], session.as_str());
    assert_eq!(listed[0]["title"], "remember me");
    c.finish();
}

fn run(client: (bool, bool), ops: Vec<Op>) -> bool {
    let mut host = Host::start(Instant::now(), client);
    for op in &ops {
        host.step(op);
    }
    host.finish();
    true
}

#[test]
fn property_random_client_sequences_keep_every_promise() {
    // quickcheck reads `QUICKCHECK_TESTS` for how many.
    QuickCheck::new().quickcheck(run as fn((bool, bool), Vec<Op>) -> bool);
}

#[test]
fn an_answer_of_no_session_never_echoes_a_sessions_secret() {
    // Found by the fuzzer: the unknown method's name quoted a session's `.env` value.
    let line =
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"x{SECRET}y","params":{{"sessionId":"x"}}}}"#);
    luxe_core::acp::checked::fuzz(Instant::now(), line.as_bytes());
}

#[test]
fn the_fuzz_body_keeps_every_promise_on_its_seeds() {
    let lines = [
        r#"{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"hi"}]}}"#,
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"session/set_mode","params":{"sessionId":"x","modeId":"plan"}}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"session/list","params":{"cursor":"0"}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"/compact"}]}}"#,
        r#"{"jsonrpc":"2.0","id":11,"method":"session/close","params":{"sessionId":"x"}}"#,
        "not json",
        "",
        r#"{"id":1}"#,
    ];
    luxe_core::acp::checked::fuzz(Instant::now(), lines.join("\n").as_bytes());
    for line in lines {
        luxe_core::acp::checked::fuzz(Instant::now(), line.as_bytes());
    }
}

#[test]
fn ask_user_is_offered_only_to_a_client_that_can_ask_the_user() {
    for elicitation in [false, true] {
        let mut c = Checked::new(Instant::now());
        let caps = if elicitation {
            json!({"elicitation": {"form": {}}})
        } else {
            json!({})
        };
        c.request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": caps}),
        );
        c.request("session/new", json!({"cwd": DIRS[0], "mcpServers": []}));
        settle(&mut c);
        let session = c.created[0].clone();
        prompt(&mut c, &session, "hello");
        settle(&mut c);
        let body = c.model_requests.first().expect("the turn asked the model");
        assert_eq!(
            body.contains("\"ask_user\""),
            elicitation,
            "elicitation {elicitation}: {body}"
        );
        c.finish();
    }
}
