//! The effect performer against real parts: a loopback HTTP server, real processes, a real
//! filesystem.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use luxe_core::Output;
use luxe_core::effects::{EffectId, FileContent, SearchHit, Stream};
use luxe_core::effects::{HttpMethod, HttpRequest};
use luxe_core::protocol::guided_review::ReviewTarget;
use luxe_io::{Completion, Effects};
use smol::channel::Receiver;
use smol::future::FutureExt as _;

const ID: EffectId = EffectId(7);

/// A performer and its results. HTTP requests run on its local executor: a test of them runs
/// inside `local_executor().run(..)`, as the driver does.
fn performer() -> (Effects, Receiver<Completion>) {
    let (sender, receiver) = smol::channel::unbounded();
    (Effects::new(sender), receiver)
}

/// The next result, failing the test rather than hanging it.
async fn next(results: &Receiver<Completion>) -> Completion {
    let timeout = async {
        smol::Timer::after(Duration::from_secs(5)).await;
        panic!("no result within 5 s");
    };
    results.recv().or(timeout).await.unwrap()
}

/// Asserts nothing arrives for a while.
async fn assert_quiet(results: &Receiver<Completion>, wait: Duration) {
    smol::Timer::after(wait).await;
    assert_eq!(results.try_recv().ok(), None);
}

// ---------------------------------------------------------------------------------------------
// HTTP

/// What the server received.
struct Received {
    request_line: String,
    headers: Vec<String>,
    body: Vec<u8>,
}

/// Serves one connection on a new port with `respond`, handing what arrived to the returned
/// receiver first.
fn serve_once(
    respond: impl FnOnce(TcpStream) + Send + 'static,
) -> (String, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/messages", listener.local_addr().unwrap());
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let line = line.trim_end().to_owned();
            if line.is_empty() {
                break;
            }
            headers.push(line.to_ascii_lowercase());
        }
        let length = headers
            .iter()
            .find_map(|h| h.strip_prefix("content-length: "))
            .map_or(0, |n| n.parse().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        sender
            .send(Received {
                request_line: request_line.trim_end().to_owned(),
                headers,
                body,
            })
            .unwrap();
        respond(stream);
    });
    (url, receiver)
}

fn chunk(stream: &mut TcpStream, data: &str) {
    write!(stream, "{:x}\r\n{data}\r\n", data.len()).unwrap();
    stream.flush().unwrap();
}

fn post(url: &str, body: Vec<u8>) -> Output {
    Output::HttpRequest {
        id: ID,
        request: HttpRequest {
            method: HttpMethod::Post,
            url: url.to_owned(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("x-api-key".into(), "sk-test".into()),
            ],
            body,
        },
    }
}

/// Collects body chunks until `want` bytes have arrived.
async fn body_of(results: &Receiver<Completion>, want: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < want {
        match next(results).await {
            Completion::HttpBody { id: ID, bytes } => body.extend(bytes),
            other => panic!("expected a body chunk, got {other:?}"),
        }
    }
    body
}

#[test]
fn http_streams_status_headers_and_body_chunks_as_they_arrive() {
    let (go_on, wait) = mpsc::channel::<()>();
    let (url, received) = serve_once(move |mut stream| {
        let head = "HTTP/1.1 429 Too Many Requests\r\nretry-after: 7\r\n\
                    transfer-encoding: chunked\r\n\r\n";
        stream.write_all(head.as_bytes()).unwrap();
        chunk(&mut stream, "hello");
        thread::sleep(Duration::from_millis(20));
        chunk(&mut stream, " world");
        // The last chunk only once the test has seen the first ones: proof of streaming.
        wait.recv().unwrap();
        chunk(&mut stream, "!");
        stream.write_all(b"0\r\n\r\n").unwrap();
    });
    let (mut effects, results) = performer();
    // Over 1 MiB, where curl would otherwise wait for `100 Continue`.
    let sent = format!("{{\"pad\":\"{}\"}}", "x".repeat(1 << 20)).into_bytes();
    let local = effects.local_executor();
    smol::block_on(local.run(async {
        effects.start(post(&url, sent.clone()));
        let head = next(&results).await;
        let want = Completion::HttpResponse {
            id: ID,
            status: 429,
            retry_after: Some("7".into()),
        };
        assert_eq!(head, want);
        assert_eq!(body_of(&results, 11).await, b"hello world");
        assert_quiet(&results, Duration::from_millis(50)).await;
        go_on.send(()).unwrap();
        assert_eq!(body_of(&results, 1).await, b"!");
        assert_eq!(next(&results).await, Completion::HttpEnded { id: ID });
    }));
    let received = received.recv().unwrap();
    assert_eq!(received.request_line, "POST /v1/messages HTTP/1.1");
    for header in ["content-type: application/json", "x-api-key: sk-test"] {
        assert!(received.headers.iter().any(|h| h == header), "{header}");
    }
    assert!(!received.headers.iter().any(|h| h.starts_with("expect:")));
    assert_eq!(received.body, sent);
}

#[test]
fn http_body_cut_short_fails() {
    let (url, _received) = serve_once(|mut stream| {
        let head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
        stream.write_all(head.as_bytes()).unwrap();
        chunk(&mut stream, "partial");
        // Dropped here: the connection closes before the terminating chunk. Chunked framing
        // lets curl tell this from a normal end, so HttpEnded would be a bug.
    });
    let (mut effects, results) = performer();
    let local = effects.local_executor();
    smol::block_on(local.run(async {
        effects.start(post(&url, b"{}".to_vec()));
        assert!(matches!(
            next(&results).await,
            Completion::HttpResponse { status: 200, .. }
        ));
        let mut last = next(&results).await;
        while let Completion::HttpBody { .. } = last {
            last = next(&results).await;
        }
        assert!(
            matches!(last, Completion::HttpFailed { id: ID, .. }),
            "{last:?}"
        );
    }));
}

#[test]
fn http_connection_refused_fails() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (mut effects, results) = performer();
    let local = effects.local_executor();
    smol::block_on(local.run(async {
        effects.start(post(&format!("http://127.0.0.1:{port}/"), Vec::new()));
        let result = next(&results).await;
        assert!(
            matches!(&result, Completion::HttpFailed { id: ID, error } if error.contains("connect")),
            "{result:?}"
        );
    }));
}

/// Whether the peer closed the connection, writing a chunk every few milliseconds for up to two
/// seconds: curl notices a dropped response only when more of it arrives.
fn closed_by_peer(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_millis(5)))
        .unwrap();
    for _ in 0..400 {
        if stream.write_all(b"4\r\nmore\r\n").is_err() {
            return true;
        }
        match stream.read(&mut [0; 16]) {
            Ok(0) => return true,
            Err(err) if err.kind() == std::io::ErrorKind::ConnectionReset => return true,
            _ => {}
        }
    }
    false
}

#[test]
fn cancelled_http_sends_nothing_more_and_closes_the_connection() {
    let (go_on, wait) = mpsc::channel::<()>();
    let (closed, saw_close) = mpsc::channel();
    let (url, _received) = serve_once(move |mut stream| {
        let head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
        stream.write_all(head.as_bytes()).unwrap();
        chunk(&mut stream, "first");
        wait.recv().unwrap();
        closed.send(closed_by_peer(&mut stream)).unwrap();
    });
    let (mut effects, results) = performer();
    let local = effects.local_executor();
    smol::block_on(local.run(async {
        effects.start(post(&url, Vec::new()));
        assert!(matches!(
            next(&results).await,
            Completion::HttpResponse { .. }
        ));
        assert_eq!(body_of(&results, 5).await, b"first");
        // The request's task runs on this thread, so once it is dropped nothing more can come.
        effects.start(Output::CancelHttp { id: ID });
        go_on.send(()).unwrap();
        // Waited for off this thread: the executor must run to drop the cancelled task.
        let closed = smol::unblock(move || saw_close.recv().unwrap()).await;
        assert!(closed, "the connection stayed open");
        assert_quiet(&results, Duration::from_millis(20)).await;
    }));
}

// ---------------------------------------------------------------------------------------------
// Processes

fn spawn(program: &str, args: &[&str]) -> Output {
    Output::Spawn {
        id: ID,
        program: program.into(),
        args: args.iter().map(|&a| a.into()).collect(),
        cwd: "/".into(),
        env: Vec::new(),
        unset: Vec::new(),
        stdin: Vec::new(),
    }
}

/// `bash args`, with `change` made to what it gets besides (its added variables, the ones
/// it does not get, its stdin).
fn spawn_with(
    args: &[&str],
    change: impl FnOnce(&mut Vec<(String, String)>, &mut Vec<String>, &mut Vec<u8>),
) -> Output {
    let mut output = spawn("bash", args);
    if let Output::Spawn {
        env, unset, stdin, ..
    } = &mut output
    {
        change(env, unset, stdin);
    }
    output
}

/// Output per stream until the process exits, and how it exited.
async fn run_out(
    results: &Receiver<Completion>,
) -> (Vec<u8>, Vec<u8>, Result<Option<i32>, String>) {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    loop {
        match next(results).await {
            Completion::ProcessOutput {
                id: ID,
                stream: Stream::Stdout,
                bytes,
            } => stdout.extend(bytes),
            Completion::ProcessOutput {
                id: ID,
                stream: Stream::Stderr,
                bytes,
            } => stderr.extend(bytes),
            Completion::ProcessExited { id: ID, status } => return (stdout, stderr, status),
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn a_process_reports_both_streams_then_its_exit_code() {
    let (mut effects, results) = performer();
    smol::block_on(async {
        effects.start(spawn("bash", &["-c", "echo out; echo err >&2; exit 3"]));
        let (stdout, stderr, status) = run_out(&results).await;
        assert_eq!((&stdout[..], &stderr[..]), (&b"out\n"[..], &b"err\n"[..]));
        assert_eq!(status, Ok(Some(3)));
    });
}

#[test]
fn the_variables_unset_do_not_reach_the_process() {
    let (mut effects, results) = performer();
    smol::block_on(async {
        let command = "echo \"${HOME:-none}:${PATH:+path}\"";
        effects.start(spawn_with(&["-c", command], |_, unset, _| {
            unset.push("HOME".to_owned());
        }));
        let (stdout, _, status) = run_out(&results).await;
        assert_eq!(stdout, b"none:path\n");
        assert_eq!(status, Ok(Some(0)));
    });
}

#[test]
fn the_variables_given_reach_the_process_on_top_of_luxes_own() {
    let (mut effects, results) = performer();
    smol::block_on(async {
        let command = "echo \"$LUXE_TEST_VAR:${PATH:+path}\"";
        effects.start(spawn_with(&["-c", command], |env, _, _| {
            env.push(("LUXE_TEST_VAR".to_owned(), "given".to_owned()));
        }));
        let (stdout, _, status) = run_out(&results).await;
        assert_eq!(stdout, b"given:path\n");
        assert_eq!(status, Ok(Some(0)));
    });
}

#[test]
fn a_process_reads_what_it_is_given_on_stdin_then_its_end() {
    let (mut effects, results) = performer();
    smol::block_on(async {
        // More than a pipe holds, so the writer must wait for the reader.
        let given = "line\n".repeat(40_000);
        let command = "wc -c; cat >/dev/null; echo eof";
        effects.start(spawn_with(&["-c", command], |_, _, stdin| {
            stdin.extend_from_slice(given.as_bytes());
        }));
        let (stdout, _, status) = run_out(&results).await;
        assert_eq!(
            String::from_utf8_lossy(&stdout),
            format!("{}\neof\n", given.len())
        );
        assert_eq!(status, Ok(Some(0)));
        // Without stdin, a reader sees its end at once.
        effects.start(spawn("bash", &["-c", "cat; echo closed"]));
        let (stdout, _, _) = run_out(&results).await;
        assert_eq!(stdout, b"closed\n");
    });
}

#[test]
fn a_missing_program_cannot_start() {
    let (mut effects, results) = performer();
    smol::block_on(async {
        effects.start(spawn("luxe-no-such-program", &[]));
        let (stdout, stderr, status) = run_out(&results).await;
        assert!(stdout.is_empty() && stderr.is_empty());
        let error = status.unwrap_err();
        assert!(error.contains("luxe-no-such-program"), "{error}");
    });
}

/// Whether a pid names a live process (a zombie is dead, awaiting its reaper).
fn alive(pid: &str) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap()
            .trim_start()
            .starts_with('Z')
    })
}

/// Whether a pid is dead within a second: SIGKILL is delivered asynchronously, and a process may
/// close its pipes a moment before it turns zombie.
async fn dies(pid: &str) -> bool {
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(1) {
        smol::Timer::after(Duration::from_millis(5)).await;
    }
    !alive(pid)
}

#[test]
fn kill_ends_the_whole_process_group_promptly() {
    let (mut effects, results) = performer();
    smol::block_on(async {
        // The background sleep holds stdout open: only killing the group lets the pipes close.
        effects.start(spawn("bash", &["-c", "sleep 30 & echo $!; sleep 30"]));
        let pid = match next(&results).await {
            // Output arrives while the process runs: it is streamed, not collected at exit.
            Completion::ProcessOutput { bytes, .. } => String::from_utf8(bytes).unwrap(),
            other => panic!("expected the grandchild's pid, got {other:?}"),
        };
        let pid = pid.trim();
        assert!(alive(pid));
        let killed = Instant::now();
        effects.start(Output::Kill { id: ID });
        let (_, _, status) = run_out(&results).await;
        assert_eq!(status, Ok(None), "killed by a signal");
        assert!(killed.elapsed() < Duration::from_secs(1));
        assert!(dies(pid).await, "the grandchild {pid} survived");
    });
}

#[test]
fn shutdown_kills_running_processes() {
    let (mut effects, results) = performer();
    smol::block_on(async {
        effects.start(spawn("bash", &["-c", "echo $$; sleep 30"]));
        let pid = match next(&results).await {
            Completion::ProcessOutput { bytes, .. } => String::from_utf8(bytes).unwrap(),
            other => panic!("expected the pid, got {other:?}"),
        };
        effects.shutdown();
        let pid = pid.trim();
        assert!(dies(pid).await, "{pid} survived shutdown");
    });
}

// ---------------------------------------------------------------------------------------------
// Files

fn read_file(path: &Path, max_bytes: u64) -> Result<FileContent, String> {
    let (mut effects, results) = performer();
    smol::block_on(async {
        effects.start(Output::ReadFile {
            id: ID,
            path: path.to_str().unwrap().into(),
            max_bytes,
        });
        match next(&results).await {
            Completion::FileRead { id: ID, result } => result,
            other => panic!("unexpected {other:?}"),
        }
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let (mut effects, results) = performer();
    smol::block_on(async {
        effects.start(Output::WriteFile {
            id: ID,
            path: path.to_str().unwrap().into(),
            bytes: bytes.to_vec(),
        });
        match next(&results).await {
            Completion::FileWritten { id: ID, result } => result,
            other => panic!("unexpected {other:?}"),
        }
    })
}

#[test]
fn reads_are_cut_at_the_limit_and_report_the_whole_length() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ten");
    fs::write(&path, "0123456789").unwrap();
    let cut = read_file(&path, 4).unwrap();
    assert_eq!((cut.bytes, cut.total_len), (b"0123".to_vec(), 10));
    let whole = read_file(&path, 100).unwrap();
    assert_eq!((whole.bytes, whole.total_len), (b"0123456789".to_vec(), 10));
}

#[test]
fn reading_a_missing_file_fails() {
    let dir = tempfile::tempdir().unwrap();
    let error = read_file(&dir.path().join("missing"), 10).unwrap_err();
    assert!(error.contains("No such file"), "{error}");
}

#[test]
fn writes_create_directories_replace_content_and_leave_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/file.txt");
    write_file(&path, b"first").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"first");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    write_file(&path, b"second").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640, "the old permissions are kept");
    let names: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["file.txt"]);
}

#[test]
fn writes_go_through_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let (target, link) = (dir.path().join("target.md"), dir.path().join("link.md"));
    fs::write(&target, "old").unwrap();
    symlink(&target, &link).unwrap();
    write_file(&link, b"new").unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"new");
}

#[test]
fn a_write_that_cannot_happen_fails() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("file"), "").unwrap();
    // A parent that is a file.
    assert!(write_file(&dir.path().join("file/child"), b"x").is_err());
}

// ---------------------------------------------------------------------------------------------
// Search and listing

/// A directory outside any git repository, with a .gitignore, a hidden directory and a binary
/// file. tempfile names it `.tmp…`: a hidden root must still be searched.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join(".hidden")).unwrap();
    fs::write(root.join(".gitignore"), "ignored.txt\n").unwrap();
    fs::write(root.join("ignored.txt"), "needle\n").unwrap();
    fs::write(root.join(".hidden/secret.txt"), "needle\n").unwrap();
    fs::write(
        root.join("a.rs"),
        "fn main() {}\nlet needle = 1;\r\nNEEDLE\n",
    )
    .unwrap();
    fs::write(root.join("src/b.rs"), "needle two").unwrap();
    fs::write(root.join("notes.md"), "a needle in md\n").unwrap();
    fs::write(root.join("bin.dat"), b"needle\0binary\n").unwrap();
    dir
}

fn search(
    root: &Path,
    pattern: &str,
    glob: Option<&str>,
    case_insensitive: bool,
    max_results: usize,
) -> Result<Vec<(String, u64)>, String> {
    let (mut effects, results) = performer();
    smol::block_on(async {
        effects.start(Output::Search {
            id: ID,
            root: root.to_str().unwrap().into(),
            pattern: pattern.into(),
            glob: glob.map(Into::into),
            case_insensitive,
            max_results,
        });
        match next(&results).await {
            Completion::SearchDone { id: ID, result } => result.map(|hits| {
                hits.into_iter()
                    .map(|SearchHit { path, line, .. }| (path, line))
                    .collect()
            }),
            other => panic!("unexpected {other:?}"),
        }
    })
}

fn hits(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    list.iter()
        .map(|&(path, line)| (path.into(), line))
        .collect()
}

#[test]
fn search_skips_ignored_hidden_and_binary_files_and_sorts_hits() {
    let dir = tree();
    let found = search(dir.path(), "needle", None, false, 100).unwrap();
    assert_eq!(
        found,
        hits(&[("a.rs", 2), ("notes.md", 1), ("src/b.rs", 1)])
    );
}

#[test]
fn search_reports_line_text_without_its_ending() {
    let dir = tree();
    let (mut effects, results) = performer();
    let text = smol::block_on(async {
        effects.start(Output::Search {
            id: ID,
            root: dir.path().join("a.rs").to_str().unwrap().into(),
            pattern: "needle".into(),
            glob: None,
            case_insensitive: false,
            max_results: 10,
        });
        match next(&results).await {
            Completion::SearchDone {
                result: Ok(hits), ..
            } => hits,
            other => panic!("unexpected {other:?}"),
        }
    });
    let want = SearchHit {
        path: "a.rs".into(),
        line: 2,
        text: "let needle = 1;".into(),
    };
    assert_eq!(text, [want]);
}

#[test]
fn search_can_ignore_case() {
    let dir = tree();
    let found = search(dir.path(), "needle", Some("a.rs"), true, 100).unwrap();
    assert_eq!(found, hits(&[("a.rs", 2), ("a.rs", 3)]));
}

#[test]
fn search_filters_by_glob_on_the_relative_path() {
    let dir = tree();
    let found = search(dir.path(), "needle", Some("*.rs"), false, 100).unwrap();
    assert_eq!(found, hits(&[("a.rs", 2), ("src/b.rs", 1)]));
    let found = search(dir.path(), "needle", Some("src/**"), false, 100).unwrap();
    assert_eq!(found, hits(&[("src/b.rs", 1)]));
}

#[test]
fn search_stops_at_max_results() {
    let dir = tree();
    let found = search(dir.path(), "needle", None, true, 2).unwrap();
    assert_eq!(found.len(), 2);
}

#[test]
fn search_rejects_a_bad_regex_or_glob() {
    let dir = tree();
    let error = search(dir.path(), "(", None, false, 10).unwrap_err();
    assert!(error.starts_with("invalid regex: "), "{error}");
    let error = search(dir.path(), "x", Some("a[b"), false, 10).unwrap_err();
    assert!(error.starts_with("invalid glob: "), "{error}");
}

fn list(root: &Path, pattern: &str, max_results: usize) -> Result<Vec<String>, String> {
    let (mut effects, results) = performer();
    smol::block_on(async {
        effects.start(Output::ListFiles {
            id: ID,
            root: root.to_str().unwrap().into(),
            pattern: pattern.into(),
            max_results,
        });
        match next(&results).await {
            Completion::FilesListed { id: ID, result } => result,
            other => panic!("unexpected {other:?}"),
        }
    })
}

#[test]
fn listing_matches_the_glob_skips_ignored_files_and_caps() {
    let dir = tree();
    assert_eq!(
        list(dir.path(), "**/*.rs", 100).unwrap(),
        ["a.rs", "src/b.rs"]
    );
    assert_eq!(
        list(dir.path(), "*", 100).unwrap(),
        ["a.rs", "bin.dat", "notes.md", "src/b.rs"]
    );
    assert_eq!(list(dir.path(), "*", 3).unwrap().len(), 3);
    assert!(list(&dir.path().join("missing"), "*", 3).is_err());
}

// ---------------------------------------------------------------------------------------------
// Git (the reads themselves are covered in git_diff.rs)

#[test]
fn read_diff_is_performed_and_answered_with_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let (mut effects, results) = performer();
    let result = smol::block_on(async {
        effects.start(Output::ReadDiff {
            id: ID,
            cwd: dir.path().to_str().unwrap().into(),
            target: ReviewTarget::WorkingTree,
        });
        match next(&results).await {
            Completion::DiffRead { id: ID, result } => result,
            other => panic!("unexpected {other:?}"),
        }
    });
    let err = result.unwrap_err();
    assert!(err.contains("not a git repository"), "{err}");
}
