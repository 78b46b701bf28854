//! The two vocabularies between core and io: [`Input`] names what happened, [`Output`] is an
//! instruction. Each later effect (model requests, processes, file and git reads) adds a pair.

use crate::protocol::events::Event;

/// Something that happened, fed to [`crate::Luxe::handle_input`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input<'a> {
    /// Bytes read from the client (stdin), in any chunking.
    ClientBytes(&'a [u8]),
    /// The client closed stdin: the same as `close`.
    ClientEof,
    /// Reading from the client failed; nothing more will come.
    ClientReadFailed(String),
    /// The process was asked to terminate (SIGTERM): the same as `close`.
    Terminate,
}

/// Something io must do, drained from [`crate::Luxe::poll_output`].
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Write this frame as one line on stdout.
    Frame(Event),
    /// Flush what was written, end child processes and exit with this status.
    Exit {
        /// The process exit status.
        code: i32,
    },
}
