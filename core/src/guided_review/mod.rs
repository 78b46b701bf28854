//! Guided review: a diff read from git ([`crate::effects::DiffSource`], settled by the rules of [`diff_rules`])
//! built into files, hunks and chapters (`crate::protocol::guided_review`, the types frames carry) by
//! [`build`], with content-hash ids ([`ids`]) so that findings can stay anchored while the
//! diff moves, a reading order ([`chapters`]), the edits a reviewer and the agent make to
//! the findings ([`findings`]), and the chain of git commands that commits chapters
//! ([`commit_flow`]). The same line diff, printed as unified diff text ([`unified`]), is what
//! a write or an edit shows of its change.

pub mod build;
pub mod chapters;
pub mod commit_flow;
pub mod diff_rules;
mod discard;
mod file_kinds;
pub mod findings;
mod funcname;
mod hunks;
pub mod ids;
mod lines;
pub mod patch;
pub mod path_line;
#[cfg(test)]
mod properties;
mod slide;
pub mod unified;
