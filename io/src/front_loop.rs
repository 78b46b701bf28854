//! The loop of a front door that is not a stream of frames (the interface, `-p`): it performs
//! the session's effects and waits for the next thing to happen (an event of its own, an
//! effect's result, SIGTERM or SIGHUP, the core's deadline); the caller does its own part
//! (draw the screen, print the answer) between turns.

use std::time::Instant;

use async_signal::{Signal, Signals};
use luxe_core::effects::Completion;
use luxe_core::{Input, Machine, Output};
use smol::channel::Receiver;
use smol::future::FutureExt as _;
use smol::stream::StreamExt as _;

use crate::effects::Effects;

/// Runs `machine` with `effects` until it exits; `events` feed `take` (`None`: no events),
/// and `between` runs after every turn of the loop (draw, print), the last one included.
/// Returns the exit status.
pub(crate) async fn run<M: Machine, E>(
    machine: &mut M,
    mut effects: Effects,
    completions: Receiver<Completion>,
    events: Option<Receiver<E>>,
    mut take: impl FnMut(&mut M, Instant, E),
    mut between: impl FnMut(&mut M),
) -> i32 {
    let mut signals = Signals::new([Signal::Term, Signal::Hup]).ok();
    let mut timer = smol::Timer::never();
    // The deadline the timer is set to: set again only when it changes, since every setting
    // goes through the reactor (a streamed answer's every event would set the same frame's).
    let mut armed = None;
    loop {
        if let Some(code) = perform(machine, &mut effects) {
            between(machine);
            effects.finish(&completions).await;
            return code;
        }
        between(machine);
        let at = machine.poll_timeout();
        if at != armed {
            if let Some(at) = at {
                timer.set_at(at);
            }
            armed = at;
        }
        let event = async {
            match &events {
                Some(events) => match events.recv().await {
                    Ok(event) => Turn::Event(event),
                    Err(_) => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        };
        let completed = async {
            match completions.recv().await {
                Ok(completion) => Turn::Completed(completion),
                Err(_) => std::future::pending().await,
            }
        };
        let signal = async {
            match signals.as_mut() {
                Some(signals) => {
                    signals.next().await;
                    Turn::Signal
                }
                None => std::future::pending().await,
            }
        };
        let deadline = async {
            (&mut timer).await;
            // Fired: the next deadline sets it again, even the same one.
            Turn::Deadline
        };
        let turn = signal.or(event.race(completed)).or(deadline).await;
        let now = Instant::now();
        match turn {
            Turn::Event(event) => {
                take(machine, now, event);
                // Events that came meanwhile (keys typed ahead) go in before the next frame.
                while let Some(event) = events.as_ref().and_then(|e| e.try_recv().ok()) {
                    take(machine, now, event);
                }
            }
            Turn::Completed(completion) => {
                completion.lend(|input| machine.handle_input(now, input));
                while let Ok(next) = completions.try_recv() {
                    if let Some(code) = perform(machine, &mut effects) {
                        between(machine);
                        effects.finish(&completions).await;
                        return code;
                    }
                    next.lend(|input| machine.handle_input(now, input));
                }
            }
            Turn::Signal => machine.handle_input(now, Input::Terminate),
            Turn::Deadline => armed = None,
        }
        if machine.poll_timeout().is_some_and(|at| at <= now) {
            machine.handle_timeout(now);
        }
    }
}

/// What one turn of the loop took.
enum Turn<E> {
    Event(E),
    Completed(Completion),
    Signal,
    /// The timer fired.
    Deadline,
}

/// Performs the machine's effects; the exit status once it asks to exit. Frames never leave
/// these front doors: they are the machine's own to read.
fn perform<M: Machine>(machine: &mut M, effects: &mut Effects) -> Option<i32> {
    let mut exit = None;
    while let Some(output) = machine.poll_output() {
        match output {
            Output::AppendFile { id, path, bytes } => {
                Effects::append(id, &path, &bytes)
                    .lend(|input| machine.handle_input(Instant::now(), input));
            }
            Output::Log(line) => tracing::warn!("{line}"),
            Output::Exit { code } => exit = Some(code),
            Output::Frame(_) | Output::Flush | Output::Message(_) => {}
            effect => effects.start(effect),
        }
    }
    if exit.is_some() {
        effects.shutdown();
    }
    exit
}
