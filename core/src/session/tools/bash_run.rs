//! One `bash` call's output while it runs: redacted as it streams (a value split across chunks
//! is still caught), kept for the model up to a cap, streamed to the client up to its own cap,
//! and at the exit the result the model reads, with why it failed. It takes io's inputs and
//! returns what to send; the tool run sends it, and keeps the command's time limit.

use std::time::Duration;

use crate::protocol::events::{Event, OutputStream, ToolOutputDelta, ToolStatus};
use crate::redact::{Redactor, TextStream};

use super::shaping::CappedOutput;

/// What the model gets of one command's output.
pub const MODEL_OUTPUT_MAX: usize = 30_000;
/// What the client is streamed of one command's output.
const CLIENT_OUTPUT_MAX: usize = 1024 * 1024;

/// A running command's output.
#[derive(Debug)]
pub struct BashOutput {
    redact: TextStream,
    model: CappedOutput,
    client_sent: usize,
}

impl BashOutput {
    /// The output of a command whose output `redactor` redacts.
    pub fn new(redactor: &Redactor) -> Self {
        Self {
            redact: redactor.text_stream(),
            model: CappedOutput::new(MODEL_OUTPUT_MAX),
            client_sent: 0,
        }
    }

    /// Output arrived: what the client is sent of it, if anything.
    pub fn output(&mut self, call_id: &str, stream: OutputStream, bytes: &[u8]) -> Option<Event> {
        // Redacted as bytes, then decoded: a value split inside a character is caught.
        let safe = self.redact.push(bytes);
        self.model.push(safe.as_bytes());
        self.client_delta(call_id, stream, &safe)
    }

    /// The command exited with `status` (its code; `None` when a signal killed it; `Err` when
    /// it could not start), or was killed after running for `timed_out`: the last of its
    /// output for the client, and the call's status and result for the model.
    pub fn exited(
        &mut self,
        call_id: &str,
        status: Result<Option<i32>, String>,
        timed_out: Option<Duration>,
    ) -> (Option<Event>, ToolStatus, String) {
        let rest = self.redact.finish();
        self.model.push(rest.as_bytes());
        // Held back in case it began a secret; the stream is over, so it goes out now.
        let delta = self.client_delta(call_id, OutputStream::Stdout, &rest);
        let mut text = self.model.text();
        let tool_status = match (status, timed_out) {
            (_, Some(limit)) => {
                let ms = limit.as_millis();
                text.push_str(&format!("\n[timed out after {ms} ms; killed]"));
                ToolStatus::Error
            }
            (Err(error), None) => {
                text = format!("bash could not start: {error}");
                ToolStatus::Error
            }
            (Ok(Some(0)), None) => ToolStatus::Ok,
            (Ok(Some(code)), None) => {
                text.push_str(&format!("\n[exit code {code}]"));
                ToolStatus::Error
            }
            (Ok(None), None) => {
                text.push_str("\n[killed by a signal]");
                ToolStatus::Error
            }
        };
        (delta, tool_status, text)
    }

    /// A `tool_output_delta` for `text`, within what the client may still be sent.
    fn client_delta(&mut self, call_id: &str, stream: OutputStream, text: &str) -> Option<Event> {
        let room = CLIENT_OUTPUT_MAX.saturating_sub(self.client_sent);
        let mut end = room.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end == 0 {
            return None;
        }
        self.client_sent += end;
        Some(Event::ToolOutputDelta(ToolOutputDelta {
            call_id: call_id.to_owned(),
            stream,
            chunk: text[..end].to_owned(),
        }))
    }
}

#[cfg(test)]
mod tests;
