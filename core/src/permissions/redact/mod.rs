//! Redaction of `.env` secret values from tool output (defence in depth, design §8).
//!
//! Tools are denied `.env` files, but a shell can always spell a name another way
//! (`python3 -c "open('.e'+'nv')"`), so the values found in the project's `.env` files are also
//! cut out of every tool output before the model or the client sees it, even under `--yolo`.
//! [`secret_values`] reads the values, [`Redactor`] replaces them (and common encodings of them)
//! with `[redacted]`, and [`StreamRedactor`] does the same for output that arrives in chunks.

use std::borrow::Cow;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};

/// What every occurrence of a secret becomes.
pub const MARKER: &str = "[redacted]";

/// Values shorter than this many characters are too weak to be secrets: redacting them would
/// mangle ordinary output far more often than it would hide anything.
const MIN_SECRET_CHARS: usize = 6;

/// Values that are configuration, not secrets, and common in output (compared ignoring ASCII
/// case). Only the ones of at least [`MIN_SECRET_CHARS`] characters matter, but the whole list
/// is kept so the rule reads as written.
const COMMON_WORDS: &[&str] = &[
    "true",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "null",
    "none",
    "localhost",
    "development",
    "production",
    "test",
    "staging",
    "enabled",
    "disabled",
    "default",
    "127.0.0.1",
    "0.0.0.0",
];

/// Digit-only values shorter than this are ports, counts and timeouts rather than PINs or keys.
const MIN_SECRET_DIGITS: usize = 8;

/// The secret values of a dotenv file's text: `KEY=value`, `export KEY=value`, `KEY="quoted value"`
/// (with \n, \", \\ escapes), `KEY='literal'`, `KEY=value # comment`, multi-line double-quoted
/// values, blank lines and `#` comments; lines that do not parse are skipped. Values too weak to
/// be secrets are left out so redaction does not mangle ordinary output: empty, shorter than 6
/// characters, or a common word (true/false/yes/no/on/off/null/none/localhost/development/
/// production/test, case-insensitive), or only digits shorter than 8.
///
/// Dotenv dialects differ, and a value the application reads differently from us would not be
/// redacted, so where they disagree both readings are kept: an unquoted `KEY=password#1` yields
/// `password#1` (python-dotenv: only ` #` starts a comment) and `password` (node dotenv: any `#`
/// does). `\r`, `\t` are also unescaped in double quotes, single- and backtick-quoted values are
/// literal and may span lines too, and `KEY = value` is accepted. Values come back in file order
/// without duplicates; `${VAR}` references are not expanded.
pub fn secret_values(dotenv: &str) -> Vec<String> {
    // CRLF files: `lines` strips "\r\n"; a '\r' that ends the text without a '\n' is stripped here.
    let lines: Vec<&str> = dotenv
        .lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let mut found: Vec<String> = Vec::new();
    let mut next = 0;
    while let Some(line) = lines.get(next) {
        next += 1;
        let Some(raw) = assignment_value(line) else {
            continue;
        };
        let value = raw.trim_start();
        let candidates = match value.chars().next() {
            Some(quote @ ('"' | '\'' | '`')) => {
                let following = lines.get(next..).unwrap_or_default();
                match quoted(&value[quote.len_utf8()..], quote, following) {
                    Some((value, used)) => {
                        next += used;
                        vec![value]
                    }
                    // An unterminated quote: skip just this line, so one broken entry does not
                    // swallow the secrets after it.
                    None => continue,
                }
            }
            _ => unquoted(raw),
        };
        for candidate in candidates {
            if !is_weak(&candidate) && !found.contains(&candidate) {
                found.push(candidate);
            }
        }
    }
    found
}

/// The text after `=` of a `[export ]KEY=value` line, or `None` for blank lines, comments and
/// lines that are not assignments.
fn assignment_value(line: &str) -> Option<&str> {
    let line = line.trim_start();
    if line.starts_with('#') {
        return None;
    }
    // `export KEY=v`, but a key named `export` (`export=v`) is still a key.
    let line = match line.strip_prefix("export") {
        Some(rest) if rest.starts_with([' ', '\t']) => rest.trim_start(),
        _ => line,
    };
    let (key, value) = line.split_once('=')?;
    let key = key.trim_end();
    let valid_key = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    valid_key.then_some(value)
}

/// A quoted value that starts in `first` (just after the opening `quote`) and may go on over
/// `following` lines: the value and how many of `following` it used, or `None` if it never
/// closes. Only double quotes have escapes; an unknown escape is kept as written.
fn quoted(first: &str, quote: char, following: &[&str]) -> Option<(String, usize)> {
    let mut value = String::new();
    let mut text = first;
    let mut used = 0;
    loop {
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == quote {
                // Whatever follows the closing quote (a comment, stray text) is not the value.
                return Some((value, used));
            }
            if c == '\\' && quote == '"' {
                match chars.next() {
                    Some('n') => value.push('\n'),
                    Some('r') => value.push('\r'),
                    Some('t') => value.push('\t'),
                    Some(escaped @ ('"' | '\\')) => value.push(escaped),
                    Some(other) => {
                        value.push('\\');
                        value.push(other);
                    }
                    None => value.push('\\'),
                }
                continue;
            }
            value.push(c);
        }
        text = following.get(used)?;
        used += 1;
        value.push('\n');
    }
}

/// The readings of an unquoted value (see [`secret_values`]): up to a `#` that follows
/// whitespace, and up to any `#`.
fn unquoted(raw: &str) -> Vec<String> {
    let comment = raw
        .char_indices()
        .zip(raw.chars().skip(1))
        .find(|((_, c), next)| c.is_whitespace() && *next == '#')
        .map_or(raw.len(), |((at, _), _)| at);
    let value = raw[..comment].trim();
    let mut readings = vec![value.to_owned()];
    if let Some((before, _)) = value.split_once('#') {
        readings.push(before.trim_end().to_owned());
    }
    readings
}

/// Whether `value` is too weak to be a secret (see [`secret_values`]).
fn is_weak(value: &str) -> bool {
    let value = value.trim();
    value.chars().count() < MIN_SECRET_CHARS
        || COMMON_WORDS
            .iter()
            .any(|word| value.eq_ignore_ascii_case(word))
        || (value.len() < MIN_SECRET_DIGITS && value.bytes().all(|b| b.is_ascii_digit()))
}

/// Replaces every occurrence of any secret with `[redacted]`. Longest secrets first where they
/// overlap. Cheap when there are no secrets (returns `Cow::Borrowed`).
///
/// Occurrences that overlap become one marker covering all of them, so the longest secret wins
/// and no fragment of a shorter one that overlaps it is left either; adjacent ones stay two
/// markers. Besides each secret's own text, these forms of it are redacted too (best effort: a
/// command can always encode a value some other way, or print it a piece at a time):
/// - its base64 (standard alphabet) with and without padding, and the part of its base64 that is
///   the same wherever it sits in a longer encoded text, for each of the three alignments, so
///   `base64 .env` or `echo $KEY | base64` is caught too;
/// - its JSON string escaping, where that differs (a value with `"`, `\` or control characters);
/// - each line of a multi-line value (a PEM key printed with other line endings or indented).
///
/// Derived forms that would be weak values are skipped. The output is not searched again, so a
/// secret that shares text with the marker (contains a bracket, or is part of the word
/// `redacted`) can be formed by a marker and the text next to it.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// `None` when there is nothing to redact; shared, so streams are cheap to start.
    patterns: Option<Arc<Patterns>>,
}

/// The strings a [`Redactor`] replaces and how it finds them.
#[derive(Debug)]
struct Patterns {
    /// Secrets and their derived forms: non-empty and deduplicated.
    list: Vec<String>,
    /// Leftmost-longest search over `list` in one pass whatever its size. `None` only if the
    /// automaton could not be built (past the crate's size limits, far beyond any dotenv file):
    /// the plain scan then redacts the same, just slower.
    automaton: Option<AhoCorasick>,
    /// The longest entry of `list`, in bytes: how much a stream must hold back.
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
            list.extend(derived_forms(&secret).into_iter().filter(|f| !is_weak(f)));
            list.push(secret);
        }
        list.sort_unstable();
        list.dedup();
        let Some(longest) = list.iter().map(String::len).max() else {
            return Self::default();
        };
        let automaton = if automaton {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&list)
                .ok()
        } else {
            None
        };
        Self {
            patterns: Some(Arc::new(Patterns {
                list,
                automaton,
                longest,
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
        let Some(patterns) = &self.patterns else {
            return Cow::Borrowed(text);
        };
        let Some(first) = patterns.find(text.as_bytes(), 0) else {
            return Cow::Borrowed(text);
        };
        let mut out = String::with_capacity(text.len());
        patterns.redact_into(text, text.len(), 0, Some(first), &mut out);
        Cow::Owned(out)
    }

    /// A redactor for output that arrives in chunks (a command's stdout): a secret split across
    /// two chunks must still be caught.
    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor {
            patterns: self.patterns.clone(),
            pending: String::new(),
            run_end: 0,
        }
    }
}

/// Holds back at most (longest secret − 1) bytes between chunks, on a char boundary, and
/// releases them when it is sure they cannot start a secret.
///
/// "Longest secret" counts the derived forms (base64 is a third longer than the value). What it
/// releases is exactly what [`Redactor::redact`] would make of the whole output, however the
/// output is cut into chunks.
#[derive(Debug, Clone)]
pub struct StreamRedactor {
    patterns: Option<Arc<Patterns>>,
    /// Output not yet released: it may still be the start of a secret.
    pending: String,
    /// How many bytes at the start of `pending` are inside a redacted stretch whose marker is
    /// already released (a secret that began before the last cut): they are swallowed, and a
    /// secret overlapping them extends that stretch instead of adding a marker.
    run_end: usize,
}

impl StreamRedactor {
    /// Takes the next chunk; returns the redacted text safe to show now.
    pub fn push(&mut self, chunk: &str) -> String {
        let Some(patterns) = &self.patterns else {
            return chunk.to_owned();
        };
        self.pending.push_str(chunk);
        // A secret starting before `limit` ends within `pending`, so everything before it is
        // decided. Rounding up to a char boundary is safe: no secret starts inside a char.
        let mut limit = self
            .pending
            .len()
            .saturating_sub(patterns.longest.saturating_sub(1));
        while !self.pending.is_char_boundary(limit) {
            limit += 1;
        }
        let mut out = String::with_capacity(limit);
        let first = patterns.find(self.pending.as_bytes(), 0);
        let covered = patterns.redact_into(&self.pending, limit, self.run_end, first, &mut out);
        self.run_end = covered.saturating_sub(limit);
        self.pending.drain(..limit);
        out
    }

    /// Ends the output: returns the rest, redacted. The stream can then be used again.
    pub fn finish(&mut self) -> String {
        let text = std::mem::take(&mut self.pending);
        let run_end = std::mem::take(&mut self.run_end);
        let Some(patterns) = &self.patterns else {
            return text;
        };
        let mut out = String::with_capacity(text.len());
        let first = patterns.find(text.as_bytes(), 0);
        patterns.redact_into(&text, text.len(), run_end, first, &mut out);
        out
    }
}

impl Patterns {
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
    /// already out, and every occurrence starting before `limit` lies wholly in `text`. Returns
    /// where the last redacted stretch ends (may be past `limit`).
    ///
    /// Every start of an occurrence is visited, not just the leftmost-longest ones, so that
    /// overlapping occurrences merge into one stretch; leftmost-longest search makes that one
    /// search per occurrence.
    fn redact_into(
        &self,
        text: &str,
        limit: usize,
        mut covered: usize,
        first: Option<(usize, usize)>,
        out: &mut String,
    ) -> usize {
        let mut plain_from = covered;
        let mut next = first;
        while let Some((start, end)) = next {
            if start >= limit {
                break;
            }
            if start < covered {
                covered = covered.max(end);
            } else {
                out.push_str(&text[plain_from..start]);
                out.push_str(MARKER);
                covered = end;
            }
            plain_from = covered;
            // Patterns are UTF-8, so none matches from inside a char: `+ 1` is enough.
            next = self.find(text.as_bytes(), start + 1);
        }
        if plain_from < limit {
            out.push_str(&text[plain_from..limit]);
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

/// The forms of `secret` a command could print without naming the file (see [`Redactor`]).
fn derived_forms(secret: &str) -> Vec<String> {
    let bytes = secret.as_bytes();
    let mut forms = vec![base64(bytes, true), base64(bytes, false)];
    forms.extend(base64_cores(bytes));
    if let Some(escaped) = serde_json::to_string(secret)
        .ok()
        .and_then(|json| Some(json.get(1..json.len().checked_sub(1)?)?.to_owned()))
    {
        forms.push(escaped);
    }
    if secret.contains('\n') {
        forms.extend(secret.lines().map(|line| line.trim().to_owned()));
    }
    forms.retain(|form| form != secret);
    forms
}

/// The standard base64 alphabet (RFC 4648 §4).
const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in standard base64, with or without `=` padding.
fn base64(bytes: &[u8], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let byte = |i: usize| u32::from(group.get(i).copied().unwrap_or(0));
        let bits = byte(0) << 16 | byte(1) << 8 | byte(2);
        // n bytes fill n + 1 sextets; the rest of the group of four is padding.
        for sextet in 0..4 {
            if sextet <= group.len() {
                let index = (bits >> (18 - 6 * sextet)) & 0x3f;
                out.push(char::from(BASE64_ALPHABET[index as usize]));
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// For each of the three offsets (mod 3) `bytes` can have inside a longer encoded text, the part
/// of its base64 that depends on `bytes` alone: leading sextets that mix in the bytes before are
/// dropped (2 at offset 1, 3 at offset 2), and so is a trailing one that mixes in the bytes after.
fn base64_cores(bytes: &[u8]) -> Vec<String> {
    (0..3usize)
        .filter_map(|offset| {
            let mut shifted = vec![0; offset];
            shifted.extend_from_slice(bytes);
            let encoded = base64(&shifted, false);
            // Full groups give four known sextets; a last group of n bytes gives n.
            let end = shifted.len() / 3 * 4 + shifted.len() % 3;
            let start = [0, 2, 3][offset];
            encoded.get(start..end).map(str::to_owned)
        })
        .filter(|core| !core.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{Arbitrary, Gen, quickcheck};

    fn owned(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    fn redactor(secrets: &[&str]) -> Redactor {
        Redactor::new(owned(secrets))
    }

    fn patterns(redactor: &Redactor) -> Vec<String> {
        redactor
            .patterns
            .as_ref()
            .map(|p| p.list.clone())
            .unwrap_or_default()
    }

    /// The stream's output for `chunks`, pushed in order and then finished.
    fn streamed(redactor: &Redactor, chunks: &[&str]) -> String {
        let mut stream = redactor.stream();
        let mut out: String = chunks.iter().map(|chunk| stream.push(chunk)).collect();
        out.push_str(&stream.finish());
        out
    }

    // secret_values

    #[test]
    fn plain_and_exported_values() {
        let env =
            "API_KEY=sk-live-123456\nexport DB_PASSWORD=hunter22\nexport\tTOKEN=tab-exported\n";
        assert_eq!(
            secret_values(env),
            owned(&["sk-live-123456", "hunter22", "tab-exported"])
        );
    }

    #[test]
    fn a_key_named_export() {
        assert_eq!(
            secret_values("export=not-a-keyword"),
            owned(&["not-a-keyword"])
        );
    }

    #[test]
    fn double_quoted_values_unescape() {
        let env = r#"A="quoted value"
B="line1\nline2"
C="say \"hi\" now"
D="back\\slash"
E="tab\there \q kept"
"#;
        assert_eq!(
            secret_values(env),
            owned(&[
                "quoted value",
                "line1\nline2",
                "say \"hi\" now",
                "back\\slash",
                "tab\there \\q kept",
            ])
        );
    }

    #[test]
    fn single_and_backtick_quoted_values_are_literal() {
        let env = "A='lit\\n $HOME \"x\"'\nB=`back tick`\n";
        assert_eq!(
            secret_values(env),
            owned(&["lit\\n $HOME \"x\"", "back tick"])
        );
    }

    #[test]
    fn comments_after_values() {
        let env =
            "A=value123 # a comment\nB=\"quoted # kept\" # comment\nC='single#' #c\nD=pass#word\n";
        // `pass#word`: both dialects' readings; `pass` is too short to be kept.
        assert_eq!(
            secret_values(env),
            owned(&["value123", "quoted # kept", "single#", "pass#word"])
        );
        assert_eq!(
            secret_values("E=longpass#tail"),
            owned(&["longpass#tail", "longpass"])
        );
        assert_eq!(secret_values("F= # only a comment"), Vec::<String>::new());
    }

    #[test]
    fn multi_line_quoted_values() {
        let env = "KEY=\"-----BEGIN KEY-----\nMIIEabc\n-----END KEY-----\"\nNEXT=after-it\n";
        assert_eq!(
            secret_values(env),
            owned(&[
                "-----BEGIN KEY-----\nMIIEabc\n-----END KEY-----",
                "after-it"
            ])
        );
        assert_eq!(
            secret_values("S='first line\nsecond line'"),
            owned(&["first line\nsecond line"])
        );
    }

    #[test]
    fn blank_lines_and_comments() {
        let env = "\n# COMMENTED=secret-value\n   # indented=comment-value\n\nREAL=real-value\n\n";
        assert_eq!(secret_values(env), owned(&["real-value"]));
    }

    #[test]
    fn weak_values_are_skipped() {
        let env = "\
EMPTY=
QUOTED_EMPTY=\"\"
SHORT=abcde
SPACES=\"        \"
FLAG=TRUE
MODE=Production
ENV=development
HOST=localhost
IP=127.0.0.1
NONE=None
PORT=3000
LONG_PORT=8080808
PIN=12345678
SIX=abcdef
";
        assert_eq!(secret_values(env), owned(&["12345678", "abcdef"]));
    }

    #[test]
    fn crlf_line_endings() {
        let env = "A=crlf-value\r\nexport B=\"quoted crlf\"\r\nC=\"multi\r\nline\"\r\n# note\r\nD=last-value\r";
        assert_eq!(
            secret_values(env),
            owned(&["crlf-value", "quoted crlf", "multi\nline", "last-value"])
        );
    }

    #[test]
    fn garbage_lines_are_skipped() {
        let env = "\
this is not a line of a dotenv file
=no-key-here
bad key=with-space
ключ=non-ascii-key
UNCLOSED=\"never closed
GOOD=still-found
ALSO_UNCLOSED='open
";
        assert_eq!(secret_values(env), owned(&["still-found"]));
    }

    #[test]
    fn values_containing_equals_and_spaces_around_it() {
        let env = "A=abc=def==\nB = spaced-value\nC=postgres://u:p@h/db?x=1\n";
        assert_eq!(
            secret_values(env),
            owned(&["abc=def==", "spaced-value", "postgres://u:p@h/db?x=1"])
        );
    }

    #[test]
    fn values_are_deduplicated_in_file_order() {
        let env = "A=same-secret\nB=other-secret\nC=\"same-secret\"\n";
        assert_eq!(secret_values(env), owned(&["same-secret", "other-secret"]));
    }

    // Redactor

    #[test]
    fn several_secrets() {
        let r = redactor(&["sk-live-123456", "hunter22"]);
        assert_eq!(
            r.redact("key sk-live-123456 and password hunter22."),
            "key [redacted] and password [redacted]."
        );
    }

    #[test]
    fn overlapping_secrets_become_one_marker() {
        for secrets in [["abcdef", "abcdefgh"], ["abcdefgh", "abcdef"]] {
            let r = redactor(&secrets);
            assert_eq!(
                r.redact("x abcdefgh y abcdef z"),
                "x [redacted] y [redacted] z"
            );
        }
        // Partly overlapping: neither leaves a fragment of the other.
        let r = redactor(&["xxabcd12", "abcd1234"]);
        assert_eq!(r.redact("<xxabcd1234>"), "<[redacted]>");
        // Contained in the middle.
        let r = redactor(&["0secret0", "long-0secret0-long"]);
        assert_eq!(r.redact("a long-0secret0-long b"), "a [redacted] b");
    }

    #[test]
    fn secrets_at_the_start_and_end() {
        let r = redactor(&["secret1"]);
        assert_eq!(r.redact("secret1"), "[redacted]");
        assert_eq!(
            r.redact("secret1 middle secret1"),
            "[redacted] middle [redacted]"
        );
    }

    #[test]
    fn repeated_secrets() {
        let r = redactor(&["secret1"]);
        assert_eq!(
            r.redact("secret1secret1 secret1"),
            "[redacted][redacted] [redacted]"
        );
        // Self-overlapping occurrences merge.
        let r = redactor(&["aaaaaa"]);
        assert_eq!(r.redact("baaaaaaaab"), "b[redacted]b");
    }

    #[test]
    fn unicode_around_and_inside_secrets() {
        let r = redactor(&["sécret✓"]);
        assert_eq!(
            r.redact("日本sécret✓語 🎉sécret✓"),
            "日本[redacted]語 🎉[redacted]"
        );
    }

    #[test]
    fn nothing_to_redact_borrows() {
        let empty = Redactor::new(Vec::new());
        assert!(empty.is_empty());
        assert!(matches!(
            empty.redact("any text"),
            Cow::Borrowed("any text")
        ));
        assert!(Redactor::default().is_empty());
        // Empty strings are not secrets: they would match everywhere.
        assert!(redactor(&[""]).is_empty());
        let r = redactor(&["hunter22"]);
        assert!(!r.is_empty());
        assert!(matches!(r.redact("no secret here"), Cow::Borrowed(_)));
    }

    #[test]
    fn duplicates_are_dropped() {
        let once = patterns(&redactor(&["hunter22"]));
        assert_eq!(patterns(&redactor(&["hunter22", "hunter22"])), once);
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let vectors = [
            ("", "", ""),
            ("f", "Zg==", "Zg"),
            ("fo", "Zm8=", "Zm8"),
            ("foo", "Zm9v", "Zm9v"),
            ("foob", "Zm9vYg==", "Zm9vYg"),
            ("fooba", "Zm9vYmE=", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
        ];
        for (plain, padded, unpadded) in vectors {
            assert_eq!(base64(plain.as_bytes(), true), padded);
            assert_eq!(base64(plain.as_bytes(), false), unpadded);
        }
    }

    #[test]
    fn base64_forms_are_redacted() {
        let r = redactor(&["hunter22"]);
        // base64("hunter22") = "aHVudGVyMjI=".
        assert_eq!(r.redact("aHVudGVyMjI="), "[redacted]");
        assert_eq!(r.redact("x aHVudGVyMjI y"), "x [redacted] y");
        // `echo hunter22 | base64`: the trailing newline changes the last sextet.
        assert_eq!(base64(b"hunter22\n", true), "aHVudGVyMjIK");
        assert!(r.redact("aHVudGVyMjIK").contains(MARKER));
    }

    #[test]
    fn base64_of_a_whole_file_is_redacted_at_every_offset() {
        let r = redactor(&["s3cr3t-value"]);
        for prefix in ["K=", "KE=", "KEY="] {
            let encoded = base64(format!("{prefix}s3cr3t-value\nX=1\n").as_bytes(), true);
            let out = r.redact(&encoded);
            assert!(out.contains(MARKER), "{prefix}: {out}");
        }
    }

    #[test]
    fn json_escaped_and_per_line_forms() {
        let r = redactor(&["pa\"ss\\word"]);
        assert_eq!(r.redact(r#"{"p":"pa\"ss\\word"}"#), r#"{"p":"[redacted]"}"#);
        let key = "-----BEGIN KEY-----\nMIIEabcdefgh\n-----END KEY-----";
        let r = redactor(&[key]);
        let crlf = key.replace('\n', "\r\n");
        assert_eq!(r.redact(&crlf), "[redacted]\r\n[redacted]\r\n[redacted]");
    }

    #[test]
    fn a_stream_catches_a_secret_split_across_chunks() {
        let r = redactor(&["hunter22"]);
        let mut stream = r.stream();
        // The longest form is the padded base64 "aHVudGVyMjI=", so 11 bytes are held back.
        assert_eq!(stream.push("password: hun"), "pa");
        assert_eq!(stream.push("ter22 and more text"), "ssword: [redacted] an");
        assert_eq!(stream.finish(), "d more text");
        // Char by char, through multi-byte chars.
        let text = "é hunter22 ✓ aHVudGVyMjI= 🎉";
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let chunks: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(streamed(&r, &chunks), r.redact(text));
    }

    #[test]
    fn a_stream_swallows_a_stretch_that_continues_past_a_cut() {
        let r = redactor(&["aaaaaa"]);
        assert_eq!(streamed(&r, &["baaaaaa", "aaa", "aab"]), "b[redacted]b");
    }

    #[test]
    fn a_stream_can_be_reused_and_passes_through_when_empty() {
        let r = redactor(&["hunter22"]);
        let mut stream = r.stream();
        stream.push("hunter2");
        assert_eq!(stream.finish(), "hunter2");
        assert_eq!(stream.push("2"), "");
        assert_eq!(stream.finish(), "2");
        let mut empty = Redactor::default().stream();
        assert_eq!(empty.push("all of it"), "all of it");
        assert_eq!(empty.finish(), "");
    }

    // Properties

    /// Few, related characters, so secrets overlap each other and their fragments often; no
    /// brackets and no `t`, so no secret can overlap a marker (see `Redactor`).
    const SECRET_CHARS: &[char] = &['a', 'b', 'a', 'b', 'é', '"', '\\', '\n', '€', 'Z'];
    const FILLER_CHARS: &[char] = &['a', 'b', ' ', '[', ']', 't', '\n', '𝄞', 'é', '='];

    /// Secrets of at least six characters and a text that embeds them, their derived forms and
    /// pieces of both at random places; `cuts` split the text into chunks.
    #[derive(Clone, Debug)]
    struct Case {
        secrets: Vec<String>,
        text: String,
        cuts: Vec<usize>,
    }

    fn pick<T: Copy>(g: &mut Gen, items: &[T]) -> T {
        items[usize::arbitrary(g) % items.len()]
    }

    fn char_prefix(s: &str, chars: usize) -> &str {
        s.char_indices().nth(chars).map_or(s, |(at, _)| &s[..at])
    }

    impl Arbitrary for Case {
        fn arbitrary(g: &mut Gen) -> Self {
            let secrets: Vec<String> = (0..1 + usize::arbitrary(g) % 4)
                .map(|_| {
                    let len = MIN_SECRET_CHARS + usize::arbitrary(g) % 8;
                    (0..len).map(|_| pick(g, SECRET_CHARS)).collect()
                })
                .collect();
            let forms = patterns(&Redactor::new(secrets.clone()));
            let mut text = String::new();
            for _ in 0..usize::arbitrary(g) % 16 {
                let form = &forms[usize::arbitrary(g) % forms.len()];
                let chars = form.chars().count();
                match u8::arbitrary(g) % 6 {
                    0 | 1 => text.push_str(form),
                    2 => text.push_str(char_prefix(form, usize::arbitrary(g) % chars)),
                    3 => {
                        let skip = usize::arbitrary(g) % chars;
                        text.extend(form.chars().skip(skip));
                    }
                    _ => {
                        for _ in 0..1 + usize::arbitrary(g) % 3 {
                            text.push(pick(g, FILLER_CHARS));
                        }
                    }
                }
            }
            Self {
                secrets,
                text,
                cuts: Vec::arbitrary(g),
            }
        }

        fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
            // Shorter texts (whole chars) and fewer cuts, same secrets.
            let this = self.clone();
            let chars = self.text.chars().count();
            let shorter = (0..chars).rev().map(move |keep| Self {
                text: char_prefix(&this.text, keep).to_owned(),
                ..this.clone()
            });
            let this = self.clone();
            let fewer_cuts = self.cuts.shrink().map(move |cuts| Self {
                cuts,
                ..this.clone()
            });
            Box::new(shorter.chain(fewer_cuts))
        }
    }

    /// `text` cut at `cuts` (mod its length, moved down to char boundaries).
    fn chunks<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
        let mut bounds: Vec<usize> = cuts
            .iter()
            .map(|cut| {
                let mut at = cut % (text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                at
            })
            .collect();
        bounds.extend([0, text.len()]);
        bounds.sort_unstable();
        bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect()
    }

    /// Maps bytes onto a dotenv-dense alphabet, so `secret_values` meets every branch.
    fn dotenv_like(bytes: &[u8]) -> String {
        const TOKENS: &[&str] = &[
            "KEY", "=", "\"", "'", "`", "\\", "\n", "\r\n", "\r", "#", " ", "export ", "secret-",
            "é", "n",
        ];
        bytes
            .iter()
            .map(|b| TOKENS[usize::from(*b) % TOKENS.len()])
            .collect()
    }

    quickcheck! {
        fn no_secret_or_derived_form_survives(case: Case) -> bool {
            let r = Redactor::new(case.secrets.clone());
            let out = r.redact(&case.text);
            patterns(&r).iter().all(|form| !out.contains(form.as_str()))
                && case.secrets.iter().all(|secret| !out.contains(secret.as_str()))
        }

        fn any_chunking_streams_the_same(case: Case) -> bool {
            let r = Redactor::new(case.secrets);
            streamed(&r, &chunks(&case.text, &case.cuts)) == r.redact(&case.text)
        }

        fn the_automaton_agrees_with_the_plain_scan(case: Case) -> bool {
            let fast = Redactor::new(case.secrets.clone());
            let plain = Redactor::build(case.secrets, false);
            fast.redact(&case.text) == plain.redact(&case.text)
                && streamed(&plain, &chunks(&case.text, &case.cuts)) == plain.redact(&case.text)
        }

        fn base64_of_text_around_a_secret_is_caught(case: Case, before: Vec<u8>, after: Vec<u8>) -> bool {
            let r = Redactor::new(case.secrets.clone());
            let mut bytes = before;
            bytes.extend_from_slice(case.secrets[0].as_bytes());
            bytes.extend(after);
            r.redact(&base64(&bytes, true)).contains(MARKER)
        }

        fn arbitrary_strings_never_panic(secrets: Vec<String>, text: String, cuts: Vec<usize>) -> bool {
            let r = Redactor::new(secrets);
            streamed(&r, &chunks(&text, &cuts)) == r.redact(&text)
        }

        fn arbitrary_dotenv_text_never_panics(bytes: Vec<u8>, text: String) -> bool {
            let values = secret_values(&dotenv_like(&bytes));
            secret_values(&text).iter().chain(&values).all(|value| !is_weak(value))
        }
    }
}
