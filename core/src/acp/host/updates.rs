//! What a session says, sent to the client: every output is pumped out of the session, its
//! frames translated into `session/update` notifications, text chunks (joined while unwritten)
//! and the steps the other rooms act on, and its effects passed on to io (or to the client's
//! file system); running calls' output goes out at most every [`OUTPUT_EVERY`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::effects::Output;

use super::super::effects_table::Slot;
use super::super::jsonrpc;
use super::super::translate::{self, Sorted, Step};
use super::Host;
use crate::effects::Message;
use crate::effects::{Chunk, ChunkKind};

/// The least time between two updates of running calls' output in one session: a command's
/// output reaches the client at most this late, and costs it at most
/// [`translate::RUNNING_TAIL_BYTES`] per call this often.
const OUTPUT_EVERY: Duration = Duration::from_millis(100);

impl Host {
    /// Takes every output the session has, translating its frames.
    pub(super) fn pump(&mut self, now: Instant, slot: Slot) {
        loop {
            let Some(hosted) = self.sessions.get_mut(&slot) else {
                return;
            };
            let Some(output) = hosted.session.poll_output() else {
                return;
            };
            match output {
                Output::Frame(frame) => match translate::sort(frame.into_event()) {
                    Sorted::Chunk(kind, text) => self.chunk(slot, kind, text),
                    Sorted::Other(event) => {
                        for step in hosted.translator.steps(event) {
                            self.step(now, slot, step);
                        }
                    }
                },
                // The session was closed through the host; the host decides about the process.
                Output::Exit { .. } => {}
                effect => {
                    self.note_open(slot, &effect);
                    if let Some(effect) = self.through_client(slot, effect) {
                        let effect = self.table.outward(slot, effect);
                        self.outputs.push_back(effect);
                    }
                }
            }
        }
    }

    /// Acts on one step of the session in `slot`'s translated frames.
    fn step(&mut self, now: Instant, slot: Slot, step: Step) {
        if !self.sessions.contains_key(&slot) {
            return;
        }
        match step {
            Step::Update(update) => self.update(slot, update),
            Step::Chunk(kind, text) => self.chunk(slot, kind, text),
            Step::OutputGrew => self.output_grew(now, slot),
            Step::Ask {
                perm_id,
                tool_call,
                always_rule,
            } => self.ask_permission(slot, perm_id, tool_call, &always_rule),
            Step::Settled(settled) => self.permission_settled(slot, &settled),
            Step::TurnStarted => {}
            Step::TurnEnded { reason, error } => self.turn_ended(now, slot, reason, error),
            Step::Compacted(ended) => self.compacted(now, slot, ended),
            Step::State(state) => self.state_changed(slot, state),
            Step::Rejected(rejected) => self.rejected(now, slot, rejected),
            Step::Question(asked) => self.ask_question(now, slot, asked),
            Step::QuestionSettled(settled) => self.question_settled(slot, &settled),
        }
    }

    /// A running call's output grew: sent now, or when [`OUTPUT_EVERY`] has passed since the
    /// last.
    fn output_grew(&mut self, now: Instant, slot: Slot) {
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let due = hosted.output_sent.map(|sent| sent + OUTPUT_EVERY);
        match due.filter(|due| *due > now) {
            Some(due) => hosted.output_due = Some(due),
            None => self.send_output(now, slot),
        }
    }

    /// Sends `update` for the session in `slot`.
    pub(super) fn update(&mut self, slot: Slot, update: Value) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        let params = json!({"sessionId": &*hosted.id, "update": update});
        let redactor = hosted.redactor.clone();
        self.write(jsonrpc::notification("session/update", params), &redactor);
    }

    /// Sends what running calls printed since the client last saw their output.
    pub(super) fn send_output(&mut self, now: Instant, slot: Slot) {
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        hosted.output_due = None;
        hosted.output_sent = Some(now);
        for update in hosted.translator.running_output() {
            self.update(slot, update);
        }
    }

    /// Sends a text chunk for the session in `slot`. Text that comes while the chunk before it
    /// is still unwritten (deltas read from the model in one piece) joins that chunk: the
    /// client gets the same text in fewer lines, and a model that streams faster than the
    /// client reads costs it less, never later.
    pub(super) fn chunk(&mut self, slot: Slot, kind: ChunkKind, text: String) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        if let Some(Output::Message(last)) = self.outputs.back_mut()
            && last.extend_chunk(&hosted.id, kind, &text)
        {
            return;
        }
        let chunk = Chunk {
            session_id: Arc::clone(&hosted.id),
            kind,
            text,
        };
        self.outputs
            .push_back(Output::Message(Message::chunk(chunk, &hosted.redactor)));
    }
}
