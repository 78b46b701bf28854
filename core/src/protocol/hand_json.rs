//! The frames the codec writes by hand, where serde's generic map machinery costs too much:
//! token deltas (one per streamed token) and `guided_review_loaded` / `guided_review_updated`
//! (a large review is hundreds of thousands of hunk lines, and serde spent more on them than
//! building the review did). The bytes are exactly serde's (field order, left-out optional
//! fields, string escapes), which tests hold over arbitrary values.
//!
//! Every struct is destructured whole, so a field added to the model does not compile here
//! until it is written.

use super::events::TokenDelta;
use crate::protocol::guided_review::{
    Chapter, FileStatus, Hunk, HunkLine, LineKind, Review, ReviewFile,
};

/// `{"kind":<kind>,"content":{"block":…,"delta":…}}` (no LF).
pub(super) fn delta(out: &mut Vec<u8>, kind: &str, delta: &TokenDelta) {
    content(out, kind);
    out.extend_from_slice(b"\"block\":");
    number(out, delta.block);
    out.extend_from_slice(b",\"delta\":");
    string(out, &delta.delta);
    out.extend_from_slice(b"}}");
}

/// A frame's start, up to its content's first field: kinds are plain snake_case, never escaped.
fn content(out: &mut Vec<u8>, kind: &str) {
    out.extend_from_slice(b"{\"kind\":\"");
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(b"\",\"content\":{");
}

/// Writes `{"kind":<kind>,"content":{["request_id":…,]"review":…}}` (no LF) into `out`, and
/// calls `part` between hunks, so a caller may take out what is written so far.
pub(super) fn review<E>(
    out: &mut Vec<u8>,
    kind: &str,
    request_id: Option<&str>,
    review: &Review,
    part: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    content(out, kind);
    if let Some(request_id) = request_id {
        out.extend_from_slice(b"\"request_id\":");
        string(out, request_id);
        out.push(b',');
    }
    let Review {
        id,
        revision_id,
        target,
        files,
        hunks,
        chapters,
    } = review;
    out.extend_from_slice(b"\"review\":{\"id\":");
    string(out, id);
    text_field(out, "revision_id", revision_id);
    out.extend_from_slice(b",\"target\":");
    // A small enum, once per frame: serde's own bytes.
    // Serializing a plain enum of strings and numbers into a Vec cannot fail.
    #[allow(clippy::expect_used)]
    serde_json::to_writer(&mut *out, target).expect("a target serializes");
    out.extend_from_slice(b",\"files\":[");
    for (n, file) in files.iter().enumerate() {
        comma(out, n);
        review_file(out, file);
    }
    out.extend_from_slice(b"],\"hunks\":[");
    for (n, hunk) in hunks.iter().enumerate() {
        part(out)?;
        comma(out, n);
        self::hunk(out, hunk);
    }
    out.extend_from_slice(b"],\"chapters\":[");
    for (n, chapter) in chapters.iter().enumerate() {
        comma(out, n);
        self::chapter(out, chapter);
    }
    out.extend_from_slice(b"]}}}");
    Ok(())
}

fn review_file(out: &mut Vec<u8>, file: &ReviewFile) {
    let ReviewFile {
        id,
        path,
        old_path,
        status,
        binary,
        withheld,
        additions,
        deletions,
        hunk_ids,
    } = file;
    out.extend_from_slice(b"{\"id\":");
    string(out, id);
    text_field(out, "path", path);
    if let Some(old_path) = old_path {
        text_field(out, "old_path", old_path);
    }
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(match status {
        FileStatus::Added => b"added".as_slice(),
        FileStatus::Modified => b"modified",
        FileStatus::Deleted => b"deleted",
        FileStatus::Renamed => b"renamed",
        FileStatus::Copied => b"copied",
        FileStatus::TypeChanged => b"type_changed",
    });
    out.extend_from_slice(b"\",\"binary\":");
    out.extend_from_slice(if *binary { b"true" } else { b"false" });
    if *withheld {
        out.extend_from_slice(b",\"withheld\":true");
    }
    number_field(out, "additions", *additions);
    number_field(out, "deletions", *deletions);
    key(out, "hunk_ids");
    strings(out, hunk_ids);
    out.push(b'}');
}

fn hunk(out: &mut Vec<u8>, hunk: &Hunk) {
    let Hunk {
        id,
        file_id,
        old_start,
        old_lines,
        new_start,
        new_lines,
        header,
        lines,
    } = hunk;
    out.extend_from_slice(b"{\"id\":");
    string(out, id);
    text_field(out, "file_id", file_id);
    number_field(out, "old_start", *old_start);
    number_field(out, "old_lines", *old_lines);
    number_field(out, "new_start", *new_start);
    number_field(out, "new_lines", *new_lines);
    text_field(out, "header", header);
    out.extend_from_slice(b",\"lines\":[");
    for (n, line) in lines.iter().enumerate() {
        comma(out, n);
        hunk_line(out, line);
    }
    out.extend_from_slice(b"]}");
}

/// Keys written whole, without the helpers: this runs once a line.
fn hunk_line(out: &mut Vec<u8>, line: HunkLine<'_>) {
    let HunkLine {
        kind,
        old_line,
        new_line,
        text,
        no_newline,
    } = line;
    out.extend_from_slice(match kind {
        LineKind::Context => b"{\"kind\":\"context\"".as_slice(),
        LineKind::Add => b"{\"kind\":\"add\"",
        LineKind::Del => b"{\"kind\":\"del\"",
    });
    if let Some(old_line) = old_line {
        out.extend_from_slice(b",\"old_line\":");
        number(out, old_line);
    }
    if let Some(new_line) = new_line {
        out.extend_from_slice(b",\"new_line\":");
        number(out, new_line);
    }
    out.extend_from_slice(b",\"text\":");
    string(out, text);
    if no_newline {
        out.extend_from_slice(b",\"no_newline\":true");
    }
    out.push(b'}');
}

fn chapter(out: &mut Vec<u8>, chapter: &Chapter) {
    let Chapter {
        id,
        title,
        summary,
        hunk_ids,
    } = chapter;
    out.extend_from_slice(b"{\"id\":");
    string(out, id);
    text_field(out, "title", title);
    text_field(out, "summary", summary);
    key(out, "hunk_ids");
    strings(out, hunk_ids);
    out.push(b'}');
}

/// `,"<name>":`.
fn key(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

fn text_field(out: &mut Vec<u8>, name: &str, text: &str) {
    key(out, name);
    string(out, text);
}

fn number_field(out: &mut Vec<u8>, name: &str, n: u32) {
    key(out, name);
    number(out, n);
}

/// A comma before every element but the first.
fn comma(out: &mut Vec<u8>, n: usize) {
    if n > 0 {
        out.push(b',');
    }
}

fn strings(out: &mut Vec<u8>, items: &[String]) {
    out.push(b'[');
    for (n, item) in items.iter().enumerate() {
        comma(out, n);
        string(out, item);
    }
    out.push(b']');
}

fn number(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Whether serde_json escapes `byte`: quotes, backslashes and control characters (not DEL,
/// and nothing beyond ASCII).
fn escaped(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Bytes looked at together: a chunk without a byte to escape is copied as it is, and the test
/// of a whole chunk compiles to a few vector instructions.
const CHUNK: usize = 16;

/// `text` as a JSON string, escaped as serde_json escapes it.
pub(crate) fn string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // `bytes[start..]` needs no escape up to the chunk looked at, and is not written yet.
    let mut start = 0;
    for (n, chunk) in bytes.chunks(CHUNK).enumerate() {
        if !chunk.iter().fold(false, |any, &b| any | escaped(b)) {
            continue;
        }
        for (at, &byte) in (n * CHUNK..).zip(chunk) {
            if escaped(byte) {
                out.extend_from_slice(&bytes[start..at]);
                escape(out, byte);
                start = at + 1;
            }
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// serde_json's escape of one byte: the short forms it has, else `\u00xx` in lowercase hex.
fn escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            let hex = [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 15)]];
            out.extend_from_slice(b"\\u00");
            out.extend_from_slice(&hex);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use quickcheck::{Arbitrary, Gen};

    use crate::protocol::codec::{encode, encode_in_parts};
    use crate::protocol::events::{Event, GuidedReviewLoaded, GuidedReviewUpdated};
    use crate::protocol::guided_review::{
        Chapter, FileStatus, Hunk, HunkLine, HunkLines, LineKind, Review, ReviewFile, ReviewTarget,
    };

    fn some<T: Arbitrary>(g: &mut Gen) -> Option<T> {
        bool::arbitrary(g).then(|| T::arbitrary(g))
    }

    fn few<T>(g: &mut Gen, item: impl Fn(&mut Gen) -> T) -> Vec<T> {
        (0..usize::arbitrary(g) % 4).map(|_| item(g)).collect()
    }

    fn target(g: &mut Gen) -> ReviewTarget {
        match u8::arbitrary(g) % 5 {
            0 => ReviewTarget::WorkingTree,
            1 => ReviewTarget::Staged,
            2 => ReviewTarget::Branch { base: some(g) },
            3 => ReviewTarget::Commits {
                from: String::arbitrary(g),
                to: String::arbitrary(g),
            },
            _ => ReviewTarget::PullRequest {
                number: u64::arbitrary(g),
                repository: some(g),
            },
        }
    }

    /// A line with `text`, the rest arbitrary.
    fn line<'a>(g: &mut Gen, text: &'a str) -> HunkLine<'a> {
        HunkLine {
            kind: *g
                .choose(&[LineKind::Context, LineKind::Add, LineKind::Del])
                .unwrap(),
            old_line: some(g),
            new_line: some(g),
            text,
            no_newline: bool::arbitrary(g),
        }
    }

    fn lines(g: &mut Gen) -> HunkLines {
        let texts = few(g, String::arbitrary);
        texts.iter().map(|text| line(g, text)).collect()
    }

    fn review(g: &mut Gen) -> Review {
        let statuses = [
            FileStatus::Added,
            FileStatus::Modified,
            FileStatus::Deleted,
            FileStatus::Renamed,
            FileStatus::Copied,
            FileStatus::TypeChanged,
        ];
        Review {
            id: String::arbitrary(g),
            revision_id: String::arbitrary(g),
            target: target(g),
            files: few(g, |g| ReviewFile {
                id: String::arbitrary(g),
                path: String::arbitrary(g),
                old_path: some(g),
                status: *g.choose(&statuses).unwrap(),
                binary: bool::arbitrary(g),
                withheld: bool::arbitrary(g),
                additions: u32::arbitrary(g),
                deletions: u32::arbitrary(g),
                hunk_ids: Vec::arbitrary(g),
            }),
            hunks: few(g, |g| Hunk {
                id: String::arbitrary(g),
                file_id: String::arbitrary(g),
                old_start: u32::arbitrary(g),
                old_lines: u32::arbitrary(g),
                new_start: u32::arbitrary(g),
                new_lines: u32::arbitrary(g),
                header: String::arbitrary(g),
                lines: lines(g),
            }),
            chapters: few(g, |g| Chapter {
                id: String::arbitrary(g),
                title: String::arbitrary(g),
                summary: String::arbitrary(g),
                hunk_ids: Vec::arbitrary(g),
            }),
        }
    }

    fn serde_line(event: &Event) -> Vec<u8> {
        let mut line = serde_json::to_vec(event).unwrap();
        line.push(b'\n');
        line
    }

    /// What `encode` writes, and what it writes when every part is taken out as it comes.
    fn ours(event: &Event) -> (Vec<u8>, Vec<u8>) {
        let mut whole = Vec::new();
        encode(event, &mut whole);
        let (mut parts, mut rest) = (Vec::new(), Vec::new());
        let mut take = |out: &mut Vec<u8>| {
            parts.append(out);
            Ok::<(), ()>(())
        };
        encode_in_parts(event, &mut rest, &mut take).unwrap();
        parts.append(&mut rest);
        (whole, parts)
    }

    #[derive(Debug, Clone)]
    struct Sample(Review);

    impl Arbitrary for Sample {
        fn arbitrary(g: &mut Gen) -> Self {
            Self(review(g))
        }
    }

    quickcheck::quickcheck! {
        fn reviews_are_written_as_serde_writes_them_and_read_back(sample: Sample, request_id: String, updated: bool) -> bool {
            let review = Arc::new(sample.0);
            let event = if updated {
                Event::GuidedReviewUpdated(GuidedReviewUpdated { review })
            } else {
                Event::GuidedReviewLoaded(GuidedReviewLoaded { request_id, review })
            };
            let (whole, parts) = ours(&event);
            let theirs = serde_line(&event);
            let read: Event = serde_json::from_slice(&whole).unwrap();
            whole == theirs && parts == theirs && read == event
        }
    }

    #[test]
    fn every_character_is_escaped_as_serde_escapes_it() {
        // Every ASCII byte, lone and inside chunks of every alignment, and non-ASCII text.
        let mut texts: Vec<String> = (0..=0x7f_u8).map(|b| char::from(b).to_string()).collect();
        let all: String = (0..=0x7f_u8).map(char::from).collect();
        for shift in 0..20 {
            texts.push(format!(
                "{}{all}{}",
                "x".repeat(shift),
                "é\u{2028}😀".repeat(shift)
            ));
        }
        for text in texts {
            let mut g = Gen::new(3);
            let mut review = review(&mut g);
            review.id = text.clone();
            review.hunks = vec![Hunk {
                id: text.clone(),
                file_id: text.clone(),
                old_start: 0,
                old_lines: u32::MAX,
                new_start: 1,
                new_lines: 2,
                header: text.clone(),
                lines: [line(&mut g, &text)].into_iter().collect(),
            }];
            let event = Event::GuidedReviewLoaded(GuidedReviewLoaded {
                request_id: text,
                review: Arc::new(review),
            });
            let (whole, _) = ours(&event);
            assert_eq!(
                String::from_utf8(whole).unwrap(),
                String::from_utf8(serde_line(&event)).unwrap()
            );
        }
    }
}
