//! How a server's life ends: a request past its timeout, a failure (every call it holds failed,
//! a restart after a backoff that grows with each failure in a row), or the session's stop.

use std::time::Instant;

use super::{Purpose, Server, Status};
use crate::mcp::results::CallOutcome;
use crate::mcp::{Io, McpEvent, McpSettings};

impl Server {
    /// A request ran out of time: the server is taken as hung.
    pub fn timeout_at(
        &mut self,
        now: Instant,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let late = self
            .pending
            .values()
            .find(|p| p.deadline <= now)
            .map(|p| p.purpose.clone());
        let Some(purpose) = late else {
            return Vec::new();
        };
        let what = match purpose {
            Purpose::Initialize => "initialize",
            Purpose::ListTools => "tools/list",
            Purpose::Call(_) => "a tool call",
        };
        let ms = self.timeout(settings).as_millis();
        self.fail(
            now,
            format!("it did not answer {what} within {ms} ms"),
            settings,
            io,
        )
    }

    /// Marks the server failed for `why`: its process killed, every call it held failed.
    pub fn fail(
        &mut self,
        now: Instant,
        why: String,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.kill(io);
        self.failures = self.failures.saturating_add(1);
        let backoff = settings
            .restart_base
            .saturating_mul(1 << self.failures.min(16).saturating_sub(1));
        self.retry_at = Some(now + backoff.min(settings.restart_max));
        let text = format!("the MCP server {} failed: {why}", self.config.name);
        self.status = Status::Failed(why);
        self.listing = None;
        self.relist = false;
        let mut events = vec![McpEvent::ServersChanged];
        let held = std::mem::take(&mut self.pending)
            .into_values()
            .filter_map(|p| match p.purpose {
                Purpose::Call(call) => Some(call),
                _ => None,
            });
        let queued = std::mem::take(&mut self.queued)
            .into_iter()
            .map(|(call, _, _)| call);
        for call in held.chain(queued) {
            events.push(McpEvent::Finished {
                call,
                outcome: CallOutcome::failed(text.clone()),
            });
        }
        events
    }

    /// Ends the server for good (over HTTP, its session too).
    pub fn stop(&mut self, io: &mut Io<'_>) {
        if let Some(http) = &mut self.http {
            http.end_session(io);
        }
        self.kill(io);
        self.pending.clear();
        self.queued.clear();
        self.status = Status::Stopped;
    }
}
