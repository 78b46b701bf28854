//! One client line through the codec: never a panic; actions round-trip; rejections encode.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| luxe_core::harness::codec(data));
