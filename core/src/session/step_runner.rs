//! Runs [`crate::steps`] flows for a feature of the session (GitHub requests and the workspace
//! probe, stack operations): one runner per feature keeps its flows by id and their commands
//! by effect, and [`Session::drive`] spawns what a flow asks for with the program's
//! environment and timeout, until the flow is done and its answer goes back to the feature.

use std::collections::BTreeMap;
use std::time::Instant;

use super::Session;
use super::own_commands::{Commands, Finished};
use super::owners::Owner;
use crate::effects::{EffectId, Input};
use crate::steps::{Cmd, Flow, Next, Program, Ran};

/// What a runner wants after a flow moved: a command spawned for flow `.0`, or the flow back
/// with its answer.
#[derive(Debug)]
pub(super) enum Advance<F: Flow> {
    /// Spawn `cmd` for the flow with this id.
    Spawn(u64, Cmd),
    /// The flow is done.
    Done(F, F::Output),
}

/// The flows of one feature under way.
#[derive(Debug)]
pub(super) struct StepRunner<F> {
    commands: Commands<(u64, Program)>,
    running: BTreeMap<u64, F>,
    last: u64,
}

impl<F> Default for StepRunner<F> {
    fn default() -> Self {
        Self {
            commands: Commands::default(),
            running: BTreeMap::new(),
            last: 0,
        }
    }
}

impl<F: Flow> StepRunner<F> {
    /// Starts `flow`.
    pub(super) fn start(&mut self, mut flow: F) -> Advance<F> {
        self.last += 1;
        let next = flow.start();
        self.advance(self.last, flow, next)
    }

    /// Takes a command's output or end; `None` while the flow waits for more.
    pub(super) fn handle(&mut self, input: &Input<'_>) -> Option<Advance<F>> {
        let (_, finished) = self.commands.handle(input);
        let done = finished?;
        let (id, program) = done.purpose;
        let ran = ran(&done, program);
        let mut flow = self.running.remove(&id)?;
        let next = flow.on(ran);
        Some(self.advance(id, flow, next))
    }

    /// Records that flow `id`'s command runs as `effect`, to end by `deadline`.
    fn started(&mut self, id: u64, program: Program, effect: EffectId, deadline: Option<Instant>) {
        self.commands.start(effect, (id, program), deadline);
    }

    /// The flows under way.
    pub(super) fn flows(&self) -> impl Iterator<Item = &F> {
        self.running.values()
    }

    /// The earliest deadline of a running command.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.commands.deadline()
    }

    /// The commands past their deadline at `now`, marked so; their exit comes back as a
    /// failure.
    pub(super) fn overdue(&mut self, now: Instant) -> Vec<EffectId> {
        self.commands.overdue(now)
    }

    fn advance(&mut self, id: u64, flow: F, next: Next<F::Output>) -> Advance<F> {
        match next {
            Next::Run(cmd) => {
                self.running.insert(id, flow);
                Advance::Spawn(id, cmd)
            }
            Next::Done(answer) => Advance::Done(flow, answer),
        }
    }
}

impl Session {
    /// Spawns what `advance` asks for, for `owner` whose runner `runner` finds; the flow and
    /// its answer when it is done.
    pub(super) fn drive<F: Flow>(
        &mut self,
        now: Instant,
        owner: Owner,
        runner: fn(&mut Self) -> &mut StepRunner<F>,
        advance: Advance<F>,
    ) -> Option<(F, F::Output)> {
        match advance {
            Advance::Spawn(id, cmd) => {
                let program = cmd.program;
                let timeout = program.timeout(&self.timings);
                let cwd = self.cwd.clone();
                let effect = self.spawn(owner, program.name(), cmd.args, cwd, program.env());
                runner(self).started(id, cmd.program, effect, Some(now + timeout));
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

    fn spawned(runner: &mut StepRunner<Request>, advance: Advance<Request>, effect: u64) -> Cmd {
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
}
