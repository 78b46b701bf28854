//! The gate's verdicts on their own: Luxe's own places ask whatever allows them, a `.env` file
//! is refused by name and by identity, and read-only cannot be switched.

use super::*;
use crate::permissions::RuleSet;

const CWD: &str = "/work/p";
const HOME: &str = "/home/u/.luxe";

fn gate(mode: PermissionMode, allow: &[&str]) -> ToolGate {
    let rules = RuleSet {
        allow: allow
            .iter()
            .map(|r| Rule::parse(r).expect("a rule"))
            .collect(),
        ..RuleSet::default()
    };
    ToolGate::new(
        CWD,
        Permissions::new(mode, rules),
        vec![FileIdentity { dev: 1, ino: 7 }],
        [HOME.to_owned(), "/real/p/.git".to_owned()],
    )
}

fn write(path: &str) -> ToolArgs {
    ToolArgs::Write {
        path: path.into(),
        content: "x".into(),
    }
}

fn bash(command: &str) -> ToolArgs {
    ToolArgs::Bash {
        command: command.into(),
        timeout_ms: None,
    }
}

fn asks(decision: &Decision) -> Option<String> {
    match decision {
        Decision::Ask { always_rule } => Some(always_rule.to_string()),
        _ => None,
    }
}

#[test]
fn writes_to_luxes_own_places_ask_whatever_the_mode_or_a_rule_allows() {
    let bypass = gate(PermissionMode::Bypass, &["write", "bash"]);
    for (path, requested) in [
        ("/work/p/.luxe/settings.json", None),
        ("/work/p/.git/hooks/pre-commit", None),
        ("/home/u/.luxe/settings.json", None),
        // A symlink the model wrote, resolved by io to a guarded place.
        ("/real/p/.git/config", Some("link/config")),
        // The path the model wrote names the place even where io resolved it elsewhere.
        (
            "/elsewhere/settings.json",
            Some("/work/p/.luxe/settings.json"),
        ),
    ] {
        let verdict = bypass.verdict("write", &write(path), requested);
        assert!(asks(&verdict).is_some(), "{path}: {verdict:?}");
    }
    assert_eq!(
        asks(&bypass.verdict("write", &write("/work/p/.luxe/s.json"), None)).as_deref(),
        Some("write(.luxe/s.json)"),
        "`always` names the exact file"
    );
    assert_eq!(
        bypass.verdict("write", &write("/work/p/src/a.rs"), None),
        Decision::Allow
    );
    assert_eq!(
        bypass.verdict("write", &write("/work/p/.luxe2/a"), None),
        Decision::Allow
    );
    for command in [
        "echo > .git/config",
        "cat $LUXE_HOME/x",
        "rm -r /real/p/.git",
    ] {
        assert!(
            asks(&bypass.verdict("bash", &bash(command), None)).is_some(),
            "{command}"
        );
    }
    assert_eq!(
        bypass.verdict("bash", &bash("git clone o/r.git"), None),
        Decision::Allow
    );
}

#[test]
fn env_files_are_refused_by_name_and_by_identity() {
    let gate = gate(PermissionMode::Bypass, &["read"]);
    assert!(gate.denied_by_name("read", ".env.local").is_some());
    assert!(gate.denied_by_name("read", "src/a.rs").is_none());
    assert!(gate.is_env_file(&FileIdentity { dev: 1, ino: 7 }));
    assert!(!gate.is_env_file(&FileIdentity { dev: 1, ino: 8 }));
    assert!(gate.hides(".env") && !gate.hides("src/a.rs"));
}

#[test]
fn read_only_is_decided_at_start_up() {
    let mut read_only = gate(PermissionMode::ReadOnly, &[]);
    assert!(read_only.switch_mode(PermissionMode::Bypass).is_err());
    assert_eq!(read_only.mode(), PermissionMode::ReadOnly);
    let mut default = gate(PermissionMode::Default, &[]);
    assert!(default.switch_mode(PermissionMode::ReadOnly).is_err());
    assert!(default.switch_mode(PermissionMode::AcceptEdits).is_ok());
    assert_eq!(default.mode(), PermissionMode::AcceptEdits);
}

#[test]
fn an_always_grant_allows_the_same_call_next_time() {
    let mut gate = gate(PermissionMode::Default, &[]);
    let call = bash("cargo test");
    let Decision::Ask { always_rule } = gate.verdict("bash", &call, None) else {
        panic!("bash asks by default");
    };
    gate.grant(always_rule);
    assert_eq!(gate.verdict("bash", &call, None), Decision::Allow);
}

#[test]
fn a_command_names_a_guarded_dir_only_as_a_path() {
    for command in [
        "cat .git/config",
        "echo x > .luxe/settings.json",
        "ls .git",
        "cp a './.luxe/x'",
        "git --git-dir=.git log",
    ] {
        assert!(
            names_dir(command, ".git") || names_dir(command, ".luxe"),
            "{command}"
        );
    }
    for command in [
        "git clone https://github.com/o/r.git",
        "ls my.luxe.bak",
        "echo x.gitignore",
    ] {
        assert!(
            !names_dir(command, ".git") && !names_dir(command, ".luxe"),
            "{command}"
        );
    }
}
