//! One model request in flight, as a machine of its own: it takes the HTTP exchange's inputs
//! (status, body bytes, end, failure, silence) and returns values — the frames to show the
//! client, and how the request ended (finished, worth a retry, failed, refused as too long).
//! The turn keeps its idle deadline and decides what an ending means for the conversation; the
//! step only reads the stream.

use std::time::Duration;

use crate::effects::EffectId;
use crate::model::anthropic;
use crate::model::assembler::MessageAssembler;
use crate::model::catalogue::Provider;
use crate::model::http_error::{OverflowFacts, is_context_overflow, overflow_facts};
use crate::model::openai;
use crate::model::wire::{ModelEvent, StopReason, StreamDecoder};
use crate::protocol::events::{Event, TokenDelta};
use crate::redact::{Redactor, TextStream};
use crate::rng::Rng;

/// The most of an error response body kept for its message.
const ERROR_BODY_MAX: usize = 64 * 1024;

/// HTTP statuses worth retrying.
const RETRY_STATUSES: &[u16] = &[429, 500, 502, 503, 504, 529];

/// Stream error kinds worth retrying before any output was shown.
const RETRY_STREAM_ERRORS: &[&str] = &["overloaded_error", "api_error", "rate_limit_error"];

/// How a model step ended.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The model ended its answer.
    Finished(StopReason),
    /// Worth another attempt (a busy server, a broken connection before any output).
    Retry {
        /// Why, for `model_retrying`.
        reason: String,
        /// The server's `retry-after`, when it said.
        retry_after: Option<String>,
    },
    /// Not worth another attempt; the sentence the turn ends with.
    Fail(String),
    /// The provider refused the request as too long for the context window.
    Overflow(String, OverflowFacts),
}

/// One model request in flight.
#[derive(Debug)]
pub(super) struct ModelStep {
    http: EffectId,
    attempt: u32,
    provider: Provider,
    status: Option<u16>,
    retry_after: Option<String>,
    error_body: Vec<u8>,
    decoder: Box<dyn StreamDecoder>,
    assembler: MessageAssembler,
    /// The length of the history the request carried, to tie the usage reported to it.
    history_len: usize,
    /// The block whose deltas are being shown, with what is held back of it.
    shown: Option<Shown>,
    /// The request's tokens as estimated when it was sent.
    estimated_prompt: u64,
}

/// What a step's request carried, for what its answer reports.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sent {
    /// The effect id of the request's HTTP exchange, which its response's inputs carry.
    pub http: EffectId,
    /// Which attempt at this step it is, from 1.
    pub attempt: u32,
    /// The provider, whose error bodies it reads.
    pub provider: Provider,
    /// The length of the history it carried.
    pub history_len: usize,
    /// Its tokens as estimated when it was sent.
    pub estimated_prompt: u64,
}

impl ModelStep {
    /// A request just sent, whose stream `decoder` reads.
    pub(super) fn new(sent: Sent, decoder: Box<dyn StreamDecoder>) -> Self {
        Self {
            http: sent.http,
            attempt: sent.attempt,
            provider: sent.provider,
            status: None,
            retry_after: None,
            error_body: Vec::new(),
            decoder,
            assembler: MessageAssembler::default(),
            history_len: sent.history_len,
            shown: None,
            estimated_prompt: sent.estimated_prompt,
        }
    }

    /// The HTTP exchange it waits on.
    pub(super) fn http(&self) -> EffectId {
        self.http
    }

    /// Which attempt at this step it is, from 1.
    pub(super) fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The length of the history its request carried.
    pub(super) fn history_len(&self) -> usize {
        self.history_len
    }

    /// Its request's tokens as estimated when it was sent.
    pub(super) fn estimated_prompt(&self) -> u64 {
        self.estimated_prompt
    }

    /// The answer as assembled so far.
    pub(super) fn assembler(&self) -> &MessageAssembler {
        &self.assembler
    }

    /// The answer as assembled, once the step is over.
    pub(super) fn into_assembler(self) -> MessageAssembler {
        self.assembler
    }

    /// The response's status and `retry-after` arrived.
    pub(super) fn response(&mut self, status: u16, retry_after: Option<String>) {
        self.status = Some(status);
        self.retry_after = retry_after;
    }

    /// Body bytes arrived: the events they decode to (none of an error body, which is kept
    /// for its message).
    pub(super) fn body(&mut self, bytes: &[u8]) -> Vec<ModelEvent> {
        let mut events = Vec::new();
        if self.succeeded() {
            self.decoder.push(bytes, &mut events);
        } else {
            let room = ERROR_BODY_MAX.saturating_sub(self.error_body.len());
            self.error_body
                .extend_from_slice(&bytes[..room.min(bytes.len())]);
        }
        events
    }

    /// The response ended: the last events of a stream, or how an error response ends it.
    pub(super) fn ended(&mut self) -> Result<Vec<ModelEvent>, Outcome> {
        if self.succeeded() {
            let mut events = Vec::new();
            self.decoder.finish(&mut events);
            return Ok(events);
        }
        let status = self.status.unwrap_or(0);
        let message = match self.provider {
            Provider::Anthropic => anthropic::error_message(status, &self.error_body),
            Provider::OpenAi => openai::error_message(status, &self.error_body),
        };
        let reason = format!("HTTP {status}: {message}");
        Err(if is_context_overflow(status, &self.error_body) {
            Outcome::Overflow(reason, overflow_facts(&self.error_body))
        } else if RETRY_STATUSES.contains(&status) {
            Outcome::Retry {
                reason,
                retry_after: self.retry_after.clone(),
            }
        } else {
            Outcome::Fail(format!("the model request failed: {reason}"))
        })
    }

    /// The exchange broke or went silent: worth a retry for `reason` unless output was already
    /// shown, else it fails with `failure`.
    pub(super) fn broke(&self, reason: String, failure: String) -> Outcome {
        if self.assembler.has_output() {
            Outcome::Fail(failure)
        } else {
            Outcome::Retry {
                reason,
                retry_after: None,
            }
        }
    }

    /// Folds a decoded event into the answer: the frames that show it (none when `show` is
    /// `None`: a summary is for the model's view, not a reply to show), or how the step ends.
    pub(super) fn event(
        &mut self,
        event: ModelEvent,
        show: Option<&Redactor>,
    ) -> Result<[Option<Event>; 2], Outcome> {
        self.assembler.apply(&event);
        let (thinking, block, text) = match event {
            ModelEvent::TextDelta { block, text } => (false, block, text),
            ModelEvent::ThinkingDelta { block, text } => (true, block, text),
            ModelEvent::Finished(stop) => return Err(Outcome::Finished(stop)),
            ModelEvent::Error { kind, message } => {
                let retryable = !self.assembler.has_output()
                    && kind
                        .as_deref()
                        .is_some_and(|k| RETRY_STREAM_ERRORS.contains(&k));
                let reason = match kind {
                    Some(kind) => format!("{kind}: {message}"),
                    None => message,
                };
                return Err(if retryable {
                    Outcome::Retry {
                        reason,
                        retry_after: None,
                    }
                } else {
                    Outcome::Fail(format!("the model reported an error: {reason}"))
                });
            }
            _ => return Ok([None, None]),
        };
        let Some(redactor) = show else {
            return Ok([None, None]);
        };
        // A new block ends the one shown before it.
        let ended = match &self.shown {
            Some(shown) if (shown.thinking, shown.block) != (thinking, block) => {
                self.shown.take().and_then(Shown::finish)
            }
            _ => None,
        };
        let shown = self.shown.get_or_insert_with(|| Shown {
            thinking,
            block,
            stream: redactor.text_stream(),
        });
        // Without secrets the text goes out as it came, uncopied: this runs once a token.
        let frame = if redactor.is_empty() {
            shown.frame(text)
        } else {
            shown.push(&text)
        };
        Ok([ended, frame])
    }

    /// What is still held back of the last block shown: its stream is over.
    pub(super) fn rest(&mut self) -> Option<Event> {
        self.shown.take().and_then(Shown::finish)
    }

    fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// The wait before attempt `attempt + 1`: the server's `retry-after` (in seconds) when it said,
/// else exponential backoff from `base` with up to a quarter more as jitter; at most `max`.
pub(super) fn retry_delay(
    attempt: u32,
    retry_after: Option<&str>,
    base: Duration,
    max: Duration,
    rng: &mut Rng,
) -> Duration {
    if let Some(seconds) = retry_after.and_then(|v| v.trim().parse::<f64>().ok())
        && seconds.is_finite()
        && seconds >= 0.0
    {
        return Duration::from_secs_f64(seconds).min(max);
    }
    let base = base.saturating_mul(1 << (attempt - 1).min(16)).min(max);
    let jitter_ms = rng.below_or_equal(u64::try_from(base.as_millis() / 4).unwrap_or(0));
    (base + Duration::from_millis(jitter_ms)).min(max)
}

/// The text or thinking block being streamed to the client, through the redaction gate's
/// stream: a secret split across two deltas is held back until it is whole (and redacted).
#[derive(Debug)]
struct Shown {
    thinking: bool,
    block: u32,
    stream: TextStream,
}

impl Shown {
    /// The delta frame for `text`, or `None` while all of it is held back.
    fn push(&mut self, text: &str) -> Option<Event> {
        let shown = self.stream.push(text.as_bytes());
        self.frame(shown)
    }

    /// The delta frame for what is still held back, at the end of the block.
    fn finish(mut self) -> Option<Event> {
        let rest = self.stream.finish();
        self.frame(rest)
    }

    fn frame(&self, delta: String) -> Option<Event> {
        if delta.is_empty() {
            return None;
        }
        let delta = TokenDelta {
            block: self.block,
            delta,
        };
        Some(if self.thinking {
            Event::ThinkingDelta(delta)
        } else {
            Event::TokenDelta(delta)
        })
    }
}

#[cfg(test)]
mod tests;
