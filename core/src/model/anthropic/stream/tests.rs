use super::*;
use crate::model::stream_properties as properties;
use quickcheck::quickcheck;

fn decode_chunks(chunks: &[&[u8]]) -> Vec<ModelEvent> {
    properties::decode_chunks::<AnthropicStream>(chunks)
}

fn decode(transcript: &str) -> Vec<ModelEvent> {
    decode_chunks(&[transcript.as_bytes()])
}

/// A text reply, as the API streams it (ids and counts shortened from a real response).
const TEXT: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"! How can I help?"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}

event: message_stop
data: {"type":"message_stop"}

"#;

/// Thinking with its signature, then a tool call whose input arrives in fragments; the prompt
/// was mostly read from the cache.
const THINKING_AND_TOOL: &str = "event: message_start\r
data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_02\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":200,\"cache_read_input_tokens\":4000,\"output_tokens\":3}}}\r
\r
event: content_block_start\r
data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\r
\r
event: content_block_delta\r
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"The user wants the weather.\"}}\r
\r
event: content_block_delta\r
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3h\"}}\r
\r
event: content_block_stop\r
data: {\"type\":\"content_block_stop\",\"index\":0}\r
\r
event: content_block_start\r
data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\",\"name\":\"get_weather\",\"input\":{}}}\r
\r
event: content_block_delta\r
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\r
\r
event: content_block_delta\r
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"San Fra\"}}\r
\r
event: content_block_delta\r
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"ncisco, CA\\\", \\\"unit\\\": \\\"fah\"}}\r
\r
event: content_block_delta\r
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"renheit\\\"}\"}}\r
\r
event: content_block_stop\r
data: {\"type\":\"content_block_stop\",\"index\":1}\r
\r
event: message_delta\r
data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\r
\r
event: message_stop\r
data: {\"type\":\"message_stop\"}\r
\r
";

const OVERLOADED: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_03","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{"input_tokens":5,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Sure"}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

"#;

fn usage(prompt: u64, completion: u64, read: u64, write: u64) -> ModelEvent {
    ModelEvent::Usage(Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        cache_read_tokens: read,
        cache_write_tokens: write,
        reasoning_tokens: 0,
    })
}

#[test]
fn a_text_reply() {
    assert_eq!(
        decode(TEXT),
        vec![
            usage(25, 1, 0, 0),
            ModelEvent::TextDelta {
                block: 0,
                text: "Hello".into()
            },
            ModelEvent::TextDelta {
                block: 0,
                text: "! How can I help?".into()
            },
            usage(25, 15, 0, 0),
            ModelEvent::Finished(StopReason::EndTurn),
        ]
    );
}

#[test]
fn thinking_with_signature_then_a_tool_call() {
    let fragment = |json: &str| ModelEvent::ToolCallInputDelta {
        block: 1,
        json: json.into(),
    };
    assert_eq!(
        decode(THINKING_AND_TOOL),
        vec![
            usage(12, 3, 4000, 200),
            ModelEvent::ThinkingDelta {
                block: 0,
                text: "The user wants the weather.".into()
            },
            ModelEvent::ThinkingSignature {
                block: 0,
                signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h".into()
            },
            ModelEvent::ToolCallStarted {
                block: 1,
                id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
                name: "get_weather".into()
            },
            fragment(""),
            fragment("{\"location\": \"San Fra"),
            fragment("ncisco, CA\", \"unit\": \"fah"),
            fragment("renheit\"}"),
            usage(12, 89, 4000, 200),
            ModelEvent::Finished(StopReason::ToolUse),
        ]
    );
}

#[test]
fn an_error_event_ends_the_stream() {
    let out = decode(&format!("{OVERLOADED}{}", TEXT));
    assert_eq!(
        out.last(),
        Some(&ModelEvent::Error {
            kind: Some("overloaded_error".into()),
            message: "Overloaded".into()
        })
    );
    // Nothing after the error, and finish adds nothing either.
    assert_eq!(out.len(), 3);
}

#[test]
fn a_truncated_stream_is_an_error() {
    let cut = TEXT.find("event: message_delta").unwrap();
    let out = decode(&TEXT[..cut]);
    assert_eq!(
        out.last(),
        Some(&ModelEvent::Error {
            kind: None,
            message: "the stream ended before message_stop".into()
        })
    );
    assert_eq!(out.len(), 4);
}

#[test]
fn message_delta_usage_may_update_every_count() {
    let out = decode(concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,",
        "\"cache_read_input_tokens\":100,\"output_tokens\":1}}}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},",
        "\"usage\":{\"input_tokens\":11,\"cache_read_input_tokens\":null,",
        "\"cache_creation_input_tokens\":7,\"output_tokens\":4096}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    ));
    assert_eq!(
        out,
        vec![
            usage(10, 1, 100, 0),
            usage(11, 4096, 100, 7),
            ModelEvent::Finished(StopReason::MaxTokens),
        ]
    );
}

#[test]
fn stop_reasons() {
    for (wire, reason) in [
        ("end_turn", StopReason::EndTurn),
        ("stop_sequence", StopReason::EndTurn),
        ("tool_use", StopReason::ToolUse),
        ("max_tokens", StopReason::MaxTokens),
        ("refusal", StopReason::Refusal),
        ("pause_turn", StopReason::Other("pause_turn".into())),
    ] {
        let out = decode(&format!(
            "data: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{wire}\"}}}}\n\n\
             data: {{\"type\":\"message_stop\"}}\n\n"
        ));
        assert_eq!(out, vec![ModelEvent::Finished(reason)]);
    }
}

#[test]
fn redacted_thinking_unknown_blocks_and_events_are_ignored() {
    let out = decode(concat!(
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":",
        "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":",
        "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":",
        "{\"type\":\"citations_delta\",\"citation\":{}}}\n\n",
        "event: something_new\ndata: {\"type\":\"something_new\",\"x\":1}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    ));
    assert_eq!(out, vec![ModelEvent::Finished(StopReason::EndTurn)]);
}

#[test]
fn the_event_name_stands_in_for_a_missing_type() {
    let out =
        decode("event: error\ndata: {\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}\n\n");
    assert_eq!(
        out,
        vec![ModelEvent::Error {
            kind: Some("api_error".into()),
            message: "boom".into()
        }]
    );
}

#[test]
fn malformed_json_is_an_error() {
    let out = decode("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\n\n");
    let [
        ModelEvent::Error {
            kind: None,
            message,
        },
    ] = out.as_slice()
    else {
        panic!("expected one error, got {out:?}");
    };
    assert!(
        message.starts_with("malformed Anthropic stream event `content_block_delta`: "),
        "{message}"
    );
    let out = decode(concat!(
        "data: {\"type\":\"content_block_delta\",",
        "\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}\n\n",
    ));
    assert_eq!(
        out,
        vec![ModelEvent::Error {
            kind: None,
            message:
                "malformed Anthropic stream event `content_block_delta`: missing field `index`"
                    .into()
        }]
    );
}

#[test]
fn nothing_follows_finished() {
    let out = decode(&format!("{TEXT}{OVERLOADED}"));
    assert_eq!(out.last(), Some(&ModelEvent::Finished(StopReason::EndTurn)));
    assert_eq!(out.len(), 5);
}

fn every_transcript() -> String {
    [TEXT, THINKING_AND_TOOL, OVERLOADED].concat()
}

quickcheck! {
    fn any_chunking_gives_the_same_events(pick: u8, cuts: Vec<usize>) -> bool {
        let stream = [TEXT, THINKING_AND_TOOL, OVERLOADED][usize::from(pick % 3)].as_bytes();
        properties::chunking_is_invisible::<AnthropicStream>(stream, &cuts)
    }

    fn a_stream_cut_anywhere_ends_in_one_terminal_event(cut: usize) -> bool {
        properties::cut_anywhere_ends_once::<AnthropicStream>(THINKING_AND_TOOL.as_bytes(), cut)
    }

    fn corrupted_streams_never_panic(flips: Vec<(usize, u8)>, cuts: Vec<usize>) -> bool {
        properties::corruption_is_harmless::<AnthropicStream>(every_transcript().into_bytes(), &flips, &cuts)
    }

    fn arbitrary_bytes_never_panic(stream: Vec<u8>, cuts: Vec<usize>) -> bool {
        properties::chunking_is_invisible::<AnthropicStream>(&stream, &cuts)
    }
}

quickcheck::quickcheck! {
    /// The byte-level path for plain text deltas agrees with the JSON parser, or steps aside.
    fn plain_text_deltas_agree_with_the_parser(block: u32, text: String) -> bool {
        // In the API's own key order, as the fast path expects.
        let data = format!(
            r#"{{"type":"content_block_delta","index":{block},"delta":{{"type":"text_delta","text":{}}}}}"#,
            serde_json::to_string(&text).unwrap()
        );
        let parsed = ModelEvent::TextDelta { block, text };
        match super::plain_text_delta(&data) {
            Some(fast) => fast == parsed,
            None => data.contains('\\'),
        }
    }
}
