//! Model HTTP: a POST whose response streams back chunk by chunk. The only module that knows
//! the HTTP client (isahc), so it can be swapped.

use std::error::Error;
use std::sync::LazyLock;

use isahc::config::{Configurable, ExpectContinue};
use isahc::http::Method;
use isahc::{AsyncBody, HttpClient, Request};
use luxe_core::effects::EffectId;
use luxe_core::model::wire::HttpRequest;
use smol::channel::Sender;
use smol::io::AsyncReadExt;

use crate::effects::Completion;

/// How much of a response body one read takes.
const READ_CHUNK: usize = 64 * 1024;

/// One client for the process: building one starts curl's agent thread, too slow per request.
/// No timeouts are set: the core runs its own timers and cancels.
static CLIENT: LazyLock<Result<HttpClient, String>> = LazyLock::new(|| {
    HttpClient::builder()
        // curl otherwise holds back bodies over 1 MiB (long conversations) until the server
        // answers `100 Continue`, or for a second: a round trip or more lost per request.
        .expect_continue(ExpectContinue::disabled())
        .build()
        .map_err(|err| format!("cannot start the HTTP client: {err}"))
});

/// Sends `request` and streams the response to `sender` as `HttpResponse`, `HttpBody`*, then
/// `HttpEnded` or `HttpFailed`. Dropping the future abandons the request and its connection;
/// curl notices only when more of the response arrives, so a server gone silent keeps its
/// connection until it speaks or closes.
pub(crate) async fn post(id: EffectId, request: HttpRequest, sender: Sender<Completion>) {
    let completion = match exchange(id, request, &sender).await {
        Ok(()) => Completion::HttpEnded { id },
        Err(error) => Completion::HttpFailed { id, error },
    };
    // The receiver is gone only when the session is over.
    let _ = sender.send(completion).await;
}

async fn exchange(
    id: EffectId,
    request: HttpRequest,
    sender: &Sender<Completion>,
) -> Result<(), String> {
    let client = CLIENT.as_ref().map_err(Clone::clone)?;
    let mut builder = Request::builder().method(Method::POST).uri(&request.url);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .body(AsyncBody::from(request.body))
        .map_err(|err| format!("invalid request: {err}"))?;
    let response = client
        .send_async(request)
        .await
        .map_err(|err| describe(&err))?;
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let head = Completion::HttpResponse {
        id,
        status: response.status().as_u16(),
        retry_after,
    };
    sender.send(head).await.map_err(|_| "session over")?;
    let mut body = response.into_body();
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        // isahc reports a body cut short (reset, closed before the last chunk) as a read error.
        match body.read(&mut buf).await {
            Ok(0) => return Ok(()),
            Ok(n) => {
                let chunk = Completion::HttpBody {
                    id,
                    bytes: buf[..n].to_vec(),
                };
                sender.send(chunk).await.map_err(|_| "session over")?;
            }
            Err(err) => return Err(format!("response body: {}", describe(&err))),
        }
    }
}

/// An error with its causes: isahc's own message names only a category, curl's says what
/// happened (e.g. `[18] Transferred a partial file`).
fn describe(err: &dyn Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(err) = cause {
        text.push_str(": ");
        text.push_str(&err.to_string());
        cause = err.source();
    }
    text
}
