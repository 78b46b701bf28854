//! The seeded simulator (`luxe-sim`): each seed is one run of two `--rpc` sessions, an `--acp`
//! host, the terminal interface and MCP servers side by side, with the model, io and the clock,
//! every step checked. A failing seed prints itself and its replay command:
//! `LUXE_SIM_SEED=<n> cargo test -p luxe-tests --test sim` runs that seed alone (twice, the
//! transcripts compared). `LUXE_SIM_SEEDS=<count>` (or `<from>..<to>`) runs that many instead
//! of the default few hundred; `LUXE_SIM_STEPS` sets the steps of each run.

use std::ops::Range;
use std::time::Instant;

use luxe_sim::run_seed;
use luxe_sim::world::KINDS;

/// Steps in each run unless `LUXE_SIM_STEPS` says.
const STEPS: usize = 150;

/// Seeds `cargo test` runs unless told otherwise.
const SEEDS: u64 = 300;

fn steps() -> usize {
    std::env::var("LUXE_SIM_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(STEPS)
}

/// The seeds to run: `LUXE_SIM_SEED` alone, else `LUXE_SIM_SEEDS` (a count from 0, or a
/// range), else the first [`SEEDS`].
fn seeds() -> Range<u64> {
    if let Some(seed) = env_number("LUXE_SIM_SEED") {
        return seed..seed.saturating_add(1);
    }
    match std::env::var("LUXE_SIM_SEEDS") {
        Ok(text) => match text.split_once("..") {
            Some((from, to)) => parse(from)..parse(to),
            None => 0..parse(&text),
        },
        Err(_) => 0..SEEDS,
    }
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|text| parse(&text))
}

fn parse(text: &str) -> u64 {
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {text:?}"))
}

#[test]
fn every_seed_keeps_every_promise() {
    let (seeds, steps) = (seeds(), steps());
    let started = Instant::now();
    let count = seeds.end - seeds.start;
    for seed in seeds {
        run_seed(seed, steps);
    }
    let elapsed = started.elapsed();
    // Each seed runs four sessions (two rpc, an ACP host, the interface).
    println!(
        "{count} seeds of {steps} steps in {:.1} s: {:.0} seeds a minute",
        elapsed.as_secs_f64(),
        count as f64 * 60.0 / elapsed.as_secs_f64().max(1e-9)
    );
}

#[test]
fn a_seed_replays_byte_for_byte() {
    let seeds: Vec<u64> = match env_number("LUXE_SIM_SEED") {
        Some(seed) => vec![seed],
        None => vec![0, 1, 17, 4242, u64::MAX],
    };
    for seed in seeds {
        let first = run_seed(seed, steps());
        let again = run_seed(seed, steps());
        assert_eq!(
            first.transcript, again.transcript,
            "seed {seed} ran differently the second time"
        );
    }
    // Another seed is another run.
    assert_ne!(run_seed(1, 50).transcript, run_seed(2, 50).transcript);
}

/// A kind counts only when one of its steps did something (a permission answer with a prompt
/// open, a model answer with a request waiting), not when it was merely drawn.
#[test]
fn a_hundred_seeds_reach_every_kind_of_step() {
    let mut reached = std::collections::BTreeSet::new();
    for seed in 0..100 {
        reached.extend(run_seed(seed, steps()).reached);
    }
    let missed: Vec<&str> = (KINDS.iter().copied())
        .filter(|kind| !reached.contains(*kind))
        .collect();
    println!(
        "100 seeds reached {} of the {} kinds of step",
        KINDS.len() - missed.len(),
        KINDS.len()
    );
    assert!(missed.is_empty(), "never reached: {missed:?}");
    let unknown: Vec<&String> = (reached.iter())
        .filter(|kind| !KINDS.contains(&kind.as_str()))
        .collect();
    assert!(unknown.is_empty(), "KINDS lacks {unknown:?}");
}
