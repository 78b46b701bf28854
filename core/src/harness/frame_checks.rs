//! What every frame must be, whoever drives the core: one line of JSON with a string `kind`.

use crate::effects::Output;
use crate::protocol::events::Event;

/// The frames among `outputs`.
pub fn frames(outputs: &[Output]) -> impl Iterator<Item = &Event> {
    outputs.iter().filter_map(|o| match o {
        Output::Frame(frame) => Some(frame.event()),
        _ => None,
    })
}

/// Asserts that `line` is one LF-terminated JSON object with a string `kind`.
pub fn check_line(line: &[u8]) {
    let body = line.strip_suffix(b"\n").expect("a frame ends with LF");
    assert!(!body.contains(&b'\n'), "a frame is one line");
    let value: serde_json::Value = serde_json::from_slice(body).expect("a frame is JSON");
    assert!(
        value["kind"].is_string(),
        "a frame has a string kind: {value}"
    );
}
