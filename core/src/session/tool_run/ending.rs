//! How a call ends: its result for the model (output capped and redacted, images kept unless
//! they hold a secret) and `tool_finished`; the MCP tool calls' decision; and an interrupt,
//! which gives every call of the answer a result.

use std::ops::Add;
use std::time::Duration;

use serde_json::Value;

use crate::effects::Output;
use crate::mcp::{CallId, OfferedTool};
use crate::model::conversation::{Block, ImageData};
use crate::protocol::events::{
    Event, FileBefore, PermissionResolved, QuestionResolved, ResolvedBy, ToolFinished, ToolStatus,
};
use crate::protocol::values::{Mode, PermissionReply, QuestionReply};

use super::super::outbox::Outbox;
use super::super::tools::args::ToolArgs;
use super::super::tools::bash_run::MODEL_OUTPUT_MAX;
use super::super::tools::shaping::cap_text;
use super::work::Change;
use super::{Answered, Desk, Interrupted, Then, ToolStep, Wait};
use crate::redact::Redactor;

impl<At: Copy + Ord + Add<Duration, Output = At>> ToolStep<At> {
    /// Decides the running call of the MCP tool `name`, which its server offers as `tool`
    /// (`None`: no server does): refused, asked about, or sent.
    pub(in crate::session) fn decide_mcp(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        name: &str,
        tool: Option<OfferedTool>,
        input: Value,
    ) -> Then {
        let Some(tool) = tool else {
            let why = format!(
                "there is no tool {name}: its MCP server may have failed or stopped offering it"
            );
            return self.finish(desk, now, ToolStatus::Error, why);
        };
        if desk.mode == Mode::Plan && !tool.read_only {
            let why = format!(
                "{name} is not available in plan mode: its server does not mark it read-only"
            );
            return self.finish(desk, now, ToolStatus::Denied, why);
        }
        let args = ToolArgs::Mcp {
            name: name.to_owned(),
            server: tool.server,
            tool: tool.tool,
            input,
        };
        let decision = desk.gate.verdict_mcp(name, tool.read_only);
        let need = self.follow_decision(desk, now, name, args, decision);
        need.unwrap_or_else(|| self.run_next(desk, now))
    }

    /// Ends the running call with `output`, then goes on with the next.
    pub(in crate::session) fn finish(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        status: ToolStatus,
        output: String,
    ) -> Then {
        self.end_call(desk.outbox, desk.work.redactor, status, output);
        self.run_next(desk, now)
    }

    /// [`ToolStep::finish`] for a call that also returned images (an MCP tool's): they go
    /// with its result to the model, except those that hold a `.env` value (in any of the
    /// forms the redactor knows, base64 among them), which its output says were withheld.
    pub(in crate::session) fn finish_with_images(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        status: ToolStatus,
        mut output: String,
        images: Vec<ImageData>,
    ) -> Then {
        let mut kept = Vec::new();
        for (at, image) in images.into_iter().enumerate() {
            if matches!(
                desk.work.redactor.redact(&image.data),
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
        let before = self.results.len();
        self.end_call(desk.outbox, desk.work.redactor, status, output);
        if self.results.len() == before + 1
            && let Some(Block::ToolResult { images, .. }) = self.results.last_mut()
        {
            *images = kept;
        }
        self.run_next(desk, now)
    }

    /// Ends the running call, which changed no file: see [`Self::end_call_changing`].
    pub(super) fn end_call(
        &mut self,
        outbox: &mut Outbox,
        redactor: &Redactor,
        status: ToolStatus,
        output: String,
    ) {
        self.end_call_changing(outbox, redactor, status, output, None);
    }

    /// Ends the running call: `tool_finished` (with the file's `change`, if it made one), and
    /// its result for the model, both redacted with `redactor` (the output also capped).
    pub(super) fn end_call_changing(
        &mut self,
        outbox: &mut Outbox,
        redactor: &Redactor,
        status: ToolStatus,
        output: String,
        change: Option<Change>,
    ) {
        let Some(running) = self.running.take() else {
            return;
        };
        self.next += 1;
        if let Some(handle) = running.opened {
            outbox.push(Output::CloseOpened { handle });
        }
        // Every tool output passes here on its way to the model and the client.
        let output = cap_text(redactor.redact(&output).into_owned(), MODEL_OUTPUT_MAX);
        let Change { diff, before } = change.unwrap_or_default();
        let diff = diff.map(|d| redactor.redact(&d).into_owned());
        let before = before.map(|before| match before {
            FileBefore::Text { text } => FileBefore::Text {
                text: redactor.redact(&text).into_owned(),
            },
            other => other,
        });
        self.results.push(Block::ToolResult {
            tool_use_id: running.provider_id,
            content: output.clone(),
            is_error: status != ToolStatus::Ok,
            images: Vec::new(),
        });
        outbox.emit(Event::ToolFinished(ToolFinished {
            call_id: running.call_id,
            status,
            output,
            diff,
            before,
        }));
    }

    /// Stops the running call and gives every call of the answer a result, so the conversation
    /// stays well-formed for the next turn; an MCP call is given up through `cancel_mcp`,
    /// which tells its server.
    pub(in crate::session) fn interrupt(
        mut self,
        outbox: &mut Outbox,
        cancel_mcp: impl FnOnce(&mut Outbox, CallId),
    ) -> Interrupted {
        let mut cleanup = Vec::new();
        if let Some(running) = self.running.take() {
            // A file is let go of before the turn ends (the harness holds io to that).
            if let Some(handle) = running.opened {
                outbox.push(Output::CloseOpened { handle });
            }
            match running.wait {
                Wait::Permission { prompt_id, .. } => {
                    outbox.emit(Event::PermissionResolved(PermissionResolved {
                        id: prompt_id,
                        reply: PermissionReply::Reject,
                        by: ResolvedBy::Interrupt,
                    }))
                }
                Wait::Question { question_id } => {
                    outbox.emit(Event::QuestionResolved(QuestionResolved {
                        id: question_id,
                        reply: QuestionReply::Dismissed,
                        by: ResolvedBy::Interrupt,
                    }))
                }
                Wait::Effect { effect, work, .. } if work.is_command() => {
                    cleanup.push(Output::Kill { id: effect });
                }
                Wait::Mcp { call } => cancel_mcp(outbox, call),
                _ => {}
            }
            outbox.emit(Event::ToolFinished(ToolFinished {
                call_id: running.call_id,
                status: ToolStatus::Interrupted,
                output: "interrupted by the user".to_owned(),
                diff: None,
                before: None,
            }));
        }
        for (provider_id, _, _) in &self.calls[self.results.len()..] {
            self.results.push(Block::ToolResult {
                tool_use_id: provider_id.clone(),
                content: "interrupted by the user".to_owned(),
                is_error: true,
                images: Vec::new(),
            });
        }
        Interrupted {
            answered: Answered {
                results: self.results,
                changed_files: self.changed_files,
            },
            cleanup,
        }
    }
}
