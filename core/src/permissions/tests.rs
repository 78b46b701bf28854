//! Table tests of the decision: every row of the precedence, in every mode.

use super::*;

fn path(shown: &str, inside_cwd: bool) -> Target {
    Target::Path {
        shown: shown.into(),
        requested: shown.into(),
        inside_cwd,
    }
}

fn cmd(command: &str) -> Target {
    Target::Command(command.into())
}

fn kind(d: &Decision) -> &'static str {
    match d {
        Decision::Allow => "allow",
        Decision::Ask { .. } => "ask",
        Decision::Deny { .. } => "deny",
    }
}

fn rules(deny: &[&str], ask: &[&str], allow: &[&str]) -> RuleSet {
    let parse = |list: &[&str]| list.iter().map(|r| Rule::parse(r).unwrap()).collect();
    RuleSet {
        deny: parse(deny),
        ask: parse(ask),
        allow: parse(allow),
    }
}

use PermissionMode::*;
const MODES: [PermissionMode; 4] = [Default, AcceptEdits, Bypass, ReadOnly];

#[test]
fn mode_defaults() {
    let rows = [
        (Default, "read", path("a.rs", true), "allow"),
        (Default, "read", path("/etc/hosts", false), "ask"),
        (Default, "edit", path("a.rs", true), "ask"),
        (Default, "bash", cmd("ls"), "ask"),
        (AcceptEdits, "edit", path("a.rs", true), "allow"),
        (AcceptEdits, "write", path("/tmp/x", false), "ask"),
        (AcceptEdits, "bash", cmd("ls"), "ask"),
        (Bypass, "bash", cmd("ls"), "allow"),
        (Bypass, "write", path("/tmp/x", false), "allow"),
        (ReadOnly, "read", path("a.rs", true), "allow"),
        (ReadOnly, "edit", path("a.rs", true), "deny"),
        (ReadOnly, "write", path("/tmp/x", false), "deny"),
        (ReadOnly, "bash", cmd("ls"), "deny"),
        (Default, "ask_user", Target::Nothing, "allow"),
    ];
    for (mode, tool, target, want) in rows {
        let got = Permissions::new(mode, RuleSet::default()).decide(tool, &target);
        assert_eq!(kind(&got), want, "{mode:?} {tool} {target:?}");
    }
}

#[test]
fn precedence_deny_then_ask_then_allow_then_mode() {
    let rows = [
        // (rules, tool, target, expected in Default, expected in Bypass)
        (
            rules(&["bash(rm *)"], &[], &["bash(rm *)"]),
            "bash",
            cmd("rm -rf x"),
            "deny",
            "deny",
        ),
        (
            rules(&[], &["bash(cargo *)"], &["bash(cargo *)"]),
            "bash",
            cmd("cargo test"),
            "ask",
            "ask",
        ),
        (
            rules(&[], &[], &["bash(cargo test*)"]),
            "bash",
            cmd("cargo test -q"),
            "allow",
            "allow",
        ),
        (
            rules(&[], &[], &["edit(src/**)"]),
            "edit",
            path("src/a.rs", true),
            "allow",
            "allow",
        ),
        (
            rules(&[], &[], &["edit(src/**)"]),
            "edit",
            path("docs/a.md", true),
            "ask",
            "allow",
        ),
        (rules(&[], &[], &[]), "bash", cmd("ls"), "ask", "allow"),
        (
            rules(&["read(secrets/**)"], &[], &[]),
            "read",
            path("secrets/k", true),
            "deny",
            "deny",
        ),
    ];
    for (set, tool, target, want_default, want_bypass) in rows {
        for (mode, want) in [(Default, want_default), (Bypass, want_bypass)] {
            let got = Permissions::new(mode, set.clone()).decide(tool, &target);
            assert_eq!(kind(&got), want, "{mode:?} {set:?} {tool} {target:?}");
        }
    }
}

#[test]
fn prefix_rules_match_simple_commands_only() {
    let p = Permissions::new(Default, rules(&[], &[], &["bash(cargo test*)"]));
    assert_eq!(kind(&p.decide("bash", &cmd("cargo test -p core"))), "allow");
    for compound in [
        "cargo test; cat x",
        "cargo test && rm -rf y",
        "cargo test | sh",
        "cargo test $(cat z)",
        "cargo test `cat z`",
    ] {
        assert_eq!(kind(&p.decide("bash", &cmd(compound))), "ask", "{compound}");
    }
}

#[test]
fn a_deny_rule_covers_each_part_of_a_compound_command() {
    let p = Permissions::new(Bypass, rules(&["bash(rm *)"], &[], &[]));
    assert_eq!(kind(&p.decide("bash", &cmd("ls && rm -rf /"))), "deny");
    assert_eq!(kind(&p.decide("bash", &cmd("ls"))), "allow");
}

#[test]
fn github_writes_ask_whatever_allow_rules_say_except_in_bypass() {
    for mode in MODES {
        let p = Permissions::new(mode, rules(&[], &[], &["bash(*)", "bash(git push*)"]));
        let want = match mode {
            Bypass => "allow",
            ReadOnly => "deny",
            _ => "ask",
        };
        assert_eq!(
            kind(&p.decide("bash", &cmd("git push origin main"))),
            want,
            "{mode:?}"
        );
    }
}

#[test]
fn env_files_are_denied_in_every_mode_and_under_every_rule() {
    for mode in MODES {
        let mut p = Permissions::new(mode, rules(&[], &[], &["read(**)", "bash(*)"]));
        p.grant(Rule::parse("read(.env)").unwrap());
        for target in [
            path(".env", true),
            path("sub/.env.local", true),
            path(".ENV", true),
            Target::Path {
                shown: "link-to-secrets".into(),
                requested: "link-to-secrets".into(),
                inside_cwd: true,
            },
        ] {
            let is_env =
                !matches!(&target, Target::Path { shown, .. } if shown == "link-to-secrets");
            assert_eq!(
                kind(&p.decide("read", &target)) == "deny",
                is_env,
                "{mode:?} {target:?}"
            );
        }
        let link = Target::Path {
            shown: ".env".into(),
            requested: "innocent-link".into(),
            inside_cwd: true,
        };
        assert_eq!(
            kind(&p.decide("read", &link)),
            "deny",
            "a link is judged by its target"
        );
        assert_eq!(
            kind(&p.decide("read", &path(".env.example", true))),
            "allow"
        );
        assert_eq!(
            kind(&p.decide("bash", &cmd("cat .env"))),
            "deny",
            "{mode:?}"
        );
    }
}

#[test]
fn always_grants_cover_later_calls_but_never_a_deny() {
    let mut p = Permissions::new(Default, RuleSet::default());
    let Decision::Ask { always_rule } = p.decide("bash", &cmd("cargo test")) else {
        panic!()
    };
    assert_eq!(always_rule.to_string(), "bash(cargo test)");
    p.grant(always_rule);
    assert_eq!(kind(&p.decide("bash", &cmd("cargo test"))), "allow");
    assert_eq!(kind(&p.decide("bash", &cmd("cargo build"))), "ask");
    let Decision::Ask { always_rule } = p.decide("bash", &cmd("ls *.rs")) else {
        panic!()
    };
    p.grant(always_rule);
    assert_eq!(kind(&p.decide("bash", &cmd("ls *.rs"))), "allow");
    assert_eq!(
        kind(&p.decide("bash", &cmd("ls a.rs"))),
        "ask",
        "the grant is literal"
    );
}

quickcheck::quickcheck! {
    fn a_denied_command_stays_denied_whatever_grammar_wraps_it(seed: Vec<u8>) -> bool {
        crate::harness::shell(&seed);
        true
    }
}

#[test]
fn a_path_rule_binds_every_tool_that_reads_or_writes_the_path() {
    let p = Permissions::new(
        Bypass,
        rules(&["read(secrets/**)", "write(locked/**)"], &[], &[]),
    )
    .in_dir("/work/app");
    let rows = [
        ("read", path("secrets/k", true), "deny"),
        ("grep", path("secrets/k", true), "deny"),
        ("grep", path("secrets", true), "deny"),
        ("glob", path("secrets", true), "deny"),
        ("grep", path(".", true), "allow"),
        ("edit", path("secrets/k", true), "allow"),
        ("write", path("locked/a", true), "deny"),
        ("edit", path("locked/a", true), "deny"),
        ("read", path("locked/a", true), "allow"),
        ("bash", cmd("cat secrets/k"), "deny"),
        ("bash", cmd("cat /work/app/secrets/k"), "deny"),
        ("bash", cmd("cat secretsx/k"), "allow"),
        ("bash", cmd("echo hi > locked/a"), "deny"),
        ("bash", cmd("cat src/main.rs"), "allow"),
    ];
    for (tool, target, want) in rows {
        assert_eq!(kind(&p.decide(tool, &target)), want, "{tool} {target:?}");
    }
    assert!(p.hides("secrets/k"));
    assert!(p.hides("sub/.env"));
    assert!(!p.hides("locked/a"));
    assert!(!p.hides("src/main.rs"));
}

#[test]
fn deny_reasons_say_which_command_matched() {
    let p = Permissions::new(Default, rules(&["bash(rm *)"], &[], &[]));
    let Decision::Deny { reason } = p.decide("bash", &cmd("ls && sudo rm -rf x")) else {
        panic!()
    };
    assert!(
        reason.contains("bash(rm *)") && reason.contains("rm -rf x"),
        "{reason}"
    );
    let Decision::Deny { reason } = p.decide("bash", &cmd("$CMD x")) else {
        panic!()
    };
    assert!(reason.contains("computed at run time"), "{reason}");
}

#[test]
fn an_unknown_part_asks_even_in_bypass_and_under_allow_everything() {
    let p = Permissions::new(Bypass, rules(&[], &[], &["bash(*)"]));
    assert_eq!(kind(&p.decide("bash", &cmd("gi${X}t push"))), "ask");
    assert_eq!(kind(&p.decide("bash", &cmd("git status"))), "allow");
}

#[test]
fn the_fuzzers_newline_before_an_escaped_command_is_denied() {
    // tree-sitter-bash read `ls⏎\rm v` as `ls` with the arguments `\rm v`; bash runs `rm v`.
    crate::harness::shell(include_bytes!(
        "../../../fuzz/seeds/shell/newline-before-escaped-command.bin"
    ));
}

#[test]
fn mcp_tools_ask_in_every_mode_but_bypass_and_rules_name_them() {
    let tool = "mcp__github__create_issue";
    for (mode, read_only, want) in [
        (Default, false, "ask"),
        (Default, true, "ask"),
        (AcceptEdits, false, "ask"),
        (Bypass, false, "allow"),
        (ReadOnly, false, "deny"),
        (ReadOnly, true, "ask"),
    ] {
        let got = Permissions::new(mode, RuleSet::default()).decide_mcp(tool, read_only);
        assert_eq!(kind(&got), want, "{mode:?} read_only={read_only}");
    }
    let rows = [
        (rules(&[], &[], &["mcp__github__create_issue"]), "allow"),
        (rules(&[], &[], &["mcp__github__*"]), "allow"),
        (rules(&[], &[], &["mcp__*"]), "allow"),
        (rules(&[], &[], &["mcp__gitlab__*"]), "ask"),
        (rules(&["mcp__github__*"], &[], &["mcp__*"]), "deny"),
        (
            rules(&[], &["mcp__*"], &["mcp__github__create_issue"]),
            "ask",
        ),
    ];
    for (set, want) in rows {
        for mode in [Default, AcceptEdits] {
            let got = Permissions::new(mode, set.clone()).decide_mcp(tool, false);
            assert_eq!(kind(&got), want, "{mode:?} {set:?}");
        }
    }
    // Deny wins over bypass; a read-only session refuses even what a rule allows.
    let deny = Permissions::new(Bypass, rules(&["mcp__*"], &[], &[]));
    assert_eq!(kind(&deny.decide_mcp(tool, true)), "deny");
    let allow = Permissions::new(ReadOnly, rules(&[], &[], &["mcp__*"]));
    assert_eq!(kind(&allow.decide_mcp(tool, false)), "deny");
    assert_eq!(kind(&allow.decide_mcp(tool, true)), "allow");
    // `always` remembers the exact tool.
    let mut granted = Permissions::new(Default, RuleSet::default());
    let Decision::Ask { always_rule } = granted.decide_mcp(tool, false) else {
        panic!("asks");
    };
    assert_eq!(always_rule.to_string(), tool);
    granted.grant(always_rule);
    assert_eq!(kind(&granted.decide_mcp(tool, false)), "allow");
    assert_eq!(
        kind(&granted.decide_mcp("mcp__github__merge", false)),
        "ask"
    );
}
