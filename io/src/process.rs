//! Child processes: each in its own process group so a kill reaches everything it started, its
//! output streamed in chunks as it comes.

use std::os::unix::process::CommandExt as _;
use std::process::Stdio;

use async_process::{Child, Command};
use luxe_core::effects::{EffectId, Stream};
use rustix::process::{Pid, Signal, kill_process_group};
use smol::Task;
use smol::channel::Sender;
use smol::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use luxe_core::effects::Completion;

/// How much of a pipe one read takes.
const READ_CHUNK: usize = 64 * 1024;

/// A started process (or one that could not start) and the task that reports on it.
pub(crate) struct Process {
    /// The process group's id (the child's pid); `None` when it did not start.
    group: Option<Pid>,
    task: Task<()>,
    /// Feeds the child's stdin, for one started with it piped (`crate::piped`).
    stdin: Option<Sender<Vec<u8>>>,
}

impl Process {
    /// Starts `program` reading `stdin` (closed from the start when empty) and both output
    /// streams piped to `sender`, with luxe's environment plus `env` less `unset`; a failure
    /// to start is reported as `ProcessExited` with an error.
    #[allow(clippy::too_many_arguments)] // one per field of `Output::Spawn`
    pub(crate) fn spawn(
        id: EffectId,
        program: &str,
        args: &[String],
        cwd: &str,
        env: &[(String, String)],
        unset: &[String],
        stdin: Vec<u8>,
        sender: Sender<Completion>,
    ) -> Self {
        let mut command = std::process::Command::new(program);
        // async-process has no process_group of its own, so the std builder sets it.
        command
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .process_group(0);
        for name in unset {
            command.env_remove(name);
        }
        // Stdio is set on the async builder: it resets the std builder's to inherit.
        let mut command = Command::from(command);
        let fed = !stdin.is_empty();
        command
            .stdin(if fed { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match command.spawn() {
            Ok(mut child) => {
                if let Some(mut pipe) = child.stdin.take().filter(|_| fed) {
                    // Written beside the output's reading, so a child that answers before it
                    // has read everything cannot stall on a full pipe; dropping the pipe is
                    // the end of file.
                    smol::spawn(async move {
                        if let Err(err) = pipe.write_all(&stdin).await {
                            tracing::debug!("stdin of {id:?}: {err}");
                        }
                    })
                    .detach();
                }
                Self::started(id, child, None, sender)
            }
            Err(err) => {
                let status = Err(format!("cannot start {program}: {err}"));
                let task = smol::spawn(async move {
                    let _ = sender.send(Completion::ProcessExited { id, status }).await;
                });
                Self {
                    group: None,
                    task,
                    stdin: None,
                }
            }
        }
    }

    /// A child that started, reported on to `sender`; `stdin` feeds its stdin, if piped
    /// (a server's: what it started dies with it, see [`report`]).
    pub(crate) fn started(
        id: EffectId,
        child: Child,
        stdin: Option<Sender<Vec<u8>>>,
        sender: Sender<Completion>,
    ) -> Self {
        let group = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
        let end_group = group.filter(|_| stdin.is_some());
        Self {
            group,
            task: smol::spawn(report(id, child, end_group, sender)),
            stdin,
        }
    }

    /// A process that could not start: its failure reported as `ProcessExited`.
    pub(crate) fn not_started(id: EffectId, error: String, sender: Sender<Completion>) -> Self {
        let task = smol::spawn(async move {
            let status = Err(error);
            let _ = sender.send(Completion::ProcessExited { id, status }).await;
        });
        Self {
            group: None,
            task,
            stdin: None,
        }
    }

    /// Queues `bytes` for the child's stdin, after what was queued before; dropped when it has
    /// none or is gone (its exit is reported anyway).
    pub(crate) fn write_stdin(&self, bytes: Vec<u8>) {
        match &self.stdin {
            Some(stdin) => {
                if stdin.try_send(bytes).is_err() {
                    tracing::debug!("stdin of a process that is gone: dropped");
                }
            }
            None => tracing::warn!("a write to a process without a piped stdin: dropped"),
        }
    }

    /// Whether `ProcessExited` was sent.
    pub(crate) fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Sends SIGKILL to the whole process group, grandchildren included.
    pub(crate) fn kill(&self) {
        // Once reported, the child is reaped and its pid free for reuse: leave it be. Before
        // that the group id stays reserved even if the leader is gone, while any member lives.
        let Some(group) = self.group.filter(|_| !self.is_finished()) else {
            return;
        };
        if let Err(err) = kill_process_group(group, Signal::KILL) {
            tracing::debug!("kill of process group {group}: {err}");
        }
    }
}

impl Drop for Process {
    /// No process outlives the session.
    fn drop(&mut self) {
        self.kill();
    }
}

/// Streams both outputs until EOF, then reports the exit status. With `end_group`, the
/// process group is killed once the outputs end, before the child is reaped (while its group
/// id cannot have been reused): what a server started does not outlive it.
async fn report(
    id: EffectId,
    mut child: Child,
    end_group: Option<Pid>,
    sender: Sender<Completion>,
) {
    let stdout = pump(id, Stream::Stdout, child.stdout.take(), &sender);
    let stderr = pump(id, Stream::Stderr, child.stderr.take(), &sender);
    smol::future::zip(stdout, stderr).await;
    if let Some(group) = end_group
        && let Err(err) = kill_process_group(group, Signal::KILL)
    {
        tracing::debug!("kill of process group {group}: {err}");
    }
    let status = match child.status().await {
        Ok(status) => Ok(status.code()),
        Err(err) => Err(format!("cannot wait for the process: {err}")),
    };
    // The receiver is gone only when the session is over.
    let _ = sender.send(Completion::ProcessExited { id, status }).await;
}

/// Sends what one stream yields until it ends.
async fn pump(
    id: EffectId,
    stream: Stream,
    pipe: Option<impl AsyncRead + Unpin>,
    sender: &Sender<Completion>,
) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) => return,
            Ok(n) => n,
            Err(err) => {
                tracing::debug!("{stream:?} of {id:?}: {err}");
                return;
            }
        };
        let bytes = buf[..n].to_vec();
        let output = Completion::ProcessOutput { id, stream, bytes };
        if sender.send(output).await.is_err() {
            return;
        }
    }
}
