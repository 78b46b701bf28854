use std::collections::VecDeque;

use quickcheck::quickcheck;

use super::*;
use crate::effects::{EffectId, Frame};
use crate::protocol::events::{Event, SessionsListed};

fn failed_exit() -> Output {
    Output::Exit {
        code: CLOSED_STDOUT_STATUS,
    }
}

fn frame() -> Output {
    Output::Frame(Frame::new(Event::SessionsListed(SessionsListed {
        request_id: "r".into(),
        sessions: Vec::new(),
    })))
}

fn append(id: u64) -> Output {
    Output::AppendFile {
        id: EffectId(id),
        path: "/s".into(),
        bytes: b"{}\n".to_vec(),
    }
}

fn read(id: u64) -> Output {
    Output::ReadFile {
        id: EffectId(id),
        path: "/f".into(),
        max_bytes: 1,
    }
}

/// What `stdout` passes of `queue`, with the client's stdout failing just before the output
/// at `fails_at` is taken (never, when it is past the end); and how many had passed then.
fn passed_failing(queued: Vec<Output>, fails_at: usize) -> (Vec<Output>, usize) {
    let mut queue: VecDeque<Output> = queued.into();
    let mut stdout = ClientStdout::default();
    let mut taken = 0;
    let mut out = Vec::new();
    let mut passed_before = None;
    loop {
        if taken == fails_at && passed_before.is_none() {
            stdout.failed();
            passed_before = Some(out.len());
        }
        let Some(output) = stdout.next(|| {
            taken += 1;
            queue.pop_front()
        }) else {
            let passed_before = passed_before.unwrap_or(out.len());
            return (out, passed_before);
        };
        out.push(output);
    }
}

fn passed(queued: Vec<Output>, fails_at: usize) -> Vec<Output> {
    passed_failing(queued, fails_at).0
}

#[test]
fn while_the_client_reads_everything_passes_and_exit_waits_behind_a_flush() {
    let out = passed(
        vec![frame(), read(1), append(2), Output::Exit { code: 0 }],
        usize::MAX,
    );
    assert_eq!(
        out,
        [
            frame(),
            read(1),
            append(2),
            Output::Flush,
            Output::Exit { code: 0 }
        ]
    );
}

#[test]
fn once_stdout_failed_only_records_and_stopping_pass_and_the_exit_says_so() {
    let queued = vec![
        frame(),
        Output::Flush,
        read(1),
        append(2),
        Output::SyncFile { path: "/s".into() },
        Output::Kill { id: EffectId(3) },
        Output::Exit { code: 0 },
    ];
    assert_eq!(
        passed(queued, 0),
        [
            append(2),
            Output::SyncFile { path: "/s".into() },
            Output::Kill { id: EffectId(3) },
            failed_exit(),
        ]
    );
}

#[test]
fn a_flush_that_fails_before_the_exit_changes_its_status() {
    let mut queue: VecDeque<Output> = vec![frame(), Output::Exit { code: 0 }].into();
    let mut stdout = ClientStdout::default();
    assert_eq!(stdout.next(|| queue.pop_front()), Some(frame()));
    assert_eq!(stdout.next(|| queue.pop_front()), Some(Output::Flush));
    // io's write of the flush fails, and it says so before it polls again.
    stdout.failed();
    assert_eq!(stdout.next(|| queue.pop_front()), Some(failed_exit()));
    assert_eq!(stdout.next(|| queue.pop_front()), None);
}

/// A queue of outputs drawn from a few kinds: a frame, a flush, an effect that starts work, a
/// record, a kill and an exit.
fn drawn(kinds: &[u8]) -> Vec<Output> {
    kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| match kind % 6 {
            0 => frame(),
            1 => Output::Flush,
            2 => read(i as u64),
            3 => append(i as u64),
            4 => Output::Kill {
                id: EffectId(i as u64),
            },
            _ => Output::Exit { code: 0 },
        })
        .collect()
}

quickcheck! {
    fn nothing_reaches_the_client_after_its_stdout_failed(kinds: Vec<u8>, fails_at: usize) -> bool {
        let queued = drawn(&kinds);
        let fails_at = fails_at % (queued.len() + 2);
        let (out, passed_before) = passed_failing(queued.clone(), fails_at);
        let (before, after) = out.split_at(passed_before);
        // Until then every output passes, in order, a flush before each exit.
        let as_queued = queued
            .iter()
            .flat_map(|o| match o {
                Output::Exit { .. } => vec![Output::Flush, o.clone()],
                _ => vec![o.clone()],
            })
            .collect::<Vec<_>>();
        let records = |outputs: &[Output]| {
            outputs
                .iter()
                .filter(|o| matches!(o, Output::AppendFile { .. } | Output::Kill { .. }))
                .count()
        };
        let not_taken = queued.len().saturating_sub(fails_at);
        as_queued.starts_with(before)
            // Then nothing for the client and no new work; the exit says stdout failed.
            && after.iter().all(|o| {
                !matches!(o, Output::Frame(_) | Output::Flush | Output::ReadFile { .. })
                    && !matches!(o, Output::Exit { code } if *code != CLOSED_STDOUT_STATUS)
            })
            // And no record or kill is lost.
            && records(after) == records(&queued[queued.len() - not_taken..])
    }
}
