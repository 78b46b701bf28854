//! `luxe-io`: the thin smol shell around `luxe-core`.
//!
//! It reads stdin, writes stdout, catches SIGTERM and keeps the clock, and performs each
//! [`luxe_core::Output`] the core asks for, feeding results back as [`luxe_core::Input`]. It
//! decides nothing: a branch here that chooses *what* to do belongs in the core.

mod driver;
mod effects;
pub mod environment;
mod files;
mod frame_writer;
mod front_loop;
pub mod git;
mod http;
mod opened;
mod piped;
pub mod prepare;
mod process;
mod search;
mod site;
mod terminal;

pub use driver::run;
pub use effects::Effects;
pub use luxe_core::effects::Completion;
pub use terminal::{run_interface, run_one_shot};
