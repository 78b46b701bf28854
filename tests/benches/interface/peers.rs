//! The peers: Codex's, pi's and Claude Code's terminal interfaces from the npm registry,
//! installed into a directory outside the repository and started as their `bin` entries, each
//! with no key and a `HOME` of its own. What each one's first screen is, is written here and
//! printed with the figures.

use std::path::{Path, PathBuf};
use std::process::Command;

use vt100::Screen;

use crate::first_screen::{Keys, Program, fresh_command};

/// One peer: its npm package, the command it installs, and what its first screen is.
struct Peer {
    package: &'static str,
    bin: &'static str,
    first_screen: fn(&Screen) -> bool,
    /// What that first screen is, in words, for the report.
    described: &'static str,
    keys: Keys,
    /// Variables it is started with, besides `HOME`.
    env: &'static [(&'static str, &'static str)],
}

fn peers() -> [Peer; 3] {
    [
        Peer {
            package: "@openai/codex",
            bin: "codex",
            first_screen: |s| {
                let text = s.contents();
                text.contains("Welcome to Codex") && text.contains("Press enter to continue")
            },
            described: "its sign-in screen: \"Welcome to Codex\" with the three ways to sign in \
                        and \"Press enter to continue\" (no key: no composer)",
            keys: Keys::Selection {
                up: "> 1.",
                down: "> 2.",
            },
            env: &[],
        },
        Peer {
            package: "@mariozechner/pi-coding-agent",
            bin: "pi",
            first_screen: |s| {
                let rules = luxe_tests::pty::screen_rows(s)
                    .iter()
                    .filter(|row| row.len() > 3 && row.chars().all(|c| c == '─'))
                    .count();
                s.contents().contains("pi v") && rules >= 2
            },
            described: "its main screen with its editor (the input box between two rules) and \
                        \"No models available\" (PI_OFFLINE=1, its own switch for a machine \
                        without a network: otherwise it first tries to download fd and ripgrep)",
            keys: Keys::Echo,
            env: &[("PI_OFFLINE", "1")],
        },
        Peer {
            package: "@anthropic-ai/claude-code",
            bin: "claude",
            first_screen: |s| s.contents().contains("Welcome to Claude Code"),
            described: "its welcome banner (\"Welcome to Claude Code\"); with no network it then \
                        says \"Unable to connect to Anthropic services\" and exits 1",
            keys: Keys::None(
                "no input box: it exits once its check of api.anthropic.com fails (no network here)",
            ),
            env: &[],
        },
    ]
}

/// Installs the peers into `dir` with npm (once: an installed peer is used as it is) and
/// returns each as a program, or why it is missing.
pub fn install(dir: &Path) -> Vec<Result<Program, String>> {
    let peers = peers();
    let bin_dir = dir.join("node_modules/.bin");
    let missing: Vec<&str> = peers
        .iter()
        .filter(|p| !bin_dir.join(p.bin).exists())
        .map(|p| p.package)
        .collect();
    let installed = if missing.is_empty() {
        Ok(())
    } else {
        npm_install(dir, &missing)
    };
    peers
        .into_iter()
        .map(|peer| {
            let bin = bin_dir.join(peer.bin);
            if !bin.exists() {
                let why = installed
                    .clone()
                    .err()
                    .unwrap_or_else(|| "not installed".into());
                return Err(format!("{:<38} missing: {why}", peer.bin));
            }
            let version = version(dir, peer.package).unwrap_or_else(|| "?".into());
            let env = peer.env;
            Ok(Program {
                name: format!("{} {version}", peer.bin),
                command: Box::new(move |home, cwd| {
                    let mut cmd = fresh_command(&bin, home, cwd);
                    for (k, v) in env {
                        cmd.env(k, v);
                    }
                    cmd
                }),
                first_screen: peer.first_screen,
                keys: peer.keys,
            })
        })
        .collect()
}

/// Prints what each peer's first screen is.
pub fn describe() {
    println!("first screens:");
    println!("  luxe: the first frame with the composer (`›` above the dock)");
    for peer in peers() {
        println!("  {}: {}", peer.bin, peer.described);
    }
}

fn npm_install(dir: &Path, packages: &[&str]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(dir)
        .args(packages)
        .output()
        .map_err(|e| format!("npm: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        Err(format!("npm install failed ({}): {last}", out.status))
    }
}

/// The installed version of `package`, from its `package.json`.
fn version(dir: &Path, package: &str) -> Option<String> {
    let manifest: PathBuf = dir.join("node_modules").join(package).join("package.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(json["version"].as_str()?.to_owned())
}
