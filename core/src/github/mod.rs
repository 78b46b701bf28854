//! GitHub through the user's own `gh`: the command lines luxe runs ([`gh`]) and what their
//! output means ([`parse`]), all pure; the session runs them (see `session/github.rs`).

pub mod diff_lines;
pub mod gh;
pub mod parse;
pub mod startup;
