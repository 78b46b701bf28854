//! A running call that waits for the user: its permission prompt (asked — a write or an edit
//! once its file is read for the diff the prompt shows —, auto-approved, answered once, always
//! or not at all) and its question (`ask_user`).

use std::ops::Add;
use std::time::Duration;

use crate::effects::FileContent;
use crate::permissions::rules::Rule;
use crate::protocol::actions::{AnswerQuestion, RespondPermission};
use crate::protocol::events::{
    Event, PermissionRequested, PermissionResolved, QuestionResolved, ResolvedBy, ToolStatus,
};
use crate::protocol::values::{PermissionReply, QuestionReply};

use super::preview::{self, Preview, Shown};
use super::work::read_output;
use super::{Desk, Running, Then, ToolStep, Wait};
use crate::session::owners::Owner;
use crate::session::tools::args::ToolArgs;

impl<At: Copy + Ord + Add<Duration, Output = At>> ToolStep<At> {
    /// Asks about the running call: at once, or, for a write or an edit, once its file is read
    /// for the diff the prompt shows; what the session must do then, if anything.
    pub(super) fn ask_permission(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        tool: &str,
        args: ToolArgs,
        rule: Rule,
    ) -> Option<Then> {
        let running = self.running.as_mut()?;
        let shown = match preview::begin(&args, desk.work.cwd, running.exists) {
            Preview::Nothing => None,
            Preview::Known(shown) => Some(shown),
            Preview::Read(path) => {
                let effect = desk.outbox.effect_id(Owner::Tool);
                desk.outbox.push(read_output(effect, path, running.opened));
                running.wait = Wait::Previewing {
                    effect,
                    tool: tool.to_owned(),
                    args,
                    rule,
                };
                return None;
            }
        };
        self.open_prompt(desk, now, tool, args, rule, shown)
    }

    /// The running call's file was read (as `read`) for its prompt: ask now.
    pub(super) fn previewed(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        read: Result<FileContent, String>,
    ) -> Then {
        let Some(running) = self.running.as_mut() else {
            return Then::Nothing;
        };
        let Wait::Previewing {
            tool, args, rule, ..
        } = std::mem::replace(&mut running.wait, Wait::Deciding)
        else {
            return Then::Nothing;
        };
        let shown = preview::of_read(&args, desk.work.cwd, read);
        self.open_prompt(desk, now, &tool, args, rule, Some(shown))
            .unwrap_or(Then::Nothing)
    }

    /// Opens a permission prompt for the running call, showing its change (`shown`: a diff,
    /// or why there is none), approved at once under auto-approve.
    fn open_prompt(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        tool: &str,
        args: ToolArgs,
        rule: Rule,
        shown: Option<Shown>,
    ) -> Option<Then> {
        desk.ids.prompt += 1;
        let prompt_id = format!("perm_{}", desk.ids.prompt);
        let running = self.running.as_mut()?;
        let call_id = running.call_id.clone();
        let subject = match &args {
            ToolArgs::Bash { command, .. } => command.clone(),
            ToolArgs::Mcp { server, tool, .. } => {
                format!("the tool {tool} of the MCP server {server}")
            }
            _ => rule.pattern.clone(),
        };
        let title = format!("{tool} {subject}");
        let (diff, detail) = match shown {
            // Redacted here as `tool_finished.diff` is, before any client sees it.
            Some(Ok(diff)) => (Some(desk.work.redactor.redact(&diff).into_owned()), subject),
            Some(Err(why)) => (None, format!("{subject}\nThe change is not shown: {why}")),
            None => (None, subject),
        };
        let always_rule = rule.to_string();
        running.wait = Wait::Permission {
            prompt_id: prompt_id.clone(),
            args,
            rule,
        };
        desk.outbox
            .emit(Event::PermissionRequested(PermissionRequested {
                id: prompt_id,
                call_id,
                tool: tool.to_owned(),
                title,
                detail,
                always_rule,
                diff,
            }));
        desk.auto_approve.then(|| self.auto_approve(desk, now))
    }

    /// Approves the open permission prompt, if any, as auto-approve (`once`).
    pub(in crate::session) fn auto_approve(&mut self, desk: &mut Desk<'_>, now: At) -> Then {
        match self.open_permission() {
            Some(prompt_id) => {
                let reply = PermissionReply::Once;
                self.settle(desk, now, prompt_id, reply, None, ResolvedBy::AutoApprove)
            }
            None => Then::Nothing,
        }
    }

    fn open_permission(&self) -> Option<String> {
        match self.running.as_ref()? {
            Running {
                wait: Wait::Permission { prompt_id, .. },
                ..
            } => Some(prompt_id.clone()),
            _ => None,
        }
    }

    /// `respond_permission`: refused unless it answers the open prompt.
    pub(in crate::session) fn respond_permission(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        reply: RespondPermission,
    ) -> Result<Then, String> {
        if self.open_permission().as_deref() != Some(reply.id.as_str()) {
            return Err(no_open_prompt(&reply.id));
        }
        let by = ResolvedBy::Client;
        Ok(self.settle(desk, now, reply.id, reply.reply, reply.message, by))
    }

    fn settle(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        prompt_id: String,
        reply: PermissionReply,
        message: Option<String>,
        by: ResolvedBy,
    ) -> Then {
        let Some(running) = self.running.as_mut() else {
            return Then::Nothing;
        };
        let Wait::Permission { args, rule, .. } =
            std::mem::replace(&mut running.wait, Wait::Deciding)
        else {
            return Then::Nothing;
        };
        desk.outbox
            .emit(Event::PermissionResolved(PermissionResolved {
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
                self.finish(desk, now, ToolStatus::Denied, why)
            }
            PermissionReply::Always | PermissionReply::Once => {
                if reply == PermissionReply::Always {
                    desk.gate.grant(rule);
                }
                match self.execute(desk, now, args) {
                    Some(need) => need,
                    None => self.run_next(desk, now),
                }
            }
        }
    }

    /// `answer_question`: refused unless it answers the open question.
    pub(in crate::session) fn answer_question(
        &mut self,
        desk: &mut Desk<'_>,
        now: At,
        answer: AnswerQuestion,
    ) -> Result<Then, String> {
        let open = match &self.running {
            Some(Running {
                wait: Wait::Question { question_id },
                ..
            }) => Some(question_id.as_str()),
            _ => None,
        };
        if open != Some(answer.id.as_str()) {
            return Err(no_open_question(&answer.id));
        }
        desk.outbox.emit(Event::QuestionResolved(QuestionResolved {
            id: answer.id,
            reply: answer.reply.clone(),
            by: ResolvedBy::Client,
        }));
        let text = match answer.reply {
            QuestionReply::Answered(labels) => format!("The user chose: {}", labels.join(", ")),
            QuestionReply::Custom(text) => format!("The user answered: {text}"),
            QuestionReply::Dismissed => "The user dismissed the question.".to_owned(),
        };
        Ok(self.finish(desk, now, ToolStatus::Ok, text))
    }
}

/// Why a permission reply to `id` is refused: no such prompt is open.
pub(in crate::session) fn no_open_prompt(id: &str) -> String {
    format!("no open permission prompt {id:?}")
}

/// Why an answer to `id` is refused: no such question is open.
pub(in crate::session) fn no_open_question(id: &str) -> String {
    format!("no open question {id:?}")
}
