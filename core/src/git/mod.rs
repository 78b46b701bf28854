//! Git facts read through the git CLI and parsed here.

pub mod status;
