//! Permissions: rules, modes and the decision for one tool call (design §8).
//!
//! Order of evaluation: the built-in denies (`.env` files; anything but reading when
//! read-only), then `deny` rules, then what the command line cannot show (an unknown part asks
//! in every mode, bypass too) and the agent's own GitHub writes (which ask in every mode but
//! bypass, whatever allow rules say), then `ask` rules, then `allow` rules and this session's
//! `always` grants, then the mode's default. Deny always wins.
//!
//! A bash command is judged by the commands it runs ([`shell::analyze`]): a `deny` or `ask`
//! rule applies when it could match any of them (or the line as written), an `allow` rule
//! only when every command that runs is covered. A path rule (`read(secrets/**)`) also binds
//! the other tools that read (or write) paths, and bash commands whose words name the path.

pub mod compose;
pub mod corpus;
pub mod glob;
mod named_paths;
pub mod rules;
pub mod shell;

use crate::protocol::values::PermissionMode;
use glob::{GlobMode, atoms, glob_match, intersects};
use rules::Rule;
use shell::{Analysis, analyze};

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
    /// A `bash` call's command line, as the model wrote it; it is parsed to decide.
    Command(String),
    /// Nothing on disk (asking the user, updating the plan).
    Nothing,
}

/// The outcome for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it without asking.
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
    /// The working directory, to read the paths bash commands name as rules see them.
    cwd: String,
}

/// The tools that read paths, and those that write them: a path rule on one binds them all.
const READING: &[&str] = &["read", "grep", "glob"];
const WRITING: &[&str] = &["write", "edit"];

impl Permissions {
    /// Permissions in `mode` with `rules` and no session grants.
    pub fn new(mode: PermissionMode, rules: RuleSet) -> Self {
        Self {
            mode,
            rules,
            granted: Vec::new(),
            cwd: String::new(),
        }
    }

    /// The same permissions for commands run in `cwd`.
    pub fn in_dir(self, cwd: &str) -> Self {
        Self {
            cwd: cwd.to_owned(),
            ..self
        }
    }

    /// The mode in force.
    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// Switches the mode; the rules and grants stay.
    pub fn set_mode(&mut self, mode: PermissionMode) {
        self.mode = mode;
    }

    /// Remembers an `always` reply's rule for the rest of this process.
    pub fn grant(&mut self, rule: Rule) {
        if !self.granted.contains(&rule) {
            self.granted.push(rule);
        }
    }

    /// Whether a search or listing must leave out `path` (relative to cwd): a `.env` file, or
    /// a path a deny rule on reading covers.
    pub fn hides(&self, path: &str) -> bool {
        is_env_file(path)
            || self.rules.deny.iter().any(|rule| {
                READING.contains(&rule.tool.as_str())
                    && glob_match(&rule.pattern, path, GlobMode::Path)
            })
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
        let call = Call {
            tool,
            target,
            analysis: analysis.as_ref(),
        };
        for rule in &self.rules.deny {
            if let Some(why) = self.could_match(rule, &call) {
                return Decision::Deny {
                    reason: format!("denied by the rule {rule}{why}"),
                };
            }
        }
        let ask = Decision::Ask {
            always_rule: Rule {
                tool: tool.to_owned(),
                pattern: escape_glob(subject(target)),
            },
        };
        if let Some(analysis) = &analysis {
            if analysis.unknown.is_some() {
                return ask;
            }
            if analysis.github_write.is_some() {
                return if self.mode == PermissionMode::Bypass {
                    Decision::Allow
                } else {
                    ask
                };
            }
        }
        if self
            .rules
            .ask
            .iter()
            .any(|r| self.could_match(r, &call).is_some())
        {
            return ask;
        }
        if self.allowed_by_rule(&call) {
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

    /// Decides a call of the MCP tool `tool` (`mcp__<server>__<tool>`). `read_only` is the
    /// server's `readOnlyHint`: untrusted, it only narrows (a read-only session refuses every
    /// tool without it), never skips a prompt. Deny rules win; then ask rules; then allow
    /// rules and `always` grants; then only bypass runs it without asking.
    pub fn decide_mcp(&self, tool: &str, read_only: bool) -> Decision {
        if let Some(rule) = self.rules.deny.iter().find(|r| r.names_mcp_tool(tool)) {
            return Decision::Deny {
                reason: format!("denied by the rule {rule}"),
            };
        }
        if self.mode == PermissionMode::ReadOnly && !read_only {
            return Decision::Deny {
                reason: format!(
                    "{tool} is not allowed: the session is read-only and its server does not mark the tool read-only"
                ),
            };
        }
        let ask = Decision::Ask {
            always_rule: Rule {
                tool: tool.to_owned(),
                pattern: "**".to_owned(),
            },
        };
        if self.rules.ask.iter().any(|r| r.names_mcp_tool(tool)) {
            return ask;
        }
        let allowed = self.rules.allow.iter().chain(&self.granted);
        if allowed.into_iter().any(|r| r.names_mcp_tool(tool))
            || self.mode == PermissionMode::Bypass
        {
            Decision::Allow
        } else {
            ask
        }
    }

    /// Whether a deny or ask `rule` could apply to the call: Some with what it matched, in
    /// words for the reason.
    fn could_match(&self, rule: &Rule, call: &Call<'_>) -> Option<String> {
        match (call.target, call.analysis) {
            (Target::Path { shown, .. }, _) => {
                let binds = rule.tool == call.tool
                    || (READING.contains(&rule.tool.as_str()) && READING.contains(&call.tool))
                    || (WRITING.contains(&rule.tool.as_str()) && WRITING.contains(&call.tool));
                let root = matches!(call.tool, "grep" | "glob")
                    && named_paths::covers_below(&rule.pattern, shown);
                (binds && (rule.matches(shown) || root)).then(String::new)
            }
            (Target::Command(command), Some(analysis)) => {
                if rule.tool == "bash" {
                    command_matches(rule, command, analysis)
                } else if READING.contains(&rule.tool.as_str())
                    || WRITING.contains(&rule.tool.as_str())
                {
                    named_paths::named(&rule.pattern, &analysis.words, &self.cwd)
                        .map(|word| format!(" (the command names {word})"))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Whether allow rules or grants cover the call: a command only when every program it
    /// runs is covered (or a rule names the whole line exactly).
    fn allowed_by_rule(&self, call: &Call<'_>) -> bool {
        let mut rules = self.rules.allow.iter().chain(&self.granted);
        match (call.target, call.analysis) {
            (Target::Command(command), Some(analysis)) => {
                let exact = escape_glob(command);
                let all: Vec<&Rule> = rules.filter(|r| r.tool == "bash").collect();
                if all.iter().any(|r| r.pattern == exact) {
                    return true;
                }
                let mut runs = analysis.parts.iter().filter(|p| p.runs).peekable();
                runs.peek().is_some()
                    && runs.all(|part| {
                        all.iter().any(|r| {
                            let everything = r.pattern == "*" || r.pattern == "**";
                            everything
                                || (part.unknown.is_none()
                                    && !part.writes
                                    && glob_match(&r.pattern, &part.text(), GlobMode::Text))
                        })
                    })
            }
            _ => rules.any(|r| r.covers(call.tool, subject(call.target))),
        }
    }
}

/// One call being decided.
struct Call<'c> {
    tool: &'c str,
    target: &'c Target,
    analysis: Option<&'c Analysis>,
}

/// Whether a bash rule could match the line as written or any command in it.
fn command_matches(rule: &Rule, command: &str, analysis: &Analysis) -> Option<String> {
    if rule.covers("bash", command) {
        return Some(String::new());
    }
    let pattern = atoms(&rule.pattern, GlobMode::Text);
    let everything = rule.pattern == "*" || rule.pattern == "**";
    analysis.parts.iter().find_map(|part| {
        if !everything && !intersects(&pattern, &part.template()) {
            return None;
        }
        Some(match &part.unknown {
            Some(why) => format!(" ({why}, so it may run anything)"),
            None => format!(" (it runs `{}`)", part.text()),
        })
    })
}

fn subject(target: &Target) -> &str {
    match target {
        Target::Path { shown, .. } => shown,
        Target::Command(command) => command,
        Target::Nothing => "",
    }
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

fn builtin_deny(tool: &str, target: &Target, analysis: Option<&Analysis>) -> Option<String> {
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
