//! A scripted model provider on 127.0.0.1 that speaks the Anthropic Messages and OpenAI Chat
//! Completions streaming wire formats, so provider clients can be tested without a network.
//!
//! Tests [`push`](ModelServer::push) one [`Reply`] per expected request; the server answers
//! requests in arrival order with the queued replies, rendered in the format the request path
//! asks for, and records every request for later inspection.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::Value;

/// [`Json`] text for a `json!`-like literal whose object keys keep the order written.
/// A value longer than one token goes in parentheses.
macro_rules! ordered {
    ({ $($key:literal : $value:tt),* $(,)? }) => {
        Json(format!(
            "{{{}}}",
            <[String]>::join(&[$(format!(concat!("\"", $key, "\":{}"), ordered!($value).0)),*], ",")
        ))
    };
    ([ $($value:tt),* $(,)? ]) => {
        Json(format!("[{}]", <[String]>::join(&[$(ordered!($value).0),*], ",")))
    };
    (null) => {
        Json("null".to_owned())
    };
    ($value:expr) => {
        ToJson::to_json(&$value)
    };
}

mod openai;

pub use openai::Dialect;

/// An HTTP server that plays scripted model replies; it stops when dropped.
pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

/// One request the server received, recorded before it was answered.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The request method, e.g. `POST`.
    pub method: String,
    /// The request target as sent, query string included.
    pub path: String,
    /// Headers in the order received; names lowercased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Null` when empty, a JSON string holding the text when the
    /// body is not JSON.
    pub body: Value,
}

/// What the server does with one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A 200 streaming response rendered from the script.
    Stream(Script),
    /// A non-streaming error response.
    Status {
        /// The HTTP status code.
        code: u16,
        /// The body to send; `None` sends the provider's own error JSON for `code`.
        body: Option<String>,
        /// The value of a `retry-after` header, if one should be sent.
        retry_after: Option<String>,
    },
    /// A 400 refusal of the request as too long for the context window, in the words of the
    /// server's [`Dialect`] (or Anthropic's).
    Overflow {
        /// The tokens the refused request had.
        prompt_tokens: u64,
        /// The context window the server runs with.
        window: u64,
    },
    /// Read the request, then close the connection without a response.
    Drop,
    /// Read the request, then send nothing and keep the connection open until the client
    /// goes away or the server is dropped.
    Hang,
}

/// A streamed assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The content blocks, in order.
    pub parts: Vec<Part>,
    /// Why the message ends.
    pub stop: Stop,
    /// The token counts to report.
    pub usage: ScriptUsage,
    /// A pause before each SSE event, to let tests observe a stream in progress.
    pub delay: Duration,
    /// Close the connection instead of sending the SSE event after this many, as a network
    /// failure mid-stream would; a count at or past the end of the stream has no effect.
    pub cut_after: Option<usize>,
}

/// One content block of a [`Script`].
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A text block streamed as these deltas.
    Text(Vec<String>),
    /// A thinking block streamed as these deltas, then its signature (Anthropic only).
    Thinking {
        /// The thinking text, one entry per delta.
        deltas: Vec<String>,
        /// The opaque signature that closes the block.
        signature: String,
    },
    /// A tool call whose arguments arrive as fragments of their JSON text.
    ToolCall {
        /// The tool-call id the client must echo back with the result.
        id: String,
        /// The tool name.
        name: String,
        /// The arguments; their compact JSON text is what gets split.
        input: Value,
        /// How many fragments to split the arguments into (at least one, at most one per
        /// character).
        chunks: usize,
    },
}

/// Why a scripted message ends, named after the Anthropic stop reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The model finished its turn (`end_turn` / `stop`).
    EndTurn,
    /// The model wants tool results (`tool_use` / `tool_calls`).
    ToolUse,
    /// The output limit was hit (`max_tokens` / `length`).
    MaxTokens,
    /// The model declined (`refusal` / `content_filter`).
    Refusal,
}

/// Token counts a script reports, mapped onto each provider's usage fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptUsage {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache (Anthropic only).
    pub cache_write: u64,
    /// Output tokens spent on reasoning (OpenAI only).
    pub reasoning: u64,
}

impl Reply {
    /// A text answer split into up to three deltas, ending the turn, with usage
    /// 10 input / 5 output tokens.
    pub fn text(text: &str) -> Self {
        let deltas = split_even(text, 3).into_iter().map(str::to_owned).collect();
        Reply::Stream(
            Script::new(vec![Part::Text(deltas)], Stop::EndTurn).with_usage(ScriptUsage {
                input: 10,
                output: 5,
                ..ScriptUsage::default()
            }),
        )
    }

    /// One tool call with its arguments in three fragments, stopping for tool use, with
    /// usage 10 input / 5 output tokens.
    pub fn tool_call(id: &str, name: &str, input: Value) -> Self {
        let call = Part::ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            input,
            chunks: 3,
        };
        Reply::Stream(
            Script::new(vec![call], Stop::ToolUse).with_usage(ScriptUsage {
                input: 10,
                output: 5,
                ..ScriptUsage::default()
            }),
        )
    }

    /// An error response with the provider's own error body and no `retry-after`.
    pub fn status(code: u16) -> Self {
        Reply::Status {
            code,
            body: None,
            retry_after: None,
        }
    }
}

impl Script {
    /// A script with zero usage, no delay and no cut.
    pub fn new(parts: Vec<Part>, stop: Stop) -> Self {
        Self {
            parts,
            stop,
            usage: ScriptUsage::default(),
            delay: Duration::ZERO,
            cut_after: None,
        }
    }

    /// The same script reporting `usage`.
    pub fn with_usage(self, usage: ScriptUsage) -> Self {
        Self { usage, ..self }
    }

    /// The same script pausing `delay` before each SSE event.
    pub fn with_delay(self, delay: Duration) -> Self {
        Self { delay, ..self }
    }

    /// The same script with the connection closed after `events` SSE events.
    pub fn cut_after(self, events: usize) -> Self {
        Self {
            cut_after: Some(events),
            ..self
        }
    }
}

impl RecordedRequest {
    /// The value of the first header called `name` (compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl ModelServer {
    /// Listens on an ephemeral port of 127.0.0.1 and serves until dropped.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("model server: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("model server: local address");
        let shared = Arc::new(Shared::default());
        let accept = {
            let shared = Arc::clone(&shared);
            thread::Builder::new()
                .name("model-server-accept".into())
                .spawn(move || accept_loop(&listener, &shared))
                .expect("model server: spawn accept thread")
        };
        Self {
            addr,
            shared,
            accept: Some(accept),
        }
    }

    /// The base URL an Anthropic client appends `/v1/messages` to.
    pub fn anthropic_base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL an OpenAI client appends `/chat/completions` to.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Queues `reply` for the next model request that finds no earlier reply queued.
    pub fn push(&self, reply: Reply) {
        self.shared.lock().replies.push_back(reply);
    }

    /// Streams OpenAI-compatible replies, and words refusals, as `dialect`'s server does.
    pub fn speak(&self, dialect: Dialect) {
        self.shared.lock().dialect = dialect;
    }

    /// Answers `path` with `body` (200, JSON) from now on, whatever the method, as a local
    /// server answers `GET /props`, `GET /v1/models` or Ollama's `POST /api/show`; other GETs
    /// get a 404.
    pub fn serve_info(&self, path: &str, body: &Value) {
        self.shared
            .lock()
            .info
            .insert(path.to_owned(), body.to_string());
    }

    /// llama.cpp's answers for a server started with `-c window`, whose chat template cannot
    /// use tools when `tools` is false: `/v1/models` and `/props` as llama-server sends them.
    /// Speaks llama.cpp's dialect from now on.
    pub fn serve_llama_info(&self, window: u64, tools: bool) {
        self.speak(Dialect::LlamaCpp);
        self.serve_info(
            "/v1/models",
            &serde_json::json!({"models":[{"name":"SmolLM2-135M-Instruct.Q4_1.gguf","model":"SmolLM2-135M-Instruct.Q4_1.gguf"}],
                "object":"list","data":[{"id":"SmolLM2-135M-Instruct.Q4_1.gguf","object":"model","created":1764620000,"owned_by":"llamacpp",
                "meta":{"vocab_type":2,"n_vocab":49152,"n_ctx_train":8192,"n_ctx":window,"n_embd":576,"n_params":134515008,"size":85000000}}]}),
        );
        self.serve_info(
            "/props",
            &serde_json::json!({"default_generation_settings":{"n_ctx":window,"params":{}},"total_slots":1,
                "model_path":"SmolLM2-135M-Instruct.Q4_1.gguf","chat_template":"{{ messages }}",
                "chat_template_caps":{"supports_tools":tools,"supports_tool_calls":tools,"supports_system_role":true},
                "modalities":{"vision":false,"audio":false},"build_info":"b1-local"}),
        );
    }

    /// Ollama's answers for `model`, trained for `context_length` tokens, whose Modelfile sets
    /// `num_ctx` if given and which can use tools when `tools`: `/v1/models` and `/api/show` as
    /// Ollama's API reference shows them. Speaks Ollama's dialect from now on.
    pub fn serve_ollama_info(
        &self,
        model: &str,
        context_length: u64,
        num_ctx: Option<u64>,
        tools: bool,
    ) {
        self.speak(Dialect::Ollama);
        self.serve_info(
            "/v1/models",
            &serde_json::json!({"object":"list","data":[{"id":model,"object":"model","created":1764620000,"owned_by":"library"}]}),
        );
        let mut parameters = "stop                           \"<|im_start|>\"\nstop                           \"<|im_end|>\"".to_owned();
        if let Some(num_ctx) = num_ctx {
            parameters.push_str(&format!("\nnum_ctx                        {num_ctx}"));
        }
        let capabilities: &[&str] = if tools {
            &["completion", "tools"]
        } else {
            &["completion"]
        };
        self.serve_info(
            "/api/show",
            &serde_json::json!({"modelfile":"# Modelfile generated by \"ollama show\"\nFROM /root/.ollama/models/blobs/sha256-1","parameters":parameters,
                "template":"{{ .Prompt }}","details":{"parent_model":"","format":"gguf","family":"qwen2","families":["qwen2"],"parameter_size":"494.03M","quantization_level":"Q4_K_M"},
                "model_info":{"general.architecture":"qwen2","general.parameter_count":494032768,"qwen2.block_count":24,"qwen2.context_length":context_length,"qwen2.embedding_length":896,"tokenizer.ggml.model":"gpt2"},
                "capabilities":capabilities,"modified_at":"2026-11-30T10:00:00Z"}),
        );
    }

    /// vLLM's answer for `model` served with `--max-model-len max_model_len`: `/v1/models` as
    /// its OpenAI server sends it. Speaks vLLM's dialect from now on.
    pub fn serve_vllm_info(&self, model: &str, max_model_len: u64) {
        self.speak(Dialect::Vllm);
        self.serve_info(
            "/v1/models",
            &serde_json::json!({"object":"list","data":[{"id":model,"object":"model","created":1764620000,"owned_by":"vllm","root":model,"parent":null,"max_model_len":max_model_len,
                "permission":[{"id":"modelperm-1","object":"model_permission","created":1764620000,"allow_create_engine":false,"allow_sampling":true,"allow_logprobs":true,"allow_search_indices":false,"allow_view":true,"allow_fine_tuning":false,"organization":"*","group":null,"is_blocking":false}]}]}),
        );
    }

    /// Answers the questions about the server (`serve_info`'s paths) only after `delay`, as a
    /// server busy loading its model does.
    pub fn delay_info(&self, delay: Duration) {
        self.shared.lock().info_delay = delay;
    }

    /// Refuses, as vLLM does, every chat request whose prompt and output cap exceed `window`
    /// tokens, counting the prompt as the characters of its JSON `messages` and `tools` at
    /// `chars_per_token` (refused requests take no scripted reply).
    pub fn enforce_window(&self, window: u64, chars_per_token: f64) {
        self.shared.lock().enforced = Some((window, chars_per_token));
    }

    /// Drops the replies still queued (a test that queued more than a turn used).
    pub fn clear_replies(&self) {
        self.shared.lock().replies.clear();
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Every request received so far once there are at least `n`.
    ///
    /// # Panics
    /// When fewer than `n` requests arrive within `timeout`, listing those that did.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<RecordedRequest> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        while state.requests.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let seen: Vec<String> = state
                    .requests
                    .iter()
                    .map(|r| format!("{} {}", r.method, r.path))
                    .collect();
                panic!(
                    "model server: expected {n} requests within {timeout:?}, got {}: {seen:?}",
                    seen.len()
                );
            }
            state = self.shared.wait(state, left);
        }
        state.requests.clone()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.shared.lock().stopped = true;
        self.shared.changed.notify_all();
        if let Some(accept) = self.accept.take() {
            // The accept thread blocks in accept(); a connection of our own wakes it to see
            // the stop flag. If connecting fails the listener is already gone.
            if TcpStream::connect_timeout(&self.addr, Duration::from_secs(1)).is_ok() {
                let _ = accept.join();
            }
        }
        // Only now is the list complete: the accept thread registered every connection it took.
        let conns = std::mem::take(&mut self.shared.lock().conns);
        for (stream, _) in &conns {
            // Wakes threads blocked reading a hanging connection or writing to a client that
            // stopped reading.
            let _ = stream.shutdown(Shutdown::Both);
        }
        for (_, thread) in conns {
            let _ = thread.join();
        }
    }
}

/// State shared between the test's handle and the server threads.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when a request is recorded or the server stops.
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Whose OpenAI-compatible server this plays.
    dialect: Dialect,
    replies: VecDeque<Reply>,
    /// What a GET of a path answers (a local server's `/props`, `/v1/models`).
    info: std::collections::BTreeMap<String, String>,
    /// How long such an answer waits.
    info_delay: Duration,
    /// The window chat requests must fit, and the characters a token counts for.
    enforced: Option<(u64, f64)>,
    requests: Vec<RecordedRequest>,
    stopped: bool,
    /// A handle on each connection's socket, so Drop can unblock its thread, and the thread.
    conns: Vec<(TcpStream, JoinHandle<()>)>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking connection thread must not take the test's assertions down with it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, State>, timeout: Duration) -> MutexGuard<'a, State> {
        self.changed
            .wait_timeout(guard, timeout)
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }

    /// Records `request` and, for a model request, takes the next reply; returns the
    /// request's 1-based number too. One lock for both keeps replies in arrival order.
    fn record(&self, request: RecordedRequest, model_call: bool) -> (usize, Option<Reply>) {
        let mut state = self.lock();
        state.requests.push(request);
        let reply = if model_call {
            state.replies.pop_front()
        } else {
            None
        };
        let number = state.requests.len();
        drop(state);
        self.changed.notify_all();
        (number, reply)
    }

    /// Sleeps for `delay` unless the server stops first; true when it stopped.
    fn pause(&self, delay: Duration) -> bool {
        let deadline = Instant::now() + delay;
        let mut state = self.lock();
        while !state.stopped {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self.wait(state, left);
        }
        true
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.lock().stopped {
            return;
        }
        let Ok(stream) = stream else {
            // Out of descriptors, say: back off rather than spin.
            thread::sleep(Duration::from_millis(10));
            continue;
        };
        let Ok(handle) = stream.try_clone() else {
            continue;
        };
        let conn_shared = Arc::clone(shared);
        let Ok(thread) = thread::Builder::new()
            .name("model-server-conn".into())
            .spawn(move || serve(&stream, &conn_shared))
        else {
            continue;
        };
        let mut state = shared.lock();
        state.conns.retain(|(_, t)| !t.is_finished());
        state.conns.push((handle, thread));
    }
}

/// The wire format a request path asks for.
#[derive(Clone, Copy)]
enum Provider {
    Anthropic,
    OpenAi,
}

impl Provider {
    fn for_path(path: &str) -> Option<Self> {
        match path.split('?').next() {
            Some("/v1/messages") => Some(Provider::Anthropic),
            Some("/v1/chat/completions") => Some(Provider::OpenAi),
            _ => None,
        }
    }

    /// The error body this provider sends with `code`.
    fn error_body(self, code: u16, message: &str) -> String {
        match self {
            Provider::Anthropic => {
                let kind = match code {
                    529 => "overloaded_error",
                    429 => "rate_limit_error",
                    401 => "authentication_error",
                    403 => "permission_error",
                    404 => "not_found_error",
                    413 => "request_too_large",
                    500.. => "api_error",
                    _ => "invalid_request_error",
                };
                ordered!({"type": "error", "error": {"type": kind, "message": message}})
            }
            Provider::OpenAi => {
                let (kind, error_code) = match code {
                    429 => ("requests", Some("rate_limit_exceeded")),
                    401 => ("invalid_request_error", Some("invalid_api_key")),
                    500.. => ("server_error", None),
                    _ => ("invalid_request_error", None),
                };
                ordered!({"error": {"message": message, "type": kind, "param": null,
                                    "code": error_code}})
            }
        }
        .0
    }
}

fn serve(stream: &TcpStream, shared: &Shared) {
    // Streamed events are small writes; Nagle plus delayed ACKs would hold them back.
    let _ = stream.set_nodelay(true);
    answer(stream, shared);
    // Dropping our handle does not close the socket while `State::conns` holds a clone.
    let _ = stream.shutdown(Shutdown::Both);
}

fn answer(stream: &TcpStream, shared: &Shared) {
    let request = match read_request(stream) {
        Ok(Some(request)) => request,
        // Closed before a request line: the Drop wake-up, or a client that gave up.
        Ok(None) => return,
        Err(_) => {
            let body = Provider::Anthropic.error_body(400, "model server: malformed request");
            let _ = respond(stream, 400, &[], &body);
            return;
        }
    };
    let provider = Provider::for_path(&request.path);
    let info = shared.lock().info.get(&request.path).cloned();
    // Questions about the server: GETs, and Ollama's `POST /api/show`.
    if request.method == "GET" || info.is_some() {
        shared.record(request.clone(), false);
        let delay = shared.lock().info_delay;
        if shared.pause(delay) {
            return;
        }
        let _ = match info {
            Some(body) => respond(stream, 200, &[], &body),
            None => respond(stream, 404, &[], "Not Found"),
        };
        return;
    }
    let enforced = shared.lock().enforced;
    let mut counted = None;
    if let (Some(Provider::OpenAi), Some((window, chars_per_token))) = (provider, enforced) {
        let body = &request.body;
        let chars = body["messages"].to_string().chars().count()
            + body
                .get("tools")
                .map_or(0, |t| t.to_string().chars().count());
        let prompt = (chars as f64 / chars_per_token).ceil() as u64;
        let cap = body["max_completion_tokens"]
            .as_u64()
            .or_else(|| body["max_tokens"].as_u64())
            .unwrap_or(0);
        if prompt + cap > window {
            shared.record(request.clone(), false);
            let message = format!(
                "This model's maximum context length is {window} tokens. However, you requested {} tokens ({prompt} in the messages, {cap} in the completion). Please reduce the length of the messages or completion.",
                prompt + cap
            );
            let body = serde_json::json!({"object": "error", "message": message,
                "type": "BadRequestError", "param": null, "code": 400});
            let _ = respond(stream, 400, &[], &body.to_string());
            return;
        }
        counted = Some(prompt);
    }
    let (number, mut reply) = shared.record(request.clone(), provider.is_some());
    // The usage a server enforcing its window reports is its own count, as a real one's is.
    if let (Some(prompt), Some(Reply::Stream(script))) = (counted, reply.as_mut()) {
        script.usage.input = prompt;
    }
    let Some(provider) = provider else {
        let message = format!(
            "model server: no route for {} {}",
            request.method, request.path
        );
        // Either provider's client finds `error.message` in Anthropic's shape.
        let _ = respond(
            stream,
            404,
            &[],
            &Provider::Anthropic.error_body(404, &message),
        );
        return;
    };
    let reply = reply.unwrap_or_else(|| {
        let message = format!(
            "model server: no scripted reply left for request {number} ({} {})",
            request.method, request.path
        );
        Reply::Status {
            code: 500,
            body: Some(provider.error_body(500, &message)),
            retry_after: None,
        }
    });
    let _ = match reply {
        Reply::Stream(script) => stream_script(stream, shared, provider, &script, &request, number),
        Reply::Status {
            code,
            body,
            retry_after,
        } => {
            let body = body.unwrap_or_else(|| provider.error_body(code, reason(code)));
            let extra: Vec<(&str, &str)> = retry_after
                .as_deref()
                .map(|value| ("retry-after", value))
                .into_iter()
                .collect();
            respond(stream, code, &extra, &body)
        }
        Reply::Overflow {
            prompt_tokens,
            window,
        } => {
            let body = match provider {
                Provider::Anthropic => {
                    ordered!({"type": "error", "error": {"type": "invalid_request_error",
                        "message": (format!("prompt is too long: {prompt_tokens} tokens > {window} maximum"))}})
                    .0
                }
                Provider::OpenAi => shared.lock().dialect.overflow_body(prompt_tokens, window),
            };
            respond(stream, 400, &[], &body)
        }
        Reply::Drop => Ok(()),
        Reply::Hang => {
            // Returns when the client closes, or when Drop shuts the socket down.
            let (mut reader, mut sink) = (stream, [0u8; 1024]);
            while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
            Ok(())
        }
    };
}

/// Reads one request; `None` when the connection closed before sending anything.
fn read_request(stream: &TcpStream) -> io::Result<Option<RecordedRequest>> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    let (Some(method), Some(path)) = (words.next(), words.next()) else {
        return Err(invalid("no request line"));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if line.trim().is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').ok_or_else(|| invalid("bad header"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    if header("expect").is_some_and(|v| v == "100-continue") {
        let mut writer = stream;
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        read_chunked(&mut reader)?
    } else if let Some(length) = header("content-length") {
        let length = length.parse().map_err(|_| invalid("bad content-length"))?;
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    } else {
        Vec::new()
    };
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()))
    };
    Ok(Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    }))
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| invalid("bad chunk size"))?;
        if size == 0 {
            break;
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?;
    }
    // Trailers, up to the blank line that ends the body.
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            return Ok(body);
        }
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Error",
    }
}

/// Sends a complete non-streaming JSON response.
fn respond(
    mut stream: &TcpStream,
    code: u16,
    extra: &[(&str, &str)],
    body: &str,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {code} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        reason(code),
        body.len()
    );
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

/// Writes SSE events as HTTP chunks, applying the script's delay and cut.
struct Sink<'a> {
    out: BufWriter<&'a TcpStream>,
    shared: &'a Shared,
    delay: Duration,
    /// Events still allowed before the cut, if the script has one.
    left: Option<usize>,
}

impl Sink<'_> {
    /// Sends one SSE event; an error means the stream must end here (cut, stop, or a client
    /// that went away), and the caller just closes the connection.
    fn send(&mut self, event: &str) -> io::Result<()> {
        if !self.delay.is_zero() {
            // Flushing before the pause is what lets the client see every earlier event now.
            self.out.flush()?;
            if self.shared.pause(self.delay) {
                return Err(io::Error::other("model server stopped"));
            }
        }
        if let Some(left) = &mut self.left {
            if *left == 0 {
                self.out.flush()?;
                return Err(io::Error::other("scripted cut"));
            }
            *left -= 1;
        }
        write!(self.out, "{:x}\r\n{event}\r\n", event.len())
    }

    fn finish(mut self) -> io::Result<()> {
        self.out.write_all(b"0\r\n\r\n")?;
        self.out.flush()
    }
}

fn stream_script(
    stream: &TcpStream,
    shared: &Shared,
    provider: Provider,
    script: &Script,
    request: &RecordedRequest,
    serial: usize,
) -> io::Result<()> {
    // 64 KiB batches keep a zero-delay stream of 100,000 deltas from costing a syscall each.
    let mut out = BufWriter::with_capacity(64 * 1024, stream);
    out.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
          transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
    )?;
    let mut sink = Sink {
        out,
        shared,
        delay: script.delay,
        left: script.cut_after,
    };
    let model = request.body["model"].as_str().unwrap_or("unknown");
    match provider {
        Provider::Anthropic => anthropic(&mut sink, script, model, serial)?,
        Provider::OpenAi => {
            let usage = request.body["stream_options"]["include_usage"] == true;
            let dialect = shared.lock().dialect;
            openai::stream(&mut sink, dialect, script, model, serial, usage)?;
        }
    }
    sink.finish()
}

/// Anthropic names each event after its payload's `type`, which every payload here lists
/// first, as the API does.
fn anthropic_event(sink: &mut Sink, data: Json) -> io::Result<()> {
    let name = data
        .0
        .strip_prefix(r#"{"type":""#)
        .and_then(|rest| rest.split('"').next())
        .expect("every Anthropic payload starts with its type");
    sink.send(&format!("event: {name}\ndata: {}\n\n", data.0))
}

fn anthropic(sink: &mut Sink, script: &Script, model: &str, serial: usize) -> io::Result<()> {
    let usage = script.usage;
    let id = format!("msg_{serial:024}");
    anthropic_event(
        sink,
        ordered!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": (usage.input),
                      "cache_creation_input_tokens": (usage.cache_write),
                      "cache_read_input_tokens": (usage.cache_read), "output_tokens": 1}}}),
    )?;
    // The real API pings right after the first block opens, with this spacing.
    const PING: &str = "event: ping\ndata: {\"type\": \"ping\"}\n\n";
    for (index, part) in script.parts.iter().enumerate() {
        let (block, deltas): (Json, Vec<Json>) = match part {
            Part::Text(texts) => (
                ordered!({"type": "text", "text": ""}),
                texts
                    .iter()
                    .map(|t| ordered!({"type": "text_delta", "text": t}))
                    .collect(),
            ),
            Part::Thinking { deltas, signature } => (
                ordered!({"type": "thinking", "thinking": ""}),
                deltas
                    .iter()
                    .map(|t| ordered!({"type": "thinking_delta", "thinking": t}))
                    .chain([ordered!({"type": "signature_delta", "signature": signature})])
                    .collect(),
            ),
            Part::ToolCall {
                id,
                name,
                input,
                chunks,
            } => (
                ordered!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                split_even(&input.to_string(), *chunks)
                    .into_iter()
                    .map(|f| ordered!({"type": "input_json_delta", "partial_json": f}))
                    .collect(),
            ),
        };
        anthropic_event(
            sink,
            ordered!({"type": "content_block_start", "index": index, "content_block": block}),
        )?;
        if index == 0 {
            sink.send(PING)?;
        }
        for delta in deltas {
            anthropic_event(
                sink,
                ordered!({"type": "content_block_delta", "index": index, "delta": delta}),
            )?;
        }
        anthropic_event(
            sink,
            ordered!({"type": "content_block_stop", "index": index}),
        )?;
    }
    if script.parts.is_empty() {
        sink.send(PING)?;
    }
    let stop_reason = match script.stop {
        Stop::EndTurn => "end_turn",
        Stop::ToolUse => "tool_use",
        Stop::MaxTokens => "max_tokens",
        Stop::Refusal => "refusal",
    };
    anthropic_event(
        sink,
        ordered!({"type": "message_delta",
                  "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                  "usage": {"output_tokens": (usage.output)}}),
    )?;
    anthropic_event(sink, ordered!({"type": "message_stop"}))
}

/// JSON text. Rendered payloads are built as text rather than [`Value`]s because a `Value`
/// sorts object keys (serde_json's `preserve_order` is off in this workspace), while the
/// providers send them in a fixed order that clients may lean on, e.g. `type` first.
struct Json(String);

/// Values that can stand in an [`ordered!`] literal.
trait ToJson {
    fn to_json(&self) -> Json;
}

impl ToJson for Json {
    fn to_json(&self) -> Json {
        Json(self.0.clone())
    }
}

impl ToJson for str {
    fn to_json(&self) -> Json {
        Json(Value::from(self).to_string())
    }
}

impl ToJson for String {
    fn to_json(&self) -> Json {
        self.as_str().to_json()
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self) -> Json {
        (**self).to_json()
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Json {
        self.as_ref()
            .map_or_else(|| Json("null".to_owned()), ToJson::to_json)
    }
}

macro_rules! integers_to_json {
    ($($t:ty),*) => {
        $(impl ToJson for $t {
            fn to_json(&self) -> Json {
                Json(self.to_string())
            }
        })*
    };
}
integers_to_json!(i32, u64, usize);

/// `text` cut into `pieces` runs of nearly equal character counts, never splitting a
/// character; fewer pieces when the text is shorter, and one (maybe empty) at least.
fn split_even(text: &str, pieces: usize) -> Vec<&str> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let chars = bounds.len() - 1;
    let pieces = pieces.clamp(1, chars.max(1));
    (0..pieces)
        .map(|k| &text[bounds[k * chars / pieces]..bounds[(k + 1) * chars / pieces]])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split_even;

    #[test]
    fn split_even_keeps_characters_whole_and_covers_the_text() {
        assert_eq!(split_even("hello", 3), ["h", "el", "lo"]);
        assert_eq!(split_even("héllo wörld", 4).concat(), "héllo wörld");
        assert_eq!(split_even("ab", 5), ["a", "b"]);
        assert_eq!(split_even("", 3), [""]);
        assert_eq!(split_even("abc", 0), ["abc"]);
    }
}
