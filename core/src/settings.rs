//! Settings files (`$LUXE_HOME/settings.json` for the user, `.luxe/settings.json` for the
//! project), parsed strictly: a file that does not parse, or names an unknown tool or mode,
//! stops start-up with `file:line:column: what is wrong`. The place is that of the value that
//! is wrong (of the key, for an unknown or repeated one), or of the key of an entry that lacks
//! something or whose members do not fit together, such as an MCP server without a `command`.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::effects::{Scope, SettingsSource};
use crate::mcp::config::{ServerConfig, ServerEntry};
use crate::permissions::RuleSet;
use crate::permissions::rules::Rule;
use crate::protocol::values::PermissionMode;

#[cfg(test)]
mod error_places;
mod located;

/// What one settings file says. Unknown top-level keys are ignored (newer versions add some);
/// inside `permissions` every key must be known, since a typo there would drop rules silently.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Settings {
    /// The default model, `provider/model`.
    #[serde(default)]
    pub model: Option<String>,
    /// Permission rules and the default mode.
    #[serde(default)]
    pub permissions: PermissionSettings,
    /// The environment of the commands the model runs.
    #[serde(default)]
    pub tool_environment: ToolEnvironment,
    /// MCP servers by name (a project's only with `--trust-project`: it runs code).
    #[serde(default, rename = "mcpServers")]
    pub mcp_servers: BTreeMap<String, ServerEntry>,
}

/// The `tool_environment` object: which secret-looking variables the model's commands may
/// have after all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolEnvironment {
    /// Exact names to pass through (a provider's key is never passed).
    #[serde(default)]
    pub pass: Vec<String>,
}

/// The `permissions` object of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionSettings {
    /// `tool(pattern)` rules that run without asking.
    #[serde(default)]
    pub allow: Vec<Rule>,
    /// Rules that always prompt.
    #[serde(default)]
    pub ask: Vec<Rule>,
    /// Rules that are refused.
    #[serde(default)]
    pub deny: Vec<Rule>,
    /// The permission mode a session starts in when no flag sets one (`--permission-mode`,
    /// `--yolo`, `--read-only`); `read-only` here wins over the flags too. Absent: `default`.
    #[serde(default)]
    pub mode: Option<PermissionMode>,
}

/// Everything the files say, merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The model the files name (the project's over the user's).
    pub model: Option<String>,
    /// The allow, ask and deny rules in force: every file's deny and ask rules, a project's allow
    /// rules only when it is trusted (see [`load`]).
    pub rules: RuleSet,
    /// The mode the files set and that counts (see [`load`]).
    pub mode: Option<PermissionMode>,
    /// The secret-looking variables the model's commands may have (see [`load`]).
    pub tool_env_pass: Vec<String>,
    /// The MCP servers to start, disabled ones left out (see [`load`]).
    pub mcp_servers: Vec<ServerConfig>,
}

/// Parses one file; the error is `path:line:column: message`, placed as the module says.
pub fn parse(source: &SettingsSource) -> Result<Settings, String> {
    located::from_str(&source.text)
        .map_err(|(at, message)| format!("{}:{at}: {message}", source.path))
}

/// Reads every file, user first. Deny and ask rules always count; a project's allow rules,
/// `tool_environment.pass`, `mcpServers` and mode count only when `trust_project` (a repository must not loosen what the user set) — but a
/// project's `read-only` mode always counts, since it only tightens.
pub fn load(sources: &[SettingsSource], trust_project: bool) -> Result<Loaded, String> {
    let mut loaded = Loaded::default();
    for source in sources {
        let settings = parse(source)?;
        let trusted = source.scope == Scope::User || trust_project;
        if settings.model.is_some() {
            loaded.model = settings.model;
        }
        let p = settings.permissions;
        loaded.rules.deny.extend(p.deny);
        loaded.rules.ask.extend(p.ask);
        if trusted {
            loaded.rules.allow.extend(p.allow);
            // Passing a secret to the model's commands loosens, like an allow rule.
            loaded.tool_env_pass.extend(settings.tool_environment.pass);
            // A project's server is code that runs on the user's machine; one named like
            // the user's replaces it.
            for (name, entry) in &settings.mcp_servers {
                loaded.mcp_servers.retain(|s| &s.name != name);
                loaded.mcp_servers.extend(entry.to_config(name));
            }
        }
        match p.mode {
            Some(PermissionMode::ReadOnly) => loaded.mode = Some(PermissionMode::ReadOnly),
            Some(mode) if trusted && loaded.mode != Some(PermissionMode::ReadOnly) => {
                loaded.mode = Some(mode);
            }
            _ => {}
        }
    }
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(text: &str, scope: Scope) -> SettingsSource {
        SettingsSource {
            path: "/home/u/.luxe/settings.json".into(),
            text: text.into(),
            scope,
        }
    }

    fn user(text: &str) -> SettingsSource {
        src(text, Scope::User)
    }

    #[test]
    fn broken_file_names_file_line_and_column() {
        let err = parse(&user("{\n  \"model\": \"openai/x\",\n}")).unwrap_err();
        assert_eq!(err, "/home/u/.luxe/settings.json:3:1: trailing comma");
        let err = parse(&user("{\"model\": 5}")).unwrap_err();
        assert!(err.starts_with("/home/u/.luxe/settings.json:1:"), "{err}");
    }

    #[test]
    fn unknown_tools_modes_and_keys_are_errors_with_positions() {
        let err = parse(&user(
            "{\n \"permissions\": {\n  \"allow\": [\"fly(**)\"]\n }\n}",
        ))
        .unwrap_err();
        assert!(err.starts_with("/home/u/.luxe/settings.json:3:"), "{err}");
        assert!(err.contains("unknown tool \"fly\""), "{err}");
        let err = parse(&user(r#"{"permissions": {"mode": "yolo"}}"#)).unwrap_err();
        assert!(err.contains("unknown variant `yolo`"), "{err}");
        let err = parse(&user(r#"{"permissions": {"alow": []}}"#)).unwrap_err();
        assert!(err.contains("unknown field `alow`"), "{err}");
        assert!(
            parse(&user(r#"{"theme": "dark"}"#)).is_ok(),
            "unknown top-level keys are fine"
        );
    }

    #[test]
    fn project_allow_rules_and_modes_need_trust() {
        let project = src(
            r#"{"model":"openai/gpt-5","permissions":{"allow":["read(.env)"],"deny":["bash(rm *)"],"ask":["edit(**)"],"mode":"bypass"}}"#,
            Scope::Project,
        );
        let files = [user(r#"{"model":"anthropic/claude-haiku-4-5"}"#), project];
        let untrusted = load(&files, false).unwrap();
        assert_eq!(untrusted.model.as_deref(), Some("openai/gpt-5"));
        assert!(untrusted.rules.allow.is_empty());
        assert_eq!(untrusted.rules.deny.len(), 1);
        assert_eq!(untrusted.rules.ask.len(), 1);
        assert_eq!(untrusted.mode, None);
        let trusted = load(&files, true).unwrap();
        assert_eq!(trusted.rules.allow.len(), 1);
        assert_eq!(trusted.mode, Some(PermissionMode::Bypass));
    }

    #[test]
    fn a_projects_tool_environment_needs_trust_and_unknown_keys_are_errors() {
        let project = src(
            r#"{"tool_environment":{"pass":["NPM_TOKEN"]}}"#,
            Scope::Project,
        );
        let files = [
            user(r#"{"tool_environment":{"pass":["GITHUB_TOKEN"]}}"#),
            project,
        ];
        assert_eq!(load(&files, false).unwrap().tool_env_pass, ["GITHUB_TOKEN"]);
        assert_eq!(
            load(&files, true).unwrap().tool_env_pass,
            ["GITHUB_TOKEN", "NPM_TOKEN"]
        );
        let err = parse(&user(r#"{"tool_environment":{"passs":[]}}"#)).unwrap_err();
        assert!(err.contains("unknown field `passs`"), "{err}");
    }

    #[test]
    fn mcp_servers_need_trust_in_a_project_and_errors_have_positions() {
        let user_file =
            user(r#"{"mcpServers":{"a":{"command":"x"},"off":{"command":"y","disabled":true}}}"#);
        let project = src(
            r#"{"mcpServers":{"a":{"type":"http","url":"http://127.0.0.1:9/mcp"},"b":{"command":"z"}}}"#,
            Scope::Project,
        );
        let files = [user_file, project];
        let names = |loaded: &Loaded| -> Vec<(String, &'static str)> {
            loaded
                .mcp_servers
                .iter()
                .map(|s| (s.name.clone(), s.transport.kind()))
                .collect()
        };
        assert_eq!(
            names(&load(&files, false).unwrap()),
            [("a".to_owned(), "stdio")]
        );
        assert_eq!(
            names(&load(&files, true).unwrap()),
            [("a".to_owned(), "http"), ("b".to_owned(), "stdio")]
        );
        let err = parse(&user(
            "{\n \"mcpServers\": {\n  \"s\": {\"type\": \"sse\", \"url\": \"http://x\"}\n }\n}",
        ))
        .unwrap_err();
        // At the refused "sse" itself.
        assert!(
            err.starts_with("/home/u/.luxe/settings.json:3:17:"),
            "{err}"
        );
        assert!(err.contains("not supported"), "{err}");
        let err = parse(&user(
            r#"{"mcpServers": {"s": {"command": "x", "arg": []}}}"#,
        ))
        .unwrap_err();
        assert!(err.contains("unknown field `arg`"), "{err}");
    }

    #[test]
    fn read_only_from_any_file_wins() {
        let files = [
            user(r#"{"permissions":{"mode":"read-only"}}"#),
            src(r#"{"permissions":{"mode":"bypass"}}"#, Scope::Project),
        ];
        assert_eq!(
            load(&files, true).unwrap().mode,
            Some(PermissionMode::ReadOnly)
        );
        let files = [src(
            r#"{"permissions":{"mode":"read-only"}}"#,
            Scope::Project,
        )];
        assert_eq!(
            load(&files, false).unwrap().mode,
            Some(PermissionMode::ReadOnly)
        );
    }
}
