//! Where each kind of settings error is placed: at the line and column of the value that is
//! wrong (a key for an unknown or repeated one), or of the key of an entry that lacks something
//! or whose members do not fit together. Syntax errors are serde_json's, at the character it
//! could not read.

use super::parse;
use crate::effects::{Scope, SettingsSource};

/// The error for a user file of these lines, without the path in front.
fn error(lines: &[&str]) -> String {
    let source = SettingsSource {
        path: "settings.json".into(),
        text: lines.join("\n"),
        scope: Scope::User,
    };
    let err = parse(&source).unwrap_err();
    err.strip_prefix("settings.json:").unwrap().to_owned()
}

/// Compares every case before failing, so that a failure lists each misplaced error.
fn check(cases: &[(&[&str], &str)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|&(lines, want)| {
            let got = error(lines);
            (got != want).then(|| format!("{}\n  got:  {got}\n  want: {want}", lines.join("\n")))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn syntax_errors_are_at_the_character_that_could_not_be_read() {
    check(&[
        (
            &["{", "  \"model\": \"openai/x\",", "}"],
            "3:1: trailing comma",
        ),
        (
            &["{", "  \"model\" \"openai/x\"", "}"],
            "2:11: expected `:`",
        ),
        (&["{", "  model: 1", "}"], "2:3: key must be a string"),
        (&["{}", "}"], "2:1: trailing characters"),
        (
            &["{", "  \"model\": \"a\""],
            "2:14: EOF while parsing an object",
        ),
    ]);
}

#[test]
fn a_value_of_the_wrong_type_is_placed_where_it_starts() {
    check(&[
        (
            &["{", "  \"model\": true", "}"],
            "2:12: invalid type: boolean `true`, expected a string",
        ),
        (
            &["\"settings\""],
            "1:1: invalid type: string \"settings\", expected struct Settings",
        ),
        (
            &["{\"permissions\": \"all\"}"],
            "1:17: invalid type: string \"all\", expected struct PermissionSettings",
        ),
        (
            &[
                "{",
                "  \"permissions\": {",
                "    \"allow\": \"read(**)\"",
                "  }",
                "}",
            ],
            "3:14: invalid type: string \"read(**)\", expected a sequence",
        ),
        (
            &[
                "{",
                "  \"permissions\": {",
                "    \"deny\": [",
                "      \"read(.env)\",",
                "      false",
                "    ]",
                "  }",
                "}",
            ],
            "5:7: invalid type: boolean `false`, expected a string",
        ),
        (
            &[
                "{",
                "  \"tool_environment\": {",
                "    \"pass\": [\"A\", 1.5]",
                "  }",
                "}",
            ],
            "3:19: invalid type: floating point `1.5`, expected a string",
        ),
        (
            &[
                "{",
                "  \"mcpServers\": [",
                "    {\"command\": \"x\"}",
                "  ]",
                "}",
            ],
            "2:17: invalid type: sequence, expected a map",
        ),
        (
            &["{\"permissions\": {\"mode\": 1}}"],
            "1:26: invalid type: integer `1`, expected enum PermissionMode",
        ),
    ]);
}

#[test]
fn an_array_longer_than_the_object_it_stands_for_is_placed_at_the_first_extra_value() {
    check(&[(
        &[
            "{",
            "  \"tool_environment\": [",
            "    [],",
            "    [\"A\"]",
            "  ]",
            "}",
        ],
        "4:5: invalid length 2, expected fewer elements in array",
    )]);
}

#[test]
fn an_unknown_or_repeated_key_is_placed_at_the_key() {
    check(&[
        (
            &["{", "  \"permissions\": {", "    \"alow\": []", "  }", "}"],
            "3:5: unknown field `alow`, expected one of `allow`, `ask`, `deny`, `mode`",
        ),
        (
            &["{\"tool_environment\": {\"passs\": []}}"],
            "1:23: unknown field `passs`, expected `pass`",
        ),
        (
            &["{", "  \"model\": \"a\",", "  \"model\": \"b\"", "}"],
            "3:3: duplicate field `model`",
        ),
        (
            &["{\"permissions\": {\"ask\": [], \"ask\": []}}"],
            "1:29: duplicate field `ask`",
        ),
    ]);
}

#[test]
fn an_unknown_mode_is_placed_at_its_name() {
    check(&[(
        &["{", "  \"permissions\": {\"mode\": \"yolo\"}", "}"],
        "2:27: unknown variant `yolo`, expected one of `default`, `accept-edits`, `bypass`, `read-only`",
    )]);
}

#[test]
fn a_refused_rule_is_placed_at_the_rule_not_at_the_end_of_its_list() {
    // The list's first rule is fine; the second is refused where it starts.
    let ask = |rule| -> [&str; 4] {
        [
            "{\"permissions\": {\"ask\": [",
            "  \"read(**)\",",
            rule,
            "]}}",
        ]
    };
    check(&[
        (
            &[
                "{",
                "  \"permissions\": {",
                "    \"allow\": [",
                "      \"read(**)\",",
                "      \"fly(**)\"",
                "    ]",
                "  }",
                "}",
            ],
            "5:7: rule \"fly(**)\" names an unknown tool \"fly\" (known: read, write, edit, bash, grep, glob, ask_user, update_plan)",
        ),
        (
            &ask("  \"read(.env\""),
            "3:3: rule \"read(.env\" must end with ')'",
        ),
        (
            &ask("  \"(x)\""),
            "3:3: rule \"(x)\" does not start with a tool name",
        ),
        (
            &ask("  \"mcp__a__b(x)\""),
            "3:3: rule \"mcp__a__b(x)\": an MCP tool rule takes no (pattern); write just mcp__a__b",
        ),
        (
            &ask("  \"mcp__a b\""),
            "3:3: rule \"mcp__a b\" does not name MCP tools (mcp__<server>__<tool>, * for any part)",
        ),
    ]);
}

#[test]
fn an_mcp_server_that_lacks_something_is_placed_at_its_name() {
    check(&[
        // Issue #27: line 3, where "x" is, not the closing brace of `mcpServers` on line 6.
        (
            &[
                "{",
                "  \"mcpServers\": {",
                "    \"x\": {",
                "      \"args\": [\"a\"]",
                "    }",
                "  }",
                "}",
            ],
            "3:5: a stdio server needs a non-empty \"command\"",
        ),
        (
            &["{\"mcpServers\": {", "  \"x\": []}}"],
            "2:3: invalid length 0, expected struct RawEntry with 9 elements",
        ),
        (
            &["{\"mcpServers\": {", "  \"x\": {\"command\": \"\"}}}"],
            "2:3: a stdio server needs a non-empty \"command\"",
        ),
        (
            &[
                "{\"mcpServers\": {",
                "  \"web\": {",
                "    \"type\": \"http\"",
                "  }}}",
            ],
            "2:3: an http server needs a \"url\"",
        ),
        (
            &[
                "{\"mcpServers\": {",
                "  \"x\": {",
                "    \"command\": \"x\",",
                "    \"url\": \"http://h\"",
                "  }}}",
            ],
            "2:3: give either \"command\" (stdio) or \"url\" (http), not both",
        ),
        (
            &[
                "{\"mcpServers\": {",
                "  \"x\": {",
                "    \"command\": \"x\",",
                "    \"headers\": {\"A\": \"b\"}",
                "  }}}",
            ],
            "2:3: \"headers\" belong to an http server, not a stdio one",
        ),
        (
            &[
                "{\"mcpServers\": {",
                "  \"x\": {",
                "    \"url\": \"http://h\",",
                "    \"args\": [\"a\"]",
                "  }}}",
            ],
            "2:3: \"args\", \"env\" and \"cwd\" belong to a stdio server, not an http one",
        ),
    ]);
}

#[test]
fn a_wrong_value_in_an_mcp_server_is_placed_where_it_starts() {
    let entry = |member| -> [&str; 5] {
        [
            "{\"mcpServers\": {",
            "  \"x\": {",
            "    \"command\": \"x\",",
            member,
            "  }}}",
        ]
    };
    let typed =
        |kind, url| -> [&str; 5] { ["{\"mcpServers\": {", "  \"x\": {", kind, url, "  }}}"] };
    check(&[
        (
            &entry("    \"timeout\": 0"),
            "4:16: \"timeout\" must be at least 1 ms",
        ),
        (
            &entry("    \"timeout\": \"long\""),
            "4:16: invalid type: string \"long\", expected u64",
        ),
        (
            &entry("    \"disabled\": \"yes\""),
            "4:17: invalid type: string \"yes\", expected a boolean",
        ),
        (
            &entry("    \"env\": {\"A\": 10}"),
            "4:18: invalid type: integer `10`, expected a string",
        ),
        (
            &entry("    \"arg\": []"),
            "4:5: unknown field `arg`, expected one of `type`, `command`, `args`, `env`, `cwd`, `url`, `headers`, `disabled`, `timeout`",
        ),
        (
            &entry("    \"command\": \"y\""),
            "4:5: duplicate field `command`",
        ),
        (
            &typed("    \"type\": \"sse\",", "    \"url\": \"http://h\""),
            "3:13: the \"sse\" transport is deprecated and not supported: use \"type\": \"http\" (streamable HTTP)",
        ),
        (
            &typed("    \"type\": \"ws\",", "    \"url\": \"http://h\""),
            "3:13: unknown server type \"ws\" (known: \"stdio\", \"http\")",
        ),
        (
            &typed("    \"type\": \"http\",", "    \"url\": \"ftp://h\""),
            "4:12: \"ftp://h\" is not an http:// or https:// URL",
        ),
        (
            &typed("    \"type\": \"http\",", "    \"url\": [\"http://h\"]"),
            "4:12: invalid type: sequence, expected a string",
        ),
    ]);
}

#[test]
fn columns_count_bytes_past_escapes_numbers_and_crlf_line_ends() {
    check(&[
        (
            &[
                "{\r",
                "  \"model\": \"\\\"é\\\\\", \"permissions\": {\"mode\": \"x\"}\r",
                "}",
            ],
            "2:46: unknown variant `x`, expected one of `default`, `accept-edits`, `bypass`, `read-only`",
        ),
        (
            &["{\"\\u006dodel\": \"a\", \"model\": \"b\"}"],
            "1:21: duplicate field `model`",
        ),
        (
            &["{\"model\": null, \"permissions\": {\"mode\": -1}}"],
            "1:41: invalid type: integer `-1`, expected enum PermissionMode",
        ),
    ]);
}
