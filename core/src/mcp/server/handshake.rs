//! The handshake: `initialize` sent, and its answer checked (a version luxe speaks) before
//! `notifications/initialized` and the first listing.

use std::time::Instant;

use serde_json::{Value, json};

use super::{ACCEPTED_VERSIONS, PROTOCOL_VERSION, Purpose, Server};
use crate::mcp::jsonrpc;
use crate::mcp::{Io, McpEvent, McpSettings};

impl Server {
    /// Sends `initialize`: the version luxe asks for, and who it is.
    pub(super) fn initialize(&mut self, now: Instant, settings: &McpSettings, io: &mut Io<'_>) {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "luxe", "version": settings.client_version},
        });
        self.request(now, Purpose::Initialize, "initialize", params, settings, io);
    }

    /// The server answered `initialize`: its version must be one luxe speaks; then
    /// `notifications/initialized`, and its tools are listed (none when it offers no `tools`).
    pub(super) fn initialized(
        &mut self,
        now: Instant,
        result: &Value,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let version = result.get("protocolVersion").and_then(Value::as_str);
        match version {
            Some(v) if ACCEPTED_VERSIONS.contains(&v) => {}
            Some(v) => {
                let why = format!(
                    "it speaks MCP version {v:?}, which luxe does not (luxe speaks {})",
                    ACCEPTED_VERSIONS.join(", ")
                );
                return self.fail(now, why, settings, io);
            }
            None => {
                let why = "its initialize answer names no protocolVersion".to_owned();
                return self.fail(now, why, settings, io);
            }
        }
        if let (Some(http), Some(version)) = (&mut self.http, version) {
            http.negotiated(version);
        }
        self.send(
            jsonrpc::notification("notifications/initialized", None),
            None,
            io,
        );
        if result.pointer("/capabilities/tools").is_some() {
            self.list(now, None, settings, io);
            Vec::new()
        } else {
            self.listed(now, Vec::new(), settings, io)
        }
    }
}
