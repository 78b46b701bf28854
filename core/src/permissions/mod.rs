//! Permissions: rules, modes and the decision for one tool call (design §8). Deny always wins.

pub mod glob;
pub mod redact;
pub mod rules;

use crate::protocol::values::PermissionMode;
use rules::Rule;

/// What a tool call touches, as far as permissions care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A path: shown relative to cwd when inside it, else absolute.
    Path {
        /// The path as rules match it.
        shown: String,
        /// Whether it lies inside cwd (after `..` and `.` are resolved).
        inside_cwd: bool,
    },
    /// A shell command.
    Command(String),
    /// Nothing on disk (asking the user, updating the plan).
    Nothing,
}

impl Target {
    fn subject(&self) -> &str {
        match self {
            Self::Path { shown, .. } => shown,
            Self::Command(command) => command,
            Self::Nothing => "",
        }
    }
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

/// The session's permission state: its mode and the rules `always` replies added.
#[derive(Debug, Clone)]
pub struct Permissions {
    mode: PermissionMode,
    granted: Vec<Rule>,
}

impl Permissions {
    /// Permissions in `mode` with no session grants.
    pub fn new(mode: PermissionMode) -> Self {
        Self {
            mode,
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

    /// Decides a call of `tool` on `target`: built-in denies, then the mode's hard limits, then
    /// session grants, then the mode's default.
    pub fn decide(&self, tool: &str, target: &Target) -> Decision {
        if let Some(reason) = builtin_deny(tool, target) {
            return Decision::Deny { reason };
        }
        let reads = READ_TOOLS.contains(&tool);
        let touches_disk = !matches!(target, Target::Nothing);
        if !touches_disk {
            return Decision::Allow;
        }
        if self.mode == PermissionMode::ReadOnly && !reads {
            return Decision::Deny {
                reason: format!("{tool} is not allowed in a read-only session"),
            };
        }
        if self
            .granted
            .iter()
            .any(|r| r.covers(tool, target.subject()))
        {
            return Decision::Allow;
        }
        let inside = matches!(
            target,
            Target::Path {
                inside_cwd: true,
                ..
            }
        );
        let allowed = match self.mode {
            PermissionMode::Bypass => true,
            PermissionMode::AcceptEdits => inside,
            PermissionMode::Default | PermissionMode::ReadOnly => reads && inside,
        };
        if allowed {
            Decision::Allow
        } else {
            Decision::Ask {
                always_rule: Rule {
                    tool: tool.to_owned(),
                    pattern: target.subject().to_owned(),
                },
            }
        }
    }
}

/// Whether `name` (a file name) is a `.env` file that holds secrets.
pub fn is_env_file(name: &str) -> bool {
    let name = name.rsplit('/').next().unwrap_or(name);
    (name == ".env" || name.starts_with(".env.")) && name != ".env.example" && name != ".env.sample"
}

fn builtin_deny(tool: &str, target: &Target) -> Option<String> {
    let named = match target {
        Target::Path { shown, .. } => is_env_file(shown),
        Target::Command(command) => command
            .split(|c: char| c.is_whitespace() || ";&|<>()`'\"=".contains(c))
            .any(is_env_file),
        Target::Nothing => false,
    };
    named.then(|| format!("{tool} of .env files is denied: they hold secrets"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(shown: &str, inside_cwd: bool) -> Target {
        Target::Path {
            shown: shown.into(),
            inside_cwd,
        }
    }

    fn kind(d: &Decision) -> &'static str {
        match d {
            Decision::Allow => "allow",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        }
    }

    #[test]
    fn mode_defaults() {
        use PermissionMode::*;
        let rows = [
            (Default, "read", path("a.rs", true), "allow"),
            (Default, "read", path("/etc/hosts", false), "ask"),
            (Default, "edit", path("a.rs", true), "ask"),
            (Default, "bash", Target::Command("ls".into()), "ask"),
            (AcceptEdits, "edit", path("a.rs", true), "allow"),
            (AcceptEdits, "write", path("/tmp/x", false), "ask"),
            (AcceptEdits, "bash", Target::Command("ls".into()), "ask"),
            (Bypass, "bash", Target::Command("ls".into()), "allow"),
            (Bypass, "write", path("/tmp/x", false), "allow"),
            (ReadOnly, "read", path("a.rs", true), "allow"),
            (ReadOnly, "edit", path("a.rs", true), "deny"),
            (ReadOnly, "bash", Target::Command("ls".into()), "deny"),
            (Default, "ask_user", Target::Nothing, "allow"),
        ];
        for (mode, tool, target, want) in rows {
            let got = Permissions::new(mode).decide(tool, &target);
            assert_eq!(kind(&got), want, "{mode:?} {tool} {target:?}");
        }
    }

    #[test]
    fn env_files_are_denied_in_every_mode() {
        for mode in [
            PermissionMode::Default,
            PermissionMode::Bypass,
            PermissionMode::ReadOnly,
        ] {
            let p = Permissions::new(mode);
            assert_eq!(kind(&p.decide("read", &path(".env", true))), "deny");
            assert_eq!(
                kind(&p.decide("read", &path("sub/.env.local", true))),
                "deny"
            );
            assert_eq!(
                kind(&p.decide("read", &path(".env.example", true))),
                "allow"
            );
            assert_eq!(
                kind(&p.decide("bash", &Target::Command("cat .env".into()))),
                "deny"
            );
        }
    }

    #[test]
    fn always_grants_cover_later_calls_but_never_a_deny() {
        let mut p = Permissions::new(PermissionMode::Default);
        let Decision::Ask { always_rule } = p.decide("bash", &Target::Command("cargo test".into()))
        else {
            panic!()
        };
        assert_eq!(always_rule.to_string(), "bash(cargo test)");
        p.grant(always_rule);
        assert_eq!(
            kind(&p.decide("bash", &Target::Command("cargo test".into()))),
            "allow"
        );
        assert_eq!(
            kind(&p.decide("bash", &Target::Command("cargo build".into()))),
            "ask"
        );
        p.grant(Rule::parse("read(**)").unwrap());
        assert_eq!(kind(&p.decide("read", &path(".env", true))), "deny");
    }
}
