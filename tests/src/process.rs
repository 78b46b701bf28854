//! The real `luxe` binary, spawned in a temporary directory, spoken to in frames.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The variable that names a directory where every luxe a test spawns appends each line it writes
/// to stdout, one file per process (`luxe-<pid>.jsonl`): the frames of any e2e run, which
/// `tests/tests/client_author.rs` then holds to the schema.
pub const CAPTURE_DIR_VAR: &str = "LUXE_TEST_CAPTURE_DIR";

/// How long a test waits for one frame or for the process to exit before it fails.
pub fn patience() -> Duration {
    let ms = std::env::var("LUXE_TEST_PATIENCE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    Duration::from_millis(ms)
}

/// The `luxe` binary of this workspace, built once per test process in the same profile.
pub fn luxe_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("LUXE_BIN") {
            return PathBuf::from(bin);
        }
        // The test executable lives in target/<profile>/deps/.
        let exe = std::env::current_exe().expect("the test knows its own path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("test executables live in target/<profile>/deps");
        let target_dir = profile_dir.parent().expect("a profile dir has a parent");
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev",
            Some(other) => other,
        };
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "-p",
                "luxe",
                "--bin",
                "luxe",
                "--profile",
                profile,
            ])
            .arg("--manifest-path")
            .arg(manifest)
            .arg("--target-dir")
            .arg(target_dir)
            // cargo test sets this for the test; rustls-ffi's build script reruns when it differs
            // from the outer build's (unset), and that rebuilds libcurl each time.
            .env_remove("CARGO_PKG_VERSION")
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building luxe failed");
        profile_dir.join("luxe")
    })
}

/// A directory to run luxe in, and its `LUXE_HOME`, removed when dropped.
pub struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    /// A fresh empty directory with a `home/` inside for `LUXE_HOME`.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::create_dir(dir.path().join("home")).expect("LUXE_HOME");
        Self { dir }
    }

    /// The working directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A `luxe --rpc` command here, with no provider variables and `LUXE_HOME` inside.
    pub fn luxe(&self) -> Command {
        let mut cmd = Command::new(luxe_bin());
        cmd.arg("--rpc")
            .current_dir(self.path())
            .env("LUXE_HOME", self.path().join("home"))
            .env_remove("LUXE_LOG");
        for var in [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

/// Spawns `cmd` with piped stdio and reads its first line (for timing start-up); the caller
/// owns the child.
pub fn spawn_to_first_line(mut cmd: Command) -> (Child, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("luxe spawns");
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().expect("piped stdout"))
        .read_line(&mut first)
        .expect("a first line");
    (child, first)
}

/// The file that captures the stdout of luxe `pid`, when [`CAPTURE_DIR_VAR`] names a directory.
fn capture_file(pid: u32) -> Option<File> {
    let dir = PathBuf::from(std::env::var_os(CAPTURE_DIR_VAR)?);
    std::fs::create_dir_all(&dir).expect("the capture directory can be made");
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("luxe-{pid}.jsonl")))
        .expect("the capture file opens");
    Some(file)
}

/// A running `luxe`: frames in on stdin, frames out of stdout, stderr collected.
pub struct LuxeProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<String>,
    stderr: Option<thread::JoinHandle<String>>,
    transcript: Vec<String>,
    /// Whether `workspace_updated` frames reach the test (see [`LuxeProcess::watch_workspace`]).
    workspace: bool,
    /// How long [`LuxeProcess::recv`] waits for a frame.
    patience: Duration,
}

impl LuxeProcess {
    /// Spawns `cmd` (from [`Workspace::luxe`]) with piped stdio; its stdout is also appended to
    /// a file when [`CAPTURE_DIR_VAR`] is set.
    pub fn spawn(mut cmd: Command) -> Self {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("luxe spawns");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let mut capture = capture_file(child.id());
        let (tx, frames) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(file) = capture.as_mut() {
                    writeln!(file, "{line}").expect("the capture file takes the frame");
                }
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Self {
            stdin: child.stdin.take(),
            child,
            frames,
            stderr: Some(stderr),
            transcript: Vec::new(),
            workspace: false,
            patience: patience(),
        }
    }

    /// Waits up to `patience` for each frame from now on (a real model on a CPU can think for
    /// longer than the default before its first token).
    pub fn set_patience(&mut self, patience: Duration) {
        self.patience = patience;
    }

    /// Lets `workspace_updated` frames through to [`LuxeProcess::recv`]. Without it they are
    /// recorded in the transcript but skipped: they arrive whenever the GitHub probe ends, which
    /// tests of other capabilities do not wait for.
    pub fn watch_workspace(&mut self) {
        self.workspace = true;
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one line (LF appended).
    pub fn send(&mut self, line: &str) {
        self.transcript.push(format!("← {line}"));
        self.send_raw(format!("{line}\n").as_bytes());
    }

    /// Sends the frame `{"kind": kind, "content": content}`.
    pub fn send_frame(&mut self, kind: &str, content: Value) {
        let line = serde_json::json!({"kind": kind, "content": content}).to_string();
        self.send(&line);
    }

    /// The next frame that is not `workspace_updated` (for tests that watch the dock but wait
    /// for an answer).
    pub fn answer(&mut self) -> Value {
        loop {
            let frame = self.recv();
            if frame["kind"] != "workspace_updated" {
                return frame;
            }
        }
    }

    /// Writes bytes as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("luxe reads stdin");
        stdin.flush().expect("luxe reads stdin");
    }

    /// Closes stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.transcript.push("← EOF".into());
        self.stdin = None;
    }

    /// The next frame, parsed; fails the test if none comes in time or it is not a frame.
    pub fn recv(&mut self) -> Value {
        loop {
            match self.frames.recv_timeout(self.patience) {
                Ok(line) => {
                    self.transcript.push(format!("→ {line}"));
                    let frame: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| self.fail(&format!("stdout line is not JSON ({e})")));
                    if !frame["kind"].is_string() {
                        self.fail("a frame without a string kind");
                    }
                    if frame["kind"] == "workspace_updated" && !self.workspace {
                        continue;
                    }
                    return frame;
                }
                Err(RecvTimeoutError::Timeout) => self.fail("no frame in time"),
                Err(RecvTimeoutError::Disconnected) => self.fail("stdout closed"),
            }
        }
    }

    /// The next frame, which must be of `kind`; returns its content.
    pub fn expect(&mut self, kind: &str) -> Value {
        let frame = self.recv();
        if frame["kind"] != kind {
            self.fail(&format!("expected {kind}, got {frame}"));
        }
        frame.get("content").cloned().unwrap_or(Value::Null)
    }

    /// Frames up to and including the first of `kind`.
    pub fn until(&mut self, kind: &str) -> Vec<Value> {
        let mut frames = Vec::new();
        loop {
            let frame = self.recv();
            let done = frame["kind"] == kind;
            frames.push(frame);
            if done {
                return frames;
            }
        }
    }

    /// Kills luxe with SIGKILL, as a crash would end it, and reaps it.
    pub fn kill_hard(&mut self) {
        self.transcript.push("✝ SIGKILL".into());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether stdout ends with no further frame.
    pub fn expect_stdout_closed(&mut self) {
        let mut next = self.frames.recv_timeout(patience());
        while let Ok(line) = &next {
            if self.workspace || !line.starts_with(r#"{"kind":"workspace_updated""#) {
                break;
            }
            self.transcript.push(format!("→ {line}"));
            next = self.frames.recv_timeout(patience());
        }
        match next {
            Err(RecvTimeoutError::Disconnected) => {}
            Ok(line) => self.fail(&format!("unexpected frame {line}")),
            Err(RecvTimeoutError::Timeout) => self.fail("stdout stayed open"),
        }
    }

    /// Waits for the process to exit; returns its status and stderr.
    pub fn wait(&mut self) -> (ExitStatus, String) {
        self.stdin = None;
        let deadline = Instant::now() + patience();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait works") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                self.fail("luxe did not exit in time");
            }
            thread::sleep(Duration::from_millis(5));
        };
        let stderr = self
            .stderr
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default();
        (status, stderr)
    }

    /// Everything sent and received.
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    fn fail(&mut self, why: &str) -> ! {
        let _ = self.child.kill();
        panic!("{why}\n--- transcript ---\n{}", self.transcript.join("\n"));
    }
}

impl Drop for LuxeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
