//! Model providers and the built-in catalogue.

pub mod catalogue;
