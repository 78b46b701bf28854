//! Lines through a whole `Luxe`, every answer checked against the protocol's invariants.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| luxe_core::harness::session(std::time::Instant::now(), data));
