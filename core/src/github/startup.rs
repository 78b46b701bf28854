//! What `--issue`, `--from-pr` and `--worktree` run before the first frame, and what their
//! output means. io runs the commands in order and stops at the first failure (exit 2).

use serde::Deserialize;

use std::time::Duration;

use super::gh::ENV;
use super::parse;
use crate::config::{Requested, Timings};
use crate::effects::exit_failure;

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

/// How a start-up command ended, as io saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// `Ok(Some(code))` on exit, `Ok(None)` when killed, `Err` when it could not start.
    pub status: Result<Option<i32>, String>,
    /// Whether io killed it at its deadline.
    pub timed_out: bool,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

impl StartCommand {
    /// How long it may run: gh's timeout, or git's (a `gh pr checkout` fetches, too).
    pub fn timeout(&self, timings: &Timings) -> Duration {
        match self.program {
            "gh" => timings.gh_timeout,
            _ => timings.git_timeout,
        }
    }

    /// Its output as text, or why it failed (worded as at run time, naming the flag).
    pub fn outcome(&self, ended: Ended) -> Result<String, String> {
        let stderr = String::from_utf8_lossy(&ended.stderr);
        let failure = match self.program {
            "gh" => {
                parse::gh_exit_failure(&ended.status, &stderr, ended.timed_out).map(|(_, why)| why)
            }
            program => exit_failure(program, &ended.status, &stderr, ended.timed_out),
        };
        if let Some(why) = failure {
            return Err(failed(&self.purpose, &why));
        }
        String::from_utf8(ended.stdout).map_err(|_| {
            failed(
                &self.purpose,
                &format!("{} printed output that is not UTF-8", self.program),
            )
        })
    }
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
            resume: false,
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

    #[test]
    fn outcomes_are_worded_as_at_run_time() {
        let git = worktree_add("/w/app", "fix");
        let ended = |status, timed_out, stdout: &[u8], stderr: &[u8]| Ended {
            status,
            timed_out,
            stdout: stdout.to_vec(),
            stderr: stderr.to_vec(),
        };
        assert_eq!(
            git.outcome(ended(Ok(Some(0)), false, b"ok\n", b"")),
            Ok("ok\n".into())
        );
        let why = git.outcome(ended(Ok(Some(128)), false, b"", b"fatal: exists\n"));
        assert_eq!(
            why,
            Err("--worktree: cannot create /w/app-fix: fatal: exists".into())
        );
        let why = git.outcome(ended(Ok(None), true, b"", b"")).unwrap_err();
        assert!(why.ends_with("git did not answer in time"), "{why}");
        let why = git
            .outcome(ended(Ok(Some(0)), false, b"\xff", b""))
            .unwrap_err();
        assert!(why.contains("not UTF-8"), "{why}");
        let gh = &commands(&Requested {
            issue: Some(3),
            ..Requested::default()
        })[0];
        let why = gh
            .outcome(ended(Err("No such file".into()), false, b"", b""))
            .unwrap_err();
        assert!(why.starts_with("--issue 3: gh is not installed"), "{why}");
        let timings = Timings::default();
        assert_eq!(gh.timeout(&timings), timings.gh_timeout);
        assert_eq!(git.timeout(&timings), timings.git_timeout);
    }

    #[test]
    fn a_worktree_cannot_continue_a_session() {
        let requested = Requested {
            worktree: Some(None),
            resume: true,
            ..Requested::default()
        };
        assert!(
            requested
                .refusal()
                .unwrap()
                .contains("--worktree cannot be used with -c")
        );
    }
}
