//! JSON-RPC 2.0 as ACP uses it: one message per line, parsed into [`Incoming`], written as a
//! [`Message`] that passes the redaction gate on its way out.

use serde_json::{Map, Value, json};

/// A standard JSON-RPC error code.
pub(crate) mod code {
    /// Not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a request, notification or response.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params do not fit the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The request was valid but failed (a model error, a session file that cannot be read).
    pub const INTERNAL_ERROR: i64 = -32603;
    /// ACP's "resource not found": an unknown session.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// An error answer: a code and a sentence for the person reading the client's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The JSON-RPC error code: one of the constants in [`code`].
    pub code: i64,
    /// What went wrong, in words.
    pub message: String,
}

impl RpcError {
    /// An error of `code` saying `message`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// `-32602` saying `message` (which names the field).
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }

    /// `-32002` for a session id this process does not host.
    pub fn unknown_session(id: &str) -> Self {
        Self::new(
            code::RESOURCE_NOT_FOUND,
            format!("no session {id:?} is open in this agent"),
        )
    }

    fn to_json(&self) -> Value {
        json!({"code": self.code, "message": self.message})
    }
}

/// A line from the client, as JSON-RPC sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A call that must be answered under `id`.
    Request {
        /// The client's id (a string or a number), echoed on the answer.
        id: Value,
        /// The method's name as the client sent it, e.g. `session/prompt`.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A call that gets no answer.
    Notification {
        /// The method's name as the client sent it, e.g. `session/cancel`.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// The client's answer to one of luxe's requests.
    Response {
        /// The id luxe gave its request.
        id: Value,
        /// The result, or the client's error.
        result: Result<Value, RpcError>,
    },
}

/// Reads one line; a line that is not JSON-RPC is the error to answer with, under the id it
/// had when one could be read (else `null`).
pub(crate) fn parse(line: &[u8]) -> Result<Incoming, (Value, RpcError)> {
    let value: Value = serde_json::from_slice(line).map_err(|_| {
        (
            Value::Null,
            RpcError::new(code::PARSE_ERROR, "the line is not JSON"),
        )
    })?;
    let Value::Object(mut map) = value else {
        return Err((Value::Null, invalid("a message must be a JSON object")));
    };
    let id = map.remove("id");
    let readable_id = id
        .clone()
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null);
    let refuse = |reason: &str| Err((readable_id.clone(), invalid(reason)));
    if map.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return refuse("`jsonrpc` must be \"2.0\"");
    }
    if id
        .as_ref()
        .is_some_and(|id| !id.is_string() && !id.is_number())
    {
        return refuse("`id` must be a string or a number");
    }
    match map.remove("method") {
        Some(Value::String(method)) => {
            let params = map.remove("params").unwrap_or(Value::Null);
            if !params.is_object() && !params.is_null() {
                return refuse("`params` must be an object");
            }
            Ok(match id {
                Some(id) => Incoming::Request { id, method, params },
                None => Incoming::Notification { method, params },
            })
        }
        Some(_) => refuse("`method` must be a string"),
        None => {
            let Some(id) = id else {
                return refuse("a message needs a `method`, or an `id` with a `result`");
            };
            let result = match (map.remove("result"), map.remove("error")) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(client_error(&error)),
                _ => return refuse("a response needs exactly one of `result` and `error`"),
            };
            Ok(Incoming::Response { id, result })
        }
    }
}

fn invalid(reason: &str) -> RpcError {
    RpcError::new(code::INVALID_REQUEST, reason)
}

fn client_error(error: &Value) -> RpcError {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the client gave no reason");
    RpcError::new(code, message)
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
pub(crate) fn response(id: Value, result: Result<Value, RpcError>) -> Value {
    let mut map = Map::new();
    map.insert("jsonrpc".into(), "2.0".into());
    map.insert("id".into(), id);
    match result {
        Ok(result) => map.insert("result".into(), result),
        Err(error) => map.insert("error".into(), error.to_json()),
    };
    Value::Object(map)
}

/// A request of luxe's to the client.
pub(crate) fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification of luxe's to the client.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_code(line: &str) -> (Value, i64) {
        let (id, err) = parse(line.as_bytes()).unwrap_err();
        (id, err.code)
    }

    #[test]
    fn not_json_is_a_parse_error_under_a_null_id() {
        assert_eq!(error_code("{oops"), (Value::Null, code::PARSE_ERROR));
        assert_eq!(error_code(""), (Value::Null, code::PARSE_ERROR));
    }

    #[test]
    fn json_that_is_not_json_rpc_is_an_invalid_request_under_its_id() {
        assert_eq!(error_code("[1]"), (Value::Null, code::INVALID_REQUEST));
        assert_eq!(
            error_code(r#"{"id":3,"method":"x"}"#),
            (json!(3), code::INVALID_REQUEST)
        );
        assert_eq!(
            error_code(r#"{"jsonrpc":"2.0","id":"a","method":7}"#),
            (json!("a"), code::INVALID_REQUEST)
        );
        assert_eq!(
            error_code(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#),
            (Value::Null, code::INVALID_REQUEST)
        );
        assert_eq!(
            error_code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#),
            (json!(1), code::INVALID_REQUEST)
        );
        assert_eq!(
            error_code(r#"{"jsonrpc":"2.0","id":1}"#),
            (json!(1), code::INVALID_REQUEST)
        );
    }

    #[test]
    fn requests_notifications_and_responses() {
        let request = parse(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
        assert!(matches!(request, Ok(Incoming::Request { method, .. }) if method == "initialize"));
        let note = parse(br#"{"jsonrpc":"2.0","method":"session/cancel"}"#);
        assert!(
            matches!(
                note,
                Ok(Incoming::Notification {
                    params: Value::Null,
                    ..
                })
            ),
            "{note:?}"
        );
        let answer = parse(br#"{"jsonrpc":"2.0","id":0,"error":{"code":-1,"message":"no"}}"#);
        assert_eq!(
            answer,
            Ok(Incoming::Response {
                id: json!(0),
                result: Err(RpcError::new(-1, "no"))
            })
        );
    }
}
