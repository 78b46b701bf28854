//! The model's tools: definitions, arguments and output shaping (paths resolve by
//! [`crate::paths`]). Running them
//! is the turn's job (session/tool_run.rs), through effects io performs.

pub mod arg_errors;
pub mod args;
pub mod bash_run;
pub mod definitions;
pub mod review_args;
pub mod shaping;
pub mod views;
