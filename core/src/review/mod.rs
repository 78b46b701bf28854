//! Guided review: a diff read from git ([`source`]) built into files, hunks and chapters
//! ([`model`]), with content-hash ids so that findings can stay anchored while the diff moves.

pub mod model;
pub mod source;
