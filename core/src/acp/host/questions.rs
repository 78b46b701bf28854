//! `ask_user` through the client's elicitation: a form with one field, `answer`, whose choices
//! are the question's options. Without elicitation (form mode) the tool is not offered; a
//! model that calls it anyway has its question dismissed at once and is told so.

use std::time::Instant;

use serde_json::{Value, json};

use crate::protocol::actions::{Action, AnswerQuestion};
use crate::protocol::events::QuestionAsked;
use crate::protocol::values::QuestionReply;

use super::super::effects_table::Slot;
use super::super::jsonrpc::{self, RpcError};
use super::{Asked, Host, action};

impl Host {
    /// Asks the client `asked`, or dismisses it when the client cannot be asked.
    pub(super) fn ask_question(&mut self, now: Instant, slot: Slot, asked: QuestionAsked) {
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        if !self.client.elicitation {
            let answer = AnswerQuestion {
                id: asked.id,
                reply: QuestionReply::Dismissed,
            };
            let answer = action(None, Action::AnswerQuestion(answer));
            return hosted.session.handle_incoming(now, answer);
        }
        let labels: Vec<&str> = asked.options.iter().map(|o| o.label.as_str()).collect();
        let field = if asked.multiple {
            json!({"type": "array", "title": asked.question, "items": {"type": "string", "enum": labels}})
        } else {
            let choices: Vec<Value> = asked
                .options
                .iter()
                .map(|o| {
                    let mut choice = json!({"const": o.label, "title": o.label});
                    if let Some(description) = &o.description {
                        choice["description"] = json!(description);
                    }
                    choice
                })
                .collect();
            json!({"type": "string", "title": asked.question, "oneOf": choices})
        };
        let params = json!({
            "mode": "form", "sessionId": &*hosted.id, "toolCallId": asked.call_id,
            "message": asked.question,
            "requestedSchema": {"type": "object", "properties": {"answer": field}, "required": ["answer"]},
        });
        let redactor = hosted.redactor.clone();
        self.next_request += 1;
        let id = self.next_request;
        self.asked.insert(
            id,
            Asked::Question {
                slot,
                question_id: asked.id,
            },
        );
        self.write(
            jsonrpc::request(id, "elicitation/create", params),
            &redactor,
        );
    }

    /// The client's answer: `accept` with an answer is the labels chosen; anything else
    /// (`decline`, `cancel`, an error) dismisses the question.
    pub(super) fn question_answered(
        &mut self,
        now: Instant,
        slot: Slot,
        question_id: String,
        result: Result<Value, RpcError>,
    ) {
        let answer = result
            .ok()
            .filter(|r| r["action"] == "accept")
            .and_then(|r| match r.get("content").and_then(|c| c.get("answer")) {
                Some(Value::String(label)) => Some(vec![label.clone()]),
                Some(Value::Array(labels)) => labels
                    .iter()
                    .map(|l| l.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>(),
                _ => None,
            });
        let reply = match answer {
            Some(labels) if !labels.is_empty() => QuestionReply::Answered(labels),
            _ => QuestionReply::Dismissed,
        };
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let answer = Action::AnswerQuestion(AnswerQuestion {
            id: question_id,
            reply,
        });
        hosted.session.handle_incoming(now, action(None, answer));
        self.pump(now, slot);
    }

    /// Question `settled` of the session in `slot` was settled otherwise: a late answer to it
    /// is dropped.
    pub(super) fn question_settled(&mut self, slot: Slot, settled: &str) {
        self.asked.retain(|_, a| {
            !matches!(a, Asked::Question { slot: s, question_id } if *s == slot && question_id == settled)
        });
    }
}
