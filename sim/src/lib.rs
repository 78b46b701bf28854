//! Luxe's simulator. One seed is one run of the whole system on a virtual clock: sessions
//! behind each front door (`--rpc`, `--acp`, the terminal interface's machine), the model, the
//! tools' machine, gh and git played against `luxe-core`, faults drawn from the same seed, and
//! the promises checked after every step. A failing run names its seed, and the seed replays
//! it exactly. The fuzz targets draw the same choices from their bytes ([`draw::Bytes`]), and
//! the quickcheck properties from quickcheck's generator.
//!
//! The rooms: `draw.rs` where choices come from, `session.rs` one checked rpc session driven
//! by hand, `rpc.rs` a simulated rpc session with its model and io, `acp.rs` the ACP host,
//! `interface.rs` the terminal interface, `world.rs` all of them together under one seed.

pub mod acp;
pub mod draw;
pub mod rpc;
pub mod session;
