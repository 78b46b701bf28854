//! The runnable copy of the seed's example client talks to the real binary until `turn_ended`.

use std::process::Command;

use luxe_tests::process::{Workspace, luxe_bin};

#[test]
fn seed_example_client_runs_to_turn_ended_and_closes() {
    let ws = Workspace::new();
    let client = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/examples/seed_client.py"
    );
    let bin_dir = luxe_bin().parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("python3")
        .arg(client)
        .current_dir(ws.path())
        .env("PATH", path)
        .env("LUXE_HOME", ws.path().join("home"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stdout.contains("turn ended: error"),
        "the client saw turn_ended: {stdout}"
    );
}
