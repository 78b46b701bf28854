use super::forms::{MIN_SECRET_CHARS, base64, is_weak};
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
        .map(|p| p.text.list.clone())
        .unwrap_or_default()
}

/// The stream's output for `chunks`, pushed in order and then finished.
fn streamed(redactor: &Redactor, chunks: &[&[u8]]) -> Vec<u8> {
    let mut stream = redactor.stream();
    let mut out: Vec<u8> = chunks.iter().flat_map(|chunk| stream.push(chunk)).collect();
    out.extend(stream.finish());
    out
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
    // Only "hun" could begin a secret: the rest goes out at once.
    assert_eq!(stream.push(b"password: hun"), b"password: ");
    let second = stream.push(b"ter22 and more text");
    assert!(second.starts_with(b"[redacted] and more"), "{second:?}");
    assert_eq!(
        [second, stream.finish()].concat(),
        b"[redacted] and more text"
    );
    // Char by char, through multi-byte chars.
    let text = "é hunter22 ✓ aHVudGVyMjI= 🎉";
    let chars: Vec<String> = text.chars().map(String::from).collect();
    let chunks: Vec<&[u8]> = chars.iter().map(String::as_bytes).collect();
    assert_eq!(streamed(&r, &chunks), r.redact(text).as_bytes());
    // Byte by byte, through the middle of every char.
    let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
    assert_eq!(streamed(&r, &bytes), r.redact(text).as_bytes());
}

#[test]
fn a_stream_swallows_a_stretch_that_continues_past_a_cut() {
    let r = redactor(&["aaaaaa"]);
    assert_eq!(streamed(&r, &[b"baaaaaa", b"aaa", b"aab"]), b"b[redacted]b");
}

#[test]
fn a_stream_can_be_reused_and_passes_through_when_empty() {
    let r = redactor(&["hunter22"]);
    let mut stream = r.stream();
    assert_eq!(stream.push(b"hunter2"), b"");
    assert_eq!(stream.finish(), b"hunter2");
    assert_eq!(stream.push(b"2 hun"), b"2 ");
    assert_eq!(stream.finish(), b"hun");
    let mut empty = Redactor::default().stream();
    assert_eq!(empty.push(b"all of it"), b"all of it");
    assert_eq!(empty.finish(), b"");
}

#[test]
fn a_value_split_inside_a_character_is_caught() {
    let r = redactor(&["pässwörd-ünïcode"]);
    let text = "echo pässwörd-ünïcode done".as_bytes();
    // "ä" is two bytes: the cut falls between them.
    let cut = text.iter().position(|&b| b == 0xc3).unwrap() + 1;
    let mut stream = r.text_stream();
    let mut out = stream.push(&text[..cut]);
    out.push_str(&stream.push(&text[cut..]));
    out.push_str(&stream.finish());
    assert_eq!(out, "echo [redacted] done");
}

#[test]
fn a_text_stream_waits_for_the_rest_of_a_character() {
    let mut stream = Redactor::default().text_stream();
    assert_eq!(stream.push(b"caf\xc3"), "caf");
    assert_eq!(stream.push(b"\xa9 ok \xff"), "é ok \u{fffd}");
    assert_eq!(stream.push(b"\xe2\x9c"), "");
    assert_eq!(stream.finish(), "\u{fffd}");
}

#[test]
fn bytes_that_are_not_utf8_are_redacted_too() {
    let r = redactor(&["hunter22"]);
    assert_eq!(
        r.redact_bytes(b"\xff hunter22 \xfe").as_ref(),
        b"\xff [redacted] \xfe"
    );
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

/// `text` cut at `cuts` (mod its length), anywhere, inside characters too.
fn chunks<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a [u8]> {
    let bytes = text.as_bytes();
    let mut bounds: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
    bounds.extend([0, bytes.len()]);
    bounds.sort_unstable();
    bounds.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

/// The text stream's output for `chunks`, pushed in order and then finished.
fn text_streamed(redactor: &Redactor, chunks: &[&[u8]]) -> String {
    let mut stream = redactor.text_stream();
    let mut out: String = chunks.iter().map(|chunk| stream.push(chunk)).collect();
    out.push_str(&stream.finish());
    out
}

/// Maps bytes onto a dotenv-dense alphabet, so `secret_values` meets every branch.
fn dotenv_like(bytes: &[u8]) -> String {
    const TOKENS: &[&str] = &[
        "KEY", "=", "\"", "'", "`", "\\", "\n", "\r\n", "\r", "#", " ", "export ", "secret-", "é",
        "n",
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
        let chunks = chunks(&case.text, &case.cuts);
        streamed(&r, &chunks) == r.redact(&case.text).as_bytes()
            && text_streamed(&r, &chunks) == r.redact(&case.text)
    }

    fn the_automaton_agrees_with_the_plain_scan(case: Case) -> bool {
        let fast = Redactor::new(case.secrets.clone());
        let plain = Redactor::build(case.secrets, false);
        fast.redact(&case.text) == plain.redact(&case.text)
            && streamed(&plain, &chunks(&case.text, &case.cuts)) == plain.redact(&case.text).as_bytes()
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
        streamed(&r, &chunks(&text, &cuts)) == r.redact(&text).as_bytes()
    }

    fn arbitrary_dotenv_text_never_panics(bytes: Vec<u8>, text: String) -> bool {
        let values = secret_values(dotenv_like(&bytes));
        secret_values(&text).iter().chain(&values).all(|value| !is_weak(value))
    }
}
