//! Blocking file reads and atomic writes; the performer runs them on smol's thread pool.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use std::os::unix::fs::MetadataExt as _;

use luxe_core::effects::{FileContent, FileIdentity};
use luxe_core::store;

/// `path` with symlinks and `..` resolved; for a path that does not exist yet (a new file), its
/// deepest existing ancestor is resolved and the rest appended.
pub(crate) fn resolve(path: &str) -> Result<String, String> {
    let path = Path::new(path);
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        match std::fs::canonicalize(existing) {
            Ok(real) => {
                let full = rest.iter().rev().fold(real, |acc, part| acc.join(part));
                return Ok(full.to_string_lossy().into_owned());
            }
            Err(err) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = parent;
                }
                _ => return Err(format!("{}: {err}", path.display())),
            },
        }
    }
}

/// Appends `bytes` to the file at `path`, creating it and its directories. One write per append,
/// so a crash leaves at most a torn last line (the core starts its next record on a new line).
pub(crate) fn append(path: &str, bytes: &[u8]) -> Result<(), String> {
    let path = Path::new(path);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|err| format!("{}: {err}", path.display()))
}

/// How much of each session file [`read_sessions`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionBytes {
    /// The first bytes, at most this many (for `-c`, which looks at the header and whether
    /// anything was said).
    Head(u64),
    /// The whole file (for `list_sessions`).
    Whole,
}

/// Every session file in `dir` (as core names them: [`store::is_session_file`]) with its
/// bytes and last write (seconds since the epoch, 0 when unknown); an absent directory holds
/// none, and a file that cannot be read is left out.
pub(crate) fn read_sessions(
    dir: &str,
    part: SessionBytes,
) -> Result<Vec<(String, Vec<u8>, u64)>, String> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(format!("{dir}: {err}")),
    };
    let mut found = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        if !store::is_session_file(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let path = entry.path();
        let updated = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        let bytes = match part {
            SessionBytes::Whole => fs::read(&path),
            SessionBytes::Head(max) => File::open(&path).and_then(|file| {
                let mut head = Vec::new();
                file.take(max).read_to_end(&mut head)?;
                Ok(head)
            }),
        };
        if let Ok(bytes) = bytes {
            found.push((path.to_string_lossy().into_owned(), bytes, updated));
        }
    }
    Ok(found)
}

/// Makes what was written to `path` durable.
pub(crate) fn sync(path: &str) -> io::Result<()> {
    File::open(path)?.sync_all()
}

/// Reads at most `max_bytes` of the file at `path`, and its whole length.
pub(crate) fn read(path: &str, max_bytes: u64) -> Result<FileContent, String> {
    let read = || -> io::Result<FileContent> {
        let file = File::open(path)?;
        let metadata = file.metadata()?;
        let total_len = metadata.len();
        let identity = Some(FileIdentity {
            dev: metadata.dev(),
            ino: metadata.ino(),
        });
        let mut bytes = Vec::with_capacity(usize::try_from(total_len.min(max_bytes)).unwrap_or(0));
        file.take(max_bytes).read_to_end(&mut bytes)?;
        Ok(FileContent {
            bytes,
            total_len,
            identity,
        })
    };
    read().map_err(|err| err.to_string())
}

/// Replaces the file at `path` with `bytes` so that readers see the old content or the new, never
/// a part: write a temporary file beside it, sync it, rename it over. Parent directories are
/// created; an existing file keeps its permissions; a symlink is written through.
pub(crate) fn write_atomically(path: &str, bytes: &[u8]) -> Result<(), String> {
    // Through a symlink, so replacing e.g. a linked config file does not break the link.
    let target = fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
    let dir = target
        .parent()
        .ok_or_else(|| format!("{path} has no parent directory"))?;
    fs::create_dir_all(dir).map_err(|err| err.to_string())?;
    let (temp_path, temp) = create_temp_beside(&target).map_err(|err| err.to_string())?;
    let result = fill_and_rename(temp, &temp_path, &target, bytes);
    if result.is_err() {
        let _ = fs::remove_file(&temp_path);
    }
    // Syncing the directory makes the rename itself durable.
    result
        .and_then(|()| File::open(dir)?.sync_all())
        .map_err(|err| err.to_string())
}

fn fill_and_rename(
    mut temp: File,
    temp_path: &Path,
    target: &Path,
    bytes: &[u8],
) -> io::Result<()> {
    temp.write_all(bytes)?;
    match fs::metadata(target) {
        Ok(existing) => temp.set_permissions(existing.permissions())?,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
    }
    temp.sync_all()?;
    fs::rename(temp_path, target)
}

/// A new file next to `target` (same filesystem, so the rename is atomic), created with the mode
/// a plain create would give so the umask applies to new files.
fn create_temp_beside(target: &Path) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp_path =
            target.with_file_name(format!(".{name}.{}.{n}.luxe-tmp", std::process::id()));
        let opened = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&temp_path);
        match opened {
            Ok(file) => return Ok((temp_path, file)),
            // Left behind by a crashed session with the same pid: take the next number.
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(err),
        }
    }
}
