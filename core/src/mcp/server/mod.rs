//! One server's life: started, the handshake (`initialize`, `notifications/initialized`),
//! `tools/list` page by page, ready; re-listed on `notifications/tools/list_changed`; failed
//! with a reason when it exits, hangs past its timeout or writes garbage — every call it holds
//! then fails with that reason — and started again by a later call, after a backoff that grows
//! with each failure in a row.
//!
//! The rooms: `transport.rs` (a process on stdio or a link over HTTP, started, read and
//! ended), `handshake.rs` (`initialize` and its answer), `messages.rs` (what the server writes:
//! answers, its requests, notifications and progress), `listing.rs` (`tools/list` page by
//! page), `calls.rs` (`tools/call` and its cancelling) and `failure.rs` (a timeout, a failure
//! with its backoff, the stop).

mod calls;
mod failure;
mod handshake;
mod listing;
mod messages;
mod transport;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::config::ServerConfig;
use super::http::HttpLink;
use super::jsonrpc::{self, Lines};
use super::{CallId, Io, McpSettings};
use crate::effects::{EffectId, Output};

/// The MCP version luxe asks for: the newest the official servers speak.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Every version luxe accepts in the server's answer: those the official TypeScript SDK still
/// speaks, 2024-11-05 onward.
pub const ACCEPTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Started; the handshake or the first listing is under way.
    Starting,
    /// Its tools are known and calls go to it.
    Ready,
    /// It exited, hung or broke the protocol; a later call starts it again.
    Failed(String),
    /// The session ended it.
    Stopped,
}

/// A tool a server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The server's own name for it.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// Its argument schema (a JSON Schema object).
    pub input_schema: Value,
    /// Whether the server annotates it `readOnlyHint: true` (untrusted: it only narrows what
    /// is offered, never skips a prompt).
    pub read_only: bool,
}

/// What a request to the server is for.
#[derive(Debug, Clone, PartialEq)]
enum Purpose {
    Initialize,
    ListTools,
    Call(CallId),
}

#[derive(Debug)]
struct Pending {
    purpose: Purpose,
    deadline: Instant,
}

/// One configured server and what luxe knows of it.
#[derive(Debug)]
pub struct Server {
    pub(super) config: ServerConfig,
    pub(super) status: Status,
    /// The running process, for a stdio server.
    process: Option<EffectId>,
    /// Processes luxe killed whose exit has not come yet: their late output is dropped.
    retired: Vec<EffectId>,
    /// The HTTP side, for an http server that was started.
    http: Option<HttpLink>,
    lines: Lines,
    stderr: String,
    next_request: u64,
    pending: BTreeMap<u64, Pending>,
    /// The tools of the last complete listing.
    pub(super) tools: Vec<Tool>,
    /// A listing under way: the pages so far and the cursors seen.
    listing: Option<(Vec<Tool>, Vec<String>)>,
    /// `list_changed` arrived while a listing ran: list again after it.
    relist: bool,
    /// What was left out of the last listing, and why.
    pub(super) notes: Vec<String>,
    /// Calls that wait for the server to be ready, with their tool and arguments.
    queued: Vec<(CallId, String, Value)>,
    /// Whether [`Server::start`] ran once.
    launched: bool,
    /// Failures in a row, for the backoff.
    failures: u32,
    /// No restart before this.
    retry_at: Option<Instant>,
}

impl Server {
    /// A server not started yet.
    pub fn new(config: ServerConfig) -> Self {
        Self {
            config,
            status: Status::Starting,
            process: None,
            retired: Vec::new(),
            http: None,
            lines: Lines::default(),
            stderr: String::new(),
            next_request: 0,
            pending: BTreeMap::new(),
            tools: Vec::new(),
            listing: None,
            relist: false,
            notes: Vec::new(),
            queued: Vec::new(),
            launched: false,
            failures: 0,
            retry_at: None,
        }
    }

    /// Whether it was ever started.
    pub fn launched(&self) -> bool {
        self.launched
    }

    fn timeout(&self, settings: &McpSettings) -> Duration {
        self.config.timeout.unwrap_or(settings.timeout)
    }

    /// Sends a request and remembers what it is for.
    fn request(
        &mut self,
        now: Instant,
        purpose: Purpose,
        method: &str,
        params: Value,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) {
        self.next_request += 1;
        let id = self.next_request;
        let deadline = now + self.timeout(settings);
        self.pending.insert(id, Pending { purpose, deadline });
        self.send(jsonrpc::request(id, method, params), Some(id), io);
    }

    /// Sends one message (`request`: its id when it is a request).
    fn send(&mut self, mut bytes: Vec<u8>, request: Option<u64>, io: &mut Io<'_>) {
        if let Some(id) = self.process {
            bytes.push(b'\n');
            io.push(Output::WriteStdin { id, bytes });
        } else if let Some(http) = &mut self.http {
            http.post(bytes, request, io);
        }
    }

    /// The earliest deadline of a request in flight.
    pub fn deadline(&self) -> Option<Instant> {
        self.pending.values().map(|p| p.deadline).min()
    }
}
