//! Test support for Luxe: a [`sim::Sim`] that drives `luxe-core` on a virtual clock, and a
//! [`process::LuxeProcess`] that spawns the real `luxe` binary and speaks frames to it.

pub mod process;
pub mod sim;
pub mod sockets;
