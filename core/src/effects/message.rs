//! [`Message`]: a JSON-RPC line for stdout (`luxe --acp`'s only output to the client), which
//! only the redaction gate encodes.

mod chunk;

use serde_json::Value;

pub(crate) use chunk::{Chunk, ChunkKind};

use crate::redact::Redactor;

/// A JSON-RPC message for stdout. Its only encoding, [`Message::encode`], passes the redaction
/// gate of the session it speaks for: io writes the bytes it makes, never the JSON by other
/// means.
#[derive(Debug, Clone)]
pub struct Message {
    body: Body,
    /// Every gate it passes: its session's, or for a message of no session (in `others`),
    /// every hosted session's (it may echo what the client sent, which may quote any of them).
    /// One gate needs no `Vec`: a chunk per token allocates nothing it need not.
    redactor: Redactor,
    others: Vec<Redactor>,
}

impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        self.body == other.body
    }
}

/// What a message says.
#[derive(Debug, Clone, PartialEq)]
enum Body {
    Json(Value),
    /// A text chunk, the message of every streamed token, written by hand.
    Chunk(Chunk),
}

impl Message {
    /// `json`, to be redacted by `redactor` when it is written.
    pub(crate) fn new(json: Value, redactor: &Redactor) -> Self {
        Self {
            body: Body::Json(json),
            redactor: redactor.clone(),
            others: Vec::new(),
        }
    }

    /// A text chunk's `session/update`, to be redacted by `redactor` when it is written.
    pub(crate) fn chunk(chunk: Chunk, redactor: &Redactor) -> Self {
        Self {
            body: Body::Chunk(chunk),
            redactor: redactor.clone(),
            others: Vec::new(),
        }
    }

    /// Adds `text` to this message if it is a chunk of `session`'s of `kind`, and says whether
    /// it was. The whole text passes the gate when it is written, so a secret split across
    /// the two pieces is found too.
    pub(crate) fn extend_chunk(&mut self, session: &str, kind: ChunkKind, text: &str) -> bool {
        match &mut self.body {
            Body::Chunk(chunk) if chunk.kind == kind && *chunk.session_id == *session => {
                chunk.text.push_str(text);
                true
            }
            _ => false,
        }
    }

    /// `json`, to be redacted by each of `redactors` when it is written.
    pub(crate) fn gated_by_all(json: Value, redactors: Vec<Redactor>) -> Self {
        Self {
            body: Body::Json(json),
            redactor: Redactor::default(),
            others: redactors,
        }
    }

    /// Appends the message as one line of JSON, LF included, redacted.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let from = out.len();
        match &self.body {
            Body::Json(json) => {
                // Serialising a `Value` into memory cannot fail.
                let _ = serde_json::to_writer(&mut *out, json);
            }
            Body::Chunk(chunk) => chunk.encode(out),
        }
        for redactor in std::iter::once(&self.redactor).chain(&self.others) {
            redactor.redact_json_tail(out, from);
        }
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_message_is_redacted_as_it_is_written() {
        let redactor = Redactor::new(["hunter2-secret-value".to_owned()]);
        let message = Message::new(json!({"text": "key hunter2-secret-value"}), &redactor);
        let mut out = Vec::new();
        message.encode(&mut out);
        let line = String::from_utf8(out).unwrap();
        assert!(!line.contains("hunter2"), "{line}");
        assert!(line.ends_with("}\n"));
        serde_json::from_str::<Value>(line.trim_end()).unwrap();
        let other = Redactor::new(["another-secret-value-here".to_owned()]);
        let both = Message::gated_by_all(
            json!({"a": "hunter2-secret-value", "b": "another-secret-value-here"}),
            vec![redactor, other],
        );
        let mut out = Vec::new();
        both.encode(&mut out);
        let line = String::from_utf8(out).unwrap();
        assert!(
            !line.contains("hunter2") && !line.contains("another-secret"),
            "{line}"
        );
    }

    #[test]
    fn a_chunk_takes_more_text_of_its_own_session_and_kind_only() {
        let redactor = Redactor::new(["hunter2-secret-value".to_owned()]);
        let session: std::sync::Arc<str> = "s1".into();
        let chunk = |kind, text: &str| Chunk {
            session_id: session.clone(),
            kind,
            text: text.to_owned(),
        };
        let mut message = Message::chunk(chunk(ChunkKind::Agent, "key hunter2-"), &redactor);
        assert!(
            !message.extend_chunk("s2", ChunkKind::Agent, "x"),
            "another session's"
        );
        assert!(
            !message.extend_chunk("s1", ChunkKind::Thought, "x"),
            "another kind"
        );
        assert!(message.extend_chunk("s1", ChunkKind::Agent, "secret-value."));
        let mut out = Vec::new();
        message.encode(&mut out);
        let line: Value = serde_json::from_slice(&out).unwrap();
        // The secret, split across the two pieces, is found in the whole.
        assert_eq!(
            line["params"]["update"]["content"]["text"],
            "key [redacted]."
        );
        let mut json = Message::new(json!({"a": 1}), &redactor);
        assert!(
            !json.extend_chunk("s1", ChunkKind::Agent, "x"),
            "not a chunk"
        );
    }
}
