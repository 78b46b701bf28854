//! A server's output, arbitrary bytes over stdio or HTTP (answers and the GET stream), through
//! the MCP machine: never a panic; every call ends exactly once; every request is answered or
//! timed out.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| luxe_core::mcp::fuzzing::server_output(std::time::Instant::now(), data));
