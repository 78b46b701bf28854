//! Lines through `luxe --acp`'s host after an `initialize` and a `session/new`, every answer
//! checked against ACP's promises (`luxe_core::acp::checked`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| luxe_core::acp::checked::fuzz(std::time::Instant::now(), data));
