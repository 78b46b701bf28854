//! Text chunks (`agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk`): the
//! `session/update` sent once per streamed token. Written straight to bytes, one escaped string
//! into the writer's buffer, because building and serialising a `Value` tree per token cost
//! luxe several times the stream itself. The bytes are exactly serde's for the same message
//! (keys in serde_json's sorted order), which a property below holds over arbitrary text.

use std::sync::Arc;

use crate::protocol::hand_json::string;

/// Whose text a chunk carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChunkKind {
    /// The model's answer.
    Agent,
    /// The model's reasoning.
    Thought,
    /// The user's message (a `session/load` replay).
    User,
}

impl ChunkKind {
    /// The `sessionUpdate` discriminator.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Agent => "agent_message_chunk",
            Self::Thought => "agent_thought_chunk",
            Self::User => "user_message_chunk",
        }
    }
}

/// One text chunk of one session, as a whole JSON-RPC notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The session it belongs to.
    pub session_id: Arc<str>,
    /// Whose text.
    pub kind: ChunkKind,
    /// The chunk's text, unescaped; `encode` writes it as `content.text`.
    pub text: String,
}

impl Chunk {
    /// Appends `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":…,"update":
    /// {"content":{"text":…,"type":"text"},"sessionUpdate":…}}}` (no LF).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(
            br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"#,
        );
        string(out, &self.session_id);
        out.extend_from_slice(br#","update":{"content":{"text":"#);
        string(out, &self.text);
        out.extend_from_slice(br#","type":"text"},"sessionUpdate":""#);
        // The kinds are plain snake_case: nothing to escape.
        out.extend_from_slice(self.kind.name().as_bytes());
        out.extend_from_slice(br#""}}}"#);
    }
}

#[cfg(test)]
mod tests {
    use quickcheck::{Arbitrary, Gen, QuickCheck};
    use serde_json::{Value, json};

    use super::*;

    /// The message as the `Value` path built it before chunks were written by hand.
    fn as_value(chunk: &Chunk) -> Value {
        let update = json!({"sessionUpdate": chunk.kind.name(),
            "content": {"type": "text", "text": chunk.text}});
        json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": &*chunk.session_id, "update": update}})
    }

    /// Text made mostly of what JSON escapes or could trip an escaper.
    #[derive(Debug, Clone)]
    struct Tricky(String);

    impl Arbitrary for Tricky {
        fn arbitrary(g: &mut Gen) -> Self {
            const HARD: &[char] = &[
                '"', '\\', '/', '\n', '\r', '\t', '\u{0}', '\u{1}', '\u{8}', '\u{c}', '\u{1f}',
                '\u{7f}', '\u{80}', '\u{2028}', '\u{2029}', '\u{fffd}', 'é', '😀', 'a', ' ',
            ];
            let len = usize::arbitrary(g) % 70;
            let text = (0..len)
                .map(|_| {
                    if bool::arbitrary(g) {
                        *g.choose(HARD).unwrap_or(&'a')
                    } else {
                        char::arbitrary(g)
                    }
                })
                .collect();
            Tricky(text)
        }

        fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
            Box::new(self.0.shrink().map(Tricky))
        }
    }

    fn same_as_serde(session: Tricky, text: Tricky, which: u8) -> bool {
        let kind = [ChunkKind::Agent, ChunkKind::Thought, ChunkKind::User][usize::from(which % 3)];
        let chunk = Chunk {
            session_id: session.0.into(),
            kind,
            text: text.0,
        };
        let mut hand = Vec::new();
        chunk.encode(&mut hand);
        let value = as_value(&chunk);
        let parsed: Value = serde_json::from_slice(&hand).expect("hand-written JSON parses");
        parsed == value && hand == serde_json::to_vec(&value).expect("a Value serialises")
    }

    #[test]
    fn property_a_chunk_is_the_bytes_serde_writes_for_it() {
        QuickCheck::new()
            .tests(2000)
            .quickcheck(same_as_serde as fn(Tricky, Tricky, u8) -> bool);
    }

    #[test]
    fn a_chunk_escapes_what_json_must() {
        let chunk = Chunk {
            session_id: "s\"1".into(),
            kind: ChunkKind::Thought,
            text: "a\"b\\c\n\u{1}\u{2028}é".into(),
        };
        let mut out = Vec::new();
        chunk.encode(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s\\\"1\",\
             \"update\":{\"content\":{\"text\":\"a\\\"b\\\\c\\n\\u0001\u{2028}é\",\"type\":\"text\"},\
             \"sessionUpdate\":\"agent_thought_chunk\"}}}"
        );
    }
}
