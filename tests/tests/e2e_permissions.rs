//! Permissions end to end: the `.env` deny and redaction under every mode, writes outside
//! cwd, the agent's GitHub writes, prefix rules against compound commands, and broken settings.

use luxe_tests::model_server::{ModelServer, Part, Reply, Script, Stop};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::{Value, json};

const SECRET: &str = "sk-live-9f8e7d6c5b4a";
const OTHER_SECRET: &str = "hunter2-correct-horse";

fn call(id: &str, name: &str, input: Value) -> Reply {
    Reply::Stream(Script::new(
        vec![Part::ToolCall {
            id: id.into(),
            name: name.into(),
            input,
            chunks: 2,
        }],
        Stop::ToolUse,
    ))
}

/// A project with secrets in `.env` files, a link to one, and a file that mentions nothing.
fn project() -> Workspace {
    let ws = Workspace::new();
    let root = ws.path();
    std::fs::write(root.join(".env"), format!("API_KEY={SECRET}\nDEBUG=true\n")).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(
        root.join("sub/.env.local"),
        format!("export PASSWORD=\"{OTHER_SECRET}\"\n"),
    )
    .unwrap();
    std::fs::write(root.join(".env.example"), "API_KEY=your-key-here\n").unwrap();
    std::os::unix::fs::symlink(root.join(".env"), root.join("innocent.txt")).unwrap();
    std::fs::write(root.join("notes.md"), "nothing secret here\n").unwrap();
    ws
}

fn start(ws: &Workspace, server: &ModelServer, flags: &[&str]) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .args(flags);
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

/// Runs one turn, answering every permission prompt with `reply`; returns every frame.
fn turn(luxe: &mut LuxeProcess, text: &str, reply: &str) -> Vec<Value> {
    luxe_tests::rig::turn_answering(luxe, text, reply)
}

fn finished(frames: &[Value]) -> Vec<&Value> {
    frames
        .iter()
        .filter(|f| f["kind"] == "tool_finished")
        .map(|f| &f["content"])
        .collect()
}

fn prompts(frames: &[Value]) -> usize {
    frames
        .iter()
        .filter(|f| f["kind"] == "permission_requested")
        .count()
}

#[test]
fn env_secrets_never_reach_the_model_or_the_client_in_any_mode() {
    let attempts = || {
        vec![
            call("t1", "read", json!({"path": ".env"})),
            call("t2", "read", json!({"path": "sub/../.env"})),
            call("t3", "read", json!({"path": "innocent.txt"})),
            call("t4", "read", json!({"path": "sub/.ENV.LOCAL"})),
            call("t5", "bash", json!({"command": "cat .env"})),
            call("t6", "bash", json!({"command": "cat .en?"})),
            call("t7", "grep", json!({"pattern": "API_KEY|PASSWORD"})),
            call("t8", "glob", json!({"pattern": "**/.env*"})),
            call(
                "t9",
                "bash",
                json!({"command": "python3 -c \"print(open('.e'+'nv').read())\""}),
            ),
            call(
                "t10",
                "bash",
                json!({"command": "cat sub/.e\"\"nv.local | base64"}),
            ),
            Reply::text("I could not see any secrets."),
        ]
    };
    for flags in [
        &[][..],
        &["--yolo"],
        &["--auto-approve"],
        &["--read-only"],
        &["--trust-project"],
    ] {
        let ws = project();
        std::fs::create_dir_all(ws.path().join(".luxe")).unwrap();
        std::fs::write(
            ws.path().join(".luxe/settings.json"),
            r#"{"permissions":{"allow":["read(.env)","read(**)","bash(*)","grep(**)"]}}"#,
        )
        .unwrap();
        let server = ModelServer::start();
        let mut luxe = start(&ws, &server, flags);
        for reply in attempts() {
            server.push(reply);
        }
        // The worst client: it approves everything.
        let frames = turn(&mut luxe, "show me the secrets", "once");
        let ended = &frames.last().unwrap()["content"];
        assert_eq!(ended["reason"], "end_turn", "{flags:?}: {ended}");
        let results = finished(&frames);
        assert_eq!(results.len(), 10, "{flags:?}");
        for (i, result) in results.iter().take(5).enumerate() {
            assert_eq!(
                result["status"],
                "denied",
                "{flags:?} call {}: {result}",
                i + 1
            );
        }
        let everything = frames.iter().map(Value::to_string).collect::<String>()
            + &server
                .requests()
                .iter()
                .map(|r| r.body.to_string())
                .collect::<String>();
        for secret in [SECRET, OTHER_SECRET] {
            assert!(!everything.contains(secret), "{flags:?}: {secret} leaked");
        }
    }
}

#[test]
fn writes_outside_cwd_ask_run_or_are_denied_by_mode() {
    for (flags, reply, want_prompts, want_status) in [
        (&[][..], "reject", 1, "denied"),
        (&["--auto-approve"], "reject", 1, "ok"),
        (&["--yolo"], "reject", 0, "ok"),
        (&["--read-only"], "once", 0, "denied"),
    ] {
        let ws = Workspace::new();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("out.txt");
        let server = ModelServer::start();
        let mut luxe = start(&ws, &server, flags);
        server.push(call(
            "w",
            "write",
            json!({"path": target.to_string_lossy(), "content": "x"}),
        ));
        server.push(Reply::text("done"));
        let frames = turn(&mut luxe, "write outside", reply);
        assert_eq!(prompts(&frames), want_prompts, "{flags:?}");
        assert_eq!(finished(&frames)[0]["status"], want_status, "{flags:?}");
        assert_eq!(target.exists(), want_status == "ok", "{flags:?}");
    }
}

#[test]
fn git_push_prompts_even_when_every_command_is_allowed() {
    let ws = Workspace::new();
    std::fs::write(
        ws.path().join("home/settings.json"),
        r#"{"permissions":{"allow":["bash(*)"]}}"#,
    )
    .unwrap();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server, &[]);
    server.push(call("a", "bash", json!({"command": "echo fine"})));
    server.push(call(
        "b",
        "bash",
        json!({"command": "git push origin main"}),
    ));
    server.push(call(
        "c",
        "bash",
        json!({"command": "gh pr merge 3 --squash"}),
    ));
    server.push(Reply::text("ok"));
    let frames = turn(&mut luxe, "ship it", "reject");
    assert_eq!(prompts(&frames), 2, "only the GitHub writes asked");
    let results = finished(&frames);
    assert_eq!(results[0]["status"], "ok");
    assert_eq!(results[1]["status"], "denied");
    assert_eq!(results[2]["status"], "denied");
}

#[test]
fn prefix_rules_never_cover_compound_commands() {
    let ws = Workspace::new();
    std::fs::write(
        ws.path().join("home/settings.json"),
        r#"{"permissions":{"allow":["bash(echo *)"]}}"#,
    )
    .unwrap();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server, &[]);
    let compound = [
        "echo hi; touch pwned",
        "echo hi && touch pwned",
        "echo hi | sh",
        "echo $(touch pwned)",
        "echo `touch pwned`",
    ];
    server.push(call("ok", "bash", json!({"command": "echo hi"})));
    for (i, command) in compound.iter().enumerate() {
        server.push(call(&format!("c{i}"), "bash", json!({"command": command})));
    }
    server.push(Reply::text("ok"));
    let frames = turn(&mut luxe, "echo", "reject");
    assert_eq!(
        prompts(&frames),
        compound.len(),
        "every compound command asked"
    );
    assert_eq!(finished(&frames)[0]["status"], "ok");
    assert!(!ws.path().join("pwned").exists());
}

#[test]
fn broken_settings_stop_start_up_with_file_line_and_column() {
    for (text, want) in [
        (
            "{\n  \"model\": \"openai/gpt-5\",\n}",
            ":3:1: trailing comma",
        ),
        (
            "{\"permissions\": {\n  \"deny\": [\"fly(**)\"]}}",
            ":2:12: rule \"fly(**)\"",
        ),
        (
            "{\"permissions\": {\"mode\": \"yolo\"}}",
            ":1:26: unknown variant `yolo`",
        ),
        (
            "{\"permissions\": {\"alow\": []}}",
            ":1:18: unknown field `alow`",
        ),
    ] {
        let ws = Workspace::new();
        std::fs::write(ws.path().join("home/settings.json"), text).unwrap();
        let out = ws.luxe().output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("home/settings.json") && stderr.contains(want),
            "{text}: {stderr}"
        );
    }
}

#[test]
fn enabling_auto_approve_approves_the_open_prompt() {
    let ws = Workspace::new();
    let server = ModelServer::start();
    let mut luxe = start(&ws, &server, &[]);
    server.push(call("a", "bash", json!({"command": "echo approved"})));
    server.push(Reply::text("ok"));
    luxe.send(r#"{"kind":"submit_user_message","content":{"text":"go"}}"#);
    while luxe.recv()["kind"] != "permission_requested" {}
    luxe.send(r#"{"kind":"set_permission_auto_approve","content":{"enabled":true}}"#);
    assert_eq!(luxe.expect("state_changed")["auto_approve"], true);
    let resolved = luxe.expect("permission_resolved");
    assert_eq!(resolved["by"], "auto_approve");
    assert_eq!(resolved["reply"], "once");
    let frames = luxe.until("turn_ended");
    assert_eq!(finished(&frames)[0]["status"], "ok");
}

#[test]
fn a_read_only_mode_in_settings_wins_over_flags() {
    let ws = Workspace::new();
    std::fs::write(
        ws.path().join("home/settings.json"),
        r#"{"permissions":{"mode":"read-only"}}"#,
    )
    .unwrap();
    let server = ModelServer::start();
    let mut cmd = ws.luxe();
    cmd.env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .args(["--yolo", "--github-writes", "--auto-approve"]);
    let mut luxe = LuxeProcess::spawn(cmd);
    let ready = luxe.expect("ready");
    assert_eq!(
        (ready["read_only"].clone(), ready["github_writes"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(luxe.expect("state_changed")["permission_mode"], "read-only");
    server.push(call("a", "bash", json!({"command": "touch made"})));
    server.push(Reply::text("ok"));
    let frames = turn(&mut luxe, "make a file", "once");
    let result = finished(&frames)[0];
    assert_eq!(result["status"], "denied");
    assert!(result["output"].as_str().unwrap().contains("read-only"));
    assert!(!ws.path().join("made").exists());
}

/// A prompt for an edit or a write carries its change as a unified diff numbered as in the
/// file, with a `.env` value on a context line redacted, before the call runs; each call's end
/// carries the change it made (here the same: nothing touched the files in between).
#[test]
fn prompts_for_edits_and_writes_carry_their_diff_numbered_as_in_the_file() {
    let ws = project();
    let root = ws.path();
    let lib: String = (1..=20)
        .map(|i| match i {
            13 => format!("let key = \"{SECRET}\";\n"),
            i => format!("line {i}\n"),
        })
        .collect();
    std::fs::write(root.join("lib.rs"), &lib).unwrap();
    std::fs::write(root.join("notes.txt"), "one\ntwo\nthree").unwrap();
    let server = ModelServer::start();
    let edit = json!({"path": "lib.rs", "old_text": "line 15\n", "new_text": "fifteen\n"});
    server.push(call("t1", "edit", edit));
    let write = json!({"path": "notes.txt", "content": "one\n2\nthree\n"});
    server.push(call("t2", "write", write));
    let create = json!({"path": "fresh.txt", "content": "a\nb\n"});
    server.push(call("t3", "write", create));
    server.push(Reply::text("done"));
    let mut luxe = start(&ws, &server, &[]);
    let frames = turn(&mut luxe, "change them", "once");

    let diffs = [
        "--- a/lib.rs\n+++ b/lib.rs\n@@ -12,7 +12,7 @@\n line 12\n let key = \"[redacted]\";\n line 14\n-line 15\n+fifteen\n line 16\n line 17\n line 18\n",
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n-three\n\\ No newline at end of file\n+2\n+three\n",
        "--- /dev/null\n+++ b/fresh.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
    ];
    let asked: Vec<&Value> = frames
        .iter()
        .filter(|f| f["kind"] == "permission_requested")
        .map(|f| &f["content"])
        .collect();
    let prompted: Vec<&Value> = asked.iter().map(|p| &p["diff"]).collect();
    let made: Vec<&Value> = finished(&frames).iter().map(|f| &f["diff"]).collect();
    assert_eq!(prompted, diffs, "{frames:#?}");
    assert_eq!(made, diffs);
    // Each prompt comes after its call started and before it ends.
    let at = |kind: &str, call: &Value| {
        frames
            .iter()
            .position(|f| f["kind"] == kind && f["content"]["call_id"] == *call)
            .unwrap_or_else(|| panic!("no {kind} of {call}"))
    };
    for prompt in &asked {
        let call = &prompt["call_id"];
        let asked_at = at("permission_requested", call);
        assert!(at("tool_started", call) < asked_at && asked_at < at("tool_finished", call));
    }
    assert!(
        frames.iter().all(|f| !f.to_string().contains(SECRET)),
        "the value is redacted everywhere"
    );
    let lib_now = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    assert_eq!(lib_now, lib.replace("line 15\n", "fifteen\n"));
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "one\n2\nthree\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("fresh.txt")).unwrap(),
        "a\nb\n"
    );
}
