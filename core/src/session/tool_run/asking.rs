//! A running call that waits for the user: its permission prompt (asked, auto-approved,
//! answered once, always or not at all) and its question (`ask_user`).

use std::time::Instant;

use crate::permissions::rules::Rule;
use crate::protocol::actions::{AnswerQuestion, RespondPermission};
use crate::protocol::events::{
    Event, PermissionRequested, PermissionResolved, QuestionResolved, ResolvedBy, ToolStatus,
};
use crate::protocol::values::{PermissionReply, QuestionReply};

use super::{Running, Wait};
use crate::session::Session;
use crate::session::tools::args::ToolArgs;

impl Session {
    pub(in crate::session) fn ask_permission(
        &mut self,
        now: Instant,
        tool: &str,
        args: ToolArgs,
        rule: Rule,
    ) {
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
    pub(in crate::session) fn auto_approve_open_prompt(&mut self, now: Instant) {
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
    pub(in crate::session) fn respond_permission(
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
    pub(in crate::session) fn answer_question(
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
}
