//! The one way luxe runs a chain of its own commands (GitHub requests and the workspace
//! probe, the start-up commands, the stack operations, the commit of review chapters): a pure
//! state machine that asks for one step at a time — a git, gh or rm command, or a file to write
//! for a later command to read — and is told how it ended, until it is done. The session
//! spawns the commands (with each program's environment and timeout, and the command's own
//! variables and directory) and writes the files; unit tests and the fuzzer feed results
//! instead.

mod gh_runs;

use crate::git::status::NO_OPTIONAL_LOCKS;
use crate::protocol::github::GithubState;

/// Which program a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    /// The git CLI.
    Git,
    /// GitHub's `gh` CLI, as the user installed and logged it in.
    Gh,
    /// rm, for luxe's own temporary files (a temporary index and its patch).
    Rm,
}

impl Program {
    /// Its name on `PATH`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Git => "git",
            Self::Gh => "gh",
            Self::Rm => "rm",
        }
    }

    /// What it gets on top of luxe's environment: gh never prompts, pages or colours; git
    /// never asks for credentials nor takes a lock it can do without.
    pub fn env(self) -> Vec<(String, String)> {
        match self {
            Self::Gh => gh_runs::env(),
            Self::Rm => Vec::new(),
            Self::Git => {
                let (locks, off) = NO_OPTIONAL_LOCKS;
                vec![
                    ("GIT_TERMINAL_PROMPT".into(), "0".into()),
                    (locks.into(), off.into()),
                ]
            }
        }
    }
}

/// A command to run, in the checkout unless it names another directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cmd {
    /// git, gh or rm.
    pub program: Program,
    /// Its arguments after the program name, each passed as it is (no shell).
    pub args: Vec<String>,
    /// Variables it gets on top of its program's ([`Program::env`]): `GIT_INDEX_FILE` for a
    /// temporary index.
    pub env: Vec<(String, String)>,
    /// The directory it runs in when not the session's (the repository's top directory, which
    /// a review's paths are relative to).
    pub cwd: Option<String>,
    /// What it reads on stdin (empty: none).
    pub stdin: Vec<u8>,
}

impl Cmd {
    /// `program args`, in the session's directory with its program's environment.
    pub fn new(program: Program, args: Vec<String>) -> Self {
        Self {
            program,
            args,
            env: Vec::new(),
            cwd: None,
            stdin: Vec::new(),
        }
    }

    /// `git args`.
    pub fn git(args: Vec<String>) -> Self {
        Self::new(Program::Git, args)
    }

    /// `gh args`.
    pub fn gh(args: Vec<String>) -> Self {
        Self::new(Program::Gh, args)
    }

    /// The same command with `name=value` in its environment.
    pub fn with_env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The same command reading `bytes` on stdin.
    pub fn with_stdin(mut self, bytes: Vec<u8>) -> Self {
        self.stdin = bytes;
        self
    }

    /// The same command run in `dir`.
    pub fn in_dir(mut self, dir: &str) -> Self {
        self.cwd = Some(dir.to_owned());
        self
    }
}

/// A file to write for a later command to read (a patch for `git apply --cached`, since a
/// command's stdin is closed): written atomically, its directories created; its end comes back
/// as a [`Ran`] with no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// Absolute path.
    pub path: String,
    /// The whole content.
    pub bytes: Vec<u8>,
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// `Ok(stdout)` on exit 0, else why it failed (stderr, or what happened).
    pub result: Result<String, String>,
    /// What it printed on a failure too: gh exits 8 while checks are pending, and its JSON is
    /// still the answer.
    pub printed: String,
    /// The dock state a gh failure implies (gh missing, logged out), when it implies one.
    pub gh_state: Option<GithubState>,
    /// Whether its output was UTF-8 (else `printed` has U+FFFD where it was not): a path
    /// luxe goes on to use must be exactly what the command printed.
    pub utf8: bool,
}

impl Ran {
    /// Exit 0 with this output.
    pub fn ok(stdout: impl Into<String>) -> Self {
        let stdout = stdout.into();
        Self {
            printed: stdout.clone(),
            result: Ok(stdout),
            gh_state: None,
            utf8: true,
        }
    }

    /// A failure with this reason.
    pub fn failed(reason: impl Into<String>) -> Self {
        Self {
            result: Err(reason.into()),
            printed: String::new(),
            gh_state: None,
            utf8: true,
        }
    }

    /// How writing a file ended: `Ok`, or why not.
    pub fn written(result: &Result<(), String>) -> Self {
        match result {
            Ok(()) => Self::ok(""),
            Err(why) => Self::failed(why.clone()),
        }
    }

    /// A command of `program` that ended with `status` (`Ok(Some(code))` on exit, `Ok(None)`
    /// when killed, `Err` when it could not start; `timed_out` when killed at its deadline),
    /// having printed `stdout` and `stderr`: why it failed in that program's words.
    pub fn of(
        program: Program,
        status: &Result<Option<i32>, String>,
        stdout: &[u8],
        stderr: &[u8],
        timed_out: bool,
    ) -> Self {
        let stderr = String::from_utf8_lossy(stderr);
        let (failure, gh_state) = match program {
            Program::Gh => match gh_runs::gh_exit_failure(status, &stderr, timed_out) {
                Some((state, reason)) => (Some(reason), state),
                None => (None, None),
            },
            Program::Git | Program::Rm => (
                exit_failure(program.name(), status, &stderr, timed_out),
                None,
            ),
        };
        let printed = String::from_utf8_lossy(stdout).into_owned();
        Self {
            result: match failure {
                None => Ok(printed.clone()),
                Some(reason) => Err(reason),
            },
            printed,
            gh_state,
            utf8: std::str::from_utf8(stdout).is_ok(),
        }
    }

    /// Its standard output, whatever the exit.
    pub fn stdout(&self) -> &str {
        &self.printed
    }

    /// Why it failed, or `None` on exit 0.
    pub fn failure(&self) -> Option<&str> {
        self.result.as_ref().err().map(String::as_str)
    }
}

/// Why a command `name` failed, in words, or `None` when it exited 0 in time: `status` is
/// `Ok(Some(code))` on exit, `Ok(None)` when killed, `Err` when it could not start.
pub fn exit_failure(
    name: &str,
    status: &Result<Option<i32>, String>,
    stderr: &str,
    timed_out: bool,
) -> Option<String> {
    let stderr = stderr.trim();
    match status {
        Ok(Some(0)) if !timed_out => None,
        _ if timed_out => Some(format!("{name} did not answer in time")),
        Err(err) => Some(format!("cannot run {name}: {err}")),
        Ok(_) if !stderr.is_empty() => Some(stderr.to_owned()),
        Ok(Some(code)) => Some(format!("{name} exited with {code}")),
        Ok(None) => Some(format!("{name} was killed")),
    }
}

/// What a flow wants next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next<T> {
    /// Run this and report how it ended.
    Run(Cmd),
    /// Write this file and report how it went.
    Write(FileWrite),
    /// The flow is over, with this answer; it asks for no more steps.
    Done(T),
}

impl<T> Next<T> {
    /// The same step with the answer mapped.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Next<U> {
        match self {
            Self::Run(cmd) => Next::Run(cmd),
            Self::Write(write) => Next::Write(write),
            Self::Done(done) => Next::Done(f(done)),
        }
    }
}

/// A chain of commands as the session (and the tests and the fuzzer) drives it.
pub trait Flow {
    /// What it ends with.
    type Output;
    /// The first command, or the answer when none is needed.
    fn start(&mut self) -> Next<Self::Output>;
    /// Takes the last command's end.
    fn on(&mut self, ran: Ran) -> Next<Self::Output>;
}

/// A step a flow asked for, as a test sees it.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Asked {
    /// A command the flow asked to run ([`Next::Run`]).
    Run(Cmd),
    /// A file written.
    Write(FileWrite),
}

/// Runs `flow` to its end answering each step with `answer`, as the session would run them;
/// the steps it asked for and its answer. For the flows' unit tests.
#[cfg(test)]
pub(crate) fn drive_steps<F: Flow>(
    flow: &mut F,
    mut answer: impl FnMut(&Asked) -> Ran,
) -> (Vec<Asked>, F::Output) {
    let mut asked = Vec::new();
    let mut next = flow.start();
    loop {
        let step = match next {
            Next::Run(cmd) => Asked::Run(cmd),
            Next::Write(write) => Asked::Write(write),
            Next::Done(done) => return (asked, done),
        };
        assert!(asked.len() < 1_000, "a flow ends: {asked:?}");
        let ran = answer(&step);
        asked.push(step);
        next = flow.on(ran);
    }
}

/// Runs `flow` to its end answering each command with `answer` (and each file written with
/// success), as the session would spawn them; the commands it asked for and its answer. For
/// the flows' unit tests.
#[cfg(test)]
pub(crate) fn drive<F: Flow>(
    flow: &mut F,
    mut answer: impl FnMut(&Cmd) -> Ran,
) -> (Vec<Cmd>, F::Output) {
    let (asked, done) = drive_steps(flow, |step| match step {
        Asked::Run(cmd) => answer(cmd),
        Asked::Write(_) => Ran::ok(""),
    });
    let cmds = asked
        .into_iter()
        .filter_map(|step| match step {
            Asked::Run(cmd) => Some(cmd),
            Asked::Write(_) => None,
        })
        .collect();
    (cmds, done)
}
