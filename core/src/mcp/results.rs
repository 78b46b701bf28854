//! A `tools/call` result as the model gets it: text and structured content as text, images as
//! images (within caps), resources as text with their URI, what it cannot show named with its
//! size; `isError` fails the call.

use serde_json::Value;

use crate::model::conversation::ImageData;

/// The most base64 one image may take to reach the model (Anthropic's limit per image, 5 MiB;
/// OpenAI's is larger): a larger one is a note.
pub const IMAGE_MAX_BASE64: usize = 5 * 1024 * 1024;

/// The most images one result sends; the rest are notes.
pub const MAX_IMAGES: usize = 4;

/// What one call produced, before the session caps and redacts it like any tool output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    /// Whether the call failed (`isError`, an error answer, a dead server).
    pub is_error: bool,
    /// What the model is told; each image is named in it where it stood (`[image 1: …]`).
    pub text: String,
    /// The images it returned, in order, that the model is shown.
    pub images: Vec<ImageData>,
}

impl CallOutcome {
    /// A failed call, for `why`.
    pub fn failed(why: String) -> Self {
        Self {
            is_error: true,
            text: why,
            images: Vec::new(),
        }
    }
}

/// The outcome of a `tools/call` result.
pub fn outcome(result: &Value) -> CallOutcome {
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    let content = result.get("content").and_then(Value::as_array);
    for block in content.into_iter().flatten() {
        let field = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
        if field("type") != "image" {
            parts.push(block_text(block));
            continue;
        }
        match shown_image(field("data"), images.len()) {
            Ok(image) => {
                parts.push(format!(
                    "[image {}: {}, {} bytes]",
                    images.len() + 1,
                    image.media_type,
                    decoded_len(&image.data)
                ));
                images.push(image);
            }
            Err(why) => parts.push(format!(
                "[image {} of about {} bytes: not shown, {why}]",
                field("mimeType"),
                decoded_len(field("data"))
            )),
        }
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
    CallOutcome {
        is_error,
        text,
        images,
    }
}

/// An image block's `data` as an image for the model (its type read from its bytes, since a
/// provider refuses the whole request for an image that is not what it says), or why not.
/// `shown` images of the result came before it.
fn shown_image(data: &str, shown: usize) -> Result<ImageData, String> {
    if shown >= MAX_IMAGES {
        return Err(format!(
            "luxe shows at most {MAX_IMAGES} images of a result"
        ));
    }
    if data.len() > IMAGE_MAX_BASE64 {
        return Err(format!(
            "larger than the {} MiB of base64 luxe sends a model",
            IMAGE_MAX_BASE64 / (1024 * 1024)
        ));
    }
    if !is_base64(data) {
        return Err("its data is not base64".to_owned());
    }
    let Some(media_type) = image_type(&decode_head(data)) else {
        return Err("it is not a PNG, JPEG, GIF or WebP image".to_owned());
    };
    Ok(ImageData {
        media_type: media_type.to_owned(),
        data: data.to_owned(),
    })
}

/// Padded standard base64, as the MCP schema has it.
fn is_base64(data: &str) -> bool {
    let bytes = data.as_bytes();
    let body = bytes
        .strip_suffix(b"==")
        .or_else(|| bytes.strip_suffix(b"="))
        .unwrap_or(bytes);
    !bytes.is_empty()
        && bytes.len().is_multiple_of(4)
        && body
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// The first 12 bytes `data` encodes (fewer if it is shorter), enough for every image
/// signature.
fn decode_head(data: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    for quad in data.as_bytes().chunks(4).take(4) {
        let sextets: Vec<u8> = quad.iter().map_while(|&c| value(c)).collect();
        let word = sextets
            .iter()
            .enumerate()
            .fold(0u32, |word, (at, s)| word | u32::from(*s) << (18 - 6 * at));
        let bytes = word.to_be_bytes();
        out.extend_from_slice(&bytes[1..sextets.len().max(1)]);
    }
    out
}

/// The media type the bytes begin like.
fn image_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// How many bytes base64 `data` holds (about, if it is not valid base64).
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take(2).filter(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// One content block as text.
fn block_text(block: &Value) -> String {
    let field = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "text" => field("text").to_owned(),
        "audio" => format!(
            "[audio {} of about {} bytes: not shown]",
            field("mimeType"),
            decoded_len(field("data"))
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
                    decoded_len(blob)
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
            "Echo: hi\n[image image/png of about 3 bytes: not shown, it is not a PNG, JPEG, GIF or WebP image]\n[resource file:///a]\nbody\n[resource link test://x x]\n{\"temperature\":22}"
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

    /// A 1x1 PNG.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    fn image(mime: &str, data: &str) -> Value {
        json!({"type": "image", "mimeType": mime, "data": data})
    }

    #[test]
    fn images_go_to_the_model_as_images_within_their_caps() {
        let jpeg = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAA==";
        let result = json!({"content": [
            {"type": "text", "text": "Here:"},
            image("image/png", PNG),
            // The bytes say what it is, whatever the server claims.
            image("image/png", jpeg),
        ]});
        let out = outcome(&result);
        assert_eq!(
            out.text,
            "Here:\n[image 1: image/png, 70 bytes]\n[image 2: image/jpeg, 25 bytes]"
        );
        assert_eq!(
            out.images,
            [
                ImageData {
                    media_type: "image/png".into(),
                    data: PNG.into()
                },
                ImageData {
                    media_type: "image/jpeg".into(),
                    data: jpeg.into()
                },
            ]
        );
        let webp = "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=";
        let gif = "R0lGODlhAQABAAAAACw=";
        for (data, kind) in [(webp, "image/webp"), (gif, "image/gif")] {
            let out = outcome(&json!({"content": [image("image/x", data)]}));
            assert_eq!(out.images[0].media_type, kind);
        }
        let huge = "A".repeat(IMAGE_MAX_BASE64 + 4);
        let refused = [
            (
                huge.as_str(),
                "larger than the 5 MiB of base64 luxe sends a model",
            ),
            ("iVBORw0KGgo%", "its data is not base64"),
            ("", "its data is not base64"),
            ("AAAAAAAA", "it is not a PNG, JPEG, GIF or WebP image"),
        ];
        for (data, why) in refused {
            let out = outcome(&json!({"content": [image("image/png", data)]}));
            assert!(out.images.is_empty(), "{why}");
            assert!(
                out.text.ends_with(&format!("not shown, {why}]")),
                "{}",
                out.text
            );
        }
        let many: Vec<Value> = (0..MAX_IMAGES + 1)
            .map(|_| image("image/png", PNG))
            .collect();
        let out = outcome(&json!({"content": many}));
        assert_eq!(out.images.len(), MAX_IMAGES);
        assert!(
            out.text
                .ends_with("not shown, luxe shows at most 4 images of a result]")
        );
    }
}
