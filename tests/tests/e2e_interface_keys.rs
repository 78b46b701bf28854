//! The interface's keys in a real terminal (tmux) against the loopback model server: steering a
//! running turn, queueing behind it and taking a queued message back, interrupting, answering a
//! question with a digit, allowing always with `a`, `@` completing a path, the mouse wheel, and
//! `/new` and `/sessions` switching sessions in place.

use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{Workspace, patience};
use luxe_tests::tmux::{luxe_exited, luxe_in_tmux};
use serde_json::json;

/// The request bodies the model server has seen, as text.
fn bodies(server: &ModelServer) -> Vec<String> {
    (server.requests().iter())
        .map(|r| r.body.to_string())
        .collect()
}

/// The text of the tool result for `call` in a request body (Anthropic's Messages format).
fn tool_result(body: &serde_json::Value, call: &str) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    (messages.iter())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|block| block["tool_use_id"] == call)
        .map(|block| block["content"].to_string())
        .unwrap_or_default()
}

#[test]
fn steer_queue_take_back_and_interrupt_a_running_turn() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    // Turn 1: a command that runs long enough to steer and queue behind it.
    server.push(Reply::tool_call(
        "t1",
        "bash",
        json!({"command": "sleep 3; echo slept"}),
    ));
    server.push(Reply::text("Steered answer."));
    // Turn 2: the queued message that was not taken back.
    server.push(Reply::text("Queue answered."));
    // Turn 3: a command to interrupt.
    server.push(Reply::tool_call(
        "t3",
        "bash",
        json!({"command": "sleep 60"}),
    ));
    let tmux = luxe_in_tmux(&ws, &server, "--auto-approve");
    tmux.wait_for("›", patience());
    tmux.type_text("start a long command");
    tmux.keys(&["Enter"]);
    tmux.wait_for("sleep 3; echo slept", patience());
    tmux.type_text("also mention steering");
    tmux.keys(&["Enter"]);
    tmux.type_text("queued one");
    tmux.keys(&["Tab"]);
    tmux.type_text("queued two");
    tmux.keys(&["Tab"]);
    let screen = tmux.wait_for("queued: queued two", patience());
    assert!(screen.contains("queued: queued one"), "{screen}");
    // Backspace on the empty composer takes the last one back into it.
    tmux.keys(&["BSpace"]);
    let screen = tmux.wait_for("› queued two", patience());
    assert!(!screen.contains("queued: queued two"), "{screen}");
    tmux.keys(&["C-u"]);
    tmux.wait_for("Queue answered.", patience());
    let seen = bodies(&server);
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(
        seen[1].contains("also mention steering"),
        "steered: {}",
        seen[1]
    );
    assert!(
        seen[2].contains("queued one") && !seen[2].contains("queued two"),
        "only the message left in the queue ran: {}",
        seen[2]
    );
    tmux.type_text("run forever");
    tmux.keys(&["Enter"]);
    tmux.wait_for("sleep 60", patience());
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("interrupted", patience());
    assert!(screen.contains("sleep 60"), "{screen}");
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn a_digit_answers_a_question_and_a_allows_always() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let question = json!({
        "question": "Which colour?",
        "options": [{"label": "red"}, {"label": "blue", "description": "the calm one"}],
    });
    server.push(Reply::tool_call("q1", "ask_user", question));
    let several = json!({
        "question": "Which fruits?",
        "options": [{"label": "apple"}, {"label": "banana"}, {"label": "cherry"}],
        "multiple": true,
    });
    server.push(Reply::tool_call("q2", "ask_user", several));
    server.push(Reply::tool_call(
        "b1",
        "bash",
        json!({"command": "echo first-always"}),
    ));
    server.push(Reply::tool_call(
        "b2",
        "bash",
        json!({"command": "echo first-always"}),
    ));
    server.push(Reply::text("All done."));
    let tmux = luxe_in_tmux(&ws, &server, "");
    tmux.wait_for("›", patience());
    tmux.type_text("ask me");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Which colour?", patience());
    assert!(
        screen.contains("1. red") && screen.contains("2. blue — the calm one"),
        "{screen}"
    );
    tmux.keys(&["2"]);
    let screen = tmux.wait_for("Which fruits?", patience());
    assert!(screen.contains("1. [ ] apple"), "{screen}");
    // Down and Space toggle the second; a digit toggles the third; Enter answers both.
    tmux.keys(&["Down", "Space", "3"]);
    let screen = tmux.wait_for("3. [x] cherry", patience());
    assert!(
        screen.contains("2. [x] banana") && screen.contains("1. [ ] apple"),
        "{screen}"
    );
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Allow bash?", patience());
    assert!(screen.contains("[a] always"), "{screen}");
    tmux.keys(&["a"]);
    // The same command again runs without a prompt: the rule `a` added.
    tmux.wait_for("All done.", patience());
    let seen = bodies(&server);
    assert!(seen[1].contains("blue"), "the answer: {}", seen[1]);
    let answered = tool_result(&server.requests()[2].body, "q2");
    assert!(
        answered.contains("banana") && answered.contains("cherry") && !answered.contains("apple"),
        "the answers: {answered}"
    );
    assert_eq!(seen.len(), 5, "no prompt stopped the second call: {seen:?}");
    assert!(seen[4].contains("first-always"), "{}", seen[4]);
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn at_completes_a_path_and_the_wheel_scrolls() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.path().join("src/deep")).expect("a directory");
    std::fs::write(ws.path().join("src/deep/wanted_file.rs"), "fn main() {}\n").expect("a file");
    std::fs::write(ws.path().join("other.txt"), "x\n").expect("a file");
    let server = ModelServer::start();
    let long: String = (1..=60)
        .map(|n| format!("line {n} of a long answer\n"))
        .collect();
    server.push(Reply::text(&long));
    server.push(Reply::text("Read it."));
    let tmux = luxe_in_tmux(&ws, &server, "");
    tmux.wait_for("›", patience());
    tmux.type_text("print a long answer");
    tmux.keys(&["Enter"]);
    tmux.wait_for("line 60 of a long answer", patience());
    // The wheel, as the terminal reports it (SGR: button 64 up, 65 down).
    for _ in 0..5 {
        tmux.type_text("\x1b[<64;10;5M");
    }
    let screen = tmux.wait_for("line 40 of a long answer", patience());
    assert!(
        !screen.contains("line 60 of a long answer"),
        "scrolled up: {screen}"
    );
    tmux.keys(&["End"]);
    tmux.wait_for("line 60 of a long answer", patience());
    tmux.type_text("look at @wanted");
    let screen = tmux.wait_for("@src/deep/wanted_file.rs", patience());
    assert!(!screen.contains("@other.txt"), "{screen}");
    tmux.keys(&["Tab"]);
    tmux.wait_for("› look at @src/deep/wanted_file.rs", patience());
    tmux.keys(&["Enter"]);
    tmux.wait_for("Read it.", patience());
    let seen = bodies(&server);
    assert!(
        seen[1].contains("look at @src/deep/wanted_file.rs"),
        "{}",
        seen[1]
    );
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn new_and_sessions_switch_sessions_in_place() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("The first session's answer."));
    let tmux = luxe_in_tmux(&ws, &server, "");
    tmux.wait_for("›", patience());
    tmux.type_text("the first question");
    tmux.keys(&["Enter"]);
    tmux.wait_for("The first session's answer.", patience());
    tmux.type_text("/new");
    tmux.keys(&["Enter"]);
    tmux.wait_until_gone("The first session's answer.");
    tmux.type_text("/sessions");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Resume a session here", patience());
    assert!(screen.contains("the first question"), "{screen}");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("The first session's answer.", patience());
    assert!(screen.contains("› the first question"), "{screen}");
    assert!(screen.contains("resumed: 1 turn"), "{screen}");
    // A session file that cannot be read is one line; the current session goes on.
    let sessions = ws.path().join("home/sessions");
    for entry in std::fs::read_dir(&sessions).expect("the sessions") {
        std::fs::remove_file(entry.expect("an entry").path()).expect("removed");
    }
    tmux.type_text("/sessions");
    tmux.keys(&["Enter"]);
    tmux.wait_for("no sessions stored", patience());
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}

#[test]
fn up_walks_this_directorys_inputs_from_an_earlier_run() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    server.push(Reply::text("Noted."));
    let tmux = luxe_in_tmux(&ws, &server, "");
    tmux.wait_for("›", patience());
    tmux.type_text("an input worth remembering");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Noted.", patience());
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
    drop(tmux);
    for name in ["before", "after", "exit"] {
        std::fs::remove_file(ws.path().join(name)).expect("removed");
    }
    let again = luxe_in_tmux(&ws, &server, "");
    again.wait_for("›", patience());
    again.keys(&["Up"]);
    again.wait_for("› an input worth remembering", patience());
    again.keys(&["C-u", "C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
    let history = std::fs::read_to_string(ws.path().join("home/history.jsonl")).expect("kept");
    assert_eq!(history.lines().count(), 1, "{history}");
}

#[test]
fn an_edit_waits_with_its_change_numbered_as_in_the_file() {
    let ws = Workspace::new();
    let text: String = (1..=50).map(|n| format!("line {n}\n")).collect();
    std::fs::write(ws.path().join("notes.txt"), &text).expect("a file");
    let server = ModelServer::start();
    let edit = json!({"path": "notes.txt", "old_text": "line 40\n", "new_text": "line forty\n"});
    server.push(Reply::tool_call("e1", "edit", edit));
    server.push(Reply::text("Edited."));
    let tmux = luxe_in_tmux(&ws, &server, "");
    tmux.wait_for("›", patience());
    tmux.type_text("edit line 40");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Allow edit?", patience());
    assert!(screen.contains("40    - line 40"), "{screen}");
    assert!(screen.contains("   40 + line forty"), "{screen}");
    assert!(screen.contains("39 39   line 39"), "context: {screen}");
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("Edited.", patience());
    assert!(
        screen.contains("40 + line forty"),
        "the cell's diff: {screen}"
    );
    let now = std::fs::read_to_string(ws.path().join("notes.txt")).expect("the file");
    assert!(now.contains("line forty\n") && !now.contains("line 40\n"));
    tmux.keys(&["C-d"]);
    assert_eq!(luxe_exited(&ws), "0");
}
