//! Decodes a streamed Chat Completions response (`chat.completion.chunk`s, then `[DONE]`) into
//! [`ModelEvent`]s.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::ErrorBody;
use crate::model::sse::SseEvent;
use crate::model::sse_stream::{SseEvents, SseStream};
use crate::model::wire::{ModelEvent, StopReason, Usage};

/// What the Chat Completions stream's events mean, handled one event at a time (see [`OpenAiStream`]).
#[derive(Debug, Default)]
pub struct OpenAiEvents {
    next_block: u32,
    thinking_block: Option<u32>,
    text_block: Option<u32>,
    /// By the tool call's `index` in the chunks.
    tool_calls: BTreeMap<u32, ToolCall>,
    finish_reason: Option<StopReason>,
    done: bool,
}

/// A tool call as far as its fragments have told.
#[derive(Debug)]
enum ToolCall {
    /// `ToolCallStarted` was emitted for it.
    Started { block: u32, id: String },
    /// Fragments came before the name (no server known to luxe does this, but nothing forbids
    /// it); they are held until the call can be started.
    Waiting {
        id: Option<String>,
        arguments: String,
    },
}

/// Decodes one streamed Chat Completions response; feed it the body's bytes as they arrive.
///
/// Chat Completions has no content blocks, so block indices are made up here: the reasoning,
/// the text and each tool call get the next index when they first appear. After `Finished` or
/// `Error` nothing more is emitted.
pub type OpenAiStream = SseStream<OpenAiEvents>;

impl SseEvents for OpenAiEvents {
    fn event(&mut self, event: SseEvent<'_>, out: &mut Vec<ModelEvent>) {
        self.handle(event, out);
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn cut_off(&mut self, out: &mut Vec<ModelEvent>) {
        self.end(
            "the stream ended before the response finished".to_owned(),
            out,
        );
    }
}

impl OpenAiEvents {
    fn handle(&mut self, event: SseEvent<'_>, out: &mut Vec<ModelEvent>) {
        let data = event.data.trim();
        if data == "[DONE]" {
            return self.end(
                "the stream reached [DONE] without a finish_reason".to_owned(),
                out,
            );
        }
        if data.is_empty() {
            return;
        }
        if let Some(text) = plain_content(data) {
            if !text.is_empty() {
                let block = block_for(&mut self.text_block, &mut self.next_block);
                out.push(ModelEvent::TextDelta {
                    block,
                    text: text.to_owned(),
                });
            }
            return;
        }
        let chunk: Chunk = match serde_json::from_str(data) {
            Ok(chunk) => chunk,
            // Some servers send a plain-text `event: error`; its data is the message.
            Err(_) if event.event == Some("error") => {
                return self.fail(None, data.to_owned(), out);
            }
            Err(err) => {
                return self.fail(None, format!("malformed OpenAI stream chunk: {err}"), out);
            }
        };
        if let Some(error) = chunk.error {
            return self.fail(error.kind(), error.message().to_owned(), out);
        }
        if let Some(choice) = chunk.choices.unwrap_or_default().into_iter().next() {
            if let Some(delta) = choice.delta {
                self.delta(delta, out);
            }
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(stop_reason(reason));
            }
        }
        if let Some(usage) = chunk.usage {
            out.push(ModelEvent::Usage(usage.into()));
        }
    }

    fn delta(&mut self, delta: Delta, out: &mut Vec<ModelEvent>) {
        // vLLM and DeepSeek name it `reasoning_content`, OpenRouter and newer vLLM `reasoning`;
        // a server sending both means the same text.
        if let Some(text) = delta.reasoning_content.or(delta.reasoning)
            && !text.is_empty()
        {
            let block = block_for(&mut self.thinking_block, &mut self.next_block);
            out.push(ModelEvent::ThinkingDelta { block, text });
        }
        if let Some(text) = delta.content
            && !text.is_empty()
        {
            let block = block_for(&mut self.text_block, &mut self.next_block);
            out.push(ModelEvent::TextDelta { block, text });
        }
        for (position, fragment) in delta.tool_calls.unwrap_or_default().into_iter().enumerate() {
            // Some servers leave out `index`; the position in the array is the best guess.
            let index = fragment
                .index
                .unwrap_or(u32::try_from(position).unwrap_or(u32::MAX));
            self.tool_call(index, fragment, out);
        }
    }

    fn tool_call(&mut self, index: u32, fragment: ToolCallDelta, out: &mut Vec<ModelEvent>) {
        let (name, arguments) = match fragment.function {
            Some(function) => (function.name, function.arguments.unwrap_or_default()),
            None => (None, String::new()),
        };
        let id = fragment.id.filter(|id| !id.is_empty());
        let name = name.filter(|name| !name.is_empty());
        if let Some(ToolCall::Started { block, id: started }) = self.tool_calls.get(&index) {
            // A new id at a used index is a new call (seen from servers that number every call
            // 0); anything else continues the call.
            let new_call = name.is_some() && id.as_ref().is_some_and(|id| id != started);
            if !new_call {
                if !arguments.is_empty() {
                    out.push(ModelEvent::ToolCallInputDelta {
                        block: *block,
                        json: arguments,
                    });
                }
                return;
            }
        }
        let (id, arguments) = match self.tool_calls.remove(&index) {
            Some(ToolCall::Waiting {
                id: held_id,
                arguments: mut held,
            }) => {
                held.push_str(&arguments);
                (id.or(held_id), held)
            }
            _ => (id, arguments),
        };
        let Some(name) = name else {
            self.tool_calls
                .insert(index, ToolCall::Waiting { id, arguments });
            return;
        };
        let block = allocate(&mut self.next_block);
        // Results must echo an id; one unique within the reply is enough, since a result is matched
        // to the calls of the message just before it.
        let id = id.unwrap_or_else(|| format!("call_{block}"));
        out.push(ModelEvent::ToolCallStarted {
            block,
            id: id.clone(),
            name,
        });
        if !arguments.is_empty() {
            out.push(ModelEvent::ToolCallInputDelta {
                block,
                json: arguments,
            });
        }
        self.tool_calls
            .insert(index, ToolCall::Started { block, id });
    }

    /// The response is over: finished when the server said why, else `Error { message }`.
    fn end(&mut self, message: String, out: &mut Vec<ModelEvent>) {
        match self.finish_reason.take() {
            Some(reason) => {
                out.push(ModelEvent::Finished(reason));
                self.done = true;
            }
            None => self.fail(None, message, out),
        }
    }

    fn fail(&mut self, kind: Option<String>, message: String, out: &mut Vec<ModelEvent>) {
        out.push(ModelEvent::Error { kind, message });
        self.done = true;
    }
}

/// The block index for the reasoning or the text, assigned when it first appears.
fn block_for(slot: &mut Option<u32>, next_block: &mut u32) -> u32 {
    if let Some(block) = *slot {
        return block;
    }
    let block = allocate(next_block);
    *slot = Some(block);
    block
}

fn allocate(next_block: &mut u32) -> u32 {
    let block = *next_block;
    *next_block = next_block.saturating_add(1);
    block
}

fn stop_reason(reason: String) -> StopReason {
    match reason.as_str() {
        "stop" => StopReason::EndTurn,
        "tool_calls" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        "content_filter" => StopReason::Refusal,
        _ => StopReason::Other(reason),
    }
}

/// The commonest chunk of all — text only, no escapes, nothing else set — exactly as OpenAI's
/// API and the servers copying it write it: found as bytes, without a JSON parser. Anything else
/// returns `None` for the parser to handle, so this only ever saves time.
///
/// It reads from the end, where everything after the text is fixed: searching from the front for
/// where `choices` starts made decoding, folding and encoding a stream a sixth slower.
fn plain_content(data: &str) -> Option<&str> {
    use memchr::memmem::Finder;
    use std::sync::OnceLock;
    const CHOICE: &str = r#","choices":[{"index":0,"delta":{"content":""#;
    const AFTER: &str = r#""},"logprobs":null,"finish_reason":null}]"#;
    let object = data.strip_suffix('}')?;
    let choices = object
        .strip_suffix(r#","usage":null"#)
        .unwrap_or(object)
        .strip_suffix(AFTER)?;
    // The text has no quote, so the last one closes `"content":"`.
    let quote = memchr::memrchr(b'"', choices.as_bytes())?;
    let (head, text) = (
        choices[..=quote].strip_suffix(CHOICE)?,
        &choices[quote + 1..],
    );
    if !head.starts_with('{') || text.bytes().any(|b| b == b'\\' || b < 0x20) {
        return None;
    }
    // The fields before `choices` are ids and names; a usage or an error there needs the
    // parser, and so does a second `choices`.
    // Built once: setting a searcher up costs more than running it on one chunk.
    static FINDERS: OnceLock<[Finder<'static>; 3]> = OnceLock::new();
    let finders = FINDERS.get_or_init(|| {
        [
            Finder::new(br#""usage""#),
            Finder::new(br#""error""#),
            Finder::new(br#""choices""#),
        ]
    });
    let head = head.as_bytes();
    finders
        .iter()
        .all(|key| key.find(head).is_none())
        .then_some(text)
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<ErrorBody>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek reports cache hits here instead of in `prompt_tokens_details`.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    /// OpenAI counts cached tokens inside `prompt_tokens`; luxe counts them apart.
    fn from(wire: WireUsage) -> Self {
        let cached = wire
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .or(wire.prompt_cache_hit_tokens)
            .unwrap_or(0);
        Usage {
            prompt_tokens: wire.prompt_tokens.unwrap_or(0).saturating_sub(cached),
            completion_tokens: wire.completion_tokens.unwrap_or(0),
            cache_read_tokens: cached,
            cache_write_tokens: 0,
            reasoning_tokens: wire
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens)
                .unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests;
