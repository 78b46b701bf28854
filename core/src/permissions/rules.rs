//! Permission rules: `tool(pattern)`, e.g. `read(.env)`, `edit(src/**)`, `bash(cargo test*)`.

use super::glob::{GlobMode, glob_match};

/// The tools rules may name.
pub const TOOL_NAMES: &[&str] = &[
    "read",
    "write",
    "edit",
    "bash",
    "grep",
    "glob",
    "ask_user",
    "update_plan",
];

/// One rule: a tool name and a pattern over what the call touches (a path, or a command).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct Rule {
    /// The tool the rule is about.
    pub tool: String,
    /// A glob over the path relative to cwd (or absolute), or over the bash command.
    pub pattern: String,
}

impl Rule {
    /// Parses `tool(pattern)`; a bare `tool` means every call of that tool.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (tool, pattern) = match text.split_once('(') {
            Some((tool, rest)) => {
                let pattern = rest
                    .strip_suffix(')')
                    .ok_or_else(|| format!("rule {text:?} must end with ')'"))?;
                (tool, pattern)
            }
            None => (text, "**"),
        };
        if crate::mcp::names::is_mcp(tool) {
            // An MCP tool's name, or a glob over them (`mcp__github__*`, `mcp__*`); the rule
            // covers every call of what it names.
            let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*');
            if !tool.chars().all(valid) {
                return Err(format!(
                    "rule {text:?} does not name MCP tools (mcp__<server>__<tool>, * for any part)"
                ));
            }
            if pattern != "**" {
                return Err(format!(
                    "rule {text:?}: an MCP tool rule takes no (pattern); write just {tool}"
                ));
            }
        } else if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("rule {text:?} does not start with a tool name"));
        }
        Ok(Self {
            tool: tool.to_owned(),
            pattern: pattern.to_owned(),
        })
    }

    /// Whether this rule covers a call of `tool` on `subject` (a path or a command).
    pub fn covers(&self, tool: &str, subject: &str) -> bool {
        let mode = if tool == "bash" {
            GlobMode::Text
        } else {
            GlobMode::Path
        };
        self.tool == tool && (self.pattern == "*" || glob_match(&self.pattern, subject, mode))
    }

    /// Whether this rule names the MCP tool `tool` (exactly, or by a `*` glob).
    pub fn names_mcp_tool(&self, tool: &str) -> bool {
        crate::mcp::names::is_mcp(&self.tool) && glob_match(&self.tool, tool, GlobMode::Text)
    }

    /// Whether the pattern covers `path`, whatever tool the rule names.
    pub fn matches(&self, path: &str) -> bool {
        self.pattern == "*" || glob_match(&self.pattern, path, GlobMode::Path)
    }
}

/// Rules in settings files must name a tool luxe has: a typo must not silently drop a rule.
impl TryFrom<String> for Rule {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        let rule = Self::parse(&text)?;
        if TOOL_NAMES.contains(&rule.tool.as_str()) || crate::mcp::names::is_mcp(&rule.tool) {
            Ok(rule)
        } else {
            Err(format!(
                "rule {text:?} names an unknown tool {:?} (known: {})",
                rule.tool,
                TOOL_NAMES.join(", ")
            ))
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if crate::mcp::names::is_mcp(&self.tool) {
            return f.write_str(&self.tool);
        }
        write!(f, "{}({})", self.tool, self.pattern)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for text in ["read(.env)", "edit(src/**)", "bash(cargo test*)"] {
            assert_eq!(Rule::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Rule::parse("bash").unwrap().pattern, "**");
        assert!(Rule::parse("read(.env").is_err());
        assert!(Rule::parse("(x)").is_err());
    }

    #[test]
    fn mcp_rules_name_tools_by_glob_and_take_no_pattern() {
        let exact: Rule = "mcp__github__create_issue".to_owned().try_into().unwrap();
        assert_eq!(exact.to_string(), "mcp__github__create_issue");
        assert!(exact.names_mcp_tool("mcp__github__create_issue"));
        assert!(!exact.names_mcp_tool("mcp__github__create_issues"));
        let server = Rule::parse("mcp__github__*").unwrap();
        assert!(server.names_mcp_tool("mcp__github__list-issues"));
        assert!(!server.names_mcp_tool("mcp__gitlab__x"));
        assert!(Rule::parse("mcp__*").unwrap().names_mcp_tool("mcp__a__b"));
        assert!(
            Rule::parse("mcp__a__b(x)")
                .unwrap_err()
                .contains("takes no (pattern)")
        );
        assert!(Rule::parse("mcp__a b").is_err());
        assert!(!Rule::parse("bash").unwrap().names_mcp_tool("mcp__a__b"));
    }

    #[test]
    fn covers_by_tool_and_pattern() {
        let rule = Rule::parse("bash(cargo test*)").unwrap();
        assert!(rule.covers("bash", "cargo test -q"));
        assert!(!rule.covers("bash", "cargo build"));
        assert!(!rule.covers("edit", "cargo test"));
        let rule = Rule::parse("edit(src/**)").unwrap();
        assert!(rule.covers("edit", "src/main.rs"));
        assert!(!rule.covers("edit", "Cargo.toml"));
    }
}
