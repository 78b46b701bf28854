//! `tools/call`: sent to a ready server, queued for a starting one, failed or restarting for a
//! failed one; and cancelled on an interrupt.

use std::time::Instant;

use serde_json::{Value, json};

use super::{Purpose, Server, Status};
use crate::mcp::jsonrpc;
use crate::mcp::results::CallOutcome;
use crate::mcp::{CallId, Io, McpEvent, McpSettings};

impl Server {
    /// Calls `tool`; the result comes as [`McpEvent::Finished`], now or later.
    pub fn call(
        &mut self,
        now: Instant,
        call: CallId,
        tool: &str,
        args: Value,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        match &self.status {
            Status::Ready => {
                let params = json!({
                    "name": tool,
                    "arguments": args,
                    "_meta": {"progressToken": call.0},
                });
                self.request(now, Purpose::Call(call), "tools/call", params, settings, io);
                Vec::new()
            }
            Status::Starting => {
                self.queued.push((call, tool.to_owned(), args));
                Vec::new()
            }
            Status::Failed(why) if self.retry_at.is_some_and(|at| at > now) => {
                let wait = self
                    .retry_at
                    .map_or(0, |at| (at - now).as_millis().div_ceil(1000));
                let text = format!(
                    "the MCP server {} failed ({why}); luxe starts it again in {wait} s",
                    self.config.name
                );
                vec![McpEvent::Finished {
                    call,
                    outcome: CallOutcome::failed(text),
                }]
            }
            Status::Failed(_) => {
                self.queued.push((call, tool.to_owned(), args));
                let mut events = self.start(now, settings, io);
                events.push(McpEvent::ServersChanged);
                events
            }
            Status::Stopped => vec![McpEvent::Finished {
                call,
                outcome: CallOutcome::failed(format!(
                    "the MCP server {} was stopped",
                    self.config.name
                )),
            }],
        }
    }

    /// Gives up a call: the server is told (`notifications/cancelled`); no result follows.
    pub fn cancel(&mut self, call: CallId, io: &mut Io<'_>) {
        self.queued.retain(|(queued, _, _)| *queued != call);
        let found = self
            .pending
            .iter()
            .find(|(_, p)| p.purpose == Purpose::Call(call))
            .map(|(id, _)| *id);
        if let Some(id) = found {
            self.pending.remove(&id);
            let params = json!({"requestId": id, "reason": "the user interrupted the call"});
            let note = jsonrpc::notification("notifications/cancelled", Some(params));
            self.send(note, None, io);
            // Over HTTP the call's answer streams on its own POST: that stream is given up too.
            if let Some(http) = &mut self.http {
                http.abandon(id, io);
            }
        }
    }
}
