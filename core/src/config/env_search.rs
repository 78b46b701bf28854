//! Which `.env` files feed the redaction gate: io walks the directory tree under cwd and reads
//! the files it is told to; where the walk goes, when it stops and which files are read and
//! kept is decided here, entry by entry.

use super::ENV_SEARCH_MAX_ENTRIES;
use crate::effects::{EnvFile, FileIdentity};
use crate::permissions::is_env_file;

/// One entry of io's walk, as io saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkedEntry<'a> {
    /// Its file name (lossy when it is not UTF-8).
    pub name: &'a str,
    /// Whether it is a directory (a link to one is not followed, and is not one).
    pub is_dir: bool,
}

/// What io does with an entry of the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvEntry {
    /// Read the file whole and hand it to [`EnvSearch::read`].
    Read,
    /// Go on to the next entry.
    Skip,
    /// Stop walking, and log this line: the search is over.
    Stop(String),
}

/// The search for `.env` files under one directory, fed the walk's entries in turn. Ignored
/// and hidden files count: secrets files are ignored by design.
#[derive(Debug)]
pub struct EnvSearch {
    root: String,
    max_entries: usize,
    seen: usize,
    found: Vec<EnvFile>,
}

impl EnvSearch {
    /// A search under `root`, looking at [`ENV_SEARCH_MAX_ENTRIES`] entries at most.
    pub fn new(root: &str) -> Self {
        Self::capped(root, ENV_SEARCH_MAX_ENTRIES)
    }

    fn capped(root: &str, max_entries: usize) -> Self {
        Self {
            root: root.to_owned(),
            max_entries,
            seen: 0,
            found: Vec::new(),
        }
    }

    /// Whether the walk takes the entry named `name` (and goes into it, when it is a
    /// directory): never `.git`, which holds git's objects and hooks, not the project's
    /// secrets.
    pub fn enters(name: &str) -> bool {
        name != ".git"
    }

    /// What to do with the walk's next entry; `None` is one the walk could not read.
    pub fn next(&mut self, entry: Option<WalkedEntry<'_>>) -> EnvEntry {
        if self.seen == self.max_entries {
            return EnvEntry::Stop(format!(
                "stopped looking for .env files after {} entries under {}",
                self.max_entries, self.root
            ));
        }
        self.seen += 1;
        match entry {
            Some(entry) if !entry.is_dir && is_env_file(entry.name) => EnvEntry::Read,
            _ => EnvEntry::Skip,
        }
    }

    /// The file at `path` that [`EnvSearch::next`] asked for, as io read it (or why it could
    /// not); a line for the log when it is skipped. An unreadable file does not stop luxe: it
    /// has no values to redact that a tool could read either.
    pub fn read(
        &mut self,
        path: String,
        identity: Option<FileIdentity>,
        read: Result<Vec<u8>, String>,
    ) -> Option<String> {
        match read {
            Ok(bytes) => {
                self.found.push(EnvFile {
                    path,
                    bytes,
                    identity,
                });
                None
            }
            Err(err) => Some(format!("cannot read {path}: {err}")),
        }
    }

    /// The `.env` files found, in the walk's order.
    pub fn found(self) -> Vec<EnvFile> {
        self.found
    }
}

#[cfg(test)]
mod tests;
