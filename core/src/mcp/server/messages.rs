//! What a server writes: answers to luxe's requests (sent on to what they were for), its own
//! requests (`ping`; nothing else is offered), and notifications (`tools/list_changed`,
//! `progress`).

use std::time::Instant;

use serde_json::{Value, json};

use super::{Purpose, Server, Status};
use crate::mcp::jsonrpc::{self, Message, RpcError};
use crate::mcp::results::{CallOutcome, outcome};
use crate::mcp::{CallId, Io, McpEvent, McpSettings};

impl Server {
    /// Messages the server wrote, in order; the first broken one fails it.
    pub(super) fn messages(
        &mut self,
        now: Instant,
        lines: Vec<Vec<u8>>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let mut events = Vec::new();
        for line in lines {
            let message = match jsonrpc::parse(&line) {
                Ok(message) => message,
                Err(why) => {
                    events.extend(self.fail(now, why, settings, io));
                    return events;
                }
            };
            events.extend(self.message(now, message, settings, io));
            if matches!(self.status, Status::Failed(_)) {
                break;
            }
        }
        events
    }

    fn message(
        &mut self,
        now: Instant,
        message: Message,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        match message {
            Message::Response { id, outcome } => match self.pending.remove(&id) {
                Some(pending) => self.answered(now, pending.purpose, outcome, settings, io),
                None => Vec::new(),
            },
            Message::Request { id, method } => {
                let answer = match method.as_str() {
                    "ping" => Ok(json!({})),
                    _ => Err(RpcError {
                        code: jsonrpc::METHOD_NOT_FOUND,
                        message: format!("luxe does not offer {method}"),
                    }),
                };
                self.send(jsonrpc::response(&id, answer), None, io);
                Vec::new()
            }
            Message::Notification { method, params } => match method.as_str() {
                "notifications/tools/list_changed" if self.status == Status::Ready => {
                    if self.listing.is_some() {
                        self.relist = true;
                    } else {
                        self.list(now, None, settings, io);
                    }
                    Vec::new()
                }
                "notifications/progress" => self.progress(now, &params, settings),
                _ => Vec::new(),
            },
        }
    }

    /// A call's progress: shown, and its wait starts again (a long call that reports is alive).
    fn progress(&mut self, now: Instant, params: &Value, settings: &McpSettings) -> Vec<McpEvent> {
        let Some(token) = params.get("progressToken").and_then(Value::as_u64) else {
            return Vec::new();
        };
        let timeout = self.timeout(settings);
        let Some(pending) = self
            .pending
            .values_mut()
            .find(|p| p.purpose == Purpose::Call(CallId(token)))
        else {
            return Vec::new();
        };
        pending.deadline = now + timeout;
        let number = |key: &str| {
            params
                .get(key)
                .filter(|v| v.is_number())
                .map(Value::to_string)
        };
        let mut text = match (number("progress"), number("total")) {
            (Some(done), Some(total)) => format!("progress {done}/{total}"),
            (Some(done), None) => format!("progress {done}"),
            _ => "progress".to_owned(),
        };
        if let Some(message) = params.get("message").and_then(Value::as_str) {
            text.push_str(": ");
            text.push_str(message);
        }
        text.push('\n');
        vec![McpEvent::Progress {
            call: CallId(token),
            text,
        }]
    }

    fn answered(
        &mut self,
        now: Instant,
        purpose: Purpose,
        answer: Result<Value, RpcError>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        match (purpose, answer) {
            (Purpose::Initialize, Ok(result)) => self.initialized(now, &result, settings, io),
            (Purpose::Initialize, Err(error)) => {
                let why = format!("it refused initialize: {}", error.message);
                self.fail(now, why, settings, io)
            }
            (Purpose::ListTools, Ok(result)) => self.page(now, &result, settings, io),
            (Purpose::ListTools, Err(error)) => {
                let why = format!("it refused tools/list: {}", error.message);
                self.fail(now, why, settings, io)
            }
            (Purpose::Call(call), Ok(result)) => vec![McpEvent::Finished {
                call,
                outcome: outcome(&result),
            }],
            (Purpose::Call(call), Err(error)) => vec![McpEvent::Finished {
                call,
                outcome: CallOutcome::failed(format!(
                    "{} answered with an error: {}",
                    self.config.name, error.message
                )),
            }],
        }
    }
}
