//! Files opened for a tool and held while core decides on them: core sees what the descriptor
//! is (its resolved path and device/inode), and the read or write then goes through that same
//! descriptor, so a symlink or hard link swapped in after the decision changes nothing.
//!
//! A file opened for reading is its own descriptor. A file opened for writing is its directory's
//! descriptor and its name in it: the replacement is made beside it and renamed over the name
//! with `renameat`, which never follows a symlink at the name, and only while the name still
//! holds the file that was decided on.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use luxe_core::effects::{EffectId, FileContent, FileIdentity, FileKind, OpenFor, Opened};
use rustix::fs::{AtFlags, Mode, OFlags};

/// What is held for one handle.
#[derive(Debug)]
enum Held {
    /// The file itself, for a read.
    File(File),
    /// The directory that exists, the directories still to make under it, and the name.
    Place {
        dir: OwnedFd,
        /// Where `dir` was when it was opened: a write refuses a directory moved since.
        dir_path: PathBuf,
        missing: Vec<OsString>,
        name: OsString,
        identity: Option<FileIdentity>,
    },
}

/// The handles, and those in use by a blocking read or write right now (taken out of the
/// table so no lock is held during the IO).
#[derive(Debug, Default)]
struct Table {
    held: BTreeMap<EffectId, Held>,
    in_use: BTreeSet<EffectId>,
    /// Closed while in use: not put back.
    closed: BTreeSet<EffectId>,
}

/// The handles io holds, shared with the blocking threads that use them.
#[derive(Debug, Default, Clone)]
pub(crate) struct OpenFiles {
    table: Arc<Mutex<Table>>,
}

impl OpenFiles {
    /// Opens `path` for `purpose` and holds it under `id`.
    pub(crate) fn open(
        &self,
        id: EffectId,
        path: &str,
        purpose: OpenFor,
    ) -> Result<Opened, String> {
        let (held, opened) = match purpose {
            OpenFor::Read => open_read(path),
            OpenFor::Write => open_place(path),
        }
        .map_err(|err| format!("{path}: {err}"))?;
        self.lock().held.insert(id, held);
        Ok(opened)
    }

    /// Reads through `handle` (see `Output::ReadOpened`).
    pub(crate) fn read(&self, handle: EffectId, max_bytes: u64) -> Result<FileContent, String> {
        match self.take(handle) {
            Some(Held::File(file)) => {
                let read = read_all(file, max_bytes).map_err(|err| err.to_string());
                self.done(handle);
                read
            }
            Some(place @ Held::Place { .. }) => {
                let read = read_place(&place, max_bytes).map_err(|err| err.to_string());
                self.put_back(handle, place);
                read
            }
            None => Err("the file is no longer open".into()),
        }
    }

    /// Replaces the file of `handle` with `bytes` and closes it (see `Output::ReplaceOpened`).
    pub(crate) fn replace(&self, handle: EffectId, bytes: &[u8]) -> Result<(), String> {
        let taken = self.take(handle);
        self.done(handle);
        match taken {
            Some(place @ Held::Place { .. }) => {
                replace(place, bytes).map_err(|err| err.to_string())
            }
            Some(Held::File(_)) => Err("the file was opened for reading".into()),
            None => Err("the file is no longer open".into()),
        }
    }

    /// Forgets `handle`, closing what it held (at once, or when the IO using it ends).
    pub(crate) fn close(&self, handle: EffectId) {
        let mut table = self.lock();
        if table.held.remove(&handle).is_none() && table.in_use.contains(&handle) {
            table.closed.insert(handle);
        }
    }

    /// Takes `handle` out of the table for a blocking read or write, so that a close of
    /// another handle (or of this one) never waits for the IO.
    fn take(&self, handle: EffectId) -> Option<Held> {
        let mut table = self.lock();
        let held = table.held.remove(&handle)?;
        table.in_use.insert(handle);
        Some(held)
    }

    /// `handle` was used up by its IO.
    fn done(&self, handle: EffectId) {
        let mut table = self.lock();
        table.in_use.remove(&handle);
        table.closed.remove(&handle);
    }

    /// Puts `handle` back after its IO, unless it was closed meanwhile.
    fn put_back(&self, handle: EffectId, held: Held) {
        let mut table = self.lock();
        table.in_use.remove(&handle);
        if !table.closed.remove(&handle) {
            table.held.insert(handle, held);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        // A panic while holding the lock leaves the table usable: every entry is whole.
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The kind of file `mode` says, for core to decide on.
fn kind_of(mode: rustix::fs::RawMode) -> FileKind {
    match rustix::fs::FileType::from_raw_mode(mode) {
        rustix::fs::FileType::RegularFile => FileKind::Regular,
        rustix::fs::FileType::Directory => FileKind::Directory,
        _ => FileKind::Other,
    }
}

/// The flags of every open of a file for a tool: not blocking (so a FIFO cannot hang the
/// open), never taking a terminal as the controlling one.
fn read_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

fn identity_of(fd: impl AsFd) -> io::Result<FileIdentity> {
    let stat = rustix::fs::fstat(fd)?;
    Ok(FileIdentity {
        dev: stat.st_dev,
        ino: stat.st_ino,
    })
}

/// The path of what `fd` is, as the kernel names it; a file with no absolute path (unlinked,
/// or not in the file tree at all) is refused.
fn path_of(fd: &impl AsRawFd, fallback: &Path) -> io::Result<PathBuf> {
    let path = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .or_else(|_| std::fs::canonicalize(fallback))?;
    if !path.is_absolute() || path.as_os_str().as_bytes().ends_with(b" (deleted)") {
        return Err(io::Error::other("is not a file in the file tree"));
    }
    Ok(path)
}

fn open_read(path: &str) -> io::Result<(Held, Opened)> {
    let fd = rustix::fs::open(path, read_flags(), Mode::empty())?;
    let kind = kind_of(rustix::fs::fstat(&fd)?.st_mode);
    let file = File::from(fd);
    let identity = identity_of(&file)?;
    let resolved = path_of(&file, Path::new(path))?;
    let opened = Opened {
        path: resolved.to_string_lossy().into_owned(),
        identity: Some(identity),
        kind: Some(kind),
    };
    Ok((Held::File(file), opened))
}

/// The place of `path` for a write: a symlink at the name is followed to where it points now
/// (a linked config file stays linked); for a new file, the deepest directory that exists.
fn open_place(path: &str) -> io::Result<(Held, Opened)> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::other("names no file"))?
        .to_owned();
    let mut existing = target
        .parent()
        .ok_or_else(|| io::Error::other("has no parent directory"))?
        .to_owned();
    let mut missing = Vec::new();
    let dir = loop {
        match rustix::fs::open(
            &existing,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(dir) => break dir,
            Err(rustix::io::Errno::NOENT) => {
                let (Some(parent), Some(last)) = (existing.parent(), existing.file_name()) else {
                    return Err(io::ErrorKind::NotFound.into());
                };
                missing.push(last.to_owned());
                existing = parent.to_owned();
            }
            Err(err) => return Err(err.into()),
        }
    };
    missing.reverse();
    if missing.iter().any(|part| {
        Path::new(part).components().next() != Some(Component::Normal(part.as_os_str()))
    }) {
        return Err(io::Error::other(
            "has a `..` in a directory that does not exist",
        ));
    }
    let (identity, kind) = if missing.is_empty() {
        match rustix::fs::statat(&dir, &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => {
                let identity = FileIdentity {
                    dev: stat.st_dev,
                    ino: stat.st_ino,
                };
                (Some(identity), Some(kind_of(stat.st_mode)))
            }
            Err(rustix::io::Errno::NOENT) => (None, None),
            Err(err) => return Err(err.into()),
        }
    } else {
        (None, None)
    };
    let dir_path = path_of(&dir, &existing)?;
    let mut shown = dir_path.clone();
    for part in &missing {
        shown.push(part);
    }
    shown.push(&name);
    let opened = Opened {
        path: shown.to_string_lossy().into_owned(),
        identity,
        kind,
    };
    let held = Held::Place {
        dir,
        dir_path,
        missing,
        name,
        identity,
    };
    Ok((held, opened))
}

fn read_all(file: File, max_bytes: u64) -> io::Result<FileContent> {
    let identity = identity_of(&file)?;
    let total_len = file.metadata()?.len();
    let mut bytes = Vec::with_capacity(usize::try_from(total_len.min(max_bytes)).unwrap_or(0));
    file.take(max_bytes).read_to_end(&mut bytes)?;
    Ok(FileContent {
        bytes,
        total_len,
        identity: Some(identity),
    })
}

fn changed() -> io::Error {
    io::Error::other("the file changed while luxe was deciding on it: try again")
}

fn read_place(place: &Held, max_bytes: u64) -> io::Result<FileContent> {
    let Held::Place {
        dir,
        missing,
        name,
        identity,
        ..
    } = place
    else {
        return Err(io::Error::other("not a place"));
    };
    if !missing.is_empty() || identity.is_none() {
        return Err(io::ErrorKind::NotFound.into());
    }
    let fd = rustix::fs::openat(dir, name, read_flags() | OFlags::NOFOLLOW, Mode::empty())
        .map_err(|err| match err {
            rustix::io::Errno::LOOP | rustix::io::Errno::NOENT => changed(),
            other => other.into(),
        })?;
    // The same inode as the one decided on, so the same (regular) file.
    let file = File::from(fd);
    if Some(identity_of(&file)?) != *identity {
        return Err(changed());
    }
    read_all(file, max_bytes)
}

/// Makes the missing directories, writes a temporary file beside the name, and renames it over
/// the name if the directory is still where it was and the name still holds the file decided
/// on (or still nothing).
fn replace(place: Held, bytes: &[u8]) -> io::Result<()> {
    let Held::Place {
        mut dir,
        dir_path,
        missing,
        name,
        identity,
    } = place
    else {
        return Err(io::Error::other("the file was opened for reading"));
    };
    if path_of(&dir, &dir_path)? != dir_path {
        return Err(changed());
    }
    let name = &name;
    for part in &missing {
        match rustix::fs::mkdirat(&dir, part, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(err) => return Err(err.into()),
        }
        dir = rustix::fs::openat(
            &dir,
            part,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
    }
    let now = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Some((
            FileIdentity {
                dev: stat.st_dev,
                ino: stat.st_ino,
            },
            stat.st_mode,
        )),
        Err(rustix::io::Errno::NOENT) => None,
        Err(err) => return Err(err.into()),
    };
    // The name was opened with its links followed, so a link there now was put there since:
    // even one that took over the old inode number.
    let is_link = now.is_some_and(|(_, mode)| {
        rustix::fs::FileType::from_raw_mode(mode) == rustix::fs::FileType::Symlink
    });
    if now.map(|(id, _)| id) != identity || is_link {
        return Err(changed());
    }
    let (temp_name, temp) = create_temp(&dir, name)?;
    let written = fill(temp, now.map(|(_, mode)| mode), bytes)
        .and_then(|()| rustix::fs::renameat(&dir, &temp_name, &dir, name).map_err(io::Error::from));
    if written.is_err() {
        let _ = rustix::fs::unlinkat(&dir, &temp_name, AtFlags::empty());
    }
    written?;
    // Syncing the directory makes the rename itself durable.
    rustix::fs::fsync(&dir)?;
    Ok(())
}

fn fill(temp: OwnedFd, mode: Option<rustix::fs::RawMode>, bytes: &[u8]) -> io::Result<()> {
    if let Some(mode) = mode {
        rustix::fs::fchmod(&temp, Mode::from_raw_mode(mode & 0o7777))?;
    }
    let mut file = File::from(temp);
    file.write_all(bytes)?;
    file.sync_all()
}

/// A new file beside `name` in `dir` (same filesystem, so the rename is atomic), with the mode
/// a plain create would give so the umask applies to new files.
fn create_temp(dir: &OwnedFd, name: &OsString) -> io::Result<(OsString, OwnedFd)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut temp = OsString::from(".");
        temp.push(name);
        temp.push(format!(".{}.{n}.luxe-tmp", std::process::id()));
        // A name too long for a temporary twin still gets one.
        if temp.as_bytes().len() > 255 {
            temp = OsString::from(format!(".luxe-tmp.{}.{n}", std::process::id()));
        }
        match rustix::fs::openat(
            dir,
            &temp,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => return Ok((temp, fd)),
            Err(rustix::io::Errno::EXIST) => {}
            Err(err) => return Err(err.into()),
        }
    }
}
