//! Reading a request's params field by field, so that a bad one is answered with a sentence
//! naming the field, and what the client said about itself at `initialize`.

use serde_json::{Map, Value};

use super::jsonrpc::RpcError;
use crate::mcp::config::{ServerConfig, Transport};

/// A request's params, read with `method` named in every complaint.
pub(crate) struct Params<'a> {
    method: &'a str,
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Params<'a> {
    /// The params of `method` (`null` reads as no fields).
    pub(crate) fn new(method: &'a str, params: &'a Value) -> Self {
        Self {
            method,
            map: params.as_object(),
        }
    }

    fn get(&self, field: &str) -> Option<&'a Value> {
        self.map
            .and_then(|map| map.get(field))
            .filter(|v| !v.is_null())
    }

    fn bad(&self, field: &str, what: &str) -> RpcError {
        RpcError::invalid_params(format!("{}: `{field}` {what}", self.method))
    }

    /// A string the method needs.
    pub(crate) fn string(&self, field: &str) -> Result<&'a str, RpcError> {
        match self.get(field) {
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(self.bad(field, "must be a string")),
            None => Err(self.bad(field, "is missing")),
        }
    }

    /// A string the method may have.
    pub(crate) fn opt_string(&self, field: &str) -> Result<Option<&'a str>, RpcError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.bad(field, "must be a string")),
        }
    }

    /// An array the method needs.
    pub(crate) fn array(&self, field: &str) -> Result<&'a [Value], RpcError> {
        match self.get(field) {
            Some(Value::Array(items)) => Ok(items),
            Some(_) => Err(self.bad(field, "must be an array")),
            None => Err(self.bad(field, "is missing")),
        }
    }

    /// An array the method may have (absent reads as empty).
    pub(crate) fn opt_array(&self, field: &str) -> Result<&'a [Value], RpcError> {
        match self.get(field) {
            None => Ok(&[]),
            Some(_) => self.array(field),
        }
    }

    /// A number the method needs.
    pub(crate) fn integer(&self, field: &str) -> Result<i64, RpcError> {
        match self.get(field) {
            Some(v) => v
                .as_i64()
                .ok_or_else(|| self.bad(field, "must be an integer")),
            None => Err(self.bad(field, "is missing")),
        }
    }

    /// A `cwd`: present, a string and absolute.
    pub(crate) fn cwd(&self) -> Result<&'a str, RpcError> {
        let cwd = self.string("cwd")?;
        if cwd.starts_with('/') {
            Ok(cwd)
        } else {
            Err(self.bad("cwd", "must be an absolute path"))
        }
    }

    /// `mcpServers`, checked for shape; `required` as in `session/new` and `load`.
    pub(crate) fn mcp_servers(&self, required: bool) -> Result<Vec<ServerConfig>, RpcError> {
        let servers = if required {
            self.array("mcpServers")?
        } else {
            self.opt_array("mcpServers")?
        };
        servers
            .iter()
            .enumerate()
            .map(|(i, server)| {
                McpServer::read(server).map_err(|what| {
                    RpcError::invalid_params(format!("{}: `mcpServers[{i}]{what}", self.method))
                })
            })
            .collect()
    }
}

/// An MCP server a client asked a session to use, as a server of that session: it joins the
/// configured ones (one of the same name replaces it).
struct McpServer;

impl McpServer {
    /// Reads one entry; the error is the rest of the sentence after its index: ``.command` must
    /// be a string`.
    fn read(server: &Value) -> Result<ServerConfig, String> {
        let Some(map) = server.as_object() else {
            return Err("` must be an object".into());
        };
        let string = |field: &str| match map.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(format!(".{field}` must be a string")),
        };
        let pairs = |field: &str| -> Result<Vec<(String, String)>, String> {
            let Some(Value::Array(items)) = map.get(field) else {
                return Err(format!(".{field}` must be an array"));
            };
            items
                .iter()
                .enumerate()
                .map(|(j, item)| {
                    let name = item.get("name").and_then(Value::as_str);
                    let value = item.get("value").and_then(Value::as_str);
                    match (name, value) {
                        (Some(n), Some(v)) => Ok((n.to_owned(), v.to_owned())),
                        _ => Err(format!(
                            ".{field}[{j}]` must be an object with string `name` and `value`"
                        )),
                    }
                })
                .collect()
        };
        let name = string("name")?;
        match map.get("type").and_then(Value::as_str) {
            Some("http") => Ok(ServerConfig {
                name,
                transport: Transport::Http {
                    url: string("url")?,
                    headers: pairs("headers")?,
                },
                timeout: None,
            }),
            Some("sse") => Err(".type` \"sse\" is MCP's old HTTP+SSE transport, which luxe does not speak: use \"http\" (streamable HTTP)".into()),
            Some(other) => Err(format!(".type` {other:?} is not http or stdio")),
            None => {
                let Some(Value::Array(args)) = map.get("args") else {
                    return Err(".args` must be an array".into());
                };
                let args = args
                    .iter()
                    .map(|a| a.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(".args` must hold strings only")?;
                Ok(ServerConfig {
                    name,
                    transport: Transport::Stdio {
                        command: string("command")?,
                        args,
                        env: pairs("env")?,
                        cwd: None,
                    },
                    timeout: None,
                })
            }
        }
    }
}

/// What the client said it can do at `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClientCapabilities {
    /// `fs.readTextFile`: the client serves files (its unsaved buffers).
    pub(crate) read_text_file: bool,
    /// `fs.writeTextFile`: the client writes files (and shows the edit).
    pub(crate) write_text_file: bool,
    /// `terminal`: the client offers `terminal/*`; remembered, never used (commands run in
    /// luxe's own process groups).
    pub(crate) terminal: bool,
    /// `elicitation.form`: the client can ask the user a question with a form.
    pub(crate) elicitation: bool,
}

impl ClientCapabilities {
    /// Reads `clientCapabilities`; whatever is not a `true` where one is expected is off.
    pub(crate) fn read(params: &Value) -> Self {
        let caps = params.get("clientCapabilities");
        let flag = |path: &[&str]| {
            let mut at = caps;
            for key in path {
                at = at.and_then(|v| v.get(key));
            }
            at.and_then(Value::as_bool).unwrap_or(false)
        };
        Self {
            read_text_file: flag(&["fs", "readTextFile"]),
            write_text_file: flag(&["fs", "writeTextFile"]),
            terminal: flag(&["terminal"]),
            elicitation: caps
                .and_then(|c| c.get("elicitation"))
                .and_then(|e| e.get("form"))
                .is_some_and(Value::is_object),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_bad_field_is_named() {
        let params = json!({"cwd": "rel", "mcpServers": []});
        let p = Params::new("session/new", &params);
        assert_eq!(
            p.cwd().unwrap_err().message,
            "session/new: `cwd` must be an absolute path"
        );
        assert_eq!(
            p.string("sessionId").unwrap_err().message,
            "session/new: `sessionId` is missing"
        );
        let params = json!({"mcpServers": [{"name": "a", "command": 3, "args": [], "env": []}]});
        let p = Params::new("session/new", &params);
        assert_eq!(
            p.mcp_servers(true).unwrap_err().message,
            "session/new: `mcpServers[0].command` must be a string"
        );
    }

    #[test]
    fn mcp_servers_of_every_transport_are_read() {
        let params = json!({"mcpServers": [
            {"name": "a", "command": "srv", "args": ["-x"], "env": [{"name": "K", "value": "v"}]},
            {"type": "http", "name": "b", "url": "http://h", "headers": []},
        ]});
        let servers = Params::new("m", &params).mcp_servers(true).unwrap();
        assert_eq!(servers.len(), 2);
        assert!(matches!(&servers[0].transport, Transport::Stdio { env, .. } if env.len() == 1));
        assert!(
            Params::new("m", &json!({}))
                .mcp_servers(false)
                .unwrap()
                .is_empty()
        );
        assert!(Params::new("m", &json!({})).mcp_servers(true).is_err());
        let sse =
            json!({"mcpServers": [{"type": "sse", "name": "c", "url": "http://h", "headers": []}]});
        let refused = Params::new("m", &sse).mcp_servers(true).unwrap_err();
        assert!(
            refused.message.contains("old HTTP+SSE transport"),
            "{}",
            refused.message
        );
    }

    #[test]
    fn capabilities_default_to_off() {
        let caps = ClientCapabilities::read(
            &json!({"clientCapabilities": {"fs": {"readTextFile": true}}}),
        );
        assert!(caps.read_text_file && !caps.write_text_file && !caps.terminal);
        assert_eq!(
            ClientCapabilities::read(&json!(null)),
            ClientCapabilities::default()
        );
    }
}
