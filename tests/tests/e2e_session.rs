//! The seed's session, end to end against the real binary.

use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::sockets::listening_sockets;

#[test]
fn seed_handshake_ready_first_then_state_then_a_turn_then_close() {
    let ws = Workspace::new();
    let mut luxe = LuxeProcess::spawn(ws.luxe());
    let ready = luxe.expect("ready");
    assert_eq!(ready["protocol_version"], 2);
    assert_eq!(ready["luxe_version"], env!("CARGO_PKG_VERSION"));
    assert!(ready["session_id"].as_str().is_some_and(|s| !s.is_empty()));
    let cwd = std::fs::canonicalize(ws.path()).unwrap();
    assert_eq!(ready["cwd"], cwd.to_string_lossy().as_ref());
    assert_eq!(ready["github_writes"], false);
    assert_eq!(ready["read_only"], false);
    assert_eq!(ready["resumed"], false);

    let state = luxe.expect("state_changed");
    assert_eq!(state["streaming"], false);
    assert_eq!(state["mode"], "build");
    assert_eq!(state["thinking"], "off");
    assert!(
        state["model"].is_null(),
        "no provider variables, no model: {state}"
    );

    luxe.send(r#"{"kind":"submit_user_message","content":{"text":"what does this repo do?"}}"#);
    assert_eq!(luxe.expect("state_changed")["streaming"], true);
    let started = luxe.expect("turn_started");
    assert_eq!(started["source"], "user");
    let usage = luxe.expect("turn_usage");
    assert_eq!(usage["prompt_tokens"], 0);
    let ended = luxe.expect("turn_ended");
    assert_eq!(ended["turn_id"], started["turn_id"]);
    assert_eq!(ended["reason"], "error");
    let error = ended["error"].as_str().unwrap();
    assert!(
        error.contains("ANTHROPIC_API_KEY") && error.contains("OPENAI_BASE_URL"),
        "the error says which variable to set: {error}"
    );
    assert_eq!(luxe.expect("state_changed")["streaming"], false);

    luxe.send(r#"{"kind":"close"}"#);
    luxe.expect_stdout_closed();
    let (status, stderr) = luxe.wait();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

#[test]
fn eof_on_stdin_is_a_close() {
    let ws = Workspace::new();
    let mut luxe = LuxeProcess::spawn(ws.luxe());
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.close_stdin();
    luxe.expect_stdout_closed();
    assert_eq!(luxe.wait().0.code(), Some(0));
}

#[test]
fn a_last_line_without_lf_is_still_answered_at_eof() {
    let ws = Workspace::new();
    let mut luxe = LuxeProcess::spawn(ws.luxe());
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.send_raw(br#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
    luxe.close_stdin();
    assert_eq!(luxe.expect("state_changed")["mode"], "plan");
    assert_eq!(luxe.wait().0.code(), Some(0));
}

#[test]
fn sigterm_exits_cleanly() {
    let ws = Workspace::new();
    let mut luxe = LuxeProcess::spawn(ws.luxe());
    luxe.expect("ready");
    luxe.expect("state_changed");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &luxe.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    luxe.expect_stdout_closed();
    let (status, stderr) = luxe.wait();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn listens_on_nothing() {
    // The probe must see a listener when there is one, or this test proves nothing.
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let own = listening_sockets(std::process::id());
    assert!(
        !own.is_empty(),
        "the socket probe cannot see this test's own listener"
    );
    drop(probe);

    let ws = Workspace::new();
    let mut luxe = LuxeProcess::spawn(ws.luxe());
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.send(r#"{"kind":"submit_user_message","content":{"text":"hi"}}"#);
    for _ in 0..5 {
        luxe.recv();
    }
    assert_eq!(listening_sockets(luxe.pid()), Vec::<String>::new());
}

#[test]
fn logs_never_reach_stdout() {
    let ws = Workspace::new();
    let mut cmd = ws.luxe();
    cmd.env("LUXE_LOG", "trace");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe.send("not json");
    luxe.expect("action_rejected");
    luxe.send(r#"{"kind":"close"}"#);
    // `expect_stdout_closed` fails on any further line, JSON or not.
    luxe.expect_stdout_closed();
    let (status, stderr) = luxe.wait();
    assert_eq!(status.code(), Some(0));
    assert!(
        stderr.contains("LUXE_HOME"),
        "trace logs go to stderr: {stderr}"
    );
}
