//! Streamable HTTP, MCP's network transport: every message luxe sends is a POST to the
//! server's URL; the answer is one JSON message, an SSE stream of messages (a call's progress,
//! then its result), or `202 Accepted` for a notification. The server names its session in
//! `Mcp-Session-Id`, which every later POST carries, with `MCP-Protocol-Version`.

use std::collections::BTreeMap;

use super::Io;
use super::jsonrpc::MAX_MESSAGE_BYTES;
use crate::effects::{EffectId, Output};
use crate::model::sse::SseParser;
use crate::model::wire::{HttpMethod, HttpRequest};

/// How much of an error answer's body is kept for the reason.
const ERROR_BODY_MAX: usize = 500;

/// One server's HTTP side: where it is, its session, and the POSTs in flight.
#[derive(Debug)]
pub struct HttpLink {
    url: String,
    /// The configured headers, expanded.
    headers: Vec<(String, String)>,
    session: Option<String>,
    /// The negotiated version, sent on every POST after `initialize`.
    version: Option<String>,
    posts: BTreeMap<EffectId, Post>,
}

/// A POST in flight and what its answer is so far.
#[derive(Debug, Default)]
struct Post {
    /// The request it carries, when it carries one (not a notification or an answer).
    request: Option<u64>,
    status: Option<u16>,
    sse: Option<SseParser>,
    body: Vec<u8>,
}

impl HttpLink {
    /// A link to `url` sending `headers` (already expanded).
    pub fn new(url: String, headers: Vec<(String, String)>) -> Self {
        Self {
            url,
            headers,
            session: None,
            version: None,
            posts: BTreeMap::new(),
        }
    }

    /// Whether `id` is one of this link's POSTs.
    pub fn owns(&self, id: EffectId) -> bool {
        self.posts.contains_key(&id)
    }

    /// Sends the negotiated version from now on.
    pub fn negotiated(&mut self, version: &str) {
        self.version = Some(version.to_owned());
    }

    /// POSTs one message (`request`: the id of the request it is, if one).
    pub fn post(&mut self, body: Vec<u8>, request: Option<u64>, io: &mut Io<'_>) {
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            (
                "Accept".to_owned(),
                "application/json, text/event-stream".to_owned(),
            ),
        ];
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
        }
        if let Some(version) = &self.version {
            headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
        }
        headers.extend(self.headers.iter().cloned());
        let id = io.id();
        self.posts.insert(
            id,
            Post {
                request,
                ..Post::default()
            },
        );
        io.push(Output::HttpExchange {
            id,
            request: HttpRequest {
                method: HttpMethod::Post,
                url: self.url.clone(),
                headers,
                body,
            },
        });
    }

    /// Abandons the POST that carries `request` (a cancelled call's stream).
    pub fn abandon(&mut self, request: u64, io: &mut Io<'_>) {
        let found = self.posts.iter().find(|(_, p)| p.request == Some(request));
        if let Some((&id, _)) = found {
            self.posts.remove(&id);
            io.cancel_http(id);
        }
    }

    /// Abandons every POST and forgets the session (the server failed or stopped).
    pub fn close(&mut self, io: &mut Io<'_>) {
        for id in std::mem::take(&mut self.posts).into_keys() {
            io.cancel_http(id);
        }
        self.session = None;
        self.version = None;
    }

    /// A response's headers: its session, and whether its body is an event stream.
    pub fn headers(&mut self, id: EffectId, headers: &[(String, String)]) {
        let Some(post) = self.posts.get_mut(&id) else {
            return;
        };
        for (name, value) in headers {
            match name.as_str() {
                "mcp-session-id" if !value.is_empty() => self.session = Some(value.clone()),
                "content-type" if value.starts_with("text/event-stream") => {
                    post.sse = Some(SseParser::new());
                }
                _ => {}
            }
        }
    }

    /// A response's status.
    pub fn status(&mut self, id: EffectId, status: u16) {
        if let Some(post) = self.posts.get_mut(&id) {
            post.status = Some(status);
        }
    }

    /// More of a body: the messages it completes, or why the server is broken.
    pub fn body(&mut self, id: EffectId, bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
        let Some(post) = self.posts.get_mut(&id) else {
            return Ok(Vec::new());
        };
        let failed = post.status.is_some_and(|s| s >= 400);
        match &mut post.sse {
            Some(sse) if !failed => {
                let mut messages = Vec::new();
                sse.push(bytes, &mut |event| {
                    if event.event.is_none_or(|e| e == "message") && !event.data.trim().is_empty() {
                        messages.push(event.data.as_bytes().to_vec());
                    }
                });
                Ok(messages)
            }
            _ => {
                post.body.extend_from_slice(bytes);
                if post.body.len() > MAX_MESSAGE_BYTES {
                    return Err(format!(
                        "it answered with more than {} MB",
                        MAX_MESSAGE_BYTES / (1024 * 1024)
                    ));
                }
                Ok(Vec::new())
            }
        }
    }

    /// A response ended: its last message, or why the server is broken.
    pub fn ended(&mut self, id: EffectId) -> Result<Vec<Vec<u8>>, String> {
        let Some(post) = self.posts.remove(&id) else {
            return Ok(Vec::new());
        };
        match post.status {
            Some(404) if self.session.is_some() => {
                Err("it ended its session (HTTP 404)".to_owned())
            }
            Some(status) if status >= 400 => {
                let end = post.body.len().min(ERROR_BODY_MAX);
                let body = String::from_utf8_lossy(&post.body[..end]);
                Err(format!("it answered HTTP {status}: {}", body.trim()))
            }
            _ if post.sse.is_some() => Ok(Vec::new()),
            _ if post.body.iter().all(u8::is_ascii_whitespace) => Ok(Vec::new()),
            _ => Ok(vec![post.body]),
        }
    }

    /// A POST failed on the way.
    pub fn failed(&mut self, id: EffectId, error: &str) -> Option<String> {
        self.posts
            .remove(&id)
            .map(|_| format!("cannot reach {}: {error}", self.url))
    }
}
