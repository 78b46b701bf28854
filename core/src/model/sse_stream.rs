//! The framing both providers share: SSE bytes in, one provider's event handler applied to each
//! event, and the rule that nothing is emitted after the response is complete.

use super::sse::{SseEvent, SseParser};
use super::wire::{ModelEvent, StreamDecoder};

/// What one provider does with the events of its stream.
pub trait SseEvents: Default + std::fmt::Debug {
    /// Handles one SSE event, appending the [`ModelEvent`]s it completes to `out`; never called
    /// once [`Self::is_done`].
    fn event(&mut self, event: SseEvent<'_>, out: &mut Vec<ModelEvent>);
    /// Whether `Finished` or `Error` was emitted.
    fn is_done(&self) -> bool;
    /// The stream ended before it was done: emit the terminal event it deserves.
    fn cut_off(&mut self, out: &mut Vec<ModelEvent>);
}

/// A streamed response decoder over a provider's [`SseEvents`].
#[derive(Debug, Default)]
pub struct SseStream<H> {
    sse: SseParser,
    handler: H,
}

impl<H: SseEvents> SseStream<H> {
    /// A decoder at the start of a response.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds response bytes, appending what they complete to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<ModelEvent>) {
        if self.handler.is_done() {
            return;
        }
        self.sse.push(bytes, &mut handle(&mut self.handler, out));
    }

    /// Ends the response; one cut short ends in the terminal event the provider decides.
    pub fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        if self.handler.is_done() {
            return;
        }
        self.sse.finish(&mut handle(&mut self.handler, out));
        if !self.handler.is_done() {
            self.handler.cut_off(out);
        }
    }
}

/// Hands events to `handler` until it is done; events after the end are dropped.
fn handle<'a, H: SseEvents>(
    handler: &'a mut H,
    out: &'a mut Vec<ModelEvent>,
) -> impl FnMut(SseEvent<'_>) + 'a {
    move |event| {
        if !handler.is_done() {
            handler.event(event, out);
        }
    }
}

impl<H: SseEvents> StreamDecoder for SseStream<H> {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<ModelEvent>) {
        SseStream::push(self, bytes, out);
    }

    fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        SseStream::finish(self, out);
    }
}
