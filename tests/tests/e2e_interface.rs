//! `luxe` in a real terminal (tmux), driven with keys and read from the screen, against the
//! loopback model server: a turn streams, a permission prompt takes `n` and `y`, quitting gives
//! the terminal back exactly (`stty -g` before and after); and the ways in without a terminal:
//! `-p` prints one turn's answer, and a `luxe` whose stdin is not a terminal says where to go.
//! Ctrl+Z and `fg` bring the whole screen back; a panic gives the terminal back before its
//! message.

use std::process::Command;

use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{Workspace, luxe_bin, patience};
use luxe_tests::tmux::{Tmux, luxe_exited, luxe_in_tmux};
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

#[test]
fn ctrl_z_then_fg_draws_the_whole_screen_again() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    // An interactive shell, so Ctrl+Z stops a job and `fg` continues it.
    let tmux = Tmux::start(ws.path(), "exec bash --norc --noprofile -i", 80, 24);
    tmux.wait_for("bash-", patience());
    tmux.type_text(&format!(
        "LUXE_HOME={home} ANTHROPIC_API_KEY=k ANTHROPIC_BASE_URL={url} {bin} \
         --model anthropic/claude-sonnet-4-5",
        home = ws.path().join("home").display(),
        url = server.anthropic_base_url(),
        bin = luxe_bin().display(),
    ));
    tmux.keys(&["Enter"]);
    // The dock (the command line typed above names the model too, but not the mode).
    tmux.wait_for("· build", patience());
    tmux.type_text("typed before");
    tmux.wait_for("› typed before", patience());
    tmux.keys(&["C-z"]);
    let stopped = tmux.wait_for("Stopped", patience());
    assert!(
        !stopped.contains("› typed before"),
        "the main screen: {stopped}"
    );
    tmux.type_text("fg");
    tmux.keys(&["Enter"]);
    // The whole screen, not only what changes after: the composer's text and the dock.
    let back = tmux.wait_for("› typed before", patience());
    assert!(back.contains("· build"), "the dock too: {back}");
    // And it still takes keys.
    tmux.type_text("!");
    tmux.wait_for("› typed before!", patience());
    tmux.keys(&["C-u"]);
    tmux.keys(&["C-d"]);
    let deadline = std::time::Instant::now() + patience();
    while !tmux.children().is_empty() {
        assert!(std::time::Instant::now() < deadline, "luxe did not quit");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The environment variable that makes this test's binary the panicking interface.
const PANICKING_CHILD: &str = "LUXE_TEST_PANICKING_INTERFACE";

#[test]
fn a_panic_gives_the_terminal_back_before_its_message() {
    if std::env::var_os(PANICKING_CHILD).is_some() {
        // The child: the interface's shell with an interface that panics as it is made, after
        // the terminal was taken (raw mode, the alternate screen).
        luxe_io::run_interface(
            |_, _| panic!("a planted panic"),
            |_| Err("no sessions here".into()),
            None,
        );
        return;
    }
    let ws = Workspace::new();
    let exe = std::env::current_exe().expect("the test knows its own path");
    let script = format!(
        "stty -g > before; RUST_BACKTRACE=0 {PANICKING_CHILD}=1 {exe} --exact \
         a_panic_gives_the_terminal_back_before_its_message --nocapture --test-threads 1; \
         echo $? > exit; stty -g > after",
        exe = exe.display(),
    );
    let tmux = Tmux::start(ws.path(), &script, 80, 24);
    let status = luxe_exited(&ws);
    assert_ne!(status, "0", "the panic fails the run");
    let before = std::fs::read_to_string(ws.path().join("before")).unwrap();
    let after = std::fs::read_to_string(ws.path().join("after")).unwrap();
    assert_eq!(before, after, "the terminal's settings are as they were");
    // The message is on the main screen, where it stays readable after the exit.
    tmux.wait_for("a planted panic", patience());
}
