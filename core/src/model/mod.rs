//! Model providers: the built-in catalogue, the provider-neutral conversation, and each
//! provider's wire format (request building and stream decoding), all pure.

pub mod anthropic;
pub mod assembler;
pub mod catalogue;
pub mod compaction;
pub mod conversation;
pub(crate) mod http_error;
pub mod openai;
pub mod sse;
pub mod sse_stream;
#[cfg(test)]
mod stream_properties;
pub mod wire;
