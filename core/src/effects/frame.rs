//! [`Frame`]: an event on its way to stdout, which only the redaction gate encodes.

use crate::permissions::redact::Redactor;
use crate::protocol::codec;
use crate::protocol::events::Event;

/// A frame for stdout. Its only encoding, [`Frame::encode_in_parts`], passes the redaction
/// gate: io writes the bytes it makes, never the event by other means.
#[derive(Debug, Clone)]
pub struct Frame {
    event: Event,
    /// Given by the gate as the frame leaves core ([`Redactor::gate`]).
    redactor: Redactor,
}

impl PartialEq for Frame {
    fn eq(&self, other: &Self) -> bool {
        self.event == other.event
    }
}

impl Frame {
    /// A frame of `event`, to be gated before it leaves core.
    pub(crate) fn new(event: Event) -> Self {
        Self {
            event,
            redactor: Redactor::default(),
        }
    }

    /// This frame, encoded through `redactor`.
    pub(crate) fn gated(self, redactor: &Redactor) -> Self {
        Self {
            redactor: redactor.clone(),
            ..self
        }
    }

    /// The event, as core made it, before redaction: for tests and drivers that look at what
    /// happened, never for writing.
    pub fn event(&self) -> &Event {
        &self.event
    }

    /// The event, taken: for a driver that writes it its own way and redacts what it writes
    /// (`--acp`'s host).
    pub(crate) fn into_event(self) -> Event {
        self.event
    }

    /// Appends the frame as one line of JSON, LF included, redacted.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let Ok(()) = self.encode_in_parts::<std::convert::Infallible>(out, &mut |_| Ok(()));
    }

    /// [`Frame::encode`], handing `out` to `part` while a large frame (a review) is written so
    /// that a writer can send what is there and empty it; every part is redacted before `part`
    /// sees it. An error from `part` stops the encoding and is returned.
    pub fn encode_in_parts<E>(
        &self,
        out: &mut Vec<u8>,
        part: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        let redactor = &self.redactor;
        // Parts end between a review's hunks, never inside a string.
        let mut from = out.len();
        codec::encode_in_parts(&self.event, out, &mut |out| {
            redactor.redact_json_tail(out, from);
            let taken = part(out);
            from = out.len();
            taken
        })?;
        redactor.redact_json_tail(out, from);
        Ok(())
    }
}
