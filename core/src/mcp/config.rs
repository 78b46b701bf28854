//! `mcpServers` in a settings file, in the shape users write for other agents:
//! `{"name": {"command", "args", "env", "cwd"}}` for a stdio server (`"type": "stdio"` allowed)
//! and `{"name": {"type": "http", "url", "headers"}}` for streamable HTTP, each with optional
//! `"disabled"` and `"timeout"` (ms). Parsed strictly: an unknown key, a wrong type, a refused
//! transport, URL or timeout is an error at its line and column; an entry that lacks what its
//! transport needs, or mixes two transports' keys, is one at the server's name.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

/// One configured server, ready to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The key it is configured under; its tools are `mcp__<name>__…`.
    pub name: String,
    /// How luxe talks to it.
    pub transport: Transport,
    /// How long one request may wait for its answer; `None` for the session's default.
    pub timeout: Option<Duration>,
}

/// How luxe reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking JSON-RPC lines on stdin and stdout.
    Stdio {
        /// The program (looked up on PATH).
        command: String,
        /// Its arguments, as configured (`${VAR}` is not expanded in them).
        args: Vec<String>,
        /// Variables it gets on top of the minimal environment; `${VAR}` not yet expanded.
        env: Vec<(String, String)>,
        /// Its working directory; the session's when absent.
        cwd: Option<String>,
    },
    /// Streamable HTTP: JSON-RPC POSTed to one URL.
    Http {
        /// The one URL every request is POSTed to, `http://` or `https://`.
        url: String,
        /// Headers sent with every request; `${VAR}` not yet expanded.
        headers: Vec<(String, String)>,
    },
}

impl Transport {
    /// `stdio` or `http`, as `mcp_servers_updated` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
        }
    }
}

/// One entry of `mcpServers` as a settings file gives it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawEntry")]
pub struct ServerEntry {
    /// `"disabled": true`: configured, not started.
    pub disabled: bool,
    /// How to reach it.
    pub transport: Transport,
    /// `"timeout"`, in milliseconds (at least 1): how long one request to the server may wait for
    /// its answer; absent, the session's default.
    pub timeout_ms: Option<u64>,
}

impl ServerEntry {
    /// The server to start under `name`, unless it is disabled.
    pub fn to_config(&self, name: &str) -> Option<ServerConfig> {
        (!self.disabled).then(|| ServerConfig {
            name: name.to_owned(),
            transport: self.transport.clone(),
            timeout: self.timeout_ms.map(Duration::from_millis),
        })
    }
}

/// One entry as written. A value wrong by itself (`type`, `url`, `timeout`) is refused as it is
/// read, so that the error is placed at the value; what an entry lacks, or keys that do not fit
/// together, only the whole entry tells, and that error is placed at the server's name.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(rename = "type")]
    kind: Option<Kind>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: Option<HttpUrl>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    disabled: bool,
    timeout: Option<TimeoutMs>,
}

/// `"type"`: a transport luxe speaks.
#[derive(Deserialize)]
#[serde(try_from = "String")]
enum Kind {
    Stdio,
    Http,
}

impl TryFrom<String> for Kind {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "stdio" => Ok(Self::Stdio),
            "http" => Ok(Self::Http),
            "sse" => Err("the \"sse\" transport is deprecated and not supported: use \"type\": \"http\" (streamable HTTP)".to_owned()),
            other => Err(format!(
                "unknown server type {other:?} (known: \"stdio\", \"http\")"
            )),
        }
    }
}

/// An http server's `"url"`, refused unless it starts with `http://` or `https://`.
#[derive(Deserialize)]
#[serde(try_from = "String")]
struct HttpUrl(String);

impl TryFrom<String> for HttpUrl {
    type Error = String;

    fn try_from(url: String) -> Result<Self, String> {
        if url.starts_with("http://") || url.starts_with("https://") {
            Ok(Self(url))
        } else {
            Err(format!("{url:?} is not an http:// or https:// URL"))
        }
    }
}

/// `"timeout"`: at least 1 ms.
#[derive(Deserialize)]
#[serde(try_from = "u64")]
struct TimeoutMs(u64);

impl TryFrom<u64> for TimeoutMs {
    type Error = &'static str;

    fn try_from(ms: u64) -> Result<Self, &'static str> {
        if ms == 0 {
            Err("\"timeout\" must be at least 1 ms")
        } else {
            Ok(Self(ms))
        }
    }
}

impl TryFrom<RawEntry> for ServerEntry {
    type Error = String;

    fn try_from(raw: RawEntry) -> Result<Self, String> {
        let stdio_only = !raw.args.is_empty() || !raw.env.is_empty() || raw.cwd.is_some();
        let transport = match (raw.kind, raw.command, raw.url) {
            (None | Some(Kind::Stdio), Some(command), None) if !command.is_empty() => {
                if !raw.headers.is_empty() {
                    return Err("\"headers\" belong to an http server, not a stdio one".into());
                }
                Transport::Stdio {
                    command,
                    args: raw.args,
                    env: raw.env.into_iter().collect(),
                    cwd: raw.cwd,
                }
            }
            (None | Some(Kind::Http), None, Some(HttpUrl(url))) => {
                if stdio_only {
                    return Err(
                        "\"args\", \"env\" and \"cwd\" belong to a stdio server, not an http one"
                            .into(),
                    );
                }
                Transport::Http {
                    url,
                    headers: raw.headers.into_iter().collect(),
                }
            }
            (None | Some(Kind::Stdio), _, None) => {
                return Err("a stdio server needs a non-empty \"command\"".into());
            }
            (Some(Kind::Http), _, None) => return Err("an http server needs a \"url\"".into()),
            (_, _, Some(_)) => {
                return Err("give either \"command\" (stdio) or \"url\" (http), not both".into());
            }
        };
        Ok(Self {
            disabled: raw.disabled,
            transport,
            timeout_ms: raw.timeout.map(|TimeoutMs(ms)| ms),
        })
    }
}

/// `text` with every `${VAR}` (or `${VAR:-default}`) replaced from `lookup`; an unset variable
/// without a default is an error naming it.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("{text:?} has a ${{ without its }}"));
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(format!("the variable {name} is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Luxe's environment as io read it, for `${VAR}` and the minimal environment of stdio servers.
/// Its values never reach a log.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct HostEnv(pub Vec<(String, String)>);

impl std::fmt::Debug for HostEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(k, _)| k))
            .finish()
    }
}

/// What a stdio server inherits of luxe's environment, as the official SDKs pass it; the rest
/// (the providers' keys above all) it gets only when its `env` names it.
pub const INHERITED: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR",
];

impl HostEnv {
    /// The variables among `vars` that are set and UTF-8.
    pub fn from_vars(vars: &crate::process_env::EnvVars) -> Self {
        let names = vars.names().into_iter();
        Self(
            names
                .filter_map(|name| {
                    let value = vars.get(&name)?.to_owned();
                    Some((name, value))
                })
                .collect(),
        )
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// The variables a stdio server inherits.
    pub fn inherited(&self) -> Vec<(String, String)> {
        self.0
            .iter()
            .filter(|(k, _)| INHERITED.contains(&k.as_str()))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: &str) -> Result<ServerEntry, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn stdio_and_http_entries_and_what_is_refused() {
        let stdio =
            entry(r#"{"command":"npx","args":["-y","x"],"env":{"A":"1"},"timeout":500}"#).unwrap();
        assert_eq!(stdio.timeout_ms, Some(500));
        assert!(
            matches!(stdio.transport, Transport::Stdio { ref command, .. } if command == "npx")
        );
        let http =
            entry(r#"{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"A":"b"}}"#).unwrap();
        assert_eq!(http.transport.kind(), "http");
        assert!(
            entry(r#"{"type":"stdio","command":"x","disabled":true}"#)
                .unwrap()
                .to_config("x")
                .is_none()
        );
        for (bad, says) in [
            (r#"{"type":"sse","url":"http://x"}"#, "not supported"),
            (r#"{"command":"x","colour":1}"#, "unknown field `colour`"),
            (r#"{"command":5}"#, "invalid type"),
            (r#"{"args":["a"]}"#, "needs a non-empty \"command\""),
            (r#"{"type":"http"}"#, "needs a \"url\""),
            (r#"{"command":"x","url":"http://x"}"#, "not both"),
            (r#"{"url":"ftp://x"}"#, "not an http"),
            (r#"{"type":"ws","url":"http://x"}"#, "unknown server type"),
            (r#"{"url":"http://x","env":{"A":"1"}}"#, "belong to a stdio"),
            (r#"{"command":"x","timeout":0}"#, "at least 1 ms"),
        ] {
            let err = entry(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn variables_expand_with_defaults_and_unset_ones_are_named() {
        let lookup = |name: &str| (name == "TOKEN").then(|| "t0k".to_owned());
        assert_eq!(expand("Bearer ${TOKEN}", &lookup).unwrap(), "Bearer t0k");
        assert_eq!(expand("${NOPE:-d}/${TOKEN}", &lookup).unwrap(), "d/t0k");
        assert_eq!(expand("plain", &lookup).unwrap(), "plain");
        assert!(
            expand("${NOPE}", &lookup)
                .unwrap_err()
                .contains("NOPE is not set")
        );
        assert!(expand("${TOKEN", &lookup).is_err());
    }
}
