//! The conversation-level state machine: the session's settings, turns, and the answer to every
//! decoded action.

use std::collections::VecDeque;

use crate::config::{Config, StartError};
use crate::effects::Output;
use crate::model::catalogue::{ModelRef, ProviderAccess};
use crate::protocol::PROTOCOL_VERSION;
use crate::protocol::actions::Action;
use crate::protocol::codec::{Body, Incoming, Rejection};
use crate::protocol::events::{ErrorEvent, Event, Ready, StateChanged, TurnEnded, TurnStarted};
use crate::protocol::kinds::is_github_write;
use crate::protocol::values::{Mode, PermissionMode, Thinking, TurnEndReason, TurnSource};

/// The reason for every action whose capability is not in this build.
pub const NOT_BUILT: &str = "not supported by this build yet";

/// Why a turn cannot run in this build.
pub const TURNS_NOT_BUILT: &str =
    "agent turns are not supported by this build yet: no model request was made";

/// Session state and the queue of outputs it produced.
#[derive(Debug)]
pub struct Session {
    providers: ProviderAccess,
    model: Option<ModelRef>,
    mode: Mode,
    thinking: Thinking,
    permission_mode: PermissionMode,
    auto_approve: bool,
    trust_project: bool,
    github_writes: bool,
    turns_started: u64,
    closed: bool,
    outputs: VecDeque<Output>,
}

impl Session {
    /// Starts a session from `config` and queues `ready` and `state_changed`.
    pub fn start(config: &Config) -> Result<Self, StartError> {
        let model = match &config.model {
            Some(spec) => Some(
                ModelRef::parse(spec).map_err(|reason| StartError(format!("--model: {reason}")))?,
            ),
            None => ModelRef::default_for(config.providers),
        };
        let permission_mode = config.effective_permission_mode();
        let read_only = permission_mode == PermissionMode::ReadOnly;
        let mut session = Self {
            providers: config.providers,
            model,
            mode: Mode::default(),
            thinking: Thinking::default(),
            permission_mode,
            auto_approve: config.auto_approve,
            trust_project: config.trust_project,
            github_writes: config.github_writes && !read_only,
            turns_started: 0,
            closed: false,
            outputs: VecDeque::new(),
        };
        session.emit(Event::Ready(Ready {
            protocol_version: PROTOCOL_VERSION,
            luxe_version: config.luxe_version.clone(),
            session_id: config.session_id.clone(),
            cwd: config.cwd.clone(),
            github_writes: session.github_writes,
            read_only,
            resumed: false,
        }));
        session.emit_state();
        Ok(session)
    }

    /// Whether the session has ended (`close`, EOF or a signal); later input is dropped.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The next output, oldest first.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// Answers one decoded line.
    pub fn handle_incoming(&mut self, incoming: Incoming) {
        if self.closed {
            return;
        }
        let Incoming { request_id, body } = incoming;
        let refuse = |kind: &str, reason: &str| Rejection {
            kind: Some(kind.to_owned()),
            reason: reason.to_owned(),
            request_id: request_id.clone(),
        };
        match body {
            Body::NotBuilt(kind) => {
                let reason = self.gate(kind).unwrap_or(NOT_BUILT);
                self.reject(refuse(kind, reason));
            }
            Body::Action(action) => match action {
                Action::SubmitUserMessage(_) => self.run_turn_without_agent(),
                Action::SetModel(set) => match ModelRef::parse(&set.model) {
                    Ok(model) => {
                        self.model = Some(model);
                        self.emit_state();
                    }
                    Err(reason) => self.reject(refuse("set_model", &reason)),
                },
                Action::SetMode(set) => {
                    self.mode = set.mode;
                    self.emit_state();
                }
                Action::SetThinking(set) => {
                    self.thinking = set.thinking;
                    self.emit_state();
                }
                Action::SetPermissionAutoApprove(set) => {
                    self.auto_approve = set.enabled;
                    self.emit_state();
                }
                Action::Close => self.close(0),
                other => self.reject(refuse(other.kind(), NOT_BUILT)),
            },
        }
    }

    /// Answers a line that could not be decoded.
    pub fn reject(&mut self, rejection: Rejection) {
        if !self.closed {
            self.emit(rejection.into_event());
        }
    }

    /// Reports a problem that belongs to no request and no turn.
    pub fn report_error(&mut self, message: String) {
        if !self.closed {
            self.emit(Event::Error(ErrorEvent { message }));
        }
    }

    /// Ends the session with `code`; only the first call counts.
    pub fn close(&mut self, code: i32) {
        if !std::mem::replace(&mut self.closed, true) {
            self.outputs.push_back(Output::Exit { code });
        }
    }

    /// The refusal that applies to `kind` whatever this build supports, if any.
    fn gate(&self, kind: &str) -> Option<&'static str> {
        let read_only = self.permission_mode == PermissionMode::ReadOnly;
        if read_only && (is_github_write(kind) || kind == "commit_review_chapters") {
            Some("read-only session")
        } else if is_github_write(kind) && !self.github_writes {
            Some("GitHub writes are off: start luxe with --github-writes")
        } else {
            None
        }
    }

    /// A turn in a build without agent turns: bracketed like any turn, ended with the reason.
    fn run_turn_without_agent(&mut self) {
        self.turns_started += 1;
        let turn_id = format!("turn_{}", self.turns_started);
        self.emit_state_streaming(true);
        self.emit(Event::TurnStarted(TurnStarted {
            turn_id: turn_id.clone(),
            source: TurnSource::User,
        }));
        self.emit(Event::TurnEnded(TurnEnded {
            turn_id,
            reason: TurnEndReason::Error,
            error: Some(TURNS_NOT_BUILT.to_owned()),
        }));
        self.emit_state_streaming(false);
    }

    fn emit_state(&mut self) {
        self.emit_state_streaming(false);
    }

    fn emit_state_streaming(&mut self, streaming: bool) {
        let state = StateChanged {
            model: self.model.as_ref().map(|m| m.info(self.providers)),
            streaming,
            mode: self.mode,
            thinking: self.thinking,
            permission_mode: self.permission_mode,
            auto_approve: self.auto_approve,
            trust_project: self.trust_project,
        };
        self.emit(Event::StateChanged(state));
    }

    fn emit(&mut self, event: Event) {
        self.outputs.push_back(Output::Frame(event));
    }
}
