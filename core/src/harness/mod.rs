//! Checked drivers shared by the fuzz targets, the property tests and the simulation harness:
//! they feed `Luxe` and assert the protocol's invariants after every step. A panic here is a
//! bug in luxe (or in this code), never an expected outcome.
//!
//! [`Checked`] is the driver (`checked.rs`), its ledger the promises the frames so far make
//! (`ledger.rs`), [`check_line`] and [`frames`] what every line must be (`frame_checks.rs`),
//! and the fuzz targets' entry points are in `fuzz_bodies.rs`.

mod checked;
mod frame_checks;
mod fuzz_bodies;
mod ledger;

pub use checked::Checked;
pub use frame_checks::{check_line, frames};
pub use fuzz_bodies::{codec, session, shell, stack_flows};

use crate::config::Config;

/// The config fuzzing and simulations start from: no flags, no providers, a fixed id.
pub fn test_config() -> Config {
    Config::new("0.1.0", "session-test", "/work/app")
}
