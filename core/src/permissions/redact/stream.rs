//! Redaction of output that arrives in pieces: bytes held back at each cut for as long as they
//! could still begin a secret.

use std::sync::Arc;

use super::Compiled;

/// Holds back at most (longest secret − 1) bytes between chunks, and releases them when it is
/// sure they cannot start a secret.
///
/// "Longest secret" counts the derived forms (base64 is a third longer than the value). What it
/// releases is exactly what [`super::Redactor::redact_bytes`] would make of the whole output,
/// however the output is cut into chunks, also inside a character: it works on bytes, and a
/// cut may fall anywhere in what it releases ([`TextStream`] puts characters back together).
#[derive(Debug, Clone)]
pub struct StreamRedactor {
    patterns: Option<Arc<Compiled>>,
    /// Output not yet released: it may still be the start of a secret.
    pending: Vec<u8>,
    /// How many bytes at the start of `pending` are inside a redacted stretch whose marker is
    /// already released (a secret that began before the last cut): they are swallowed, and a
    /// secret overlapping them extends that stretch instead of adding a marker.
    run_end: usize,
}

impl StreamRedactor {
    pub(super) fn new(patterns: Option<Arc<Compiled>>) -> Self {
        Self {
            patterns,
            pending: Vec::new(),
            run_end: 0,
        }
    }

    /// Takes the next chunk; returns the redacted bytes safe to show now.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        let Some(patterns) = &self.patterns else {
            return chunk.to_vec();
        };
        let patterns = &patterns.text;
        self.pending.extend_from_slice(chunk);
        // A secret starting before `limit` ends within `pending`, so everything before it is
        // decided.
        let limit = self
            .pending
            .len()
            .saturating_sub(patterns.longest.saturating_sub(1));
        let mut out = Vec::with_capacity(limit);
        let first = patterns.find(&self.pending, 0);
        let covered = patterns.redact_into(
            &self.pending,
            limit,
            self.run_end,
            first,
            &mut out,
            &mut |_| true,
        );
        self.run_end = covered.saturating_sub(limit);
        self.pending.drain(..limit);
        out
    }

    /// Ends the output: returns the rest, redacted. The stream can then be used again.
    pub fn finish(&mut self) -> Vec<u8> {
        let text = std::mem::take(&mut self.pending);
        let run_end = std::mem::take(&mut self.run_end);
        let Some(patterns) = &self.patterns else {
            return text;
        };
        let patterns = &patterns.text;
        let mut out = Vec::with_capacity(text.len());
        let first = patterns.find(&text, 0);
        patterns.redact_into(&text, text.len(), run_end, first, &mut out, &mut |_| true);
        out
    }
}

/// A [`StreamRedactor`] whose output is text: the bytes it releases are decoded as UTF-8, a
/// character cut by a chunk boundary waiting for its other bytes, and bytes that are not UTF-8
/// becoming U+FFFD. Decoding comes after redaction, so a value split inside one of its
/// characters is still found.
#[derive(Debug, Clone)]
pub struct TextStream {
    bytes: StreamRedactor,
    /// The start of a character whose other bytes have not come yet.
    partial: Vec<u8>,
}

impl TextStream {
    pub(super) fn new(bytes: StreamRedactor) -> Self {
        Self {
            bytes,
            partial: Vec::new(),
        }
    }

    /// Takes the next chunk; returns the redacted text safe to show now.
    pub fn push(&mut self, chunk: &[u8]) -> String {
        let released = self.bytes.push(chunk);
        self.decode(&released, false)
    }

    /// Ends the output: returns the rest, redacted. The stream can then be used again.
    pub fn finish(&mut self) -> String {
        let released = self.bytes.finish();
        self.decode(&released, true)
    }

    fn decode(&mut self, released: &[u8], last: bool) -> String {
        let mut bytes = std::mem::take(&mut self.partial);
        bytes.extend_from_slice(released);
        let mut out = String::with_capacity(bytes.len());
        let mut rest = bytes.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    out.push_str(text);
                    break;
                }
                Err(err) => {
                    let (valid, after) = rest.split_at(err.valid_up_to());
                    out.push_str(&String::from_utf8_lossy(valid));
                    match err.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        // An incomplete character at the end: its other bytes may still come.
                        None if !last => {
                            self.partial = after.to_vec();
                            break;
                        }
                        None => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            break;
                        }
                    }
                }
            }
        }
        out
    }
}
