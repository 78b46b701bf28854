//! `luxe-interface`: Luxe's full-screen terminal interface as a pure machine, a front door like
//! `--acp`. It drives one session only through the protocol's actions (the JSON lines an
//! `--rpc` client writes) and reads only its events (the typed values an `--rpc` client reads),
//! so anything it does an `--rpc` client can do too. Keys, pastes, resizes and the wheel come
//! in as [`TermEvent`]s with the time; the session's effects go out to io unchanged; the screen
//! is drawn by a pure function into a `ratatui` `Buffer`. io owns the terminal.
//!
//! It is a crate of its own beside core rather than a module of it: core's dependencies stay
//! data crates for the protocol and the agent, and ratatui's core types are needed only here.

mod composer;
mod diff_rows;
mod highlight;
mod history;
mod keys;
mod machine;
mod markdown;
mod mention;
mod one_shot;
mod picker;
mod render;
mod review;
mod sheet;
mod slash;
mod text;
mod transcript;
mod view;

pub use history::{HISTORY_FILE, earlier_inputs};
pub use keys::{Key, KeyCode, Mods, TermEvent};
pub use machine::{FRAME_INTERVAL, Interface, Request};
pub use one_shot::{OnAsk, OneShot};
