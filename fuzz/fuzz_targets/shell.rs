//! The shell analysis: never a panic on any text, and a denied call stays denied whatever
//! grammar the same bytes wrap around it.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| luxe_core::harness::shell(data));
