//! `luxe-core`: Luxe's protocol and agent logic as a pure, deterministic state machine.
//!
//! Start at [`Luxe`]: its doc comment is the whole contract with a driver. The core does no IO,
//! reads no clock and no environment, and draws no OS randomness; time comes in as `now`, the
//! world comes in as [`Input`] and leaves as [`Output`]. `luxe-io` performs the outputs; tests
//! and fuzzers drive the same machine directly.
//!
//! The modules sit in layers, each importing only those below it: the wire types
//! ([`protocol`]), leaf helpers, the vocabulary between core and io ([`effects`], [`steps`]),
//! the domain helpers, the config, the [`session`], and the front doors. The table, and the
//! test that holds every import to it, is `core/tests/layers.rs`.
//!
//! A feature is found by its name on each layer: the guided review's frames are
//! `protocol::guided_review` (and `protocol/events/guided_review.rs`), its pure rules
//! [`guided_review`], its machine in the session `session/guided_review/`, and the session's
//! routing of its actions `session/routes/guided_review.rs`. GitHub and stacks have the same
//! four places (`protocol::github`, [`github`], `session/github/`, `session/routes/github.rs`;
//! `protocol::stack`, [`stack`], `session/stack.rs`, `session/routes/stack.rs`), their events
//! beside their other wire types; a turn's machine is `session/turn/` with its routing in
//! `session/routes/turn.rs`.
//!
//! ```
//! use std::time::Instant;
//! use luxe_core::{Config, Input, Luxe, Output};
//!
//! let now = Instant::now();
//! let mut luxe = Luxe::new(Config::new("0.1.0", "s1", "/work/app"), now).unwrap();
//! luxe.handle_input(now, Input::ClientBytes(b"{\"kind\":\"close\"}\n"));
//! let mut outputs = Vec::new();
//! while let Some(out) = luxe.poll_output() {
//!     outputs.push(out);
//! }
//! assert!(matches!(outputs.last(), Some(Output::Exit { code: 0 })));
//! ```

#![warn(clippy::unwrap_used)]

pub mod acp;
pub mod client_stdout;
pub mod config;
pub mod effects;
pub mod git;
pub mod github;
pub mod guided_review;
// The checked drivers of the simulator, the properties and the fuzz targets: built for tests
// and for the crates that drive core (feature `sim`), never into the shipped binary.
#[cfg(any(test, feature = "sim"))]
pub mod harness;
mod luxe;
mod machine;
pub mod mcp;
pub mod model;
mod output_order;
pub mod paths;
pub mod permissions;
pub mod process_env;
pub mod protocol;
pub mod redact;
pub mod rng;
pub mod session;
pub mod settings;
pub mod stack;
pub mod steps;
pub mod store;

pub use config::{Config, StartError};
pub use effects::{Input, Output};
pub use luxe::Luxe;
pub use machine::Machine;
