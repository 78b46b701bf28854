//! Properties of the core over random sequences of client lines: garbage and valid frames
//! mixed. Every step is checked by `luxe_core::harness::Checked` (one answer per line, frames
//! always one line of JSON with a string kind, nothing after exit, no panic).

use std::time::Instant;

use luxe_core::harness::{Checked, test_config};
use luxe_core::protocol::kinds::ACTION_KINDS;
use luxe_core::{Config, Input, Output};
use quickcheck::{Arbitrary, Gen, QuickCheck};

/// The frame limit in these properties, small so that over-long lines are cheap to make.
const MAX_FRAME: usize = 96;

#[derive(Clone, Debug)]
enum LineOp {
    Garbage(Vec<u8>),
    Frame(String),
    Blank(String),
    TooLong(usize),
}

impl LineOp {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Self::Garbage(bytes) => bytes.iter().copied().filter(|b| *b != b'\n').collect(),
            Self::Frame(text) | Self::Blank(text) => text.clone().into_bytes(),
            Self::TooLong(extra) => vec![b'{'; MAX_FRAME + 1 + extra],
        }
    }
}

fn pick<'a, T>(g: &mut Gen, items: &'a [T]) -> &'a T {
    g.choose(items).expect("non-empty")
}

fn arbitrary_frame(g: &mut Gen) -> String {
    let kind = if u8::arbitrary(g) % 10 == 0 {
        format!("x_{}", u8::arbitrary(g))
    } else {
        pick(g, ACTION_KINDS).to_string()
    };
    // Close is rare, so most sequences keep going after it could have happened.
    if kind == "close" && u8::arbitrary(g) % 4 != 0 {
        return r#"{"kind":"set_mode","content":{"mode":"build"}}"#.into();
    }
    let text = String::arbitrary(g);
    let contents = [
        None,
        Some("null".to_owned()),
        Some("{}".to_owned()),
        Some(format!(r#"{{"request_id":{}}}"#, serde_json::json!(text))),
        Some(format!(r#"{{"text":{}}}"#, serde_json::json!(text))),
        Some(r#"{"mode":"plan"}"#.to_owned()),
        Some(r#"{"thinking":"low"}"#.to_owned()),
        Some(r#"{"enabled":true}"#.to_owned()),
        Some(format!(r#"{{"model":{}}}"#, serde_json::json!(text))),
        Some(r#"{"model":"openai/gpt-5"}"#.to_owned()),
        Some(r#"{"id":"perm_1","reply":"once"}"#.to_owned()),
        Some(r#"{"id":"q_1","reply":{"answered":["a"]}}"#.to_owned()),
        Some("[1,2]".to_owned()),
        Some("7".to_owned()),
    ];
    match pick(g, &contents) {
        Some(content) => format!(
            r#"{{"kind":{},"content":{content}}}"#,
            serde_json::json!(kind)
        ),
        None => format!(r#"{{"kind":{}}}"#, serde_json::json!(kind)),
    }
}

impl Arbitrary for LineOp {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 10 {
            0..=2 => Self::Garbage(Vec::arbitrary(g)),
            3..=7 => Self::Frame(arbitrary_frame(g)),
            8 => Self::Blank(pick(g, &["", " ", "\t", "\r", "  \r"]).to_string()),
            _ => Self::TooLong(usize::arbitrary(g) % 300),
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        match self {
            Self::Garbage(bytes) => Box::new(bytes.shrink().map(Self::Garbage)),
            _ => Box::new(std::iter::empty()),
        }
    }
}

fn config() -> Config {
    let mut config = test_config();
    config.max_frame_bytes = MAX_FRAME;
    config
}

fn runs() -> u64 {
    std::env::var("QUICKCHECK_TESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500)
}

/// Line by line, every answer is what the protocol promises, and the session still answers.
fn every_line_gets_its_answer(ops: Vec<LineOp>) -> bool {
    let mut checked = Checked::new(config(), Instant::now());
    for op in &ops {
        checked.line(&op.bytes());
    }
    if !checked.is_closed() {
        let out = checked.line(br#"{"kind":"set_thinking","content":{"thinking":"medium"}}"#);
        assert_eq!(out.len(), 1, "the session stopped answering: {out:?}");
    }
    true
}

/// How the bytes are cut into reads changes nothing the client sees.
fn chunking_is_invisible(ops: Vec<LineOp>, cuts: Vec<usize>) -> bool {
    let mut stream = Vec::new();
    for op in &ops {
        stream.extend(op.bytes());
        stream.push(b'\n');
    }
    let mut by_line = Checked::new(config(), Instant::now());
    let mut expected: Vec<Output> = Vec::new();
    for op in &ops {
        expected.extend(by_line.line(&op.bytes()));
    }
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    bounds.extend([0, stream.len()]);
    bounds.sort_unstable();
    let mut chunked = Checked::new(config(), Instant::now());
    let mut got = Vec::new();
    for w in bounds.windows(2) {
        got.extend(chunked.input(Input::ClientBytes(&stream[w[0]..w[1]])));
    }
    got == expected
}

#[test]
fn property_every_line_gets_its_answer() {
    QuickCheck::new()
        .tests(runs())
        .quickcheck(every_line_gets_its_answer as fn(Vec<LineOp>) -> bool);
}

#[test]
fn property_chunking_is_invisible() {
    QuickCheck::new()
        .tests(runs())
        .quickcheck(chunking_is_invisible as fn(Vec<LineOp>, Vec<usize>) -> bool);
}

#[test]
fn property_arbitrary_bytes_never_break_the_session() {
    fn prop(data: Vec<u8>) -> bool {
        luxe_core::harness::session(Instant::now(), &data);
        true
    }
    QuickCheck::new()
        .tests(runs())
        .quickcheck(prop as fn(Vec<u8>) -> bool);
}
