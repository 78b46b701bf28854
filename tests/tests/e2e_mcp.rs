//! MCP servers end to end: the reference servers from npm and the tests' own scripted bad
//! server, configured in `$LUXE_HOME/settings.json`, their tools called by the loopback model
//! through Luxe's permissions.

use std::time::{Duration, Instant};

use luxe_tests::mcp_servers::{HttpServer, bad, everything, filesystem, processes_with};
use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::patience;
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::rig::{Provider, of_kind, spawn, turn_answering as turn};
use serde_json::{Value, json};

const SECRET: &str = "sk-live-9f8e7d6c5b4a";

/// Writes the user's settings with `servers` and `permissions`.
fn settings(ws: &Workspace, servers: Value, permissions: Value) {
    let text = json!({"mcpServers": servers, "permissions": permissions}).to_string();
    std::fs::write(ws.path().join("home/settings.json"), text).unwrap();
}

fn start(
    ws: &Workspace,
    server: &ModelServer,
    flags: &[&str],
    env: &[(&str, &str)],
) -> LuxeProcess {
    spawn(ws, server, Provider::Anthropic, flags, env)
}

/// Reads frames until every server has left `starting`; returns the servers by name.
fn settled(luxe: &mut LuxeProcess) -> Value {
    loop {
        let frame = luxe.recv();
        if frame["kind"] != "mcp_servers_updated" {
            continue;
        }
        let servers = frame["content"]["servers"].as_array().unwrap().clone();
        if servers.iter().all(|s| s["status"] != "starting") {
            let by_name = servers
                .iter()
                .map(|s| (s["name"].as_str().unwrap().to_owned(), s.clone()));
            return Value::Object(by_name.collect());
        }
    }
}

/// Waits for the servers to settle: `name`, a server-everything, is ready over `transport`.
fn everything_is_ready(luxe: &mut LuxeProcess, name: &str, transport: &str) {
    let servers = settled(luxe);
    let server = &servers[name];
    assert_eq!(server["status"], "ready", "{servers}");
    assert_eq!(server["transport"], transport);
    assert!(server["tools"].as_u64().unwrap() >= 10, "{servers}");
}

/// One turn in which the model calls `name` with `input` (prompts answered with `reply`), then
/// answers; returns its frames.
fn one_call(
    server: &ModelServer,
    luxe: &mut LuxeProcess,
    name: &str,
    input: Value,
    reply: &str,
) -> Vec<Value> {
    server.push(Reply::tool_call("t", name, input));
    server.push(Reply::text("done"));
    turn(luxe, "go", reply)
}

/// The one `tool_finished` of a turn.
fn finished(frames: &[Value]) -> &Value {
    let all = of_kind(frames, "tool_finished");
    assert_eq!(all.len(), 1, "{frames:#?}");
    all[0]
}

/// The names of the tools the model was offered in the last request.
fn offered(server: &ModelServer) -> Vec<String> {
    let requests = server.requests();
    requests.last().unwrap().body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `list_mcp_servers`' answer: the status of each server by name.
fn listed(luxe: &mut LuxeProcess) -> Value {
    luxe.send_frame("list_mcp_servers", json!({"request_id": "l1"}));
    let frames = luxe.until("mcp_servers_listed");
    let content = &frames.last().unwrap()["content"];
    assert_eq!(content["request_id"], "l1");
    let servers = content["servers"].as_array().unwrap().iter();
    Value::Object(
        servers
            .map(|s| (s["name"].as_str().unwrap().to_owned(), s["status"].clone()))
            .collect(),
    )
}

/// A turn in which the model calls `name`'s long-running operation, interrupted once its
/// first progress was shown; returns the frames after the interrupt.
fn interrupted_after_progress(
    server: &ModelServer,
    luxe: &mut LuxeProcess,
    name: &str,
) -> Vec<Value> {
    let long = json!({"duration": 30, "steps": 30});
    let tool = format!("mcp__{name}__trigger-long-running-operation");
    server.push(Reply::tool_call("t1", &tool, long));
    luxe.send_frame("submit_user_message", json!({"text": "wait"}));
    let progress = loop {
        let frame = luxe.recv();
        if frame["kind"] == "tool_output_delta" {
            break frame["content"].clone();
        }
    };
    let chunk = progress["chunk"].as_str().unwrap();
    assert!(chunk.starts_with("progress 1/30"), "{progress}");
    luxe.send_frame("interrupt_turn", json!({}));
    luxe.until("turn_ended")
}

fn closes_cleanly(mut luxe: LuxeProcess) {
    luxe.send_frame("close", json!({}));
    let (status, stderr) = luxe.wait();
    assert!(status.success(), "{stderr}");
}

#[test]
fn a_server_tool_through_a_prompt_gets_its_result_and_rules_and_always_skip_the_prompt() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let allow = json!({"allow": ["mcp__everything__get-sum"]});
    settings(&ws, json!({"everything": everything()}), allow);
    let mut luxe = start(&ws, &server, &[], &[]);
    everything_is_ready(&mut luxe, "everything", "stdio");

    let echo = json!({"message": "hi there"});
    let frames = one_call(
        &server,
        &mut luxe,
        "mcp__everything__echo",
        echo.clone(),
        "once",
    );
    let prompt = of_kind(&frames, "permission_requested")[0];
    assert_eq!(prompt["tool"], "mcp__everything__echo");
    let detail = prompt["detail"].as_str().unwrap();
    assert!(
        detail.contains("echo") && detail.contains("everything"),
        "{detail}"
    );
    assert_eq!(prompt["always_rule"], "mcp__everything__echo");
    let started = of_kind(&frames, "tool_started")[0];
    assert_eq!(started["name"], "mcp__everything__echo");
    assert_eq!(started["input"], echo);
    let done = finished(&frames);
    assert_eq!(done["status"], "ok", "{done}");
    assert_eq!(done["output"], "Echo: hi there");
    // The model was offered the server's tools with their schemas, and got the result.
    let requests = server.requests();
    let tools = requests[0].body["tools"].as_array().unwrap();
    let offered_echo = tools
        .iter()
        .find(|t| t["name"] == "mcp__everything__echo")
        .unwrap();
    assert_eq!(
        offered_echo["input_schema"]["properties"]["message"]["type"],
        "string"
    );
    assert!(requests[1].body.to_string().contains("Echo: hi there"));

    // An allow rule: no prompt.
    let sum = json!({"a": 2, "b": 3});
    let frames = one_call(
        &server,
        &mut luxe,
        "mcp__everything__get-sum",
        sum,
        "reject",
    );
    assert!(of_kind(&frames, "permission_requested").is_empty());
    let done = finished(&frames);
    assert_eq!(done["status"], "ok", "{done}");
    assert!(done["output"].as_str().unwrap().contains('5'), "{done}");

    // `always` grants the exact tool for the rest of the session.
    for (prompts, reply) in [(1, "always"), (0, "reject")] {
        let frames = one_call(
            &server,
            &mut luxe,
            "mcp__everything__echo",
            echo.clone(),
            reply,
        );
        assert_eq!(
            of_kind(&frames, "permission_requested").len(),
            prompts,
            "{frames:#?}"
        );
        assert_eq!(finished(&frames)["status"], "ok");
    }
    // A rejected prompt is a denied call.
    let frames = one_call(
        &server,
        &mut luxe,
        "mcp__everything__get-tiny-image",
        json!({}),
        "reject",
    );
    assert_eq!(finished(&frames)["status"], "denied");

    assert_eq!(listed(&mut luxe), json!({"everything": "ready"}));
    closes_cleanly(luxe);
}

#[test]
fn read_only_denies_tools_not_marked_read_only_and_plan_mode_offers_only_those() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    settings(&ws, json!({"everything": everything()}), json!({}));
    let mut luxe = start(&ws, &server, &["--read-only"], &[]);
    assert_eq!(settled(&mut luxe)["everything"]["status"], "ready");
    let toggle = "mcp__everything__toggle-simulated-logging";
    let frames = one_call(&server, &mut luxe, toggle, json!({}), "once");
    assert!(of_kind(&frames, "permission_requested").is_empty());
    let done = finished(&frames);
    assert_eq!(done["status"], "denied");
    assert!(
        done["output"].as_str().unwrap().contains("read-only"),
        "{done}"
    );
    // A tool the server marks read-only still asks.
    let echo = json!({"message": "ro"});
    let frames = one_call(&server, &mut luxe, "mcp__everything__echo", echo, "once");
    assert_eq!(of_kind(&frames, "permission_requested").len(), 1);
    assert_eq!(finished(&frames)["status"], "ok");
    closes_cleanly(luxe);

    let ws = Workspace::new();
    let server = ModelServer::start();
    settings(
        &ws,
        json!({"everything": everything()}),
        json!({"allow": ["mcp__*"]}),
    );
    let mut luxe = start(&ws, &server, &[], &[]);
    assert_eq!(settled(&mut luxe)["everything"]["status"], "ready");
    luxe.send_frame("set_mode", json!({"mode": "plan"}));
    let frames = one_call(&server, &mut luxe, toggle, json!({}), "once");
    let tools = offered(&server);
    assert!(
        tools.contains(&"mcp__everything__echo".to_owned()),
        "{tools:?}"
    );
    assert!(!tools.contains(&toggle.to_owned()), "{tools:?}");
    let done = finished(&frames);
    assert_eq!(done["status"], "denied");
    assert!(
        done["output"].as_str().unwrap().contains("plan mode"),
        "{done}"
    );
    closes_cleanly(luxe);
}

#[test]
fn an_interrupt_cancels_a_long_call_whose_progress_was_shown_and_the_server_goes_on() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    settings(&ws, json!({"everything": everything()}), json!({}));
    let mut luxe = start(&ws, &server, &["--yolo"], &[]);
    assert_eq!(settled(&mut luxe)["everything"]["status"], "ready");
    let frames = interrupted_after_progress(&server, &mut luxe, "everything");
    assert_eq!(finished(&frames)["status"], "interrupted");
    assert_eq!(frames.last().unwrap()["content"]["reason"], "interrupted");

    let echo = json!({"message": "still here"});
    let frames = one_call(&server, &mut luxe, "mcp__everything__echo", echo, "once");
    assert_eq!(finished(&frames)["output"], "Echo: still here");
    closes_cleanly(luxe);
}

#[test]
fn env_values_a_server_returns_are_redacted_and_servers_get_a_minimal_environment() {
    let ws = Workspace::new();
    std::fs::write(ws.path().join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    let server = ModelServer::start();
    let mut envy = bad("env", "unused-marker");
    envy["env"] = json!({"GIVEN": "given-${LUXE_TEST_GIVEN}"});
    settings(
        &ws,
        json!({"fs": filesystem(ws.path()), "envy": envy}),
        json!({}),
    );
    let own = [
        ("LUXE_TEST_GIVEN", "value"),
        ("LUXE_TEST_OWN", "not for servers"),
    ];
    let mut luxe = start(&ws, &server, &["--yolo"], &own);
    let servers = settled(&mut luxe);
    assert_eq!(servers["fs"]["status"], "ready", "{servers}");
    assert_eq!(servers["envy"]["status"], "ready", "{servers}");
    let path = ws.path().join(".env").to_string_lossy().into_owned();
    let read = json!({"path": path});
    let frames = one_call(&server, &mut luxe, "mcp__fs__read_text_file", read, "once");
    let done = finished(&frames);
    assert_eq!(done["status"], "ok", "{done}");
    assert_eq!(done["output"], "API_KEY=[redacted]\n");
    assert!(!server.requests()[1].body.to_string().contains(SECRET));
    assert!(!luxe.transcript().iter().any(|line| line.contains(SECRET)));

    for (variable, want) in [
        ("GIVEN", "given-value"),
        ("LUXE_TEST_OWN", "(unset)"),
        ("ANTHROPIC_API_KEY", "(unset)"),
    ] {
        let frames = one_call(
            &server,
            &mut luxe,
            "mcp__envy__work",
            json!({"text": variable}),
            "once",
        );
        assert_eq!(finished(&frames)["output"], want, "{variable}");
    }
    closes_cleanly(luxe);
}

#[test]
fn an_image_that_holds_an_env_value_is_withheld_and_others_are_sent() {
    let ws = Workspace::new();
    std::fs::write(ws.path().join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    let server = ModelServer::start();
    settings(
        &ws,
        json!({"pic": bad("image", "unused-marker")}),
        json!({}),
    );
    let mut luxe = start(&ws, &server, &["--yolo"], &[]);
    assert_eq!(settled(&mut luxe)["pic"]["status"], "ready");
    // A PNG's signature and header, then the secret (as in a text chunk), base64.
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let plain = base64(&bytes);
    bytes.extend_from_slice(SECRET.as_bytes());
    let leaky = base64(&bytes);
    for (data, sent) in [(leaky, false), (plain, true)] {
        let input = json!({"text": data});
        let frames = one_call(&server, &mut luxe, "mcp__pic__work", input, "once");
        let output = finished(&frames)["output"].as_str().unwrap().to_owned();
        let requests = server.requests();
        let body = requests.last().unwrap().body.to_string();
        assert!(!body.contains(SECRET) && !body.contains(&base64(SECRET.as_bytes())[..8]));
        assert_eq!(
            body.contains(&format!("\"data\":\"{data}\"")),
            sent,
            "{output}"
        );
        let withheld = "[image 1 withheld: it holds a value of the project's .env]";
        assert_eq!(output.contains(withheld), !sent, "{output}");
    }
    closes_cleanly(luxe);
}

/// Standard padded base64.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |w, (at, b)| w | u32::from(*b) << (16 - 8 * at));
        for at in 0..4 {
            if at <= chunk.len() {
                out.push(ALPHABET[(word >> (18 - 6 * at) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn broken_servers_fail_clearly_the_rest_go_on_and_nothing_outlives_close() {
    let ws = Workspace::new();
    let marker = format!("luxe-mcp-fault-{}", std::process::id());
    let server = ModelServer::start();
    let modes = [
        "good",
        "crash",
        "hang",
        "garbage",
        "huge",
        "no-init",
        "bad-schema",
    ];
    // The two that must time out wait 5 s (the default, a minute, for the rest: seven
    // servers starting at once on a busy machine can take seconds).
    let servers = modes.iter().map(|m| {
        let mut entry = bad(m, &marker);
        if matches!(*m, "hang" | "no-init") {
            entry["timeout"] = json!(5000);
        }
        (m.to_string(), entry)
    });
    settings(&ws, Value::Object(servers.collect()), json!({}));
    let mut luxe = start(&ws, &server, &["--yolo"], &[]);
    let servers = settled(&mut luxe);
    let no_init = &servers["no-init"];
    assert_eq!(no_init["status"], "failed", "{servers}");
    let why = no_init["error"].as_str().unwrap();
    assert!(
        why.contains("did not answer initialize within 5000 ms"),
        "{why}"
    );
    let bad_schema = &servers["bad-schema"];
    assert_eq!(bad_schema["status"], "ready", "{servers}");
    assert_eq!(bad_schema["tools"], 1);
    let note = bad_schema["error"].as_str().unwrap();
    assert!(note.contains("left out the tool \"broken\""), "{note}");
    for mode in ["good", "crash", "hang", "garbage", "huge"] {
        assert_eq!(servers[mode]["status"], "ready", "{servers}");
    }

    for (mode, status, says) in [
        ("crash", "error", "exited with status 3"),
        ("crash", "error", "crashes on purpose"),
        ("hang", "error", "did not answer a tool call within 5000 ms"),
        ("garbage", "error", "not JSON"),
        ("good", "ok", "worked: x"),
    ] {
        let name = format!("mcp__{mode}__work");
        let frames = one_call(&server, &mut luxe, &name, json!({"text": "x"}), "once");
        let done = finished(&frames);
        assert_eq!(done["status"], status, "{mode}: {done}");
        assert!(
            done["output"].as_str().unwrap().contains(says),
            "{mode}: {done}"
        );
        if mode == "crash" {
            // Started again by the next call, after the backoff (a second).
            std::thread::sleep(Duration::from_millis(1100));
        }
    }
    assert!(!offered(&server).iter().any(|t| t.contains("broken")));
    let frames = one_call(
        &server,
        &mut luxe,
        "mcp__huge__work",
        json!({"text": "x"}),
        "once",
    );
    let done = finished(&frames);
    assert_eq!(done["status"], "ok");
    let output = done["output"].as_str().unwrap();
    assert!(
        output.len() < 40_000 && output.contains("xxxx"),
        "{} bytes",
        output.len()
    );

    let statuses = listed(&mut luxe);
    assert_eq!(statuses["good"], "ready");
    assert_eq!(statuses["hang"], "failed");
    assert_eq!(statuses["garbage"], "failed");
    assert!(
        !processes_with(&marker).is_empty(),
        "the servers' grandchildren run"
    );
    closes_cleanly(luxe);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        processes_with(&marker),
        Vec::<u32>::new(),
        "a server's process outlived close"
    );
}

#[test]
fn the_http_transport_calls_streams_progress_and_cancels() {
    let http = HttpServer::everything();
    let ws = Workspace::new();
    let server = ModelServer::start();
    let entry =
        json!({"type": "http", "url": http.url, "headers": {"X-Luxe-Test": "${LUXE_TEST_GIVEN}"}});
    settings(
        &ws,
        json!({"remote": entry}),
        json!({"allow": ["mcp__remote__*"]}),
    );
    let mut luxe = start(&ws, &server, &[], &[("LUXE_TEST_GIVEN", "yes")]);
    everything_is_ready(&mut luxe, "remote", "http");
    // Luxe listens for what the server says outside its answers.
    let listening = "Establishing new SSE stream for session";
    assert!(http.says(listening, patience()), "{:?}", http.said());

    let echo = json!({"message": "over http"});
    let frames = one_call(&server, &mut luxe, "mcp__remote__echo", echo, "once");
    assert_eq!(finished(&frames)["output"], "Echo: over http");

    let frames = interrupted_after_progress(&server, &mut luxe, "remote");
    assert_eq!(finished(&frames)["status"], "interrupted");

    let sum = json!({"a": 40, "b": 2});
    let frames = one_call(&server, &mut luxe, "mcp__remote__get-sum", sum, "once");
    assert!(
        finished(&frames)["output"].as_str().unwrap().contains("42"),
        "{frames:#?}"
    );
    closes_cleanly(luxe);
    // Its session ended with luxe.
    let ended = "Received session termination request for session";
    assert!(http.says(ended, patience()), "{:?}", http.said());
}

/// Luxe with the scripted HTTP server in `mode` as `web`, its tools allowed, ready.
fn with_scripted(mode: &str) -> (HttpServer, Workspace, ModelServer, LuxeProcess) {
    let http = HttpServer::scripted(mode);
    let ws = Workspace::new();
    let server = ModelServer::start();
    let entry = json!({"type": "http", "url": http.url});
    let allow = json!({"allow": ["mcp__web__*"]});
    settings(&ws, json!({"web": entry}), allow);
    let mut luxe = start(&ws, &server, &[], &[]);
    let web = &settled(&mut luxe)["web"];
    assert_eq!(web["status"], "ready", "{web}");
    assert_eq!(web["tools"], 2, "{web}");
    (http, ws, server, luxe)
}

#[test]
fn a_list_change_said_on_the_get_stream_lists_again_and_close_deletes_the_session() {
    let (http, _ws, server, mut luxe) = with_scripted("listen");
    assert!(http.says("GET s-1", patience()), "{:?}", http.said());
    let frames = one_call(&server, &mut luxe, "mcp__web__grow", json!({}), "once");
    assert_eq!(finished(&frames)["status"], "ok");
    // The server said list_changed on the GET stream only: luxe listed again (during the turn
    // or after it).
    let updates = of_kind(&frames, "mcp_servers_updated");
    let servers = match updates.last() {
        Some(update) => update["servers"].clone(),
        None => luxe.until("mcp_servers_updated").last().unwrap()["content"]["servers"].clone(),
    };
    assert_eq!(servers[0]["tools"], 3, "{servers}");
    server.push(Reply::text("ok"));
    turn(&mut luxe, "again", "once");
    assert!(offered(&server).contains(&"mcp__web__grown".to_owned()));
    closes_cleanly(luxe);
    assert!(
        http.said().contains(&"DELETE s-1".to_owned()),
        "{:?}",
        http.said()
    );
}

#[test]
fn a_server_that_offers_no_get_stream_is_ready_without_a_word() {
    let (http, _ws, server, mut luxe) = with_scripted("no-get");
    assert!(http.says("GET s-1", patience()), "{:?}", http.said());
    let frames = one_call(&server, &mut luxe, "mcp__web__work", json!({}), "once");
    assert_eq!(finished(&frames)["status"], "ok");
    let frames = one_call(&server, &mut luxe, "mcp__web__grow", json!({}), "once");
    assert_eq!(finished(&frames)["status"], "ok");
    let servers = listed(&mut luxe);
    assert_eq!(servers["web"], "ready", "{servers}");
    assert!(
        !of_kind(&frames, "mcp_servers_updated")
            .iter()
            .any(|u| u["servers"][0]["error"].is_string()),
        "{frames:#?}"
    );
    let gets = http.said().iter().filter(|l| l.starts_with("GET")).count();
    assert_eq!(gets, 1, "a 405 is not asked again: {:?}", http.said());
    closes_cleanly(luxe);
    assert!(
        http.said().contains(&"DELETE s-1".to_owned()),
        "{:?}",
        http.said()
    );
}

/// The image server-everything's `get-tiny-image` returns, read from its source.
fn tiny_image() -> String {
    let source = luxe_tests::mcp_servers::installed()
        .join("@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js");
    let source = std::fs::read_to_string(source).unwrap();
    let start = source.find("MCP_TINY_IMAGE = \"").unwrap() + "MCP_TINY_IMAGE = \"".len();
    let end = start + source[start..].find('"').unwrap();
    source[start..end].to_owned()
}

/// The image of a tool result as the provider's request carries it, from the last request.
fn image_sent(server: &ModelServer, provider: Provider) -> Value {
    let requests = server.requests();
    let messages = requests.last().unwrap().body["messages"]
        .as_array()
        .unwrap()
        .clone();
    match provider {
        Provider::Anthropic => {
            let results = &messages.last().unwrap()["content"][0];
            assert_eq!(results["type"], "tool_result", "{results}");
            let content = results["content"].as_array().unwrap();
            let text = content[0]["text"].as_str().unwrap();
            assert!(text.contains("[image 1: image/png, "), "{text}");
            assert_eq!(content.len(), 2, "{content:?}");
            content[1].clone()
        }
        Provider::OpenAi => {
            let at = messages.iter().position(|m| m["role"] == "tool").unwrap();
            let note = messages[at]["content"].as_str().unwrap();
            assert!(note.contains("is in the next user message"), "{note}");
            let user = &messages[at + 1];
            assert_eq!(user["role"], "user");
            assert_eq!(at + 2, messages.len(), "the user message ends the request");
            user["content"][1].clone()
        }
    }
}

#[test]
fn an_image_a_tool_returns_reaches_each_provider_as_an_image_and_survives_a_resume() {
    let png = tiny_image();
    for provider in luxe_tests::rig::BOTH {
        let ws = Workspace::new();
        let server = ModelServer::start();
        let allow = json!({"allow": ["mcp__everything__get-tiny-image"]});
        settings(&ws, json!({"everything": everything()}), allow);
        let mut luxe = spawn(&ws, &server, provider, &[], &[]);
        everything_is_ready(&mut luxe, "everything", "stdio");
        let tool = "mcp__everything__get-tiny-image";
        let frames = one_call(&server, &mut luxe, tool, json!({}), "once");
        assert_eq!(finished(&frames)["status"], "ok");
        let expected = match provider {
            Provider::Anthropic => json!({"type": "image", "source": {
                "type": "base64", "media_type": "image/png", "data": png}}),
            Provider::OpenAi => json!({"type": "image_url", "image_url": {
                "url": format!("data:image/png;base64,{png}")}}),
        };
        assert_eq!(image_sent(&server, provider), expected, "{provider:?}");
        closes_cleanly(luxe);

        // The session file keeps the image: a resumed session sends it again.
        let mut luxe = spawn(&ws, &server, provider, &["-c"], &[]);
        server.push(Reply::text("still a logo"));
        turn(&mut luxe, "and now?", "once");
        let requests = server.requests();
        let body = requests.last().unwrap().body.to_string();
        assert!(body.contains("and now?"), "{body}");
        assert!(
            body.contains(&png),
            "{provider:?}: the image is gone after a resume"
        );
        closes_cleanly(luxe);
    }
}

#[test]
fn a_malformed_server_entry_stops_start_up_at_its_place() {
    let ws = Workspace::new();
    let entries = [
        (
            "{\"mcpServers\": {\n  \"s\": {\"command\": \"x\", \"timeout\": \"long\"}}}",
            "2:36: invalid type: string \"long\", expected u64",
        ),
        (
            "{\"mcpServers\": {\n\n  \"s\": {\"command\": \"x\", \"url\": \"http://h\"}}}",
            "3:3: give either \"command\" (stdio) or \"url\" (http), not both",
        ),
        (
            "{\"mcpServers\": {\"s\": {\"type\": \"sse\", \"url\": \"http://h\"}}}",
            "1:31: the \"sse\" transport is deprecated",
        ),
        // Issue #27: at the entry that lacks a command, not at the brace closing `mcpServers`.
        (
            "{\n  \"mcpServers\": {\n    \"x\": {\n      \"args\": [\"a\"]\n    }\n  }\n}\n",
            "3:5: a stdio server needs a non-empty \"command\"",
        ),
    ];
    for (text, says) in entries {
        std::fs::write(ws.path().join("home/settings.json"), text).unwrap();
        let out = ws
            .luxe()
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(out.stdout.is_empty(), "no frame: {text}");
        let says = format!("settings.json:{says}");
        assert!(stderr.contains(&says), "{text}: {stderr}");
    }
}
