//! Files opened for a tool, on a real filesystem: what is read or replaced is what was opened
//! (and decided on), whatever is swapped in at the name between the open and the use.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::Path;
use std::time::Duration;

use luxe_core::Output;
use luxe_core::effects::{EffectId, FileContent, FileIdentity, FileKind, OpenFor, Opened};
use luxe_io::{Completion, Effects};
use smol::channel::Receiver;
use smol::future::FutureExt as _;

const OPEN: EffectId = EffectId(1);
const USE: EffectId = EffectId(2);

/// A performer that runs one effect at a time and returns its result.
struct Io {
    effects: Effects,
    results: Receiver<Completion>,
}

impl Io {
    fn new() -> Self {
        let (sender, results) = smol::channel::unbounded();
        Self {
            effects: Effects::new(sender),
            results,
        }
    }

    fn run(&mut self, output: Output) -> Completion {
        self.effects.start(output);
        smol::block_on(async {
            let timeout = async {
                smol::Timer::after(Duration::from_secs(5)).await;
                panic!("no result within 5 s");
            };
            self.results.recv().or(timeout).await.unwrap()
        })
    }

    fn open(&mut self, path: &Path, purpose: OpenFor) -> Result<Opened, String> {
        let path = path.to_str().unwrap().to_owned();
        match self.run(Output::OpenFile {
            id: OPEN,
            path,
            purpose,
        }) {
            Completion::FileOpened { id: OPEN, result } => result,
            other => panic!("unexpected {other:?}"),
        }
    }

    fn read(&mut self) -> Result<FileContent, String> {
        match self.run(Output::ReadOpened {
            id: USE,
            handle: OPEN,
            max_bytes: 1024,
        }) {
            Completion::FileRead { id: USE, result } => result,
            other => panic!("unexpected {other:?}"),
        }
    }

    fn replace(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self.run(Output::ReplaceOpened {
            id: USE,
            handle: OPEN,
            bytes: bytes.to_vec(),
        }) {
            Completion::FileWritten { id: USE, result } => result,
            other => panic!("unexpected {other:?}"),
        }
    }
}

fn identity(path: &Path) -> FileIdentity {
    let meta = fs::metadata(path).unwrap();
    FileIdentity {
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

/// A project with a secret and an ordinary file.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(".env"), "API_KEY=s3cret-value\n").unwrap();
    fs::write(dir.path().join("notes.txt"), "plain notes\n").unwrap();
    dir
}

/// Replaces `path` by a symlink to `to`, as an earlier approved command could.
fn swap_for_link(path: &Path, to: &Path) {
    fs::remove_file(path).unwrap();
    symlink(to, path).unwrap();
}

#[test]
fn a_read_reports_the_opened_file_and_reads_it_even_if_a_link_is_swapped_in() {
    let dir = project();
    let notes = dir.path().join("notes.txt");
    let mut io = Io::new();
    let opened = io.open(&notes, OpenFor::Read).unwrap();
    assert_eq!(Path::new(&opened.path), fs::canonicalize(&notes).unwrap());
    assert_eq!(opened.identity, Some(identity(&notes)));
    swap_for_link(&notes, &dir.path().join(".env"));
    let read = io.read().unwrap();
    assert_eq!(read.bytes, b"plain notes\n");
    assert_eq!(read.identity, opened.identity);
}

#[test]
fn a_read_through_a_link_or_a_hard_link_reports_the_file_it_reaches() {
    let dir = project();
    let env = dir.path().join(".env");
    symlink(&env, dir.path().join("innocent.txt")).unwrap();
    fs::hard_link(&env, dir.path().join("copy.txt")).unwrap();
    let mut io = Io::new();
    let through_link = io
        .open(&dir.path().join("innocent.txt"), OpenFor::Read)
        .unwrap();
    assert_eq!(
        Path::new(&through_link.path),
        fs::canonicalize(&env).unwrap()
    );
    let hard = io
        .open(&dir.path().join("copy.txt"), OpenFor::Read)
        .unwrap();
    // A hard link has its own name: only the identity tells it is the `.env` file.
    assert!(hard.path.ends_with("copy.txt"), "{}", hard.path);
    assert_eq!(hard.identity, Some(identity(&env)));
}

#[test]
fn a_replace_never_writes_through_a_link_swapped_in_after_the_open() {
    let dir = project();
    let notes = dir.path().join("notes.txt");
    let env = dir.path().join(".env");
    let mut io = Io::new();
    let opened = io.open(&notes, OpenFor::Write).unwrap();
    assert_eq!(opened.identity, Some(identity(&notes)));
    swap_for_link(&notes, &env);
    let error = io.replace(b"API_KEY=overwritten\n").unwrap_err();
    assert!(error.contains("changed while luxe was deciding"), "{error}");
    assert_eq!(fs::read(&env).unwrap(), b"API_KEY=s3cret-value\n");
    assert!(fs::symlink_metadata(&notes).unwrap().is_symlink());
}

#[test]
fn an_edit_reads_the_opened_file_only_while_its_name_still_holds_it() {
    let dir = project();
    let notes = dir.path().join("notes.txt");
    let mut io = Io::new();
    io.open(&notes, OpenFor::Write).unwrap();
    assert_eq!(io.read().unwrap().bytes, b"plain notes\n");
    swap_for_link(&notes, &dir.path().join(".env"));
    let error = io.read().unwrap_err();
    assert!(error.contains("changed while luxe was deciding"), "{error}");
}

#[test]
fn a_replace_is_refused_when_its_directory_moved_and_never_follows_a_link_put_there() {
    let dir = project();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/a.txt"), "old").unwrap();
    let mut io = Io::new();
    io.open(&dir.path().join("sub/a.txt"), OpenFor::Write)
        .unwrap();
    // The directory is moved away and a link to somewhere else put in its place.
    fs::rename(dir.path().join("sub"), dir.path().join("moved")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(elsewhere.path().join("a.txt"), "old").unwrap();
    symlink(elsewhere.path(), dir.path().join("sub")).unwrap();
    let error = io.replace(b"new").unwrap_err();
    assert!(error.contains("changed while luxe was deciding"), "{error}");
    assert_eq!(fs::read(dir.path().join("moved/a.txt")).unwrap(), b"old");
    assert_eq!(fs::read(elsewhere.path().join("a.txt")).unwrap(), b"old");
}

#[test]
fn a_new_file_in_new_directories_is_made_and_an_existing_one_keeps_its_mode() {
    let dir = project();
    let fresh = dir.path().join("a/b/new.txt");
    let mut io = Io::new();
    let opened = io.open(&fresh, OpenFor::Write).unwrap();
    assert_eq!(opened.identity, None);
    assert!(opened.path.ends_with("a/b/new.txt"), "{}", opened.path);
    assert!(
        !dir.path().join("a").exists(),
        "nothing is made before the write"
    );
    io.replace(b"fresh").unwrap();
    assert_eq!(fs::read(&fresh).unwrap(), b"fresh");

    let notes = dir.path().join("notes.txt");
    fs::set_permissions(&notes, fs::Permissions::from_mode(0o640)).unwrap();
    io.open(&notes, OpenFor::Write).unwrap();
    io.replace(b"second").unwrap();
    assert_eq!(fs::read(&notes).unwrap(), b"second");
    let mode = fs::metadata(&notes).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("luxe-tmp"))
        .collect();
    assert!(names.is_empty(), "temporary files left: {names:?}");
}

#[test]
fn a_linked_config_file_stays_linked() {
    let dir = project();
    let (target, link) = (dir.path().join("target.md"), dir.path().join("link.md"));
    fs::write(&target, "old").unwrap();
    symlink(&target, &link).unwrap();
    let mut io = Io::new();
    let opened = io.open(&link, OpenFor::Write).unwrap();
    assert_eq!(Path::new(&opened.path), fs::canonicalize(&target).unwrap());
    io.replace(b"new").unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"new");
}

#[test]
fn a_closed_or_unknown_handle_is_refused() {
    let dir = project();
    let mut io = Io::new();
    io.open(&dir.path().join("notes.txt"), OpenFor::Write)
        .unwrap();
    io.effects.start(Output::CloseOpened { handle: OPEN });
    let error = io.replace(b"x").unwrap_err();
    assert!(error.contains("no longer open"), "{error}");
    assert_eq!(
        fs::read(dir.path().join("notes.txt")).unwrap(),
        b"plain notes\n"
    );
}

#[test]
fn a_fifo_a_device_or_a_directory_is_reported_as_what_it_is_without_blocking() {
    let dir = project();
    let fifo = dir.path().join("x");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut io = Io::new();
    for (path, purpose, kind) in [
        (fifo.clone(), OpenFor::Read, FileKind::Other),
        (fifo.clone(), OpenFor::Write, FileKind::Other),
        (
            Path::new("/dev/null").to_owned(),
            OpenFor::Read,
            FileKind::Other,
        ),
        (dir.path().to_owned(), OpenFor::Read, FileKind::Directory),
        (
            dir.path().join("notes.txt"),
            OpenFor::Read,
            FileKind::Regular,
        ),
    ] {
        let opened = io.open(&path, purpose).unwrap();
        assert_eq!(opened.kind, Some(kind), "{}", path.display());
    }
}

#[test]
fn a_file_with_no_path_in_the_file_tree_is_refused() {
    // A pipe (what a link to /dev/stdin reaches when luxe's stdin is one) has no path.
    let (reader, _writer) = std::io::pipe().unwrap();
    let link = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&reader));
    let error = Io::new().open(Path::new(&link), OpenFor::Read).unwrap_err();
    assert!(error.contains("not a file in the file tree"), "{error}");
}

#[test]
fn a_new_file_is_not_written_into_a_directory_moved_in_after_the_open() {
    let dir = project();
    fs::create_dir(dir.path().join("foo")).unwrap();
    let mut io = Io::new();
    io.open(&dir.path().join("foo/settings.json"), OpenFor::Write)
        .unwrap();
    fs::rename(dir.path().join("foo"), dir.path().join(".luxe")).unwrap();
    let error = io.replace(b"{}").unwrap_err();
    assert!(error.contains("changed while luxe was deciding"), "{error}");
    assert!(!dir.path().join(".luxe/settings.json").exists());
}
