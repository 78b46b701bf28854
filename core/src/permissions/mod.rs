//! Permissions: rules, modes and the decision for one tool call (design §8).
//!
//! Order of evaluation: the built-in denies (`.env` files; anything but reading when
//! read-only), then `deny` rules, then the agent's own GitHub writes (which ask in every mode
//! but bypass, whatever allow rules say), then `ask` rules, then `allow` rules and this
//! session's `always` grants, then the mode's default. Deny always wins.

pub mod bash;
pub mod glob;
pub mod redact;
pub mod rules;

use crate::protocol::values::PermissionMode;
use bash::{CommandAnalysis, analyze};
use rules::Rule;

/// What a tool call touches, as far as permissions care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A path, resolved (`..`, symlinks) by io before the decision.
    Path {
        /// The resolved path: relative to cwd when inside it, else absolute. Rules match this.
        shown: String,
        /// The path as the model wrote it (a link's own name counts for the `.env` deny too).
        requested: String,
        /// Whether the resolved path lies inside cwd.
        inside_cwd: bool,
    },
    /// A shell command.
    Command(String),
    /// Nothing on disk (asking the user, updating the plan).
    Nothing,
}

/// The outcome for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask the client; `always` would add this rule for the session.
    Ask {
        /// The rule an `always` reply remembers.
        always_rule: Rule,
    },
    /// Refuse it; the model is told why.
    Deny {
        /// Why, in words the model and the client see.
        reason: String,
    },
}

/// The tools that only read.
pub const READ_TOOLS: &[&str] = &["read", "grep", "glob"];

/// Rule lists from the settings files (project `allow` rules only with `--trust-project`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// Calls refused outright.
    pub deny: Vec<Rule>,
    /// Calls that always prompt.
    pub ask: Vec<Rule>,
    /// Calls that run without asking.
    pub allow: Vec<Rule>,
}

/// The session's permission state: its mode, the settings' rules, and `always` grants.
#[derive(Debug, Clone)]
pub struct Permissions {
    mode: PermissionMode,
    rules: RuleSet,
    granted: Vec<Rule>,
}

impl Permissions {
    /// Permissions in `mode` with `rules` and no session grants.
    pub fn new(mode: PermissionMode, rules: RuleSet) -> Self {
        Self {
            mode,
            rules,
            granted: Vec::new(),
        }
    }

    /// The mode in force.
    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// Remembers an `always` reply's rule for the rest of this process.
    pub fn grant(&mut self, rule: Rule) {
        if !self.granted.contains(&rule) {
            self.granted.push(rule);
        }
    }

    /// Decides a call of `tool` on `target`.
    pub fn decide(&self, tool: &str, target: &Target) -> Decision {
        let analysis = match target {
            Target::Command(command) => Some(analyze(command)),
            _ => None,
        };
        if let Some(reason) = builtin_deny(tool, target, analysis.as_ref()) {
            return Decision::Deny { reason };
        }
        if matches!(target, Target::Nothing) {
            return Decision::Allow;
        }
        if self.mode == PermissionMode::ReadOnly && !READ_TOOLS.contains(&tool) {
            return Decision::Deny {
                reason: format!("{tool} is not allowed in a read-only session"),
            };
        }
        let subject = subject(target);
        if let Some(rule) = self.rules.deny.iter().find(|r| denies(r, tool, subject)) {
            return Decision::Deny {
                reason: format!("denied by the rule {rule}"),
            };
        }
        let ask = Decision::Ask {
            always_rule: Rule {
                tool: tool.to_owned(),
                pattern: escape_glob(subject),
            },
        };
        if analysis.as_ref().is_some_and(|a| a.github_write.is_some()) {
            return if self.mode == PermissionMode::Bypass {
                Decision::Allow
            } else {
                ask
            };
        }
        let simple = analysis.as_ref().is_none_or(|a| a.simple);
        if self
            .rules
            .ask
            .iter()
            .any(|r| allows(r, tool, subject, simple))
        {
            return ask;
        }
        let allowed_by_rule = self
            .rules
            .allow
            .iter()
            .chain(&self.granted)
            .any(|r| allows(r, tool, subject, simple));
        if allowed_by_rule {
            return Decision::Allow;
        }
        let inside = matches!(
            target,
            Target::Path {
                inside_cwd: true,
                ..
            }
        );
        let reads = READ_TOOLS.contains(&tool);
        let by_mode = match self.mode {
            PermissionMode::Bypass => true,
            PermissionMode::AcceptEdits => inside,
            PermissionMode::Default | PermissionMode::ReadOnly => reads && inside,
        };
        if by_mode { Decision::Allow } else { ask }
    }
}

fn subject(target: &Target) -> &str {
    match target {
        Target::Path { shown, .. } => shown,
        Target::Command(command) => command,
        Target::Nothing => "",
    }
}

/// An allow or ask rule covers a compound command only when it names it exactly, so
/// `bash(cargo test*)` never lets `cargo test && rm -rf ~` through.
fn allows(rule: &Rule, tool: &str, subject: &str, simple: bool) -> bool {
    if simple {
        rule.covers(tool, subject)
    } else {
        rule.tool == tool && rule.pattern == escape_glob(subject)
    }
}

/// A deny rule on bash also covers each part of a compound command: over-matching a deny is
/// the safe side.
fn denies(rule: &Rule, tool: &str, subject: &str) -> bool {
    rule.covers(tool, subject)
        || (tool == "bash"
            && subject
                .split(['\n', ';', '&', '|'])
                .map(str::trim)
                .any(|part| !part.is_empty() && rule.covers(tool, part)))
}

/// A pattern that matches `text` literally.
pub fn escape_glob(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether `path`'s last component is a `.env` file that holds secrets (any letter case;
/// `.env.example` and `.env.sample` are templates).
pub fn is_env_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    (name == ".env" || name.starts_with(".env.")) && name != ".env.example" && name != ".env.sample"
}

fn builtin_deny(tool: &str, target: &Target, analysis: Option<&CommandAnalysis>) -> Option<String> {
    let named = match target {
        Target::Path {
            shown, requested, ..
        } => is_env_file(shown) || is_env_file(requested),
        Target::Command(_) => analysis.is_some_and(|a| a.names_env_file),
        Target::Nothing => false,
    };
    named.then(|| format!("{tool} of .env files is denied: they hold secrets"))
}

#[cfg(test)]
mod tests;
