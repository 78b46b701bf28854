//! What `--issue`, `--from-pr` and `--worktree` run before the first frame, and what their
//! output means. io runs the commands in order and stops at the first failure (exit 2).

use serde::Deserialize;

use super::gh::ENV;
use crate::config::Requested;

/// A command to run before start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartCommand {
    /// `gh` or `git`.
    pub program: &'static str,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment (gh's quiet one).
    pub env: Vec<(&'static str, &'static str)>,
    /// What it is for, naming the flag, for a failure's reason.
    pub purpose: StartPurpose,
}

/// What a start-up command is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartPurpose {
    /// `--issue N`: its title and body.
    Issue(u64),
    /// `--from-pr N`: its branch checked out.
    FromPr(u64),
    /// `--worktree`: the repository's top directory, to put the worktree beside it.
    WorktreeRoot,
    /// `--worktree`: the worktree itself, at the given path.
    Worktree(String),
}

/// What start-up found: the working directory to use, and the issue for the first turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prepared {
    /// The new worktree's path, for `--worktree`.
    pub cwd: Option<String>,
    /// The issue, for `--issue`.
    pub issue: Option<IssueContext>,
}

/// What `command`'s output means: recorded in `prepared`, and the command to run next, if its
/// answer asks for one (`--worktree` adds the worktree beside the top directory it learned).
pub fn after(
    command: &StartCommand,
    stdout: &str,
    requested: &Requested,
    session_id: &str,
    prepared: &mut Prepared,
) -> Result<Option<StartCommand>, String> {
    match &command.purpose {
        StartPurpose::Issue(_) => {
            prepared.issue = Some(issue(stdout).map_err(|e| failed(&command.purpose, &e))?);
            Ok(None)
        }
        StartPurpose::WorktreeRoot => {
            let name = worktree_name(requested.worktree.clone().flatten().as_deref(), session_id);
            Ok(Some(worktree_add(stdout.trim(), &name)))
        }
        StartPurpose::Worktree(path) => {
            prepared.cwd = Some(path.clone());
            Ok(None)
        }
        StartPurpose::FromPr(_) => Ok(None),
    }
}

/// An issue given to the first turn.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IssueContext {
    /// Its number.
    pub number: u64,
    /// Its title.
    pub title: String,
    /// Its body.
    #[serde(default)]
    pub body: String,
    /// Its page.
    #[serde(default)]
    pub url: String,
}

impl IssueContext {
    /// The text put before the first message of the session.
    pub fn prompt(&self) -> String {
        format!(
            "This session works on GitHub issue #{} ({}): {}\n\n{}",
            self.number, self.url, self.title, self.body
        )
    }
}

fn gh(args: Vec<String>, purpose: StartPurpose) -> StartCommand {
    StartCommand {
        program: "gh",
        args,
        env: ENV.to_vec(),
        purpose,
    }
}

/// The commands `requested` needs before `--worktree`'s second step (which needs the first's
/// answer: see [`worktree_add`]).
pub fn commands(requested: &Requested) -> Vec<StartCommand> {
    let mut commands = Vec::new();
    if let Some(number) = requested.from_pr {
        let args = vec!["pr".into(), "checkout".into(), number.to_string()];
        commands.push(gh(args, StartPurpose::FromPr(number)));
    }
    if requested.worktree.is_some() {
        commands.push(StartCommand {
            program: "git",
            args: vec!["rev-parse".into(), "--show-toplevel".into()],
            env: Vec::new(),
            purpose: StartPurpose::WorktreeRoot,
        });
    }
    if let Some(number) = requested.issue {
        let args = vec![
            "issue".into(),
            "view".into(),
            number.to_string(),
            "--json".into(),
            "number,title,body,url".into(),
        ];
        commands.push(gh(args, StartPurpose::Issue(number)));
    }
    commands
}

/// `git worktree add` of a new branch `name` beside the repository at `top` (`<top>-<name>`).
pub fn worktree_add(top: &str, name: &str) -> StartCommand {
    let path = format!("{}-{name}", top.trim_end_matches('/'));
    StartCommand {
        program: "git",
        args: vec![
            "worktree".into(),
            "add".into(),
            "-b".into(),
            name.into(),
            path.clone(),
        ],
        env: Vec::new(),
        purpose: StartPurpose::Worktree(path),
    }
}

/// The worktree's name: the one given, else one from the session id.
pub fn worktree_name(given: Option<&str>, session_id: &str) -> String {
    match given.filter(|n| !n.is_empty()) {
        Some(name) => name.to_owned(),
        None => format!("luxe-{}", &session_id[session_id.len().saturating_sub(8)..]),
    }
}

/// `gh issue view --json number,title,body,url`.
pub fn issue(stdout: &str) -> Result<IssueContext, String> {
    serde_json::from_str(stdout).map_err(|e| format!("gh gave an unreadable issue: {e}"))
}

/// The reason a start-up command failed, naming its flag.
pub fn failed(purpose: &StartPurpose, why: &str) -> String {
    let why = why.trim();
    match purpose {
        StartPurpose::Issue(n) => format!("--issue {n}: {why}"),
        StartPurpose::FromPr(n) => format!("--from-pr {n}: {why}"),
        StartPurpose::WorktreeRoot => format!("--worktree: not in a git repository ({why})"),
        StartPurpose::Worktree(path) => format!("--worktree: cannot create {path}: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flag_runs_what_it_needs_in_order() {
        let requested = Requested {
            issue: Some(5),
            from_pr: Some(7),
            worktree: Some(None),
            on_ask: false,
        };
        let purposes: Vec<_> = commands(&requested)
            .into_iter()
            .map(|c| c.purpose)
            .collect();
        assert_eq!(
            purposes,
            [
                StartPurpose::FromPr(7),
                StartPurpose::WorktreeRoot,
                StartPurpose::Issue(5)
            ]
        );
        let add = worktree_add("/w/app/", "fix");
        assert_eq!(add.args, ["worktree", "add", "-b", "fix", "/w/app-fix"]);
        assert_eq!(
            worktree_name(None, "0123-abcdef0123456789"),
            "luxe-23456789"
        );
        assert_eq!(worktree_name(Some("x"), "s"), "x");
        let issue = issue(r#"{"number":5,"title":"Crash","body":"It dies","url":"https://github.com/o/r/issues/5"}"#).unwrap();
        assert!(issue.prompt().contains("#5") && issue.prompt().contains("It dies"));
        assert_eq!(
            failed(&StartPurpose::Issue(5), "not found\n"),
            "--issue 5: not found"
        );
    }
}
