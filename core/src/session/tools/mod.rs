//! The model's tools: definitions, arguments, path resolution and output shaping. Running them
//! is the turn's job (session/tool_run.rs), through effects io performs.

pub mod arg_errors;
pub mod args;
pub mod bash_run;
pub mod definitions;
pub mod environment;
pub mod paths;
pub mod review_args;
pub mod shaping;
pub mod views;
