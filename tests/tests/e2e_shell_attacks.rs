//! The attack corpus (`core/src/permissions/attacks.txt`) end to end: every command the
//! corpus denies or asks about is sent by the loopback model, in every mode (default,
//! accept-edits, plan, bypass, read-only), to the real binary with real bash, git and a fake
//! gh, by a client that rejects every prompt. Nothing may run: `v` stays, the bare origin gets
//! no push, git's config gets no alias, the fake gh logs no call, and neither `secrets/k` nor
//! `.env` reaches the model or the client.

use luxe_core::permissions::corpus::{Expect, sections};
use luxe_tests::fake_gh::{FakeGh, example_state};
use luxe_tests::git_repo::{git, init_repo, write};
use luxe_tests::model_server::{ModelServer, Part, Reply, Script, Stop};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::{Value, json};

const SECRET: &str = "k3y-9f8e7d6c5b4a-secret";
const ENV_SECRET: &str = "sk-live-5b4a3c2d1e0f";

fn call(id: &str, name: &str, input: Value) -> Reply {
    Reply::Stream(Script::new(
        vec![Part::ToolCall {
            id: id.into(),
            name: name.into(),
            input,
            chunks: 1,
        }],
        Stop::ToolUse,
    ))
}

/// A repository one commit ahead of its bare `origin` (`remote.git`, inside the workspace),
/// with `v`, `secrets/k` and `.env`, and the corpus's rules in the user's settings.
fn project() -> Workspace {
    let ws = Workspace::new();
    let root = ws.path();
    init_repo(
        root,
        &[
            ("README.md", "hello\n"),
            ("v", "keep me\n"),
            ("secrets/k", &format!("KEY={SECRET}\n")),
        ],
    );
    std::fs::write(root.join(".env"), format!("API_KEY={ENV_SECRET}\n")).unwrap();
    write(root, ".gitignore", "home/\nremote.git/\n.env\n");
    git(
        root,
        &["init", "--quiet", "--bare", "-b", "main", "remote.git"],
    );
    git(root, &["remote", "add", "origin", "remote.git"]);
    git(root, &["push", "--quiet", "-u", "origin", "main"]);
    git(root, &["commit", "--quiet", "-am", "ahead of origin"]);
    std::fs::write(
        root.join("home/settings.json"),
        r#"{"permissions":{"deny":["bash(rm *)","read(secrets/**)"],"allow":["bash(git *)","bash(gh *)"]}}"#,
    )
    .unwrap();
    ws
}

fn origin_main(ws: &Workspace) -> String {
    git(&ws.path().join("remote.git"), &["rev-parse", "main"])
}

/// The corpus lines a mode must refuse, each with whether it must be denied outright (no
/// prompt): in bypass the agent's known GitHub writes run by design, so that section is left
/// out there.
fn attacks(bypass: bool) -> Vec<(String, bool)> {
    sections()
        .into_iter()
        .filter(|s| match s.expect {
            Expect::Deny | Expect::Unknown => true,
            Expect::GithubWrite => !bypass,
            Expect::Allow | Expect::Ask => false,
        })
        .flat_map(|s| {
            let outright = s.expect == Expect::Deny;
            s.lines.into_iter().map(move |line| (line, outright))
        })
        .collect()
}

#[test]
fn no_attack_in_the_corpus_runs_in_any_mode() {
    for (flags, plan) in [
        (&[][..], false),
        (&["--permission-mode", "accept-edits"][..], false),
        (&[][..], true),
        (&["--yolo"][..], false),
        (&["--read-only"][..], false),
    ] {
        let ws = project();
        let gh = FakeGh::new(&example_state());
        let before = origin_main(&ws);
        let server = ModelServer::start();
        let mut cmd = ws.luxe();
        cmd.env("ANTHROPIC_API_KEY", "k")
            .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
            .envs(gh.envs())
            // An attack that does run (the test failing) must not reach the user's own
            // git configuration: `git config --global` is in the corpus.
            .env("HOME", ws.path().join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(flags);
        let mut luxe = LuxeProcess::spawn(cmd);
        luxe.expect("ready");
        luxe.expect("state_changed");
        if plan {
            luxe.send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
            luxe.expect("state_changed");
        }
        let commands = attacks(flags.contains(&"--yolo"));
        for (i, (command, _)) in commands.iter().enumerate() {
            server.push(call(&format!("b{i}"), "bash", json!({"command": command})));
        }
        // The other tools a path rule binds.
        let others = [
            ("read", json!({"path": "secrets/k"})),
            ("grep", json!({"pattern": "KEY", "path": "secrets"})),
            ("grep", json!({"pattern": "KEY"})),
            ("glob", json!({"pattern": "**/k"})),
        ];
        for (i, (tool, input)) in others.iter().enumerate() {
            server.push(call(&format!("t{i}"), tool, input.clone()));
        }
        server.push(Reply::text("done"));

        luxe.send(r#"{"kind":"submit_user_message","content":{"text":"attack"}}"#);
        let mut frames = Vec::new();
        loop {
            let frame = luxe.recv();
            if frame["kind"] == "permission_requested" {
                let id = frame["content"]["id"].clone();
                luxe.send(
                    &json!({"kind":"respond_permission","content":{"id":id,"reply":"reject"}})
                        .to_string(),
                );
            }
            let end = frame["kind"] == "turn_ended";
            frames.push(frame);
            if end {
                break;
            }
        }
        let results: Vec<&Value> = frames
            .iter()
            .filter(|f| f["kind"] == "tool_finished")
            .map(|f| &f["content"])
            .collect();
        assert_eq!(
            results.len(),
            commands.len() + others.len(),
            "{flags:?} {plan}"
        );
        let prompted: Vec<&Value> = frames
            .iter()
            .filter(|f| f["kind"] == "permission_requested")
            .map(|f| &f["content"]["call_id"])
            .collect();
        let mut failures = Vec::new();
        for ((command, outright), result) in commands.iter().zip(&results) {
            if result["status"] != "denied" {
                failures.push(format!("{command:?} ran: {}", result["output"]));
            } else if *outright && prompted.contains(&&result["call_id"]) {
                failures.push(format!("{command:?} asked instead of being denied"));
            }
        }
        assert!(
            failures.is_empty(),
            "{flags:?} plan={plan}:\n{}",
            failures.join("\n")
        );
        assert_eq!(
            results[commands.len()]["status"],
            "denied",
            "read secrets/k"
        );
        assert_eq!(
            results[commands.len() + 1]["status"],
            "denied",
            "grep in secrets"
        );
        assert!(
            ws.path().join("v").exists(),
            "{flags:?} plan={plan}: v was removed"
        );
        assert_eq!(
            origin_main(&ws),
            before,
            "{flags:?} plan={plan}: origin got a push"
        );
        let config = std::fs::read_to_string(ws.path().join(".git/config")).unwrap();
        assert!(!config.contains("alias"), "{flags:?} plan={plan}: {config}");
        assert!(
            !ws.path().join("home/.gitconfig").exists(),
            "{flags:?} plan={plan}: the global git config was written"
        );
        // Luxe's own start-up reads (`gh auth status`, `gh … --json`) are not the agent's.
        let agents: Vec<Vec<String>> = gh
            .argvs()
            .into_iter()
            .filter(|argv| argv != &["auth", "status"] && !argv.iter().any(|a| a == "--json"))
            .collect();
        assert!(
            agents.is_empty(),
            "{flags:?} plan={plan}: gh ran: {agents:?}"
        );
        let everything = frames.iter().map(Value::to_string).collect::<String>()
            + &server
                .requests()
                .iter()
                .map(|r| r.body.to_string())
                .collect::<String>();
        for secret in [SECRET, ENV_SECRET] {
            assert!(
                !everything.contains(secret),
                "{flags:?} plan={plan}: {secret} leaked"
            );
        }
    }
}
