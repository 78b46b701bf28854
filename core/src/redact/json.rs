//! Redaction of encoded JSON (a frame, a request body) as bytes, where only string values
//! change.
//!
//! The patterns are the secrets' forms escaped as the encoders escape them (serde_json's
//! escapes: `"`, `\`, control characters), so a value is found in the bytes wherever it sits in
//! a decoded string. An occurrence counts only if it starts at a character of a string value:
//! not in a key (the protocol's field names), not between tokens (a number), and not inside an
//! escape (`\n` followed by `secret` is no occurrence of `nsecret`). An escaped pattern has no
//! bare `"` and is made of whole escapes, so one that starts at a character of a string ends
//! inside that same string: replacing it with the marker keeps the JSON valid.

use std::borrow::Cow;

use memchr::{memchr, memchr2};

use super::Redactor;

impl Redactor {
    /// `json` (one or more JSON texts as serde_json writes them) with every occurrence of a
    /// secret inside a string value replaced by `[redacted]`; borrowed when there is none.
    pub fn redact_json<'a>(&self, json: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(patterns) = &self.patterns else {
            return Cow::Borrowed(json);
        };
        let patterns = patterns.json();
        let Some(first) = patterns.find(json, 0) else {
            return Cow::Borrowed(json);
        };
        let mut cursor = Cursor::new(json);
        let mut out = Vec::with_capacity(json.len());
        patterns.redact_into(json, json.len(), 0, Some(first), &mut out, &mut |at| {
            cursor.in_string_value(at)
        });
        Cow::Owned(out)
    }

    /// Redacts `out[from..]` in place, as [`Redactor::redact_json`] does; `from` must not be
    /// inside a string.
    pub(crate) fn redact_json_tail(&self, out: &mut Vec<u8>, from: usize) {
        let Some(tail) = out.get(from..) else {
            return;
        };
        if let Cow::Owned(redacted) = self.redact_json(tail) {
            out.truncate(from);
            out.extend_from_slice(&redacted);
        }
    }
}

/// Walks JSON bytes token by token, only as far as it is asked.
struct Cursor<'a> {
    json: &'a [u8],
    /// Where the next token starts.
    at: usize,
    in_string: bool,
    /// The string `at` is in, by the offset of its first byte, and whether it is a key, once
    /// that was looked up.
    key: Option<(usize, bool)>,
    string_start: usize,
}

impl<'a> Cursor<'a> {
    fn new(json: &'a [u8]) -> Self {
        Self {
            json,
            at: 0,
            in_string: false,
            key: None,
            string_start: 0,
        }
    }

    /// Whether a character of a string value starts at `offset`; offsets asked must not
    /// decrease.
    fn in_string_value(&mut self, offset: usize) -> bool {
        while self.at < offset {
            let rest = &self.json[self.at..offset];
            if self.in_string {
                match memchr2(b'"', b'\\', rest) {
                    None => self.at = offset,
                    Some(i) if rest[i] == b'"' => {
                        self.at += i + 1;
                        self.in_string = false;
                    }
                    Some(i) => {
                        // `\uXXXX` is six bytes, every other escape two.
                        let long = self.json.get(self.at + i + 1) == Some(&b'u');
                        self.at += i + if long { 6 } else { 2 };
                    }
                }
            } else {
                match memchr(b'"', rest) {
                    None => self.at = offset,
                    Some(i) => {
                        self.at += i + 1;
                        self.in_string = true;
                        self.string_start = self.at;
                    }
                }
            }
        }
        self.at == offset && self.in_string && !self.is_key()
    }

    /// Whether the string the cursor is in is an object key: `:` follows its closing quote.
    fn is_key(&mut self) -> bool {
        if let Some((start, key)) = self.key
            && start == self.string_start
        {
            return key;
        }
        let mut at = self.at;
        let key = loop {
            match memchr2(b'"', b'\\', &self.json[at..]) {
                // A string cut off at the end (a part of a frame): treated as a value.
                None => break false,
                Some(i) if self.json[at + i] == b'"' => {
                    break self.json.get(at + i + 1) == Some(&b':');
                }
                Some(i) => at += i + 2,
            }
        };
        self.key = Some((self.string_start, key));
        key
    }
}

#[cfg(test)]
mod tests {
    use super::super::MARKER;
    use super::*;
    use quickcheck::quickcheck;
    use serde_json::{Value, json};

    fn redactor(secrets: &[&str]) -> Redactor {
        Redactor::new(secrets.iter().map(|s| (*s).to_owned()))
    }

    fn redacted(r: &Redactor, value: &Value) -> Value {
        let bytes = serde_json::to_vec(value).unwrap();
        serde_json::from_slice(&r.redact_json(&bytes)).expect("still JSON")
    }

    #[test]
    fn values_are_redacted_keys_and_numbers_are_not() {
        let r = redactor(&["content", "12345678", "s3cret-value"]);
        let frame =
            json!({"kind": "x", "content": {"n": 12345678, "text": "a s3cret-value b content"}});
        assert_eq!(
            redacted(&r, &frame),
            json!({"kind": "x", "content": {"n": 12345678, "text": "a [redacted] b [redacted]"}})
        );
    }

    #[test]
    fn escaped_values_are_found_and_escapes_are_not_split() {
        let r = redactor(&["pa\"ss\nword", "nsecret-tail"]);
        let value = json!({"a": "x pa\"ss\nword y", "b": "line\nsecret-tail"});
        assert_eq!(
            redacted(&r, &value),
            json!({"a": "x [redacted] y", "b": "line\nsecret-tail"})
        );
    }

    #[test]
    fn json_text_inside_a_string_is_redacted_too() {
        let r = redactor(&["quote\"d-secret"]);
        let inner = serde_json::to_string(&json!({"k": "quote\"d-secret"})).unwrap();
        let value = json!({"output": inner});
        let out = redacted(&r, &value);
        assert!(out["output"].as_str().unwrap().contains(MARKER), "{out}");
    }

    #[test]
    fn nothing_found_borrows() {
        let r = redactor(&["s3cret-value"]);
        assert!(matches!(r.redact_json(b"{\"a\":\"b\"}"), Cow::Borrowed(_)));
        assert!(matches!(
            Redactor::default().redact_json(b"{\"a\":\"s3cret-value\"}"),
            Cow::Borrowed(_)
        ));
    }

    /// Values and keys built from few characters, so secrets, escapes and syntax overlap.
    fn dense(bytes: &[u8]) -> String {
        const TOKENS: &[&str] = &["a", "b", "\"", "\\", "\n", ":", "1", "é", "u0061", "{"];
        bytes
            .iter()
            .take(24)
            .map(|b| TOKENS[usize::from(*b) % TOKENS.len()])
            .collect()
    }

    quickcheck! {
        fn redacted_json_is_json_with_the_same_keys_and_no_secret(
            secrets: Vec<Vec<u8>>, entries: Vec<(Vec<u8>, Vec<u8>)>
        ) -> bool {
            let secrets: Vec<String> = secrets.iter().take(4).map(|s| dense(s)).collect();
            let r = Redactor::new(secrets.clone());
            let object: serde_json::Map<String, Value> = entries
                .iter()
                .take(8)
                .map(|(k, v)| (dense(k), Value::String(dense(v))))
                .collect();
            let value = Value::Object(object.clone());
            let out = redacted(&r, &value);
            let Value::Object(out) = out else { return false };
            out.keys().eq(object.keys())
                && out.iter().zip(object.values()).all(|((_, after), before)| {
                    let (after, before) = (after.as_str().unwrap(), before.as_str().unwrap());
                    *after == *r.redact(before)
                })
        }
    }
}
