//! What a machine does once its client stops reading stdout, which io reports as
//! [`Input::ClientWriteFailed`](crate::effects::InputOf::ClientWriteFailed): io writes what it
//! is given and says when a write fails; the choice of what still happens is made here.
//!
//! Once stdout is gone no frame or message can reach the client, so none is written and no
//! work is started for it; what keeps the user's work is still done (session records are
//! appended and synced) and what runs is stopped (processes killed, requests dropped, opened
//! files closed); the process then exits quietly with [`CLOSED_STDOUT_STATUS`].

use crate::effects::Output;

/// The exit status once the client stopped reading stdout: quiet, but not success.
pub const CLOSED_STDOUT_STATUS: i32 = 1;

/// Whether the client still reads stdout, between a machine's queue and io.
///
/// While it does, every output passes, with a [`Output::Flush`] before [`Output::Exit`]: a
/// write that fails then is reported before the exit status is given, so the status can
/// still say so.
#[derive(Debug, Default)]
pub(crate) struct ClientStdout {
    closed: bool,
    /// The machine's exit status, held back while the flush before it goes out.
    exit: Option<i32>,
}

impl ClientStdout {
    /// Io reported that a write to stdout failed; nothing more reaches the client.
    pub(crate) fn failed(&mut self) {
        self.closed = true;
    }

    /// The next output for io, taken from `queue` (the machine's own `poll_output`); `None`
    /// once it is drained.
    pub(crate) fn next(&mut self, mut queue: impl FnMut() -> Option<Output>) -> Option<Output> {
        if let Some(code) = self.exit.take() {
            return self.pass(Output::Exit { code });
        }
        loop {
            let output = queue()?;
            if let Output::Exit { code } = output
                && !self.closed
            {
                self.exit = Some(code);
                return Some(Output::Flush);
            }
            if let Some(output) = self.pass(output) {
                return Some(output);
            }
        }
    }

    fn pass(&self, output: Output) -> Option<Output> {
        if self.closed {
            after_close(output)
        } else {
            Some(output)
        }
    }
}

/// What becomes of `output` once stdout is closed: `None` when it is dropped.
fn after_close(output: Output) -> Option<Output> {
    match output {
        Output::Exit { .. } => Some(Output::Exit {
            code: CLOSED_STDOUT_STATUS,
        }),
        // The user's work is kept, and what runs is stopped.
        Output::AppendFile { .. }
        | Output::SyncFile { .. }
        | Output::Kill { .. }
        | Output::CancelHttp { .. }
        | Output::CloseOpened { .. }
        | Output::Log(_) => Some(output),
        // Nothing can reach the client, so nothing is written or started for it.
        Output::Frame(_)
        | Output::Flush
        | Output::Message(_)
        | Output::PrepareSite { .. }
        | Output::HttpRequest { .. }
        | Output::HttpExchange { .. }
        | Output::HttpFarewell { .. }
        | Output::ReadFile { .. }
        | Output::WriteFile { .. }
        | Output::Spawn { .. }
        | Output::SpawnPiped { .. }
        | Output::WriteStdin { .. }
        | Output::ReadSessions { .. }
        | Output::OpenFile { .. }
        | Output::ReadOpened { .. }
        | Output::ReplaceOpened { .. }
        | Output::ResolvePath { .. }
        | Output::Search { .. }
        | Output::ListFiles { .. }
        | Output::ReadDiff { .. } => None,
    }
}

#[cfg(test)]
mod tests;
