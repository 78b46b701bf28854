//! Runs what `--issue`, `--from-pr` and `--worktree` need before the first frame (the commands,
//! their environment and timeouts, and what their output means are core's flow,
//! `luxe_core::config::prepare::Startup`), blocking: nothing else runs yet.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use luxe_core::config::prepare::{Prepared, Startup};
use luxe_core::config::{Requested, Timings};
use luxe_core::steps::{Cmd, Flow, Next, Ran};

/// Runs the start-up commands in `cwd` as core's flow asks for them, each to its end; the
/// first failure is the reason luxe exits 2.
pub fn prepare(
    requested: &Requested,
    cwd: &str,
    session_id: &str,
    timings: &Timings,
) -> Result<Prepared, String> {
    let mut flow = Startup::new(requested, session_id);
    let mut next = flow.start();
    loop {
        match next {
            Next::Run(cmd) => {
                let ran = run(&cmd, cwd, timings.program_timeout(cmd.program));
                next = flow.on(ran);
            }
            Next::Write(write) => {
                let written = crate::files::write_atomically(&write.path, &write.bytes);
                next = flow.on(Ran::written(&written));
            }
            Next::Done(prepared) => return prepared,
        }
    }
}

/// Runs `cmd` (in `cwd` unless it names its own directory) until it exits or `timeout` passes
/// (then kills it), its output drained meanwhile so that a large answer cannot stall it on a
/// full pipe.
fn run(cmd: &Cmd, cwd: &str, timeout: Duration) -> Ran {
    let spawned = Command::new(cmd.program.name())
        .args(&cmd.args)
        .envs(cmd.program.env())
        .envs(cmd.env.iter().cloned())
        .current_dir(cmd.cwd.as_deref().unwrap_or(cwd))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => return Ran::of(cmd.program, &Err(err.to_string()), &[], &[], false),
    };
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let (status, timed_out) = wait(&mut child, Instant::now() + timeout);
    if timed_out {
        // A child it left behind may hold the pipes open: the readers are left to end alone.
        return Ran::of(cmd.program, &status, &[], &[], true);
    }
    Ran::of(cmd.program, &status, &join(stdout), &join(stderr), false)
}

/// The exit code (`None`: killed), and whether the deadline killed it.
fn wait(child: &mut Child, deadline: Instant) -> (Result<Option<i32>, String>, bool) {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (Ok(status.code()), false),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let status = child.wait().map(|s| s.code()).map_err(|e| e.to_string());
                return (status, true);
            }
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(err) => return (Err(err.to_string()), false),
        }
    }
}

/// Reads `pipe` to its end on a thread of its own.
fn drain(pipe: Option<impl Read + Send + 'static>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut pipe| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            // A read error ends the output there; what came before is kept.
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    })
}

fn join(reader: Option<JoinHandle<Vec<u8>>>) -> Vec<u8> {
    reader
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default()
}
