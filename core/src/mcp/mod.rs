//! The MCP client (Model Context Protocol): the user's servers, their tools offered to the
//! model as `mcp__<server>__<tool>`, and the calls the model makes to them. Sans-IO like the
//! rest of core: it takes what io saw (a server's output, its exit, a deadline) and answers
//! with effects for io and [`McpEvent`]s for the session; it never touches the session.

pub mod config;
#[cfg(any(test, feature = "sim"))]
pub mod fuzzing;
pub mod http;
pub mod jsonrpc;
pub mod names;
pub mod results;
pub mod server;

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::effects::{EffectId, Input, Output};
use crate::protocol::events::McpServer;
use config::{HostEnv, ServerConfig};
use results::CallOutcome;
use server::{Server, Status};

/// One tool call the session hands to the machine; its number is the session's call number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallId(pub u64);

/// What the session must know of, from the machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpEvent {
    /// A call ended; exactly once per call handed over (a cancelled one excepted).
    Finished {
        /// Which handed-over call ended.
        call: CallId,
        /// What the model is told.
        outcome: CallOutcome,
    },
    /// A call reported progress (a line of text for `tool_output_delta`).
    Progress {
        /// Which handed-over call is still running.
        call: CallId,
        /// What to show.
        text: String,
    },
    /// A server's status or tools changed (`mcp_servers_updated`).
    ServersChanged,
}

/// Hands out the ids of the machine's effects (the session's, so that their results find
/// their way back here).
pub trait EffectIds {
    /// A new id.
    fn issue(&mut self) -> EffectId;
    /// Forgets an id whose results are no longer wanted (a cancelled request).
    fn forget(&mut self, id: EffectId);
}

/// Ids counted from 1, for tests and the fuzz harness.
#[derive(Debug, Default)]
pub struct Counter(u64);

impl EffectIds for Counter {
    fn issue(&mut self) -> EffectId {
        self.0 += 1;
        EffectId(self.0)
    }

    fn forget(&mut self, _: EffectId) {}
}

/// Where the machine's effects go: the session's effect ids and its output queue.
pub struct Io<'a> {
    /// Issues effect ids.
    pub ids: &'a mut dyn EffectIds,
    /// The session's output queue: effects pushed here go to io in order.
    pub outputs: &'a mut VecDeque<Output>,
}

impl Io<'_> {
    fn id(&mut self) -> EffectId {
        self.ids.issue()
    }

    fn push(&mut self, output: Output) {
        self.outputs.push_back(output);
    }

    /// Abandons an HTTP request: io drops its later results, so its id is forgotten.
    fn cancel_http(&mut self, id: EffectId) {
        self.ids.forget(id);
        self.push(Output::CancelHttp { id });
    }
}

/// What every server shares.
#[derive(Debug, Clone)]
pub struct McpSettings {
    /// How long a request waits for its answer when the server's config sets no `timeout`.
    pub timeout: Duration,
    /// The wait before a failed server may be started again; it doubles with each failure in
    /// a row, up to `restart_max`.
    pub restart_base: Duration,
    /// The longest wait before a restart.
    pub restart_max: Duration,
    /// Where a stdio server runs when its config names no `cwd`.
    pub cwd: String,
    /// Luxe's environment, for `${VAR}` and what stdio servers inherit.
    pub env: HostEnv,
    /// Luxe's version, for `clientInfo`.
    pub client_version: String,
}

impl McpSettings {
    /// Each value of `pairs` (a server's `env` or `headers`, named `what` in the error)
    /// expanded.
    pub fn expand_all(
        &self,
        pairs: &[(String, String)],
        what: &str,
    ) -> Result<Vec<(String, String)>, String> {
        pairs
            .iter()
            .map(|(name, value)| match self.expand(value) {
                Ok(value) => Ok((name.clone(), value)),
                Err(why) => Err(format!("its {what} {name}: {why}")),
            })
            .collect()
    }

    /// `text` with `${VAR}` expanded; a provider's key is never handed to a server.
    pub fn expand(&self, text: &str) -> Result<String, String> {
        config::expand(text, &|name| {
            if crate::process_env::is_provider_key(name) {
                None
            } else {
                self.env.get(name)
            }
        })
        .map_err(|why| {
            if why.contains("_API_KEY") || why.contains("AUTH_TOKEN") {
                format!("{why} (luxe never passes its provider keys to MCP servers)")
            } else {
                why
            }
        })
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    /// The model's name for it, `mcp__<server>__<tool>`.
    pub name: String,
    /// The server it belongs to.
    pub server: String,
    /// The server's name for it.
    pub tool: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments, as the server listed it.
    pub input_schema: Value,
    /// Whether the server annotates it read-only.
    pub read_only: bool,
}

/// Every configured server and the calls in flight.
#[derive(Debug)]
pub struct Mcp {
    servers: Vec<Server>,
    settings: McpSettings,
    /// Every call handed over and not yet finished, by the server that holds it.
    calls: BTreeMap<CallId, usize>,
    /// The tools offered, with their model names (made again when a listing changes).
    offered: Vec<(OfferedTool, usize)>,
    started: bool,
}

impl Mcp {
    /// The machine for `servers` (none started yet).
    pub fn new(servers: Vec<ServerConfig>, settings: McpSettings) -> Self {
        Self {
            servers: servers.into_iter().map(Server::new).collect(),
            settings,
            calls: BTreeMap::new(),
            offered: Vec::new(),
            started: false,
        }
    }

    /// Adds servers (an ACP client's for its session, from `session/new`): one named like a
    /// server there already replaces it (which is stopped). Once the machine has started, the
    /// new ones start at once.
    pub fn add_servers(
        &mut self,
        now: Instant,
        servers: Vec<ServerConfig>,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let mut events = Vec::new();
        for config in servers {
            match self
                .servers
                .iter()
                .position(|s| s.config.name == config.name)
            {
                Some(at) => {
                    let why = "the client replaced its configuration".to_owned();
                    events.extend(self.servers[at].fail(now, why, &self.settings, io));
                    self.servers[at].stop(io);
                    self.servers[at] = Server::new(config);
                }
                None => self.servers.push(Server::new(config)),
            }
        }
        if self.started {
            events.extend(self.start(now, io));
        }
        self.settle(events)
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Starts every server not started yet (after `ready`: never before it).
    pub fn start(&mut self, now: Instant, io: &mut Io<'_>) -> Vec<McpEvent> {
        self.started = true;
        let mut events = Vec::new();
        for at in 0..self.servers.len() {
            if !self.servers[at].launched() {
                events.extend(self.servers[at].start(now, &self.settings, io));
            }
        }
        events.push(McpEvent::ServersChanged);
        self.settle(events)
    }

    /// Takes an effect's result if it is a server's; `None` when it is someone else's.
    pub fn handle(
        &mut self,
        now: Instant,
        input: &Input<'_>,
        io: &mut Io<'_>,
    ) -> Option<Vec<McpEvent>> {
        let (id, exited) = match input {
            Input::ProcessOutput { id, .. } => (*id, false),
            Input::ProcessExited { id, .. } => (*id, true),
            Input::HttpHeaders { id, .. }
            | Input::HttpResponse { id, .. }
            | Input::HttpBody { id, .. }
            | Input::HttpEnded { id }
            | Input::HttpFailed { id, .. } => {
                let at = self.servers.iter().position(|s| s.owns_post(*id))?;
                let events = self.servers[at].http_input(now, input, &self.settings, io);
                return Some(self.settle(events));
            }
            _ => return None,
        };
        let at = self
            .servers
            .iter_mut()
            .position(|s| s.owns(id) || s.retired(id, exited))?;
        let server = &mut self.servers[at];
        if !server.owns(id) {
            return Some(Vec::new());
        }
        let events = match input {
            Input::ProcessOutput { stream, bytes, .. } => {
                server.output(now, *stream, bytes, &self.settings, io)
            }
            Input::ProcessExited { status, .. } => server.exited(now, status, &self.settings, io),
            _ => Vec::new(),
        };
        Some(self.settle(events))
    }

    /// The earliest deadline of any request in flight.
    pub fn deadline(&self) -> Option<Instant> {
        self.servers.iter().filter_map(Server::deadline).min()
    }

    /// Fails the servers whose requests are past their deadline.
    pub fn handle_timeout(&mut self, now: Instant, io: &mut Io<'_>) -> Vec<McpEvent> {
        let mut events = Vec::new();
        for server in &mut self.servers {
            if server.deadline().is_some_and(|at| at <= now) {
                events.extend(server.timeout_at(now, &self.settings, io));
            }
        }
        self.settle(events)
    }

    /// Every tool offered to the model (the session narrows them by mode).
    pub fn tools(&self) -> impl Iterator<Item = &OfferedTool> {
        self.offered.iter().map(|(tool, _)| tool)
    }

    /// The offered tool the model calls `name`.
    pub fn tool(&self, name: &str) -> Option<&OfferedTool> {
        self.tools().find(|t| t.name == name)
    }

    /// Calls the tool the model calls `name`; its end comes as [`McpEvent::Finished`], maybe at
    /// once.
    pub fn call(
        &mut self,
        now: Instant,
        call: CallId,
        name: &str,
        args: Value,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let Some((tool, at)) = self.offered.iter().find(|(t, _)| t.name == name) else {
            let outcome = CallOutcome::failed(format!("there is no MCP tool {name}"));
            return vec![McpEvent::Finished { call, outcome }];
        };
        let (tool, at) = (tool.tool.clone(), *at);
        self.calls.insert(call, at);
        let events = self.servers[at].call(now, call, &tool, args, &self.settings, io);
        self.settle(events)
    }

    /// Gives up a call (an interrupt): the server is told; no [`McpEvent::Finished`] follows.
    pub fn cancel(&mut self, call: CallId, io: &mut Io<'_>) {
        if let Some(at) = self.calls.remove(&call) {
            self.servers[at].cancel(call, io);
        }
    }

    /// Every server as `mcp_servers_updated` shows it.
    pub fn statuses(&self) -> Vec<McpServer> {
        self.servers
            .iter()
            .map(|s| {
                let (status, error) = match &s.status {
                    Status::Starting => ("starting", None),
                    Status::Ready => ("ready", None),
                    Status::Failed(why) => ("failed", Some(why.clone())),
                    Status::Stopped => ("stopped", None),
                };
                let notes = (!s.notes.is_empty()).then(|| s.notes.join("; "));
                McpServer {
                    name: s.config.name.clone(),
                    transport: s.config.transport.kind().to_owned(),
                    status: status.to_owned(),
                    tools: u32::try_from(s.tools.len()).unwrap_or(u32::MAX),
                    error: error.or(notes),
                }
            })
            .collect()
    }

    /// Ends every server; no call is finished after this.
    pub fn stop(&mut self, io: &mut Io<'_>) {
        for server in &mut self.servers {
            server.stop(io);
        }
        self.calls.clear();
    }

    /// Keeps each call's end to exactly one, and the offered names up to date.
    fn settle(&mut self, events: Vec<McpEvent>) -> Vec<McpEvent> {
        let mut changed = false;
        let events: Vec<McpEvent> = events
            .into_iter()
            .filter(|event| match event {
                McpEvent::Finished { call, .. } => self.calls.remove(call).is_some(),
                McpEvent::Progress { call, .. } => self.calls.contains_key(call),
                McpEvent::ServersChanged => !std::mem::replace(&mut changed, true),
            })
            .collect();
        if changed {
            self.name_tools();
        }
        events
    }

    fn name_tools(&mut self) {
        let listed: Vec<(usize, &server::Tool)> = self
            .servers
            .iter()
            .enumerate()
            .filter(|(_, s)| s.status != Status::Stopped)
            .flat_map(|(at, s)| s.tools.iter().map(move |t| (at, t)))
            .collect();
        let names = names::model_names(
            listed
                .iter()
                .map(|(at, t)| (self.servers[*at].config.name.as_str(), t.name.as_str())),
        );
        self.offered = listed
            .iter()
            .zip(names)
            .map(|((at, t), name)| {
                (
                    OfferedTool {
                        name,
                        server: self.servers[*at].config.name.clone(),
                        tool: t.name.clone(),
                        description: t.description.clone(),
                        input_schema: t.input_schema.clone(),
                        read_only: t.read_only,
                    },
                    *at,
                )
            })
            .collect();
    }
}
