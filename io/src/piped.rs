//! Long-lived children with stdin open (MCP servers): started like every process in a process
//! group of its own, but with only the environment core gave, and a task that writes what core
//! sends to their stdin in order.

use std::os::unix::process::CommandExt as _;
use std::process::Stdio;

use async_process::Command;
use smol::channel::Sender;
use smol::io::AsyncWriteExt;

use crate::process::Process;
use luxe_core::effects::{Completion, EffectId};

/// Starts `program` with `env` as its whole environment, stdin piped and fed from the returned
/// process's `write_stdin`, both outputs piped to `sender`.
pub(crate) fn spawn(
    id: EffectId,
    program: &str,
    args: &[String],
    cwd: &str,
    env: &[(String, String)],
    sender: Sender<Completion>,
) -> Process {
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .process_group(0);
    let mut command = Command::from(command);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return Process::not_started(id, format!("cannot start {program}: {err}"), sender);
        }
    };
    let (writes, queued) = smol::channel::unbounded::<Vec<u8>>();
    if let Some(mut stdin) = child.stdin.take() {
        smol::spawn(async move {
            while let Ok(bytes) = queued.recv().await {
                if let Err(err) = stdin.write_all(&bytes).await {
                    tracing::debug!("stdin of {id:?}: {err}");
                    return;
                }
                let _ = stdin.flush().await;
            }
        })
        .detach();
    }
    Process::started(id, child, Some(writes), sender)
}
