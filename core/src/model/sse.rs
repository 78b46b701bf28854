//! Server-Sent Events, as both providers stream their responses (WHATWG HTML, "Server-sent
//! events", the event stream interpretation).
//!
//! The parser keeps raw bytes until a line ends, so a chunk boundary anywhere (inside a UTF-8
//! character, between the CR and LF of a CRLF) yields the same events as the whole stream.

/// One dispatched event, lent out of the parser's buffers: a long answer is 100,000 events,
/// and owning each would cost allocations the handler drops straight away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event:` field, when the event named its type (`None` means the default, `message`).
    pub event: Option<&'a str>,
    /// The `data:` lines, joined with `\n`.
    pub data: &'a str,
}

/// An incremental Server-Sent Events parser; feed it bytes as they arrive.
///
/// `id:` and `retry:` are ignored: luxe never reconnects a model stream, it retries the request.
#[derive(Debug, Clone, Default)]
pub struct SseParser {
    /// The current line, not yet terminated.
    line: Vec<u8>,
    /// The last byte seen was a CR, so an LF that starts the next chunk belongs to it.
    after_cr: bool,
    /// At least one line has been processed (the byte-order mark is only stripped from the first).
    past_first_line: bool,
    /// The event type buffer; empty means the default.
    event: String,
    /// The data buffer: each `data:` value followed by LF, as the spec builds it.
    data: String,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds `bytes`, handing every event they complete to `on_event`, in order.
    pub fn push(&mut self, bytes: &[u8], on_event: &mut impl FnMut(SseEvent<'_>)) {
        let mut rest = bytes;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', rest) {
            let terminator = rest[end];
            if self.line.is_empty() {
                self.process_line(&rest[..end], on_event);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&rest[..end]);
                self.process_line(&line, on_event);
                // Keep the allocation for the next long line.
                line.clear();
                self.line = line;
            }
            rest = &rest[end + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
    }

    /// Ends the stream and resets the parser.
    ///
    /// The spec drops an event the stream ends inside; luxe still dispatches one whose lines all
    /// ended, because some servers close without the final blank line. An unterminated last line
    /// is dropped: it is more likely cut off than complete.
    pub fn finish(&mut self, on_event: &mut impl FnMut(SseEvent<'_>)) {
        self.dispatch(on_event);
        *self = Self::default();
    }

    fn process_line(&mut self, line: &[u8], on_event: &mut impl FnMut(SseEvent<'_>)) {
        let line = if self.past_first_line {
            line
        } else {
            self.past_first_line = true;
            line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line)
        };
        if line.is_empty() {
            self.dispatch(on_event);
            return;
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(0) => return, // a comment, e.g. a keep-alive
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                push_lossy(&mut self.data, value);
                self.data.push('\n');
            }
            b"event" => {
                self.event.clear();
                push_lossy(&mut self.event, value);
            }
            _ => {}
        }
    }

    /// Hands over the buffered event, if it has data, and empties the buffers for the next
    /// (keeping their allocations).
    fn dispatch(&mut self, on_event: &mut impl FnMut(SseEvent<'_>)) {
        if let Some(data) = self.data.strip_suffix('\n') {
            on_event(SseEvent {
                event: (!self.event.is_empty()).then_some(self.event.as_str()),
                data,
            });
        }
        self.event.clear();
        self.data.clear();
    }
}

/// Appends `bytes` as text: valid UTF-8 (the norm) is copied as it is, anything else lossily.
fn push_lossy(buffer: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => buffer.push_str(text),
        Err(_) => buffer.push_str(&String::from_utf8_lossy(bytes)),
    }
}

/// Cuts `stream` at the given points (taken modulo its length plus one), for chunking tests.
#[cfg(test)]
pub(crate) fn split_at<'a>(stream: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    bounds.push(0);
    bounds.push(stream.len());
    bounds.sort_unstable();
    bounds.windows(2).map(|w| &stream[w[0]..w[1]]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// An event as the tests keep it: (type, data), owned.
    type Owned = (Option<String>, String);

    fn collect(out: &mut Vec<Owned>) -> impl FnMut(SseEvent<'_>) + '_ {
        |event| out.push(ev(event.event, event.data))
    }

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<Owned> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk, &mut collect(&mut out));
        }
        parser.finish(&mut collect(&mut out));
        out
    }

    fn parse(stream: &str) -> Vec<Owned> {
        parse_chunks(&[stream.as_bytes()])
    }

    fn ev(event: Option<&str>, data: &str) -> Owned {
        (event.map(str::to_owned), data.to_owned())
    }

    #[test]
    fn named_events_and_default_type() {
        let out = parse("event: ping\ndata: {}\n\ndata: hello\n\n");
        assert_eq!(out, vec![ev(Some("ping"), "{}"), ev(None, "hello")]);
    }

    #[test]
    fn data_lines_are_joined_with_lf() {
        let out = parse("data: a\ndata:b\ndata:  c\n\n");
        assert_eq!(out, vec![ev(None, "a\nb\n c")]);
    }

    #[test]
    fn all_three_line_endings() {
        let out = parse("data: lf\n\ndata: crlf\r\n\r\ndata: cr\r\rdata: mixed\r\n\n");
        assert_eq!(
            out,
            vec![
                ev(None, "lf"),
                ev(None, "crlf"),
                ev(None, "cr"),
                ev(None, "mixed")
            ]
        );
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let out = parse(": keep-alive\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n");
        assert_eq!(out, vec![ev(None, "x")]);
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        let out = parse("event: ping\n\n\n\nevent: message_stop\ndata: {}\n\n");
        // The type of the dropped event does not leak into the next one.
        assert_eq!(out, vec![ev(Some("message_stop"), "{}")]);
    }

    #[test]
    fn empty_data_line_dispatches_empty_data() {
        assert_eq!(parse("data\n\ndata:\n\n"), vec![ev(None, ""), ev(None, "")]);
    }

    #[test]
    fn a_field_without_colon_has_an_empty_value() {
        assert_eq!(parse("event\ndata: x\n\n"), vec![ev(None, "x")]);
    }

    #[test]
    fn only_one_leading_space_is_stripped() {
        assert_eq!(parse("data:   x \n\n"), vec![ev(None, "  x ")]);
    }

    #[test]
    fn crlf_split_across_chunks_is_one_line_end() {
        let out = parse_chunks(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(out, vec![ev(None, "a\nb")]);
    }

    #[test]
    fn utf8_split_across_chunks() {
        let bytes = "data: héllo ✓\n\n".as_bytes();
        let out = parse_chunks(&[&bytes[..7], &bytes[7..15], &bytes[15..]]);
        assert_eq!(out, vec![ev(None, "héllo ✓")]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let out = parse_chunks(&[b"data: a\xffb\n\n"]);
        assert_eq!(out, vec![ev(None, "a\u{fffd}b")]);
    }

    #[test]
    fn a_leading_byte_order_mark_is_stripped_once() {
        let out = parse_chunks(&[b"\xef\xbb", b"\xbfdata: a\n\n\xef\xbb\xbfdata: b\n\n"]);
        // The second mark is not at the start of the stream, so its line is an unknown field.
        assert_eq!(out, vec![ev(None, "a")]);
    }

    #[test]
    fn finish_dispatches_complete_lines_but_drops_a_cut_line() {
        assert_eq!(parse("data: [DONE]\n"), vec![ev(None, "[DONE]")]);
        assert_eq!(parse("data: a\ndata: {\"cut"), vec![ev(None, "a")]);
        assert_eq!(parse("data: {\"cut"), vec![]);
    }

    #[test]
    fn finish_resets_for_a_new_stream() {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        parser.push(b"event: x\ndata: 1\r", &mut collect(&mut out));
        parser.finish(&mut collect(&mut out));
        parser.push(b"\ndata: 2\n\n", &mut collect(&mut out));
        assert_eq!(out, vec![ev(Some("x"), "1"), ev(None, "2")]);
    }

    /// Maps arbitrary bytes onto an alphabet dense in SSE syntax, so streams hit every branch.
    fn sse_like(bytes: &[u8]) -> Vec<u8> {
        const ALPHABET: &[&[u8]] = &[
            b"\n",
            b"\r",
            b"\r\n",
            b":",
            b" ",
            b"data",
            b"data: ",
            b"event: ",
            b"x",
            b"\xc3\xa9",
            b"\xe2",
            b"\xef\xbb\xbf",
            b"id:",
            b"\n\n",
        ];
        bytes
            .iter()
            .flat_map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()].iter().copied())
            .collect()
    }

    quickcheck! {
        fn any_chunking_gives_the_same_events(seed: Vec<u8>, cuts: Vec<usize>) -> bool {
            let stream = sse_like(&seed);
            parse_chunks(&split_at(&stream, &cuts)) == parse_chunks(&[&stream])
        }

        fn byte_by_byte_gives_the_same_events(seed: Vec<u8>) -> bool {
            let stream = sse_like(&seed);
            let bytes: Vec<&[u8]> = stream.chunks(1).collect();
            parse_chunks(&bytes) == parse_chunks(&[&stream])
        }

        fn arbitrary_bytes_never_panic(stream: Vec<u8>, cuts: Vec<usize>) -> bool {
            parse_chunks(&split_at(&stream, &cuts)) == parse_chunks(&[&stream])
        }
    }
}
