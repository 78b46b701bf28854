//! A running call's io work: the effect that does an allowed call's job (a read, a write, an
//! edit's read and then its write, a command, a search, a listing) and what each io result
//! means for the call. It keeps what the job needs between effects and answers every result
//! with a value ([`Progress`]); the session issues the effects and ends the call.

use std::time::Duration;

use crate::effects::{EffectId, FileContent, Input, Output, Stream};
use crate::protocol::events::{Event, FileBefore, OutputStream, ToolStatus};
use crate::redact::Redactor;

use super::super::tool_gate::ToolGate;
use super::super::tools::args::ToolArgs;
use super::super::tools::bash_run::BashOutput;
use super::super::tools::shaping::apply_edit;
use super::super::tools::views::{glob_view, grep_view, read_view, under};
use crate::guided_review::unified::file_diff;
use crate::paths::{Resolved, resolve};

/// The largest file `read` shows (from its start), `edit` changes and a write or an edit shows
/// the change of.
pub(super) const READ_MAX: u64 = 4 * 1024 * 1024;
/// Matches `grep` returns.
pub(super) const GREP_MAX: usize = 200;
/// Paths `glob` returns.
pub(super) const GLOB_MAX: usize = 500;

/// What a job reads of the session.
pub(in crate::session) struct Context<'a> {
    /// Where relative paths start.
    pub cwd: &'a str,
    /// What output must not show.
    pub redactor: &'a Redactor,
    /// A command's time when the call names none.
    pub bash_timeout: Duration,
    /// What commands do not inherit of luxe's environment.
    pub tool_env_unset: &'a [String],
}

/// The job of a call, and the state it keeps while io does it.
#[derive(Debug)]
pub(super) enum Work {
    Read {
        offset: Option<u64>,
        limit: Option<u64>,
    },
    EditRead {
        target: Resolved,
        old_text: String,
        new_text: String,
        replace_all: bool,
    },
    /// A write over an existing file reads what it replaces first, through the same handle,
    /// so the client is shown the change (an editor told "created" shows the old text as
    /// never there).
    WriteRead {
        target: Resolved,
        content: String,
    },
    Write {
        shown: String,
        done: String,
        change: Option<Change>,
    },
    /// A command, which may run for `limit` (the session keeps the clock).
    Bash {
        output: BashOutput,
        limit: Duration,
        timed_out: bool,
    },
    /// A search or listing under `root` (relative to cwd when inside it).
    Grep {
        root: String,
    },
    Glob {
        root: String,
    },
}

/// How a call's arguments begin.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // returned once per call and taken apart at once
pub(super) enum Begun {
    /// An io job: the effect to issue and the work that waits for its result.
    Io(Output, Work),
    /// No io job (a question, a plan, an MCP call): the session handles these itself.
    Not(ToolArgs),
}

/// What an io result did to a job.
#[derive(Debug)]
pub(super) enum Progress {
    /// Not this job's result.
    Unrelated,
    /// Output of a running command, for the client.
    Shown(Event),
    /// The job is over: the call ends with this.
    Done(Done),
    /// The edit's file was read and edited: write `bytes` (through the opened file, if any,
    /// else to `path`) and wait for that with `then`.
    Write {
        path: String,
        bytes: Vec<u8>,
        then: Box<Work>,
    },
}

/// What a write or an edit changed, for the client to show.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Change {
    /// A unified diff of the change.
    pub diff: Option<String>,
    /// For a write: what its path held before.
    pub before: Option<FileBefore>,
}

/// How a job ended.
#[derive(Debug, PartialEq)]
pub(super) struct Done {
    pub status: ToolStatus,
    pub text: String,
    pub change: Option<Change>,
    /// The last output of a command, shown before it ends.
    pub shown: Option<Event>,
    /// The file it changed, as shown.
    pub changed: Option<String>,
}

impl Done {
    fn of(status: ToolStatus, text: String) -> Self {
        Self {
            status,
            text,
            change: None,
            shown: None,
            changed: None,
        }
    }
}

impl Work {
    /// Begins the job of an allowed call as effect `id`. `opened` is the file io
    /// holds open for the call, if any: a read or write goes through it (and takes it when
    /// that is its last use), so what was decided on is what is read or replaced. `exists`
    /// says whether the opened file existed (a write then replaces it).
    pub(super) fn begin(
        args: ToolArgs,
        id: EffectId,
        opened: &mut Option<EffectId>,
        exists: bool,
        cx: &Context<'_>,
    ) -> Begun {
        let cwd = cx.cwd;
        let (output, work) = match args {
            ToolArgs::Read {
                path,
                offset,
                limit,
            } => (
                read_output(id, resolve(cwd, &path).absolute, opened.take()),
                Work::Read { offset, limit },
            ),
            ToolArgs::Write { path, content } => {
                let target = resolve(cwd, &path);
                if exists && opened.is_some() {
                    (
                        read_output(id, target.absolute.clone(), *opened),
                        Work::WriteRead { target, content },
                    )
                } else {
                    // Opened and absent: the write creates the file. Without a handle nothing
                    // is known of what was there, so nothing is claimed.
                    let before = opened.is_some().then_some(FileBefore::Absent);
                    let work = written(&target, &content, before);
                    (
                        write_output(id, target.absolute, content.into_bytes(), opened),
                        work,
                    )
                }
            }
            ToolArgs::Edit {
                path,
                old_text,
                new_text,
                replace_all,
            } => {
                let target = resolve(cwd, &path);
                (
                    // The edit replaces the file through the same handle after reading it.
                    read_output(id, target.absolute.clone(), *opened),
                    Work::EditRead {
                        target,
                        old_text,
                        new_text,
                        replace_all,
                    },
                )
            }
            ToolArgs::Bash {
                command,
                timeout_ms,
            } => {
                let timeout = timeout_ms.map_or(cx.bash_timeout, Duration::from_millis);
                (
                    Output::Spawn {
                        id,
                        program: "bash".to_owned(),
                        args: vec!["-c".to_owned(), command],
                        cwd: cwd.to_owned(),
                        env: Vec::new(),
                        unset: cx.tool_env_unset.to_vec(),
                        stdin: Vec::new(),
                    },
                    Work::Bash {
                        output: BashOutput::new(cx.redactor),
                        limit: timeout,
                        timed_out: false,
                    },
                )
            }
            ToolArgs::Grep {
                pattern,
                path,
                glob,
                case_insensitive,
            } => {
                let root = resolve(cwd, path.as_deref().unwrap_or("."));
                (
                    Output::Search {
                        id,
                        root: root.absolute,
                        pattern,
                        glob,
                        case_insensitive,
                        max_results: GREP_MAX,
                    },
                    Work::Grep { root: root.shown },
                )
            }
            ToolArgs::Glob { pattern, path } => {
                let root = resolve(cwd, path.as_deref().unwrap_or("."));
                (
                    Output::ListFiles {
                        id,
                        root: root.absolute,
                        pattern,
                        max_results: GLOB_MAX,
                    },
                    Work::Glob { root: root.shown },
                )
            }
            other @ (ToolArgs::AskUser { .. }
            | ToolArgs::Mcp { .. }
            | ToolArgs::UpdatePlan { .. }) => return Begun::Not(other),
        };
        Begun::Io(output, work)
    }

    /// What `input`, a result of effect `effect` for call `call_id`, does to the job. Search
    /// hits and listed paths that `gate` hides (a secrets file, a path a read rule denies)
    /// are no result, whatever the pattern.
    pub(super) fn take(
        &mut self,
        input: Input<'_>,
        effect: EffectId,
        call_id: &str,
        gate: &ToolGate,
        redactor: &Redactor,
    ) -> Progress {
        match (input, self) {
            (Input::ProcessOutput { id, stream, bytes }, Work::Bash { output, .. })
                if id == effect =>
            {
                let stream = match stream {
                    Stream::Stdout => OutputStream::Stdout,
                    Stream::Stderr => OutputStream::Stderr,
                };
                output
                    .output(call_id, stream, bytes)
                    .map_or(Progress::Unrelated, Progress::Shown)
            }
            (
                Input::ProcessExited { id, status },
                Work::Bash {
                    output,
                    timed_out,
                    limit,
                    ..
                },
            ) if id == effect => {
                let timed_out = timed_out.then_some(*limit);
                let (shown, status, text) = output.exited(call_id, status, timed_out);
                Progress::Done(Done {
                    shown,
                    ..Done::of(status, text)
                })
            }
            (Input::FileRead { id, result }, Work::Read { offset, limit }) if id == effect => {
                let (status, text) = match result {
                    Err(error) => (ToolStatus::Error, error),
                    Ok(content) => read_view(redactor, content, *offset, *limit),
                };
                Progress::Done(Done::of(status, text))
            }
            (
                Input::FileRead { id, result },
                Work::EditRead {
                    target,
                    old_text,
                    new_text,
                    replace_all,
                },
            ) if id == effect => edited(result, target, old_text, new_text, *replace_all),
            (Input::FileRead { id, result }, Work::WriteRead { target, content })
                if id == effect =>
            {
                // Unreadable, too large or not text: the write still goes ahead (its
                // replacement makes its own checks); only the showing is lost.
                let before = whole_text(result, &target.shown)
                    .map_or(FileBefore::Unshown, |text| FileBefore::Text { text });
                let then = Box::new(written(target, content, Some(before)));
                Progress::Write {
                    path: target.absolute.clone(),
                    bytes: std::mem::take(content).into_bytes(),
                    then,
                }
            }
            (
                Input::FileWritten { id, result },
                Work::Write {
                    shown,
                    done,
                    change,
                },
            ) if id == effect => match result {
                Ok(()) => Progress::Done(Done {
                    change: change.take(),
                    changed: Some(shown.clone()),
                    ..Done::of(ToolStatus::Ok, std::mem::take(done))
                }),
                Err(error) => Progress::Done(Done::of(ToolStatus::Error, error)),
            },
            (Input::SearchDone { id, result }, Work::Grep { root }) if id == effect => {
                let result = result.map(|mut hits| {
                    hits.retain(|h| !gate.hides(&under(root, &h.path)));
                    hits
                });
                let (status, text) = grep_view(result, GREP_MAX);
                Progress::Done(Done::of(status, text))
            }
            (Input::FilesListed { id, result }, Work::Glob { root }) if id == effect => {
                let result = result.map(|mut paths| {
                    paths.retain(|p| !gate.hides(&under(root, p)));
                    paths
                });
                let (status, text) = glob_view(result, GLOB_MAX);
                Progress::Done(Done::of(status, text))
            }
            _ => Progress::Unrelated,
        }
    }

    /// How long a command may run, while it has not run out of time.
    pub(super) fn limit(&self) -> Option<Duration> {
        match self {
            Work::Bash {
                limit,
                timed_out: false,
                ..
            } => Some(*limit),
            _ => None,
        }
    }

    /// Marks a command as out of time, once: true when its process group must now be killed
    /// (its exit then ends the call, saying so).
    pub(super) fn time_out(&mut self) -> bool {
        match self {
            Work::Bash { timed_out, .. } if !*timed_out => {
                *timed_out = true;
                true
            }
            _ => false,
        }
    }

    /// Whether the job is a command (a process to kill when the call is interrupted).
    pub(super) fn is_command(&self) -> bool {
        matches!(self, Work::Bash { .. })
    }
}

/// The edit of a file that was read as `result`, as the write to make or why there is none.
fn edited(
    result: Result<FileContent, String>,
    target: &Resolved,
    old_text: &str,
    new_text: &str,
    replace_all: bool,
) -> Progress {
    match edit_of(result, &target.shown, old_text, new_text, replace_all) {
        Err(error) => Progress::Done(Done::of(ToolStatus::Error, error)),
        Ok(edit) => Progress::Write {
            path: target.absolute.clone(),
            then: Box::new(Work::Write {
                done: format!("Edited {}: {} replacement(s)", target.shown, edit.count),
                shown: target.shown.clone(),
                change: Some(Change {
                    diff: Some(edit.diff(&target.shown)),
                    before: None,
                }),
            }),
            bytes: edit.after.into_bytes(),
        },
    }
}

/// A file's text before and after an edit.
#[derive(Debug)]
pub(super) struct Edit {
    pub before: String,
    pub after: String,
    /// How many places were replaced.
    pub count: usize,
}

impl Edit {
    /// The change as a unified diff of the file shown as `shown`.
    pub(super) fn diff(&self, shown: &str) -> String {
        file_diff(shown, Some(&self.before), &self.after)
    }
}

/// The edit of the file shown as `shown`, read as `result`: replaces `old_text` with
/// `new_text` (once, or everywhere with `replace_all`), or says why it cannot.
pub(super) fn edit_of(
    result: Result<FileContent, String>,
    shown: &str,
    old_text: &str,
    new_text: &str,
    replace_all: bool,
) -> Result<Edit, String> {
    let before = whole_text(result, shown)?;
    let (after, count) = apply_edit(&before, old_text, new_text, replace_all)?;
    Ok(Edit {
        before,
        after,
        count,
    })
}

/// The whole text of the file shown as `shown`, read as `result` for a write or an edit, or
/// why there is none: unreadable, larger than [`READ_MAX`] (only its start was read), or not
/// UTF-8.
pub(super) fn whole_text(
    result: Result<FileContent, String>,
    shown: &str,
) -> Result<String, String> {
    let content = result.map_err(|error| format!("{shown} could not be read: {error}"))?;
    if content.total_len > content.bytes.len() as u64 {
        return Err(format!("{shown} is larger than 4 MiB"));
    }
    String::from_utf8(content.bytes).map_err(|_| format!("{shown} is not UTF-8 text"))
}

/// The job that waits for the write of `content` to `target`, with what it replaces (`before`:
/// `None` when not known) and the diff that makes.
fn written(target: &Resolved, content: &str, before: Option<FileBefore>) -> Work {
    let diff = match &before {
        Some(FileBefore::Absent) => Some(file_diff(&target.shown, None, content)),
        Some(FileBefore::Text { text }) => Some(file_diff(&target.shown, Some(text), content)),
        Some(FileBefore::Unshown) | None => None,
    };
    Work::Write {
        done: format!("Wrote {} bytes to {}", content.len(), target.shown),
        shown: target.shown.clone(),
        change: Some(Change { diff, before }),
    }
}

/// The read of the call's file: through `handle` (the file opened for it), else of `path`.
pub(super) fn read_output(id: EffectId, path: String, handle: Option<EffectId>) -> Output {
    match handle {
        Some(handle) => Output::ReadOpened {
            id,
            handle,
            max_bytes: READ_MAX,
        },
        None => Output::ReadFile {
            id,
            path,
            max_bytes: READ_MAX,
        },
    }
}

/// The write of `bytes`: through the file opened for the call (its last use), else to `path`.
pub(super) fn write_output(
    id: EffectId,
    path: String,
    bytes: Vec<u8>,
    opened: &mut Option<EffectId>,
) -> Output {
    match opened.take() {
        Some(handle) => Output::ReplaceOpened { id, handle, bytes },
        None => Output::WriteFile { id, path, bytes },
    }
}

#[cfg(test)]
mod tests;
