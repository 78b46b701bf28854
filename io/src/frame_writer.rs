//! Frames go out as whole lines, batched per drain and flushed once before luxe waits again.

use std::io::{self, Write};

use luxe_core::protocol::codec::encode;
use luxe_core::protocol::events::Event;
use smol::Unblock;
use smol::io::AsyncWriteExt;

/// Collects the frames of one drain and writes them to stdout in one go.
pub(crate) struct FrameWriter {
    pending: Vec<u8>,
    stdout: Unblock<io::Stdout>,
}

impl FrameWriter {
    pub(crate) fn new() -> Self {
        Self {
            pending: Vec::with_capacity(64 * 1024),
            stdout: Unblock::with_capacity(256 * 1024, io::stdout()),
        }
    }

    pub(crate) fn push(&mut self, event: &Event) {
        encode(event, &mut self.pending);
    }

    /// Writes and flushes what the drain produced. An error (the client closed stdout) is final.
    pub(crate) async fn flush(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.stdout.write_all(&self.pending).await?;
        self.pending.clear();
        self.stdout.flush().await?;
        // Unblock flushes its pipe, not the std LineWriter behind it: flush that too.
        self.stdout.with_mut(|stdout| stdout.flush()).await
    }
}
