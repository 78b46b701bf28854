//! The event loop: wait for stdin, a signal, an effect's result or the core's next deadline;
//! feed it; drain.

use std::io::{self, ErrorKind};
use std::time::Instant;

use async_signal::{Signal, Signals};
use luxe_core::{Input, Machine, Output};
use smol::Unblock;
use smol::channel::Receiver;
use smol::future::FutureExt as _;
use smol::io::AsyncReadExt;
use smol::stream::StreamExt as _;

use crate::effects::Effects;
use crate::frame_writer::FrameWriter;
use luxe_core::effects::Completion;

/// Most results taken in one go before frames are written.
const COMPLETION_BATCH: usize = 64;

/// How much of stdin one read takes.
const READ_CHUNK: usize = 64 * 1024;

/// How many effect results may wait for the core before their producers wait too.
const COMPLETION_BACKLOG: usize = 256;

/// What woke the loop.
enum Wake {
    Read(io::Result<usize>),
    Completed(Completion),
    Terminate,
    Deadline,
}

/// Runs a machine (`--rpc`'s `Luxe`, `--acp`'s `Acp`) to its end and returns the process exit
/// status.
pub fn run(luxe: impl Machine) -> i32 {
    let (sender, completions) = smol::channel::bounded(COMPLETION_BACKLOG);
    let effects = Effects::new(sender);
    // HTTP requests' tasks run on this thread, between the loop's turns.
    let local = effects.local_executor();
    smol::block_on(local.run(drive(luxe, effects, completions)))
}

async fn drive(
    mut luxe: impl Machine,
    mut effects: Effects,
    completions: Receiver<Completion>,
) -> i32 {
    let mut writer = FrameWriter::new();
    let mut stdin = Unblock::with_capacity(READ_CHUNK, io::stdin());
    let mut buf = vec![0u8; READ_CHUNK];
    let mut signals = match Signals::new([Signal::Term, Signal::Int]) {
        Ok(signals) => Some(signals),
        Err(err) => {
            tracing::warn!("cannot watch SIGTERM: {err}");
            None
        }
    };
    // One timer for the loop, moved only when the core's deadline comes before the time it is
    // set for: a timer made per turn costs the reactor a wake-up each, thousands in a fast
    // stream. Firing early only costs a turn (the core ignores an early timeout), after which
    // it is set again.
    let mut timer = smol::Timer::never();
    let mut timer_set_for: Option<Instant> = None;
    loop {
        if let Some(code) = perform(&mut luxe, &mut effects, &mut writer) {
            effects.finish(&completions).await;
            return code;
        }
        // Frames go out before the loop waits; a failure is the core's to act on.
        if let Err(err) = writer.flush() {
            write_failed(&mut luxe, &err);
            continue;
        }
        let deadline = luxe.poll_timeout();
        if let Some(at) = deadline
            && timer_set_for.is_none_or(|set_for| at < set_for)
        {
            timer.set_at(at);
            timer_set_for = Some(at);
        }
        let read = async { Wake::Read(stdin.read(&mut buf).await) };
        let completed = async {
            match completions.recv().await {
                Ok(completion) => Wake::Completed(completion),
                // Never: `effects` holds a sender.
                Err(_) => std::future::pending().await,
            }
        };
        let signal = async {
            match signals.as_mut() {
                Some(signals) => {
                    signals.next().await;
                    Wake::Terminate
                }
                None => std::future::pending().await,
            }
        };
        let timer = async {
            (&mut timer).await;
            Wake::Deadline
        };
        // The signal goes first so a flood on stdin or of results cannot starve SIGTERM; stdin
        // and results race fairly so neither starves the other.
        let wake = signal.or(read.race(completed)).or(timer).await;
        let now = Instant::now();
        // A flood may keep the timer from being polled: fire a due deadline anyway.
        let due = deadline.is_some_and(|at| at <= now);
        match wake {
            Wake::Read(Ok(0)) => luxe.handle_input(now, Input::ClientEof),
            Wake::Read(Ok(n)) => luxe.handle_input(now, Input::ClientBytes(&buf[..n])),
            Wake::Read(Err(err)) if err.kind() == ErrorKind::Interrupted => {}
            Wake::Read(Err(err)) => {
                luxe.handle_input(now, Input::ClientReadFailed(err.to_string()));
            }
            Wake::Terminate => {
                tracing::debug!("terminated by signal");
                luxe.handle_input(now, Input::Terminate);
            }
            Wake::Completed(completion) => {
                feed(&mut luxe, now, completion);
                // Results that are already waiting go in before the next write, so a fast
                // stream costs one write per batch rather than one per chunk.
                for _ in 0..COMPLETION_BATCH {
                    let Ok(next) = completions.try_recv() else {
                        break;
                    };
                    if let Some(code) = perform(&mut luxe, &mut effects, &mut writer) {
                        effects.finish(&completions).await;
                        return code;
                    }
                    feed(&mut luxe, now, next);
                }
            }
            // The timer fires once; it is set again next turn.
            Wake::Deadline => timer_set_for = None,
        }
        if due {
            luxe.handle_timeout(now);
        }
    }
}

/// Performs every queued output in the order core gives them (frames buffered until a
/// `Flush` or the next wait, appends on the spot, effects started); returns the exit status
/// once the core asks to exit. A failed write is reported to the core at once, which decides
/// what still goes out.
fn perform(
    luxe: &mut impl Machine,
    effects: &mut Effects,
    writer: &mut FrameWriter,
) -> Option<i32> {
    let mut exit = None;
    while let Some(output) = luxe.poll_output() {
        // A large frame is written while it is encoded.
        let written = match output {
            Output::Frame(frame) => writer.push(&frame),
            Output::Flush => writer.flush(),
            Output::Message(message) => writer.push_message(&message),
            Output::AppendFile { id, path, bytes } => {
                feed(luxe, Instant::now(), Effects::append(id, &path, &bytes));
                Ok(())
            }
            Output::Log(line) => {
                tracing::warn!("{line}");
                Ok(())
            }
            Output::Exit { code } => {
                exit = Some(code);
                Ok(())
            }
            effect => {
                effects.start(effect);
                Ok(())
            }
        };
        if let Err(err) = written {
            write_failed(luxe, &err);
        }
    }
    if exit.is_some() {
        effects.shutdown();
    }
    exit
}

/// Tells the core that stdout failed (the client closed it).
fn write_failed(luxe: &mut impl Machine, err: &io::Error) {
    tracing::debug!("stdout closed: {err}");
    luxe.handle_input(Instant::now(), Input::ClientWriteFailed);
}

/// Hands an effect's result to the core, its bytes lent rather than copied: a diff read holds
/// both sides of every changed file, which the core keeps until the review is built.
fn feed(luxe: &mut impl Machine, now: Instant, completion: Completion) {
    completion.lend(|input| luxe.handle_input(now, input));
}
