//! [`HttpRequest`]: an HTTP request io is asked to send, built whole by core (a model request,
//! a question to a server about itself, an MCP message).

/// How an [`HttpRequest`] is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMethod {
    /// A request with a JSON body: a model request, or a question such as Ollama's `/api/show`.
    Post,
    /// A question to the server about itself (`/props`, `/v1/models`), or an MCP server's
    /// stream of its own messages; the body is empty.
    Get,
    /// The end of an MCP server's session; the body is empty.
    Delete,
}

/// An HTTP request for io to send, fully built (method, URL, headers, JSON body).
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// POST for model requests, GET for what luxe asks a server about itself.
    pub method: HttpMethod,
    /// The full URL.
    pub url: String,
    /// Headers, in order (content type, authentication, versions).
    pub headers: Vec<(String, String)>,
    /// The JSON body, as bytes; empty for GET and DELETE.
    pub body: Vec<u8>,
}

impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<_> = self
            .headers
            .iter()
            .map(|(name, value)| {
                let secret = name.eq_ignore_ascii_case("authorization")
                    || name.eq_ignore_ascii_case("x-api-key");
                (
                    name.as_str(),
                    if secret { "<redacted>" } else { value.as_str() },
                )
            })
            .collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body_bytes", &self.body.len())
            .finish()
    }
}
