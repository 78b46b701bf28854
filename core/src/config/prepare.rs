//! What `--issue`, `--from-pr` and `--worktree` run before the first frame, and what their
//! output means, as a [`Flow`]: one command at a time, each follow-up asked for right after the
//! command that led to it (`--worktree` adds the worktree beside the top directory it learned),
//! ending with what was prepared or the first failure, naming its flag (luxe exits 2). io drives
//! it, blocking: nothing else runs yet.

use std::collections::VecDeque;

use serde::Deserialize;

use super::Requested;
use crate::steps::{Cmd, Flow, Next, Ran};

/// A command to run before start-up, and what it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartCommand {
    /// The command.
    pub cmd: Cmd,
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
    /// The issue `--issue N` read with `gh issue view`, for the first turn; `None` without it.
    pub issue: Option<IssueContext>,
}

/// The start-up commands of one launch, as a flow.
#[derive(Debug)]
pub struct Startup {
    worktree_name: Option<String>,
    queue: VecDeque<StartCommand>,
    running: Option<StartPurpose>,
    prepared: Prepared,
}

impl Startup {
    /// What `requested` needs, for the session `session_id` (which names a worktree not given
    /// a name).
    pub fn new(requested: &Requested, session_id: &str) -> Self {
        let worktree_name = requested
            .worktree
            .as_ref()
            .map(|given| worktree_name(given.as_deref(), session_id));
        Self {
            worktree_name,
            queue: commands(requested).into(),
            running: None,
            prepared: Prepared::default(),
        }
    }

    fn next(&mut self) -> Next<Result<Prepared, String>> {
        match self.queue.pop_front() {
            Some(command) => {
                self.running = Some(command.purpose);
                Next::Run(command.cmd)
            }
            None => Next::Done(Ok(std::mem::take(&mut self.prepared))),
        }
    }

    /// What the output of the command for `purpose` means: recorded, and the command to run
    /// next, if its answer asks for one.
    fn after(&mut self, purpose: &StartPurpose, stdout: &str) -> Result<(), String> {
        match purpose {
            StartPurpose::Issue(_) => {
                self.prepared.issue = Some(issue(stdout).map_err(|e| failed(purpose, &e))?);
            }
            StartPurpose::WorktreeRoot => {
                let name = self.worktree_name.clone().unwrap_or_default();
                self.queue.push_front(worktree_add(stdout.trim(), &name));
            }
            StartPurpose::Worktree(path) => self.prepared.cwd = Some(path.clone()),
            StartPurpose::FromPr(_) => {}
        }
        Ok(())
    }
}

impl Flow for Startup {
    type Output = Result<Prepared, String>;

    fn start(&mut self) -> Next<Self::Output> {
        self.next()
    }

    fn on(&mut self, ran: Ran) -> Next<Self::Output> {
        let Some(purpose) = self.running.take() else {
            return Next::Done(Err(
                "start-up: a command ended that was not asked for".into()
            ));
        };
        if let Some(why) = ran.failure() {
            return Next::Done(Err(failed(&purpose, why)));
        }
        // A path taken from the output is used as printed: a lossy one would be another.
        if !ran.utf8 {
            return Next::Done(Err(failed(&purpose, "it printed output that is not UTF-8")));
        }
        match self.after(&purpose, ran.stdout()) {
            Ok(()) => self.next(),
            Err(why) => Next::Done(Err(why)),
        }
    }
}

/// An issue given to the first turn.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IssueContext {
    /// The issue's number in the checkout's repository.
    pub number: u64,
    /// The issue's title, as gh gave it.
    pub title: String,
    /// The issue's description; empty when gh gave none.
    #[serde(default)]
    pub body: String,
    /// The issue's page on GitHub; empty when gh gave none.
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
        cmd: Cmd::gh(args),
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
            cmd: Cmd::git(vec!["rev-parse".into(), "--show-toplevel".into()]),
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
        cmd: Cmd::git(vec![
            "worktree".into(),
            "add".into(),
            "-b".into(),
            name.into(),
            path.clone(),
        ]),
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
    use crate::config::Timings;
    use crate::steps::{Program, drive};

    fn exited(program: Program, code: i32, stdout: &[u8], stderr: &[u8]) -> Ran {
        Ran::of(program, &Ok(Some(code)), stdout, stderr, false)
    }

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
        assert_eq!(add.cmd.args, ["worktree", "add", "-b", "fix", "/w/app-fix"]);
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
    fn the_flow_runs_each_follow_up_right_after_what_led_to_it() {
        let requested = Requested {
            issue: Some(5),
            from_pr: Some(7),
            worktree: Some(Some("fix".into())),
            ..Requested::default()
        };
        let mut flow = Startup::new(&requested, "s");
        let (cmds, done) = drive(&mut flow, |cmd| match cmd.args[0].as_str() {
            "rev-parse" => exited(Program::Git, 0, b"/w/app\n", b""),
            "issue" => exited(Program::Gh, 0, br#"{"number":5,"title":"T"}"#, b""),
            _ => exited(cmd.program, 0, b"", b""),
        });
        let firsts: Vec<_> = cmds
            .iter()
            .map(|c| (c.program, c.args[0].as_str()))
            .collect();
        assert_eq!(
            firsts,
            [
                (Program::Gh, "pr"),
                (Program::Git, "rev-parse"),
                (Program::Git, "worktree"),
                (Program::Gh, "issue")
            ]
        );
        let prepared = done.expect("prepared");
        assert_eq!(prepared.cwd.as_deref(), Some("/w/app-fix"));
        assert_eq!(prepared.issue.map(|i| i.title).as_deref(), Some("T"));
        let (cmds, done) = drive(&mut Startup::new(&Requested::default(), "s"), |_| {
            panic!("nothing to run")
        });
        assert!(cmds.is_empty() && done == Ok(Prepared::default()));
    }

    #[test]
    fn outcomes_are_worded_as_at_run_time() {
        let worktree = Requested {
            worktree: Some(Some("fix".into())),
            ..Requested::default()
        };
        // The first command finds the top directory; `second` is how the worktree's ends.
        let run = |second: Ran| {
            let mut flow = Startup::new(&worktree, "s");
            let mut second = Some(second);
            drive(&mut flow, |cmd| match cmd.args[0].as_str() {
                "rev-parse" => exited(Program::Git, 0, b"/w/app\n", b""),
                _ => second.take().expect("one worktree command"),
            })
            .1
        };
        assert_eq!(
            run(exited(Program::Git, 0, b"ok\n", b"")),
            Ok(Prepared {
                cwd: Some("/w/app-fix".into()),
                issue: None
            })
        );
        assert_eq!(
            run(exited(Program::Git, 128, b"", b"fatal: exists\n")),
            Err("--worktree: cannot create /w/app-fix: fatal: exists".into())
        );
        let why = run(Ran::of(Program::Git, &Ok(None), b"", b"", true)).unwrap_err();
        assert!(why.ends_with("git did not answer in time"), "{why}");
        let mut flow = Startup::new(&worktree, "s");
        let (_, done) = drive(&mut flow, |_| exited(Program::Git, 0, b"/w/\xff\n", b""));
        let why = done.unwrap_err();
        assert!(
            why.contains("not UTF-8") && why.starts_with("--worktree"),
            "{why}"
        );
        let issue = Requested {
            issue: Some(3),
            ..Requested::default()
        };
        let (_, done) = drive(&mut Startup::new(&issue, "s"), |cmd| {
            Ran::of(cmd.program, &Err("No such file".into()), b"", b"", false)
        });
        let why = done.unwrap_err();
        assert!(why.starts_with("--issue 3: gh is not installed"), "{why}");
        let (_, done) = drive(&mut Startup::new(&issue, "s"), |_| {
            exited(Program::Gh, 0, b"not json", b"")
        });
        assert!(
            done.unwrap_err()
                .starts_with("--issue 3: gh gave an unreadable issue")
        );
        let timings = Timings::default();
        assert_eq!(timings.program_timeout(Program::Gh), timings.gh_timeout);
        assert_eq!(timings.program_timeout(Program::Git), timings.git_timeout);
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
