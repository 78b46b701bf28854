//! Frames go out as whole lines, batched per drain and flushed once before luxe waits again.

use std::io::{self, Write};

use luxe_core::effects::{Frame, Message};

/// The pipe size asked for stdout (Linux allows up to 1 MiB without privileges).
const STDOUT_PIPE_BYTES: usize = 1024 * 1024;

/// A frame being encoded goes out in parts of about this size once this much is pending: a
/// large review is tens of MB of JSON, which then never sits whole in memory, and the client
/// reads its start while the rest is encoded.
const PART_BYTES: usize = STDOUT_PIPE_BYTES / 2;

/// Collects the frames of one drain and writes them to stdout in one go.
///
/// The write blocks the event loop while the client is not reading: that is the backpressure a
/// client should get (luxe stops taking in model bytes it could not deliver), and it costs no
/// thread hop or extra copy per drain, which matters at 100,000 frames a second.
pub(crate) struct FrameWriter {
    pending: Vec<u8>,
    stdout: io::Stdout,
}

impl FrameWriter {
    pub(crate) fn new() -> Self {
        let stdout = io::stdout();
        // When stdout is a pipe, a larger pipe lets a burst of frames (a fast model stream)
        // go out in fewer blocking writes and wake-ups; on anything else this fails harmlessly.
        if let Err(err) = rustix::pipe::fcntl_setpipe_size(&stdout, STDOUT_PIPE_BYTES) {
            tracing::debug!("stdout pipe size unchanged: {err}");
        }
        Self {
            pending: Vec::with_capacity(64 * 1024),
            stdout,
        }
    }

    /// Adds `frame` to the drain's frames, as core encodes (and redacts) it; a large one is
    /// written as it is encoded, after the frames before it. An error (the client closed
    /// stdout) is final.
    pub(crate) fn push(&mut self, frame: &Frame) -> io::Result<()> {
        let stdout = &self.stdout;
        frame.encode_in_parts(&mut self.pending, &mut |pending| {
            if pending.len() < PART_BYTES {
                return Ok(());
            }
            let written = stdout.lock().write_all(pending);
            pending.clear();
            written
        })
    }

    /// Adds a JSON-RPC message (`--acp`) to the drain's output, as core encodes (and redacts) it.
    pub(crate) fn push_message(&mut self, message: &Message) -> io::Result<()> {
        message.encode(&mut self.pending);
        if self.pending.len() < PART_BYTES {
            return Ok(());
        }
        let written = self.stdout.lock().write_all(&self.pending);
        self.pending.clear();
        written
    }

    /// Writes and flushes what the drain produced. An error (the client closed stdout) is final.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut stdout = self.stdout.lock();
        let written = stdout
            .write_all(&self.pending)
            .and_then(|()| stdout.flush());
        self.pending.clear();
        written
    }
}
