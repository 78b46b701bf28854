//! The redaction gate: `.env` secret values cut out of everything Luxe writes (defence in depth,
//! design §8).
//!
//! Tools are denied `.env` files, but a shell can always spell a name another way
//! (`python3 -c "open('.e'+'nv')"`), and a value can sit in any file, a diff or a branch name.
//! So the values of every `.env` file in the project ([`secret_values`], read at start) are cut
//! out, with common encodings of them, by one [`Redactor`] that works on bytes:
//!
//! - every frame passes it as it is encoded ([`crate::effects::Frame`]), and every model request
//!   body before it leaves ([`Redactor::gate`]), each searched as the JSON it is, so that only
//!   string values change and the line stays valid JSON ([`Redactor::redact_json`]);
//! - text that reaches a frame in pieces (streamed command output, the model's deltas) is held
//!   back at each cut for as long as it could still begin a secret ([`StreamRedactor`],
//!   [`TextStream`]), so a value split across pieces, even inside one character, is caught;
//! - what a tool read is redacted before it is cut to size ([`Redactor::redact_bytes`]), so a
//!   cut cannot leave the start of a value.

mod dotenv;
mod forms;
mod json;
mod stream;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

pub use dotenv::secret_values;
pub use forms::is_weak;
pub use stream::{StreamRedactor, TextStream};

use forms::{json_escaped, search_strings};
use stream::Starts;

/// The most pattern bytes searched with a DFA; more get the contiguous NFA.
const DFA_MAX_BYTES: usize = 4 * 1024;

/// What every occurrence of a secret becomes.
pub const MARKER: &str = "[redacted]";

/// Replaces every occurrence of any secret with `[redacted]`. Longest secrets first where they
/// overlap. Cheap when there are no secrets (returns `Cow::Borrowed`).
///
/// Occurrences that overlap become one marker covering all of them, so the longest secret wins
/// and no fragment of a shorter one that overlaps it is left either; adjacent ones stay two
/// markers. Besides each secret's own text, these forms of it are redacted too (best effort: a
/// command can always encode a value some other way, or print it a piece at a time):
/// - its text with surrounding whitespace trimmed (a quoted `"  value  "` printed as read);
/// - its base64 (standard alphabet) with and without padding, and the part of its base64 that is
///   the same wherever it sits in a longer encoded text, for each of the three alignments, so
///   `base64 .env` or `echo $KEY | base64` is caught too;
/// - its JSON string escaping, once and twice, where that differs (a value with `"`, `\` or
///   control characters, printed as JSON or as JSON inside JSON);
/// - each line of a multi-line value (a PEM key printed with other line endings or indented).
///
/// A value or line longer than 1,024 bytes is searched for in pieces of that size (and each
/// piece in these forms): printed whole it is redacted piece by piece; a part of it that holds
/// no whole piece is not. Derived forms that would be weak values are skipped. The output is
/// not searched again, so a secret that shares text with the marker (contains a bracket, or is
/// part of the word `redacted`) can be formed by a marker and the text next to it.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// `None` when there is nothing to redact; shared, so streams and frames are cheap to start.
    patterns: Option<Arc<Compiled>>,
}

/// The patterns of a [`Redactor`], for text and for JSON.
#[derive(Debug)]
struct Compiled {
    /// Secrets and their derived forms, as they appear in text.
    text: Patterns,
    /// Each of `text` as it appears inside a JSON string (escaped), so that a value is found in
    /// a decoded string exactly where `text` would find it. Built when first needed.
    json: OnceLock<Patterns>,
    /// The starts of `text`, for streams. Built when first needed.
    starts: OnceLock<Starts>,
}

impl Compiled {
    fn starts(&self) -> &Starts {
        self.starts.get_or_init(|| Starts::new(&self.text))
    }

    fn json(&self) -> &Patterns {
        self.json.get_or_init(|| {
            let escaped = self
                .text
                .list
                .iter()
                .map(|form| json_escaped(form))
                .collect();
            let automaton = self.text.automaton.is_some();
            // Escaping keeps a non-empty list non-empty; should it not, nothing matches.
            Patterns::new(escaped, automaton).unwrap_or_else(Patterns::nothing)
        })
    }
}

/// The strings a [`Redactor`] replaces and how it finds them.
#[derive(Debug)]
struct Patterns {
    /// Non-empty and deduplicated.
    list: Vec<String>,
    /// Leftmost-longest search over `list` in one pass whatever its size. `None` only if the
    /// automaton could not be built (past the crate's size limits, far beyond any dotenv file):
    /// the plain scan then redacts the same, just slower.
    automaton: Option<AhoCorasick>,
    /// The longest entry of `list`, in bytes: a stream never holds back this much.
    longest: usize,
}

impl Redactor {
    /// A redactor for `secrets` (and their derived forms); duplicates and empty strings are
    /// dropped. It does not judge strength: pass [`secret_values`]' output, not raw values.
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        Self::build(secrets, true)
    }

    /// `new`, but with `automaton: false` the plain scan, which tests use as the oracle.
    fn build(secrets: impl IntoIterator<Item = String>, automaton: bool) -> Self {
        let mut list = Vec::new();
        for secret in secrets {
            if secret.is_empty() {
                continue;
            }
            list.extend(search_strings(&secret));
        }
        let Some(text) = Patterns::new(list, automaton) else {
            return Self::default();
        };
        Self {
            patterns: Some(Arc::new(Compiled {
                text,
                json: OnceLock::new(),
                starts: OnceLock::new(),
            })),
        }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_none()
    }

    /// `text` with every occurrence of a secret (or a derived form) replaced by `[redacted]`;
    /// borrowed when there is none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.redact_bytes(text.as_bytes()) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            // Patterns are whole UTF-8 sequences, so a match starts and ends on a char boundary
            // and the result is UTF-8 again; should it not be, nothing is lost to a panic.
            Cow::Owned(bytes) => Cow::Owned(match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
            }),
        }
    }

    /// `bytes` (any bytes: a file, a command's output) with every occurrence of a secret (or a
    /// derived form) replaced by `[redacted]`; borrowed when there is none.
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(patterns) = &self.patterns else {
            return Cow::Borrowed(bytes);
        };
        let text = &patterns.text;
        let Some(first) = text.find(bytes, 0) else {
            return Cow::Borrowed(bytes);
        };
        let mut out = Vec::with_capacity(bytes.len());
        text.redact_into(bytes, bytes.len(), 0, Some(first), &mut out, &mut |_| true);
        Cow::Owned(out)
    }

    /// A redactor for bytes that arrive in chunks (a command's stdout): a secret split across
    /// two chunks must still be caught.
    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor::new(self.patterns.clone())
    }

    /// A redactor for text that arrives in chunks of bytes or of text (a command's output, the
    /// model's deltas), released as whole characters.
    pub fn text_stream(&self) -> TextStream {
        TextStream::new(self.stream())
    }
}

impl Patterns {
    /// `None` when `list` has nothing to search for.
    fn new(mut list: Vec<String>, automaton: bool) -> Option<Self> {
        list.retain(|form| !form.is_empty());
        list.sort_unstable();
        list.dedup();
        let longest = list.iter().map(String::len).max()?;
        let automaton = if automaton {
            // A DFA searches fastest but costs time and memory by the pattern byte, so only
            // small sets get one (the crate's own choice would give one to any 100 patterns).
            let bytes: usize = list.iter().map(String::len).sum();
            let kind = (bytes > DFA_MAX_BYTES).then_some(AhoCorasickKind::ContiguousNFA);
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .kind(kind)
                .build(&list)
                .ok()
        } else {
            None
        };
        Some(Self {
            list,
            automaton,
            longest,
        })
    }

    /// Patterns that match nothing.
    fn nothing() -> Self {
        Self {
            list: Vec::new(),
            automaton: None,
            longest: 0,
        }
    }

    /// The leftmost occurrence starting at or after `from`, longest of those starting there.
    fn find(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        let rest = hay.get(from..)?;
        // An unanchored search cannot fail; should it ever, the plain scan still answers.
        let found = match self.automaton.as_ref().map(|ac| ac.try_find(rest)) {
            Some(Ok(found)) => found.map(|m| (m.start(), m.end())),
            _ => scan(&self.list, rest),
        };
        found.map(|(start, end)| (from + start, from + end))
    }

    /// Appends to `out` the redaction of `text[..limit]`, where `first` is
    /// `self.find(text, 0)`, the first `covered` bytes are inside a stretch whose marker is
    /// already out, and every occurrence starting before `limit` lies wholly in `text`. Only
    /// occurrences whose start `accept`s count (all of them for text; the ones inside a JSON
    /// string for JSON). Returns where the last redacted stretch ends (may be past `limit`).
    ///
    /// Every start of an occurrence is visited, not just the leftmost-longest ones, so that
    /// overlapping occurrences merge into one stretch; leftmost-longest search makes that one
    /// search per occurrence.
    fn redact_into(
        &self,
        text: &[u8],
        limit: usize,
        mut covered: usize,
        first: Option<(usize, usize)>,
        out: &mut Vec<u8>,
        accept: &mut dyn FnMut(usize) -> bool,
    ) -> usize {
        let mut plain_from = covered;
        let mut next = first;
        while let Some((start, end)) = next {
            if start >= limit {
                break;
            }
            if accept(start) {
                if start < covered {
                    covered = covered.max(end);
                } else {
                    out.extend_from_slice(&text[plain_from..start]);
                    out.extend_from_slice(MARKER.as_bytes());
                    covered = end;
                }
                plain_from = covered;
            }
            // Patterns are UTF-8, so none matches from inside a char: `+ 1` is enough.
            next = self.find(text, start + 1);
        }
        if plain_from < limit {
            out.extend_from_slice(&text[plain_from..limit]);
        }
        covered
    }
}

/// The plain leftmost-longest search: what the automaton does, in O(text × patterns).
fn scan(list: &[String], hay: &[u8]) -> Option<(usize, usize)> {
    (0..hay.len()).find_map(|start| {
        let rest = &hay[start..];
        list.iter()
            .map(String::as_bytes)
            .filter(|pattern| rest.starts_with(pattern))
            .map(<[u8]>::len)
            .max()
            .map(|len| (start, start + len))
    })
}

#[cfg(test)]
mod tests;
