//! Streamable HTTP, MCP's network transport: every message luxe sends is a POST to the
//! server's URL; the answer is one JSON message, an SSE stream of messages (a call's progress,
//! then its result), or `202 Accepted` for a notification. The server names its session in
//! `Mcp-Session-Id`, which every later request carries, with `MCP-Protocol-Version`. Once
//! initialized, luxe listens on a GET stream for what the server says outside an answer
//! (`notifications/tools/list_changed`); `405` means the server offers none. At the end luxe
//! DELETEs the session.

use std::collections::BTreeMap;
use std::time::Duration;

use super::Io;
use super::jsonrpc::MAX_MESSAGE_BYTES;
use crate::effects::{EffectId, Output};
use crate::effects::{HttpMethod, HttpRequest};
use crate::model::sse::SseParser;

/// How much of an error answer's body is kept for the reason.
const ERROR_BODY_MAX: usize = 500;

/// The longest luxe's exit waits for a session's `DELETE` to be answered.
pub const DELETE_WAIT: Duration = Duration::from_millis(500);

/// Where the GET stream for the server's own messages is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listening {
    /// Not opened yet (before `initialize` is answered), or it ended: opened again with the
    /// next POST.
    Closed,
    /// The GET stream is open, or being opened, under this effect id.
    Open(EffectId),
    /// The server offers none (`405`) or refused it: never asked again in this session.
    Refused,
}

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
    listening: Listening,
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
            listening: Listening::Closed,
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
        let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
        headers.extend(self.request_headers("application/json, text/event-stream"));
        self.send(HttpMethod::Post, headers, body, request, io);
        // The first POST after `initialize` (`notifications/initialized`) opens it.
        if self.version.is_some() {
            self.listen(io);
        }
    }

    /// Opens the GET stream on which the server says what is not an answer to a POST, unless
    /// it is open or refused.
    fn listen(&mut self, io: &mut Io<'_>) {
        if self.listening == Listening::Closed {
            let headers = self.request_headers("text/event-stream");
            let id = self.send(HttpMethod::Get, headers, Vec::new(), None, io);
            self.listening = Listening::Open(id);
        }
    }

    /// Ends the server's session (the link is closing for good): a `DELETE` that luxe does
    /// not wait for, except at exit, for at most [`DELETE_WAIT`]; a `405` means the server
    /// ends its sessions itself.
    pub fn end_session(&mut self, io: &mut Io<'_>) {
        if self.session.is_none() {
            return;
        }
        io.push(Output::HttpFarewell {
            request: HttpRequest {
                method: HttpMethod::Delete,
                url: self.url.clone(),
                headers: self.request_headers("application/json, text/event-stream"),
                body: Vec::new(),
            },
            within: DELETE_WAIT,
        });
    }

    /// The headers of every request: what is accepted, the session, the version, then the
    /// configured ones.
    fn request_headers(&self, accept: &str) -> Vec<(String, String)> {
        let mut headers = vec![("Accept".to_owned(), accept.to_owned())];
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
        }
        if let Some(version) = &self.version {
            headers.push(("MCP-Protocol-Version".to_owned(), version.clone()));
        }
        headers.extend(self.headers.iter().cloned());
        headers
    }

    fn send(
        &mut self,
        method: HttpMethod,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        request: Option<u64>,
        io: &mut Io<'_>,
    ) -> EffectId {
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
                method,
                url: self.url.clone(),
                headers,
                body,
            },
        });
        id
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
        self.listening = Listening::Closed;
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

    /// Records the HTTP status of POST `id`'s response: a body after a status of 400 or more is
    /// read as an error, not as messages.
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
        if self.listening == Listening::Open(id) {
            return self.stopped_listening(post.status);
        }
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

    /// The GET stream ended with `status`: its messages were taken as they came. The stream is
    /// optional, so only the end of the session fails the server; another refusal means the
    /// server offers none (`405` says so), and a stream that just ended is opened again.
    fn stopped_listening(&mut self, status: Option<u16>) -> Result<Vec<Vec<u8>>, String> {
        self.listening = match status {
            Some(404) if self.session.is_some() => {
                return Err("it ended its session (HTTP 404)".to_owned());
            }
            Some(status) if status >= 400 => Listening::Refused,
            _ => Listening::Closed,
        };
        Ok(Vec::new())
    }

    /// A request failed on the way; the GET stream failing is no reason (the POSTs will tell
    /// if the server is gone).
    pub fn failed(&mut self, id: EffectId, error: &str) -> Option<String> {
        self.posts.remove(&id)?;
        if self.listening == Listening::Open(id) {
            self.listening = Listening::Closed;
            return None;
        }
        Some(format!("cannot reach {}: {error}", self.url))
    }
}
