//! Runs what `--issue`, `--from-pr` and `--worktree` need before the first frame (the commands
//! and their meaning are core's, `luxe_core::github::startup`), blocking: nothing else runs yet.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use luxe_core::config::Requested;
use luxe_core::github::startup::{Prepared, StartCommand, after, commands, failed};

/// Runs the start-up commands in `cwd`, each follow-up core asks for right after the command
/// that led to it; the first failure is the reason luxe exits 2.
pub fn prepare(
    requested: &Requested,
    cwd: &str,
    session_id: &str,
    timeout: Duration,
) -> Result<Prepared, String> {
    let mut prepared = Prepared::default();
    let mut queue: std::collections::VecDeque<StartCommand> = commands(requested).into();
    while let Some(command) = queue.pop_front() {
        let stdout = run(&command, cwd, timeout)?;
        if let Some(next) = after(&command, &stdout, requested, session_id, &mut prepared)? {
            queue.push_front(next);
        }
    }
    Ok(prepared)
}

/// Runs `command`, returning its stdout, or the reason it failed (its stderr, or that it could
/// not start or did not finish in time).
fn run(command: &StartCommand, cwd: &str, timeout: Duration) -> Result<String, String> {
    let fail = |why: &str| failed(&command.purpose, why);
    let mut child = Command::new(command.program)
        .args(&command.args)
        .envs(command.env.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| fail(&format!("cannot run {}: {err}", command.program)))?;
    // Small outputs: read after exit; a pipe holds far more than these commands print.
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(&format!("{} did not answer in time", command.program)));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(err) => return Err(fail(&err.to_string())),
        }
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    if status.success() {
        Ok(stdout)
    } else if stderr.trim().is_empty() {
        Err(fail(&format!("{} exited with {status}", command.program)))
    } else {
        Err(fail(&stderr))
    }
}
