//! The tool calls of one answer as a machine, run in order: permission, the effects that do
//! the work (`work.rs`, a machine of its own), the prompts and questions a call waits on
//! (`asking.rs`), and the results the model gets back. It borrows what it needs of the
//! session for one call ([`Desk`]) and answers with what it needs of the rooms it does not
//! own ([`Then`]): the review's tools, the MCP servers, and the model once every call has
//! its result. Time is whatever the caller measures deadlines in (`Instant` in a session),
//! so tests drive it without a clock.

mod asking;
mod ending;
mod preview;
mod work;

pub(super) use asking::{no_open_prompt, no_open_question};
/// What a call's work runs with, lent as part of the [`Desk`].
pub(super) use work::Context as WorkContext;

#[cfg(test)]
mod tests;

use std::ops::Add;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::effects::{EffectId, FileIdentity, FileKind, Input, OpenFor, Output};
use crate::mcp::CallId;
use crate::model::conversation::Block;
use crate::permissions::Decision;
use crate::permissions::rules::Rule;
use crate::protocol::events::{
    Event, FilesChanged, PlanUpdated, QuestionAsked, ToolStarted, ToolStatus,
};
use crate::protocol::values::Mode;

use super::outbox::Outbox;
use super::owners::Owner;
use super::tool_gate::ToolGate;
use super::tools::args::ToolArgs;
use super::tools::definitions::{PLAN_TOOLS, REVIEW_TOOLS};
use super::tools::views::title;
use crate::paths::resolve;
use work::{Begun, Progress, Work};

/// The numbers behind call and prompt ids, which run on across the session's turns.
#[derive(Debug, Default)]
pub(super) struct CallIds {
    call: u64,
    prompt: u64,
}

/// What the tool run borrows of the session for one input: the outbox, the gate and the ids it
/// writes, the context a call's work runs with (lent whole, as the work takes it), and the mode.
pub(super) struct Desk<'a> {
    pub outbox: &'a mut Outbox,
    /// The rules and places every call is decided by; an `always` reply adds a rule.
    pub gate: &'a mut ToolGate,
    /// What a call's work runs with: where relative paths start, what output and titles must
    /// not show, a command's time and what commands do not inherit.
    pub work: work::Context<'a>,
    pub mode: Mode,
    /// Whether permission prompts are approved as they open.
    pub auto_approve: bool,
    pub ids: &'a mut CallIds,
}

/// What the tool run needs of the rest of the session to go on.
#[derive(Debug)]
#[must_use]
pub(super) enum Then {
    /// Nothing: the running call waits for io, the user or an MCP server.
    Nothing,
    /// The running call is one of the review's tools, which touch only the review session:
    /// its result goes back through [`ToolStep::finish`].
    Review { name: String, input: Value },
    /// The running call names an MCP tool: what its server offers under `name` goes back
    /// through [`ToolStep::decide_mcp`].
    McpTool { name: String, input: Value },
    /// An allowed MCP call to send as `call`; its end comes back through
    /// [`ToolStep::finish_with_images`].
    SendMcp {
        call: CallId,
        name: String,
        input: Value,
    },
    /// Every call has its result, for the model's next request.
    Answered(Answered),
}

/// The results of an answer's calls, whole.
#[derive(Debug)]
pub(super) struct Answered {
    /// One result per call, in the answer's order.
    pub results: Vec<Block>,
    /// Whether a call changed files.
    pub changed_files: bool,
}

/// An interrupted tool run: the results it leaves the conversation (every call answered),
/// and what io must undo once the client heard the turn end (the command's process group).
#[derive(Debug)]
pub(super) struct Interrupted {
    pub answered: Answered,
    pub cleanup: Vec<Output>,
}

/// The tool calls of one answer and how far they got.
#[derive(Debug)]
pub(super) struct ToolStep<At = Instant> {
    calls: Vec<(String, String, Value)>,
    next: usize,
    results: Vec<Block>,
    running: Option<Running<At>>,
    changed_files: bool,
}

/// The call being worked on.
#[derive(Debug)]
struct Running<At> {
    call_id: String,
    provider_id: String,
    wait: Wait<At>,
    /// The file io holds open for this call (`read`, `write`, `edit`) until it is read or
    /// replaced through it; closed when the call ends any other way.
    opened: Option<EffectId>,
    /// Whether the opened file existed: a write replaces it, and shows what it replaced.
    exists: bool,
}

#[derive(Debug)]
enum Wait<At> {
    /// Started; its permission is being decided.
    Deciding,
    /// Waiting for io to resolve the path (symlinks), or to open the file, before deciding.
    Resolving {
        effect: EffectId,
        tool: String,
        requested: String,
        args: ToolArgs,
    },
    /// A write or an edit to be asked about, waiting for io to read its file for the diff
    /// the prompt shows.
    Previewing {
        effect: EffectId,
        tool: String,
        args: ToolArgs,
        rule: Rule,
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
        deadline: Option<At>,
    },
    /// Sent to an MCP server; the MCP machine ends it.
    Mcp {
        call: CallId,
    },
}

impl<At: Copy + Ord + Add<Duration, Output = At>> ToolStep<At> {
    /// The calls of one answer: `(provider's id, tool name, input)` each.
    pub(super) fn new(calls: Vec<(String, String, Value)>) -> Self {
        Self {
            calls,
            next: 0,
            results: Vec::new(),
            running: None,
            changed_files: false,
        }
    }

    /// The bash timeout of the running call, if any.
    pub(super) fn deadline(&self) -> Option<At> {
        match &self.running.as_ref()?.wait {
            Wait::Effect { work, deadline, .. } => deadline.filter(|_| work.limit().is_some()),
            _ => None,
        }
    }

    /// Starts the next call, or hands back the results when every call has one.
    pub(super) fn run_next(&mut self, desk: &mut Desk<'_>, now: At) -> Then {
        loop {
            if self.running.is_some() {
                return Then::Nothing;
            }
            let Some((provider_id, name, input)) = self.calls.get(self.next).cloned() else {
                return Then::Answered(Answered {
                    results: std::mem::take(&mut self.results),
                    changed_files: self.changed_files,
                });
            };
            desk.ids.call += 1;
            let call_id = format!("call_{}", desk.ids.call);
            let parsed = ToolArgs::parse(&name, &input);
            let tool_input = input.clone();
            desk.outbox.emit(Event::ToolStarted(ToolStarted {
                call_id: call_id.clone(),
                name: name.clone(),
                title: title(desk.work.redactor, &name, &input),
                input,
            }));
            self.running = Some(Running {
                call_id,
                provider_id,
                wait: Wait::Deciding,
                opened: None,
                exists: false,
            });
            if REVIEW_TOOLS.contains(&name.as_str()) {
                let input = tool_input;
                return Then::Review { name, input };
            }
            if crate::mcp::names::is_mcp(&name) {
                let input = tool_input;
                return Then::McpTool { name, input };
            }
            let args = match parsed {
                Err(error) => {
                    self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Error, error);
                    continue;
                }
                Ok(_) if desk.mode == Mode::Plan && !PLAN_TOOLS.contains(&name.as_str()) => {
                    let error = format!("{name} is not available in plan mode");
                    self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Denied, error);
                    continue;
                }
                Ok(args) => args,
            };
            match args.path().map(|p| resolve(desk.work.cwd, p).absolute) {
                Some(path) => {
                    if let Some(reason) = desk.gate.denied_by_name(&name, &path) {
                        self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Denied, reason);
                        continue;
                    }
                    let effect = desk.outbox.effect_id(Owner::Tool);
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
                    if let Some(running) = self.running.as_mut() {
                        running.wait = Wait::Resolving {
                            effect,
                            tool: name,
                            requested: path,
                            args,
                        };
                    }
                    desk.outbox.push(output);
                }
                None => {
                    if let Some(need) = self.decide(desk, now, &name, args, None) {
                        return need;
                    }
                }
            }
        }
    }

    /// Decides a call (its path, if any, already resolved) and runs, asks or refuses it;
    /// what the session must do for it, if anything.
    fn decide(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        tool: &str,
        args: ToolArgs,
        requested: Option<String>,
    ) -> Option<Then> {
        let decision = desk.gate.verdict(tool, &args, requested.as_deref());
        self.follow_decision(desk, now, tool, args, decision)
    }

    /// Runs, asks about or refuses a call as `decision` says.
    fn follow_decision(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        tool: &str,
        args: ToolArgs,
        decision: Decision,
    ) -> Option<Then> {
        match decision {
            Decision::Deny { reason } => {
                self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Denied, reason);
                None
            }
            Decision::Allow => self.execute(desk, now, args),
            Decision::Ask { always_rule } => {
                self.ask_permission(desk, now, tool, args, always_rule)
            }
        }
    }

    /// io resolved the path of the running call (or opened its file, as `identity`): decide
    /// it now.
    fn path_resolved(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        result: Result<String, String>,
        identity: Option<FileIdentity>,
    ) -> Then {
        if identity.is_some_and(|id| desk.gate.is_env_file(&id)) {
            // Another name for a `.env` file (a hard link): denied as the file itself is.
            let tool = match &self.running {
                Some(Running {
                    wait: Wait::Resolving { tool, .. },
                    ..
                }) => tool.clone(),
                _ => return Then::Nothing,
            };
            let reason = format!("{tool} of .env files is denied: they hold secrets");
            return self.finish(desk, now, ToolStatus::Denied, reason);
        }
        let Some(running) = self.running.as_mut() else {
            return Then::Nothing;
        };
        let Wait::Resolving {
            tool,
            requested,
            mut args,
            ..
        } = std::mem::replace(&mut running.wait, Wait::Deciding)
        else {
            return Then::Nothing;
        };
        match result {
            // io names what it opened by an absolute path; anything else is not a file a tool
            // may touch (and would be taken as relative to cwd).
            Ok(resolved) if !resolved.starts_with('/') => {
                let error = format!("{requested}: is not a file in the file tree");
                self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Error, error);
            }
            Ok(resolved) => {
                args.set_path(resolved);
                if let Some(need) = self.decide(desk, now, &tool, args, Some(requested)) {
                    return need;
                }
            }
            // A path that cannot be resolved or opened is still decided on by its name: a
            // denied one is denied (whether it exists is nobody's business).
            Err(error) => match desk.gate.denied_by_name(&tool, &requested) {
                Some(reason) => {
                    self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Denied, reason)
                }
                None => self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Error, error),
            },
        }
        self.run_next(desk, now)
    }

    /// Whether `input` is the open the running call waits for.
    fn awaits_open_of(&self, input: &Input<'_>) -> bool {
        matches!(
            (&self.running, input),
            (Some(Running { wait: Wait::Resolving { effect, .. }, .. }), Input::FileOpened { id, .. })
                if effect == id
        )
    }

    /// Starts the work of an allowed call; the MCP call to send, if it is one.
    fn execute(&mut self, desk: &mut Desk<'_>, now: At, args: ToolArgs) -> Option<Then> {
        let id = desk.outbox.effect_id(Owner::Tool);
        let running = self.running.as_mut()?;
        let args = match Work::begin(args, id, &mut running.opened, running.exists, &desk.work) {
            Begun::Io(output, work) => {
                let deadline = work.limit().map(|limit| now + limit);
                running.wait = Wait::Effect {
                    effect: id,
                    work,
                    deadline,
                };
                desk.outbox.push(output);
                return None;
            }
            Begun::Not(args) => args,
        };
        match args {
            ToolArgs::AskUser {
                question,
                options,
                multiple,
            } => {
                desk.outbox.owners().forget(id);
                desk.ids.prompt += 1;
                let question_id = format!("q_{}", desk.ids.prompt);
                running.wait = Wait::Question {
                    question_id: question_id.clone(),
                };
                let call_id = running.call_id.clone();
                desk.outbox.emit(Event::QuestionAsked(QuestionAsked {
                    id: question_id,
                    call_id,
                    question,
                    options,
                    multiple,
                }));
                None
            }
            ToolArgs::Mcp { name, input, .. } => {
                // The MCP machine issues its own effects.
                desk.outbox.owners().forget(id);
                let call = CallId(desk.ids.call);
                running.wait = Wait::Mcp { call };
                Some(Then::SendMcp { call, name, input })
            }
            ToolArgs::UpdatePlan { entries } => {
                desk.outbox.owners().forget(id);
                let steps = entries.len();
                desk.outbox
                    .emit(Event::PlanUpdated(PlanUpdated { entries }));
                let text = format!("Plan updated ({steps} steps).");
                self.end_call(desk.outbox, desk.work.redactor, ToolStatus::Ok, text);
                None
            }
            // Begun as io work above.
            _ => None,
        }
    }

    /// Takes a file, process or search result for the running call.
    pub(super) fn handle(&mut self, desk: &mut Desk<'_>, now: At, input: Input<'_>) -> Then {
        if let Some(close) = unwanted_open(&input).filter(|_| !self.awaits_open_of(&input)) {
            desk.outbox.push(close);
            return Then::Nothing;
        }
        let Some(running) = self.running.as_mut() else {
            return Then::Nothing;
        };
        match (&running.wait, &input) {
            (Wait::Resolving { effect, .. }, Input::PathResolved { id, result })
                if effect == id =>
            {
                let result = result.clone();
                return self.path_resolved(desk, now, result, None);
            }
            (Wait::Resolving { effect, .. }, Input::FileOpened { id, result }) if effect == id => {
                let identity = result.as_ref().ok().and_then(|o| o.identity);
                if result.is_ok() {
                    running.opened = Some(*id);
                    running.exists = identity.is_some();
                }
                // Only a regular file is read or written: a FIFO or device would block the
                // read for ever, a directory is nothing to read or replace.
                let result = result.clone().and_then(|opened| match opened.kind {
                    None | Some(FileKind::Regular) => Ok(opened.path),
                    Some(FileKind::Directory) => Err(format!("{}: is a directory", opened.path)),
                    Some(FileKind::Other) => Err(format!("{}: is not a regular file", opened.path)),
                });
                return self.path_resolved(desk, now, result, identity);
            }
            _ => {}
        }
        let previewed = matches!(
            (&running.wait, &input),
            (Wait::Previewing { effect, .. }, Input::FileRead { id, .. }) if effect == id
        );
        if previewed && let Input::FileRead { result, .. } = input {
            return self.previewed(desk, now, result);
        }
        let Wait::Effect { effect, work, .. } = &mut running.wait else {
            return Then::Nothing;
        };
        let effect = *effect;
        match work.take(
            input,
            effect,
            &running.call_id,
            desk.gate,
            desk.work.redactor,
        ) {
            Progress::Unrelated => Then::Nothing,
            Progress::Shown(delta) => {
                desk.outbox.emit(delta);
                Then::Nothing
            }
            Progress::Write { path, bytes, then } => {
                let id = desk.outbox.effect_id(Owner::Tool);
                running.wait = Wait::Effect {
                    effect: id,
                    work: *then,
                    deadline: None,
                };
                let output = work::write_output(id, path, bytes, &mut running.opened);
                desk.outbox.push(output);
                Then::Nothing
            }
            Progress::Done(done) => {
                if let Some(shown) = done.shown {
                    desk.outbox.emit(shown);
                }
                if let Some(path) = done.changed {
                    self.changed_files = true;
                    desk.outbox
                        .emit(Event::FilesChanged(FilesChanged { paths: vec![path] }));
                }
                let (outbox, redactor) = (&mut *desk.outbox, desk.work.redactor);
                self.end_call_changing(outbox, redactor, done.status, done.text, done.change);
                self.run_next(desk, now)
            }
        }
    }

    /// A bash call ran out of time at `now`: kill its process group; its exit finishes the
    /// call.
    pub(super) fn handle_timeout(&mut self, outbox: &mut Outbox, now: At) {
        if let Some(Running {
            wait:
                Wait::Effect {
                    effect,
                    work,
                    deadline: Some(deadline),
                },
            ..
        }) = self.running.as_mut()
            && *deadline <= now
            && work.time_out()
        {
            outbox.push(Output::Kill { id: *effect });
        }
    }

    /// The running call's id when it waits for the MCP machine's answer to `call`.
    pub(super) fn running_mcp_call(&self, call: CallId) -> Option<&str> {
        match self.running.as_ref()? {
            Running {
                call_id,
                wait: Wait::Mcp { call: waiting },
                ..
            } if *waiting == call => Some(call_id),
            _ => None,
        }
    }
}

/// What closes a file io opened for a call no longer waiting for it (one an interrupt ended):
/// io must not hold it.
pub(super) fn unwanted_open(input: &Input<'_>) -> Option<Output> {
    match input {
        Input::FileOpened { id, result: Ok(_) } => Some(Output::CloseOpened { handle: *id }),
        _ => None,
    }
}
