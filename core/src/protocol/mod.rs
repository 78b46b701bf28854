//! Protocol v2 as Rust types: the kind catalogue, actions, events (with the review and review
//! session they carry), the line codec and the schema. It imports nothing from the features,
//! which build these values: it could be a crate of its own.

pub mod actions;
pub mod codec;
pub mod events;
pub mod findings;
mod frame_enum;
pub mod github;
pub mod guided_review;
pub(crate) mod hand_json;
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
