use super::*;
use crate::model::stream_properties as properties;
use quickcheck::quickcheck;

fn decode_chunks(chunks: &[&[u8]]) -> Vec<ModelEvent> {
    properties::decode_chunks::<OpenAiStream>(chunks)
}

fn decode(transcript: &str) -> Vec<ModelEvent> {
    decode_chunks(&[transcript.as_bytes()])
}

/// A text reply from api.openai.com with `include_usage`: a usage-only chunk before `[DONE]`.
const TEXT: &str = r#"data: {"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"content":" there!"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

data: {"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","choices":[],"usage":{"prompt_tokens":1500,"completion_tokens":40,"total_tokens":1540,"prompt_tokens_details":{"cached_tokens":1280,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":16,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}

data: [DONE]

"#;

/// Text, then two tool calls whose arguments are split over several chunks.
const TOOLS: &str = r#"data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":"Checking both.","refusal":null},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"lo"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"cation\": \"Paris\"}"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_5pXUrU2RGSjM7Y9ykmE2fSEf","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"location\""}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":": \"Rome\"}"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}

data: {"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":300,"completion_tokens":60,"total_tokens":360,"prompt_tokens_details":{"cached_tokens":0}}}

data: [DONE]

"#;

/// vLLM serving a reasoning model: `reasoning_content` first, then the answer.
const REASONING: &str = "data: {\"id\":\"chatcmpl-v\",\"object\":\"chat.completion.chunk\",\"model\":\"Qwen/Qwen3-8B\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\r\n\r\n\
data: {\"id\":\"chatcmpl-v\",\"object\":\"chat.completion.chunk\",\"model\":\"Qwen/Qwen3-8B\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Two plus two\"},\"finish_reason\":null}]}\r\n\r\n\
data: {\"id\":\"chatcmpl-v\",\"object\":\"chat.completion.chunk\",\"model\":\"Qwen/Qwen3-8B\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\" is four.\"},\"finish_reason\":null}]}\r\n\r\n\
data: {\"id\":\"chatcmpl-v\",\"object\":\"chat.completion.chunk\",\"model\":\"Qwen/Qwen3-8B\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"4\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":12}}\r\n\r\n\
data: [DONE]\r\n\r\n";

const SERVER_ERROR: &str = r#"data: {"id":"chatcmpl-E","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Par"},"finish_reason":null}]}

data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}

"#;

fn text(block: u32, text: &str) -> ModelEvent {
    ModelEvent::TextDelta {
        block,
        text: text.into(),
    }
}

fn started(block: u32, id: &str, name: &str) -> ModelEvent {
    ModelEvent::ToolCallStarted {
        block,
        id: id.into(),
        name: name.into(),
    }
}

fn args(block: u32, json: &str) -> ModelEvent {
    ModelEvent::ToolCallInputDelta {
        block,
        json: json.into(),
    }
}

#[test]
fn a_text_reply_with_cached_prompt_tokens() {
    assert_eq!(
        decode(TEXT),
        vec![
            text(0, "Hello"),
            text(0, " there!"),
            ModelEvent::Usage(Usage {
                prompt_tokens: 220,
                completion_tokens: 40,
                cache_read_tokens: 1280,
                cache_write_tokens: 0,
                reasoning_tokens: 16,
            }),
            ModelEvent::Finished(StopReason::EndTurn),
        ]
    );
}

#[test]
fn text_then_two_tool_calls() {
    assert_eq!(
        decode(TOOLS),
        vec![
            text(0, "Checking both."),
            started(1, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather"),
            args(1, "{\"lo"),
            args(1, "cation\": \"Paris\"}"),
            started(2, "call_5pXUrU2RGSjM7Y9ykmE2fSEf", "get_weather"),
            args(2, "{\"location\""),
            args(2, ": \"Rome\"}"),
            ModelEvent::Usage(Usage {
                prompt_tokens: 300,
                completion_tokens: 60,
                ..Usage::default()
            }),
            ModelEvent::Finished(StopReason::ToolUse),
        ]
    );
}

#[test]
fn reasoning_content_is_thinking() {
    assert_eq!(
        decode(REASONING),
        vec![
            ModelEvent::ThinkingDelta {
                block: 0,
                text: "Two plus two".into()
            },
            ModelEvent::ThinkingDelta {
                block: 0,
                text: " is four.".into()
            },
            text(1, "4"),
            ModelEvent::Usage(Usage {
                prompt_tokens: 9,
                completion_tokens: 12,
                ..Usage::default()
            }),
            ModelEvent::Finished(StopReason::MaxTokens),
        ]
    );
}

#[test]
fn openrouter_reasoning_field() {
    let out = decode(concat!(
        "data: {\"choices\":[{\"delta\":{\"content\":\"\",\"reasoning\":\"Hmm\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"Yes\",\"reasoning\":null},",
        "\"finish_reason\":\"stop\"}]}\n\n",
        ": OPENROUTER PROCESSING\n\n",
        "data: [DONE]\n\n",
    ));
    assert_eq!(
        out,
        vec![
            ModelEvent::ThinkingDelta {
                block: 0,
                text: "Hmm".into()
            },
            text(1, "Yes"),
            ModelEvent::Finished(StopReason::EndTurn),
        ]
    );
}

#[test]
fn an_error_chunk_ends_the_stream() {
    let out = decode(&format!("{SERVER_ERROR}{TEXT}"));
    assert_eq!(
        out,
        vec![
            text(0, "Par"),
            ModelEvent::Error {
                kind: Some("server_error".into()),
                message: "The server had an error while processing your request.".into()
            },
        ]
    );
}

#[test]
fn a_truncated_stream_is_an_error() {
    let cut = TOOLS.find("data: {\"id\":\"chatcmpl-C1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{},").unwrap();
    let out = decode(&TOOLS[..cut]);
    assert_eq!(
        out.last(),
        Some(&ModelEvent::Error {
            kind: None,
            message: "the stream ended before the response finished".into()
        })
    );
    assert_eq!(out.len(), 8);
}

#[test]
fn a_finish_reason_without_done_still_finishes() {
    let cut = TEXT.find("data: [DONE]").unwrap();
    let out = decode(&TEXT[..cut]);
    assert_eq!(out.last(), Some(&ModelEvent::Finished(StopReason::EndTurn)));
}

#[test]
fn done_without_a_finish_reason_is_an_error() {
    let out = decode("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n");
    assert_eq!(
        out,
        vec![
            text(0, "Hi"),
            ModelEvent::Error {
                kind: None,
                message: "the stream reached [DONE] without a finish_reason".into()
            },
        ]
    );
}

#[test]
fn stop_reasons() {
    for (wire, reason) in [
        ("stop", StopReason::EndTurn),
        ("tool_calls", StopReason::ToolUse),
        ("length", StopReason::MaxTokens),
        ("content_filter", StopReason::Refusal),
        ("function_call", StopReason::Other("function_call".into())),
    ] {
        let out = decode(&format!(
            "data: {{\"choices\":[{{\"delta\":{{}},\"finish_reason\":\"{wire}\"}}]}}\n\ndata: [DONE]\n\n"
        ));
        assert_eq!(out, vec![ModelEvent::Finished(reason)]);
    }
}

#[test]
fn a_whole_tool_call_in_one_chunk() {
    // Ollama sends each call whole, with the text block never opened.
    let out = decode(concat!(
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"qwen3\",",
        "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[",
        "{\"id\":\"call_k3m9\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"read\",",
        "\"arguments\":\"{\\\"path\\\":\\\"a.rs\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"qwen3\",",
        "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},",
        "\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    ));
    assert_eq!(
        out,
        vec![
            started(0, "call_k3m9", "read"),
            args(0, "{\"path\":\"a.rs\"}"),
            ModelEvent::Finished(StopReason::ToolUse),
        ]
    );
}

#[test]
fn odd_tool_call_fragments() {
    let out = decode(concat!(
        // No index and no id: position 0, and an id made up from the block.
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]}}]}\n\n",
        // A new id at a used index is a new call.
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_2\",\"function\":{\"name\":\"pwd\",\"arguments\":\"\"}}]}}]}\n\n",
        // Arguments before the name are held until the call can start.
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":5,\"id\":\"call_3\",\"function\":{\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":5,\"function\":{\"name\":\"cat\",\"arguments\":\":1}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"done\"},\"finish_reason\":\"tool_calls\"}]}\n\n",
    ));
    assert_eq!(
        out,
        vec![
            started(0, "call_0", "ls"),
            args(0, "{}"),
            started(1, "call_2", "pwd"),
            started(2, "call_3", "cat"),
            args(2, "{\"a\":1}"),
            text(3, "done"),
            ModelEvent::Finished(StopReason::ToolUse),
        ]
    );
}

#[test]
fn malformed_chunks_are_errors() {
    let out = decode("data: {\"choices\":[{\"delta\":{\"content\":5}}]}\n\n");
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
        message.starts_with("malformed OpenAI stream chunk: "),
        "{message}"
    );

    let out = decode("event: error\ndata: upstream timed out\n\n");
    assert_eq!(
        out,
        vec![ModelEvent::Error {
            kind: None,
            message: "upstream timed out".into()
        }]
    );
}

#[test]
fn openrouter_error_codes_name_the_kind() {
    let out = decode(
        "data: {\"error\":{\"code\":\"server_error\",\"message\":\"Provider disconnected\"},\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n",
    );
    assert_eq!(
        out,
        vec![ModelEvent::Error {
            kind: Some("server_error".into()),
            message: "Provider disconnected".into()
        }]
    );
}

fn every_transcript() -> String {
    [TEXT, TOOLS, REASONING, SERVER_ERROR].concat()
}

quickcheck! {
    fn any_chunking_gives_the_same_events(pick: u8, cuts: Vec<usize>) -> bool {
        let stream = [TEXT, TOOLS, REASONING, SERVER_ERROR][usize::from(pick % 4)].as_bytes();
        properties::chunking_is_invisible::<OpenAiStream>(stream, &cuts)
    }

    fn a_stream_cut_anywhere_ends_in_one_terminal_event(cut: usize) -> bool {
        properties::cut_anywhere_ends_once::<OpenAiStream>(TOOLS.as_bytes(), cut)
    }

    fn corrupted_streams_never_panic(flips: Vec<(usize, u8)>, cuts: Vec<usize>) -> bool {
        properties::corruption_is_harmless::<OpenAiStream>(every_transcript().into_bytes(), &flips, &cuts)
    }

    fn arbitrary_bytes_never_panic(stream: Vec<u8>, cuts: Vec<usize>) -> bool {
        properties::chunking_is_invisible::<OpenAiStream>(&stream, &cuts)
    }
}

#[test]
fn plain_content_takes_only_the_plain_shape() {
    let chunk = |head: &str, tail: &str| {
        format!(
            r#"{{{head}"choices":[{{"index":0,"delta":{{"content":"hi"}},"logprobs":null,"finish_reason":null}}]{tail}}}"#
        )
    };
    let ids = r#""id":"c","model":"m","#;
    let plain = chunk(ids, "");
    assert_eq!(plain_content(&plain), Some("hi"));
    assert_eq!(plain_content(&chunk(ids, r#","usage":null"#)), Some("hi"));
    // Anything before `choices` that the parser must see steps aside, as does another tail.
    for head in [r#""usage":{},"#, r#""error":{},"#, r#""choices":[],"#] {
        assert_eq!(plain_content(&chunk(head, "")), None, "{head}");
    }
    assert_eq!(plain_content(&chunk(ids, r#","usage":{}"#)), None);
    assert_eq!(plain_content(&plain.replace("hi", r#"h\"i"#)), None);
}

quickcheck::quickcheck! {
    /// The byte-level path for plain content chunks agrees with the JSON parser, or steps aside.
    fn plain_content_agrees_with_the_parser(text: String, usage_null: bool) -> bool {
        let data = format!(
            r#"{{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":{}}},"logprobs":null,"finish_reason":null}}]{}}}"#,
            serde_json::to_string(&text).unwrap(),
            if usage_null { r#","usage":null"# } else { "" }
        );
        let chunk = format!("data: {data}\n\n");
        let mut fast = OpenAiStream::default();
        let mut out = Vec::new();
        fast.push(chunk.as_bytes(), &mut out);
        let slow: Chunk = serde_json::from_str(&data).unwrap();
        let want = slow.choices.unwrap()[0].delta.as_ref().unwrap().content.clone().unwrap();
        let taken = super::plain_content(&data);
        taken.is_none_or(|t| t == want)
            && (want.is_empty() && out.is_empty()
                || out == vec![ModelEvent::TextDelta { block: 0, text: want.clone() }])
            && (taken.is_some() || want.contains(['"', '\\']) || want.chars().any(|c| c < ' '))
    }
}
