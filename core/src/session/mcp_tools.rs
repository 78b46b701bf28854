//! The MCP machine inside the session: its servers start after `ready`, their tools join
//! the model's, a call named `mcp__…` goes to it (after the permission decision), and what it
//! answers becomes `tool_finished`, `tool_output_delta` and `mcp_servers_updated`.

use std::time::Instant;

use crate::config::Config;
use crate::effects::Input;
use crate::mcp::config::ServerConfig;
use crate::mcp::{Io, Mcp, McpEvent, McpSettings};
use crate::protocol::events::{
    Event, McpServersListed, McpServersUpdated, OutputStream, ToolOutputDelta, ToolStatus,
};

use super::Session;

/// The machine for a session started from `config` with the settings' `servers`.
pub(super) fn machine(config: &Config, servers: Vec<ServerConfig>) -> Mcp {
    let mut all = servers;
    for extra in &config.extra_mcp_servers {
        all.retain(|s| s.name != extra.name);
        all.push(extra.clone());
    }
    let settings = McpSettings {
        timeout: config.timings.mcp_timeout,
        restart_base: config.timings.mcp_restart,
        restart_max: std::time::Duration::from_secs(60).max(config.timings.mcp_restart),
        cwd: config.cwd.clone(),
        env: config.mcp_env.clone(),
        client_version: config.luxe_version.clone(),
    };
    Mcp::new(all, settings)
}

impl Session {
    fn mcp_io(&mut self) -> (&mut Mcp, Io<'_>) {
        let (ids, outputs) = self.port.parts();
        (&mut self.mcp, Io { ids, outputs })
    }

    /// Starts the configured servers (after `ready`, so it never waits for them).
    pub(super) fn start_mcp(&mut self, now: Instant) {
        if self.mcp.is_empty() {
            return;
        }
        let (mcp, mut io) = self.mcp_io();
        let events = mcp.start(now, &mut io);
        self.mcp_events(now, events);
    }

    /// Adds MCP servers to this session (an ACP client's `mcpServers`), started at once; one
    /// named like a configured server replaces it.
    pub fn add_mcp_servers(&mut self, now: Instant, servers: Vec<ServerConfig>) {
        let (mcp, mut io) = self.mcp_io();
        let events = mcp.add_servers(now, servers, &mut io);
        self.mcp_events(now, events);
    }

    /// Takes a server's output or exit, or an answer to one of its HTTP requests.
    pub(super) fn mcp_effect(&mut self, now: Instant, input: &Input<'_>) {
        let (mcp, mut io) = self.mcp_io();
        if let Some(events) = mcp.handle(now, input, &mut io) {
            self.mcp_events(now, events);
        }
    }

    /// The MCP requests' earliest deadline.
    pub(super) fn mcp_deadline(&self) -> Option<Instant> {
        self.mcp.deadline()
    }

    /// Fails the servers that did not answer in time.
    pub(super) fn mcp_timeout(&mut self, now: Instant) {
        let (mcp, mut io) = self.mcp_io();
        let events = mcp.handle_timeout(now, &mut io);
        self.mcp_events(now, events);
    }

    /// Ends every server (`close`).
    pub(super) fn stop_mcp(&mut self) {
        let (mcp, mut io) = self.mcp_io();
        mcp.stop(&mut io);
    }

    /// `list_mcp_servers`.
    pub(super) fn list_mcp_servers(&mut self, request_id: String) {
        let servers = self.mcp.statuses();
        self.emit(Event::McpServersListed(McpServersListed {
            request_id,
            servers,
        }));
    }

    pub(super) fn mcp_events(&mut self, now: Instant, events: Vec<McpEvent>) {
        for event in events {
            match event {
                McpEvent::ServersChanged => {
                    let servers = self.mcp.statuses();
                    self.emit(Event::McpServersUpdated(McpServersUpdated { servers }));
                }
                McpEvent::Progress { call, text } => {
                    if let Some(call_id) = self.running_mcp_call(call) {
                        self.emit(Event::ToolOutputDelta(ToolOutputDelta {
                            call_id,
                            stream: OutputStream::Stdout,
                            chunk: text,
                        }));
                    }
                }
                McpEvent::Finished { call, outcome } => {
                    if self.running_mcp_call(call).is_some() {
                        let status = if outcome.is_error {
                            ToolStatus::Error
                        } else {
                            ToolStatus::Ok
                        };
                        self.mcp_call_finished(now, status, outcome.text, outcome.images);
                    }
                }
            }
        }
    }
}
