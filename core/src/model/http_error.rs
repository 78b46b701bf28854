//! What both providers' `error_message` share: the words for a failed HTTP response whose body
//! luxe could not read as the provider's error object.

/// A body longer than this is cut: an HTML error page from a proxy says nothing useful after it.
const MAX_CHARS: usize = 500;

/// `kind: message`, or just the message when the provider gave no kind.
pub(crate) fn describe(kind: Option<&str>, message: &str) -> String {
    match kind.filter(|k| !k.is_empty()) {
        Some(kind) => format!("{kind}: {message}"),
        None => message.to_owned(),
    }
}

/// The body as text (lossy, trimmed, at most 500 characters), or `HTTP {status}` when empty.
pub(crate) fn fallback(status: u16, body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return format!("HTTP {status}");
    }
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => text[..cut].to_owned(),
        None => text.to_owned(),
    }
}

/// What providers say when a request does not fit the model's context window: Anthropic
/// (`prompt is too long`), OpenAI and OpenRouter (`context_length_exceeded`), vLLM and others
/// speaking its dialect (`maximum context length`), llama.cpp (`exceed_context_size_error`,
/// `exceeds the available context size`), Ollama (`context window`, `input length`).
const OVERFLOW_PHRASES: &[&str] = &[
    "prompt is too long",
    "context_length_exceeded",
    "maximum context length",
    "exceed_context_size",
    "exceeds the available context size",
    "context window",
    "input length exceeds",
    "too many tokens",
];

/// Whether a failed response says the request was too long for the context window.
pub(crate) fn is_context_overflow(status: u16, body: &[u8]) -> bool {
    if !matches!(status, 400 | 413 | 422) {
        return false;
    }
    let text = String::from_utf8_lossy(body).to_ascii_lowercase();
    OVERFLOW_PHRASES.iter().any(|p| text.contains(p))
}

/// What a refusal as too long says of the numbers, where it says them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OverflowFacts {
    /// The context window the server runs with.
    pub window: Option<u32>,
    /// The tokens the refused request had.
    pub prompt_tokens: Option<u64>,
}

/// Reads the window and the request's size from an overflow body: llama.cpp's `n_ctx` and
/// `n_prompt_tokens` fields, vLLM's "maximum context length is N tokens. However, your request
/// has M input tokens" (older: "you requested M tokens", or "your prompt contains M input
/// tokens"), OpenAI's "… your messages resulted in M tokens", Anthropic's "M tokens > N maximum".
pub fn overflow_facts(body: &[u8]) -> OverflowFacts {
    let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let field = |name: &str| {
        json.as_ref()
            .and_then(|j| j.get("error").unwrap_or(j).get(name))
            .and_then(serde_json::Value::as_u64)
    };
    let text = String::from_utf8_lossy(body).to_ascii_lowercase();
    let number_after = |marker: &str| {
        let rest = &text[text.find(marker)? + marker.len()..];
        let digits: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok()
    };
    let number_before = |marker: &str| {
        let head = &text[..text.find(marker)?];
        let digits: String = head
            .trim_end()
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.chars().rev().collect::<String>().parse::<u64>().ok()
    };
    let window = field("n_ctx")
        .or_else(|| number_after("maximum context length is"))
        .or_else(|| number_before(" maximum"));
    let prompt_tokens = field("n_prompt_tokens")
        .or_else(|| number_after("your request has"))
        .or_else(|| number_after("your prompt contains"))
        .or_else(|| number_after("your messages resulted in"))
        .or_else(|| number_after("you requested"))
        .or_else(|| number_after("prompt is too long:"));
    OverflowFacts {
        window: window
            .and_then(|w| u32::try_from(w).ok())
            .filter(|w| *w > 0),
        prompt_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_bodies_teach_the_window_and_the_request_size() {
        let llama = br#"{"error":{"code":400,"message":"request (4117 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4117,"n_ctx":4096}}"#;
        let vllm = br#"{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (1900 in the messages, 200 in the completion).","type":"BadRequestError","code":400}"#;
        let anthropic = br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213456 tokens > 200000 maximum"}}"#;
        let bare = br#"{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}"#;
        let facts = |window, prompt| OverflowFacts {
            window,
            prompt_tokens: prompt,
        };
        assert_eq!(overflow_facts(llama), facts(Some(4096), Some(4117)));
        assert_eq!(overflow_facts(vllm), facts(Some(2048), Some(2100)));
        assert_eq!(
            overflow_facts(anthropic),
            facts(Some(200_000), Some(213_456))
        );
        assert_eq!(overflow_facts(bare), facts(None, None));
        let vllm_now = br#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, your request has 2301 input tokens. Please reduce the length of the input messages.","type":"BadRequestError","param":null,"code":400}}"#;
        assert_eq!(overflow_facts(vllm_now), facts(Some(2048), Some(2301)));
        let vllm_output = br#"{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (4096 > 4096 - 2778).","type":"BadRequestError","param":null,"code":400}}"#;
        assert_eq!(overflow_facts(vllm_output), facts(Some(4096), Some(2778)));
        let openai = br#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(overflow_facts(openai), facts(Some(128_000), Some(130_512)));
        assert_eq!(overflow_facts(b"not json"), facts(None, None));
    }

    #[test]
    fn overflow_is_recognised_in_each_dialect() {
        let anthropic = br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213456 tokens > 200000 maximum"}}"#;
        let openai = br#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        let llama = br#"{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}"#;
        for body in [&anthropic[..], &openai[..], &llama[..]] {
            assert!(is_context_overflow(400, body));
        }
        assert!(
            !is_context_overflow(500, anthropic),
            "a server error is not an overflow"
        );
        assert!(!is_context_overflow(
            400,
            br#"{"error":{"message":"bad model"}}"#
        ));
    }

    #[test]
    fn describe_omits_a_missing_or_empty_kind() {
        assert_eq!(describe(Some("x"), "m"), "x: m");
        assert_eq!(describe(Some(""), "m"), "m");
        assert_eq!(describe(None, "m"), "m");
    }

    #[test]
    fn fallback_trims_cuts_and_names_the_status() {
        assert_eq!(fallback(502, b"  Bad Gateway\n"), "Bad Gateway");
        assert_eq!(fallback(503, b" \n "), "HTTP 503");
        assert_eq!(fallback(500, b""), "HTTP 500");
        assert_eq!(fallback(500, b"a\xffb"), "a\u{fffd}b");
        let long = "é".repeat(600);
        assert_eq!(fallback(500, long.as_bytes()), "é".repeat(500));
    }
}
