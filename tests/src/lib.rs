//! Test support for Luxe: a [`sim::Sim`] that drives `luxe-core` on a virtual clock, a
//! [`process::LuxeProcess`] that spawns the real `luxe` binary and speaks frames to it, a
//! [`model_server::ModelServer`] that plays scripted model replies over HTTP, and a
//! [`fake_gh::FakeGh`] that stands in for the user's `gh` on `PATH`.

pub mod acp_client;
pub mod bench;
pub mod fake_gh;
pub mod git_repo;
pub mod llama;
pub mod mcp_servers;
pub mod model_server;
pub mod process;
pub mod recording_proxy;
pub mod rig;
pub mod sim;
pub mod sockets;
pub mod tmux;
