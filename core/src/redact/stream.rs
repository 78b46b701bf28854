//! Redaction of output that arrives in pieces: bytes held back at each cut for as long as they
//! could still begin a secret.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::{Compiled, Patterns};

/// Holds back, between chunks, the longest end of the output that is the start of a secret (or
/// of a derived form), and releases it once it is sure it cannot be one.
///
/// What it releases is exactly what [`super::Redactor::redact_bytes`] would make of the whole
/// output, however the output is cut into chunks, also inside a character: it works on bytes,
/// and a cut may fall anywhere in what it releases ([`TextStream`] puts characters back
/// together). Output that cannot begin a secret passes at once, so the cost of a chunk is its
/// own length plus what was held back.
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
        let starts = patterns.starts();
        let patterns = &patterns.text;
        self.pending.extend_from_slice(chunk);
        // Nothing before `limit` can begin a secret that goes on past what came so far, so
        // everything before it is decided.
        let limit = self.pending.len() - starts.longest_at_end(&self.pending, patterns.longest);
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

/// The starts of every search string, as hashes, to tell how much of a stream's end may still
/// begin one.
#[derive(Debug)]
pub(super) struct Starts(HashSet<u64, BuildHasherDefault<Prehashed>>);

/// The multiplier of the polynomial hash.
const BASE: u64 = 0x100_0000_01b3;

impl Starts {
    /// The starts of `patterns`: every proper prefix of every one.
    pub(super) fn new(patterns: &Patterns) -> Self {
        let mut set = HashSet::default();
        for pattern in &patterns.list {
            let mut hash = 0u64;
            let bytes = pattern.as_bytes();
            for (len, &byte) in (1..bytes.len()).zip(bytes) {
                // h(s + b) = h(s)·BASE + b: the same value `longest_at_end` builds from the end.
                hash = hash.wrapping_mul(BASE).wrapping_add(u64::from(byte));
                set.insert(key(hash, len));
            }
        }
        Self(set)
    }

    /// How many bytes at the end of `text` (fewer than `longest`) are the start of a search
    /// string, the most of them. A hash collision can only make this larger, which holds back
    /// more: never less than needed.
    fn longest_at_end(&self, text: &[u8], longest: usize) -> usize {
        let mut found = 0;
        let mut hash = 0u64;
        let mut weight = 1u64;
        for (len, &byte) in (1..longest.min(text.len() + 1)).zip(text.iter().rev()) {
            // h(b + s) = b·BASE^|s| + h(s).
            hash = hash.wrapping_add(u64::from(byte).wrapping_mul(weight));
            weight = weight.wrapping_mul(BASE);
            if self.0.contains(&key(hash, len)) {
                found = len;
            }
        }
        found
    }
}

/// A set key for the hash of a string of `len` bytes, mixed (murmur3's finalizer) so that its
/// low bits, which pick the bucket, depend on every byte.
fn key(hash: u64, len: usize) -> u64 {
    let mut k = hash ^ (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// The hasher of [`Starts`]: its keys are hashes already.
#[derive(Debug, Default)]
pub(super) struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed; anything else is folded in rather than lost.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::super::Redactor;
    use quickcheck::quickcheck;

    /// Bytes on a small alphabet, so that texts often end in the start of a secret.
    fn small(bytes: &[u8]) -> Vec<u8> {
        bytes
            .iter()
            .map(|b| b"abc\xc3\xa9"[usize::from(*b) % 5])
            .collect()
    }

    quickcheck! {
        fn a_stream_holds_back_only_what_could_begin_a_secret(
            secrets: Vec<Vec<u8>>, chunks: Vec<Vec<u8>>
        ) -> bool {
            let secrets: Vec<String> = secrets
                .iter()
                .take(6)
                .map(|s| String::from_utf8_lossy(&small(s)).into_owned())
                .collect();
            let r = Redactor::new(secrets);
            let list = r.patterns.as_ref().map(|p| p.text.list.clone()).unwrap_or_default();
            let mut stream = r.stream();
            chunks.iter().all(|chunk| {
                stream.push(&small(chunk));
                let held = &stream.pending;
                held.is_empty()
                    || list.iter().any(|p| p.len() > held.len() && p.as_bytes().starts_with(held))
            })
        }
    }
}
