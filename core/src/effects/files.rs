//! What io reports of the files a tool reads, opens or searches: their bytes, their identity
//! on the filesystem, what they were opened as, and a search's matching lines.

/// A file's bytes as io read them, at most the requested limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileContent {
    /// The first bytes of the file (all of them when `total_len` is no larger than the limit).
    pub bytes: Vec<u8>,
    /// The file's whole length.
    pub total_len: u64,
    /// Which file it was, from the descriptor it was read through.
    pub identity: Option<FileIdentity>,
}

impl FileContent {
    /// All of a file's `bytes`, as io reads a file within its limit.
    pub fn whole(bytes: Vec<u8>) -> Self {
        Self {
            total_len: bytes.len() as u64,
            bytes,
            identity: None,
        }
    }
}

/// A file as the filesystem knows it, whatever its names: two paths with the same identity are
/// one file (a hard link, a symlink's target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileIdentity {
    /// The device it lives on.
    pub dev: u64,
    /// Its inode on that device.
    pub ino: u64,
}

/// What a tool opens a file for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenFor {
    /// Reading it (symlinks followed).
    Read,
    /// Replacing it, and reading it first for an edit: io holds its directory and its name in
    /// it (a symlink at the name is followed once, to where it points now).
    Write,
}

/// A file io opened for a tool and holds until it is read, replaced or closed: what core
/// decides on, so that what is decided is what is then read or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The absolute path of what is open, symlinks and `..` resolved (for a file that does not
    /// exist yet, its deepest existing directory's path and the rest).
    pub path: String,
    /// The file's identity; `None` when it does not exist yet (a write of a new file).
    pub identity: Option<FileIdentity>,
    /// What kind of file it is; `None` when it does not exist yet.
    pub kind: Option<FileKind>,
}

/// The kinds of file a tool may be pointed at; only a regular file is read or written (core
/// decides): a FIFO or a device would block a read for ever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A plain file.
    Regular,
    /// A directory; a tool pointed at one fails with "is a directory".
    Directory,
    /// A FIFO, socket, device or anything else.
    Other,
}

/// One line that matched a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The file, relative to the search root.
    pub path: String,
    /// The line number, from 1.
    pub line: u64,
    /// The line's text (lossy UTF-8, without its line ending).
    pub text: String,
}
