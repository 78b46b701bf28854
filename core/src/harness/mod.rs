//! Checked drivers shared by the fuzz targets, the property tests and the simulation harness:
//! they feed `Luxe` and assert the protocol's invariants after every step. A panic here is a
//! bug in luxe (or in this code), never an expected outcome.
//!
//! [`Checked`] is the driver (`checked.rs`), its ledger the promises the frames so far make
//! (`ledger.rs`), [`check_line`] and [`frames`] what every line must be (`frame_checks.rs`),
//! and the fuzz targets' entry points are in `fuzz_bodies.rs`. [`fake_io`] and
//! [`anthropic_sse`] play io and the model for the drivers that answer effects themselves
//! (`acp::checked`, the turn simulations).

pub mod anthropic_sse;
mod checked;
pub mod fake_io;
mod frame_checks;
mod fuzz_bodies;
mod ledger;

pub use checked::Checked;
pub use frame_checks::{check_line, frames};
pub use fuzz_bodies::{codec, session, shell, stack_flows};

use std::time::Duration;

use crate::config::{Config, Providers};
use crate::model::wire::Endpoint;

/// The config fuzzing and simulations start from: no flags, no providers, a fixed id.
pub fn test_config() -> Config {
    Config::new("0.1.0", "session-test", "/work/app")
}

/// Points `config` at a fake Anthropic (`http://model.test`, its model Claude Sonnet 4.5) with
/// `api_key`, and shortens the waits a simulation runs into (a command's, a silent model's).
pub fn on_fake_anthropic(config: &mut Config, api_key: &str) {
    config.model = Some("anthropic/claude-sonnet-4-5".into());
    config.providers = Providers {
        anthropic: Some(Endpoint {
            base_url: "http://model.test".into(),
            api_key: Some(api_key.into()),
        }),
        openai: None,
    };
    config.timings.bash_timeout = Duration::from_millis(2000);
    config.timings.model_idle_timeout = Duration::from_millis(2500);
}
