//! Model providers: the built-in catalogue, the provider-neutral conversation, and each
//! provider's wire format (request building and stream decoding), all pure.

pub mod catalogue;
pub mod conversation;
pub mod wire;
