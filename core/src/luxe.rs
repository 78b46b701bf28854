//! [`Luxe`], the whole session as one deterministic state machine.

use std::time::Instant;

use crate::client_stdout::{CLOSED_STDOUT_STATUS, ClientStdout};
use crate::config::{Config, StartError};
use crate::effects::{Input, Output};
use crate::output_order::OutputOrder;
use crate::protocol::codec::{Rejection, decode};
use crate::protocol::lines::{Line, LineSplitter};
use crate::session::Session;

/// One `luxe --rpc` session, with no IO of its own.
///
/// Its methods come in four kinds, and a driver calls them in this order:
///
/// 1. **Construct** with [`Luxe::new`]: `ready` and `state_changed` are queued at once.
/// 2. **Inputs**, `handle_*`: [`Luxe::handle_input`] for what happened (client bytes, EOF, a
///    signal; model and MCP HTTP bytes; process output and exits; file, search and diff
///    results), and
///    [`Luxe::handle_timeout`] when the deadline of [`Luxe::poll_timeout`] has passed. Both take
///    `now`; neither does IO.
/// 3. **Outputs**, `poll_*`: after *every* input, drain [`Luxe::poll_output`] until it returns
///    `None`, performing each [`Output`] (write a frame, start a request, spawn, exit). Results
///    of effects come back later as inputs. Then ask [`Luxe::poll_timeout`] for the next deadline
///    and wait for it or for the next input, whichever comes first.
/// 4. **Getters**: [`Luxe::is_closed`], [`Luxe::warnings`] and [`Luxe::max_frame_bytes`].
///
/// A driver performs the outputs in the order they come and flushes stdout at each
/// [`Output::Flush`] and before it waits again; a write that fails is fed back at once as
/// [`Input::ClientWriteFailed`], and the core decides what still happens
/// ([`crate::client_stdout`]). Calling `handle_timeout` early or twice is harmless. Nothing
/// here panics on any input: bad lines become `action_rejected`.
///
/// Inside, client bytes are split into lines and decoded into actions, which the session's
/// gate answers or hands to the feature they name (turns, tools, review, GitHub, stacks, MCP
/// servers, the store). Features are small machines that own their state and trade values:
/// a model request returns frames and how it ended, the tool gate returns verdicts, the turns
/// say what they need of the other rooms (run the tools, a turn ended), the save queue returns
/// what was saved (the map is in `session`'s module comment). Every effect a
/// feature asks for gets an id recorded with that feature, and its results go straight back
/// to it; a result nobody waits for is dropped. `luxe --acp` puts [`crate::acp`]'s host in
/// front of several such sessions instead of this one. The invariants
/// `crate::harness` checks after every step of every simulation and fuzz run: `ready` comes
/// first; each action is answered once; a frame is one line; nothing follows `exit`; no
/// effect starts before the frames queued ahead of it are flushed; no `.env` value is in any
/// frame or model request body; turns never overlap; and a turn ends with no permission
/// prompt, tool call or opened file left open.
#[derive(Debug)]
pub struct Luxe {
    lines: LineSplitter,
    session: Session,
    order: OutputOrder,
    stdout: ClientStdout,
    max_frame_bytes: usize,
}

impl Luxe {
    /// Starts a session; fails only on a config that cannot make one (an unknown `--model`
    /// provider), which the binary reports before any frame.
    pub fn new(config: Config, _now: Instant) -> Result<Self, StartError> {
        Ok(Self {
            lines: LineSplitter::new(config.max_frame_bytes),
            session: Session::start(&config, _now)?,
            order: OutputOrder::default(),
            stdout: ClientStdout::default(),
            max_frame_bytes: config.max_frame_bytes,
        })
    }

    /// Feeds one thing that happened. Drain [`Luxe::poll_output`] afterwards.
    pub fn handle_input(&mut self, now: Instant, input: Input<'_>) {
        let session = &mut self.session;
        match input {
            Input::ClientBytes(bytes) => {
                self.lines
                    .push(bytes, |line| answer_line(session, now, line));
            }
            Input::ClientEof => {
                self.lines.finish(|line| answer_line(session, now, line));
                session.close(0);
            }
            Input::ClientReadFailed(reason) => {
                session.report_error(format!("reading stdin failed: {reason}"));
                session.close(1);
            }
            Input::ClientWriteFailed => {
                self.stdout.failed();
                session.close(CLOSED_STDOUT_STATUS);
            }
            Input::Terminate => session.close(0),
            effect => session.handle_effect(now, effect),
        }
    }

    /// The next instruction for io, or `None` when drained, in the order io performs them; an
    /// [`Output::Flush`] comes before an effect that a frame not yet flushed precedes.
    pub fn poll_output(&mut self) -> Option<Output> {
        let (order, session) = (&mut self.order, &mut self.session);
        self.stdout.next(|| order.next_of(session))
    }

    /// The earliest deadline at which [`Luxe::handle_timeout`] wants to run, if any.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.session.poll_timeout()
    }

    /// Runs whatever timers are due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.session.handle_timeout(now);
    }

    /// Whether the session has ended; io exits once the outputs are drained.
    pub fn is_closed(&self) -> bool {
        self.session.is_closed()
    }

    /// Warnings for stderr from start-up, such as lines of a resumed session file that were
    /// skipped.
    pub fn warnings(&self) -> &[String] {
        self.session.warnings()
    }

    /// Adds MCP servers to the running session (an ACP client's `mcpServers`), started at
    /// once; one named like a configured server replaces it. Servers known before start go in
    /// [`Config::extra_mcp_servers`] instead.
    pub fn add_mcp_servers(
        &mut self,
        now: Instant,
        servers: Vec<crate::mcp::config::ServerConfig>,
    ) {
        self.session.add_mcp_servers(now, servers);
    }

    /// The longest client line accepted, so io can size its reads.
    pub fn max_frame_bytes(&self) -> usize {
        self.max_frame_bytes
    }
}

fn answer_line(session: &mut Session, now: Instant, line: Line<'_>) {
    match line {
        Line::TooLong => session.reject(Rejection::too_long()),
        Line::Complete(bytes) => match decode(bytes) {
            Ok(Some(incoming)) => session.handle_incoming(now, incoming),
            Ok(None) => {}
            Err(rejection) => session.reject(rejection),
        },
    }
}
