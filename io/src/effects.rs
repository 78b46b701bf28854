//! Performs the core's effect outputs as smol tasks and sends their results back as
//! [`Completion`]s (core's owned inputs) over a channel, which the driver lends to the core.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use luxe_core::effects::{Completion, EffectId, Output};
use luxe_core::guided_review::diff_rules::read_failure::ReadFailure;
use luxe_core::protocol::guided_review::ReviewTarget;
use smol::channel::Sender;
use smol::future::FutureExt as _;
use smol::{LocalExecutor, Task};

use crate::opened::OpenFiles;
use crate::process::Process;
use crate::{files, git, http, piped, search, site};

/// Starts effects and keeps what must be cancellable: HTTP requests (dropping the task closes the
/// connection) and processes (their group is killed on `Kill`, on [`Effects::shutdown`] and when
/// this is dropped). File and search work always runs to its end.
pub struct Effects {
    sender: Sender<Completion>,
    /// Runs the HTTP requests' tasks on the driver's thread, so a batch of response bytes
    /// reaches the core with one thread hand-off (from curl's thread) instead of two.
    local: Rc<LocalExecutor<'static>>,
    requests: HashMap<EffectId, Task<()>>,
    /// Requests no one waits for, each with the longest the exit waits for it.
    farewells: Vec<(Task<()>, Duration)>,
    processes: HashMap<EffectId, Process>,
    /// Files opened for tools, held while core decides on them.
    opened: OpenFiles,
    /// Writes to files run one at a time, in order (a session file's appends must not swap),
    /// and the session waits for them before it exits.
    writes: Option<Sender<WriteJob>>,
    writer: Option<Task<()>>,
    /// Diff reads run one at a time on a thread of their own, started by the first: a read
    /// allocates tens of MB, and the allocator keeps what a thread frees for that thread's
    /// later use, so reads on whichever pool thread is free would each leave theirs behind.
    diff_reads: Option<mpsc::Sender<DiffRead>>,
}

/// A file write for the writer task; `None` when it reports nothing back.
type WriteJob = Box<dyn FnOnce() -> Option<Completion> + Send>;

/// A diff read for the diff thread: the effect, the directory and what to compare.
type DiffRead = (EffectId, String, ReviewTarget);

impl Effects {
    /// A performer whose results go to `sender`. A bounded channel makes a fast producer (a
    /// chatty process, a quick download) wait for the core instead of filling memory.
    pub fn new(sender: Sender<Completion>) -> Self {
        let (writes, jobs) = smol::channel::unbounded::<WriteJob>();
        let results = sender.clone();
        let writer = smol::spawn(async move {
            while let Ok(job) = jobs.recv().await {
                if let Some(completion) = smol::unblock(job).await {
                    let _ = results.send(completion).await;
                }
            }
        });
        Self {
            sender,
            local: Rc::new(LocalExecutor::new()),
            requests: HashMap::new(),
            farewells: Vec::new(),
            processes: HashMap::new(),
            opened: OpenFiles::default(),
            writes: Some(writes),
            writer: Some(writer),
            diff_reads: None,
        }
    }

    /// The executor HTTP requests run on: whoever waits for their results runs it too, as the
    /// driver does (`local_executor().run(..)`).
    pub fn local_executor(&self) -> Rc<LocalExecutor<'static>> {
        Rc::clone(&self.local)
    }

    /// Reads a diff on the diff thread, starting it if need be.
    fn read_diff(&mut self, read: DiffRead) {
        let id = read.0;
        let read = match &self.diff_reads {
            Some(reads) => match reads.send(read) {
                Ok(()) => return,
                // The thread is gone (only a panic ends it while the session goes on).
                Err(mpsc::SendError(read)) => read,
            },
            None => read,
        };
        let started = self
            .start_diff_thread()
            .map_err(|err| ReadFailure::ReaderNotStarted(err.to_string()))
            .and_then(|reads| match reads.send(read) {
                Ok(()) => Ok(reads),
                Err(_) => Err(ReadFailure::ReaderEndedAtOnce),
            });
        match started {
            Ok(reads) => self.diff_reads = Some(reads),
            Err(failure) => self.report(Completion::DiffRead {
                id,
                result: Err(failure.to_string()),
            }),
        }
    }

    /// The thread that reads diffs until the session is over.
    fn start_diff_thread(&self) -> std::io::Result<mpsc::Sender<DiffRead>> {
        let (reads, jobs) = mpsc::channel::<DiffRead>();
        let results = self.sender.clone();
        std::thread::Builder::new()
            .name("luxe-diff".into())
            .spawn(move || {
                for (id, cwd, target) in jobs {
                    // Every read is answered: a panic in gix becomes this read's failure, not a
                    // `load_guided_review` that waits forever.
                    let read = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        git::read_diff(&cwd, &target)
                    }));
                    let result = match read {
                        Ok(result) => result.map(Box::new),
                        Err(_) => Err(ReadFailure::ReaderPanicked.to_string()),
                    };
                    if results
                        .send_blocking(Completion::DiffRead { id, result })
                        .is_err()
                    {
                        return;
                    }
                }
            })?;
        Ok(reads)
    }

    /// For exit: waits until every write started so far is on disk (nothing the user saved is
    /// lost), then for each farewell request, at most its wait from now. Results that arrive
    /// meanwhile on `results` are dropped (the session is over).
    pub async fn finish(&mut self, results: &smol::channel::Receiver<Completion>) {
        self.writes = None;
        if let Some(writer) = self.writer.take() {
            let drain = async { while results.recv().await.is_ok() {} };
            writer.or(drain).await;
        }
        let now = Instant::now();
        for (task, within) in std::mem::take(&mut self.farewells) {
            let until = now + within;
            task.or(async {
                smol::Timer::at(until).await;
            })
            .await;
        }
    }

    /// Sends a result produced right here, without waiting on a full channel.
    fn report(&self, completion: Completion) {
        if let Err(err) = self.sender.try_send(completion) {
            let sender = self.sender.clone();
            let completion = err.into_inner();
            smol::spawn(async move {
                let _ = sender.send(completion).await;
            })
            .detach();
        }
    }

    fn write(&self, job: impl FnOnce() -> Option<Completion> + Send + 'static) {
        match &self.writes {
            Some(writes) => {
                if writes.try_send(Box::new(job)).is_err() {
                    tracing::warn!("a write after the session ended was dropped");
                }
            }
            None => tracing::warn!("a write after the session ended was dropped"),
        }
    }

    /// Starts one effect output; its results arrive on the channel later, never during this call.
    /// `Frame`, `Flush` and `Exit` are the driver's, not effects: they are logged and ignored.
    pub fn start(&mut self, output: Output) {
        // Forget finished work so the maps stay as small as what is running.
        self.requests.retain(|_, task| !task.is_finished());
        self.processes.retain(|_, process| !process.is_finished());
        let sender = self.sender.clone();
        match output {
            Output::HttpRequest { id, request } => {
                let task = self.local.spawn(http::post(id, request, false, sender));
                self.requests.insert(id, task);
            }
            Output::HttpExchange { id, request } => {
                let task = self.local.spawn(http::post(id, request, true, sender));
                self.requests.insert(id, task);
            }
            Output::HttpFarewell { request, within } => {
                self.farewells.retain(|(task, _)| !task.is_finished());
                let task = self.local.spawn(http::farewell(request));
                self.farewells.push((task, within));
            }
            Output::CancelHttp { id } => {
                self.requests.remove(&id);
            }
            Output::ReadFile {
                id,
                path,
                max_bytes,
            } => self.run_blocking(move || Completion::FileRead {
                id,
                result: files::read(&path, max_bytes),
            }),
            Output::WriteFile { id, path, bytes } => self.write(move || {
                Some(Completion::FileWritten {
                    id,
                    result: files::write_atomically(&path, &bytes),
                })
            }),
            Output::Spawn {
                id,
                program,
                args,
                cwd,
                env,
                unset,
                stdin,
            } => {
                let process =
                    Process::spawn(id, &program, &args, &cwd, &env, &unset, stdin, sender);
                self.processes.insert(id, process);
            }
            Output::SpawnPiped {
                id,
                program,
                args,
                cwd,
                env,
            } => {
                let process = piped::spawn(id, &program, &args, &cwd, &env, sender);
                self.processes.insert(id, process);
            }
            Output::WriteStdin { id, bytes } => match self.processes.get(&id) {
                Some(process) => process.write_stdin(bytes),
                None => tracing::debug!("write to {id:?}: not running"),
            },
            Output::Kill { id } => match self.processes.get(&id) {
                Some(process) => process.kill(),
                None => tracing::debug!("kill of {id:?}: not running"),
            },
            Output::Search {
                id,
                root,
                pattern,
                glob,
                case_insensitive,
                max_results,
            } => self.run_blocking(move || Completion::SearchDone {
                id,
                result: search::search(
                    &root,
                    &pattern,
                    glob.as_deref(),
                    case_insensitive,
                    max_results,
                ),
            }),
            Output::AppendFile { id, path, bytes } => {
                self.report(Self::append(id, &path, &bytes));
            }
            Output::ReadSessions { id, dir } => {
                self.run_blocking(move || Completion::SessionsRead {
                    id,
                    result: files::read_sessions(&dir, files::SessionBytes::Whole),
                })
            }
            Output::SyncFile { path } => self.write(move || {
                if let Err(err) = files::sync(&path) {
                    tracing::warn!("fsync {path}: {err}");
                }
                None
            }),
            Output::OpenFile { id, path, purpose } => {
                let files = self.opened.clone();
                self.run_blocking(move || Completion::FileOpened {
                    id,
                    result: files.open(id, &path, purpose),
                });
            }
            Output::ReadOpened {
                id,
                handle,
                max_bytes,
            } => {
                let files = self.opened.clone();
                self.run_blocking(move || Completion::FileRead {
                    id,
                    result: files.read(handle, max_bytes),
                });
            }
            Output::ReplaceOpened { id, handle, bytes } => {
                let files = self.opened.clone();
                self.write(move || {
                    Some(Completion::FileWritten {
                        id,
                        result: files.replace(handle, &bytes),
                    })
                });
            }
            Output::CloseOpened { handle } => self.opened.close(handle),
            Output::ResolvePath { id, path } => {
                self.run_blocking(move || Completion::PathResolved {
                    id,
                    result: files::resolve(&path),
                })
            }
            Output::ListFiles {
                id,
                root,
                pattern,
                max_results,
            } => self.run_blocking(move || Completion::FilesListed {
                id,
                result: search::list_files(&root, &pattern, max_results),
            }),
            Output::ReadDiff { id, cwd, target } => self.read_diff((id, cwd, target)),
            Output::PrepareSite { id, cwd } => {
                self.run_blocking(move || Completion::SitePrepared {
                    id,
                    result: site::prepare(&cwd).map(Box::new),
                })
            }
            Output::Frame(_)
            | Output::Flush
            | Output::Message(_)
            | Output::Log(_)
            | Output::Exit { .. } => {
                tracing::warn!("not an effect output; ignored");
            }
        }
    }

    /// Appends to a file here, at once, and returns the result. A record is small, and it must
    /// be on disk before the frames that follow it are written; the driver feeds the result
    /// before any other input, so the core knows how the file ends when it writes the next one.
    pub fn append(id: EffectId, path: &str, bytes: &[u8]) -> Completion {
        Completion::FileAppended {
            id,
            result: files::append(path, bytes),
        }
    }

    /// Kills every running process group and drops every running request, for exit.
    pub fn shutdown(&mut self) {
        // Dropping a Process kills its group; dropping a request's task closes its connection.
        self.processes.clear();
        self.requests.clear();
    }

    /// Runs blocking work on smol's thread pool and sends its result.
    fn run_blocking(&self, work: impl FnOnce() -> Completion + Send + 'static) {
        let sender = self.sender.clone();
        smol::spawn(async move {
            let completion = smol::unblock(work).await;
            // The receiver is gone only when the session is over.
            let _ = sender.send(completion).await;
        })
        .detach();
    }
}
