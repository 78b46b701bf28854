//! The tool-run machine (`tool_run/`) in the session: what it borrows of the session, and
//! what the session does for what it needs — the review's tools, the MCP servers, and the
//! model's next request once every call has its result.

use std::time::Instant;

use crate::effects::{Input, Output};
use crate::mcp::{CallId, Io};
use crate::protocol::actions::{AnswerQuestion, RespondPermission};
use crate::protocol::events::ToolStatus;

use super::Session;
use super::tool_run::{Desk, Need, ToolStep, no_open_prompt, no_open_question, unwanted_open};
use super::turn::turn_desk;

impl Session {
    /// The running answer's tool calls, with what they borrow of the session.
    fn tools(&mut self) -> Option<(&mut ToolStep, Desk<'_>)> {
        let step = self.turns.tools_mut()?;
        let desk = Desk {
            port: &mut self.port,
            gate: &mut self.gate,
            redactor: &self.redactor,
            cwd: &self.facts.cwd,
            bash_timeout: self.facts.timings.bash_timeout,
            tool_env_unset: &self.facts.tool_env_unset,
            mode: self.mode,
            auto_approve: self.auto_approve,
            ids: &mut self.call_ids,
        };
        Some((step, desk))
    }

    /// Moves the tool calls on with `act`, then does what they need.
    fn on_tools(&mut self, now: Instant, act: impl FnOnce(&mut ToolStep, &mut Desk<'_>) -> Need) {
        if let Some((step, mut desk)) = self.tools() {
            let need = act(step, &mut desk);
            self.follow(now, need);
        }
    }

    /// Starts the next call, or sends the results back to the model when all are done.
    pub(super) fn run_next_tool(&mut self, now: Instant) {
        self.on_tools(now, |step, desk| step.run_next(desk, now));
    }

    /// Does what the tool calls need, until they wait or are done.
    fn follow(&mut self, now: Instant, mut need: Need) {
        loop {
            need = match need {
                Need::Wait => return,
                Need::Review { name, input } => {
                    let (status, text) = match self.review_tool(now, &name, &input) {
                        Ok(text) => (ToolStatus::Ok, text),
                        Err(error) => (ToolStatus::Error, error),
                    };
                    let Some((step, mut desk)) = self.tools() else {
                        return;
                    };
                    step.finish(&mut desk, now, status, text)
                }
                Need::McpTool { name, input } => {
                    let tool = self.mcp.tool(&name).cloned();
                    let Some((step, mut desk)) = self.tools() else {
                        return;
                    };
                    step.decide_mcp(&mut desk, now, &name, tool, input)
                }
                Need::SendMcp { call, name, input } => {
                    let (ids, outputs) = self.port.parts();
                    let events = self
                        .mcp
                        .call(now, call, &name, input, &mut Io { ids, outputs });
                    self.mcp_events(now, events);
                    let Some((step, mut desk)) = self.tools() else {
                        return;
                    };
                    step.run_next(&mut desk, now)
                }
                Need::Answered(answered) => {
                    let then = (self.turns).tools_answered(&mut turn_desk!(self), now, answered);
                    return self.follow_turn(now, then);
                }
            };
        }
    }

    /// Routes a file, process or search result to the running call.
    pub(super) fn tool_effect(&mut self, now: Instant, input: Input<'_>) {
        if self.turns.tools_mut().is_none() {
            if let Some(close) = unwanted_open(&input) {
                self.port.push(close);
            }
            return;
        }
        self.on_tools(now, |step, desk| step.handle(desk, now, input));
    }

    /// Kills a command past its deadline; its exit finishes the call.
    pub(super) fn tool_timeout(&mut self, now: Instant) {
        if let Some((step, desk)) = self.tools() {
            step.handle_timeout(desk.port, now);
        }
    }

    /// The running call waiting for the MCP machine's answer to `call`, by its id.
    pub(super) fn running_mcp_call(&mut self, call: CallId) -> Option<String> {
        let step = self.turns.tools_mut()?;
        step.running_mcp_call(call).map(str::to_owned)
    }

    /// The MCP call `call` ended: its result (and images) end the running call.
    pub(super) fn mcp_call_finished(
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

    /// `respond_permission`.
    pub(super) fn respond_permission(
        &mut self,
        now: Instant,
        reply: RespondPermission,
    ) -> Result<(), String> {
        let Some((step, mut desk)) = self.tools() else {
            return Err(no_open_prompt(&reply.id));
        };
        let need = step.respond_permission(&mut desk, now, reply)?;
        self.follow(now, need);
        Ok(())
    }

    /// Approves the open permission prompt, if any, as auto-approve (`once`).
    pub(super) fn auto_approve_open_prompt(&mut self, now: Instant) {
        self.on_tools(now, |step, desk| step.auto_approve(desk, now));
    }

    /// `answer_question`.
    pub(super) fn answer_question(
        &mut self,
        now: Instant,
        answer: AnswerQuestion,
    ) -> Result<(), String> {
        let Some((step, mut desk)) = self.tools() else {
            return Err(no_open_question(&answer.id));
        };
        let need = step.answer_question(&mut desk, now, answer)?;
        self.follow(now, need);
        Ok(())
    }

    /// Stops the running calls (an interrupt): every call gets a result, so the conversation
    /// stays well-formed for the next turn; returns what io must undo once the client has
    /// heard that the turn ended.
    pub(super) fn interrupt_tools(&mut self, step: ToolStep) -> Vec<Output> {
        let mcp = &mut self.mcp;
        let interrupted = step.interrupt(&mut self.port, |port, call| {
            let (ids, outputs) = port.parts();
            mcp.cancel(call, &mut Io { ids, outputs });
        });
        (self.turns).keep_results(&mut turn_desk!(self), interrupted.answered);
        interrupted.cleanup
    }
}
