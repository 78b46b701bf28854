//! Anthropic streams as a fake model sends them: the SSE framing, a message around content
//! blocks, and the two answers the drivers script (text, with or without thinking first, and
//! one tool call), and the tool calls they script.

use serde_json::{Value, json};

/// Tool call `which` of the scripted ones (modulo their number): ordinary work first, then
/// calls that a rule, the `.env` guard or the working directory must stop.
pub fn scripted_tool(which: usize) -> (&'static str, Value) {
    match which % 14 {
        0 => ("read", json!({"path": "a.txt"})),
        1 => ("write", json!({"path": "b.txt", "content": "x"})),
        2 => (
            "edit",
            json!({"path": "a.txt", "old_text": "hello", "new_text": "bye"}),
        ),
        3 => ("bash", json!({"command": "echo out"})),
        4 => ("grep", json!({"pattern": "x"})),
        5 => ("glob", json!({"pattern": "**/*.rs"})),
        6 => (
            "ask_user",
            json!({"question": "?", "options": [{"label": "a"}]}),
        ),
        7 => (
            "update_plan",
            json!({"entries": [{"content": "s", "status": "done"}]}),
        ),
        8 => ("read", json!({"path": ".env"})),
        9 => ("read", json!({"path": "sub/../.env"})),
        10 => ("bash", json!({"command": "rm -rf build"})),
        11 => ("bash", json!({"command": "ls; rm -rf build"})),
        12 => ("bash", json!({"command": "cat .env"})),
        _ => ("write", json!({"path": "../outside.txt", "content": "x"})),
    }
}

/// `events` as server-sent events, each under its `type`.
pub fn sse(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for event in events {
        let kind = event["type"].as_str().unwrap_or_default();
        out.push_str(&format!("event: {kind}\ndata: {event}\n\n"));
    }
    out.into_bytes()
}

/// A whole message: its start, `blocks`, a delta with `stop` as the stop reason, its stop.
pub fn message(blocks: Vec<Value>, stop: &str) -> Vec<u8> {
    let mut events = vec![json!({"type": "message_start", "message": {"id": "msg_1",
        "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})];
    events.extend(blocks);
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop},
        "usage": {"output_tokens": 5}}),
    );
    events.push(json!({"type": "message_stop"}));
    sse(&events)
}

/// An answer of `text` that ends the turn, after a signed `thinking` block when there is one.
pub fn text_answer(thinking: Option<&str>, text: &str) -> Vec<u8> {
    let mut blocks = Vec::new();
    if let Some(thinking) = thinking {
        blocks.extend([
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": thinking}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
            json!({"type": "content_block_stop", "index": 0}),
        ]);
    }
    let index = blocks.len() / 4;
    blocks.extend([
        json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
        json!({"type": "content_block_stop", "index": index}),
    ]);
    message(blocks, "end_turn")
}

/// An answer that calls tool `name` with `input`, under call id `id`.
pub fn tool_call(id: &str, name: &str, input: &Value) -> Vec<u8> {
    message(
        vec![
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            json!({"type": "content_block_stop", "index": 0}),
        ],
        "tool_use",
    )
}
