//! Running the tool calls of one answer, in order: permission, the effects that do the work,
//! and the result the model gets back.

use super::owners::Owner;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::effects::{
    EffectId, FileContent, FileIdentity, FileKind, Input, OpenFor, Output, Stream,
};
use crate::model::conversation::{Block, Message, Role};
use crate::permissions::Decision;
use crate::permissions::rules::Rule;
use crate::protocol::actions::{AnswerQuestion, RespondPermission};
use crate::protocol::events::{
    Event, FilesChanged, OutputStream, PermissionRequested, PermissionResolved, PlanUpdated,
    QuestionAsked, QuestionResolved, ResolvedBy, ToolFinished, ToolStarted, ToolStatus,
};
use crate::protocol::values::{Mode, PermissionReply, QuestionReply};

use super::Session;
use super::tools::args::ToolArgs;
use super::tools::bash_run::{BashOutput, MODEL_OUTPUT_MAX};
use super::tools::definitions::{PLAN_TOOLS, REVIEW_TOOLS};
use super::tools::paths::{Resolved, resolve};
use super::tools::shaping::{apply_edit, cap_text};
use super::tools::views::{glob_view, grep_view, read_view, title, under, unified_diff};
use super::turn::Turn;

/// The largest file `read` shows (from its start) and `edit` changes.
const READ_MAX: u64 = 4 * 1024 * 1024;
/// Matches `grep` returns.
const GREP_MAX: usize = 200;
/// Paths `glob` returns.
const GLOB_MAX: usize = 500;

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
    },
    /// Sent to an MCP server; the MCP machine ends it.
    Mcp {
        call: crate::mcp::CallId,
    },
}

#[derive(Debug)]
enum Work {
    Read {
        offset: Option<u64>,
        limit: Option<u64>,
    },
    EditRead {
        target: Resolved,
        old_text: String,
        new_text: String,
        replace_all: bool,
    },
    Write {
        shown: String,
        done: String,
        diff: Option<String>,
    },
    Bash {
        output: BashOutput,
        deadline: Instant,
        limit: Duration,
        timed_out: bool,
    },
    /// A search or listing under `root` (relative to cwd when inside it).
    Grep {
        root: String,
    },
    Glob {
        root: String,
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
        match &self.running {
            Some(Running {
                wait:
                    Wait::Effect {
                        work:
                            Work::Bash {
                                deadline,
                                timed_out: false,
                                ..
                            },
                        ..
                    },
                ..
            }) => Some(*deadline),
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
                    self.outputs.push_back(output);
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

    pub(super) fn ask_permission(&mut self, now: Instant, tool: &str, args: ToolArgs, rule: Rule) {
        self.next_prompt += 1;
        let prompt_id = format!("perm_{}", self.next_prompt);
        let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
            return;
        };
        let call_id = running.call_id.clone();
        let detail = match &args {
            ToolArgs::Bash { command, .. } => command.clone(),
            ToolArgs::Mcp { server, tool, .. } => {
                format!("the tool {tool} of the MCP server {server}")
            }
            _ => rule.pattern.clone(),
        };
        let always_rule = rule.to_string();
        running.wait = Wait::Permission {
            prompt_id: prompt_id.clone(),
            args,
            rule,
        };
        self.emit(Event::PermissionRequested(PermissionRequested {
            id: prompt_id,
            call_id,
            tool: tool.to_owned(),
            title: format!("{tool} {detail}"),
            detail,
            always_rule,
        }));
        if self.auto_approve {
            self.auto_approve_open_prompt(now);
        }
    }

    /// Approves the open permission prompt, if any, as auto-approve (`once`).
    pub(super) fn auto_approve_open_prompt(&mut self, now: Instant) {
        if let Some(prompt_id) = self.open_permission() {
            self.settle_permission(
                now,
                prompt_id,
                PermissionReply::Once,
                None,
                ResolvedBy::AutoApprove,
            );
        }
    }

    fn open_permission(&mut self) -> Option<String> {
        match self.tool_step()?.running.as_ref()? {
            Running {
                wait: Wait::Permission { prompt_id, .. },
                ..
            } => Some(prompt_id.clone()),
            _ => None,
        }
    }

    /// `respond_permission`.
    pub(super) fn respond_permission(
        &mut self,
        now: Instant,
        reply: RespondPermission,
    ) -> Result<(), String> {
        if self.open_permission().as_deref() != Some(reply.id.as_str()) {
            return Err(format!("no open permission prompt {:?}", reply.id));
        }
        self.settle_permission(
            now,
            reply.id,
            reply.reply,
            reply.message,
            ResolvedBy::Client,
        );
        Ok(())
    }

    fn settle_permission(
        &mut self,
        now: Instant,
        prompt_id: String,
        reply: PermissionReply,
        message: Option<String>,
        by: ResolvedBy,
    ) {
        let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
            return;
        };
        let Wait::Permission { args, rule, .. } =
            std::mem::replace(&mut running.wait, Wait::Deciding)
        else {
            return;
        };
        self.emit(Event::PermissionResolved(PermissionResolved {
            id: prompt_id,
            reply,
            by,
        }));
        match reply {
            PermissionReply::Reject => {
                let mut why = "the user rejected this call".to_owned();
                if let Some(message) = message.filter(|m| !m.trim().is_empty()) {
                    why.push_str(": ");
                    why.push_str(&message);
                }
                self.finish_tool(ToolStatus::Denied, why, None);
                self.run_next_tool(now);
            }
            PermissionReply::Always => {
                self.gate.grant(rule);
                self.execute(now, args);
                self.run_next_tool(now);
            }
            PermissionReply::Once => {
                self.execute(now, args);
                self.run_next_tool(now);
            }
        }
    }

    /// `answer_question`.
    pub(super) fn answer_question(
        &mut self,
        now: Instant,
        answer: AnswerQuestion,
    ) -> Result<(), String> {
        let open = match self.tool_step().and_then(|s| s.running.as_ref()) {
            Some(Running {
                wait: Wait::Question { question_id },
                ..
            }) => Some(question_id.clone()),
            _ => None,
        };
        if open.as_deref() != Some(answer.id.as_str()) {
            return Err(format!("no open question {:?}", answer.id));
        }
        self.emit(Event::QuestionResolved(QuestionResolved {
            id: answer.id,
            reply: answer.reply.clone(),
            by: ResolvedBy::Client,
        }));
        let text = match answer.reply {
            QuestionReply::Answered(labels) => format!("The user chose: {}", labels.join(", ")),
            QuestionReply::Custom(text) => format!("The user answered: {text}"),
            QuestionReply::Dismissed => "The user dismissed the question.".to_owned(),
        };
        self.finish_tool(ToolStatus::Ok, text, None);
        self.run_next_tool(now);
        Ok(())
    }

    /// Whether the running call waits for the open `id`.
    fn awaits_open(&mut self, id: EffectId) -> bool {
        matches!(
            self.tool_step().and_then(|s| s.running.as_ref()),
            Some(Running { wait: Wait::Resolving { effect, .. }, .. }) if *effect == id
        )
    }

    /// The handle of the running call's opened file, taken by the output that consumes it.
    fn take_opened(&mut self) -> Option<EffectId> {
        self.tool_step()
            .and_then(|s| s.running.as_mut())
            .and_then(|r| r.opened.take())
    }

    /// The read of the running call's file: through the file opened for it (`consumed` when
    /// the read is its last use), else (a call whose file was not opened) of `path`.
    fn read_output(&mut self, id: EffectId, path: String, consumed: bool) -> Output {
        let handle = if consumed {
            self.take_opened()
        } else {
            self.tool_step().and_then(|s| s.running.as_ref()?.opened)
        };
        match handle {
            Some(handle) => Output::ReadOpened {
                id,
                handle,
                max_bytes: READ_MAX,
            },
            None => Output::ReadFile {
                id,
                path,
                max_bytes: READ_MAX,
            },
        }
    }

    /// The write of `bytes`: through the file opened for the call, else (a call whose file was
    /// not opened) to `path`.
    fn write_output(&mut self, id: EffectId, path: String, bytes: Vec<u8>) -> Output {
        match self.take_opened() {
            Some(handle) => Output::ReplaceOpened { id, handle, bytes },
            None => Output::WriteFile { id, path, bytes },
        }
    }

    /// Starts the work of an allowed call.
    pub(super) fn execute(&mut self, now: Instant, args: ToolArgs) {
        let id = self.effect_id(Owner::Tool);
        let cwd = self.cwd.clone();
        let (output, work) = match args {
            ToolArgs::Read {
                path,
                offset,
                limit,
            } => (
                self.read_output(id, resolve(&cwd, &path).absolute, true),
                Work::Read { offset, limit },
            ),
            ToolArgs::Write { path, content } => {
                let target = resolve(&cwd, &path);
                let done = format!("Wrote {} bytes to {}", content.len(), target.shown);
                (
                    self.write_output(id, target.absolute.clone(), content.into_bytes()),
                    Work::Write {
                        shown: target.shown,
                        done,
                        diff: None,
                    },
                )
            }
            ToolArgs::Edit {
                path,
                old_text,
                new_text,
                replace_all,
            } => {
                let target = resolve(&cwd, &path);
                (
                    // The edit replaces the file through the same handle after reading it.
                    self.read_output(id, target.absolute.clone(), false),
                    Work::EditRead {
                        target,
                        old_text,
                        new_text,
                        replace_all,
                    },
                )
            }
            ToolArgs::Bash {
                command,
                timeout_ms,
            } => {
                let timeout = timeout_ms.map_or(self.timings.bash_timeout, Duration::from_millis);
                (
                    Output::Spawn {
                        id,
                        program: "bash".to_owned(),
                        args: vec!["-c".to_owned(), command],
                        cwd,
                        env: Vec::new(),
                        unset: self.tool_env_unset.clone(),
                    },
                    Work::Bash {
                        output: BashOutput::new(&self.redactor),
                        deadline: now + timeout,
                        limit: timeout,
                        timed_out: false,
                    },
                )
            }
            ToolArgs::Grep {
                pattern,
                path,
                glob,
                case_insensitive,
            } => {
                let root = resolve(&cwd, path.as_deref().unwrap_or("."));
                (
                    Output::Search {
                        id,
                        root: root.absolute,
                        pattern,
                        glob,
                        case_insensitive,
                        max_results: GREP_MAX,
                    },
                    Work::Grep { root: root.shown },
                )
            }
            ToolArgs::Glob { pattern, path } => {
                let root = resolve(&cwd, path.as_deref().unwrap_or("."));
                (
                    Output::ListFiles {
                        id,
                        root: root.absolute,
                        pattern,
                        max_results: GLOB_MAX,
                    },
                    Work::Glob { root: root.shown },
                )
            }
            ToolArgs::AskUser {
                question,
                options,
                multiple,
            } => {
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
                return;
            }
            ToolArgs::Mcp { name, input, .. } => {
                // The MCP machine issues its own effects.
                self.owners.forget(id);
                return self.send_mcp_call(now, &name, input);
            }
            ToolArgs::UpdatePlan { entries } => {
                let steps = entries.len();
                self.emit(Event::PlanUpdated(PlanUpdated { entries }));
                return self.finish_tool(
                    ToolStatus::Ok,
                    format!("Plan updated ({steps} steps)."),
                    None,
                );
            }
        };
        if let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) {
            running.wait = Wait::Effect { effect: id, work };
            self.outputs.push_back(output);
        }
    }

    /// Routes a file, process or search result to the running call.
    pub(super) fn tool_effect(&mut self, now: Instant, input: Input<'_>) {
        if let Input::FileOpened { id, result: Ok(_) } = &input
            && !self.awaits_open(*id)
        {
            // Opened for a call that ended meanwhile (an interrupt): io must not hold it.
            return self.outputs.push_back(Output::CloseOpened { handle: *id });
        }
        let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
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
        let Wait::Effect { effect, work } = &mut running.wait else {
            return;
        };
        let call_id = running.call_id.clone();
        let effect = *effect;
        match (input, work) {
            (Input::ProcessOutput { id, stream, bytes }, Work::Bash { output, .. })
                if id == effect =>
            {
                let stream = match stream {
                    Stream::Stdout => OutputStream::Stdout,
                    Stream::Stderr => OutputStream::Stderr,
                };
                if let Some(delta) = output.output(&call_id, stream, bytes) {
                    self.emit(delta);
                }
            }
            (
                Input::ProcessExited { id, status },
                Work::Bash {
                    output,
                    timed_out,
                    limit,
                    ..
                },
            ) if id == effect => {
                let timed_out = timed_out.then_some(*limit);
                let (delta, status, text) = output.exited(&call_id, status, timed_out);
                if let Some(delta) = delta {
                    self.emit(delta);
                }
                self.finish_tool(status, text, None);
                self.run_next_tool(now);
            }
            (Input::FileRead { id, result }, Work::Read { offset, limit }) if id == effect => {
                let (offset, limit) = (*offset, *limit);
                let (status, text) = match result {
                    Err(error) => (ToolStatus::Error, error),
                    Ok(content) => read_view(&self.redactor, content, offset, limit),
                };
                self.finish_tool(status, text, None);
                self.run_next_tool(now);
            }
            (Input::FileRead { id, result }, Work::EditRead { .. }) if id == effect => {
                self.edit_read(now, result);
            }
            (Input::FileWritten { id, result }, Work::Write { shown, done, diff })
                if id == effect =>
            {
                let (shown, done, diff) = (shown.clone(), done.clone(), diff.take());
                match result {
                    Ok(()) => {
                        if let Some(turn) = self.turn.as_mut() {
                            turn.note_changed_files();
                        }
                        self.emit(Event::FilesChanged(FilesChanged { paths: vec![shown] }));
                        self.finish_tool(ToolStatus::Ok, done, diff);
                    }
                    Err(error) => self.finish_tool(ToolStatus::Error, error, None),
                }
                self.run_next_tool(now);
            }
            (Input::SearchDone { id, result }, Work::Grep { root }) if id == effect => {
                // A secrets file, or one a deny rule on reading covers, is no search result,
                // whatever the pattern.
                let root = std::mem::take(root);
                let result = result.map(|mut hits| {
                    hits.retain(|h| !self.gate.hides(&under(&root, &h.path)));
                    hits
                });
                let (status, text) = grep_view(result, GREP_MAX);
                self.finish_tool(status, text, None);
                self.run_next_tool(now);
            }
            (Input::FilesListed { id, result }, Work::Glob { root }) if id == effect => {
                let root = std::mem::take(root);
                let result = result.map(|mut paths| {
                    paths.retain(|p| !self.gate.hides(&under(&root, p)));
                    paths
                });
                let (status, text) = glob_view(result, GLOB_MAX);
                self.finish_tool(status, text, None);
                self.run_next_tool(now);
            }
            _ => {}
        }
    }

    /// The file to edit was read: apply the edit and write it back.
    fn edit_read(&mut self, now: Instant, result: Result<FileContent, String>) {
        let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
            return;
        };
        let Wait::Effect {
            work:
                Work::EditRead {
                    target,
                    old_text,
                    new_text,
                    replace_all,
                },
            ..
        } = &running.wait
        else {
            return;
        };
        let target = target.clone();
        let edited = result.and_then(|content| {
            if content.total_len > content.bytes.len() as u64 {
                return Err(format!("{} is too large to edit", target.shown));
            }
            let text = String::from_utf8(content.bytes)
                .map_err(|_| format!("{} is not UTF-8 text", target.shown))?;
            let (new, count) = apply_edit(&text, old_text, new_text, *replace_all)?;
            Ok((new, count, unified_diff(&target.shown, old_text, new_text)))
        });
        match edited {
            Err(error) => {
                self.finish_tool(ToolStatus::Error, error, None);
                self.run_next_tool(now);
            }
            Ok((content, count, diff)) => {
                let id = self.effect_id(Owner::Tool);
                let done = format!("Edited {}: {count} replacement(s)", target.shown);
                if let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) {
                    running.wait = Wait::Effect {
                        effect: id,
                        work: Work::Write {
                            shown: target.shown,
                            done,
                            diff: Some(diff),
                        },
                    };
                }
                let output = self.write_output(id, target.absolute, content.into_bytes());
                self.outputs.push_back(output);
            }
        }
    }

    /// A bash call ran out of time: kill its process group; its exit finishes the call.
    pub(super) fn tool_timeout(&mut self, now: Instant) {
        let Some(running) = self.tool_step().and_then(|s| s.running.as_mut()) else {
            return;
        };
        if let Wait::Effect {
            effect,
            work:
                Work::Bash {
                    deadline,
                    timed_out,
                    ..
                },
        } = &mut running.wait
            && !*timed_out
            && *deadline <= now
        {
            *timed_out = true;
            let id = *effect;
            self.outputs.push_back(Output::Kill { id });
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
            self.outputs.push_back(Output::CloseOpened { handle });
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
    /// stays well-formed for the next turn.
    pub(super) fn interrupt_tools(&mut self, mut step: ToolStep) {
        if let Some(running) = step.running.take() {
            if let Some(handle) = running.opened {
                self.outputs.push_back(Output::CloseOpened { handle });
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
                Wait::Effect {
                    effect,
                    work: Work::Bash { .. },
                } => {
                    self.outputs.push_back(Output::Kill { id: effect });
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
    }
}
