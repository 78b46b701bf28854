//! How a stack operation runs: a pure state machine that asks for one command at a time and
//! is told how it ended, until it is done. The session spawns the commands; tests feed results.

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
}

impl Ran {
    /// Exit 0 with this output.
    pub fn ok(stdout: impl Into<String>) -> Self {
        Self {
            result: Ok(stdout.into()),
        }
    }

    /// A failure with this reason.
    pub fn failed(reason: impl Into<String>) -> Self {
        Self {
            result: Err(reason.into()),
        }
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

/// A stack operation as the session (and the fuzzer) drives it.
pub trait Flow {
    /// What it ends with.
    type Output;
    /// The first command, or the answer when none is needed.
    fn start(&mut self) -> Next<Self::Output>;
    /// Takes the last command's end.
    fn on(&mut self, ran: Ran) -> Next<Self::Output>;
}
