//! Sessions that last: a turn, close, then `-c` and `--resume` bring the conversation back,
//! to the client and to the model; a crash loses nothing written before it, and a file torn
//! anywhere loses nothing written after the resume.

use std::time::Duration;

use luxe_tests::model_server::{ModelServer, Part, Reply, Script, Stop};
use luxe_tests::process::{LuxeProcess, Workspace};
use luxe_tests::rig::restored_texts;
use serde_json::{Value, json};

/// Luxe with `flags`, against `server`.
fn spawn(ws: &Workspace, server: &ModelServer, flags: &[&str]) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .args(flags);
    LuxeProcess::spawn(cmd)
}

fn start(ws: &Workspace, server: &ModelServer, flags: &[&str]) -> (LuxeProcess, Value) {
    let mut luxe = spawn(ws, server, flags);
    let ready = luxe.expect("ready");
    luxe.expect("state_changed");
    (luxe, ready)
}

fn turn(luxe: &mut LuxeProcess, text: &str) -> Vec<Value> {
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":text}}).to_string());
    let frames = luxe.until("turn_ended");
    luxe.expect("state_changed");
    frames
}

fn close(mut luxe: LuxeProcess) {
    luxe.send(r#"{"kind":"close"}"#);
    assert_eq!(luxe.wait().0.code(), Some(0));
}

#[test]
fn continue_and_resume_bring_the_conversation_back() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (mut luxe, ready) = start(&ws, &server, &[]);
    assert_eq!(ready["resumed"], false);
    let id = ready["session_id"].as_str().unwrap().to_owned();
    server.push(Reply::text("The answer is 42."));
    turn(&mut luxe, "what is the answer?");
    luxe.send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
    luxe.expect("state_changed");
    close(luxe);

    for flags in [vec!["-c"], vec!["--resume", id.as_str()]] {
        let mut luxe = spawn(&ws, &server, &flags);
        let ready = luxe.expect("ready");
        assert_eq!(ready["resumed"], true, "{flags:?}");
        assert_eq!(ready["session_id"], id.as_str());
        assert_eq!(
            luxe.expect("state_changed")["mode"],
            "plan",
            "the mode comes back"
        );
        let restored = luxe.expect("session_restored");
        assert_eq!(restored["session_id"], id.as_str());
        let messages = restored["messages"].as_array().unwrap();
        assert_eq!(messages[0]["text"], "what is the answer?");
        assert_eq!(messages[1]["role"], "assistant");
        assert!(messages[1]["text"].as_str().unwrap().contains("42"));
        assert!(restored["turns"].as_u64().unwrap() >= 1);
        server.push(Reply::text("Still 42."));
        let frames = turn(&mut luxe, "and again?");
        assert_eq!(frames.last().unwrap()["content"]["reason"], "end_turn");
        let request = server.requests().last().unwrap().body.to_string();
        assert!(
            request.contains("what is the answer?") && request.contains("The answer is 42."),
            "the restored context reaches the model"
        );
        close(luxe);
    }
}

#[test]
fn unknown_ids_and_nothing_to_continue_exit_2() {
    let ws = Workspace::new();
    for (args, want) in [
        (&["--resume", "nope"][..], "no session nope"),
        (&["-c"], "no session to continue"),
        (&["--resume", "../../etc/passwd"], "is not a session id"),
    ] {
        let out = ws.luxe().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

#[test]
fn a_crash_mid_stream_loses_nothing_written_before_it() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (mut luxe, ready) = start(&ws, &server, &[]);
    let id = ready["session_id"].as_str().unwrap().to_owned();
    server.push(Reply::text("first answer"));
    turn(&mut luxe, "first question");
    server.push(Reply::Stream(
        Script::new(vec![Part::Text(vec!["slow ".into(); 100])], Stop::EndTurn)
            .with_delay(Duration::from_millis(50)),
    ));
    luxe.send(r#"{"kind":"submit_user_message","content":{"text":"second question"}}"#);
    while luxe.recv()["kind"] != "token_delta" {}
    luxe.kill_hard();

    // Garbage after the crash, as a torn write would leave.
    let file = ws.path().join("home/sessions").join(format!("{id}.jsonl"));
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"{\"type\":\"message\",\"mess");
    std::fs::write(&file, &bytes).unwrap();

    let mut luxe = spawn(&ws, &server, &["--resume", &id]);
    assert_eq!(luxe.expect("ready")["resumed"], true);
    luxe.expect("state_changed");
    let restored = luxe.expect("session_restored");
    let texts = restored_texts(&restored);
    assert_eq!(
        texts[..3],
        ["first question", "first answer", "second question"]
    );
    server.push(Reply::text("recovered"));
    let frames = turn(&mut luxe, "are you there?");
    assert_eq!(frames.last().unwrap()["content"]["reason"], "end_turn");
    luxe.send(r#"{"kind":"close"}"#);
    let (status, stderr) = luxe.wait();
    assert_eq!(status.code(), Some(0));
    assert!(
        stderr.contains("warning: session file: skipped line"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn a_file_from_a_newer_format_is_refused() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.path().join("home/sessions")).unwrap();
    std::fs::write(
        ws.path().join("home/sessions/future.jsonl"),
        "{\"type\":\"session\",\"version\":99,\"id\":\"future\",\"cwd\":\"/x\",\"created\":\"2030-01-01\"}\n",
    )
    .unwrap();
    let out = ws.luxe().args(["--resume", "future"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("newer luxe"));
}

#[test]
fn list_sessions_shows_this_directorys_sessions_newest_first() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let mut ids = Vec::new();
    for question in ["first topic", "second topic"] {
        let (mut luxe, ready) = start(&ws, &server, &[]);
        ids.push(ready["session_id"].as_str().unwrap().to_owned());
        server.push(Reply::text("noted"));
        turn(&mut luxe, question);
        close(luxe);
        // Sessions are ordered by their last write, in whole seconds.
        std::thread::sleep(Duration::from_millis(1100));
    }
    // A session of another directory is not listed.
    let elsewhere = ws.path().join("home/sessions/other.jsonl");
    std::fs::write(
        &elsewhere,
        "{\"type\":\"session\",\"version\":1,\"id\":\"other\",\"cwd\":\"/elsewhere\",\"created\":\"2026-01-01\"}\n",
    )
    .unwrap();
    let (mut luxe, _) = start(&ws, &server, &[]);
    luxe.send(r#"{"kind":"list_sessions","content":{"request_id":"l1"}}"#);
    let listed = luxe.expect("sessions_listed");
    assert_eq!(listed["request_id"], "l1");
    let sessions = listed["sessions"].as_array().unwrap();
    let titles: Vec<&str> = sessions
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["second topic", "first topic"]);
    assert_eq!(sessions[0]["id"], ids[1].as_str());
    assert_eq!(sessions[0]["turns"], 1);
    assert!(sessions[0]["updated"].as_u64().unwrap() >= sessions[1]["updated"].as_u64().unwrap());
}

#[test]
fn a_crash_during_a_tool_run_resumes_into_a_well_formed_conversation() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (mut luxe, ready) = start(&ws, &server, &["--yolo"]);
    let id = ready["session_id"].as_str().unwrap().to_owned();
    server.push(Reply::tool_call(
        "toolu_sleep",
        "bash",
        json!({"command": "sleep 30"}),
    ));
    luxe.send(r#"{"kind":"submit_user_message","content":{"text":"wait a while"}}"#);
    while luxe.recv()["kind"] != "tool_started" {}
    luxe.kill_hard();

    let (mut luxe, _) = start(&ws, &server, &["--resume", &id]);
    let restored = luxe.expect("session_restored");
    let messages = restored["messages"].as_array().unwrap();
    assert_eq!(messages[1]["tool_calls"][0]["id"], "toolu_sleep");
    assert_eq!(messages[2]["tool_results"][0]["tool_use_id"], "toolu_sleep");
    server.push(Reply::text("back again"));
    let frames = turn(&mut luxe, "where were we?");
    assert_eq!(frames.last().unwrap()["content"]["reason"], "end_turn");
    let requests = server.requests();
    let request = &requests.last().unwrap().body;
    let roles: Vec<&str> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    // The crashed turn's conversation is closed with a note: roles alternate.
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    close(luxe);
}

/// What a resume must bring back of a session file cut at some offset: the messages (role and
/// text), the turns ended, and the mode last recorded.
#[derive(Debug, PartialEq)]
struct Kept {
    messages: Vec<(String, String)>,
    turns: u64,
    mode: String,
}

/// The records of `file` that are whole within its first `cut` bytes (a record cut just before
/// its line feed is whole), read independently of luxe.
fn kept_records(file: &[u8], cut: usize) -> Kept {
    let mut kept = Kept {
        messages: Vec::new(),
        turns: 0,
        mode: "build".into(),
    };
    let mut start = 0;
    for line in file.split(|b| *b == b'\n') {
        let end = start + line.len();
        if end > cut {
            break;
        }
        start = end + 1;
        let Ok(record) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        match record["type"].as_str() {
            Some("message") => {
                let message = &record["message"];
                let text: Vec<&str> = message["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect();
                kept.messages.push((
                    message["role"].as_str().unwrap().to_owned(),
                    text.join("\n"),
                ));
            }
            Some("settings") => kept.mode = record["mode"].as_str().unwrap().to_owned(),
            Some("turn_ended") => kept.turns += 1,
            _ => {}
        }
    }
    kept
}

/// What `session_restored` (after `ready` and `state_changed`) says came back.
fn kept_of(state: &Value, restored: &Value) -> Kept {
    Kept {
        messages: restored["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap().to_owned(),
                    m["text"].as_str().unwrap().to_owned(),
                )
            })
            .collect(),
        turns: restored["turns"].as_u64().unwrap(),
        mode: state["mode"].as_str().unwrap().to_owned(),
    }
}

/// Resumes session `id` and closes at once: what came back, or why luxe would not resume it.
fn resume_and_close(ws: &Workspace, id: &str) -> Result<Kept, String> {
    let mut child = ws
        .luxe()
        .args(["--resume", id])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, b"{\"kind\":\"close\"}\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let frames: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    match &frames[..] {
        [ready, state, restored, ..] if restored["kind"] == "session_restored" => {
            assert_eq!(ready["content"]["resumed"], true);
            Ok(kept_of(&state["content"], &restored["content"]))
        }
        _ => Err(format!(
            "no session_restored (exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// A real session file cut at every offset of its last two records and at every fourth before
/// them, resumed, one more turn, resumed again: everything whole before the cut and the whole
/// new turn come back.
#[test]
fn a_torn_tail_swallows_nothing_written_after_the_resume() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (mut luxe, ready) = start(&ws, &server, &[]);
    let id = ready["session_id"].as_str().unwrap().to_owned();
    server.push(Reply::text("first answer"));
    turn(&mut luxe, "first question");
    luxe.send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
    luxe.expect("state_changed");
    server.push(Reply::text("second answer"));
    turn(&mut luxe, "second question");
    close(luxe);
    let path = ws.path().join("home/sessions").join(format!("{id}.jsonl"));
    let file = std::fs::read(&path).unwrap();
    assert!(
        !file.windows(2).any(|w| w == b"\n\n"),
        "a session written without trouble has no blank line"
    );

    // Every offset of the last two records, and a sample of the rest after the header: a crash
    // can tear the file anywhere.
    let ends: Vec<usize> = file
        .iter()
        .enumerate()
        .filter_map(|(at, b)| (*b == b'\n').then_some(at))
        .collect();
    let header_end = ends[0];
    let last_two = ends[ends.len() - 3] + 1;
    let cuts = (header_end..last_two)
        .step_by(4)
        .chain(last_two..=file.len());
    let (mut lost, mut tried) = (Vec::new(), 0);
    for cut in cuts {
        tried += 1;
        std::fs::write(&path, &file[..cut]).unwrap();
        let before = kept_records(&file, cut);
        let mut luxe = spawn(&ws, &server, &["--resume", &id]);
        luxe.expect("ready");
        let state = luxe.expect("state_changed");
        let restored = luxe.expect("session_restored");
        assert_eq!(
            kept_of(&state, &restored),
            before,
            "resumed after a cut at {cut}"
        );
        server.push(Reply::text("answer after the tear"));
        turn(&mut luxe, "question after the tear");
        close(luxe);
        let written = std::fs::read(&path).unwrap();
        assert!(
            written.starts_with(&file[..cut]),
            "the torn bytes stay where they were"
        );

        let mut want = before;
        if want.messages.last().is_some_and(|(role, _)| role == "user") {
            // A conversation cut after an unanswered message is closed before the next one,
            // so that roles alternate.
            want.messages.push((
                "assistant".to_owned(),
                "[The turn ended without an answer: the session ended first.]".to_owned(),
            ));
        }
        want.messages.extend([
            ("user".to_owned(), "question after the tear".to_owned()),
            ("assistant".to_owned(), "answer after the tear".to_owned()),
        ]);
        want.turns += 1;
        let again = resume_and_close(&ws, &id);
        if again.as_ref() != Ok(&want) {
            lost.push(format!("cut at {cut}: want {want:?}, got {again:?}"));
        }
    }
    assert!(
        lost.is_empty(),
        "{} of {tried} cuts of a {}-byte file lost records; the first:\n{}",
        lost.len(),
        file.len(),
        lost[0]
    );
}

/// The id `ready` gave is a session from the start: with nothing said it resumes with its
/// settings, and `-c` (the last conversation) and `list_sessions` pass it by.
#[test]
fn a_session_with_no_turn_can_be_resumed_by_its_id() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let (mut luxe, ready) = start(&ws, &server, &[]);
    let id = ready["session_id"].as_str().unwrap().to_owned();
    luxe.send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
    assert_eq!(luxe.expect("state_changed")["mode"], "plan");
    close(luxe);

    let (mut luxe, ready) = start(&ws, &server, &["--resume", &id]);
    assert_eq!(ready["session_id"], id.as_str());
    assert_eq!(ready["resumed"], true);
    let restored = luxe.expect("session_restored");
    assert_eq!(restored["messages"], json!([]));
    luxe.send(r#"{"kind":"list_sessions","content":{"request_id":"l"}}"#);
    let listed = luxe.expect("sessions_listed");
    assert_eq!(listed["sessions"], json!([]), "nothing said: not listed");
    close(luxe);
    let mut luxe = spawn(&ws, &server, &["--resume", &id]);
    luxe.expect("ready");
    assert_eq!(
        luxe.expect("state_changed")["mode"],
        "plan",
        "its mode came back"
    );
    close(luxe);

    let out = ws.luxe().arg("-c").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "nothing to continue");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no session to continue"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
