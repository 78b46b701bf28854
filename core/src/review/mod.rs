//! Guided review: a diff read from git ([`source`], settled by the rules of [`diff_rules`]) built into files, hunks and chapters
//! ([`model`]) by [`build`], with content-hash ids ([`ids`]) so that findings can stay anchored
//! while the diff moves, a reading order ([`chapters`]), and the findings a reviewer and the
//! agent leave on it ([`findings`]).

pub mod build;
pub mod chapters;
mod compact;
pub mod diff_rules;
mod discard;
mod file_kinds;
pub mod findings;
mod funcname;
mod hunks;
pub mod ids;
mod lines;
pub mod model;
pub mod patch;
pub mod path_line;
#[cfg(test)]
mod properties;
pub mod source;
