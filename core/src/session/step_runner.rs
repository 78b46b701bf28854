//! Runs [`crate::steps`] flows for a feature of the session (GitHub requests and the workspace
//! probe, stack operations, the commit of review chapters): one runner per feature keeps its
//! flows by id and their commands and file writes by effect, and [`StepRunner::drive`] spawns
//! what a flow asks for with the program's environment and timeout (and the command's own
//! variables and directory), or writes the file it asks for, until the flow is done and its
//! answer goes back to the feature.

use std::collections::BTreeMap;
use std::ops::Add;
use std::time::{Duration, Instant};

use super::outbox::Outbox;
use super::own_commands::{Commands, Finished};
use super::owners::Owner;
use crate::config::Timings;
use crate::effects::{EffectId, Input, Output};
use crate::steps::{Cmd, FileWrite, Flow, Next, Program, Ran};

#[cfg(test)]
pub(super) mod fake;

/// What a runner wants after a flow moved: a command spawned or a file written for flow `.0`,
/// or the flow back with its answer.
#[derive(Debug)]
pub(super) enum Advance<F: Flow> {
    /// Spawn `cmd` for the flow with this id.
    Spawn(u64, Cmd),
    /// Write this file for the flow with this id.
    Write(u64, FileWrite),
    /// The flow is done: the flow itself, and its answer.
    Done(F, F::Output),
}

/// How luxe runs its own commands (git, gh): in the checkout unless a command names another
/// directory, within its program's timeout, and without what luxe's environment withholds
/// from them (the providers' keys). The session lends it, from its own settings, to each
/// machine that runs flows.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shell<'a> {
    /// The session's working directory, where a command runs unless it names another.
    pub(super) cwd: &'a str,
    /// The programs' timeouts (and the poll interval of the workspace).
    pub(super) timings: &'a Timings,
    /// The variables luxe's commands do not inherit.
    pub(super) unset: &'a [String],
}

/// The flows of one feature under way, with their commands' deadlines in `At` (`Instant` in a
/// session, a test's own clock in unit tests).
#[derive(Debug)]
pub(super) struct StepRunner<F, At = Instant> {
    commands: Commands<(u64, Program), At>,
    /// The files being written, by effect, with the flow each is for.
    writes: BTreeMap<EffectId, u64>,
    running: BTreeMap<u64, F>,
    last: u64,
    /// Whether each command must end by its program's timeout.
    bounded: bool,
}

impl<F, At> Default for StepRunner<F, At> {
    fn default() -> Self {
        Self {
            commands: Commands::default(),
            writes: BTreeMap::new(),
            running: BTreeMap::new(),
            last: 0,
            bounded: true,
        }
    }
}

impl<F, At> StepRunner<F, At> {
    /// A runner whose commands run until they end: work on the local index and objects
    /// (the commit of review chapters), which waits on no network and whose time grows with
    /// the tree, so no deadline would be right for every checkout.
    pub(super) fn unbounded() -> Self {
        Self {
            bounded: false,
            ..Self::default()
        }
    }
}

impl<F: Flow, At: Copy + Ord> StepRunner<F, At> {
    /// Starts `flow` under a new id: its first command or file to write, or its answer at once.
    pub(super) fn start(&mut self, mut flow: F) -> Advance<F> {
        self.last += 1;
        let next = flow.start();
        self.advance(self.last, flow, next)
    }

    /// Takes a command's output or end, or how a file write went; `None` while the flow
    /// waits for more.
    pub(super) fn handle(&mut self, input: &Input<'_>) -> Option<Advance<F>> {
        let (id, ran) = match input {
            Input::FileWritten { id, result } => (self.writes.remove(id)?, Ran::written(result)),
            _ => {
                let (_, finished) = self.commands.handle(input);
                let done = finished?;
                let (id, program) = done.purpose;
                (id, ran(&done, program))
            }
        };
        let mut flow = self.running.remove(&id)?;
        let next = flow.on(ran);
        Some(self.advance(id, flow, next))
    }

    /// Records that flow `id`'s command runs as `effect`, to end by `deadline`.
    fn started(&mut self, id: u64, program: Program, effect: EffectId, deadline: Option<At>) {
        self.commands.start(effect, (id, program), deadline);
    }

    /// Records that flow `id`'s file is written as `effect`.
    fn writing(&mut self, id: u64, effect: EffectId) {
        self.writes.insert(effect, id);
    }

    /// The flows under way.
    pub(super) fn flows(&self) -> impl Iterator<Item = &F> {
        self.running.values()
    }

    /// The earliest deadline of a running command.
    pub(super) fn deadline(&self) -> Option<At> {
        self.commands.deadline()
    }

    /// Kills the commands past their deadline at `now`; their exit comes back as a failure.
    pub(super) fn kill_overdue(&mut self, outbox: &mut Outbox, now: At) {
        let overdue = self.commands.overdue(now);
        outbox.extend(overdue.into_iter().map(|id| Output::Kill { id }));
    }

    fn advance(&mut self, id: u64, flow: F, next: Next<F::Output>) -> Advance<F> {
        match next {
            Next::Run(cmd) => {
                self.running.insert(id, flow);
                Advance::Spawn(id, cmd)
            }
            Next::Write(write) => {
                self.running.insert(id, flow);
                Advance::Write(id, write)
            }
            Next::Done(answer) => Advance::Done(flow, answer),
        }
    }
}

impl<F: Flow, At: Copy + Ord + Add<Duration, Output = At>> StepRunner<F, At> {
    /// Spawns or writes what `advance` asks for, as effects of `owner` on `outbox`; the flow and
    /// its answer when it is done.
    pub(super) fn drive(
        &mut self,
        outbox: &mut Outbox,
        shell: &Shell<'_>,
        now: At,
        owner: Owner,
        advance: Advance<F>,
    ) -> Option<(F, F::Output)> {
        match advance {
            Advance::Spawn(id, cmd) => {
                let program = cmd.program;
                let deadline = self
                    .bounded
                    .then(|| now + shell.timings.program_timeout(program));
                let cwd = cmd.cwd.unwrap_or_else(|| shell.cwd.to_owned());
                let mut env = program.env();
                env.extend(cmd.env);
                let effect = outbox.issue(owner, |id| Output::Spawn {
                    id,
                    program: program.name().to_owned(),
                    args: cmd.args,
                    cwd,
                    env,
                    unset: shell.unset.to_vec(),
                    stdin: cmd.stdin,
                });
                self.started(id, program, effect, deadline);
                None
            }
            Advance::Write(id, write) => {
                let effect = outbox.issue(owner, |id| Output::WriteFile {
                    id,
                    path: write.path,
                    bytes: write.bytes,
                });
                self.writing(id, effect);
                None
            }
            Advance::Done(flow, answer) => Some((flow, answer)),
        }
    }
}

/// A command's end as a flow takes it.
fn ran(done: &Finished<(u64, Program)>, program: Program) -> Ran {
    Ran::of(
        program,
        &done.status,
        &done.stdout,
        &done.stderr,
        done.timed_out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Stream;
    use crate::github::requests::{Answer, Request};

    fn spawned<F: Flow>(runner: &mut StepRunner<F>, advance: Advance<F>, effect: u64) -> Cmd {
        let Advance::Spawn(id, cmd) = advance else {
            panic!("a request starts with a command");
        };
        runner.started(id, cmd.program, EffectId(effect), None);
        cmd
    }

    #[test]
    fn a_flow_gets_its_commands_output_whole_and_its_answer_comes_back_with_it() {
        let mut runner = StepRunner::default();
        let advance = runner.start(Request::comment("c".into(), vec!["pr".into()]));
        let cmd = spawned(&mut runner, advance, 7);
        assert_eq!(cmd.program, Program::Gh);
        let out = |bytes: &'static [u8]| Input::ProcessOutput {
            id: EffectId(7),
            stream: Stream::Stdout,
            bytes,
        };
        assert!(runner.handle(&out(b"https://github.com/o/r/")).is_none());
        assert!(runner.handle(&out(b"pull/1#c\n")).is_none());
        assert!(
            runner
                .handle(&Input::ProcessExited {
                    id: EffectId(8),
                    status: Ok(Some(0)),
                })
                .is_none(),
            "another effect's exit is not this flow's"
        );
        let done = runner.handle(&Input::ProcessExited {
            id: EffectId(7),
            status: Ok(Some(0)),
        });
        let Some(Advance::Done(request, answer)) = done else {
            panic!("{done:?}");
        };
        assert_eq!(request.request_id, "c");
        assert_eq!(
            answer,
            Ok(Answer::Commented(Some(
                "https://github.com/o/r/pull/1#c".into()
            )))
        );
        assert_eq!(runner.flows().count(), 0);
    }

    /// Writes a file, then runs `git apply` on it, then answers with what git printed.
    #[derive(Debug, Default)]
    struct WriteThenApply {
        wrote: Option<Ran>,
    }

    impl Flow for WriteThenApply {
        type Output = (Option<Ran>, String);

        fn start(&mut self) -> Next<Self::Output> {
            Next::Write(FileWrite {
                path: "/repo/p.patch".into(),
                bytes: b"diff".to_vec(),
            })
        }

        fn on(&mut self, ran: Ran) -> Next<Self::Output> {
            match self.wrote.take() {
                None => {
                    self.wrote = Some(ran);
                    Next::Run(Cmd::git(vec!["apply".into(), "/repo/p.patch".into()]))
                }
                Some(wrote) => Next::Done((Some(wrote), ran.stdout().to_owned())),
            }
        }
    }

    #[test]
    fn a_file_a_flow_writes_comes_back_to_it_by_its_effect_before_the_next_command() {
        let mut runner = StepRunner::unbounded();
        let Advance::Write(id, write) = runner.start(WriteThenApply::default()) else {
            panic!("the flow starts with a write");
        };
        assert_eq!(write.path, "/repo/p.patch");
        runner.writing(id, EffectId(3));
        let failed = Err("disk full".to_owned());
        let elsewhere = Input::FileWritten {
            id: EffectId(4),
            result: failed.clone(),
        };
        assert!(runner.handle(&elsewhere).is_none(), "not this flow's write");
        let written = runner.handle(&Input::FileWritten {
            id: EffectId(3),
            result: failed,
        });
        let Some(advance @ Advance::Spawn(..)) = written else {
            panic!("the command follows the write: {written:?}");
        };
        assert_eq!(
            spawned(&mut runner, advance, 5).args,
            ["apply", "/repo/p.patch"]
        );
        assert!(
            runner
                .handle(&Input::ProcessExited {
                    id: EffectId(5),
                    status: Ok(Some(0)),
                })
                .is_some_and(|done| matches!(
                    done,
                    Advance::Done(_, (Some(wrote), _)) if wrote.failure() == Some("disk full")
                ))
        );
    }
}
