//! Anthropic's Messages API: the request (`POST /v1/messages`, streamed) and its event stream.

mod request;
mod stream;

pub use request::build_request;
pub use stream::{AnthropicEvents, AnthropicStream};

use super::http_error;
use serde::Deserialize;

/// The words for a failed response: `overloaded_error: Overloaded` from Anthropic's error
/// object, else the body itself (trimmed, at most 500 characters), else `HTTP {status}`.
pub fn error_message(status: u16, body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Envelope {
        error: ErrorBody,
    }
    match serde_json::from_slice::<Envelope>(body) {
        Ok(Envelope { error }) => http_error::describe(error.kind.as_deref(), &error.message),
        Err(_) => http_error::fallback(status, body),
    }
}

/// Anthropic's error object, in an HTTP error body and in a stream's `error` event.
#[derive(Debug, Deserialize)]
struct ErrorBody {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_message_reads_the_error_object() {
        let body =
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(error_message(529, body), "overloaded_error: Overloaded");
        let body = br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}"#;
        assert_eq!(
            error_message(401, body),
            "authentication_error: invalid x-api-key"
        );
    }

    #[test]
    fn error_message_falls_back_to_the_body_or_status() {
        assert_eq!(
            error_message(502, b"<html>Bad Gateway</html>\n"),
            "<html>Bad Gateway</html>"
        );
        assert_eq!(
            error_message(500, br#"{"error":"nope"}"#),
            r#"{"error":"nope"}"#
        );
        assert_eq!(error_message(503, b""), "HTTP 503");
    }
}
