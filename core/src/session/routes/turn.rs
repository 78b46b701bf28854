//! The session's routing for the conversation: lending a turn its desk, what the session does
//! for a turn's answers (run its tool calls, hear that it ended, start the next queued message),
//! the tool calls' needs (review tools, MCP servers), and the session file's records.

use std::time::Instant;

use crate::effects::{Input, Output};
use crate::mcp::config::ServerConfig;
use crate::mcp::{CallId, Io, Mcp, McpEvent};
use crate::protocol::actions::{AnswerQuestion, Compact, RespondPermission};
use crate::protocol::events::{
    Event, McpServersListed, McpServersUpdated, OutputStream, ToolOutputDelta, ToolStatus,
};
use crate::protocol::values::TurnSource;
use crate::session::Session;
use crate::session::store::{restoring, settings_record};
use crate::session::tool_run::{
    self, Desk, ToolStep, no_open_prompt, no_open_question, unwanted_open,
};
use crate::session::turn::{self, Queued, journal, turn_desk};
use crate::store::Restored;

impl Session {
    /// Does what the turns need of the other rooms, until nothing is left.
    pub(in crate::session) fn follow_turn(&mut self, now: Instant, mut then: turn::Then) {
        loop {
            then = match then {
                turn::Then::Nothing => return,
                turn::Then::StateChanged(resume) => {
                    self.emit_state();
                    (self.turns).resume(&mut turn_desk!(self), now, resume)
                }
                turn::Then::WindowSaid(window, resume) => {
                    self.learn_window(window);
                    (self.turns).resume(&mut turn_desk!(self), now, resume)
                }
                turn::Then::RunTools => return self.run_next_tool(now),
                turn::Then::Ended(ended) => {
                    if let Some(task) = &ended.review {
                        self.review_turn_ended(
                            now,
                            task,
                            &ended.answer,
                            ended.reported,
                            &ended.why,
                        );
                    }
                    if ended.changed_files {
                        self.refresh_review();
                    }
                    self.after_run()
                }
                turn::Then::Free => self.after_run(),
            };
        }
    }

    /// The session is free again: says so, then starts the next queued message.
    fn after_run(&mut self) -> turn::Then {
        self.emit_state();
        (self.turns).after_run(self.model.as_ref(), self.closed)
    }

    /// Starts a turn for `queued`, or queues it behind the running one.
    pub(in crate::session) fn submit(&mut self, now: Instant, queued: Queued, source: TurnSource) {
        let model = self.model.as_ref();
        let then = (self.turns).submit(&mut self.outbox, model, queued, source);
        self.follow_turn(now, then);
    }

    /// `steer_turn`: the text joins the next request.
    pub(in crate::session) fn steer(&mut self, text: String) -> Result<(), &'static str> {
        let steered = self.turns.steer(text)?;
        self.emit(Event::TurnSteered(steered));
        Ok(())
    }

    /// `compact`: summarize now, unless a turn runs or there is nothing older to summarize.
    pub(in crate::session) fn compact(
        &mut self,
        now: Instant,
        request: Compact,
    ) -> Result<(), String> {
        let then = (self.turns).compact(&turn_desk!(self), request)?;
        self.follow_turn(now, then);
        Ok(())
    }

    /// The start-up probes (or a question about the window) moved: a turn that waited for them
    /// sends its first request if it may now.
    pub(in crate::session) fn context_ready(&mut self, now: Instant) {
        let then = (self.turns).context_ready(&mut turn_desk!(self), now);
        self.follow_turn(now, then);
    }

    /// An HTTP input of the model request under way.
    pub(in crate::session) fn model_input(&mut self, now: Instant, input: Input<'_>) {
        let then = (self.turns).handle_http(&mut turn_desk!(self), now, input);
        self.follow_turn(now, then);
    }

    /// Runs a due timer of the turn, or of its tool calls.
    pub(in crate::session) fn turn_timeout(&mut self, now: Instant) {
        let then = (self.turns).handle_timeout(&mut turn_desk!(self), now);
        self.follow_turn(now, then);
        self.tool_timeout(now);
    }

    /// `interrupt_turn`: stop whatever runs, settle open prompts, end the turn. The client
    /// hears that the turn ended before io cancels its stream or kills its command.
    pub(in crate::session) fn interrupt(&mut self, now: Instant) {
        let mut cleanup = match self.turns.take_tools() {
            Some(tools) => self.interrupt_tools(tools),
            None => Vec::new(),
        };
        let window = self
            .model
            .as_ref()
            .and_then(|m| self.probes.context_window(m));
        let (then, model_cleanup) = (self.turns).interrupt(window, &mut journal!(self));
        cleanup.extend(model_cleanup);
        self.follow_turn(now, then);
        self.outbox.extend(cleanup);
    }
}

impl Session {
    /// The running answer's tool calls, with what they borrow of the session.
    fn tools(&mut self) -> Option<(&mut ToolStep, Desk<'_>)> {
        let (step, ids) = self.turns.tools_and_ids()?;
        let desk = Desk {
            outbox: &mut self.outbox,
            gate: &mut self.gate,
            work: tool_run::WorkContext {
                cwd: &self.facts.cwd,
                redactor: &self.redactor,
                bash_timeout: self.facts.timings.bash_timeout,
                tool_env_unset: &self.facts.tool_env_unset,
            },
            mode: self.mode,
            auto_approve: self.auto_approve,
            ids,
        };
        Some((step, desk))
    }

    /// Moves the tool calls on with `act`, then does what they need.
    fn on_tools(
        &mut self,
        now: Instant,
        act: impl FnOnce(&mut ToolStep, &mut Desk<'_>) -> tool_run::Then,
    ) {
        if let Some((step, mut desk)) = self.tools() {
            let then = act(step, &mut desk);
            self.follow_tools(now, then);
        }
    }

    /// Starts the next call, or sends the results back to the model when all are done.
    pub(in crate::session) fn run_next_tool(&mut self, now: Instant) {
        self.on_tools(now, |step, desk| step.run_next(desk, now));
    }

    /// Does what the tool calls need, until they wait or are done.
    fn follow_tools(&mut self, now: Instant, mut then: tool_run::Then) {
        loop {
            then = match then {
                tool_run::Then::Nothing => return,
                tool_run::Then::Review { name, input } => {
                    let (status, text) = match self.review_tool(now, &name, &input) {
                        Ok(text) => (ToolStatus::Ok, text),
                        Err(error) => (ToolStatus::Error, error),
                    };
                    let Some((step, mut desk)) = self.tools() else {
                        return;
                    };
                    step.finish(&mut desk, now, status, text)
                }
                tool_run::Then::McpTool { name, input } => {
                    let tool = self.mcp.tool(&name).cloned();
                    let Some((step, mut desk)) = self.tools() else {
                        return;
                    };
                    step.decide_mcp(&mut desk, now, &name, tool, input)
                }
                tool_run::Then::SendMcp { call, name, input } => {
                    let (ids, outputs) = self.outbox.parts();
                    let events = self
                        .mcp
                        .call(now, call, &name, input, &mut Io { ids, outputs });
                    self.mcp_events(now, events);
                    let Some((step, mut desk)) = self.tools() else {
                        return;
                    };
                    step.run_next(&mut desk, now)
                }
                tool_run::Then::Answered(answered) => {
                    let then = (self.turns).tools_answered(&mut turn_desk!(self), now, answered);
                    return self.follow_turn(now, then);
                }
            };
        }
    }

    /// Routes a file, process or search result to the running call.
    pub(in crate::session) fn tool_effect(&mut self, now: Instant, input: Input<'_>) {
        if self.turns.tools_mut().is_none() {
            if let Some(close) = unwanted_open(&input) {
                self.outbox.push(close);
            }
            return;
        }
        self.on_tools(now, |step, desk| step.handle(desk, now, input));
    }

    /// Kills a command past its deadline; its exit finishes the call.
    pub(in crate::session) fn tool_timeout(&mut self, now: Instant) {
        if let Some((step, desk)) = self.tools() {
            step.handle_timeout(desk.outbox, now);
        }
    }

    /// The running call waiting for the MCP machine's answer to `call`, by its id.
    pub(in crate::session) fn running_mcp_call(&mut self, call: CallId) -> Option<String> {
        let step = self.turns.tools_mut()?;
        step.running_mcp_call(call).map(str::to_owned)
    }

    /// The MCP call `call` ended: its result (and images) end the running call.
    pub(in crate::session) fn mcp_call_finished(
        &mut self,
        now: Instant,
        status: ToolStatus,
        text: String,
        images: Vec<crate::model::conversation::ImageData>,
    ) {
        self.on_tools(now, |step, desk| {
            step.finish_with_images(desk, now, status, text, images)
        });
    }

    /// `respond_permission`: the reply goes to the open prompt's call, which runs or is refused
    /// (an `always` reply adds its rule); an id that is not the open prompt's is refused.
    pub(in crate::session) fn respond_permission(
        &mut self,
        now: Instant,
        reply: RespondPermission,
    ) -> Result<(), String> {
        let Some((step, mut desk)) = self.tools() else {
            return Err(no_open_prompt(&reply.id));
        };
        let then = step.respond_permission(&mut desk, now, reply)?;
        self.follow_tools(now, then);
        Ok(())
    }

    /// Approves the open permission prompt, if any, as auto-approve (`once`).
    pub(in crate::session) fn auto_approve_open_prompt(&mut self, now: Instant) {
        self.on_tools(now, |step, desk| step.auto_approve(desk, now));
    }

    /// `answer_question`: the answer becomes the `ask_user` call's result for the model; an id
    /// that is not the open question's is refused.
    pub(in crate::session) fn answer_question(
        &mut self,
        now: Instant,
        answer: AnswerQuestion,
    ) -> Result<(), String> {
        let Some((step, mut desk)) = self.tools() else {
            return Err(no_open_question(&answer.id));
        };
        let then = step.answer_question(&mut desk, now, answer)?;
        self.follow_tools(now, then);
        Ok(())
    }

    /// Stops the running calls (an interrupt): every call gets a result, so the conversation
    /// stays well-formed for the next turn; returns what io must undo once the client has
    /// heard that the turn ended.
    pub(in crate::session) fn interrupt_tools(&mut self, step: ToolStep) -> Vec<Output> {
        let mcp = &mut self.mcp;
        let interrupted = step.interrupt(&mut self.outbox, |outbox, call| {
            let (ids, outputs) = outbox.parts();
            mcp.cancel(call, &mut Io { ids, outputs });
        });
        (self.turns).keep_results(&mut journal!(self), interrupted.answered);
        interrupted.cleanup
    }
}

impl Session {
    fn mcp_io(&mut self) -> (&mut Mcp, Io<'_>) {
        let (ids, outputs) = self.outbox.parts();
        (&mut self.mcp, Io { ids, outputs })
    }

    /// Starts the configured servers (after `ready`, so it never waits for them).
    pub(in crate::session) fn start_mcp(&mut self, now: Instant) {
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
    pub(in crate::session) fn mcp_effect(&mut self, now: Instant, input: &Input<'_>) {
        let (mcp, mut io) = self.mcp_io();
        if let Some(events) = mcp.handle(now, input, &mut io) {
            self.mcp_events(now, events);
        }
    }

    /// The MCP requests' earliest deadline.
    pub(in crate::session) fn mcp_deadline(&self) -> Option<Instant> {
        self.mcp.deadline()
    }

    /// Fails the servers that did not answer in time.
    pub(in crate::session) fn mcp_timeout(&mut self, now: Instant) {
        let (mcp, mut io) = self.mcp_io();
        let events = mcp.handle_timeout(now, &mut io);
        self.mcp_events(now, events);
    }

    /// Ends every server (`close`).
    pub(in crate::session) fn stop_mcp(&mut self) {
        let (mcp, mut io) = self.mcp_io();
        mcp.stop(&mut io);
    }

    /// `list_mcp_servers`: every configured server's status and tools, answered at once.
    pub(in crate::session) fn list_mcp_servers(&mut self, request_id: String) {
        let servers = self.mcp.statuses();
        self.emit(Event::McpServersListed(McpServersListed {
            request_id,
            servers,
        }));
    }

    pub(in crate::session) fn mcp_events(&mut self, now: Instant, events: Vec<McpEvent>) {
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

/// The store's glue: the settings the header and settings records carry, and where an
/// answer or a failure goes.
impl Session {
    /// Records the settings now in force.
    pub(in crate::session) fn record_settings(&mut self) {
        let settings = settings_record(self.model.as_ref(), self.mode, self.thinking);
        self.store.record_settings(&mut self.outbox, settings);
    }

    /// An append was answered.
    pub(in crate::session) fn store_result(&mut self, input: &Input<'_>) {
        if let Some(failure) = self.store.appended(input) {
            self.report_error(failure);
        }
    }

    /// `list_sessions`: asks io to read the sessions directory ([`Self::sessions_read`]
    /// answers); without a session directory the answer is an empty list at once.
    pub(in crate::session) fn list_sessions(&mut self, request_id: String) {
        if let Some(answer) = self.store.list(&mut self.outbox, request_id) {
            self.emit(Event::SessionsListed(answer));
        }
    }

    /// The directory was read: answer the `list_sessions` that asked.
    pub(in crate::session) fn sessions_read(&mut self, input: &Input<'_>) {
        let redactor = &self.redactor;
        let redact = |text: &str| redactor.redact(text).into_owned();
        let Some(listed) = self.store.sessions_read(input, &self.facts.cwd, &redact) else {
            return;
        };
        if let Some(failure) = listed.failure {
            self.report_error(failure);
        }
        self.emit(Event::SessionsListed(listed.answer));
    }

    /// Takes over a restored session's conversation and tells the client.
    pub(in crate::session) fn restore(&mut self, restored: Restored) {
        let restoring = restoring(restored);
        (self.turns).restore(restoring.view, restoring.turns, restoring.cost_usd);
        self.emit(Event::SessionRestored(restoring.shown));
    }
}
