//! The curl side of a request: a thread runs `curl_easy_perform`, whose callbacks feed the
//! [`Shared`] state. Easy handles outlive their requests, each keeping its open connections,
//! so the next request to the same API skips the TCP and TLS handshakes.

use std::io::{self, SeekFrom};
use std::sync::{Arc, Mutex, PoisonError};
use std::{mem, thread};

use curl::easy::{Easy2, Handler, InfoType, List, ReadError, SeekResult, SslOpt, WriteError};
use luxe_core::effects::{HttpMethod, HttpRequest};

use super::Shared;

/// How many idle handles are kept; a session rarely runs more requests at once.
const MAX_IDLE: usize = 4;

/// How much curl reads from the socket at once (its default is 16 KiB): a fast stream takes
/// fewer reads and hands over larger batches.
const RECEIVE_BUFFER: usize = 64 * 1024;

/// Sent unless the request names its own.
const USER_AGENT: &str = concat!("luxe/", env!("CARGO_PKG_VERSION"));

/// Handles between requests.
static IDLE: Mutex<Vec<Easy2<Exchange>>> = Mutex::new(Vec::new());

/// Runs `request` on a new thread, reporting to `shared`.
pub(super) fn spawn(request: HttpRequest, headers: bool, shared: Arc<Shared>) -> io::Result<()> {
    let end = End {
        shared,
        result: None,
    };
    thread::Builder::new()
        .name("luxe-http".into())
        .spawn(move || run(request, headers, end))?;
    Ok(())
}

/// Publishes the end of the response when the thread lets go of it, so the task never waits
/// forever, not even after a panic.
struct End {
    shared: Arc<Shared>,
    result: Option<Result<(), String>>,
}

impl Drop for End {
    fn drop(&mut self) {
        let result = self
            .result
            .take()
            .unwrap_or_else(|| Err("the request's thread stopped".to_owned()));
        self.shared.publish(|state| state.end = Some(result));
    }
}

fn run(request: HttpRequest, want_headers: bool, mut end: End) {
    let mut easy = idle_handle();
    let HttpRequest {
        method,
        url,
        headers,
        body,
    } = request;
    let length = body.len() as u64;
    *easy.get_mut() = Exchange::new(Arc::clone(&end.shared), body, want_headers);
    let result = configure(&mut easy, method, &url, &headers, length).and_then(|()| easy.perform());
    let exchange = easy.get_mut();
    end.result = Some(match result {
        Ok(()) => {
            // A response without a body has not published its head yet.
            exchange.publish_head();
            Ok(())
        }
        // Curl's own words say what happened, e.g. `[18] Transferred a partial file`.
        Err(err) if exchange.head_published => Err(format!("response body: {err}")),
        Err(err) => Err(err.to_string()),
    });
    drop(end);
    *easy.get_mut() = Exchange::default();
    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
    if idle.len() < MAX_IDLE {
        idle.push(easy);
    }
}

/// An idle handle with its options back to curl's defaults, or a new one.
fn idle_handle() -> Easy2<Exchange> {
    let reused = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop();
    match reused {
        Some(mut easy) => {
            // Keeps the handle's connections, DNS and TLS session caches.
            easy.reset();
            easy
        }
        None => Easy2::new(Exchange::default()),
    }
}

fn configure(
    easy: &mut Easy2<Exchange>,
    method: HttpMethod,
    url: &str,
    headers: &[(String, String)],
    length: u64,
) -> Result<(), curl::Error> {
    easy.url(url)?;
    match method {
        HttpMethod::Post => {
            easy.post(true)?;
            easy.post_field_size(length)?;
        }
        HttpMethod::Get => easy.get(true)?,
        HttpMethod::Delete => easy.custom_request("DELETE")?,
    }
    let mut list = List::new();
    for (name, value) in headers {
        // `name:` alone would remove the header; `name;` sends it empty.
        if value.is_empty() {
            list.append(&format!("{name};"))?;
        } else {
            list.append(&format!("{name}: {value}"))?;
        }
    }
    // Curl otherwise holds back bodies over 1 MiB (long conversations) until the server
    // answers `100 Continue`, or for a second: a round trip or more lost per request.
    list.append("Expect:")?;
    easy.http_headers(list)?;
    easy.useragent(USER_AGENT)?;
    // Offers every encoding curl can decode; decoded as the body streams.
    easy.accept_encoding("")?;
    easy.buffer_size(RECEIVE_BUFFER)?;
    // The progress callback is what aborts an abandoned request while the server is silent.
    easy.progress(true)?;
    // A bundle named by SSL_CERT_FILE (corporate CAs), otherwise the operating system's store
    // through rustls-platform-verifier.
    match std::env::var_os("SSL_CERT_FILE") {
        Some(path) if !path.is_empty() => easy.cainfo(path)?,
        _ => easy.ssl_options(SslOpt::new().native_ca(true))?,
    }
    // Curl's account of connecting (not headers, so no keys) when debug logs are on.
    easy.verbose(tracing::enabled!(tracing::Level::DEBUG))
}

/// One request's callbacks; an idle handle's has no `shared`.
#[derive(Default)]
struct Exchange {
    shared: Option<Arc<Shared>>,
    /// The request body and how much of it curl has taken.
    upload: Vec<u8>,
    sent: usize,
    /// From the latest status line and its headers: the response's once its body begins.
    status: u16,
    retry_after: Option<String>,
    /// Every header of the latest response, when the request wants them.
    headers: Option<Vec<(String, String)>>,
    head_published: bool,
}

impl Exchange {
    fn new(shared: Arc<Shared>, upload: Vec<u8>, want_headers: bool) -> Self {
        Self {
            shared: Some(shared),
            upload,
            headers: want_headers.then(Vec::new),
            ..Self::default()
        }
    }

    /// Whether the task still wants the response.
    fn wanted(&self) -> bool {
        self.shared
            .as_ref()
            .is_some_and(|shared| !shared.abandoned())
    }

    fn publish_head(&mut self) {
        if mem::replace(&mut self.head_published, true) {
            return;
        }
        if let Some(shared) = &self.shared {
            let headers = self.headers.take().unwrap_or_default();
            let head = (self.status, self.retry_after.take(), headers);
            shared.publish(|state| state.head = Some(head));
        }
    }
}

impl Handler for Exchange {
    fn write(&mut self, data: &[u8]) -> Result<usize, WriteError> {
        // The body has begun, so this response is the final one.
        self.publish_head();
        match &self.shared {
            Some(shared) if shared.push_body(data) => Ok(data.len()),
            // Taking less than offered aborts the transfer.
            _ => Ok(0),
        }
    }

    fn read(&mut self, into: &mut [u8]) -> Result<usize, ReadError> {
        if !self.wanted() {
            return Err(ReadError::Abort);
        }
        let rest = &self.upload[self.sent..];
        let n = rest.len().min(into.len());
        into[..n].copy_from_slice(&rest[..n]);
        self.sent += n;
        Ok(n)
    }

    fn seek(&mut self, whence: SeekFrom) -> SeekResult {
        // Curl rewinds to send the body again, e.g. on a reused connection the server closed.
        if whence == SeekFrom::Start(0) {
            self.sent = 0;
            SeekResult::Ok
        } else {
            SeekResult::CantSeek
        }
    }

    fn header(&mut self, line: &[u8]) -> bool {
        if let Some(status) = status_of(line) {
            self.status = status;
            self.retry_after = None;
            if let Some(headers) = &mut self.headers {
                headers.clear();
            }
        } else if let Some(value) = retry_after_of(line) {
            self.retry_after = Some(value);
        } else if let Some(headers) = &mut self.headers
            && let Some((name, value)) = std::str::from_utf8(line)
                .ok()
                .and_then(|l| l.split_once(':'))
        {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        self.wanted()
    }

    fn progress(&mut self, _: f64, _: f64, _: f64, _: f64) -> bool {
        self.wanted()
    }

    fn debug(&mut self, kind: InfoType, data: &[u8]) {
        if let InfoType::Text = kind {
            tracing::debug!("{}", String::from_utf8_lossy(data).trim_end());
        }
    }
}

/// The code of a status line (`HTTP/1.1 429 Too Many Requests`).
fn status_of(line: &[u8]) -> Option<u16> {
    let line = std::str::from_utf8(line).ok()?.strip_prefix("HTTP/")?;
    line.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// The value of a `retry-after` header line, as sent.
fn retry_after_of(line: &[u8]) -> Option<String> {
    let (name, value) = std::str::from_utf8(line).ok()?.split_once(':')?;
    name.eq_ignore_ascii_case("retry-after")
        .then(|| value.trim().to_owned())
}
