//! Child processes luxe runs for itself (git for chapter commits, gh), as opposed to the
//! agent's `bash`: each collects its output, ends by its deadline, and comes back whole, with
//! what it was for, to whoever started it.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::effects::{EffectId, Input, Stream};

/// The most output kept of one command; gh's largest answers (a PR's diff) fit well inside.
const OUTPUT_MAX: usize = 64 * 1024 * 1024;

/// A command's end.
#[derive(Debug)]
pub(super) struct Finished<P> {
    /// The purpose its starter gave it, handed back so the starter knows which command ended.
    pub(super) purpose: P,
    /// `Ok(Some(code))` on exit, `Ok(None)` when killed, `Err` when it could not start.
    pub(super) status: Result<Option<i32>, String>,
    /// Its standard output.
    pub(super) stdout: Vec<u8>,
    /// Its standard error.
    pub(super) stderr: Vec<u8>,
    /// Whether it was killed for running past its deadline.
    pub(super) timed_out: bool,
}

/// A command started and not yet ended: what it is for, its output so far, its deadline.
#[derive(Debug)]
struct Running<P, At> {
    purpose: P,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    deadline: Option<At>,
    timed_out: bool,
}

/// The running commands of one kind of work, by effect. Time is whatever the caller measures
/// deadlines in (`Instant` in a session), so the machines on it are driven without a clock.
#[derive(Debug)]
pub(super) struct Commands<P, At = Instant> {
    running: BTreeMap<EffectId, Running<P, At>>,
}

impl<P, At> Default for Commands<P, At> {
    fn default() -> Self {
        Self {
            running: BTreeMap::new(),
        }
    }
}

impl<P, At: Copy + Ord> Commands<P, At> {
    /// Remembers command `id`, to end by `deadline` when given.
    pub(super) fn start(&mut self, id: EffectId, purpose: P, deadline: Option<At>) {
        self.running.insert(
            id,
            Running {
                purpose,
                stdout: Vec::new(),
                stderr: Vec::new(),
                deadline,
                timed_out: false,
            },
        );
    }

    /// Takes `input` if it belongs to one of these commands: `Some(true)` when taken,
    /// `Some(false)` not, and the command's end when it ended.
    pub(super) fn handle(&mut self, input: &Input<'_>) -> (bool, Option<Finished<P>>) {
        match input {
            Input::ProcessOutput { id, stream, bytes } => match self.running.get_mut(id) {
                Some(running) => {
                    let out = match stream {
                        Stream::Stdout => &mut running.stdout,
                        Stream::Stderr => &mut running.stderr,
                    };
                    let room = OUTPUT_MAX.saturating_sub(out.len());
                    out.extend_from_slice(&bytes[..room.min(bytes.len())]);
                    (true, None)
                }
                None => (false, None),
            },
            Input::ProcessExited { id, status } => match self.running.remove(id) {
                Some(running) => (
                    true,
                    Some(Finished {
                        purpose: running.purpose,
                        status: status.clone(),
                        stdout: running.stdout,
                        stderr: running.stderr,
                        timed_out: running.timed_out,
                    }),
                ),
                None => (false, None),
            },
            _ => (false, None),
        }
    }

    /// The earliest deadline of a command not yet killed.
    pub(super) fn deadline(&self) -> Option<At> {
        self.running
            .values()
            .filter(|r| !r.timed_out)
            .filter_map(|r| r.deadline)
            .min()
    }

    /// The commands past their deadline at `now`, marked so; io kills them and their exit
    /// comes back as usual.
    pub(super) fn overdue(&mut self, now: At) -> Vec<EffectId> {
        self.running
            .iter_mut()
            .filter(|(_, r)| !r.timed_out && r.deadline.is_some_and(|d| d <= now))
            .map(|(id, r)| {
                r.timed_out = true;
                *id
            })
            .collect()
    }
}
