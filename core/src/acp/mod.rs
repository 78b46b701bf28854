//! `luxe --acp`: Luxe as an Agent Client Protocol (v1) agent. [`Acp`] is a pure machine with
//! [`crate::Luxe`]'s driver contract; it hosts several [`crate::session::Session`]s, drives
//! them with the same actions as `--rpc`, and speaks JSON-RPC for them.
//!
//! - `jsonrpc`: framing and errors (the gated output line is [`crate::effects::Message`]).
//! - `messages`: reading params field by field; the client's capabilities; MCP servers.
//! - `host`: the sessions, the client's requests, luxe's requests to the client.
//! - `translate`: a session's events as `session/update`s.
//! - `prompt`: content blocks as a user message.
//! - `modes`: modes and config options.
//! - `effects_table`: effect ids across sessions.
//! - [`site_dir`]: whether a session can run in the directory a client named.
//! - `checked`: a driver that checks ACP's promises, for fuzzing, properties and the
//!   simulator (built for tests and with the `sim` feature only).

#[cfg(any(test, feature = "sim"))]
pub mod checked;
mod effects_table;
mod host;
mod jsonrpc;
mod messages;
mod modes;
mod prompt;
mod site;
pub mod site_dir;
mod translate;

use std::time::Instant;

use crate::client_stdout::{CLOSED_STDOUT_STATUS, ClientStdout};
use crate::config::{Config, StartError};
use crate::effects::{Input, Output};
use crate::protocol::lines::{Line, LineSplitter};

/// The ACP protocol version this build speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// `luxe --acp` as one deterministic state machine: JSON-RPC lines in, [`Output`]s out. Its
/// driver contract is [`crate::Luxe`]'s, and io runs it through [`crate::Machine`].
#[derive(Debug)]
pub struct Acp {
    lines: LineSplitter,
    host: host::Host,
    stdout: ClientStdout,
}

impl Acp {
    /// A host for sessions started from `config` (its cwd is only the default of nothing:
    /// every ACP session names its own). Fails on a config no session could start from (an
    /// unknown `--model` provider, a `--resume`).
    pub fn new(config: Config, _now: Instant) -> Result<Self, StartError> {
        if config.resume.is_some() || config.requested.resume {
            return Err(StartError(
                "--acp cannot be used with -c or --resume: the client loads sessions".into(),
            ));
        }
        if let Some(spec) = &config.model {
            crate::model::catalogue::ModelRef::parse(spec)
                .map_err(|reason| StartError(format!("--model: {reason}")))?;
        }
        Ok(Self {
            lines: LineSplitter::new(config.max_frame_bytes),
            host: host::Host::new(config),
            stdout: ClientStdout::default(),
        })
    }

    /// Feeds one thing that happened. Drain [`Acp::poll_output`] afterwards.
    pub fn handle_input(&mut self, now: Instant, input: Input<'_>) {
        let host = &mut self.host;
        match input {
            Input::ClientBytes(bytes) => self.lines.push(bytes, |line| read_line(host, now, line)),
            Input::ClientEof => {
                self.lines.finish(|line| read_line(host, now, line));
                host.close(now, 0);
            }
            Input::ClientReadFailed(_) => host.close(now, 1),
            Input::ClientWriteFailed => {
                self.stdout.failed();
                host.close(now, CLOSED_STDOUT_STATUS);
            }
            Input::Terminate => host.close(now, 0),
            effect => host.handle_effect(now, effect),
        }
    }

    /// The next instruction for io, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<Output> {
        let host = &mut self.host;
        self.stdout.next(|| host.poll_output())
    }

    /// The earliest deadline at which [`Acp::handle_timeout`] wants to run, if any.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.host.poll_timeout()
    }

    /// Runs whatever timers are due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.host.handle_timeout(now);
    }

    /// Whether the process should end; io exits once the outputs are drained.
    pub fn is_closed(&self) -> bool {
        self.host.is_closed()
    }
}

fn read_line(host: &mut host::Host, now: Instant, line: Line<'_>) {
    match line {
        Line::TooLong => host.refuse_line(jsonrpc::RpcError::new(
            jsonrpc::code::INVALID_REQUEST,
            "the line is longer than this agent accepts",
        )),
        Line::Complete(bytes) => host.handle_line(now, bytes),
    }
}
