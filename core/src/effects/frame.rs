//! [`Frame`]: an event on its way to stdout, which only the redaction gate encodes.

use crate::protocol::codec;
use crate::protocol::events::Event;
use crate::redact::Redactor;

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

    /// The event as a client is shown it: through the redaction gate, as [`Frame::encode`]
    /// writes it and a client reads it back. For a front door in the same process (the
    /// interface), which must show nothing a client of `--rpc` would not be shown. A frame
    /// that would not read back (never: every event is JSON a client can read) is an `error`.
    pub fn redacted_event(&self) -> Event {
        if self.redactor.is_empty() {
            return self.event.clone();
        }
        let mut line = Vec::new();
        self.encode(&mut line);
        let read = serde_json::from_slice::<serde_json::Value>(&line)
            .ok()
            .and_then(|mut frame| {
                let content = frame
                    .get_mut("content")
                    .map(serde_json::Value::take)
                    .unwrap_or(serde_json::Value::Null);
                Event::decode_content(self.event.kind(), content)?.ok()
            });
        read.unwrap_or_else(|| {
            Event::Error(crate::protocol::events::ErrorEvent {
                message: format!("a {} frame could not be shown", self.event.kind()),
            })
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::events::{ErrorEvent, TokenDelta};

    #[test]
    fn the_event_a_front_door_shows_has_passed_the_gate() {
        let redactor = Redactor::new(["supersecretvalue123".to_owned()]);
        let delta = Event::TokenDelta(TokenDelta {
            block: 0,
            delta: "the token is supersecretvalue123, see".into(),
        });
        let shown = Frame::new(delta.clone()).gated(&redactor).redacted_event();
        let Event::TokenDelta(shown) = shown else {
            panic!("{shown:?}");
        };
        assert!(
            !shown.delta.contains("supersecretvalue123"),
            "{}",
            shown.delta
        );
        assert!(shown.delta.starts_with("the token is "));
        let error = Event::Error(ErrorEvent {
            message: "no secret here".into(),
        });
        let plain = Frame::new(error.clone()).gated(&Redactor::default());
        assert_eq!(plain.redacted_event(), error, "nothing to cut: as it was");
        assert_eq!(
            Frame::new(delta)
                .gated(&Redactor::default())
                .redacted_event()
                .kind(),
            "token_delta"
        );
    }
}
