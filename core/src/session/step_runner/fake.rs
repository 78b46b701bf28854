//! A fake git and gh for unit tests of the machines on the step runner: what a machine asked
//! for, read off its outbox, and the inputs a command's end comes back as, so a test plays the
//! commands' part by hand.

use std::time::Duration;

use super::Shell;
use crate::config::Timings;
use crate::effects::{EffectId, Input, Output, Stream};
use crate::protocol::events::Event;
use crate::session::outbox::Outbox;

/// The checkout the tests' commands run in.
pub(in crate::session) const CWD: &str = "/repo";

/// A variable luxe's own commands must not inherit.
pub(in crate::session) const UNSET: &str = "OPENAI_API_KEY";

/// The test clock: time since the test began.
pub(in crate::session) type Ms = Duration;

/// `ms` after the test began.
pub(in crate::session) fn at(ms: u64) -> Ms {
    Duration::from_millis(ms)
}

/// How the tests run commands: in [`CWD`], with `timings`, without [`UNSET`].
pub(in crate::session) fn shell<'a>(timings: &'a Timings, unset: &'a [String]) -> Shell<'a> {
    Shell {
        cwd: CWD,
        timings,
        unset,
    }
}

/// The variables a test's shell withholds.
pub(in crate::session) fn unset() -> Vec<String> {
    vec![UNSET.to_owned()]
}

/// A command a machine spawned.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::session) struct Spawned {
    pub(in crate::session) id: EffectId,
    pub(in crate::session) program: String,
    pub(in crate::session) args: Vec<String>,
    pub(in crate::session) cwd: String,
    pub(in crate::session) env: Vec<(String, String)>,
    pub(in crate::session) unset: Vec<String>,
    /// What it reads on stdin.
    pub(in crate::session) stdin: Vec<u8>,
}

impl Spawned {
    /// `program arg…`, to compare command lines at a glance.
    pub(in crate::session) fn line(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What a machine queued on its outbox since the last drain, sorted by kind.
#[derive(Debug, Default)]
pub(in crate::session) struct Drained {
    pub(in crate::session) spawned: Vec<Spawned>,
    pub(in crate::session) events: Vec<Event>,
    pub(in crate::session) killed: Vec<EffectId>,
    /// Files written: the effect, the path and the bytes.
    pub(in crate::session) written: Vec<(EffectId, String, Vec<u8>)>,
}

impl Drained {
    /// The only command spawned.
    pub(in crate::session) fn one_spawn(&self) -> &Spawned {
        match self.spawned.as_slice() {
            [only] => only,
            other => panic!("one command, not {other:?} (events {:?})", self.events),
        }
    }

    /// The events' kinds, in order.
    pub(in crate::session) fn kinds(&self) -> Vec<&str> {
        self.events.iter().map(Event::kind).collect()
    }

    /// Whether nothing at all was queued.
    pub(in crate::session) fn is_empty(&self) -> bool {
        self.spawned.is_empty()
            && self.events.is_empty()
            && self.killed.is_empty()
            && self.written.is_empty()
    }
}

/// A machine with its outbox and the settings its shell lends it, kept between inputs.
pub(in crate::session) struct Rig<M> {
    pub(in crate::session) machine: M,
    pub(in crate::session) outbox: Outbox,
    pub(in crate::session) timings: Timings,
    pub(in crate::session) unset: Vec<String>,
}

impl<M: Default> Rig<M> {
    /// A new machine, with default timings and the test's withheld variables.
    pub(in crate::session) fn new() -> Self {
        Self {
            machine: M::default(),
            outbox: Outbox::default(),
            timings: Timings::default(),
            unset: unset(),
        }
    }

    /// Everything the machine queued since the last look.
    pub(in crate::session) fn drain(&mut self) -> Drained {
        drain(&mut self.outbox)
    }
}

/// Takes everything queued on `outbox`; panics on an output no step-runner machine makes.
pub(in crate::session) fn drain(outbox: &mut Outbox) -> Drained {
    let mut drained = Drained::default();
    while let Some(output) = outbox.pop() {
        match output {
            Output::Spawn {
                id,
                program,
                args,
                cwd,
                env,
                unset,
                stdin,
            } => drained.spawned.push(Spawned {
                id,
                program,
                args,
                cwd,
                env,
                unset,
                stdin,
            }),
            Output::Frame(frame) => drained.events.push(frame.event().clone()),
            Output::Kill { id } => drained.killed.push(id),
            Output::WriteFile { id, path, bytes } => drained.written.push((id, path, bytes)),
            other => panic!("not an output of a step-runner machine: {other:?}"),
        }
    }
    drained
}

/// The inputs a command `id` ends with: what it printed, then its exit `status`
/// (`Ok(Some(code))`, `Ok(None)` when killed, `Err` when it could not start).
pub(in crate::session) fn ended<'a>(
    id: EffectId,
    stdout: &'a str,
    stderr: &'a str,
    status: Result<Option<i32>, String>,
) -> Vec<Input<'a>> {
    let mut inputs = Vec::new();
    for (stream, text) in [(Stream::Stdout, stdout), (Stream::Stderr, stderr)] {
        if !text.is_empty() {
            inputs.push(Input::ProcessOutput {
                id,
                stream,
                bytes: text.as_bytes(),
            });
        }
    }
    inputs.push(Input::ProcessExited { id, status });
    inputs
}
