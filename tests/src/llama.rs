//! llama.cpp's `llama-server` as a real test peer, like git: `tests/llama/build.sh` builds it
//! once into `${LUXE_TEST_CACHE:-$HOME/.cache/luxe-tests}/llama` with the SmolLM2-135M model
//! and a tool-capable chat template beside it. Tests that need it skip, saying why, when it is
//! absent, except under `CI=true`, where `.ci/run` builds it first and its absence fails.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where `tests/llama/build.sh` puts the server, the model and the template.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("LUXE_TEST_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/luxe-tests")))
        .unwrap_or_else(|| PathBuf::from("/tmp/luxe-tests"));
    base.join("llama")
}

/// A running `llama-server` on a loopback port; killed when dropped.
pub struct LlamaServer {
    child: Child,
    command: Vec<std::ffi::OsString>,
    port: u16,
    context: u32,
    /// Where the server's log goes: its refusals are counted there.
    log: tempfile::NamedTempFile,
}

impl LlamaServer {
    /// Starts the server with a context of `context` tokens, greedy sampling (an answer repeats
    /// but for what the prompt cache changes in the arithmetic) and the prompt cache off when `no_cache` (timing sees each request's cost);
    /// `None`, after printing why, when the binary is not built and this is not CI.
    ///
    /// # Panics
    /// Under `CI=true` when the binary is missing, and when the server does not come up.
    pub fn start(context: u32, no_cache: bool) -> Option<Self> {
        let dir = cache_dir();
        let server = dir.join("llama-server");
        let model = dir.join("SmolLM2-135M-Instruct.Q4_1.gguf");
        let template = dir.join("Qwen-Qwen2.5-7B-Instruct.jinja");
        if !(server.exists() && model.exists() && template.exists()) {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but {} is missing: .ci/run builds it with tests/llama/build.sh",
                server.display()
            );
            eprintln!(
                "skipped: llama-server is not built in {} (run tests/llama/build.sh)",
                dir.display()
            );
            return None;
        }
        let port = free_port();
        let mut command: Vec<std::ffi::OsString> = vec![
            server.into(),
            "-m".into(),
            model.into(),
            "--chat-template-file".into(),
            template.into(),
        ];
        let port_text = port.to_string();
        let context_text = context.to_string();
        let flags = [
            "--jinja",
            "--host",
            "127.0.0.1",
            "--port",
            &port_text,
            "-c",
            &context_text,
            "-t",
            "1",
            "--temp",
            "0",
            "--no-webui",
            // Repacking puts Q4_1 weights on the AMX path where the CPU has AMX tiles, and
            // that path crashes (SIGSEGV in ggml_backend_amx_mul_mat) on this machine kind.
            "--no-repack",
        ];
        command.extend(flags.iter().map(Into::into));
        if no_cache {
            command.push("--no-cache-prompt".into());
        }
        let log = tempfile::NamedTempFile::new().expect("a log file for llama-server");
        let child = launch(&command, &log);
        let mut started = Self {
            child,
            command,
            port,
            context,
            log,
        };
        started.wait_healthy(Duration::from_secs(60));
        Some(started)
    }

    /// Starts the server again on the same port after [`kill`](Self::kill).
    pub fn restart(&mut self) {
        self.child = launch(&self.command, &self.log);
        self.wait_healthy(Duration::from_secs(60));
    }

    /// The base URL luxe takes as `OPENAI_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The port it listens on, on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The context the server runs with.
    pub fn context(&self) -> u32 {
        self.context
    }

    /// The requests the server took and those it refused as too long for its context, from
    /// its log.
    pub fn requests_and_overflows(&self) -> (usize, usize) {
        let log = std::fs::read_to_string(self.log.path()).unwrap_or_default();
        let count = |marker: &str| log.lines().filter(|l| l.contains(marker)).count();
        (
            count("launch_slot_"),
            count("exceeds the available context size"),
        )
    }

    /// Kills the server (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn wait_healthy(&mut self, within: Duration) {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("llama-server status") {
                panic!("llama-server exited at start: {status}");
            }
            if get(self.port, "/health").is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("llama-server was not healthy within {within:?}");
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn launch(command: &[std::ffi::OsString], log: &tempfile::NamedTempFile) -> Child {
    // Appending: stdout and stderr share the file, and a restart adds to it.
    let file = || {
        std::fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .expect("llama-server's log file")
    };
    Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::null())
        .stdout(file())
        .stderr(file())
        .spawn()
        .expect("llama-server starts")
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// A GET's whole response, or `None` when the server is not there.
fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response)
}
