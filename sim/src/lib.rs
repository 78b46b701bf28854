//! Luxe's simulator. One seed is one run of the whole system on a virtual clock: sessions
//! behind each front door (`--rpc`, `--acp`, the terminal interface's machine), the model, the
//! tools' machine, gh and git played against `luxe-core`, faults drawn from the same seed, and
//! the promises checked after every step. A failing run names its seed, and the seed replays
//! it exactly. The fuzz targets draw the same choices from their bytes ([`draw::Bytes`]), and
//! the quickcheck properties from quickcheck's generator.
//!
//! The rooms: `draw.rs` where choices come from, `session.rs` one checked rpc session driven
//! by hand, `rpc.rs` a simulated rpc session with its model and io, `acp.rs` the ACP host,
//! `interface.rs` the terminal interface, `mcp.rs` an MCP server, `world.rs` all of them
//! together under one seed.

pub mod acp;
pub mod draw;
pub mod interface;
pub mod mcp;
pub mod rpc;
pub mod session;
pub mod world;

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use draw::Seeded;
use world::Run;

/// How many lines of a failed run's transcript are printed (the last ones).
const TAIL: usize = 40;

/// Runs seed `seed` for `steps` steps. When a promise is broken, prints the seed, the command
/// that replays it and the end of the transcript to stderr, then fails as the run did.
pub fn run_seed(seed: u64, steps: usize) -> Run {
    let mut run = Run::default();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        world::run(&mut Seeded::new(seed), steps, &mut run);
    }));
    if let Err(panic) = outcome {
        let from = run.transcript.len().saturating_sub(TAIL);
        eprintln!(
            "the simulation of seed {seed} broke a promise at step {} (its last {} steps below)\n\
             replay it: LUXE_SIM_SEED={seed} cargo test -p luxe-tests --test sim",
            run.transcript.len(),
            run.transcript.len() - from,
        );
        for line in &run.transcript[from..] {
            eprintln!("  {line}");
        }
        resume_unwind(panic);
    }
    run
}
