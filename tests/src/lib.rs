//! Test support for Luxe (the simulations are `luxe-sim`'s): a [`process::LuxeProcess`] that spawns the real `luxe` binary and speaks frames to it, a
//! [`model_server::ModelServer`] that plays scripted model replies over HTTP, a
//! [`fake_gh::FakeGh`] that stands in for the user's `gh` on `PATH`, [`pty::Terminal`] that
//! runs a program on a pseudo-terminal and reads its screen, and [`client_tools`], the tools a
//! client author points at the protocol schema.

pub mod acp_client;
pub mod bench;
pub mod client_tools;
pub mod fake_gh;
pub mod git_repo;
pub mod large_review;
pub mod llama;
pub mod mcp_servers;
pub mod model_server;
pub mod process;
pub mod pty;
pub mod recording_proxy;
pub mod rig;
pub mod sockets;
pub mod stack_repo;
pub mod tmux;
