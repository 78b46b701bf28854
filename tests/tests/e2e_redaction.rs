//! The redaction gate end to end: each way a `.env` value got past redaction, with the attack's
//! exact input, against the real binary and the loopback model. A test reads everything the
//! client was sent (the transcript) and every request body the model got.

use luxe_tests::fake_gh::{FakeGh, example_state};
use luxe_tests::git_repo::{bare_origin, git, init_repo, write};
use luxe_tests::model_server::{ModelServer, Part, Reply, Script, Stop};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::{Value, json};

const SECRET: &str = "sk-live-9f8e7d6c5b4a";
const MARKER: &str = "[redacted]";

/// A `printf` that prints `text` without the command naming it (every byte in octal), as a
/// program that read the value would print it.
fn printf(text: &str) -> String {
    let octal: String = text.bytes().map(|b| format!("\\{b:03o}")).collect();
    format!("printf '{octal}\\n'")
}

fn start(ws: &Workspace, server: &ModelServer) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .arg("--yolo");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

/// Runs one turn; returns its frames.
fn turn(luxe: &mut LuxeProcess, text: &str) -> Vec<Value> {
    luxe.send(&json!({"kind":"submit_user_message","content":{"text":text}}).to_string());
    let frames = luxe.until("turn_ended");
    assert_eq!(frames.last().unwrap()["content"]["reason"], "end_turn");
    frames
}

/// Everything the client was sent and the model was asked, as text.
fn everything(luxe: &LuxeProcess, server: &ModelServer) -> String {
    let mut all = luxe.transcript().join("\n");
    for request in server.requests() {
        all.push_str(&request.body.to_string());
    }
    all
}

/// The `output` of the turn's `tool_finished` frames, and its streamed deltas, as the client
/// shows them.
fn tool_text(frames: &[Value]) -> String {
    frames
        .iter()
        .filter_map(|f| match f["kind"].as_str() {
            Some("tool_finished") => f["content"]["output"].as_str(),
            Some("tool_output_delta") => f["content"]["chunk"].as_str(),
            _ => None,
        })
        .collect()
}

/// A workspace whose `.env` is `env` (bytes as given), luxe started there, the model set to run
/// `command` with bash and then answer; returns what the turn showed and everything.
fn print_env_value(env: &[u8], command: &str) -> (String, String) {
    let ws = Workspace::new();
    std::fs::write(ws.path().join(".env"), env).unwrap();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server);
    server.push(Reply::tool_call("t1", "bash", json!({"command": command})));
    server.push(Reply::text("Done."));
    let frames = turn(&mut luxe, "print it");
    (tool_text(&frames), everything(&luxe, &server))
}

#[test]
fn a_value_in_a_dotenv_file_that_starts_with_a_byte_order_mark() {
    let env = [
        b"\xEF\xBB\xBF".as_slice(),
        format!("API_KEY={SECRET}\n").as_bytes(),
    ]
    .concat();
    let (shown, all) = print_env_value(&env, &printf(SECRET));
    assert!(shown.contains(MARKER), "{shown}");
    assert!(!all.contains(SECRET), "the value leaked");
}

#[test]
fn a_value_on_a_key_colon_value_line() {
    let env = format!("API_KEY: {SECRET}\n");
    let (shown, all) = print_env_value(env.as_bytes(), &printf(SECRET));
    assert!(shown.contains(MARKER), "{shown}");
    assert!(!all.contains(SECRET), "the value leaked");
}

#[test]
fn a_value_after_the_first_mebibyte_of_the_file() {
    let mut env = format!("PADDING=\"{}\"\n", "x".repeat(1024 * 1024));
    env.push_str(&format!("API_KEY={SECRET}\n"));
    let (shown, all) = print_env_value(env.as_bytes(), &printf(SECRET));
    assert!(shown.contains(MARKER), "{shown}");
    assert!(!all.contains(SECRET), "the value leaked");
}

#[test]
fn a_quoted_value_with_inner_spaces_printed_trimmed() {
    let env = "PASSPHRASE=\"  correct horse battery staple  \"\n";
    let (shown, all) = print_env_value(env.as_bytes(), &printf("correct horse battery staple"));
    assert!(shown.contains(MARKER), "{shown}");
    assert!(
        !all.contains("correct horse battery staple"),
        "the value leaked"
    );
}

#[test]
fn a_non_ascii_value_split_inside_a_character_across_two_chunks() {
    let value = "pässwört-ünïcode-42";
    let env = format!("PASSWORD={value}\n");
    // The first chunk ends inside "ä" (0xC3 0xA4); the pause makes the second a chunk of its own.
    let bytes = value.as_bytes();
    let octal = |bytes: &[u8]| {
        bytes
            .iter()
            .map(|b| format!("\\{b:03o}"))
            .collect::<String>()
    };
    let command = format!(
        "printf 'out {}'; sleep 0.3; printf '{} done\\n'",
        octal(&bytes[..2]),
        octal(&bytes[2..])
    );
    let (shown, all) = print_env_value(env.as_bytes(), &command);
    assert!(shown.contains(MARKER), "{shown}");
    // Decoded before redaction, the value passed with U+FFFD in place of its "ä".
    assert!(
        !all.contains("sswört-ünïcode-42"),
        "the value leaked: {shown}"
    );
}

#[test]
fn the_read_tools_line_cut_does_not_show_the_start_of_a_value() {
    let ws = Workspace::new();
    std::fs::write(ws.path().join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    // The value starts 5 characters before the 2,000-character cut.
    let line = format!("{}{SECRET} and more\n", "x".repeat(1995));
    std::fs::write(ws.path().join("long.txt"), line).unwrap();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server);
    server.push(Reply::tool_call("t1", "read", json!({"path": "long.txt"})));
    server.push(Reply::text("Done."));
    let frames = turn(&mut luxe, "read it");
    let shown = tool_text(&frames);
    assert!(shown.contains("[line cut]"), "{shown}");
    assert!(
        !everything(&luxe, &server).contains(&format!("x{}", &SECRET[..5])),
        "the start of the value leaked: {shown}"
    );
}

#[test]
fn a_value_the_model_streams_across_two_deltas() {
    let ws = Workspace::new();
    std::fs::write(ws.path().join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server);
    let (head, tail) = SECRET.split_at(7);
    server.push(Reply::Stream(Script::new(
        vec![Part::Text(vec![
            format!("the key is {head}"),
            format!("{tail}, as you asked"),
        ])],
        Stop::EndTurn,
    )));
    server.push(Reply::text("Again."));
    let frames = turn(&mut luxe, "guess the key");
    let shown: String = frames
        .iter()
        .filter(|f| f["kind"] == "token_delta")
        .map(|f| f["content"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(shown, "the key is [redacted], as you asked");
    // The answer the model gets back in the next request is redacted too.
    turn(&mut luxe, "again");
    assert!(
        !everything(&luxe, &server).contains(SECRET),
        "the value leaked"
    );
}

/// A repository whose committed `.env` and `config.js` both change to hold [`SECRET`].
fn repository_with_a_changed_env() -> Workspace {
    let ws = Workspace::new();
    init_repo(
        ws.path(),
        &[
            (".env", "API_KEY=old-value-1234567\n"),
            ("config.js", "const key = process.env.API_KEY;\n"),
        ],
    );
    write(ws.path(), ".env", &format!("API_KEY={SECRET}\n"));
    write(
        ws.path(),
        "config.js",
        &format!("const key = process.env.API_KEY || \"{SECRET}\";\n"),
    );
    ws
}

/// Loads the review of `target`; returns the review.
fn load(luxe: &mut LuxeProcess, target: Value) -> Value {
    let content = json!({"request_id": "load", "target": target});
    luxe.send(&json!({"kind": "load_guided_review", "content": content}).to_string());
    let loaded = luxe.expect("guided_review_loaded");
    luxe.expect("review_session_restored");
    loaded["review"].clone()
}

/// Asserts that `review` shows `.env` as changed with its contents withheld, and `config.js`
/// with the value redacted.
fn assert_withheld(review: &Value) {
    let files = review["files"].as_array().unwrap();
    let env = files
        .iter()
        .find(|f| f["path"] == ".env")
        .expect("{review}");
    assert_eq!(env["withheld"], true, "{env}");
    assert_eq!(
        (env["additions"].as_u64(), env["deletions"].as_u64()),
        (Some(0), Some(0))
    );
    let hunks: Vec<&Value> = review["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["file_id"] == env["id"])
        .collect();
    assert_eq!(hunks.len(), 1, "{review}");
    assert_eq!(hunks[0]["lines"], json!([]));
    assert_eq!(
        hunks[0]["header"],
        "contents withheld: .env files hold secrets"
    );
    let config = review.to_string();
    assert!(
        config.contains(&format!("API_KEY || \\\"{MARKER}\\\"")),
        "{config}"
    );
    assert!(!config.contains("API_KEY="), "{config}");
}

#[test]
fn a_review_withholds_a_changed_env_file_in_every_local_target() {
    let ws = repository_with_a_changed_env();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server);
    assert_withheld(&load(&mut luxe, json!({"kind": "working_tree"})));
    git(ws.path(), &["add", "-A"]);
    assert_withheld(&load(&mut luxe, json!({"kind": "staged"})));
    git(ws.path(), &["commit", "--quiet", "-m", "rotate the key"]);
    let commits = json!({"kind": "commits", "from": "HEAD~1", "to": "HEAD"});
    assert_withheld(&load(&mut luxe, commits));
    git(ws.path(), &["checkout", "--quiet", "-b", "feature", "HEAD"]);
    git(ws.path(), &["branch", "--quiet", "-f", "main", "HEAD~1"]);
    assert_withheld(&load(&mut luxe, json!({"kind": "branch", "base": "main"})));
    assert!(
        !everything(&luxe, &server).contains(SECRET),
        "the value leaked"
    );
}

#[test]
fn an_agent_review_sends_neither_the_env_file_nor_the_value() {
    let ws = repository_with_a_changed_env();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server);
    let review = load(&mut luxe, json!({"kind": "working_tree"}));
    server.push(Reply::text("Reviewed."));
    let content = json!({"request_id": "ar", "review_id": review["id"]});
    luxe.send(&json!({"kind": "request_agent_review", "content": content}).to_string());
    luxe.until("turn_ended");
    let sent: String = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(
        sent.contains("config.js"),
        "the review reached the model: {sent}"
    );
    assert!(
        !sent.contains("API_KEY="),
        "the .env lines reached the model"
    );
    assert!(
        !sent.contains("old-value-1234567"),
        "the old value reached the model"
    );
    assert!(
        !everything(&luxe, &server).contains(SECRET),
        "the value leaked"
    );
}

#[test]
fn a_branch_named_after_a_value() {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("README.md", "# x\n")]);
    std::fs::write(ws.path().join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    git(ws.path(), &["checkout", "--quiet", "-b", SECRET]);
    // No gh: the dock still says which branch this is.
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(luxe_tests::git_repo::real_git(), bin.path().join("git")).unwrap();
    let mut cmd = ws.luxe();
    cmd.env("PATH", bin.path());
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.watch_workspace();
    luxe.expect("ready");
    luxe.expect("state_changed");
    let dock = luxe.expect("workspace_updated");
    assert_eq!(dock["branch"], MARKER);
    assert!(
        !luxe.transcript().join("\n").contains(SECRET),
        "the value leaked"
    );
}

#[test]
fn a_pull_request_review_withholds_its_env_file() {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("src/frob.rs", "fn frob() {}\n")]);
    let _origin = bare_origin(ws.path());
    git(ws.path(), &["checkout", "--quiet", "-b", "frobs"]);
    std::fs::write(ws.path().join(".env"), format!("API_KEY={SECRET}\n")).unwrap();
    let mut state = example_state();
    state["diffs"]["7"] = json!(format!(
        "diff --git a/.env b/.env\nindex 1..2 100644\n--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-API_KEY=old-value-1234567\n+API_KEY={SECRET}\ndiff --git a/config.js b/config.js\nindex 3..4 100644\n--- a/config.js\n+++ b/config.js\n@@ -1 +1 @@\n-const key = process.env.API_KEY;\n+const key = process.env.API_KEY || \"{SECRET}\";\n"
    ));
    let fake = FakeGh::new(&state);
    let mut cmd = ws.luxe();
    cmd.envs(fake.envs());
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    assert_withheld(&load(
        &mut luxe,
        json!({"kind": "pull_request", "number": 7}),
    ));
    assert!(
        !luxe.transcript().join("\n").contains(SECRET),
        "the value leaked"
    );
}
