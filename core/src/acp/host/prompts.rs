//! A session's prompts (`session/prompt`): queued behind the running one, run as a turn or
//! `/compact`, cancelled (`session/cancel`), and answered with their stop reason when the turn
//! or the compaction ends or is refused; the session's title goes out before its first answer.

use std::time::Instant;

use serde_json::{Value, json};

use crate::protocol::actions::{Action, Compact, SubmitUserMessage};
use crate::protocol::events::{ActionRejected, CompactionEnded};
use crate::protocol::values::TurnEndReason;

use super::super::effects_table::Slot;
use super::super::jsonrpc::{self, RpcError, code};
use super::super::messages::Params;
use super::super::prompt::user_message;
use super::{Host, Running, action};
use crate::effects::ChunkKind;

impl Host {
    pub(super) fn prompt(
        &mut self,
        now: Instant,
        request: &Value,
        p: &Params<'_>,
    ) -> Option<Result<Value, RpcError>> {
        let slot = match self.hosted(p) {
            Ok(slot) => slot,
            Err(e) => return Some(Err(e)),
        };
        let message = match p.array("prompt").and_then(user_message) {
            Ok(message) => message,
            Err(e) => return Some(Err(e)),
        };
        let hosted = self.sessions.get_mut(&slot)?;
        if hosted.running.is_some() {
            hosted.queue.push_back((request.clone(), message));
            return None;
        }
        self.run(now, slot, request.clone(), message);
        None
    }

    /// Runs a prompt: a turn, or `/compact`.
    fn run(&mut self, now: Instant, slot: Slot, request: Value, message: SubmitUserMessage) {
        self.next_tag += 1;
        let tag = format!("acp_{}", self.next_tag);
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let text = message.text.trim();
        if let Some(rest) = text
            .strip_prefix("/compact")
            .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
        {
            let instructions = Some(rest.trim().to_owned()).filter(|r| !r.is_empty());
            hosted.running = Some(Running::Compact {
                request,
                tag: tag.clone(),
            });
            let compact = Action::Compact(Compact {
                request_id: tag.clone(),
                instructions,
            });
            hosted
                .session
                .handle_incoming(now, action(Some(tag), compact));
        } else {
            if hosted.title.is_none() {
                hosted.title = Some(message.text.chars().take(80).collect());
            }
            hosted.running = Some(Running::Turn {
                request,
                tag: tag.clone(),
            });
            let submit = Action::SubmitUserMessage(message);
            hosted
                .session
                .handle_incoming(now, action(Some(tag), submit));
        }
        self.pump(now, slot);
    }

    pub(super) fn cancel(&mut self, now: Instant, params: &Value) {
        let p = Params::new("session/cancel", params);
        let Ok(slot) = self.hosted(&p) else {
            return;
        };
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            if hosted.running.is_none() {
                return;
            }
            hosted.cancel(now);
        }
        self.pump(now, slot);
    }

    /// The running turn ended: its prompt is answered with why.
    pub(super) fn turn_ended(
        &mut self,
        now: Instant,
        slot: Slot,
        reason: TurnEndReason,
        error: Option<String>,
    ) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        if !matches!(hosted.running, Some(Running::Turn { .. })) {
            return;
        }
        let answer = match reason {
            TurnEndReason::EndTurn => Ok("end_turn"),
            TurnEndReason::MaxTokens => Ok("max_tokens"),
            TurnEndReason::Refusal => Ok("refusal"),
            TurnEndReason::Interrupted => Ok("cancelled"),
            TurnEndReason::Error => Err(RpcError::new(
                code::INTERNAL_ERROR,
                error.unwrap_or_else(|| "the turn failed".into()),
            )),
        };
        self.finish(now, slot, answer);
    }

    /// A compaction ended: when it is the running `/compact`, its prompt is answered (after a
    /// chunk saying what it saved).
    pub(super) fn compacted(&mut self, now: Instant, slot: Slot, ended: CompactionEnded) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        let ours = matches!(&hosted.running, Some(Running::Compact { tag, .. }) if Some(tag) == ended.request_id.as_ref());
        if !ours {
            return;
        }
        let answer = match ended.error {
            Some(error) => Err(RpcError::new(code::INTERNAL_ERROR, error)),
            None => {
                let text = format!(
                    "Compacted the conversation: about {} tokens became {}.",
                    ended.tokens_before, ended.tokens_after
                );
                self.chunk(slot, ChunkKind::Agent, text);
                Ok("end_turn")
            }
        };
        self.finish(now, slot, answer);
    }

    /// The session refused an action: when it is the running prompt's, the prompt fails with
    /// the reason.
    pub(super) fn rejected(&mut self, now: Instant, slot: Slot, rejected: ActionRejected) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        let ours = match &hosted.running {
            Some(Running::Turn { tag, .. } | Running::Compact { tag, .. }) => {
                rejected.request_id.as_ref() == Some(tag)
            }
            None => false,
        };
        if ours {
            self.finish(
                now,
                slot,
                Err(RpcError::new(code::INTERNAL_ERROR, rejected.reason)),
            );
        }
    }

    /// Answers the running prompt (the title first, once), then the cancelled queue, then
    /// starts the next.
    fn finish(&mut self, now: Instant, slot: Slot, answer: Result<&str, RpcError>) {
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let Some(Running::Turn { request, .. } | Running::Compact { request, .. }) =
            hosted.running.take()
        else {
            return;
        };
        if !hosted.title_sent
            && let Some(title) = hosted.title.clone()
        {
            hosted.title_sent = true;
            self.update(
                slot,
                json!({"sessionUpdate": "session_info_update", "title": title}),
            );
        }
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let redactor = hosted.redactor.clone();
        let cancelled = std::mem::take(&mut hosted.cancel_queue);
        let mut later = Vec::new();
        if cancelled {
            later.extend(hosted.queue.drain(..).map(|(r, _)| r));
        }
        let next = hosted.queue.pop_front();
        let result = answer.map(|reason| json!({"stopReason": reason}));
        self.write(jsonrpc::response(request, result), &redactor);
        for request in later {
            self.write(
                jsonrpc::response(request, Ok(json!({"stopReason": "cancelled"}))),
                &redactor,
            );
        }
        if let Some((request, message)) = next {
            self.run(now, slot, request, message);
        }
    }
}
