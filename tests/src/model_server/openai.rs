//! The Chat Completions stream as each OpenAI-compatible server writes it. They share the shape
//! (`data:` chunks with `choices[0].delta`, `[DONE]`), and differ where clients trip: key order,
//! the role-only first chunk, how tool calls arrive, where usage and timings go, and the words of
//! a refusal as too long. Each rendering follows the server's own output:
//! - OpenAI: the API reference's chunks, `"usage":null` on every chunk once usage is asked for.
//! - llama.cpp (`llama-server`, captured from the real server): `choices` first, a role-only
//!   first chunk with `"content":null`, `system_fingerprint`, a `timings` object on the last
//!   chunk, usage only with `stream_options.include_usage`, and the 400 body
//!   `exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`.
//! - Ollama (`openai/openai.go`): every delta carries `role`, a tool call arrives whole in one
//!   chunk, reasoning is `reasoning`; a refusal names no numbers.
//! - vLLM (its OpenAI server): a role chunk with `"content":""`, tool calls named first and their
//!   arguments after, `stop_reason` beside `finish_reason`, `reasoning`; a refusal says "maximum
//!   context length is M tokens. However, your request has N input tokens".

use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Json, Part, Script, Sink, Stop, ToJson, split_even};

/// Whose OpenAI-compatible server the loopback server plays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI's own API.
    #[default]
    OpenAi,
    /// llama.cpp's `llama-server`.
    LlamaCpp,
    /// Ollama's `/v1` endpoints.
    Ollama,
    /// vLLM's OpenAI-compatible server.
    Vllm,
}

impl Dialect {
    /// The 400 body this server sends for a request of `prompt_tokens` that does not fit its
    /// `window`.
    pub(super) fn overflow_body(self, prompt_tokens: u64, window: u64) -> String {
        match self {
            Dialect::OpenAi => ordered!({"error": {
                "message": (format!("This model's maximum context length is {window} tokens. However, your messages resulted in {prompt_tokens} tokens. Please reduce the length of the messages.")),
                "type": "invalid_request_error", "param": "messages",
                "code": "context_length_exceeded"}}),
            Dialect::LlamaCpp => ordered!({"error": {"code": 400,
                "message": (format!("request ({prompt_tokens} tokens) exceeds the available context size ({window} tokens), try increasing it")),
                "type": "exceed_context_size_error", "n_prompt_tokens": prompt_tokens,
                "n_ctx": window}}),
            // Ollama mostly cuts a long chat prompt to fit by itself; when it refuses, it says so
            // without numbers.
            Dialect::Ollama => ordered!({"error": {
                "message": "the input length exceeds the context length",
                "type": "invalid_request_error", "param": null, "code": null}}),
            Dialect::Vllm => ordered!({"error": {
                "message": (format!("This model's maximum context length is {window} tokens. However, your request has {prompt_tokens} input tokens. Please reduce the length of the input messages.")),
                "type": "BadRequestError", "param": null, "code": 400}}),
        }
        .0
    }
}

/// Streams `script` as `dialect`'s server would; usage only when the request asked for it.
pub(super) fn stream(
    sink: &mut Sink,
    dialect: Dialect,
    script: &Script,
    model: &str,
    serial: usize,
    include_usage: bool,
) -> io::Result<()> {
    let chunks = Chunks {
        dialect,
        id: format!("chatcmpl-{serial:024}"),
        created: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        model,
        include_usage,
    };
    match dialect {
        // Ollama has no role-only chunk: every delta says the role.
        Dialect::Ollama => {}
        Dialect::LlamaCpp => {
            chunks.delta(sink, ordered!({"role": "assistant", "content": null}))?;
        }
        Dialect::OpenAi | Dialect::Vllm => {
            chunks.delta(sink, ordered!({"role": "assistant", "content": ""}))?;
        }
    }
    let mut tool_index = 0;
    for part in &script.parts {
        match part {
            Part::Text(texts) => {
                for text in texts {
                    chunks.delta(sink, chunks.text(text))?;
                }
            }
            Part::Thinking { deltas, .. } => {
                for text in deltas {
                    chunks.delta(sink, chunks.reasoning(text))?;
                }
            }
            Part::ToolCall {
                id,
                name,
                input,
                chunks: pieces,
            } => {
                let arguments = input.to_string();
                for delta in chunks.tool_call(tool_index, id, name, &arguments, *pieces) {
                    chunks.delta(sink, delta)?;
                }
                tool_index += 1;
            }
        }
    }
    let finish_reason = match script.stop {
        Stop::EndTurn => "stop",
        Stop::ToolUse => "tool_calls",
        Stop::MaxTokens => "length",
        Stop::Refusal => "content_filter",
    };
    chunks.finish(sink, finish_reason, script)?;
    if include_usage {
        chunks.usage(sink, script)?;
    }
    sink.send("data: [DONE]\n\n")
}

/// What every chunk of one stream shares.
struct Chunks<'a> {
    dialect: Dialect,
    id: String,
    created: u64,
    model: &'a str,
    include_usage: bool,
}

impl Chunks<'_> {
    /// Sends one chunk holding `choices` and, after them, `tail` (usage, timings), each field
    /// where this server puts it.
    fn send(&self, sink: &mut Sink, choices: Json, tail: &[(&str, Json)]) -> io::Result<()> {
        let (id, created, model) = (&self.id, self.created, self.model);
        let mut fields: Vec<(&str, Json)> = match self.dialect {
            Dialect::LlamaCpp => vec![
                ("choices", choices),
                ("created", created.to_json()),
                ("id", id.to_json()),
                ("model", model.to_json()),
                ("system_fingerprint", "b0-unknown".to_json()),
                ("object", "chat.completion.chunk".to_json()),
            ],
            Dialect::Ollama => vec![
                ("id", id.to_json()),
                ("object", "chat.completion.chunk".to_json()),
                ("created", created.to_json()),
                ("model", model.to_json()),
                ("system_fingerprint", "fp_ollama".to_json()),
                ("choices", choices),
            ],
            Dialect::OpenAi | Dialect::Vllm => vec![
                ("id", id.to_json()),
                ("object", "chat.completion.chunk".to_json()),
                ("created", created.to_json()),
                ("model", model.to_json()),
                ("choices", choices),
            ],
        };
        let has_usage = tail.iter().any(|(name, _)| *name == "usage");
        // OpenAI puts a `usage` field on every chunk once it is asked for, null until the last.
        if self.dialect == Dialect::OpenAi && self.include_usage && !has_usage {
            fields.push(("usage", Json("null".to_owned())));
        }
        fields.extend(tail.iter().map(|(name, value)| (*name, value.to_json())));
        let body: Vec<String> = fields
            .iter()
            .map(|(name, value)| format!("\"{name}\":{}", value.0))
            .collect();
        sink.send(&format!("data: {{{}}}\n\n", body.join(",")))
    }

    /// A chunk with one choice carrying `delta` and no finish reason yet.
    fn delta(&self, sink: &mut Sink, delta: Json) -> io::Result<()> {
        self.send(sink, self.choice(delta, None), &[])
    }

    fn choice(&self, delta: Json, finish_reason: Option<&str>) -> Json {
        match self.dialect {
            Dialect::LlamaCpp => {
                ordered!([{"finish_reason": finish_reason, "index": 0, "delta": delta}])
            }
            Dialect::Ollama => {
                ordered!([{"index": 0, "delta": delta, "finish_reason": finish_reason}])
            }
            Dialect::OpenAi => ordered!([{"index": 0, "delta": delta, "logprobs": null,
                                          "finish_reason": finish_reason}]),
            // vLLM says the matched stop string (none here) beside the final reason.
            Dialect::Vllm if finish_reason.is_some() => {
                ordered!([{"index": 0, "delta": delta, "logprobs": null,
                           "finish_reason": finish_reason, "stop_reason": null}])
            }
            Dialect::Vllm => ordered!([{"index": 0, "delta": delta, "logprobs": null,
                                        "finish_reason": finish_reason}]),
        }
    }

    fn text(&self, text: &str) -> Json {
        match self.dialect {
            Dialect::Ollama => ordered!({"role": "assistant", "content": text}),
            _ => ordered!({"content": text}),
        }
    }

    fn reasoning(&self, text: &str) -> Json {
        match self.dialect {
            Dialect::Ollama => ordered!({"role": "assistant", "content": "", "reasoning": text}),
            Dialect::Vllm => ordered!({"reasoning": text}),
            Dialect::OpenAi | Dialect::LlamaCpp => ordered!({"reasoning_content": text}),
        }
    }

    /// The deltas of one tool call whose arguments are `arguments`, in `pieces` fragments where
    /// the server streams them.
    fn tool_call(
        &self,
        index: usize,
        id: &str,
        name: &str,
        arguments: &str,
        pieces: usize,
    ) -> Vec<Json> {
        let fragment = |text: &str| ordered!({"tool_calls": [{"index": index, "function": {"arguments": text}}]});
        match self.dialect {
            Dialect::Ollama => vec![ordered!({"role": "assistant", "content": "",
                "tool_calls": [{"id": id, "index": index, "type": "function",
                                "function": {"name": name, "arguments": arguments}}]})],
            Dialect::Vllm => {
                let named = ordered!({"tool_calls": [{"id": id, "type": "function", "index": index,
                                                     "function": {"name": name}}]});
                let rest = split_even(arguments, pieces).into_iter().map(fragment);
                std::iter::once(named).chain(rest).collect()
            }
            Dialect::OpenAi => {
                let named = ordered!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                     "function": {"name": name, "arguments": ""}}]});
                let rest = split_even(arguments, pieces).into_iter().map(fragment);
                std::iter::once(named).chain(rest).collect()
            }
            // llama.cpp's first delta of a call carries the first fragment with the name.
            Dialect::LlamaCpp => split_even(arguments, pieces)
                .into_iter()
                .enumerate()
                .map(|(k, text)| match k {
                    0 => ordered!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                   "function": {"name": name, "arguments": text}}]}),
                    _ => fragment(text),
                })
                .collect(),
        }
    }

    fn finish(&self, sink: &mut Sink, reason: &str, script: &Script) -> io::Result<()> {
        let delta = match self.dialect {
            Dialect::Ollama => ordered!({"role": "assistant", "content": ""}),
            Dialect::Vllm => ordered!({"content": ""}),
            Dialect::OpenAi | Dialect::LlamaCpp => ordered!({}),
        };
        let choices = self.choice(delta, Some(reason));
        // llama.cpp puts its timings on the last chunk: this one, unless usage follows.
        if self.dialect == Dialect::LlamaCpp && !self.include_usage {
            return self.send(sink, choices, &[("timings", timings(script))]);
        }
        self.send(sink, choices, &[])
    }

    /// The chunk with no choices that carries the usage.
    fn usage(&self, sink: &mut Sink, script: &Script) -> io::Result<()> {
        let u = script.usage;
        let prompt = u.input + u.cache_read;
        let total = prompt + u.output;
        match self.dialect {
            Dialect::OpenAi => {
                let usage = ordered!({"prompt_tokens": prompt, "completion_tokens": (u.output),
                    "total_tokens": total,
                    "prompt_tokens_details": {"cached_tokens": (u.cache_read)},
                    "completion_tokens_details": {"reasoning_tokens": (u.reasoning)}});
                self.send(sink, ordered!([]), &[("usage", usage)])
            }
            Dialect::LlamaCpp => {
                let usage = ordered!({"completion_tokens": (u.output), "prompt_tokens": prompt,
                    "total_tokens": total,
                    "prompt_tokens_details": {"cached_tokens": (u.cache_read)}});
                self.send(
                    sink,
                    ordered!([]),
                    &[("usage", usage), ("timings", timings(script))],
                )
            }
            Dialect::Ollama => {
                let usage = ordered!({"prompt_tokens": prompt, "completion_tokens": (u.output),
                                      "total_tokens": total});
                self.send(sink, ordered!([]), &[("usage", usage)])
            }
            Dialect::Vllm => {
                let usage = ordered!({"prompt_tokens": prompt, "total_tokens": total,
                                      "completion_tokens": (u.output)});
                self.send(sink, ordered!([]), &[("usage", usage)])
            }
        }
    }
}

/// llama.cpp's `timings`: the prompt tokens it evaluated (those not in its cache) and those it
/// predicted, with made-up but consistent speeds.
fn timings(script: &Script) -> Json {
    let u = script.usage;
    let per_token = |n: u64, ms: f64| {
        let n = n.max(1) as f64;
        (ms / n, n * 1000.0 / ms)
    };
    let (prompt_ms, predicted_ms) = (u.input as f64 * 5.0 + 1.0, u.output as f64 * 20.0 + 1.0);
    let (prompt_per_token, prompt_per_second) = per_token(u.input, prompt_ms);
    let (predicted_per_token, predicted_per_second) = per_token(u.output, predicted_ms);
    Json(format!(
        "{{\"cache_n\":{},\"prompt_n\":{},\"prompt_ms\":{prompt_ms},\"prompt_per_token_ms\":{prompt_per_token},\"prompt_per_second\":{prompt_per_second},\"predicted_n\":{},\"predicted_ms\":{predicted_ms},\"predicted_per_token_ms\":{predicted_per_token},\"predicted_per_second\":{predicted_per_second}}}",
        u.cache_read, u.input, u.output
    ))
}
