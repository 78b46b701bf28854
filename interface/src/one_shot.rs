//! `luxe -p`: one turn without the interface, as a front door of its own. It sends the prompt,
//! keeps the answer's text for stdout, answers each permission prompt as `--on-ask` says
//! (nobody is there to ask) and dismisses questions, then closes the session: exit 0 when the
//! turn ended, 1 with the reason for stderr when it did not.

use std::time::Instant;

use luxe_core::effects::{Input, Output};
use luxe_core::protocol::events::Event;
use luxe_core::protocol::values::TurnEndReason;
use luxe_core::{Luxe, Machine};
use serde_json::{Value, json};

/// What a permission prompt gets when nobody can answer it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnAsk {
    /// Rejected (the default).
    #[default]
    Deny,
    /// Approved `once` (`--on-ask allow`): every call that asks runs, and nothing is remembered.
    Allow,
}

impl OnAsk {
    /// `deny` or `allow`; anything else says what it takes.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "deny" => Ok(Self::Deny),
            "allow" => Ok(Self::Allow),
            other => Err(format!("--on-ask takes deny or allow, not {other:?}")),
        }
    }
}

/// One turn, its answer streamed as text.
#[derive(Debug)]
pub struct OneShot {
    luxe: Luxe,
    on_ask: OnAsk,
    /// The answer's text not yet taken.
    text: String,
    /// Why the turn did not end well, not yet taken.
    error: Option<String>,
    /// The exit status, once the turn ended.
    code: Option<i32>,
    /// Whether the answer printed so far ends a line (true before any text).
    at_line_start: bool,
    /// The last time the machine was given.
    now: Instant,
}

impl OneShot {
    /// Sends `prompt` to `luxe` at `now`.
    pub fn new(luxe: Luxe, now: Instant, prompt: &str, on_ask: OnAsk) -> Self {
        let mut one = Self {
            luxe,
            on_ask,
            text: String::new(),
            error: None,
            code: None,
            at_line_start: true,
            now,
        };
        one.send("submit_user_message", json!({"text": prompt}));
        one
    }

    /// The answer's text that came since the last call, for stdout.
    pub fn take_text(&mut self) -> String {
        std::mem::take(&mut self.text)
    }

    /// Why the turn failed, once, for stderr.
    pub fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }

    fn send(&mut self, kind: &str, content: Value) {
        let mut frame = json!({"kind": kind});
        if !content.is_null() {
            frame["content"] = content;
        }
        let mut line = frame.to_string().into_bytes();
        line.push(b'\n');
        self.luxe.handle_input(self.now, Input::ClientBytes(&line));
    }

    fn take(&mut self, event: &Event) {
        match event {
            Event::TokenDelta(delta) if !delta.delta.is_empty() => {
                self.text.push_str(&delta.delta);
                self.at_line_start = delta.delta.ends_with('\n');
            }
            Event::PermissionRequested(asked) => {
                let reply = match self.on_ask {
                    OnAsk::Deny => "reject",
                    OnAsk::Allow => "once",
                };
                let id = asked.id.clone();
                self.send("respond_permission", json!({"id": id, "reply": reply}));
            }
            Event::QuestionAsked(asked) => {
                let id = asked.id.clone();
                self.send("answer_question", json!({"id": id, "reply": "dismissed"}));
            }
            Event::TurnEnded(ended) if self.code.is_none() => {
                let failure = match (&ended.reason, &ended.error) {
                    (_, Some(error)) => Some(error.clone()),
                    (TurnEndReason::EndTurn | TurnEndReason::MaxTokens, None) => None,
                    (reason, None) => Some(format!("the turn ended: {reason:?}").to_lowercase()),
                };
                self.code = Some(i32::from(failure.is_some()));
                self.error = failure;
                if !self.at_line_start {
                    self.text.push('\n');
                }
                self.send("close", Value::Null);
            }
            _ => {}
        }
    }
}

impl Machine for OneShot {
    fn handle_input(&mut self, now: Instant, input: Input<'_>) {
        self.now = now;
        self.luxe.handle_input(now, input);
    }

    fn poll_output(&mut self) -> Option<Output> {
        loop {
            match self.luxe.poll_output()? {
                // What a client of --rpc would be shown, secrets cut out.
                Output::Frame(frame) => self.take(&frame.redacted_event()),
                Output::Flush | Output::Message(_) => {}
                // The turn's own status wins over the session's exit (a closed session exits 0).
                Output::Exit { code } => {
                    return Some(Output::Exit {
                        code: self.code.unwrap_or(code.max(1)),
                    });
                }
                other => return Some(other),
            }
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.luxe.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        self.luxe.handle_timeout(now);
    }

    fn is_closed(&self) -> bool {
        self.luxe.is_closed()
    }
}
