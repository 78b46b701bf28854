//! Stack flows fed arbitrary git and gh output: never a panic.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| luxe_core::harness::stack_flows(data));
