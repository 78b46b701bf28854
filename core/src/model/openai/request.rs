//! The Chat Completions request body. Chat Completions has no content blocks for tool calls and
//! results, so one luxe message can become several chat messages.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::effects::{HttpMethod, HttpRequest};
use crate::model::conversation::{Block, Message, Role, ToolSpec};
use crate::model::wire::{Endpoint, ModelCall};
use crate::protocol::values::Thinking;

/// Builds the streamed `POST {base_url}/chat/completions` for `call`.
pub fn build_request(endpoint: &Endpoint, call: &ModelCall<'_>) -> HttpRequest {
    let mut messages = Vec::with_capacity(call.messages.len() + 1);
    if !call.system.is_empty() {
        messages.push(WireMessage::System {
            content: call.system,
        });
    }
    for message in call.messages {
        match message.role {
            Role::User => push_user(message, &mut messages),
            Role::Assistant => messages.extend(assistant(message)),
        }
    }
    let body = Body {
        model: call.model,
        messages,
        tools: call.tools.iter().map(wire_tool).collect(),
        stream: true,
        // Without it the stream carries no token counts at all.
        stream_options: StreamOptions {
            include_usage: true,
        },
        max_completion_tokens: call.max_tokens,
        reasoning_effort: match call.thinking {
            Thinking::Off => None,
            Thinking::Low => Some("low"),
            Thinking::Medium => Some("medium"),
            Thinking::High => Some("high"),
        },
    };
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = &endpoint.api_key {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    HttpRequest {
        method: HttpMethod::Post,
        url: format!(
            "{}/chat/completions",
            endpoint.base_url.trim_end_matches('/')
        ),
        headers,
        // Only structs, strings, numbers and JSON values: serializing cannot fail.
        body: serde_json::to_vec(&body).unwrap_or_default(),
    }
}

/// Tool results go first, as `tool` messages: they must directly follow the assistant message
/// whose calls they answer. What the user wrote alongside them follows as one user message.
fn push_user<'a>(message: &'a Message, out: &mut Vec<WireMessage<'a>>) {
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            Block::ToolResult {
                tool_use_id,
                content,
                // Chat Completions has no error flag; the content already says what failed.
                is_error: _,
                images,
            } => {
                if images.is_empty() {
                    out.push(WireMessage::Tool {
                        tool_call_id: tool_use_id,
                        content: Cow::Borrowed(content),
                    });
                    continue;
                }
                // A tool message carries only text: its images follow in the user message.
                let (count, are) = match images.len() {
                    1 => ("image".to_owned(), "is"),
                    n => (format!("{n} images"), "are"),
                };
                out.push(WireMessage::Tool {
                    tool_call_id: tool_use_id,
                    content: Cow::Owned(format!(
                        "{content}\n[The {count} this call returned {are} in the next user message: a tool message holds only text.]"
                    )),
                });
                parts.push(Part::Text {
                    text: Cow::Owned(format!(
                        "The {count} returned by the tool call {tool_use_id}:"
                    )),
                });
                parts.extend(images.iter().map(|i| image(&i.media_type, &i.data)));
            }
            Block::Text { text } => parts.push(Part::Text {
                text: Cow::Borrowed(text),
            }),
            Block::Image { media_type, data } => parts.push(image(media_type, data)),
            // Not something a user says.
            Block::Thinking { .. } | Block::ToolUse { .. } => {}
        }
    }
    let content = if parts.iter().all(|p| matches!(p, Part::Text { .. })) {
        // A plain string is what every compatible server understands.
        let texts: Vec<Cow<'a, str>> = parts
            .into_iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text),
                Part::ImageUrl { .. } => None,
            })
            .collect();
        if texts.len() == 1 {
            UserContent::Text(texts.into_iter().next().unwrap_or_default())
        } else if texts.is_empty() {
            return;
        } else {
            UserContent::Text(Cow::Owned(texts.join("\n")))
        }
    } else {
        UserContent::Parts(parts)
    };
    out.push(WireMessage::User { content });
}

/// An image as a `data:` URL, the one way Chat Completions takes inline images.
fn image<'a>(media_type: &str, data: &str) -> Part<'a> {
    Part::ImageUrl {
        image_url: ImageUrl {
            url: format!("data:{media_type};base64,{data}"),
        },
    }
}

/// `None` when nothing is left to send: servers reject an assistant message with neither
/// content nor tool calls. An answer that is only reasoning is sent as its reasoning, so that
/// the answer stays in the conversation and roles still alternate.
fn assistant(message: &Message) -> Option<WireMessage<'_>> {
    let mut reasoning = Vec::new();
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    for block in &message.content {
        match block {
            Block::Text { text } => texts.push(text.as_str()),
            Block::ToolUse { id, name, input } => tool_calls.push(ToolCall {
                id,
                kind: "function",
                function: FunctionCall {
                    name,
                    arguments: input.to_string(),
                },
            }),
            // Reasoning is not replayed beside an answer: Chat Completions has no field for it.
            Block::Thinking { text, .. } => reasoning.push(text.as_str()),
            Block::Image { .. } | Block::ToolResult { .. } => {}
        }
    }
    if texts.is_empty() && tool_calls.is_empty() {
        texts = reasoning
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .collect();
    }
    if texts.is_empty() && tool_calls.is_empty() {
        return None;
    }
    Some(WireMessage::Assistant {
        content: (!texts.is_empty()).then(|| texts.join("\n")),
        tool_calls,
    })
}

fn wire_tool(tool: &ToolSpec) -> WireTool<'_> {
    WireTool {
        kind: "function",
        function: FunctionSpec {
            name: &tool.name,
            description: &tool.description,
            parameters: &tool.input_schema,
        },
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    stream: bool,
    stream_options: StreamOptions,
    max_completion_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent<'a>,
    },
    Assistant {
        /// `null` when the message is only tool calls.
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

#[derive(Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(Cow<'a, str>),
    Parts(Vec<Part<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    Text { text: Cow<'a, str> },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct ToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionCall<'a>,
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    name: &'a str,
    /// The arguments as JSON text, as the API wants them.
    arguments: String,
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionSpec<'a>,
}

#[derive(Serialize)]
struct FunctionSpec<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn endpoint(key: Option<&str>) -> Endpoint {
        Endpoint {
            base_url: "http://127.0.0.1:11434/v1".to_owned(),
            api_key: key.map(str::to_owned),
        }
    }

    fn call<'a>(messages: &'a [Message], tools: &'a [ToolSpec]) -> ModelCall<'a> {
        ModelCall {
            model: "gpt-5",
            system: "You are luxe.",
            messages,
            tools,
            max_tokens: 16000,
            thinking: Thinking::Off,
        }
    }

    fn body(request: &HttpRequest) -> Value {
        serde_json::from_slice(&request.body).unwrap()
    }

    fn text(text: &str) -> Block {
        Block::Text { text: text.into() }
    }

    fn message(role: Role, content: Vec<Block>) -> Message {
        Message { role, content }
    }

    #[test]
    fn url_and_headers() {
        let messages = [message(Role::User, vec![text("hi")])];
        let request = build_request(&endpoint(Some("sk-1")), &call(&messages, &[]));
        assert_eq!(request.url, "http://127.0.0.1:11434/v1/chat/completions");
        assert_eq!(
            request.headers,
            vec![
                ("content-type".into(), "application/json".into()),
                ("authorization".into(), "Bearer sk-1".into()),
            ]
        );
        let request = build_request(&endpoint(None), &call(&messages, &[]));
        assert_eq!(request.headers.len(), 1);
    }

    #[test]
    fn a_simple_body() {
        let messages = [message(Role::User, vec![text("hi")])];
        let body = body(&build_request(&endpoint(None), &call(&messages, &[])));
        assert_eq!(
            body,
            json!({
                "model": "gpt-5",
                "messages": [
                    {"role": "system", "content": "You are luxe."},
                    {"role": "user", "content": "hi"},
                ],
                "stream": true,
                "stream_options": {"include_usage": true},
                "max_completion_tokens": 16000,
            })
        );
    }

    #[test]
    fn empty_system_is_omitted() {
        let messages = [message(Role::User, vec![text("hi")])];
        let mut call = call(&messages, &[]);
        call.system = "";
        let body = body(&build_request(&endpoint(None), &call));
        assert_eq!(body["messages"], json!([{"role": "user", "content": "hi"}]));
    }

    #[test]
    fn images_make_an_array_of_parts() {
        let messages = [message(
            Role::User,
            vec![
                text("what is this?"),
                Block::Image {
                    media_type: "image/png".into(),
                    data: "iVBORw0KGgo=".into(),
                },
            ],
        )];
        let body = body(&build_request(&endpoint(None), &call(&messages, &[])));
        assert_eq!(
            body["messages"][1],
            json!({"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ]})
        );
    }

    #[test]
    fn tool_images_follow_the_tool_messages_in_one_user_message() {
        let image = crate::model::conversation::ImageData {
            media_type: "image/png".into(),
            data: "iVBORw0KGgo=".into(),
        };
        let result = |id: &str, images: Vec<_>| Block::ToolResult {
            tool_use_id: id.into(),
            content: format!("{id} done"),
            is_error: false,
            images,
        };
        let messages = [message(
            Role::User,
            vec![
                result("call_a", vec![image.clone()]),
                result("call_b", Vec::new()),
                result("call_c", vec![image.clone(), image]),
            ],
        )];
        let body = body(&build_request(&endpoint(None), &call(&messages, &[])));
        let png = json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}});
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "You are luxe."},
                {"role": "tool", "tool_call_id": "call_a", "content": "call_a done\n[The image this call returned is in the next user message: a tool message holds only text.]"},
                {"role": "tool", "tool_call_id": "call_b", "content": "call_b done"},
                {"role": "tool", "tool_call_id": "call_c", "content": "call_c done\n[The 2 images this call returned are in the next user message: a tool message holds only text.]"},
                {"role": "user", "content": [
                    {"type": "text", "text": "The image returned by the tool call call_a:"},
                    png,
                    {"type": "text", "text": "The 2 images returned by the tool call call_c:"},
                    png,
                    png,
                ]},
            ])
        );
    }

    #[test]
    fn a_tool_round_trip() {
        let messages = [
            message(Role::User, vec![text("weather in Paris and Rome?")]),
            message(
                Role::Assistant,
                vec![
                    Block::Thinking {
                        text: "two calls".into(),
                        signature: None,
                    },
                    text("Checking both."),
                    Block::ToolUse {
                        id: "call_a".into(),
                        name: "get_weather".into(),
                        input: json!({"city": "Paris"}),
                    },
                    Block::ToolUse {
                        id: "call_b".into(),
                        name: "get_weather".into(),
                        input: json!({"city": "Rome"}),
                    },
                ],
            ),
            message(
                Role::User,
                vec![
                    Block::ToolResult {
                        tool_use_id: "call_a".into(),
                        content: "18°C".into(),
                        is_error: false,
                        images: Vec::new(),
                    },
                    text("also, in Celsius please"),
                    Block::ToolResult {
                        tool_use_id: "call_b".into(),
                        content: "timeout".into(),
                        is_error: true,
                        images: Vec::new(),
                    },
                ],
            ),
            message(
                Role::Assistant,
                vec![Block::ToolUse {
                    id: "call_c".into(),
                    name: "get_weather".into(),
                    input: json!({"city": "Rome"}),
                }],
            ),
            message(
                Role::User,
                vec![Block::ToolResult {
                    tool_use_id: "call_c".into(),
                    content: "21°C".into(),
                    is_error: false,
                    images: Vec::new(),
                }],
            ),
        ];
        let tools = [ToolSpec {
            name: "get_weather".into(),
            description: "Current weather.".into(),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        }];
        let body = body(&build_request(&endpoint(None), &call(&messages, &tools)));
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "You are luxe."},
                {"role": "user", "content": "weather in Paris and Rome?"},
                {"role": "assistant", "content": "Checking both.", "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_b", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_a", "content": "18°C"},
                {"role": "tool", "tool_call_id": "call_b", "content": "timeout"},
                {"role": "user", "content": "also, in Celsius please"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_c", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_c", "content": "21°C"},
            ])
        );
        assert_eq!(
            body["tools"],
            json!([{"type": "function", "function": {
                "name": "get_weather",
                "description": "Current weather.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            }}])
        );
    }

    #[test]
    fn several_texts_join_and_reasoning_only_messages_send_their_reasoning() {
        let messages = [
            message(Role::User, vec![text("one"), text("two")]),
            message(
                Role::Assistant,
                vec![Block::Thinking {
                    text: "hm".into(),
                    signature: Some("sig".into()),
                }],
            ),
            message(Role::Assistant, vec![text("a"), text("b")]),
        ];
        let mut call = call(&messages, &[]);
        call.system = "";
        let body = body(&build_request(&endpoint(None), &call));
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": "one\ntwo"},
                {"role": "assistant", "content": "hm"},
                {"role": "assistant", "content": "a\nb"},
            ])
        );
    }

    #[test]
    fn reasoning_effort() {
        let messages = [message(Role::User, vec![text("hi")])];
        for (thinking, effort) in [
            (Thinking::Off, Value::Null),
            (Thinking::Low, json!("low")),
            (Thinking::Medium, json!("medium")),
            (Thinking::High, json!("high")),
        ] {
            let mut call = call(&messages, &[]);
            call.thinking = thinking;
            let body = body(&build_request(&endpoint(None), &call));
            assert_eq!(
                body.get("reasoning_effort").cloned().unwrap_or(Value::Null),
                effort
            );
        }
    }
}
