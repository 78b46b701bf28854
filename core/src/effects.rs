//! The two vocabularies between core and io: [`Input`] names what happened, [`Output`] is an
//! instruction. Every effect output carries an [`EffectId`] that its results echo back.

use crate::protocol::guided_review::ReviewTarget;
pub use diff_source::{ChangedFile, DiffSource};
pub use files::{FileContent, FileIdentity, FileKind, OpenFor, Opened, SearchHit};
pub use frame::Frame;
pub use http::{HttpMethod, HttpRequest};
pub use message::Message;
pub(crate) use message::{Chunk, ChunkKind};
pub use site::{EnvFile, Scope, SettingsSource, Site};

mod diff_source;
mod files;
mod frame;
mod gate;
mod http;
mod message;
mod site;

/// Names one effect (a request, a process, a file operation) so its results find their way back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EffectId(pub u64);

/// Which output stream of a child process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Something that happened, fed to [`crate::Luxe::handle_input`]: an [`InputOf`] that borrows
/// its bytes (stdin's buffer, a response's chunk) for the call.
pub type Input<'a> = InputOf<&'a [u8]>;

/// An effect's result as io sends it across a channel before feeding it: an [`InputOf`] that
/// owns its bytes. [`Completion::lend`] hands it to the core as an [`Input`], nothing copied.
pub type Completion = InputOf<Vec<u8>>;

/// Something that happened, its byte chunks held as `Bytes`: one vocabulary for the core's
/// [`Input`] and io's owned [`Completion`], so neither mirrors the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOf<Bytes> {
    /// Bytes read from the client (stdin), in any chunking.
    ClientBytes(Bytes),
    /// The client closed stdin: the same as `close`.
    ClientEof,
    /// Reading from the client failed; nothing more will come.
    ClientReadFailed(String),
    /// Writing to the client (stdout) failed: it closed its end, or the pipe broke (io logs
    /// why). Nothing more can reach it; see [`crate::client_stdout`] for what the session
    /// does then.
    ClientWriteFailed,
    /// The process was asked to terminate (SIGTERM): the same as `close`.
    Terminate,
    /// An HTTP request got its status line and headers.
    HttpResponse {
        /// Which request: the id its output carried.
        id: EffectId,
        /// The HTTP status.
        status: u16,
        /// The `retry-after` header, as sent.
        retry_after: Option<String>,
    },
    /// The headers of an `HttpExchange`'s response, just before its `HttpResponse`.
    HttpHeaders {
        /// Which request: the id its output carried.
        id: EffectId,
        /// Every header of the final response, names lowercased, values trimmed.
        headers: Vec<(String, String)>,
    },
    /// More of an HTTP response body, as it arrived.
    HttpBody {
        /// Which request: the id its output carried.
        id: EffectId,
        /// The next chunk of the body, as io read it.
        bytes: Bytes,
    },
    /// The HTTP response body ended normally.
    HttpEnded {
        /// Which request: the id its output carried.
        id: EffectId,
    },
    /// The HTTP request failed (connection refused, reset, TLS, a body cut short).
    HttpFailed {
        /// Which request: the id its output carried.
        id: EffectId,
        /// What went wrong, in words.
        error: String,
    },
    /// A file was read (or could not be).
    FileRead {
        /// Which read: the id its output carried.
        id: EffectId,
        /// The content, or why not.
        result: Result<FileContent, String>,
    },
    /// A file was written atomically (or could not be).
    FileWritten {
        /// Which write: the id its output carried.
        id: EffectId,
        /// Success, or why not.
        result: Result<(), String>,
    },
    /// A child process wrote output.
    ProcessOutput {
        /// Which process: the id its output carried.
        id: EffectId,
        /// Which of the process's streams (stdout or stderr) it wrote on.
        stream: Stream,
        /// The next chunk of that stream, as io read it.
        bytes: Bytes,
    },
    /// A child process could not start, or ended; all its output was delivered before this.
    ProcessExited {
        /// Which process: the id its output carried.
        id: EffectId,
        /// The exit code; `None` when killed by a signal; `Err` when it could not start.
        status: Result<Option<i32>, String>,
    },
    /// The stored sessions were read.
    SessionsRead {
        /// Which read: the id its output carried.
        id: EffectId,
        /// Each session file's path, content and last write (seconds since the epoch).
        result: Result<Vec<(String, Vec<u8>, u64)>, String>,
    },
    /// A line was appended to a file (or could not be).
    FileAppended {
        /// Which append: the id its output carried.
        id: EffectId,
        /// Success, or why not.
        result: Result<(), String>,
    },
    /// A file was opened for a tool (or could not be); io holds it under this id.
    FileOpened {
        /// The open, and from now on the handle.
        id: EffectId,
        /// What is open, or why not.
        result: Result<Opened, String>,
    },
    /// A `ResolvePath` finished: the resolved path, or why not.
    PathResolved {
        /// Which resolution: the id its output carried.
        id: EffectId,
        /// The absolute path with symlinks and `..` resolved, or why not.
        result: Result<String, String>,
    },
    /// A search finished.
    SearchDone {
        /// Which search: the id its output carried.
        id: EffectId,
        /// The matching lines (at most the requested number), or why not.
        result: Result<Vec<SearchHit>, String>,
    },
    /// A file listing finished.
    FilesListed {
        /// Which listing: the id its output carried.
        id: EffectId,
        /// Matching paths relative to the root (at most the requested number), or why not.
        result: Result<Vec<String>, String>,
    },
    /// A diff was read for a review.
    DiffRead {
        /// Which read: the id its output carried.
        id: EffectId,
        /// The changed files and both sides' bytes, or why not (not a git repository, an
        /// unknown revision…). Owned: the core keeps it until the review's session file is
        /// read, and frees it as soon as the review is built.
        result: Result<Box<DiffSource>, String>,
    },
    /// What a session in a directory starts from was gathered (`luxe --acp` only).
    SitePrepared {
        /// Which preparation: the id its output carried.
        id: EffectId,
        /// The directory's facts, or why there can be no session there (no such directory).
        result: Result<Box<Site>, String>,
    },
}

impl<Bytes> InputOf<Bytes> {
    /// The effect this result belongs to, and whether it is that effect's last result (after
    /// it, no more come for the id); `None` for what is no effect's result (client bytes, a
    /// signal).
    pub fn result_of(&self) -> Option<(EffectId, bool)> {
        Some(match self {
            Self::HttpHeaders { id, .. }
            | Self::HttpResponse { id, .. }
            | Self::HttpBody { id, .. }
            | Self::ProcessOutput { id, .. } => (*id, false),
            Self::HttpEnded { id }
            | Self::HttpFailed { id, .. }
            | Self::FileRead { id, .. }
            | Self::FileWritten { id, .. }
            | Self::ProcessExited { id, .. }
            | Self::SessionsRead { id, .. }
            | Self::FileAppended { id, .. }
            | Self::FileOpened { id, .. }
            | Self::PathResolved { id, .. }
            | Self::SearchDone { id, .. }
            | Self::FilesListed { id, .. }
            | Self::DiffRead { id, .. }
            | Self::SitePrepared { id, .. } => (*id, true),
            Self::ClientBytes(_)
            | Self::ClientEof
            | Self::ClientReadFailed(_)
            | Self::ClientWriteFailed
            | Self::Terminate => {
                return None;
            }
        })
    }
}

impl<Bytes: AsRef<[u8]>> InputOf<Bytes> {
    /// Calls `feed` with this input as an [`Input`] that borrows its bytes from `self`; every
    /// other field is moved (a diff read's sides are not copied).
    pub fn lend<R>(self, feed: impl FnOnce(Input<'_>) -> R) -> R {
        match self {
            Self::ClientBytes(bytes) => feed(Input::ClientBytes(bytes.as_ref())),
            Self::HttpBody { id, bytes } => feed(Input::HttpBody {
                id,
                bytes: bytes.as_ref(),
            }),
            Self::ProcessOutput { id, stream, bytes } => feed(Input::ProcessOutput {
                id,
                stream,
                bytes: bytes.as_ref(),
            }),
            // The rest hold no bytes: the same values, in the borrowing type.
            Self::ClientEof => feed(Input::ClientEof),
            Self::ClientReadFailed(reason) => feed(Input::ClientReadFailed(reason)),
            Self::ClientWriteFailed => feed(Input::ClientWriteFailed),
            Self::Terminate => feed(Input::Terminate),
            Self::HttpResponse {
                id,
                status,
                retry_after,
            } => feed(Input::HttpResponse {
                id,
                status,
                retry_after,
            }),
            Self::HttpHeaders { id, headers } => feed(Input::HttpHeaders { id, headers }),
            Self::HttpEnded { id } => feed(Input::HttpEnded { id }),
            Self::HttpFailed { id, error } => feed(Input::HttpFailed { id, error }),
            Self::FileRead { id, result } => feed(Input::FileRead { id, result }),
            Self::FileWritten { id, result } => feed(Input::FileWritten { id, result }),
            Self::ProcessExited { id, status } => feed(Input::ProcessExited { id, status }),
            Self::SessionsRead { id, result } => feed(Input::SessionsRead { id, result }),
            Self::FileAppended { id, result } => feed(Input::FileAppended { id, result }),
            Self::FileOpened { id, result } => feed(Input::FileOpened { id, result }),
            Self::PathResolved { id, result } => feed(Input::PathResolved { id, result }),
            Self::SearchDone { id, result } => feed(Input::SearchDone { id, result }),
            Self::FilesListed { id, result } => feed(Input::FilesListed { id, result }),
            Self::DiffRead { id, result } => feed(Input::DiffRead { id, result }),
            Self::SitePrepared { id, result } => feed(Input::SitePrepared { id, result }),
        }
    }
}

/// Something io must do, drained from [`crate::Luxe::poll_output`].
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Write this frame as one line on stdout, with [`Frame::encode_in_parts`].
    Frame(Frame),
    /// Write out every frame so far before performing the outputs after it. It comes before a
    /// drain's effects, which follow every frame of the drain (see [`Luxe::poll_output`]).
    ///
    /// [`Luxe::poll_output`]: crate::Luxe::poll_output
    Flush,
    /// Write this JSON-RPC message as one line on stdout, with [`Message::encode`] (`luxe
    /// --acp`'s only output to the client).
    Message(Message),
    /// A line for luxe's log (stderr or `LUXE_LOG`'s file, at warn level), never for stdout:
    /// something a client did that changes nothing but is worth knowing to the author
    /// debugging it (an answer to a request luxe never sent).
    Log(String),
    /// Gather what a session in `cwd` starts from, as io does for the process's own directory
    /// at start-up → `SitePrepared` (`luxe --acp`, for `session/new`, `load` and `resume`).
    PrepareSite {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute directory the client named.
        cwd: String,
    },
    /// End child processes and exit with this status. An [`Output::Flush`] comes just before
    /// it, so that a failed write is reported (and decides the status) before it comes.
    Exit {
        /// The process exit status.
        code: i32,
    },
    /// Send an HTTP POST and stream its response back as `HttpResponse`, `HttpBody`*, then
    /// `HttpEnded` or `HttpFailed`.
    HttpRequest {
        /// Echoed by the results.
        id: EffectId,
        /// What to send.
        request: HttpRequest,
    },
    /// [`Output::HttpRequest`] whose results begin with `HttpHeaders` (every response header),
    /// for a peer whose headers say what the body is and which session it belongs to (MCP's
    /// streamable HTTP: `Content-Type`, `Mcp-Session-Id`).
    HttpExchange {
        /// Echoed by the results.
        id: EffectId,
        /// What to send.
        request: HttpRequest,
    },
    /// Send an HTTP request whose answer nobody waits for (the `DELETE` that ends an MCP
    /// server's session): io lets it run, and at exit waits for it at most `within`.
    HttpFarewell {
        /// What to send.
        request: HttpRequest,
        /// The longest the exit waits for it.
        within: std::time::Duration,
    },
    /// Abandon an HTTP request; no more results for it are wanted (late ones are dropped).
    CancelHttp {
        /// The id the request was started with.
        id: EffectId,
    },
    /// Read up to `max_bytes` of a file → `FileRead`.
    ReadFile {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute path.
        path: String,
        /// The most bytes wanted.
        max_bytes: u64,
    },
    /// Write a file atomically (temporary file, then rename), creating parent directories →
    /// `FileWritten`.
    WriteFile {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute path.
        path: String,
        /// The whole new content.
        bytes: Vec<u8>,
    },
    /// Start a process in its own process group, fed `stdin` and then end of file →
    /// `ProcessOutput`*, then `ProcessExited`.
    Spawn {
        /// Echoed by the results.
        id: EffectId,
        /// The program (looked up on PATH).
        program: String,
        /// Its arguments after the program, each passed as it is (no shell).
        args: Vec<String>,
        /// The working directory.
        cwd: String,
        /// Variables set for it on top of luxe's own environment.
        env: Vec<(String, String)>,
        /// Variables of luxe's own environment it does not get.
        unset: Vec<String>,
        /// What it reads on stdin (empty: stdin is closed from the start). What a command
        /// needs but must not leave on disk (a review's body for `gh api --input -`).
        stdin: Vec<u8>,
    },
    /// Start a long-lived process (an MCP server) in its own process group with stdin piped
    /// for `WriteStdin`, and with `env` as its whole environment → `ProcessOutput`*, then
    /// `ProcessExited`.
    SpawnPiped {
        /// Echoed by the results; the handle for `WriteStdin` and `Kill`.
        id: EffectId,
        /// The program (looked up on the PATH of `env`, else luxe's).
        program: String,
        /// Its arguments after the program, each passed as it is (no shell).
        args: Vec<String>,
        /// The working directory.
        cwd: String,
        /// Its whole environment: it inherits nothing else of luxe's.
        env: Vec<(String, String)>,
    },
    /// Write bytes to the stdin of a `SpawnPiped` process, after what was written before; no
    /// answer (a process that is gone drops them, its `ProcessExited` tells).
    WriteStdin {
        /// The id the `SpawnPiped` started it with.
        id: EffectId,
        /// What to write.
        bytes: Vec<u8>,
    },
    /// Kill a process and its whole process group; `ProcessExited` follows.
    Kill {
        /// The id the process was started with.
        id: EffectId,
    },
    /// Append bytes to a file, creating it and its directories; flushed before it answers →
    /// `FileAppended`. Performed on the spot, in order with frames, and its result fed before
    /// the next poll: a session record is on disk before any frame after it is written, and the
    /// core knows how the file ends before it writes another.
    AppendFile {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute path.
        path: String,
        /// What to append.
        bytes: Vec<u8>,
    },
    /// Read every session file in a directory → `SessionsRead` (an absent directory is none).
    ReadSessions {
        /// Echoed by the result.
        id: EffectId,
        /// The sessions directory (`sessions/` under luxe's home, perhaps relative to luxe's
        /// working directory); only its `*.jsonl` files are read.
        dir: String,
    },
    /// Make what was appended to a file durable (fsync); reports only through the log.
    SyncFile {
        /// Absolute path.
        path: String,
    },
    /// Open a file for a tool and hold it → `FileOpened`; then one of `ReadOpened`,
    /// `ReplaceOpened`, `CloseOpened` on its handle.
    OpenFile {
        /// Echoed by the result; the handle of what is open.
        id: EffectId,
        /// Absolute path.
        path: String,
        /// Read, or replace.
        purpose: OpenFor,
    },
    /// Read up to `max_bytes` of an opened file through its handle → `FileRead`. A file opened
    /// for reading is closed after; one opened for writing is read at its name without
    /// following a symlink, and fails if that is no longer the file that was opened.
    ReadOpened {
        /// Echoed by the result.
        id: EffectId,
        /// The `OpenFile` id.
        handle: EffectId,
        /// The most bytes wanted.
        max_bytes: u64,
    },
    /// Replace a file opened for writing, atomically, in the directory that was opened (never
    /// through a symlink put at its name since), and close it → `FileWritten`; fails if the name
    /// no longer holds the file that was opened.
    ReplaceOpened {
        /// Echoed by the result.
        id: EffectId,
        /// The `OpenFile` id.
        handle: EffectId,
        /// The whole new content.
        bytes: Vec<u8>,
    },
    /// Close an opened file unused; no answer.
    CloseOpened {
        /// The `OpenFile` id.
        handle: EffectId,
    },
    /// Resolve a path as the filesystem sees it: symlinks and `..` followed; for a path that
    /// does not exist yet, its deepest existing ancestor is resolved and the rest appended →
    /// `PathResolved`.
    ResolvePath {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute path.
        path: String,
    },
    /// Search files under `root` for a regex, honouring .gitignore → `SearchDone`.
    Search {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute directory or file.
        root: String,
        /// A regular expression (Rust `regex` syntax).
        pattern: String,
        /// Only files whose path relative to `root` matches this glob.
        glob: Option<String>,
        /// Match case-insensitively.
        case_insensitive: bool,
        /// Stop after this many matching lines.
        max_results: usize,
    },
    /// List files under `root` whose relative path matches a glob, honouring .gitignore →
    /// `FilesListed`.
    ListFiles {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute directory.
        root: String,
        /// A glob such as `**/*.rs`.
        pattern: String,
        /// Stop after this many paths.
        max_results: usize,
    },
    /// Read the changes `target` names in the git repository that holds `cwd` → `DiffRead`.
    /// Never a `pull_request` target (that is read through gh).
    ReadDiff {
        /// Echoed by the result.
        id: EffectId,
        /// Absolute directory inside the repository.
        cwd: String,
        /// What to compare.
        target: ReviewTarget,
    },
}

impl Output {
    /// The id this output's results come back under, for an effect that has results.
    pub fn result_id(&self) -> Option<EffectId> {
        match self {
            Self::PrepareSite { id, .. }
            | Self::HttpRequest { id, .. }
            | Self::HttpExchange { id, .. }
            | Self::ReadFile { id, .. }
            | Self::WriteFile { id, .. }
            | Self::Spawn { id, .. }
            | Self::SpawnPiped { id, .. }
            | Self::AppendFile { id, .. }
            | Self::ReadSessions { id, .. }
            | Self::OpenFile { id, .. }
            | Self::ReadOpened { id, .. }
            | Self::ReplaceOpened { id, .. }
            | Self::ResolvePath { id, .. }
            | Self::Search { id, .. }
            | Self::ListFiles { id, .. }
            | Self::ReadDiff { id, .. } => Some(*id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_is_lent_as_the_same_input() {
        let body = Completion::HttpBody {
            id: EffectId(3),
            bytes: b"chunk".to_vec(),
        };
        let lent = body.lend(|input| {
            assert_eq!(
                input,
                Input::HttpBody {
                    id: EffectId(3),
                    bytes: b"chunk"
                }
            );
            true
        });
        assert!(lent);
        let exited = Completion::ProcessExited {
            id: EffectId(4),
            status: Ok(Some(0)),
        };
        exited.lend(|input| {
            assert_eq!(
                input,
                Input::ProcessExited {
                    id: EffectId(4),
                    status: Ok(Some(0))
                }
            );
        });
    }
}
