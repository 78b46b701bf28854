//! OpenAI's Chat Completions API, which Ollama, vLLM, llama.cpp's server, LM Studio and
//! OpenRouter also speak: the request (`POST /chat/completions`, streamed) and its chunks.

mod request;
pub mod server_info;
mod stream;

pub use request::build_request;
pub use stream::{OpenAiEvents, OpenAiStream};

use super::http_error;
use serde::Deserialize;
use serde_json::Value;

/// The words for a failed response: `rate_limit_exceeded: Rate limit reached` from the error
/// object, else the body itself (trimmed, at most 500 characters), else `HTTP {status}`.
pub fn error_message(status: u16, body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Envelope {
        error: ErrorBody,
    }
    match serde_json::from_slice::<Envelope>(body) {
        Ok(Envelope { error }) => error.describe(),
        Err(_) => http_error::fallback(status, body),
    }
}

/// An error as OpenAI-compatible servers send it: OpenAI's object with `message` and `type`
/// (sometimes only `code`), or a bare string (Ollama, some proxies).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ErrorBody {
    Object {
        message: String,
        #[serde(rename = "type", default)]
        kind: Option<String>,
        #[serde(default)]
        code: Option<Value>,
    },
    Text(String),
}

impl ErrorBody {
    /// The error's kind: its `type`, else a textual `code` (OpenRouter gives only codes).
    fn kind(&self) -> Option<String> {
        match self {
            Self::Object {
                kind: Some(kind), ..
            } if !kind.is_empty() => Some(kind.clone()),
            Self::Object {
                code: Some(Value::String(code)),
                ..
            } if !code.is_empty() => Some(code.clone()),
            _ => None,
        }
    }

    fn message(&self) -> &str {
        match self {
            Self::Object { message, .. } | Self::Text(message) => message,
        }
    }

    fn describe(&self) -> String {
        http_error::describe(self.kind().as_deref(), self.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_message_reads_the_error_object() {
        let body = br#"{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded","param":null,"code":"rate_limit_exceeded"}}"#;
        assert_eq!(
            error_message(429, body),
            "rate_limit_exceeded: Rate limit reached"
        );
        let body = br#"{"error":{"message":"Incorrect API key provided","type":null,"code":"invalid_api_key"}}"#;
        assert_eq!(
            error_message(401, body),
            "invalid_api_key: Incorrect API key provided"
        );
        let body = br#"{"error":{"message":"No auth credentials found","code":401}}"#;
        assert_eq!(error_message(401, body), "No auth credentials found");
        let body = br#"{"error":"model 'llama9' not found, try pulling it first"}"#;
        assert_eq!(
            error_message(404, body),
            "model 'llama9' not found, try pulling it first"
        );
    }

    #[test]
    fn error_message_falls_back_to_the_body_or_status() {
        assert_eq!(
            error_message(500, b"  Internal Server Error\r\n"),
            "Internal Server Error"
        );
        assert_eq!(
            error_message(500, br#"{"detail":"x"}"#),
            r#"{"detail":"x"}"#
        );
        assert_eq!(error_message(504, b""), "HTTP 504");
    }
}
