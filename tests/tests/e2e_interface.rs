//! `luxe` in a real terminal (tmux), driven with keys and read from the screen, against the
//! loopback model server: a turn streams, a permission prompt takes `n` and `y`, quitting gives
//! the terminal back exactly (`stty -g` before and after); and the ways in without a terminal:
//! `-p` prints one turn's answer, and a `luxe` whose stdin is not a terminal says where to go.

use std::process::Command;

use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{Workspace, luxe_bin, patience};
use luxe_tests::tmux::{luxe_exited, luxe_in_tmux};
use serde_json::json;

#[test]
fn a_turn_streams_and_quitting_gives_the_terminal_back() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("Hello from the loopback model."));
    let tmux = luxe_in_tmux(&ws, &server, "");
    tmux.wait_for("›", patience());
    tmux.type_text("say hello");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Hello from the loopback model.", patience());
    assert!(screen.contains("› say hello"), "{screen}");
    assert!(
        screen.contains("claude-sonnet-4-5"),
        "the dock names the model: {screen}"
    );
    tmux.resize(60, 15);
    tmux.wait_for("›", patience());
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
    let before = std::fs::read_to_string(ws.path().join("before")).unwrap();
    let after = std::fs::read_to_string(ws.path().join("after")).unwrap();
    assert_eq!(before, after, "the terminal's settings are as they were");
    let request = &server.requests()[0].body;
    assert!(request.to_string().contains("say hello"));
}

#[test]
fn a_permission_prompt_takes_n_then_y() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    for (id, command) in [("t1", "echo refused-run"), ("t2", "echo allowed-run")] {
        server.push(Reply::tool_call(id, "bash", json!({"command": command})));
    }
    server.push(Reply::text("Both asked."));
    let tmux = luxe_in_tmux(&ws, &server, "");
    tmux.wait_for("›", patience());
    tmux.type_text("run two commands");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Allow bash?", patience());
    assert!(screen.contains("echo refused-run"), "{screen}");
    assert!(screen.contains("[y] once"), "{screen}");
    tmux.keys(&["n"]);
    let screen = tmux.wait_for("echo allowed-run", patience());
    assert!(
        screen.contains("Allow bash?"),
        "the second prompt: {screen}"
    );
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("Both asked.", patience());
    assert!(
        screen.contains("denied"),
        "the first call was denied: {screen}"
    );
    let bodies: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(
        bodies.last().is_some_and(|b| b.contains("allowed-run\\n")),
        "the allowed command ran: {bodies:?}"
    );
    tmux.keys(&["C-c"]);
    tmux.keys(&["C-c"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn print_mode_writes_the_answer_and_fails_with_the_reason() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("Forty-two."));
    let run = |flags: &[&str], model: bool| {
        let mut cmd = Command::new(luxe_bin());
        cmd.args(flags)
            .current_dir(ws.path())
            .env("LUXE_HOME", ws.path().join("home"))
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("ANTHROPIC_API_KEY");
        if model {
            cmd.env("ANTHROPIC_API_KEY", "k")
                .env("ANTHROPIC_BASE_URL", server.anthropic_base_url());
        }
        cmd.output().expect("luxe runs")
    };
    let answered = run(&["-p", "what is it?"], true);
    assert_eq!(answered.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&answered.stdout), "Forty-two.\n");
    let failed = run(&["-p", "what is it?"], false);
    assert_eq!(failed.status.code(), Some(1));
    assert!(failed.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("no model is configured"), "{stderr}");
    let refused = run(&["--on-ask", "allow"], false);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("--on-ask is for -p"),
        "not the terminal check: {stderr}"
    );
}

#[test]
fn without_a_terminal_luxe_names_the_other_ways_in() {
    let ws = Workspace::new();
    let out = Command::new(luxe_bin())
        .current_dir(ws.path())
        .env("LUXE_HOME", ws.path().join("home"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("luxe runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for way in ["--rpc", "--acp", "-p"] {
        assert!(stderr.contains(way), "{stderr}");
    }
    assert!(out.stdout.is_empty());
}

#[test]
fn continuing_shows_the_earlier_conversation() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("An answer to remember."));
    let first = Command::new(luxe_bin())
        .args([
            "-p",
            "a question to remember",
            "--model",
            "anthropic/claude-sonnet-4-5",
        ])
        .current_dir(ws.path())
        .env("LUXE_HOME", ws.path().join("home"))
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .output()
        .expect("luxe runs");
    assert_eq!(first.status.code(), Some(0));
    let tmux = luxe_in_tmux(&ws, &server, "-c");
    let screen = tmux.wait_for("An answer to remember.", patience());
    assert!(screen.contains("› a question to remember"), "{screen}");
    assert!(screen.contains("resumed: 1 turn,"), "{screen}");
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn sigterm_and_sighup_give_the_terminal_back() {
    for signal in ["TERM", "HUP"] {
        let ws = Workspace::new();
        let server = ModelServer::start();
        let tmux = luxe_in_tmux(&ws, &server, "");
        tmux.wait_for("›", patience());
        let children = tmux.children();
        let [luxe] = children[..] else {
            panic!("one child of the shell: {children:?}")
        };
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &luxe.to_string()])
            .status()
            .expect("kill runs");
        assert!(killed.success());
        let status = luxe_exited(&ws);
        let before = std::fs::read_to_string(ws.path().join("before")).unwrap();
        let after = std::fs::read_to_string(ws.path().join("after")).unwrap();
        assert_eq!(
            before, after,
            "SIG{signal}: the terminal's settings are as they were"
        );
        assert!(
            !tmux.screen().contains("› "),
            "SIG{signal}: back on the main screen: {}",
            tmux.screen()
        );
        // As under --rpc: the records are written and luxe exits 0.
        assert_eq!(status, "0", "SIG{signal}");
    }
}
