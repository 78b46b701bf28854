//! HTTP: a request (a model's POST, an MCP server's POST, GET stream or DELETE) whose response
//! streams back chunk by chunk. The only module that knows the HTTP client (libcurl, through
//! the `curl` crate), so it can be swapped.
//!
//! Each request runs curl on a thread of its own ([`transfer`]). Curl hands the body over one
//! HTTP chunk at a time, which from the model APIs is one SSE event, 100,000 of them for a long
//! answer; the thread appends them to a buffer it shares with the request's task and wakes the
//! task only when it waits, so whatever arrived meanwhile reaches the core as one `HttpBody`
//! instead of costing a thread hand-off each.

mod transfer;

use std::future::poll_fn;
use std::mem;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};

use luxe_core::effects::EffectId;
use luxe_core::effects::HttpRequest;
use smol::channel::Sender;

use luxe_core::effects::Completion;

/// Sends `request` and streams the response to `sender` as `HttpHeaders` (with `headers`),
/// `HttpResponse`, `HttpBody`*, then `HttpEnded` or `HttpFailed`. Dropping the future abandons the request: nothing more is
/// sent, and curl closes the connection once it next looks (more of the response arrives, or
/// within about a second).
pub(crate) async fn post(
    id: EffectId,
    request: HttpRequest,
    headers: bool,
    sender: Sender<Completion>,
) {
    let completion = match exchange(id, request, headers, &sender).await {
        Ok(()) => Completion::HttpEnded { id },
        Err(error) => Completion::HttpFailed { id, error },
    };
    // The receiver is gone only when the session is over.
    let _ = sender.send(completion).await;
}

/// Sends `request` and reads its response to the end, reporting nothing: a request whose
/// answer nobody waits for (`Output::HttpFarewell`).
pub(crate) async fn farewell(request: HttpRequest) {
    let url = request.url.clone();
    let response = match Response::start(request, false) {
        Ok(response) => response,
        Err(error) => return tracing::debug!("{url}: {error}"),
    };
    loop {
        match response.next().await {
            Event::Head { status, .. } => tracing::debug!("{url}: HTTP {status}"),
            Event::Body(_) => {}
            Event::End(Ok(())) => return,
            Event::End(Err(error)) => return tracing::debug!("{url}: {error}"),
        }
    }
}

async fn exchange(
    id: EffectId,
    request: HttpRequest,
    want_headers: bool,
    sender: &Sender<Completion>,
) -> Result<(), String> {
    let response = Response::start(request, want_headers)?;
    loop {
        let completion = match response.next().await {
            Event::Head {
                status,
                retry_after,
                headers,
            } => {
                if want_headers {
                    let completion = Completion::HttpHeaders { id, headers };
                    sender.send(completion).await.map_err(|_| "session over")?;
                }
                Completion::HttpResponse {
                    id,
                    status,
                    retry_after,
                }
            }
            Event::Body(bytes) => Completion::HttpBody { id, bytes },
            Event::End(end) => return end,
        };
        sender.send(completion).await.map_err(|_| "session over")?;
    }
}

/// The most response bytes that wait for the task before curl stops reading the socket: the
/// server is then held back by TCP, not buffered here.
const MAX_PENDING: usize = 1024 * 1024;

/// What the response's task hears, in this order: the head (unless the request failed before
/// any of the body), the body in batches, the end.
enum Event {
    Head {
        status: u16,
        retry_after: Option<String>,
        headers: Vec<(String, String)>,
    },
    Body(Vec<u8>),
    End(Result<(), String>),
}

/// The task's end of a request running on its curl thread; dropping it abandons the request.
struct Response {
    shared: Arc<Shared>,
}

/// What the curl thread and the task share.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when the task takes the body or abandons the request: the curl thread may be
    /// waiting for room.
    room: Condvar,
    /// Set once the task is gone; curl's callbacks then abort the transfer.
    abandoned: AtomicBool,
}

/// A response's status, `retry-after`, and every header when they were asked for.
type Head = (u16, Option<String>, Vec<(String, String)>);

/// What the curl thread has produced and the task not yet taken.
#[derive(Default)]
struct State {
    head: Option<Head>,
    body: Vec<u8>,
    end: Option<Result<(), String>>,
    /// The task's waker while it waits for more; taken by whoever wakes it.
    waker: Option<Waker>,
}

impl Response {
    fn start(request: HttpRequest, headers: bool) -> Result<Self, String> {
        let shared = Arc::new(Shared::default());
        transfer::spawn(request, headers, Arc::clone(&shared))
            .map_err(|err| format!("cannot start the request: {err}"))?;
        Ok(Self { shared })
    }

    /// The next event; everything of the body that arrived since the last comes as one.
    async fn next(&self) -> Event {
        poll_fn(|cx| {
            let mut state = self.shared.lock();
            if let Some((status, retry_after, headers)) = state.head.take() {
                return Poll::Ready(Event::Head {
                    status,
                    retry_after,
                    headers,
                });
            }
            if !state.body.is_empty() {
                let body = mem::take(&mut state.body);
                drop(state);
                self.shared.room.notify_one();
                return Poll::Ready(Event::Body(body));
            }
            if let Some(end) = state.end.take() {
                return Poll::Ready(Event::End(end));
            }
            state.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}

impl Drop for Response {
    fn drop(&mut self) {
        // Set under the lock, so a curl thread about to wait for room cannot miss it.
        let state = self.shared.lock();
        self.shared.abandoned.store(true, Ordering::Relaxed);
        drop(state);
        self.shared.room.notify_all();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Neither side panics holding the lock; if one did, the state is still whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
    }

    /// Applies `change` and wakes the task if it waits.
    fn publish(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.lock();
        change(&mut state);
        wake(state);
    }

    /// Appends body bytes once there is room; false when the task is gone.
    fn push_body(&self, bytes: &[u8]) -> bool {
        let mut state = self.lock();
        while state.body.len() >= MAX_PENDING && !self.abandoned() {
            state = self
                .room
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if self.abandoned() {
            return false;
        }
        state.body.extend_from_slice(bytes);
        wake(state);
        true
    }
}

/// Wakes the task if it waits, after letting go of the lock. Only a waiting task is woken:
/// while it is busy with the last batch, the next one grows.
fn wake(mut state: MutexGuard<'_, State>) {
    let waker = state.waker.take();
    drop(state);
    if let Some(waker) = waker {
        waker.wake();
    }
}
