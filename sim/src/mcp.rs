//! A simulated MCP server: what it writes, line by line, drawn from the messages servers send
//! (answers to the handshake, the tool list and calls, errors, notifications, a request of its
//! own, answers to nothing, garbage), over stdio or HTTP, played against core's MCP machine by
//! `luxe_core::mcp::fuzzing`: nothing panics, every call ends exactly once, every request is
//! answered or timed out.

use std::time::Instant;

use luxe_core::mcp::fuzzing::server_output;

use crate::draw::Draw;

/// Lines a server writes.
const LINES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"sim","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"echoes","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}"#,
    r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"echoed"}]}}"#,
    r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"failed"}],"isError":true}}"#,
    r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"the server broke"}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}"#,
    r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}"#,
    r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
    "not json at all",
    "",
];

/// What a server writes in one run: its transport and chunking (the first byte, as the
/// machine's driver reads it) and its lines.
#[derive(Debug, Clone)]
pub struct Server {
    /// Bit 7: HTTP rather than stdio; bit 6: its GET stream refused; the rest: chunk size.
    pub first: u8,
    /// Which of the lines, in order.
    pub lines: Vec<u8>,
}

impl Server {
    /// A server, drawn.
    pub fn draw(g: &mut impl Draw) -> Self {
        let count = 1 + g.below(8);
        Self {
            first: g.byte(),
            lines: (0..count).map(|_| g.byte()).collect(),
        }
    }

    /// Runs the MCP machine against it (a panic is a broken promise).
    pub fn run(&self, now: Instant) {
        let mut data = vec![self.first];
        for (i, n) in self.lines.iter().enumerate() {
            if i > 0 {
                data.push(b'\n');
            }
            data.extend_from_slice(LINES[usize::from(*n) % LINES.len()].as_bytes());
        }
        server_output(now, &data);
    }
}
