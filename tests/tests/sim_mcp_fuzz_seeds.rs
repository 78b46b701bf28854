//! The MCP fuzz target's body on its seeds, so `cargo test` runs it: whatever a server
//! writes, over stdio or HTTP, the client keeps its invariants (asserted inside
//! `server_output`).

use std::time::Instant;

use luxe_core::mcp::fuzzing::server_output;

fn now() -> Instant {
    Instant::now()
}

#[test]
fn seeds_hold_the_invariants() {
    let handshake = concat!(
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"no"}}"#,
        "\n",
        "garbage\n",
    );
    // Over stdio, then over HTTP (the top bit), with and without a GET stream (bit 6).
    for chunk in [1u8, 7, 64, 0x87, 0xc7, 255] {
        let mut data = vec![chunk];
        data.extend_from_slice(handshake.as_bytes());
        server_output(now(), &data);
        server_output(now(), &data[..data.len() / 2]);
    }
    server_output(now(), b"");
    server_output(now(), b"\x05{\"jsonrpc\":\"2.0\",\"id\":1}\n\n\n");
}

#[test]
fn every_committed_seed_holds_the_invariants() {
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/mcp");
    let mut ran = 0;
    for entry in std::fs::read_dir(seeds).unwrap() {
        server_output(now(), &std::fs::read(entry.unwrap().path()).unwrap());
        ran += 1;
    }
    assert!(ran > 0);
}
