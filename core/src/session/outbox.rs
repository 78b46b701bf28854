//! What every room of a session acts through: the queue of outputs, and the effect namespace
//! that records each effect's owner as its id is issued. A feature machine borrows the outbox
//! for the length of one call and gives it back, so its outputs keep the order it made them
//! in and no room needs the others' fields to act.

use std::collections::VecDeque;

use super::Session;
use super::owners::{Owner, Owners};
use crate::effects::{EffectId, Frame, Output};
use crate::output_order::Queue;
use crate::protocol::events::Event;

/// The session's outputs not yet polled, and the effects still waiting for results.
#[derive(Debug, Default)]
pub(super) struct Outbox {
    outputs: VecDeque<Output>,
    owners: Owners,
}

impl Outbox {
    /// Queues a frame carrying `event`.
    pub(super) fn emit(&mut self, event: Event) {
        self.outputs.push_back(Output::Frame(Frame::new(event)));
    }

    /// Queues an output that names no new effect (or one already issued).
    pub(super) fn push(&mut self, output: Output) {
        self.outputs.push_back(output);
    }

    /// Queues outputs in order.
    pub(super) fn extend(&mut self, outputs: impl IntoIterator<Item = Output>) {
        self.outputs.extend(outputs);
    }

    /// A new effect id whose results go to `owner`.
    pub(super) fn effect_id(&mut self, owner: Owner) -> EffectId {
        self.owners.issue(owner)
    }

    /// Issues an id for `owner` and queues the output `make` builds for it.
    pub(super) fn issue(
        &mut self,
        owner: Owner,
        make: impl FnOnce(EffectId) -> Output,
    ) -> EffectId {
        let id = self.effect_id(owner);
        self.outputs.push_back(make(id));
        id
    }

    /// The bytes of the latest append to `path` still queued, which a new record may join.
    pub(super) fn queued_append(&mut self, path: &str) -> Option<&mut Vec<u8>> {
        self.outputs
            .iter_mut()
            .rev()
            .find_map(|output| match output {
                Output::AppendFile { path: p, bytes, .. } if p == path => Some(bytes),
                _ => None,
            })
    }

    /// The effect ids and the output queue at once, for machines outside the session that
    /// issue their own effects (MCP, the start-up probes).
    pub(super) fn parts(&mut self) -> (&mut Owners, &mut VecDeque<Output>) {
        (&mut self.owners, &mut self.outputs)
    }

    /// The owners table, for routing a result and forgetting a cancelled effect.
    pub(super) fn owners(&mut self) -> &mut Owners {
        &mut self.owners
    }

    /// The oldest output not yet polled, left in the queue.
    pub(super) fn peek(&self) -> Option<&Output> {
        self.outputs.front()
    }

    /// The oldest output not yet polled; a cancelled request's effect is forgotten as it
    /// leaves, since io drops its later results.
    pub(super) fn pop(&mut self) -> Option<Output> {
        // Looked at in place: the output then moves once, straight out of the queue.
        if let Some(Output::CancelHttp { id }) = self.outputs.front() {
            self.owners.forget(*id);
        }
        self.outputs.pop_front()
    }
}

/// io takes the session's outputs through [`crate::luxe::Luxe`], which looks at the head
/// first to put a flush before it (`crate::output_order`).
impl Queue for Session {
    fn peek(&self) -> Option<&Output> {
        self.outbox.peek()
    }

    fn take(&mut self) -> Option<Output> {
        self.poll_output()
    }
}
