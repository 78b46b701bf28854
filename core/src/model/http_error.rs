//! What both providers' `error_message` share: the words for a failed HTTP response whose body
//! luxe could not read as the provider's error object.

/// A body longer than this is cut: an HTML error page from a proxy says nothing useful after it.
const MAX_CHARS: usize = 500;

/// `kind: message`, or just the message when the provider gave no kind.
pub(crate) fn describe(kind: Option<&str>, message: &str) -> String {
    match kind.filter(|k| !k.is_empty()) {
        Some(kind) => format!("{kind}: {message}"),
        None => message.to_owned(),
    }
}

/// The body as text (lossy, trimmed, at most 500 characters), or `HTTP {status}` when empty.
pub(crate) fn fallback(status: u16, body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return format!("HTTP {status}");
    }
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => text[..cut].to_owned(),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_omits_a_missing_or_empty_kind() {
        assert_eq!(describe(Some("x"), "m"), "x: m");
        assert_eq!(describe(Some(""), "m"), "m");
        assert_eq!(describe(None, "m"), "m");
    }

    #[test]
    fn fallback_trims_cuts_and_names_the_status() {
        assert_eq!(fallback(502, b"  Bad Gateway\n"), "Bad Gateway");
        assert_eq!(fallback(503, b" \n "), "HTTP 503");
        assert_eq!(fallback(500, b""), "HTTP 500");
        assert_eq!(fallback(500, b"a\xffb"), "a\u{fffd}b");
        let long = "é".repeat(600);
        assert_eq!(fallback(500, long.as_bytes()), "é".repeat(500));
    }
}
