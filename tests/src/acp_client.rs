//! The official ACP TypeScript SDK as a test client: `tests/acp/client.mjs` runs one scenario
//! against the real `luxe --acp` and prints what it received; the SDK rejects any message off
//! the ACP schema.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::model_server::ModelServer;
use crate::process::{Workspace, luxe_bin};

/// `tests/acp`, with its pinned SDK installed by `npm ci` once per test process.
pub fn client_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/acp"));
        if !dir.join("node_modules/@agentclientprotocol/sdk").is_dir() {
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--silent"])
                .current_dir(&dir)
                .status()
                .expect("npm runs (.ci/run installs Node and npm)");
            assert!(status.success(), "npm ci in tests/acp failed");
        }
        dir
    })
}

/// A scenario's run: what the client saw, in order.
pub struct Transcript {
    /// Every entry the client printed.
    pub entries: Vec<Value>,
}

impl Transcript {
    /// The entries of `kind`.
    pub fn of(&self, kind: &str) -> Vec<&Value> {
        self.entries.iter().filter(|e| e["kind"] == kind).collect()
    }

    /// A compact view, one word per entry: update kinds, `permission`, `response <method>`,
    /// `error <method>`, marks.
    pub fn outline(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|e| match e["kind"].as_str().unwrap_or_default() {
                "update" => e["update"]["sessionUpdate"]
                    .as_str()
                    .unwrap_or("?")
                    .to_owned(),
                "response" | "error" => format!(
                    "{} {}",
                    e["kind"].as_str().unwrap_or_default(),
                    e["method"].as_str().unwrap_or_default()
                ),
                "mark" => format!("mark {}", e["what"].as_str().unwrap_or_default()),
                other => other.to_owned(),
            })
            .collect()
    }

    /// The result of the `n`th successful response to `method`.
    pub fn result(&self, method: &str, n: usize) -> &Value {
        let found: Vec<&Value> = self
            .entries
            .iter()
            .filter(|e| e["kind"] == "response" && e["method"] == method)
            .collect();
        &found
            .get(n)
            .unwrap_or_else(|| panic!("no response {n} to {method}: {:#?}", self.entries))["result"]
    }
}

/// Two project directories in `ws`, as `(a, b)`, symlinks resolved.
pub fn project_dirs(ws: &Workspace) -> (String, String) {
    let make = |name: &str| {
        let dir = ws.path().join(name);
        std::fs::create_dir_all(&dir).expect("a project dir");
        std::fs::canonicalize(&dir)
            .expect("it exists")
            .to_string_lossy()
            .into_owned()
    };
    (make("a"), make("b"))
}

/// Runs `scenario` with luxe on Anthropic at `server`; `env` adds to the client's environment
/// (`SCENARIO_PERMISSIONS`, `FS_FILES`, `LUXE_ARGS`). Fails the test when the client fails.
pub fn run(
    scenario: &str,
    ws: &Workspace,
    server: &ModelServer,
    env: &[(&str, &str)],
) -> Transcript {
    let dir = client_dir();
    let (a, b) = project_dirs(ws);
    let mut cmd = Command::new("node");
    cmd.arg(dir.join("client.mjs"))
        .arg(scenario)
        .current_dir(dir)
        .env("LUXE_BIN", luxe_bin())
        .env("LUXE_ARGS", "--model anthropic/claude-sonnet-4-5")
        .env("LUXE_HOME", ws.path().join("home"))
        .env("ANTHROPIC_API_KEY", "test-anthropic-key")
        .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
        .env("LUXE_RETRY_BASE_MS", "10")
        .env("LUXE_RETRY_MAX_MS", "50")
        .env("DIR_A", &a)
        .env("DIR_B", &b)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("LUXE_LOG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let output = cmd
        .output()
        .expect("node runs (.ci/run installs Node and npm)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let entries: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("client line {l:?}")))
        .collect();
    assert!(
        output.status.success() && entries.iter().any(|e| e["kind"] == "done"),
        "the ACP client failed on {scenario}:\n{}\nstderr:\n{}",
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    Transcript { entries }
}
