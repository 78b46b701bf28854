//! `luxe --acp` driven by the official ACP TypeScript SDK (tests/acp/client.mjs), as an editor
//! drives it, against the loopback model server; plus what the SDK cannot send (garbage lines).

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use luxe_tests::acp_client::run;
use luxe_tests::model_server::{ModelServer, Part, Reply, Script, ScriptUsage, Stop};
use luxe_tests::process::{LuxeProcess, Workspace, luxe_bin};
use serde_json::{Value, json};

fn thinking_answer(text: &str) -> Reply {
    Reply::Stream(
        Script::new(
            vec![
                Part::Thinking {
                    deltas: vec!["Let me ".into(), "think.".into()],
                    signature: "sig".into(),
                },
                Part::Text(vec![text[..2].into(), text[2..].into()]),
            ],
            Stop::EndTurn,
        )
        .with_usage(ScriptUsage {
            input: 10,
            output: 5,
            ..ScriptUsage::default()
        }),
    )
}

fn bash(id: &str, command: &str) -> Reply {
    Reply::tool_call(id, "bash", json!({"command": command}))
}

/// The position of the first entry of the outline equal to `what`.
fn at(outline: &[String], what: &str) -> usize {
    outline
        .iter()
        .position(|o| o == what)
        .unwrap_or_else(|| panic!("no {what} in {outline:?}"))
}

#[test]
fn initialize_and_a_new_session() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(thinking_answer("Hello there."));
    let t = run("basic", &ws, &server, &[]);
    let init = t.result("initialize", 0);
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentInfo"]["name"], "luxe");
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    let new = t.result("session/new", 0);
    assert!(new["sessionId"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(new["modes"]["currentModeId"], "default");
    let outline = t.outline();
    assert!(at(&outline, "response session/new") < at(&outline, "available_commands_update"));
}

#[test]
fn a_streamed_answer_with_thinking_ends_after_every_update() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(thinking_answer("Hello there."));
    let t = run("basic", &ws, &server, &[]);
    let outline = t.outline();
    let end = at(&outline, "response session/prompt");
    for update in [
        "agent_thought_chunk",
        "agent_message_chunk",
        "usage_update",
        "session_info_update",
    ] {
        assert!(
            at(&outline, update) < end,
            "{update} after the response: {outline:?}"
        );
    }
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "end_turn");
    let text: String = t
        .of("update")
        .iter()
        .filter(|e| e["update"]["sessionUpdate"] == "agent_message_chunk")
        .map(|e| e["update"]["content"]["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(text, "Hello there.");
}

#[test]
fn permissions_allow_once_allow_always_reject_and_cancel() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    // one: allowed once; two: allowed always; three: the same command, not asked;
    // four: another command, rejected; five: cancelled, the turn ends cancelled.
    for (n, command) in [
        (1, "echo one"),
        (2, "echo two"),
        (3, "echo two"),
        (4, "echo four"),
    ] {
        server.push(bash(&format!("t{n}"), command));
        server.push(Reply::text("ok"));
    }
    server.push(bash("t5", "echo five"));
    let t = run(
        "permissions",
        &ws,
        &server,
        &[(
            "SCENARIO_PERMISSIONS",
            "allow_once,allow_always,reject_once,cancelled",
        )],
    );
    let asked = t.of("permission");
    assert_eq!(
        asked.len(),
        4,
        "three asks the rule covers not: {:#?}",
        t.entries
    );
    let kinds: Vec<&str> = asked[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
    assert!(
        asked[1]["options"][1]["name"]
            .as_str()
            .unwrap()
            .contains("echo two")
    );
    assert_eq!(asked[0]["toolCall"]["kind"], "execute");
    let stops: Vec<&Value> = t
        .of("response")
        .into_iter()
        .filter(|e| e["method"] == "session/prompt")
        .map(|e| &e["result"]["stopReason"])
        .collect();
    assert_eq!(
        stops,
        ["end_turn", "end_turn", "end_turn", "end_turn", "cancelled"]
    );
    let statuses = |id: &str| -> Vec<String> {
        t.of("update")
            .iter()
            .filter(|e| e["update"]["toolCallId"] == id)
            .map(|e| e["update"]["status"].as_str().unwrap_or("-").to_owned())
            .collect()
    };
    let first = statuses("call_1");
    assert_eq!(first.first().map(String::as_str), Some("pending"));
    assert_eq!(first.last().map(String::as_str), Some("completed"));
    assert_eq!(
        statuses("call_4").last().map(String::as_str),
        Some("failed"),
        "a rejected call fails"
    );
    let ran: Vec<&Value> = t
        .of("update")
        .into_iter()
        .filter(|e| e["update"]["toolCallId"] == "call_3" && e["update"]["status"] == "completed")
        .collect();
    let output = ran[0]["update"]["content"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(output.contains("two"), "{output}");
}

#[test]
fn a_turn_cut_short_or_refused_answers_max_tokens_or_refusal() {
    for (stop, reason) in [(Stop::MaxTokens, "max_tokens"), (Stop::Refusal, "refusal")] {
        let ws = Workspace::new();
        let server = ModelServer::start();
        server.push(Reply::Stream(Script::new(
            vec![Part::Text(vec!["Partly".into()])],
            stop,
        )));
        let t = run("basic", &ws, &server, &[]);
        assert_eq!(t.result("session/prompt", 0)["stopReason"], reason);
        let outline = t.outline();
        assert!(at(&outline, "usage_update") < at(&outline, "response session/prompt"));
    }
}

/// ACP sessions are Luxe sessions: `--rpc -c` continues one, `list_sessions` lists it, and
/// `session/list` lists an `--rpc` session of the same directory.
#[test]
fn acp_and_rpc_sessions_are_one_store() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("from acp"));
    let t = run("basic", &ws, &server, &[]);
    let acp_id = t.result("session/new", 0)["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (dir, _) = luxe_tests::acp_client::project_dirs(&ws);
    let rpc = |flags: &[&str]| {
        let mut cmd = ws.luxe();
        cmd.current_dir(&dir)
            .args(["--model", "anthropic/claude-sonnet-4-5"])
            .args(flags)
            .env("ANTHROPIC_API_KEY", "test-anthropic-key")
            .env("ANTHROPIC_BASE_URL", server.anthropic_base_url());
        let mut luxe = LuxeProcess::spawn(cmd);
        let ready = luxe.expect("ready");
        (luxe, ready)
    };
    let (mut luxe, ready) = rpc(&["-c"]);
    assert_eq!(
        ready["session_id"],
        acp_id.as_str(),
        "-c continues the ACP session"
    );
    assert_eq!(ready["resumed"], true);
    luxe.send(r#"{"kind":"list_sessions","content":{"request_id":"l1"}}"#);
    let listed = luxe.until("sessions_listed").pop().unwrap();
    assert_eq!(listed["content"]["sessions"][0]["id"], acp_id.as_str());
    luxe.send(r#"{"kind":"close"}"#);
    assert_eq!(luxe.wait().0.code(), Some(0));
    // Sessions are ordered by their last write, in whole seconds.
    std::thread::sleep(Duration::from_millis(1100));
    let (mut luxe, ready) = rpc(&[]);
    let rpc_id = ready["session_id"].as_str().unwrap().to_owned();
    server.push(Reply::text("from rpc"));
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":"an rpc topic"}}).to_string());
    luxe.until("turn_ended");
    luxe.send(r#"{"kind":"close"}"#);
    assert_eq!(luxe.wait().0.code(), Some(0));
    let t = run("list", &ws, &server, &[]);
    let sessions = t.result("session/list", 0)["sessions"].as_array().unwrap();
    let listed: Vec<(&str, &str)> = sessions
        .iter()
        .map(|s| {
            (
                s["sessionId"].as_str().unwrap(),
                s["title"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (rpc_id.as_str(), "an rpc topic"),
            (acp_id.as_str(), "hello")
        ],
        "newest first"
    );
}

#[test]
fn cancel_mid_stream_answers_cancelled() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let slow: Vec<String> = (0..200).map(|i| format!("word{i} ")).collect();
    server.push(Reply::Stream(
        Script::new(vec![Part::Text(slow)], Stop::EndTurn).with_delay(Duration::from_millis(20)),
    ));
    let t = run("cancel", &ws, &server, &[]);
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "cancelled");
    let outline = t.outline();
    let end = at(&outline, "response session/prompt");
    assert!(
        outline[end..].iter().all(|o| !o.ends_with("_chunk")),
        "no chunk after the response: {outline:?}"
    );
}

#[test]
fn cancel_mid_command_kills_it() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(bash("t1", "echo started; sleep 30"));
    server.push(Reply::text("never"));
    let t = run(
        "cancel_command",
        &ws,
        &server,
        &[("SCENARIO_PERMISSIONS", "allow_once")],
    );
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "cancelled");
    let from = t.of("cancelling")[0]["at"].as_u64().unwrap();
    let to = t.of("cancelled")[0]["at"].as_u64().unwrap();
    assert!(
        to - from < 5_000,
        "the command was not killed: {} ms",
        to - from
    );
}

#[test]
fn modes_and_config_options() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(bash("t1", "echo bypassed"));
    server.push(Reply::text("done"));
    let t = run("modes", &ws, &server, &[]);
    let outline = t.outline();
    let modes: Vec<&String> = outline.iter().filter(|o| o.contains("set_mode")).collect();
    assert_eq!(
        modes,
        [
            "response session/set_mode",
            "response session/set_mode",
            "error session/set_mode"
        ]
    );
    assert!(
        !outline.contains(&"current_mode_update".to_owned()),
        "the client's own change is not announced: {outline:?}"
    );
    let options = &t.result("session/set_config_option", 0)["configOptions"];
    let thinking = options
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "thinking")
        .unwrap();
    assert_eq!(thinking["currentValue"], "high");
    assert_eq!(thinking["category"], "thought_level");
    assert_eq!(
        outline
            .iter()
            .filter(|o| *o == "error session/set_config_option")
            .count(),
        1
    );
    assert!(t.of("permission").is_empty(), "bypass asks nothing");
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "end_turn");
}

#[test]
fn read_only_offers_only_read_only_and_plan() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let t = run(
        "read_only",
        &ws,
        &server,
        &[(
            "LUXE_ARGS",
            "--model anthropic/claude-sonnet-4-5 --read-only",
        )],
    );
    let modes = &t.result("session/new", 0)["modes"];
    assert_eq!(modes["currentModeId"], "read-only");
    let ids: Vec<&str> = modes["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["read-only", "plan"]);
    let outline = t.outline();
    assert!(outline.contains(&"error session/set_mode".to_owned()));
    assert!(outline.contains(&"response session/set_mode".to_owned()));
}

#[test]
fn load_replays_in_order_before_its_response_resume_and_list() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::tool_call("t1", "read", json!({"path": "notes.txt"})));
    server.push(Reply::text("It says hi."));
    server.push(Reply::text("Still here."));
    let t = run("load", &ws, &server, &[]);
    let outline = t.outline();
    let load = at(&outline, "mark load");
    let answered = at(&outline, "response session/load");
    let replay = &outline[load + 1..answered];
    assert_eq!(
        replay,
        ["user_message_chunk", "tool_call", "agent_message_chunk"],
        "{outline:?}"
    );
    let resume = at(&outline, "mark resume");
    let resumed = at(&outline, "response session/resume");
    assert_eq!(resumed, resume + 1, "resume replays nothing: {outline:?}");
    let list = &t.result("session/list", 0)["sessions"];
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["title"], "remember the tool");
    assert!(list[0]["updatedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(t.result("session/prompt", 1)["stopReason"], "end_turn");
    let requests = server.requests();
    let last = &requests.last().unwrap().body;
    assert!(
        last.to_string().contains("remember the tool"),
        "the resumed turn has the history"
    );
}

/// A session an editor opened and left before anything was said is still there for the next
/// process: loaded (nothing to replay) and resumed with its mode, unlisted until it holds a
/// message.
#[test]
fn a_session_with_nothing_said_can_be_loaded_and_resumed_by_a_new_process() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("Hello."));
    let first = run("new_only", &ws, &server, &[]);
    let id = first.result("session/new", 0)["sessionId"]
        .as_str()
        .expect("an id")
        .to_owned();
    let t = run("reopen", &ws, &server, &[("SESSION_ID", id.as_str())]);
    assert_eq!(
        t.of("error"),
        Vec::<&Value>::new(),
        "every request answered: {:#?}",
        t.entries
    );
    let unlisted = &t.result("session/list", 0)["sessions"];
    assert_eq!(unlisted, &json!([]), "nothing said: not listed");
    let loaded = t.result("session/load", 0);
    assert_eq!(
        loaded["modes"]["currentModeId"], "plan",
        "its mode came back"
    );
    let outline = t.outline();
    let replayed = outline[..at(&outline, "response session/load")]
        .iter()
        .filter(|o| o.ends_with("_chunk") || *o == "tool_call")
        .count();
    assert_eq!(replayed, 0, "nothing to replay: {outline:?}");
    assert_eq!(
        t.result("session/resume", 0)["modes"]["currentModeId"],
        "plan"
    );
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "end_turn");
    let listed = &t.result("session/list", 1)["sessions"];
    assert_eq!(listed[0]["sessionId"], id.as_str(), "one id throughout");
    assert_eq!(listed[0]["title"], "first words");
}

#[test]
fn two_sessions_in_two_directories_at_once() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let slow: Vec<String> = (0..30).map(|i| format!("w{i} ")).collect();
    server.push(Reply::Stream(
        Script::new(vec![Part::Text(slow)], Stop::EndTurn).with_delay(Duration::from_millis(30)),
    ));
    server.push(Reply::text("quick"));
    let t = run("two", &ws, &server, &[]);
    let a = t.result("session/new", 0)["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let b = t.result("session/new", 1)["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(a, b);
    let outline = t.outline();
    let second_done = at(&outline, "mark second done");
    let a_chunks_after = t.entries[second_done..]
        .iter()
        .filter(|e| {
            e["sessionId"] == a.as_str() && e["update"]["sessionUpdate"] == "agent_message_chunk"
        })
        .count();
    assert!(
        a_chunks_after > 0,
        "the first session was still streaming: {outline:?}"
    );
    let b_text: String = t
        .of("update")
        .iter()
        .filter(|e| {
            e["sessionId"] == b.as_str() && e["update"]["sessionUpdate"] == "agent_message_chunk"
        })
        .map(|e| e["update"]["content"]["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(b_text, "quick");
}

#[test]
fn bad_params_unknown_sessions_and_methods() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let t = run("bad", &ws, &server, &[]);
    let errors = t.of("error");
    let codes: Vec<i64> = errors.iter().map(|e| e["code"].as_i64().unwrap()).collect();
    assert_eq!(
        codes,
        [-32602, -32602, -32002, -32601, -32602],
        "{:#?}",
        t.entries
    );
    assert!(errors[0]["message"].as_str().unwrap().contains("cwd"));
    let env = errors[4]["message"].as_str().unwrap();
    assert!(env.contains("/.env"), "the refusal names the file: {env}");
    let all = serde_json::to_string(&t.entries).unwrap();
    assert!(!all.contains("never-shown-value"));
    assert!(server.requests().is_empty(), "nothing reached the model");
}

#[test]
fn env_values_never_reach_the_client() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (a, _) = luxe_tests::acp_client::project_dirs(&ws);
    std::fs::write(format!("{a}/.env"), "TOKEN=supersecretvalue123\n").unwrap();
    server.push(Reply::text("The token is supersecretvalue123, see?"));
    let t = run("basic", &ws, &server, &[]);
    let all = serde_json::to_string(&t.entries).unwrap();
    assert!(!all.contains("supersecretvalue123"), "{all}");
    let text: String = t
        .of("update")
        .iter()
        .filter(|e| e["update"]["sessionUpdate"] == "agent_message_chunk")
        .map(|e| e["update"]["content"]["text"].as_str().unwrap_or_default())
        .collect();
    assert!(
        text.starts_with("The token is "),
        "the answer itself came through: {text}"
    );
    assert!(!text.contains("supersecretvalue123"));
}

#[test]
fn a_model_failure_is_an_error_with_the_turns_sentence() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    for _ in 0..6 {
        server.push(Reply::status(500));
    }
    let t = run("basic", &ws, &server, &[]);
    let errors = t.of("error");
    assert_eq!(errors.len(), 1, "{:#?}", t.entries);
    assert_eq!(errors[0]["method"], "session/prompt");
    assert_eq!(errors[0]["code"], -32603);
    let ws = Workspace::new();
    let t = run(
        "basic",
        &ws,
        &server,
        &[("ANTHROPIC_API_KEY", ""), ("LUXE_ARGS", "")],
    );
    let message = t.of("error")[0]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("ANTHROPIC_API_KEY"),
        "no model names the variables: {message}"
    );
}

/// What the SDK cannot send: lines that are not JSON-RPC, answered and survived.
#[test]
fn garbage_lines_never_end_the_process() {
    let ws = Workspace::new();
    let mut child = std::process::Command::new(luxe_bin())
        .arg("--acp")
        .env("LUXE_HOME", ws.path().join("home"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("luxe starts");
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        "not json at all",
        "[1,2,3]",
        r#"{"jsonrpc":"2.0","id":7}"#,
        r#"{"jsonrpc":"1.0","id":8,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","method":"no/such_notification"}"#,
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"one"}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":1}}"#,
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut answers = Vec::new();
    for _ in 0..6 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        answers.push(serde_json::from_str::<Value>(&line).expect("every answer is JSON"));
    }
    let codes: Vec<Value> = answers.iter().map(|a| a["error"]["code"].clone()).collect();
    assert_eq!(
        codes,
        [
            json!(-32700),
            json!(-32600),
            json!(-32600),
            json!(-32600),
            json!(-32602),
            Value::Null
        ]
    );
    let ids: Vec<Value> = answers.iter().map(|a| a["id"].clone()).collect();
    assert_eq!(
        ids,
        [
            Value::Null,
            Value::Null,
            json!(7),
            json!(8),
            json!(9),
            json!(10)
        ]
    );
    assert_eq!(answers[5]["result"]["protocolVersion"], 1);
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn acp_with_rpc_continue_or_resume_is_a_usage_error() {
    for flags in [
        &["--acp", "--rpc"][..],
        &["--acp", "-c"],
        &["--acp", "--resume", "x"],
    ] {
        let out = std::process::Command::new(luxe_bin())
            .args(flags)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_client_file_system_serves_reads_and_takes_writes() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (a, _) = luxe_tests::acp_client::project_dirs(&ws);
    let file = format!("{a}/notes.txt");
    std::fs::write(&file, "what the disk holds\n").unwrap();
    server.push(Reply::tool_call("t1", "read", json!({"path": "notes.txt"})));
    server.push(Reply::tool_call(
        "t2",
        "write",
        json!({"path": "notes.txt", "content": "written by the agent\n"}),
    ));
    server.push(Reply::text("done"));
    let served = json!({ file.clone(): "the unsaved buffer\n" }).to_string();
    let t = run(
        "fs",
        &ws,
        &server,
        &[
            ("FS_FILES", served.as_str()),
            ("SCENARIO_PERMISSIONS", "allow_once"),
        ],
    );
    assert_eq!(t.of("fs_read")[0]["path"], file.as_str());
    let writes = t.of("fs_write");
    assert_eq!(writes[0]["content"], "written by the agent\n");
    let requests = server.requests();
    let after_read = requests[1].body.to_string();
    assert!(
        after_read.contains("the unsaved buffer"),
        "the model read the editor's buffer"
    );
    assert!(!after_read.contains("what the disk holds"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "what the disk holds\n",
        "luxe left the writing to the editor"
    );
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "end_turn");
}

/// A `write`'s diff as the editor gets it: the text it replaced (ACP's `null` is "created", so
/// only a new file says it), and no diff for a write refused by permission; each permission
/// request shows the same diff before the write runs, the refused one's too.
#[test]
fn a_writes_diff_carries_what_it_replaced_and_null_only_for_a_new_file() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (a, _) = luxe_tests::acp_client::project_dirs(&ws);
    std::fs::write(format!("{a}/notes.txt"), "OLD-LINE-1\n").unwrap();
    std::fs::write(format!("{a}/kept.txt"), "KEPT\n").unwrap();
    for (id, path, content) in [
        ("t1", "notes.txt", "NEW-LINE-2\n"),
        ("t2", "fresh.txt", "FRESH\n"),
        ("t3", "kept.txt", "NEVER\n"),
    ] {
        let input = json!({"path": path, "content": content});
        server.push(Reply::tool_call(id, "write", input));
    }
    server.push(Reply::text("done"));
    let answers = ("SCENARIO_PERMISSIONS", "allow_once,allow_once,reject_once");
    let t = run("basic", &ws, &server, &[answers]);
    let finished = |call: &str| -> Value {
        t.of("update")
            .into_iter()
            .rfind(|e| e["update"]["toolCallId"] == call)
            .map(|e| e["update"].clone())
            .unwrap_or_else(|| panic!("no update of {call}: {:#?}", t.entries))
    };
    let overwrite = finished("call_1");
    assert_eq!(overwrite["status"], "completed");
    assert_eq!(
        overwrite["content"][1],
        json!({"type": "diff", "path": format!("{a}/notes.txt"),
            "oldText": "OLD-LINE-1\n", "newText": "NEW-LINE-2\n"})
    );
    let create = finished("call_2");
    assert_eq!(create["status"], "completed");
    assert_eq!(
        create["content"][1],
        json!({"type": "diff", "path": format!("{a}/fresh.txt"),
            "oldText": null, "newText": "FRESH\n"})
    );
    let refused = finished("call_3");
    assert_eq!(refused["status"], "failed");
    assert_eq!(
        refused["content"].as_array().map(Vec::len),
        Some(1),
        "no diff"
    );
    let asked: Vec<Value> = t
        .of("permission")
        .iter()
        .map(|p| p["toolCall"]["content"][1].clone())
        .collect();
    let diff = |path: &str, old: Value, new: &str| json!({"type": "diff", "path": format!("{a}/{path}"), "oldText": old, "newText": new});
    assert_eq!(
        asked,
        [
            diff("notes.txt", json!("OLD-LINE-1\n"), "NEW-LINE-2\n"),
            diff("fresh.txt", Value::Null, "FRESH\n"),
            diff("kept.txt", json!("KEPT\n"), "NEVER\n"),
        ],
        "{:#?}",
        t.of("permission")
    );
    assert_eq!(
        std::fs::read_to_string(format!("{a}/notes.txt")).unwrap(),
        "NEW-LINE-2\n"
    );
    assert_eq!(
        std::fs::read_to_string(format!("{a}/kept.txt")).unwrap(),
        "KEPT\n"
    );
}

#[test]
fn ask_user_goes_through_the_clients_elicitation() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let options = json!([{"label": "red"}, {"label": "blue", "description": "the sea"}]);
    server.push(Reply::tool_call(
        "t1",
        "ask_user",
        json!({"question": "Which colour?", "options": options}),
    ));
    server.push(Reply::text("Blue it is."));
    let t = run("question", &ws, &server, &[]);
    let asked = t.of("elicitation");
    assert_eq!(asked[0]["message"], "Which colour?");
    assert_eq!(asked[0]["choices"], json!(["red", "blue"]));
    let requests = server.requests();
    assert!(
        requests[1].body.to_string().contains("blue"),
        "the model heard the answer"
    );
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "end_turn");
}

/// A command printing megabytes: while it runs, each update shows only the end of its output
/// and they go out at most every 100 ms, so what the client reads grows with the time the
/// command runs, not with the square of its output (every update carrying everything so far
/// was about 8 MB for the 1 MiB a client is sent of a command).
#[test]
fn a_command_printing_megabytes_costs_the_client_linear_bytes() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (dir, _) = luxe_tests::acp_client::project_dirs(&ws);
    // 400,000 numbered lines, about 2.9 MB.
    server.push(bash("t1", "seq 1 400000"));
    server.push(Reply::text("printed"));
    let mut child = std::process::Command::new(luxe_bin())
        .args(["--acp", "--yolo", "--model", "anthropic/claude-sonnet-4-5"])
        .env("LUXE_HOME", ws.path().join("home"))
        .env("ANTHROPIC_API_KEY", "test-anthropic-key")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("luxe starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut written = 0;
    let mut updates = Vec::new();
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": 1}}));
    answer_of(&mut out, 1, &mut written, &mut updates);
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": dir, "mcpServers": []}}));
    let session = answer_of(&mut out, 2, &mut written, &mut updates)["result"]["sessionId"].clone();
    let printed = (1..=400_000)
        .map(|n: u32| n.to_string().len() + 1)
        .sum::<usize>();
    let from = written;
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "print"}]}}),
    );
    let done = answer_of(&mut out, 3, &mut written, &mut updates);
    let written = written - from;
    assert_eq!(done["result"]["stopReason"], "end_turn");
    let last = updates.last().unwrap();
    assert_eq!(last["status"], "completed");
    let model_saw = last["content"][0]["content"]["text"].as_str().unwrap();
    assert!(model_saw.starts_with("1\n2\n3\n") && model_saw.contains("[output truncated: "));
    for running in &updates[..updates.len() - 1] {
        let shown = running["content"][0]["content"]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            shown.len() <= 8 * 1024 + 64,
            "{} bytes in one update",
            shown.len()
        );
    }
    assert!(
        written <= printed / 4 + 64 * 1024,
        "{written} bytes written for {printed} printed ({} updates)",
        updates.len()
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// Reads lines up to the answer to `id`, counting their bytes into `written` and keeping the
/// `tool_call_update`s.
fn answer_of(
    out: &mut impl BufRead,
    id: u64,
    written: &mut usize,
    updates: &mut Vec<Value>,
) -> Value {
    loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "luxe ended");
        *written += line.len();
        let message: Value = serde_json::from_str(&line).expect("a line is JSON");
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
        if message["params"]["update"]["sessionUpdate"] == "tool_call_update" {
            updates.push(message["params"]["update"].clone());
        }
    }
}

#[test]
fn deltas_read_in_one_piece_reach_the_client_as_few_chunks_with_every_character() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    // The server writes 64 KiB at a time, so luxe reads hundreds of deltas at once.
    let words: Vec<String> = (0..5_000).map(|i| format!("w{i}\u{e9}\"\n ")).collect();
    let thoughts: Vec<String> = (0..500).map(|i| format!("t{i} ")).collect();
    server.push(Reply::Stream(Script::new(
        vec![
            Part::Thinking {
                deltas: thoughts.clone(),
                signature: "sig".into(),
            },
            Part::Text(words.clone()),
        ],
        Stop::EndTurn,
    )));
    let t = run("basic", &ws, &server, &[]);
    assert_eq!(t.result("session/prompt", 0)["stopReason"], "end_turn");
    let of = |kind: &str| -> Vec<String> {
        t.of("update")
            .iter()
            .filter(|e| e["update"]["sessionUpdate"] == kind)
            .map(|e| e["update"]["content"]["text"].as_str().unwrap().to_owned())
            .collect()
    };
    let (said, thought) = (of("agent_message_chunk"), of("agent_thought_chunk"));
    assert_eq!(
        said.concat(),
        words.concat(),
        "the answer, whole and in order"
    );
    assert_eq!(thought.concat(), thoughts.concat(), "the thinking, apart");
    assert!(
        said.len() < words.len() / 10,
        "{} chunks for {} deltas",
        said.len(),
        words.len()
    );
}
