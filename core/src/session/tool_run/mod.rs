//! Running the tool calls of one answer, in order: permission, the effects that do the work
//! (`work.rs`, a machine of its own), the prompts and questions a call waits on (`asking.rs`),
//! and the result the model gets back.

mod asking;
mod work;

use std::time::Instant;

use serde_json::Value;

use crate::effects::{EffectId, FileIdentity, FileKind, Input, OpenFor, Output};
use crate::model::conversation::{Block, Message, Role};
use crate::permissions::Decision;
use crate::permissions::rules::Rule;
use crate::protocol::events::{
    Event, FilesChanged, PermissionResolved, PlanUpdated, QuestionAsked, QuestionResolved,
    ResolvedBy, ToolFinished, ToolStarted, ToolStatus,
};
use crate::protocol::values::{Mode, PermissionReply, QuestionReply};

use super::Session;
use super::owners::Owner;
use super::tools::args::ToolArgs;
use super::tools::bash_run::MODEL_OUTPUT_MAX;
use super::tools::definitions::{PLAN_TOOLS, REVIEW_TOOLS};
use super::tools::paths::resolve;
use super::tools::shaping::cap_text;
use super::tools::views::title;
use super::turn::Turn;
use work::{Begun, Progress, Work};

/// The tool calls of one answer and how far they got.
#[derive(Debug)]
pub(super) struct ToolStep {
    calls: Vec<(String, String, Value)>,
    next: usize,
    results: Vec<Block>,
    running: Option<Running>,
}

/// The call being worked on.
#[derive(Debug)]
struct Running {
    call_id: String,
    provider_id: String,
    wait: Wait,
    /// The file io holds open for this call (`read`, `write`, `edit`) until it is read or
    /// replaced through it; closed when the call ends any other way.
    opened: Option<EffectId>,
}

#[derive(Debug)]
enum Wait {
    /// Started; its permission is being decided.
    Deciding,
    /// Waiting for io to resolve the path (symlinks), or to open the file, before deciding.
    Resolving {
        effect: EffectId,
        tool: String,
        requested: String,
        args: ToolArgs,
    },
    Permission {
        prompt_id: String,
        args: ToolArgs,
        rule: Rule,
    },
    Question {
        question_id: String,
    },
    Effect {
        effect: EffectId,
        work: Work,
        /// When a command must have ended.
        deadline: Option<Instant>,
    },
    /// Sent to an MCP server; the MCP machine ends it.
    Mcp {
        call: crate::mcp::CallId,
    },
}

impl ToolStep {
    pub(super) fn new(calls: Vec<(String, String, Value)>) -> Self {
        Self {
            calls,
            next: 0,
            results: Vec::new(),
            running: None,
        }
    }

    /// The bash timeout of the running call, if any.
    pub(super) fn deadline(&self) -> Option<Instant> {
        match &self.running.as_ref()?.wait {
            Wait::Effect { work, deadline, .. } => deadline.filter(|_| work.limit().is_some()),
            _ => None,
        }
    }
}

impl Session {
    fn tool_step(&mut self) -> Option<&mut ToolStep> {
        self.turn.as_mut().and_then(Turn::tools_mut)
    }

    /// Starts the next call, or sends the results back to the model when all are done.
    pub(super) fn run_next_tool(&mut self, now: Instant) {
        loop {
            let Some(step) = self.tool_step() else {
                return;
            };
            if step.running.is_some() {
                return;
            }
            let Some((provider_id, name, input)) = step.calls.get(step.next).cloned() else {
                let results = std::mem::take(&mut step.results);
                self.remember(Message {
                    role: Role::User,
                    content: results,
                });
                return self.send_request(now, 1);
            };
            self.next_call += 1;
            let call_id = format!("call_{}", self.next_call);
            let parsed = ToolArgs::parse(&name, &input);
            let tool_input = input.clone();
            self.emit(Event::ToolStarted(ToolStarted {
                call_id: call_id.clone(),
                name: name.clone(),
                title: title(&self.redactor, &name, &input),
                input,
            }));
            let running = Running {
                call_id,
                provider_id,
                wait: Wait::Deciding,
                opened: None,
            };
            if let Some(step) = self.tool_step() {
                step.running = Some(running);
            }
            // The review tools touch only the review session: no permission, no effect.
            if REVIEW_TOOLS.contains(&name.as_str()) {
                match self.review_tool(now, &name, &tool_input) {
                    Ok(text) => self.finish_tool(ToolStatus::Ok, text, None),
                    Err(error) => self.finish_tool(ToolStatus::Error, error, None),
                }
                continue;
            }
            if crate::mcp::names::is_mcp(&name) {
                self.decide_mcp_call(now, &name, tool_input);
                continue;
            }
            let args = match parsed {
                Err(error) => {
                    self.finish_tool(ToolStatus::Error, error, None);
                    continue;
                }
                Ok(_) if self.mode == Mode::Plan && !PLAN_TOOLS.contains(&name.as_str()) => {
                    let error = format!("{name} is not available in plan mode");
                    self.finish_tool(ToolStatus::Denied, error, None);
                    continue;
                }
                Ok(args) => args,
            };
            match args.path().map(|p| resolve(&self.cwd, p).absolute) {
                Some(path) => {
                    if let Some(reason) = self.gate.denied_by_name(&name, &path) {
                        self.finish_tool(ToolStatus::Denied, reason, None);
                        continue;
                    }
                    let effect = self.effect_id(Owner::Tool);
                    // A file a call reads or writes is opened first and decided on as opened,
                    // so what is decided is what is then read or replaced.
                    let output = match &args {
                        ToolArgs::Read { .. } => Output::OpenFile {
                            id: effect,
                            path: path.clone(),
                            purpose: OpenFor::Read,
                        },
                        ToolArgs::Write { .. } | ToolArgs::Edit { .. } => Output::OpenFile {
                            id: effect,
                            path: path.clone(),
                            purpose: OpenFor::Write,
                        },
                        _ => Output::ResolvePath {
                            id: effect,
                            path: path.clone(),
                        },
                    };
                    if let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) {
                        running.wait = Wait::Resolving {
                            effect,
                            tool: name,
                            requested: path,
                            args,
                        };
                    }
                    self.port.push(output);
                }
                None => self.decide(now, &name, args, None),
            }
        }
    }

    /// Decides a call (its path, if any, already resolved) and runs, asks or refuses it.
    fn decide(&mut self, now: Instant, tool: &str, args: ToolArgs, requested: Option<String>) {
        match self.gate.verdict(tool, &args, requested.as_deref()) {
            Decision::Deny { reason } => self.finish_tool(ToolStatus::Denied, reason, None),
            Decision::Allow => self.execute(now, args),
            Decision::Ask { always_rule } => self.ask_permission(now, tool, args, always_rule),
        }
    }

    /// io resolved the path of the running call (or opened its file, as `identity`): decide
    /// it now.
    fn path_resolved(
        &mut self,
        now: Instant,
        result: Result<String, String>,
        identity: Option<FileIdentity>,
    ) {
        if identity.is_some_and(|id| self.gate.is_env_file(&id)) {
            // Another name for a `.env` file (a hard link): denied as the file itself is.
            let tool = match self.tool_step().and_then(|s| s.running.as_ref()) {
                Some(Running {
                    wait: Wait::Resolving { tool, .. },
                    ..
                }) => tool.clone(),
                _ => return,
            };
            let reason = format!("{tool} of .env files is denied: they hold secrets");
            self.finish_tool(ToolStatus::Denied, reason, None);
            return self.run_next_tool(now);
        }
        let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
            return;
        };
        let Wait::Resolving {
            tool,
            requested,
            mut args,
            ..
        } = std::mem::replace(&mut running.wait, Wait::Deciding)
        else {
            return;
        };
        match result {
            // io names what it opened by an absolute path; anything else is not a file a tool
            // may touch (and would be taken as relative to cwd).
            Ok(resolved) if !resolved.starts_with('/') => {
                let error = format!("{requested}: is not a file in the file tree");
                self.finish_tool(ToolStatus::Error, error, None);
            }
            Ok(resolved) => {
                args.set_path(resolved);
                self.decide(now, &tool, args, Some(requested));
            }
            // A path that cannot be resolved or opened is still decided on by its name: a
            // denied one is denied (whether it exists is nobody's business).
            Err(error) => match self.gate.denied_by_name(&tool, &requested) {
                Some(reason) => self.finish_tool(ToolStatus::Denied, reason, None),
                None => self.finish_tool(ToolStatus::Error, error, None),
            },
        }
        self.run_next_tool(now);
    }

    /// Whether the running call waits for the open `id`.
    fn awaits_open(&mut self, id: EffectId) -> bool {
        matches!(
            self.tool_step().and_then(|s| s.running.as_ref()),
            Some(Running { wait: Wait::Resolving { effect, .. }, .. }) if *effect == id
        )
    }

    /// Starts the work of an allowed call.
    pub(super) fn execute(&mut self, now: Instant, args: ToolArgs) {
        let id = self.effect_id(Owner::Tool);
        let cx = work::Context {
            cwd: &self.cwd,
            redactor: &self.redactor,
            bash_timeout: self.timings.bash_timeout,
            tool_env_unset: &self.tool_env_unset,
        };
        let Some(running) = running_call(&mut self.turn) else {
            return;
        };
        let args = match Work::begin(args, id, &mut running.opened, &cx) {
            Begun::Io(output, work) => {
                let deadline = work.limit().map(|limit| now + limit);
                running.wait = Wait::Effect {
                    effect: id,
                    work,
                    deadline,
                };
                return self.port.push(output);
            }
            Begun::Not(args) => args,
        };
        match args {
            ToolArgs::AskUser {
                question,
                options,
                multiple,
            } => {
                self.port.owners().forget(id);
                self.next_prompt += 1;
                let question_id = format!("q_{}", self.next_prompt);
                let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
                    return;
                };
                running.wait = Wait::Question {
                    question_id: question_id.clone(),
                };
                let call_id = running.call_id.clone();
                self.emit(Event::QuestionAsked(QuestionAsked {
                    id: question_id,
                    call_id,
                    question,
                    options,
                    multiple,
                }));
            }
            ToolArgs::Mcp { name, input, .. } => {
                // The MCP machine issues its own effects.
                self.port.owners().forget(id);
                self.send_mcp_call(now, &name, input);
            }
            ToolArgs::UpdatePlan { entries } => {
                self.port.owners().forget(id);
                let steps = entries.len();
                self.emit(Event::PlanUpdated(PlanUpdated { entries }));
                self.finish_tool(
                    ToolStatus::Ok,
                    format!("Plan updated ({steps} steps)."),
                    None,
                );
            }
            // Begun as io work above.
            _ => {}
        }
    }

    /// Routes a file, process or search result to the running call.
    pub(super) fn tool_effect(&mut self, now: Instant, input: Input<'_>) {
        if let Input::FileOpened { id, result: Ok(_) } = &input
            && !self.awaits_open(*id)
        {
            // Opened for a call that ended meanwhile (an interrupt): io must not hold it.
            return self.port.push(Output::CloseOpened { handle: *id });
        }
        let Some(running) = running_call(&mut self.turn) else {
            return;
        };
        match (&running.wait, &input) {
            (Wait::Resolving { effect, .. }, Input::PathResolved { id, result })
                if effect == id =>
            {
                let result = result.clone();
                return self.path_resolved(now, result, None);
            }
            (Wait::Resolving { effect, .. }, Input::FileOpened { id, result }) if effect == id => {
                let identity = result.as_ref().ok().and_then(|o| o.identity);
                if result.is_ok() {
                    running.opened = Some(*id);
                }
                // Only a regular file is read or written: a FIFO or device would block the
                // read for ever, a directory is nothing to read or replace.
                let result = result.clone().and_then(|opened| match opened.kind {
                    None | Some(FileKind::Regular) => Ok(opened.path),
                    Some(FileKind::Directory) => Err(format!("{}: is a directory", opened.path)),
                    Some(FileKind::Other) => Err(format!("{}: is not a regular file", opened.path)),
                });
                return self.path_resolved(now, result, identity);
            }
            _ => {}
        }
        let Wait::Effect { effect, work, .. } = &mut running.wait else {
            return;
        };
        let effect = *effect;
        match work.take(input, effect, &running.call_id, &self.gate, &self.redactor) {
            Progress::Unrelated => {}
            Progress::Shown(delta) => self.emit(delta),
            Progress::Write { path, bytes, then } => {
                let id = self.effect_id(Owner::Tool);
                let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
                    return;
                };
                running.wait = Wait::Effect {
                    effect: id,
                    work: *then,
                    deadline: None,
                };
                let output = work::write_output(id, path, bytes, &mut running.opened);
                self.port.push(output);
            }
            Progress::Done(done) => {
                if let Some(shown) = done.shown {
                    self.emit(shown);
                }
                if let Some(path) = done.changed {
                    if let Some(turn) = self.turn.as_mut() {
                        turn.note_changed_files();
                    }
                    self.emit(Event::FilesChanged(FilesChanged { paths: vec![path] }));
                }
                self.finish_tool(done.status, done.text, done.diff);
                self.run_next_tool(now);
            }
        }
    }

    /// A bash call ran out of time: kill its process group; its exit finishes the call.
    pub(super) fn tool_timeout(&mut self, now: Instant) {
        if let Some(Running {
            wait:
                Wait::Effect {
                    effect,
                    work,
                    deadline: Some(deadline),
                },
            ..
        }) = self.tool_step().and_then(|s| s.running.as_mut())
            && *deadline <= now
            && work.time_out()
        {
            let id = *effect;
            self.port.push(Output::Kill { id });
        }
    }

    /// Makes the running call wait for the MCP machine's answer to `call`.
    pub(super) fn await_mcp(&mut self, call: crate::mcp::CallId) {
        if let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) {
            running.wait = Wait::Mcp { call };
        }
    }

    /// The running call's id when it waits for the MCP machine's answer to `call`.
    pub(super) fn running_mcp_call(&mut self, call: crate::mcp::CallId) -> Option<String> {
        match self.tool_step()?.running.as_ref()? {
            Running {
                call_id,
                wait: Wait::Mcp { call: waiting },
                ..
            } if *waiting == call => Some(call_id.clone()),
            _ => None,
        }
    }

    /// Ends the running call: `tool_finished`, and its result for the model.
    pub(super) fn finish_tool(&mut self, status: ToolStatus, output: String, diff: Option<String>) {
        let Some(step) = self.tool_step() else {
            return;
        };
        let Some(running) = step.running.take() else {
            return;
        };
        step.next += 1;
        if let Some(handle) = running.opened {
            self.port.push(Output::CloseOpened { handle });
        }
        // Every tool output passes here on its way to the model and the client.
        let output = cap_text(self.redactor.redact(&output).into_owned(), MODEL_OUTPUT_MAX);
        let diff = diff.map(|d| self.redactor.redact(&d).into_owned());
        let Some(step) = self.tool_step() else {
            return;
        };
        step.results.push(Block::ToolResult {
            tool_use_id: running.provider_id,
            content: output.clone(),
            is_error: status != ToolStatus::Ok,
            images: Vec::new(),
        });
        self.emit(Event::ToolFinished(ToolFinished {
            call_id: running.call_id,
            status,
            output,
            diff,
        }));
    }

    /// [`Session::finish_tool`] for a call that also returned images (an MCP tool's): they go
    /// with its result to the model, except those that hold a `.env` value (in any of the
    /// forms the redactor knows, base64 among them), which its output says were withheld.
    pub(super) fn finish_tool_with_images(
        &mut self,
        status: ToolStatus,
        mut output: String,
        images: Vec<crate::model::conversation::ImageData>,
    ) {
        let mut kept = Vec::new();
        for (at, image) in images.into_iter().enumerate() {
            if matches!(
                self.redactor.redact(&image.data),
                std::borrow::Cow::Borrowed(_)
            ) {
                kept.push(image);
            } else {
                output.push_str(&format!(
                    "\n[image {} withheld: it holds a value of the project's .env]",
                    at + 1
                ));
            }
        }
        let before = self.tool_step().map_or(0, |step| step.results.len());
        self.finish_tool(status, output, None);
        if let Some(step) = self.tool_step()
            && step.results.len() == before + 1
            && let Some(Block::ToolResult { images, .. }) = step.results.last_mut()
        {
            *images = kept;
        }
    }

    /// Stops the running call and gives every call of the answer a result, so the conversation
    /// stays well-formed for the next turn; returns what io must undo once the client has
    /// heard that the turn ended (the command's process group to kill).
    pub(super) fn interrupt_tools(&mut self, mut step: ToolStep) -> Vec<Output> {
        let mut cleanup = Vec::new();
        if let Some(running) = step.running.take() {
            // A file is let go of before the turn ends (the harness holds io to that).
            if let Some(handle) = running.opened {
                self.port.push(Output::CloseOpened { handle });
            }
            match running.wait {
                Wait::Permission { prompt_id, .. } => {
                    self.emit(Event::PermissionResolved(PermissionResolved {
                        id: prompt_id,
                        reply: PermissionReply::Reject,
                        by: ResolvedBy::Interrupt,
                    }))
                }
                Wait::Question { question_id } => {
                    self.emit(Event::QuestionResolved(QuestionResolved {
                        id: question_id,
                        reply: QuestionReply::Dismissed,
                        by: ResolvedBy::Interrupt,
                    }))
                }
                Wait::Effect { effect, work, .. } if work.is_command() => {
                    cleanup.push(Output::Kill { id: effect });
                }
                Wait::Mcp { call } => self.cancel_mcp_call(call),
                _ => {}
            }
            self.emit(Event::ToolFinished(ToolFinished {
                call_id: running.call_id,
                status: ToolStatus::Interrupted,
                output: "interrupted by the user".to_owned(),
                diff: None,
            }));
        }
        for (provider_id, _, _) in &step.calls[step.results.len()..] {
            step.results.push(Block::ToolResult {
                tool_use_id: provider_id.clone(),
                content: "interrupted by the user".to_owned(),
                is_error: true,
                images: Vec::new(),
            });
        }
        self.remember(Message {
            role: Role::User,
            content: step.results,
        });
        cleanup
    }
}

/// The running call of `turn`, borrowing nothing else of the session: its gate and redactor
/// stay free for the work the call does.
fn running_call(turn: &mut Option<Turn>) -> Option<&mut Running> {
    turn.as_mut()?.tools_mut()?.running.as_mut()
}
