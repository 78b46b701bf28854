//! Protocol v2 as Rust types: the kind catalogue, actions, events, the line codec and the schema.

pub mod actions;
pub mod codec;
pub mod events;
mod frame_enum;
pub mod github;
mod hand_json;
pub mod kinds;
pub mod lines;
pub mod schema;
pub mod stack;
mod unique_keys;
pub mod values;

/// The protocol version `ready` announces.
pub const PROTOCOL_VERSION: u32 = 2;

/// The longest line a client may send, LF not counted (design §1).
pub const MAX_FRAME_BYTES: usize = 8 * 1024 * 1024;
