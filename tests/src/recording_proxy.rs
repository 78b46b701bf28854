//! A proxy on 127.0.0.1 between luxe and a real model server that keeps every exchange: the
//! request's path and JSON body, and the whole response as the server sent it. Each connection
//! carries one request (the proxy asks the server to close after it, and closes the client's
//! side then), and bytes flow through as they come, so a stream stays a stream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use serde_json::Value;

/// One request and what the server answered.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// `POST /v1/chat/completions`, `GET /props`, …
    pub request_line: String,
    /// The request's body, when it was JSON.
    pub body: Value,
    /// The response, status line, headers and (chunked) body, as sent.
    pub response: String,
}

impl Exchange {
    /// Whether this was a chat completion request.
    pub fn is_chat(&self) -> bool {
        self.request_line.contains("/chat/completions")
    }

    /// The output cap the request asked for.
    pub fn output_cap(&self) -> Option<u64> {
        (self.body.get("max_completion_tokens"))
            .or_else(|| self.body.get("max_tokens"))
            .and_then(Value::as_u64)
    }

    /// The prompt's tokens as the server counted them: a stream's usage, or a refusal's
    /// `n_prompt_tokens`.
    pub fn prompt_tokens(&self) -> Option<u64> {
        ["\"prompt_tokens\":", "\"n_prompt_tokens\":"]
            .iter()
            .find_map(|key| number_after(&self.response, key))
    }

    /// Whether the server refused the request as too long.
    pub fn refused_as_too_long(&self) -> bool {
        self.response.contains("exceed_context_size_error")
            || self.response.contains("exceeds the available context size")
    }
}

/// The last number that follows `key` in `text`.
fn number_after(text: &str, key: &str) -> Option<u64> {
    let at = text.rfind(key)? + key.len();
    let digits: String = text[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The proxy; it stops accepting when dropped.
pub struct RecordingProxy {
    port: u16,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    /// Connections accepted and not yet recorded.
    open: Arc<AtomicUsize>,
}

impl RecordingProxy {
    /// Listens on a free port of 127.0.0.1 and forwards to `127.0.0.1:upstream`.
    pub fn start(upstream: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port for the proxy");
        let port = listener.local_addr().expect("its address").port();
        let exchanges = Arc::new(Mutex::new(Vec::new()));
        let open = Arc::new(AtomicUsize::new(0));
        let (kept, counting) = (Arc::clone(&exchanges), Arc::clone(&open));
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (kept, counting) = (Arc::clone(&kept), Arc::clone(&counting));
                counting.fetch_add(1, Ordering::SeqCst);
                thread::spawn(move || {
                    if let Some(exchange) = relay(client, upstream) {
                        kept.lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(exchange);
                    }
                    counting.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Self {
            port,
            exchanges,
            open,
        }
    }

    /// The base URL luxe takes as `OPENAI_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every exchange, in the order they ended, once no connection is open (waiting at most
    /// `within`: a response luxe has read whole may not be recorded yet).
    pub fn exchanges_when_idle(&self, within: std::time::Duration) -> Vec<Exchange> {
        let deadline = std::time::Instant::now() + within;
        while self.open.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < deadline {
            thread::sleep(std::time::Duration::from_millis(10));
        }
        self.exchanges()
    }

    /// Every exchange so far, in the order they ended.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.exchanges
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Forwards one request from `client` and its response back; the exchange, unless either side
/// went away first.
fn relay(client: TcpStream, upstream: u16) -> Option<Exchange> {
    let mut reader = BufReader::new(client.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut head = request_line.clone();
    let mut length = 0usize;
    let mut expects_continue = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().ok()?;
        }
        expects_continue |= lower.starts_with("expect:") && lower.contains("100-continue");
        if !lower.starts_with("connection:") && !lower.starts_with("expect:") {
            head.push_str(&line);
        }
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut client = client;
    if expects_continue {
        // The body comes once it is asked for; the server gets it whole, without the wait.
        client.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").ok()?;
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let mut server = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    server.write_all(head.as_bytes()).ok()?;
    server.write_all(&body).ok()?;
    let mut response = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match server.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                response.extend_from_slice(&chunk[..n]);
                if client.write_all(&chunk[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    Some(Exchange {
        request_line: request_line.trim_end().to_owned(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        response: String::from_utf8_lossy(&response).into_owned(),
    })
}
