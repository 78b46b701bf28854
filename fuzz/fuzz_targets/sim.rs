//! The seeded simulator with the fuzzer's bytes as its choices: two `--rpc` sessions, an
//! `--acp` host and the terminal interface, with the model, io and the clock, every step
//! checked (`luxe_sim::world`). A crash here replays as its input; the same run from a seed is
//! `LUXE_SIM_SEED=<n> cargo test -p luxe-tests --test sim`.
#![no_main]

use luxe_sim::draw::Bytes;
use luxe_sim::world::{Run, run};

/// The most steps one input takes (three bytes or so each).
const MAX_STEPS: usize = 400;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let steps = (data.len() / 3).min(MAX_STEPS);
    let mut transcript = Run::default();
    run(&mut Bytes::new(data), steps, &mut transcript);
});
