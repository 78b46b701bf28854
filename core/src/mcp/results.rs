//! A `tools/call` result as the model gets it: text and structured content as text, resources
//! as text with their URI, what it cannot show named with its size; `isError` fails the call.

use serde_json::Value;

/// What one call produced, before the session caps and redacts it like any tool output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    /// Whether the call failed (`isError`, an error answer, a dead server).
    pub is_error: bool,
    /// What the model is told.
    pub text: String,
}

impl CallOutcome {
    /// A failed call, for `why`.
    pub fn failed(why: String) -> Self {
        Self {
            is_error: true,
            text: why,
        }
    }
}

/// The outcome of a `tools/call` result.
pub fn outcome(result: &Value) -> CallOutcome {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut parts: Vec<String> = Vec::new();
    let content = result.get("content").and_then(Value::as_array);
    for block in content.into_iter().flatten() {
        parts.push(block_text(block));
    }
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        // Servers should repeat it as text (its JSON, or the one string it holds): said once.
        let texts: Vec<&str> = content
            .into_iter()
            .flatten()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect();
        let as_json = texts
            .iter()
            .any(|t| serde_json::from_str::<Value>(t).is_ok_and(|v| &v == structured));
        let one_string = structured.as_object().is_some_and(|object| {
            object.len() == 1
                && object.values().next().and_then(Value::as_str) == Some(&texts.join("\n"))
        });
        if !as_json && !one_string {
            parts.push(structured.to_string());
        }
    }
    let text = if parts.is_empty() {
        "(the tool returned no content)".to_owned()
    } else {
        parts.join("\n")
    };
    CallOutcome { is_error, text }
}

/// One content block as text.
fn block_text(block: &Value) -> String {
    let field = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    let encoded_len = |key: &str| field(key).len() / 4 * 3;
    match field("type") {
        "text" => field("text").to_owned(),
        "image" | "audio" => format!(
            "[{} {} of about {} bytes: not shown]",
            field("type"),
            field("mimeType"),
            encoded_len("data")
        ),
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let inner = |key: &str| resource.get(key).and_then(Value::as_str);
            let uri = inner("uri").unwrap_or("");
            match (inner("text"), inner("blob")) {
                (Some(text), _) => format!("[resource {uri}]\n{text}"),
                (None, Some(blob)) => format!(
                    "[resource {uri}: {} of about {} bytes, not shown]",
                    inner("mimeType").unwrap_or("binary data"),
                    blob.len() / 4 * 3
                ),
                (None, None) => format!("[resource {uri}]"),
            }
        }
        "resource_link" => {
            let name = field("name");
            format!("[resource link {} {name}]", field("uri"))
                .trim_end()
                .to_owned()
        }
        other => format!("[content of type {other:?}: not shown]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_of_content_is_told() {
        let result = json!({
            "content": [
                {"type": "text", "text": "Echo: hi"},
                {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "body"}},
                {"type": "resource_link", "uri": "test://x", "name": "x"},
            ],
            "structuredContent": {"temperature": 22},
        });
        let out = outcome(&result);
        assert!(!out.is_error);
        assert_eq!(
            out.text,
            "Echo: hi\n[image image/png of about 3 bytes: not shown]\n[resource file:///a]\nbody\n[resource link test://x x]\n{\"temperature\":22}"
        );
        let repeated = json!({
            "content": [{"type": "text", "text": "{\"t\": 1}"}],
            "structuredContent": {"t": 1},
            "isError": true,
        });
        let out = outcome(&repeated);
        assert!(out.is_error);
        assert_eq!(out.text, "{\"t\": 1}");
        let wrapped = json!({
            "content": [{"type": "text", "text": "file body"}],
            "structuredContent": {"content": "file body"},
        });
        assert_eq!(outcome(&wrapped).text, "file body");
        assert_eq!(outcome(&json!({})).text, "(the tool returned no content)");
    }
}
