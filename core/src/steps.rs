//! The one way luxe runs a chain of its own commands (GitHub requests and the workspace
//! probe, the stack operations): a pure state machine that asks for one git or gh command at
//! a time and is told how it ended, until it is done. The session spawns the commands (with
//! each program's environment and timeout); unit tests and the fuzzer feed results instead.

use crate::protocol::github::GithubState;

/// Which program a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    /// The git CLI.
    Git,
    /// The user's gh.
    Gh,
}

/// A command to run in the checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cmd {
    /// git or gh.
    pub program: Program,
    /// Its arguments.
    pub args: Vec<String>,
}

impl Cmd {
    /// `git args`.
    pub fn git(args: Vec<String>) -> Self {
        Self {
            program: Program::Git,
            args,
        }
    }

    /// `gh args`.
    pub fn gh(args: Vec<String>) -> Self {
        Self {
            program: Program::Gh,
            args,
        }
    }
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
}

impl Ran {
    /// Exit 0 with this output.
    pub fn ok(stdout: impl Into<String>) -> Self {
        let stdout = stdout.into();
        Self {
            printed: stdout.clone(),
            result: Ok(stdout),
            gh_state: None,
        }
    }

    /// A failure with this reason.
    pub fn failed(reason: impl Into<String>) -> Self {
        Self {
            result: Err(reason.into()),
            printed: String::new(),
            gh_state: None,
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

/// What a flow wants next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next<T> {
    /// Run this and report how it ended.
    Run(Cmd),
    /// Finished with this.
    Done(T),
}

impl<T> Next<T> {
    /// The same step with the answer mapped.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Next<U> {
        match self {
            Self::Run(cmd) => Next::Run(cmd),
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

/// Runs `flow` to its end answering each command with `answer`, as the session would spawn
/// them; the commands it asked for and its answer. For the flows' unit tests.
#[cfg(test)]
pub(crate) fn drive<F: Flow>(
    flow: &mut F,
    mut answer: impl FnMut(&Cmd) -> Ran,
) -> (Vec<Cmd>, F::Output) {
    let mut cmds = Vec::new();
    let mut next = flow.start();
    loop {
        match next {
            Next::Run(cmd) => {
                assert!(cmds.len() < 1_000, "a flow ends: {cmds:?}");
                let ran = answer(&cmd);
                cmds.push(cmd);
                next = flow.on(ran);
            }
            Next::Done(done) => return (cmds, done),
        }
    }
}
