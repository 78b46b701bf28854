//! Decodes the Messages API event stream into [`ModelEvent`]s.

use serde::Deserialize;
use serde_json::Value;

use super::ErrorBody;
use crate::model::sse::SseEvent;
use crate::model::sse_stream::{SseEvents, SseStream};
use crate::model::wire::{ModelEvent, StopReason, Usage};

/// What the Messages API stream's events mean, handled one event at a time (see [`AnthropicStream`]).
#[derive(Debug, Default)]
pub struct AnthropicEvents {
    usage: Usage,
    stop_reason: Option<StopReason>,
    done: bool,
}

/// Decodes one streamed Messages API response; feed it the body's bytes as they arrive.
///
/// Block indices are Anthropic's `index`. After `Finished` or `Error` nothing more is emitted.
pub type AnthropicStream = SseStream<AnthropicEvents>;

impl SseEvents for AnthropicEvents {
    fn event(&mut self, event: SseEvent<'_>, out: &mut Vec<ModelEvent>) {
        self.handle(event, out);
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn cut_off(&mut self, out: &mut Vec<ModelEvent>) {
        self.fail(None, "the stream ended before message_stop".to_owned(), out);
    }
}

impl AnthropicEvents {
    fn handle(&mut self, event: SseEvent<'_>, out: &mut Vec<ModelEvent>) {
        if let Some(delta) = fast_delta(event.data) {
            out.push(delta);
            return;
        }
        let parsed = match parse(event) {
            Ok(parsed) => parsed,
            Err(message) => return self.fail(None, message, out),
        };
        match parsed {
            Event::MessageStart { message } => {
                if let Some(usage) = message.usage {
                    self.usage = usage.update(Usage::default());
                    out.push(ModelEvent::Usage(self.usage));
                }
            }
            Event::ContentBlockStart {
                index: block,
                content_block,
            } => match content_block {
                // Starts carry empty text in practice; anything in them is still the block's.
                BlockStart::Text { text } if !text.is_empty() => {
                    out.push(ModelEvent::TextDelta { block, text });
                }
                BlockStart::Thinking { thinking } if !thinking.is_empty() => {
                    out.push(ModelEvent::ThinkingDelta {
                        block,
                        text: thinking,
                    });
                }
                BlockStart::ToolUse { id, name } => {
                    out.push(ModelEvent::ToolCallStarted { block, id, name });
                }
                _ => {}
            },
            Event::ContentBlockDelta {
                index: block,
                delta,
            } => match delta {
                Delta::Text { text } => out.push(ModelEvent::TextDelta { block, text }),
                Delta::Thinking { thinking } => out.push(ModelEvent::ThinkingDelta {
                    block,
                    text: thinking,
                }),
                Delta::Signature { signature } => {
                    out.push(ModelEvent::ThinkingSignature { block, signature });
                }
                Delta::InputJson { partial_json } => {
                    out.push(ModelEvent::ToolCallInputDelta {
                        block,
                        json: partial_json,
                    });
                }
                Delta::Other => {}
            },
            Event::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    self.stop_reason = Some(stop_reason(reason));
                }
                if let Some(usage) = usage {
                    self.usage = usage.update(self.usage);
                    out.push(ModelEvent::Usage(self.usage));
                }
            }
            Event::MessageStop => {
                // message_stop says the message is whole; a missing stop_reason is not a failure.
                let reason = self.stop_reason.take().unwrap_or(StopReason::EndTurn);
                out.push(ModelEvent::Finished(reason));
                self.done = true;
            }
            Event::Error { error } => self.fail(error.kind, error.message, out),
            Event::ContentBlockStop | Event::Ping | Event::Other => {}
        }
    }

    fn fail(&mut self, kind: Option<String>, message: String, out: &mut Vec<ModelEvent>) {
        out.push(ModelEvent::Error { kind, message });
        self.done = true;
    }
}

/// Nearly every event of a stream is a `content_block_delta`: read those straight into a flat,
/// borrowing struct instead of through a `Value` and a tagged enum (five times faster). Any
/// other event, or anything unexpected, returns `None` and takes the general path.
fn fast_delta(data: &str) -> Option<ModelEvent> {
    use std::borrow::Cow;

    if let Some(event) = plain_text_delta(data) {
        return Some(event);
    }

    #[derive(Deserialize)]
    struct Flat<'a> {
        #[serde(rename = "type", borrow)]
        kind: Cow<'a, str>,
        index: Option<u32>,
        #[serde(borrow)]
        delta: Option<FlatDelta<'a>>,
    }

    #[derive(Deserialize)]
    struct FlatDelta<'a> {
        #[serde(rename = "type", borrow)]
        kind: Cow<'a, str>,
        #[serde(borrow)]
        text: Option<Cow<'a, str>>,
        #[serde(borrow)]
        thinking: Option<Cow<'a, str>>,
        #[serde(borrow)]
        partial_json: Option<Cow<'a, str>>,
    }

    let flat: Flat<'_> = serde_json::from_str(data).ok()?;
    if flat.kind != "content_block_delta" {
        return None;
    }
    let (block, delta) = (flat.index?, flat.delta?);
    Some(
        match (&*delta.kind, delta.text, delta.thinking, delta.partial_json) {
            ("text_delta", Some(text), _, _) => ModelEvent::TextDelta {
                block,
                text: text.into_owned(),
            },
            ("thinking_delta", _, Some(text), _) => ModelEvent::ThinkingDelta {
                block,
                text: text.into_owned(),
            },
            ("input_json_delta", _, _, Some(json)) => ModelEvent::ToolCallInputDelta {
                block,
                json: json.into_owned(),
            },
            _ => return None,
        },
    )
}

/// The commonest event of all, a text delta with no escapes, exactly as the API writes it:
/// matched as bytes, without a JSON parser. Anything else — other key order, escapes, control
/// characters — returns `None` for the parsers to handle.
fn plain_text_delta(data: &str) -> Option<ModelEvent> {
    let rest = data.strip_prefix(r#"{"type":"content_block_delta","index":"#)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let block: u32 = rest.get(..digits)?.parse().ok()?;
    let text = rest[digits..]
        .strip_prefix(r#","delta":{"type":"text_delta","text":""#)?
        .strip_suffix(r#""}}"#)?;
    if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        return None;
    }
    Some(ModelEvent::TextDelta {
        block,
        text: text.to_owned(),
    })
}

/// Reads an event's JSON. The `type` inside the data decides what it is; the SSE `event:` name
/// (always the same in Anthropic's stream) stands in only when a proxy dropped the field.
fn parse(event: SseEvent<'_>) -> Result<Event, String> {
    let mut value: Value = serde_json::from_str(event.data).map_err(|err| {
        let name = event.event.unwrap_or("message");
        format!("malformed Anthropic stream event `{name}`: {err}")
    })?;
    if let (Value::Object(map), Some(name)) = (&mut value, event.event)
        && !map.contains_key("type")
    {
        map.insert("type".to_owned(), Value::String(name.to_owned()));
    }
    let name = match value.get("type") {
        Some(Value::String(name)) => name.clone(),
        _ => "message".to_owned(),
    };
    Event::deserialize(value)
        .map_err(|err| format!("malformed Anthropic stream event `{name}`: {err}"))
}

fn stop_reason(reason: String) -> StopReason {
    match reason.as_str() {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "refusal" => StopReason::Refusal,
        _ => StopReason::Other(reason),
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: u32,
        content_block: BlockStart,
    },
    ContentBlockDelta {
        index: u32,
        delta: Delta,
    },
    ContentBlockStop,
    MessageDelta {
        delta: MessageDelta,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    MessageStop,
    Ping,
    Error {
        error: ErrorBody,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockStart {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
    },
    /// `redacted_thinking`, server tools and whatever comes next: nothing luxe can replay.
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum Delta {
    #[serde(rename = "text_delta")]
    Text { text: String },
    #[serde(rename = "thinking_delta")]
    Thinking { thinking: String },
    #[serde(rename = "signature_delta")]
    Signature { signature: String },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: String },
    /// `citations_delta` and future kinds.
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct MessageDelta {
    #[serde(default)]
    stop_reason: Option<String>,
}

/// Counts as Anthropic reports them; in `message_delta` they are cumulative totals, and fields a
/// report leaves out keep their earlier values.
#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

impl WireUsage {
    fn update(&self, earlier: Usage) -> Usage {
        Usage {
            prompt_tokens: self.input_tokens.unwrap_or(earlier.prompt_tokens),
            completion_tokens: self.output_tokens.unwrap_or(earlier.completion_tokens),
            cache_read_tokens: self
                .cache_read_input_tokens
                .unwrap_or(earlier.cache_read_tokens),
            cache_write_tokens: self
                .cache_creation_input_tokens
                .unwrap_or(earlier.cache_write_tokens),
            reasoning_tokens: earlier.reasoning_tokens,
        }
    }
}

#[cfg(test)]
mod tests;
