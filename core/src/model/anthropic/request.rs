//! The Messages API request body, serialized straight from borrowed conversation data (images
//! can be megabytes of base64; nothing is copied into an intermediate JSON tree).

use serde::Serialize;
use serde_json::Value;

use crate::effects::{HttpMethod, HttpRequest};
use crate::model::conversation::{Block, ImageData, Message, Role, ToolSpec};
use crate::model::wire::{Endpoint, ModelCall};
use crate::protocol::values::Thinking;

/// The API version luxe's request and event shapes follow.
const API_VERSION: &str = "2023-06-01";

/// The smallest thinking budget the API accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

/// Builds the streamed `POST {base_url}/v1/messages` for `call`.
pub fn build_request(endpoint: &Endpoint, call: &ModelCall<'_>) -> HttpRequest {
    let body = Body {
        model: call.model,
        max_tokens: call.max_tokens,
        system: call.system,
        messages: call.messages.iter().filter_map(wire_message).collect(),
        tools: call.tools.iter().map(wire_tool).collect(),
        stream: true,
        thinking: thinking(call.thinking, call.max_tokens),
    };
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = &endpoint.api_key {
        headers.push(("x-api-key".to_owned(), key.clone()));
    }
    headers.push(("anthropic-version".to_owned(), API_VERSION.to_owned()));
    HttpRequest {
        method: HttpMethod::Post,
        url: format!("{}/v1/messages", endpoint.base_url.trim_end_matches('/')),
        headers,
        // Only structs, strings, numbers and JSON values: serializing cannot fail.
        body: serde_json::to_vec(&body).unwrap_or_default(),
    }
}

/// The budget for an effort, kept below `max_tokens` as the API requires; `None` when even the
/// minimum budget would not fit, since the request would be rejected.
fn thinking(effort: Thinking, max_tokens: u32) -> Option<ThinkingParam> {
    let nominal = match effort {
        Thinking::Off => return None,
        Thinking::Low => 2048,
        Thinking::Medium => 8192,
        Thinking::High => 24576,
    };
    let budget_tokens = nominal.min(max_tokens.saturating_sub(1));
    (budget_tokens >= MIN_THINKING_BUDGET).then_some(ThinkingParam {
        kind: "enabled",
        budget_tokens,
    })
}

/// `None` when no block survives: the API rejects a message with empty content, and it merges
/// consecutive messages of one role, so leaving the message out is safe.
fn wire_message(message: &Message) -> Option<WireMessage<'_>> {
    let content: Vec<_> = message.content.iter().filter_map(wire_block).collect();
    (!content.is_empty()).then_some(WireMessage {
        role: message.role,
        content,
    })
}

fn wire_block(block: &Block) -> Option<WireBlock<'_>> {
    Some(match block {
        Block::Text { text } => WireBlock::Text { text },
        Block::Image { media_type, data } => WireBlock::Image {
            source: ImageSource {
                kind: "base64",
                media_type,
                data,
            },
        },
        // Anthropic verifies the signature of replayed thinking; an unsigned block (another
        // provider's reasoning) would be rejected, so it is not sent.
        Block::Thinking { text, signature } => WireBlock::Thinking {
            thinking: text,
            signature: signature.as_deref()?,
        },
        Block::ToolUse { id, name, input } => WireBlock::ToolUse { id, name, input },
        Block::ToolResult {
            tool_use_id,
            content,
            is_error,
            images,
        } => WireBlock::ToolResult {
            tool_use_id,
            content: result_content(content, images),
            is_error: *is_error,
        },
    })
}

/// A result's text alone as a string; with images, a list: its text, then each image.
fn result_content<'a>(text: &'a str, images: &'a [ImageData]) -> ResultContent<'a> {
    if images.is_empty() {
        return ResultContent::Text(text);
    }
    let mut blocks = vec![WireBlock::Text { text }];
    blocks.extend(images.iter().map(|image| WireBlock::Image {
        source: ImageSource {
            kind: "base64",
            media_type: &image.media_type,
            data: &image.data,
        },
    }));
    ResultContent::Blocks(blocks)
}

fn wire_tool(tool: &ToolSpec) -> WireTool<'_> {
    WireTool {
        name: &tool.name,
        description: &tool.description,
        input_schema: &tool.input_schema,
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<ThinkingParam>,
}

#[derive(Serialize)]
struct ThinkingParam {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: Role,
    content: Vec<WireBlock<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock<'a> {
    Text {
        text: &'a str,
    },
    Image {
        source: ImageSource<'a>,
    },
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: ResultContent<'a>,
        is_error: bool,
    },
}

/// A `tool_result`'s `content`: a string, or `text` and `image` blocks.
#[derive(Serialize)]
#[serde(untagged)]
enum ResultContent<'a> {
    Text(&'a str),
    /// Only `Text` and `Image` blocks.
    Blocks(Vec<WireBlock<'a>>),
}

#[derive(Serialize)]
struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: &'a str,
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn endpoint(key: Option<&str>) -> Endpoint {
        Endpoint {
            base_url: "https://api.anthropic.com".to_owned(),
            api_key: key.map(str::to_owned),
        }
    }

    fn call<'a>(messages: &'a [Message], tools: &'a [ToolSpec]) -> ModelCall<'a> {
        ModelCall {
            model: "claude-sonnet-4-5",
            system: "You are luxe.",
            messages,
            tools,
            max_tokens: 32000,
            thinking: Thinking::Off,
        }
    }

    fn body(request: &HttpRequest) -> Value {
        serde_json::from_slice(&request.body).unwrap()
    }

    fn user(text: &str) -> Message {
        Message {
            role: Role::User,
            content: vec![Block::Text { text: text.into() }],
        }
    }

    #[test]
    fn url_and_headers() {
        let messages = [user("hi")];
        let request = build_request(&endpoint(Some("sk-ant-1")), &call(&messages, &[]));
        assert_eq!(request.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            request.headers,
            vec![
                ("content-type".into(), "application/json".into()),
                ("x-api-key".into(), "sk-ant-1".into()),
                ("anthropic-version".into(), "2023-06-01".into()),
            ]
        );
        let request = build_request(&endpoint(None), &call(&messages, &[]));
        assert!(!request.headers.iter().any(|(name, _)| name == "x-api-key"));
    }

    #[test]
    fn a_simple_body() {
        let messages = [user("hi")];
        let request = build_request(&endpoint(None), &call(&messages, &[]));
        assert_eq!(
            body(&request),
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 32000,
                "system": "You are luxe.",
                "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                "stream": true,
            })
        );
    }

    #[test]
    fn empty_system_and_tools_are_omitted() {
        let messages = [user("hi")];
        let mut call = call(&messages, &[]);
        call.system = "";
        let body = body(&build_request(&endpoint(None), &call));
        assert!(body.get("system").is_none());
        assert!(body.get("tools").is_none());
        assert!(body.get("thinking").is_none());
    }

    #[test]
    fn every_block_kind_and_tools() {
        let messages = [
            Message {
                role: Role::User,
                content: vec![
                    Block::Text {
                        text: "what is this?".into(),
                    },
                    Block::Image {
                        media_type: "image/png".into(),
                        data: "iVBORw0KGgo=".into(),
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Block::Thinking {
                        text: "Let me look.".into(),
                        signature: Some("EqQBCkYIARgCIkD".into()),
                    },
                    Block::Thinking {
                        text: "unsigned reasoning from another provider".into(),
                        signature: None,
                    },
                    Block::Text {
                        text: "Reading it.".into(),
                    },
                    Block::ToolUse {
                        id: "toolu_01".into(),
                        name: "read".into(),
                        input: json!({"path": "a.png"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![Block::ToolResult {
                    tool_use_id: "toolu_01".into(),
                    content: "no such file".into(),
                    is_error: true,
                    images: Vec::new(),
                }],
            },
        ];
        let tools = [ToolSpec {
            name: "read".into(),
            description: "Reads a file.".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }];
        let body = body(&build_request(&endpoint(None), &call(&messages, &tools)));
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image", "source": {
                        "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "Let me look.", "signature": "EqQBCkYIARgCIkD"},
                    {"type": "text", "text": "Reading it."},
                    {"type": "tool_use", "id": "toolu_01", "name": "read", "input": {"path": "a.png"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "no such file",
                     "is_error": true},
                ]},
            ])
        );
        assert_eq!(
            body["tools"],
            json!([{
                "name": "read",
                "description": "Reads a file.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
            }])
        );
    }

    #[test]
    fn a_tool_result_with_images_is_its_text_then_image_blocks() {
        let image = ImageData {
            media_type: "image/png".into(),
            data: "iVBORw0KGgo=".into(),
        };
        let messages = [Message {
            role: Role::User,
            content: vec![Block::ToolResult {
                tool_use_id: "toolu_01".into(),
                content: "Here it is: [image 1: image/png, 8 bytes]".into(),
                is_error: false,
                images: vec![image.clone(), image],
            }],
        }];
        let body = body(&build_request(&endpoint(None), &call(&messages, &[])));
        let png = json!({"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}});
        assert_eq!(
            body["messages"][0]["content"],
            json!([{"type": "tool_result", "tool_use_id": "toolu_01", "is_error": false,
            "content": [
                {"type": "text", "text": "Here it is: [image 1: image/png, 8 bytes]"},
                png, png,
            ]}])
        );
    }

    #[test]
    fn a_message_left_empty_is_not_sent() {
        let messages = [
            user("think"),
            Message {
                role: Role::Assistant,
                content: vec![Block::Thinking {
                    text: "hm".into(),
                    signature: None,
                }],
            },
            user("again"),
        ];
        let body = body(&build_request(&endpoint(None), &call(&messages, &[])));
        assert_eq!(body["messages"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn thinking_budgets_by_effort() {
        let messages = [user("hi")];
        for (effort, budget) in [
            (Thinking::Low, 2048),
            (Thinking::Medium, 8192),
            (Thinking::High, 24576),
        ] {
            let mut call = call(&messages, &[]);
            call.thinking = effort;
            let body = body(&build_request(&endpoint(None), &call));
            assert_eq!(
                body["thinking"],
                json!({"type": "enabled", "budget_tokens": budget})
            );
        }
    }

    #[test]
    fn thinking_budget_stays_below_max_tokens() {
        assert_eq!(thinking(Thinking::High, 4096).unwrap().budget_tokens, 4095);
        assert_eq!(thinking(Thinking::Low, 1025).unwrap().budget_tokens, 1024);
        assert!(thinking(Thinking::Low, 1024).is_none());
        assert!(thinking(Thinking::High, 0).is_none());
        assert!(thinking(Thinking::Off, 64000).is_none());
    }
}
