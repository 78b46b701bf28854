//! Which values are too weak to be secrets, and the other forms a secret can be printed in.

/// Values shorter than this many characters are too weak to be secrets: redacting them would
/// mangle ordinary output far more often than it would hide anything.
pub(super) const MIN_SECRET_CHARS: usize = 6;

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

/// Whether `value` is too weak to be a secret: shorter than 6 characters once trimmed, a common
/// word, or only digits shorter than 8.
pub fn is_weak(value: &str) -> bool {
    let value = value.trim();
    value.chars().count() < MIN_SECRET_CHARS
        || COMMON_WORDS
            .iter()
            .any(|word| value.eq_ignore_ascii_case(word))
        || (value.len() < MIN_SECRET_DIGITS && value.bytes().all(|b| b.is_ascii_digit()))
}

/// The longest text searched for whole: a longer value (or line of one) is searched for in
/// pieces of this many bytes, so that a large value (a bundle of certificates) costs neither
/// a huge automaton nor a long hold-back in streams.
pub(super) const MAX_PATTERN_BYTES: usize = 1024;

/// What to search for to redact `secret` (see [`super::Redactor`]): the value, each line of a
/// multi-line value, each cut into pieces of at most [`MAX_PATTERN_BYTES`], and the forms a
/// command could print each piece in without naming the file: its whitespace-trimmed text, its
/// base64, and its JSON escaping (once and twice). Weak strings are left out, except the value
/// itself: its strength is its reader's to judge.
pub(super) fn search_strings(secret: &str) -> Vec<String> {
    let lines = secret
        .contains('\n')
        .then(|| secret.lines().map(str::trim))
        .into_iter()
        .flatten();
    let mut found = Vec::new();
    for unit in std::iter::once(secret).chain(lines) {
        for piece in pieces(unit) {
            found.extend(printed_forms(piece));
            found.push(piece.to_owned());
        }
    }
    found.retain(|form| !form.is_empty() && !is_weak(form));
    if secret.len() <= MAX_PATTERN_BYTES {
        found.push(secret.to_owned());
    }
    found
}

/// `text` cut into pieces of at most [`MAX_PATTERN_BYTES`] (on char boundaries).
fn pieces(mut text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    while text.len() > MAX_PATTERN_BYTES {
        let mut end = MAX_PATTERN_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, rest) = text.split_at(end);
        pieces.push(piece);
        text = rest;
    }
    pieces.push(text);
    pieces
}

/// The forms of `piece` other than itself a command could print.
fn printed_forms(piece: &str) -> Vec<String> {
    let bytes = piece.as_bytes();
    let escaped = json_escaped(piece);
    let mut forms = vec![
        piece.trim().to_owned(),
        base64(bytes, true),
        base64(bytes, false),
        json_escaped(&escaped),
        escaped,
    ];
    forms.extend(base64_cores(bytes));
    forms.retain(|form| form != piece);
    forms
}

/// `text` as the inside of a JSON string, escaped as serde_json (and the frame encoder)
/// escape it: `"`, `\` and control characters, nothing else.
pub(super) fn json_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// The standard base64 alphabet (RFC 4648 §4).
const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in standard base64, with or without `=` padding.
pub(super) fn base64(bytes: &[u8], pad: bool) -> String {
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
    use quickcheck::quickcheck;

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
    fn a_padded_value_is_also_redacted_trimmed() {
        assert!(search_strings("  inner spaced secret  ").contains(&"inner spaced secret".into()));
    }

    #[test]
    fn a_long_value_is_searched_for_in_pieces() {
        let value = "é".repeat(MAX_PATTERN_BYTES) + "-tail-piece";
        let strings = search_strings(&value);
        assert!(
            strings.iter().all(|s| s.len() <= 4 * MAX_PATTERN_BYTES),
            "too long"
        );
        assert!(strings.contains(&"é".repeat(MAX_PATTERN_BYTES / 2)));
        assert!(strings.contains(&"-tail-piece".to_owned()));
    }

    quickcheck! {
        fn json_escaping_is_serde_jsons(text: String) -> bool {
            let json = serde_json::to_string(&text).unwrap();
            json_escaped(&text) == json[1..json.len() - 1]
        }
    }
}
