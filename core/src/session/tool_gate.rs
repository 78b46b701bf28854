//! The gate every tool call passes: the permission rules and mode, the `.env` files by name and
//! by identity, and the places that decide Luxe's own behaviour (the project's `.luxe/` and
//! `.git/`, `$LUXE_HOME`, and what they resolve to), where a write always asks. It answers with
//! values — run, ask with the rule `always` would add, or refuse with the reason — and the tool
//! run acts on them; nothing else changes its rules but an `always` reply and a mode switch.

use crate::effects::FileIdentity;
use crate::permissions::rules::Rule;
use crate::permissions::{Decision, Permissions, Target, escape_glob};
use crate::protocol::values::PermissionMode;

use super::tools::args::ToolArgs;
use crate::paths::{GUARDED_DIRS, resolve};

/// The session's tool permissions and guarded places.
#[derive(Debug)]
pub(super) struct ToolGate {
    cwd: String,
    permissions: Permissions,
    /// The project's `.env` files as files (device and inode), for another name of one.
    env_identities: Vec<FileIdentity>,
    /// `$LUXE_HOME`, and the guarded directories and `$LUXE_HOME` with their symlinks
    /// resolved (as io found them): absolute, without a trailing `/`.
    guarded: Vec<String>,
}

impl ToolGate {
    /// A gate for a session in `cwd`; `guarded` are `$LUXE_HOME` and what the guarded places
    /// resolve to.
    pub(super) fn new(
        cwd: &str,
        permissions: Permissions,
        env_identities: Vec<FileIdentity>,
        guarded: impl IntoIterator<Item = String>,
    ) -> Self {
        let root = cwd.trim_end_matches('/');
        let guarded = GUARDED_DIRS
            .iter()
            .map(|dir| format!("{root}/{dir}"))
            .chain(guarded)
            .map(|dir| dir.trim_end_matches('/').to_owned())
            .filter(|dir| !dir.is_empty())
            .collect();
        Self {
            cwd: cwd.to_owned(),
            permissions: permissions.in_dir(cwd),
            env_identities,
            guarded,
        }
    }

    /// The permission mode.
    pub(super) fn mode(&self) -> PermissionMode {
        self.permissions.mode()
    }

    /// Switches the permission mode. Read-only is decided at start-up: a read-only session
    /// cannot be switched out of it, nor another into it.
    pub(super) fn switch_mode(&mut self, mode: PermissionMode) -> Result<(), String> {
        let read_only = PermissionMode::ReadOnly;
        if self.permissions.mode() == read_only || mode == read_only {
            return Err("read-only is decided at start-up and cannot be switched".into());
        }
        self.permissions.set_mode(mode);
        Ok(())
    }

    /// Remembers what an `always` reply allowed, for the rest of the session.
    pub(super) fn grant(&mut self, rule: Rule) {
        self.permissions.grant(rule);
    }

    /// Whether a search leaves out `path` (relative to cwd): a `.env` file or one a deny rule
    /// keeps from reading tools.
    pub(super) fn hides(&self, path: &str) -> bool {
        self.permissions.hides(path)
    }

    /// Whether `identity` is one of the project's `.env` files, under whatever name.
    pub(super) fn is_env_file(&self, identity: &FileIdentity) -> bool {
        self.env_identities.contains(identity)
    }

    /// The verdict on a call of `tool` with `args` (its path, if any, resolved; `requested` is
    /// the path the model wrote). A write to Luxe's own places asks whatever the mode, a rule
    /// or an earlier `always` allows: it decides what later sessions may do.
    pub(super) fn verdict(&self, tool: &str, args: &ToolArgs, requested: Option<&str>) -> Decision {
        let target = match (args, args.path()) {
            (_, Some(path)) => {
                let resolved = resolve(&self.cwd, path);
                Target::Path {
                    shown: resolved.shown,
                    requested: requested.unwrap_or_default().to_owned(),
                    inside_cwd: resolved.inside_cwd,
                }
            }
            (ToolArgs::Bash { command, .. }, None) => Target::Command(command.clone()),
            _ => Target::Nothing,
        };
        match self.permissions.decide(tool, &target) {
            Decision::Allow if self.touches_own_settings(args, requested) => Decision::Ask {
                always_rule: Rule {
                    tool: tool.to_owned(),
                    pattern: subject_of(&target),
                },
            },
            decision => decision,
        }
    }

    /// The verdict on a call of the MCP tool `name` (`read_only` when the server annotated it
    /// `readOnlyHint`).
    pub(super) fn verdict_mcp(&self, name: &str, read_only: bool) -> Decision {
        self.permissions.decide_mcp(name, read_only)
    }

    /// Why a call of `tool` on the path the model wrote is denied by that name alone (a `.env`
    /// name, a deny rule), before anything is opened.
    pub(super) fn denied_by_name(&self, tool: &str, requested: &str) -> Option<String> {
        let target = Target::Path {
            shown: resolve(&self.cwd, requested).shown,
            requested: requested.to_owned(),
            inside_cwd: false,
        };
        match self.permissions.decide(tool, &target) {
            Decision::Deny { reason } => Some(reason),
            Decision::Allow | Decision::Ask { .. } => None,
        }
    }

    /// Whether `args` writes where Luxe's own behaviour is decided, by the path the model wrote
    /// or the one it resolves to, or is a command that names one of those places.
    fn touches_own_settings(&self, args: &ToolArgs, requested: Option<&str>) -> bool {
        let under = |path: &str| {
            self.guarded.iter().any(|dir| {
                path == dir
                    || path
                        .strip_prefix(dir.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
        };
        match args {
            ToolArgs::Write { path, .. } | ToolArgs::Edit { path, .. } => {
                under(&resolve(&self.cwd, path).absolute) || requested.is_some_and(under)
            }
            // A command's paths are not resolved: any mention of the places asks.
            ToolArgs::Bash { command, .. } => {
                GUARDED_DIRS.iter().any(|dir| names_dir(command, dir))
                    || command.contains("LUXE_HOME")
                    || self
                        .guarded
                        .iter()
                        .any(|dir| command.contains(dir.as_str()))
            }
            _ => false,
        }
    }
}

/// Whether `command` names the directory `dir` (`.git`, `.git/config`, `"./.luxe"`), not just
/// text that ends the same way (`repo.git`).
fn names_dir(command: &str, dir: &str) -> bool {
    command.match_indices(dir).any(|(at, _)| {
        let before = command[..at].chars().next_back();
        let after = command[at + dir.len()..].chars().next();
        let edge = |c: Option<char>| {
            c.is_none_or(|c| {
                c.is_whitespace()
                    || matches!(
                        c,
                        '/' | '\'' | '"' | '=' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
                    )
            })
        };
        edge(before) && edge(after)
    })
}

/// What a rule about `target` names: the path as shown, or the command, matched literally.
fn subject_of(target: &Target) -> String {
    escape_glob(match target {
        Target::Path { shown, .. } => shown,
        Target::Command(command) => command,
        Target::Nothing => "",
    })
}

#[cfg(test)]
mod tests;
