//! GitHub through the user's own `gh`: the command lines luxe runs ([`gh`]) and what their
//! output means ([`parse`]), the workspace probe ([`probe`]) and the clients' requests
//! ([`requests`]) as chains of those commands, all pure; the session runs them
//! (`session/github.rs`).

pub mod diff_lines;
pub mod gh;
pub mod parse;
pub mod probe;
pub mod requests;
