//! JSON-RPC 2.0 as MCP frames it: one message per line on stdio, one per POST or SSE event
//! over HTTP. What a server sends is untrusted: anything that is not a well-formed message is
//! an error in words, never a panic.

use serde_json::{Map, Value, json};

/// The largest message luxe reads from a server: a 10 MB tool result fits; past this the
/// server is taken as broken (a line cannot be skipped without knowing whose answer it was).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// One message from a server.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The answer to one of luxe's requests.
    Response {
        /// The request's id (luxe only sends integer ids).
        id: u64,
        /// Its result, or the error the server gave.
        outcome: Result<Value, RpcError>,
    },
    /// The server asks luxe something (`ping`, `roots/list`, sampling…).
    Request {
        /// Echoed by the answer, as the server sent it.
        id: Value,
        /// What it asks.
        method: String,
    },
    /// The server tells luxe something (`notifications/progress`, `…/list_changed`).
    Notification {
        /// What it says.
        method: String,
        /// Its parameters (`null` when absent).
        params: Value,
    },
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The JSON-RPC error code ([`METHOD_NOT_FOUND`] for a method the receiver does not have).
    pub code: i64,
    /// The server's message.
    pub message: String,
}

/// JSON-RPC's code for a method the receiver does not have.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// Parses one message; the error says, for the server's status, what was wrong.
pub fn parse(bytes: &[u8]) -> Result<Message, String> {
    let value: Value = serde_json::from_slice(bytes).map_err(|_| {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned();
        format!("it wrote something that is not JSON: {text:?}")
    })?;
    let Value::Object(mut object) = value else {
        return Err("it wrote JSON that is not a JSON-RPC message (an object)".to_owned());
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("it wrote a message without \"jsonrpc\": \"2.0\"".to_owned());
    }
    let method = object.remove("method");
    let id = object.remove("id");
    match (method, id) {
        (Some(Value::String(method)), Some(id)) if !id.is_null() => {
            Ok(Message::Request { id, method })
        }
        (Some(Value::String(method)), _) => Ok(Message::Notification {
            method,
            params: object.remove("params").unwrap_or(Value::Null),
        }),
        (Some(_), _) => Err("it wrote a message whose method is not a string".to_owned()),
        (None, Some(id)) => {
            let Some(id) = id.as_u64() else {
                return Err(format!("it answered a request luxe never sent (id {id})"));
            };
            let outcome = match (object.remove("result"), object.remove("error")) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(rpc_error(&error)?),
                _ => {
                    return Err(
                        "it wrote an answer with neither or both of result and error".to_owned(),
                    );
                }
            };
            Ok(Message::Response { id, outcome })
        }
        (None, None) => Err("it wrote a message with neither method nor id".to_owned()),
    }
}

fn rpc_error(error: &Value) -> Result<RpcError, String> {
    let code = error.get("code").and_then(Value::as_i64);
    let message = error.get("message").and_then(Value::as_str);
    match (code, message) {
        (Some(code), Some(message)) => Ok(RpcError {
            code,
            message: message.to_owned(),
        }),
        _ => Err("it wrote an error without a code and a message".to_owned()),
    }
}

/// A request, serialized without a line ending.
pub fn request(id: u64, method: &str, params: Value) -> Vec<u8> {
    encode(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

/// A notification, serialized without a line ending.
pub fn notification(method: &str, params: Option<Value>) -> Vec<u8> {
    let mut object = Map::new();
    object.insert("jsonrpc".into(), "2.0".into());
    object.insert("method".into(), method.into());
    if let Some(params) = params {
        object.insert("params".into(), params);
    }
    encode(Value::Object(object))
}

/// An answer to a server's request, serialized without a line ending.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> Vec<u8> {
    encode(match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": error.code, "message": error.message},
        }),
    })
}

fn encode(value: Value) -> Vec<u8> {
    // A Value always serializes.
    serde_json::to_vec(&value).unwrap_or_default()
}

/// Splits a byte stream into lines, keeping an incomplete last line for the next push.
#[derive(Debug, Default)]
pub struct Lines {
    pending: Vec<u8>,
}

impl Lines {
    /// Adds `bytes`; returns the complete lines (without their `\n` or `\r\n`, blank ones
    /// left out), or an error once a line grows past [`MAX_MESSAGE_BYTES`].
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
        let mut lines = Vec::new();
        let mut rest = bytes;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            let mut line = std::mem::take(&mut self.pending);
            line.extend_from_slice(&rest[..at]);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                lines.push(line);
            }
            rest = &rest[at + 1..];
        }
        self.pending.extend_from_slice(rest);
        if self.pending.len() > MAX_MESSAGE_BYTES {
            self.pending = Vec::new();
            return Err(format!(
                "it wrote a message larger than {} MB",
                MAX_MESSAGE_BYTES / (1024 * 1024)
            ));
        }
        Ok(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_kinds_and_refuses_the_rest() {
        let ok = parse(br#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#).unwrap();
        assert_eq!(
            ok,
            Message::Response {
                id: 3,
                outcome: Ok(json!({"tools": []}))
            }
        );
        let err = parse(br#"{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}"#);
        assert!(
            matches!(err, Ok(Message::Response { id: 4, outcome: Err(e) }) if e.message == "no")
        );
        let ping = parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
        assert!(matches!(ping, Message::Request { method, .. } if method == "ping"));
        let note = parse(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
        );
        assert!(
            matches!(note, Ok(Message::Notification { params, .. }) if params["progress"] == 1)
        );
        for bad in [
            &b"hello"[..],
            b"[1]",
            br#"{"id":1,"result":1}"#,
            br#"{"jsonrpc":"2.0","id":"x","result":1}"#,
            br#"{"jsonrpc":"2.0","id":1}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
            br#"{"jsonrpc":"2.0"}"#,
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn lines_across_chunks_and_an_oversized_one() {
        let mut lines = Lines::default();
        assert!(lines.push(b"{\"a\"").unwrap().is_empty());
        assert_eq!(
            lines.push(b":1}\r\n\n{}\n{").unwrap(),
            [b"{\"a\":1}".to_vec(), b"{}".to_vec()]
        );
        let big = vec![b'x'; MAX_MESSAGE_BYTES + 1];
        assert!(lines.push(&big).is_err());
    }
}
