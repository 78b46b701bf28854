//! A `session/prompt`'s content blocks as one user message: its text and its images.

use serde_json::Value;

use crate::permissions::is_env_file;
use crate::protocol::actions::{Image, SubmitUserMessage};

use super::jsonrpc::RpcError;

/// The user message `blocks` make, or the error to answer the prompt with: an unknown or
/// malformed block, audio, or an embedded `.env` file (named; its text goes nowhere).
pub(crate) fn user_message(blocks: &[Value]) -> Result<SubmitUserMessage, RpcError> {
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let bad =
            |what: &str| RpcError::invalid_params(format!("session/prompt: `prompt[{i}]{what}"));
        let field = |name: &str| {
            block
                .get(name)
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&format!(".{name}` must be a string")))
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => parts.push(field("text")?.to_owned()),
            Some("resource_link") => {
                let path = path_of(field("uri")?);
                parts.push(format!(
                    "The user refers to the file {path}; read it if you need its content."
                ));
            }
            Some("resource") => {
                let resource = block
                    .get("resource")
                    .ok_or_else(|| bad(".resource` is missing"))?;
                let uri = resource
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(".resource.uri` must be a string"))?;
                let path = path_of(uri);
                if is_env_file(&path) {
                    return Err(RpcError::invalid_params(format!(
                        "session/prompt: {path} is a .env file; its content is never read or sent"
                    )));
                }
                let text = resource
                    .get("text")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(".resource` must be a text resource (`text`)"))?;
                parts.push(format!("<file path=\"{path}\">\n{text}\n</file>"));
            }
            Some("image") => images.push(Image {
                media_type: field("mimeType")?.to_owned(),
                data: field("data")?.to_owned(),
            }),
            Some("audio") => return Err(bad("` is audio, which this agent does not take")),
            Some(other) => return Err(bad(&format!("` has an unknown type {other:?}"))),
            None => return Err(bad(".type` must be a string")),
        }
    }
    if parts.iter().all(|p| p.trim().is_empty()) && images.is_empty() {
        return Err(RpcError::invalid_params(
            "session/prompt: `prompt` has no text and no image",
        ));
    }
    Ok(SubmitUserMessage {
        text: parts.join("\n\n"),
        images,
    })
}

/// A `file://` URI's path (percent-escapes of the path left as they are, but `%20`), or the
/// URI itself.
pub(crate) fn path_of(uri: &str) -> String {
    uri.strip_prefix("file://")
        .map_or_else(|| uri.to_owned(), |path| path.replace("%20", " "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn blocks_become_one_message() {
        let message = user_message(&[
            json!({"type": "text", "text": "look"}),
            json!({"type": "resource_link", "uri": "file:///w/a.rs", "name": "a.rs"}),
            json!({"type": "resource", "resource": {"uri": "file:///w/b.rs", "text": "fn b() {}"}}),
            json!({"type": "image", "mimeType": "image/png", "data": "AAAA"}),
        ])
        .unwrap();
        assert!(message.text.starts_with("look\n\n"));
        assert!(message.text.contains("/w/a.rs"));
        assert!(
            message
                .text
                .contains("<file path=\"/w/b.rs\">\nfn b() {}\n</file>")
        );
        assert_eq!(message.images.len(), 1);
    }

    #[test]
    fn an_embedded_env_file_is_refused_by_name_and_its_text_kept_out() {
        let err = user_message(&[json!({"type": "resource", "resource": {
            "uri": "file:///w/.env.local", "text": "TOKEN=very-secret"}})])
        .unwrap_err();
        assert!(err.message.contains("/w/.env.local"), "{}", err.message);
        assert!(!err.message.contains("very-secret"));
    }

    #[test]
    fn bad_blocks_are_named() {
        let err = user_message(&[json!({"type": "text"})]).unwrap_err();
        assert_eq!(
            err.message,
            "session/prompt: `prompt[0].text` must be a string"
        );
        let err = user_message(&[
            json!({"type": "text", "text": "a"}),
            json!({"type": "video"}),
        ])
        .unwrap_err();
        assert!(err.message.contains("prompt[1]"), "{}", err.message);
        assert!(user_message(&[]).is_err());
    }
}
