//! Builds the assistant [`Message`] from a stream's [`ModelEvent`]s, whichever provider sent them.

use std::collections::BTreeMap;

use serde_json::Value;

use super::conversation::{Block, Message, Role};
use super::wire::{ModelEvent, StopReason, Usage};

/// Collects a response's events into the assistant message, its usage and its stop reason.
#[derive(Debug, Clone, Default)]
pub struct MessageAssembler {
    /// By block index; a `BTreeMap` because indices may have gaps (Anthropic blocks luxe skips).
    blocks: BTreeMap<u32, Partial>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    has_output: bool,
    /// The first event that did not fit the blocks seen so far; reported by `finish`.
    conflict: Option<String>,
    /// Characters of text, reasoning and tool arguments streamed, for a count of what streamed
    /// when the stream ends without the provider's.
    streamed_chars: usize,
}

#[derive(Debug, Clone)]
enum Partial {
    Text(String),
    Thinking {
        text: String,
        signature: Option<String>,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
}

impl MessageAssembler {
    /// An assembler with nothing seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one event into account. `Error` events are the caller's to act on; they change
    /// nothing here.
    pub fn apply(&mut self, event: &ModelEvent) {
        match event {
            ModelEvent::TextDelta { text, .. } | ModelEvent::ThinkingDelta { text, .. } => {
                self.streamed_chars += text.len();
            }
            ModelEvent::ToolCallInputDelta { json, .. } => self.streamed_chars += json.len(),
            _ => {}
        }
        match event {
            ModelEvent::TextDelta { block, text } => {
                self.has_output = true;
                match self
                    .blocks
                    .entry(*block)
                    .or_insert(Partial::Text(String::new()))
                {
                    Partial::Text(all) => all.push_str(text),
                    _ => self.conflict(*block, "text"),
                }
            }
            ModelEvent::ThinkingDelta { block, text } => {
                self.has_output = true;
                match self.thinking(*block) {
                    Some((all, _)) => all.push_str(text),
                    None => self.conflict(*block, "reasoning"),
                }
            }
            ModelEvent::ThinkingSignature { block, signature } => {
                self.has_output = true;
                match self.thinking(*block) {
                    Some((_, all)) => all.get_or_insert_default().push_str(signature),
                    None => self.conflict(*block, "a reasoning signature"),
                }
            }
            ModelEvent::ToolCallStarted { block, id, name } => {
                self.has_output = true;
                if self.blocks.contains_key(block) {
                    self.conflict(*block, "a tool call");
                } else {
                    self.blocks.insert(
                        *block,
                        Partial::ToolUse {
                            id: id.clone(),
                            name: name.clone(),
                            json: String::new(),
                        },
                    );
                }
            }
            ModelEvent::ToolCallInputDelta { block, json } => {
                self.has_output = true;
                match self.blocks.get_mut(block) {
                    Some(Partial::ToolUse { json: all, .. }) => all.push_str(json),
                    _ => self.conflict(*block, "tool call arguments"),
                }
            }
            ModelEvent::Usage(usage) => self.usage = *usage,
            ModelEvent::Finished(reason) => self.stop_reason = Some(reason.clone()),
            ModelEvent::Error { .. } => {}
        }
    }

    /// The latest token counts reported.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Why the model stopped, once the stream said.
    pub fn stop_reason(&self) -> Option<&StopReason> {
        self.stop_reason.as_ref()
    }

    /// Characters streamed so far (text, reasoning, tool arguments).
    pub fn streamed_chars(&self) -> usize {
        self.streamed_chars
    }

    /// The text the answer had so far, without reasoning or tool calls: what is kept of an
    /// answer that did not finish (its tool calls have no results, their arguments may be cut).
    pub fn text_so_far(self) -> Message {
        let content = self
            .blocks
            .into_values()
            .filter_map(|partial| match partial {
                Partial::Text(text) if !text.is_empty() => Some(Block::Text { text }),
                _ => None,
            })
            .collect();
        Message {
            role: Role::Assistant,
            content,
        }
    }

    /// Whether the model produced anything (text, reasoning or a tool call): a request that
    /// failed before any output can be retried without the user seeing a half answer.
    pub fn has_output(&self) -> bool {
        self.has_output
    }

    /// The assistant message, blocks in index order. Empty text blocks are left out (the
    /// Messages API rejects them when the message is replayed); an `Err` names a tool whose
    /// arguments are not a JSON object, or an event that did not fit its block.
    pub fn finish(self) -> Result<Message, String> {
        if let Some(conflict) = self.conflict {
            return Err(conflict);
        }
        let mut content = Vec::with_capacity(self.blocks.len());
        for partial in self.blocks.into_values() {
            match partial {
                Partial::Text(text) if text.is_empty() => {}
                Partial::Text(text) => content.push(Block::Text { text }),
                Partial::Thinking { text, signature } if text.is_empty() && signature.is_none() => {
                }
                Partial::Thinking { text, signature } => {
                    content.push(Block::Thinking { text, signature })
                }
                Partial::ToolUse { id, name, json } => {
                    let input = tool_input(&name, &json)?;
                    content.push(Block::ToolUse { id, name, input });
                }
            }
        }
        Ok(Message {
            role: Role::Assistant,
            content,
        })
    }

    /// The thinking block at `block`, created if new; `None` if the block is something else.
    fn thinking(&mut self, block: u32) -> Option<(&mut String, &mut Option<String>)> {
        let partial = self.blocks.entry(block).or_insert(Partial::Thinking {
            text: String::new(),
            signature: None,
        });
        match partial {
            Partial::Thinking { text, signature } => Some((text, signature)),
            _ => None,
        }
    }

    fn conflict(&mut self, block: u32, what: &str) {
        self.conflict.get_or_insert_with(|| {
            format!("the response sent {what} for block {block}, which holds something else")
        });
    }
}

/// Parses a tool call's arguments; models that call a tool without arguments may send none.
fn tool_input(name: &str, json: &str) -> Result<Value, String> {
    if json.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str(json) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(format!(
            "the arguments of the `{name}` tool call are not a JSON object: {json}"
        )),
        Err(err) => Err(format!(
            "the arguments of the `{name}` tool call are not valid JSON ({err}): {json}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::anthropic::AnthropicStream;
    use crate::model::openai::OpenAiStream;
    use serde_json::json;

    fn assemble(events: &[ModelEvent]) -> MessageAssembler {
        let mut assembler = MessageAssembler::new();
        for event in events {
            assembler.apply(event);
        }
        assembler
    }

    #[test]
    fn blocks_in_index_order() {
        let assembler = assemble(&[
            ModelEvent::Usage(Usage {
                prompt_tokens: 1,
                ..Usage::default()
            }),
            ModelEvent::ToolCallStarted {
                block: 2,
                id: "toolu_1".into(),
                name: "read".into(),
            },
            ModelEvent::ThinkingDelta {
                block: 0,
                text: "Let me ".into(),
            },
            ModelEvent::TextDelta {
                block: 1,
                text: "Reading ".into(),
            },
            ModelEvent::ToolCallInputDelta {
                block: 2,
                json: "{\"path\":".into(),
            },
            ModelEvent::ThinkingDelta {
                block: 0,
                text: "read it.".into(),
            },
            ModelEvent::ThinkingSignature {
                block: 0,
                signature: "sig".into(),
            },
            ModelEvent::TextDelta {
                block: 1,
                text: "it.".into(),
            },
            ModelEvent::ToolCallInputDelta {
                block: 2,
                json: " \"a.rs\"}".into(),
            },
            ModelEvent::Usage(Usage {
                prompt_tokens: 1,
                completion_tokens: 9,
                ..Usage::default()
            }),
            ModelEvent::Finished(StopReason::ToolUse),
        ]);
        assert!(assembler.has_output());
        assert_eq!(assembler.usage().completion_tokens, 9);
        assert_eq!(assembler.stop_reason(), Some(&StopReason::ToolUse));
        assert_eq!(
            assembler.finish().unwrap(),
            Message {
                role: Role::Assistant,
                content: vec![
                    Block::Thinking {
                        text: "Let me read it.".into(),
                        signature: Some("sig".into()),
                    },
                    Block::Text {
                        text: "Reading it.".into()
                    },
                    Block::ToolUse {
                        id: "toolu_1".into(),
                        name: "read".into(),
                        input: json!({"path": "a.rs"}),
                    },
                ],
            }
        );
    }

    #[test]
    fn no_arguments_is_an_empty_object() {
        let assembler = assemble(&[
            ModelEvent::ToolCallStarted {
                block: 0,
                id: "call_1".into(),
                name: "pwd".into(),
            },
            ModelEvent::ToolCallInputDelta {
                block: 0,
                json: "".into(),
            },
        ]);
        let message = assembler.finish().unwrap();
        assert_eq!(
            message.content,
            vec![Block::ToolUse {
                id: "call_1".into(),
                name: "pwd".into(),
                input: json!({}),
            }]
        );
    }

    #[test]
    fn bad_arguments_name_the_tool() {
        for json in ["[1, 2]", "{\"path\": \"a", "null"] {
            let err = assemble(&[
                ModelEvent::ToolCallStarted {
                    block: 0,
                    id: "call_1".into(),
                    name: "read".into(),
                },
                ModelEvent::ToolCallInputDelta {
                    block: 0,
                    json: json.into(),
                },
            ])
            .finish()
            .unwrap_err();
            assert!(err.contains("`read`"), "{err}");
        }
    }

    #[test]
    fn nothing_seen() {
        let assembler = assemble(&[
            ModelEvent::Usage(Usage::default()),
            ModelEvent::Error {
                kind: Some("overloaded_error".into()),
                message: "Overloaded".into(),
            },
        ]);
        assert!(!assembler.has_output());
        assert_eq!(assembler.stop_reason(), None);
        assert_eq!(assembler.finish().unwrap().content, vec![]);
    }

    #[test]
    fn a_delta_that_does_not_fit_its_block_is_an_error() {
        let err = assemble(&[
            ModelEvent::TextDelta {
                block: 0,
                text: "hi".into(),
            },
            ModelEvent::ToolCallInputDelta {
                block: 0,
                json: "{}".into(),
            },
        ])
        .finish()
        .unwrap_err();
        assert!(err.contains("block 0"), "{err}");
    }

    #[test]
    fn empty_blocks_are_dropped_but_a_bare_signature_is_kept() {
        let assembler = assemble(&[
            ModelEvent::ThinkingSignature {
                block: 0,
                signature: "sig".into(),
            },
            ModelEvent::TextDelta {
                block: 1,
                text: "".into(),
            },
        ]);
        assert_eq!(
            assembler.finish().unwrap().content,
            vec![Block::Thinking {
                text: String::new(),
                signature: Some("sig".into()),
            }]
        );
    }

    #[test]
    fn assembles_what_both_decoders_decode() {
        let mut out = Vec::new();
        let mut anthropic = AnthropicStream::new();
        anthropic.push(
            concat!(
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,",
                "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"ls\",\"input\":{}}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,",
                "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"dir\\\": \\\".\\\"}\"}}\n\n",
                "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n",
                "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
            )
            .as_bytes(),
            &mut out,
        );
        let message = assemble(&out).finish().unwrap();
        assert_eq!(
            message.content,
            vec![Block::ToolUse {
                id: "toolu_9".into(),
                name: "ls".into(),
                input: json!({"dir": "."}),
            }]
        );

        let mut out = Vec::new();
        let mut openai = OpenAiStream::new();
        openai.push(
            concat!(
                "data: {\"choices\":[{\"delta\":{\"content\":\"On it.\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_9\",",
                "\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"dir\\\"\"}}]}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,",
                "\"function\":{\"arguments\":\": \\\".\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
                "data: [DONE]\n\n",
            )
            .as_bytes(),
            &mut out,
        );
        let assembler = assemble(&out);
        assert_eq!(assembler.stop_reason(), Some(&StopReason::ToolUse));
        assert_eq!(
            assembler.finish().unwrap().content,
            vec![
                Block::Text {
                    text: "On it.".into()
                },
                Block::ToolUse {
                    id: "call_9".into(),
                    name: "ls".into(),
                    input: json!({"dir": "."}),
                },
            ]
        );
    }
}
