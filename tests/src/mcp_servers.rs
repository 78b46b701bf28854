//! The MCP servers the tests run: the reference servers from npm (pinned in
//! `tests/mcp/package-lock.json`, installed with `npm ci` the first time they are needed) and
//! the tests' own scripted bad server (`tests/mcp/bad_server.py`), as `mcpServers` entries.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

/// `tests/mcp`.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp")
}

/// `tests/mcp/node_modules`, with the pinned servers installed once per test process if they
/// are not there yet: whatever reads a server's files goes through here, so that no test reads
/// them while another one's `npm ci` is still writing them.
pub fn installed() -> &'static PathBuf {
    static MODULES: OnceLock<PathBuf> = OnceLock::new();
    MODULES.get_or_init(|| {
        let modules = dir().join("node_modules");
        if !modules
            .join("@modelcontextprotocol/server-everything")
            .exists()
        {
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--silent"])
                .current_dir(dir())
                .status()
                .expect("npm runs (install Node.js and npm)");
            assert!(status.success(), "npm ci in tests/mcp failed");
        }
        modules
    })
}

/// The entry script of the npm package `name` (under `@modelcontextprotocol/`).
fn script(name: &str) -> String {
    installed()
        .join("@modelcontextprotocol")
        .join(name)
        .join("dist/index.js")
        .to_string_lossy()
        .into_owned()
}

/// `@modelcontextprotocol/server-everything` over stdio.
pub fn everything() -> Value {
    json!({"command": "node", "args": [script("server-everything"), "stdio"]})
}

/// The command line that serves `server-everything` over streamable HTTP on `port`.
pub fn everything_http_command(port: u16) -> Command {
    let mut command = Command::new("node");
    command
        .arg(script("server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    command
}

/// `@modelcontextprotocol/server-filesystem` serving `root`.
pub fn filesystem(root: &std::path::Path) -> Value {
    json!({"command": "node", "args": [script("server-filesystem"), root]})
}

/// The scripted bad server in `mode` (see the script), whose processes carry `marker`.
pub fn bad(mode: &str, marker: &str) -> Value {
    let path = dir().join("bad_server.py");
    json!({"command": "python3", "args": [path, mode, marker]})
}

/// The pids of live processes whose command line holds `marker` (from `/proc`).
pub fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // A zombie is gone already, only not reaped by its parent yet.
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
        })
        .collect()
}

/// A streamable-HTTP server on a free loopback port, ended when dropped: `server-everything`
/// or the tests' scripted one. What it writes on stdout is kept, line by line.
pub struct HttpServer {
    child: std::process::Child,
    /// Its endpoint, `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    said: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl HttpServer {
    /// `server-everything`, once it listens.
    pub fn everything() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Self::start(everything_http_command(port), Some(port))
    }

    /// `tests/mcp/http_server.py` in `mode` (see the script), once it listens.
    pub fn scripted(mode: &str) -> Self {
        let mut command = Command::new("python3");
        command.arg(dir().join("http_server.py")).arg(mode);
        Self::start(command, None)
    }

    /// Runs `command` until it says on stderr that it listens (on `port`, or the port it
    /// names).
    fn start(mut command: Command, port: Option<u16>) -> Self {
        use std::io::BufRead as _;
        let mut child = command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the server runs");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut lines = std::io::BufReader::new(stderr).lines();
        let port = loop {
            match lines.next() {
                Some(Ok(line)) if line.contains("listening on port") => {
                    let named = line.rsplit(' ').next().and_then(|p| p.parse().ok());
                    break port.or(named).expect("a port");
                }
                Some(Ok(_)) => {}
                _ => panic!("the HTTP server did not start"),
            }
        };
        // Its later words go nowhere; the pipe is drained so it never blocks on them.
        std::thread::spawn(move || for _ in lines {});
        let said: std::sync::Arc<std::sync::Mutex<Vec<String>>> = std::sync::Arc::default();
        let stdout = child.stdout.take().expect("piped stdout");
        let keep = std::sync::Arc::clone(&said);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                keep.lock().unwrap().push(line);
            }
        });
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
            said,
        }
    }

    /// Every line it wrote on stdout so far.
    pub fn said(&self) -> Vec<String> {
        self.said.lock().unwrap().clone()
    }

    /// Waits up to `wait` until it wrote a line holding `text`; whether it did.
    pub fn says(&self, text: &str, wait: std::time::Duration) -> bool {
        let until = std::time::Instant::now() + wait;
        while std::time::Instant::now() < until {
            if self.said().iter().any(|line| line.contains(text)) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        false
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
