//! The client's file system in place of the disk: when the client offers `fs.readTextFile` or
//! `fs.writeTextFile`, a session's read of a file it opened for the `read` or `edit` tool is an
//! `fs/read_text_file` request (the editor's buffer, saved or not), and its replacement of one
//! for `write` or `edit` is an `fs/write_text_file` (the editor writes it and shows the edit).
//!
//! Only the last step moves: the session still opens the file through io first, so its path
//! resolution, the rules, the `.env` deny and the file-kind check decide on the file on disk as
//! they do for `--rpc`; the request names the path io resolved. io's handle is closed unused.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{Value, json};

use crate::effects::{EffectId, FileContent, FileIdentity, Input, OpenFor, Output};

use super::super::effects_table::Slot;
use super::super::jsonrpc::{self, RpcError};
use super::{Asked, Host};

/// A file a session opened, as far as the host needs it.
#[derive(Debug, Clone, Default)]
pub(super) struct OpenedFile {
    purpose: Option<OpenFor>,
    path: Option<String>,
    identity: Option<FileIdentity>,
}

/// Files sessions hold open, by session and the session's handle.
pub(super) type OpenedFiles = BTreeMap<(Slot, EffectId), OpenedFile>;

impl Host {
    /// Notes what a session asks io to open.
    pub(super) fn note_open(&mut self, slot: Slot, output: &Output) {
        if let Output::OpenFile { id, purpose, .. } = output {
            self.opened_files.insert(
                (slot, *id),
                OpenedFile {
                    purpose: Some(*purpose),
                    ..OpenedFile::default()
                },
            );
        }
    }

    /// Notes what io opened for a session (`inner` is the session's id of it).
    pub(super) fn note_opened(&mut self, slot: Slot, inner: EffectId, input: &Input<'_>) {
        match input {
            Input::FileOpened {
                result: Ok(opened), ..
            } => {
                if let Some(file) = self.opened_files.get_mut(&(slot, inner)) {
                    file.path = Some(opened.path.clone());
                    file.identity = opened.identity;
                }
            }
            Input::FileOpened { result: Err(_), .. } => {
                self.opened_files.remove(&(slot, inner));
            }
            _ => {}
        }
    }

    /// `output` for io, or `None` when the client performs it instead.
    pub(super) fn through_client(&mut self, slot: Slot, output: Output) -> Option<Output> {
        let (handle, asked, method, params) = match &output {
            Output::ReadOpened {
                id,
                handle,
                max_bytes,
            } if self.client.read_text_file => {
                let file = self.opened_files.get(&(slot, *handle))?;
                let path = file.path.clone()?;
                let asked = Asked::Read {
                    slot,
                    id: *id,
                    max_bytes: *max_bytes,
                    identity: file.identity,
                };
                (*handle, asked, "fs/read_text_file", json!({"path": path}))
            }
            Output::ReplaceOpened { id, handle, bytes } if self.client.write_text_file => {
                let path = self.opened_files.get(&(slot, *handle))?.path.clone()?;
                let content = String::from_utf8_lossy(bytes).into_owned();
                let asked = Asked::Write { slot, id: *id };
                let params = json!({"path": path, "content": content});
                (*handle, asked, "fs/write_text_file", params)
            }
            _ => {
                if let Output::CloseOpened { handle } = &output {
                    self.opened_files.remove(&(slot, *handle));
                }
                return Some(output);
            }
        };
        let session = self.sessions.get(&slot)?;
        let mut params = params;
        params["sessionId"] = json!(&*session.id);
        let redactor = session.redactor.clone();
        // A file opened to be read is done with; one opened for an edit stays open for the
        // replacement that may follow (which then goes to the client too).
        let done = matches!(asked, Asked::Write { .. })
            || self
                .opened_files
                .get(&(slot, handle))
                .is_some_and(|f| f.purpose == Some(OpenFor::Read));
        if done {
            self.opened_files.remove(&(slot, handle));
            let close = self.table.outward(slot, Output::CloseOpened { handle });
            self.outputs.push_back(close);
        }
        self.next_request += 1;
        let id = self.next_request;
        self.asked.insert(id, asked);
        self.write(jsonrpc::request(id, method, params), &redactor);
        None
    }

    /// The client's answer to a file request: the session hears it as io's result.
    pub(super) fn fs_answered(
        &mut self,
        now: Instant,
        asked: Asked,
        result: Result<Value, RpcError>,
    ) {
        let (slot, input) = match asked {
            Asked::Read {
                slot,
                id,
                max_bytes,
                identity,
            } => {
                let result = result
                    .map_err(|e| format!("the editor could not read it: {}", e.message))
                    .and_then(|r| match r.get("content").and_then(Value::as_str) {
                        Some(text) => Ok(content(text, max_bytes, identity)),
                        None => Err("the editor sent no content for it".to_owned()),
                    });
                (slot, Input::FileRead { id, result })
            }
            Asked::Write { slot, id } => {
                let result = result
                    .map(|_| ())
                    .map_err(|e| format!("the editor could not write it: {}", e.message));
                (slot, Input::FileWritten { id, result })
            }
            Asked::Permission { .. } | Asked::Question { .. } => return,
        };
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            hosted.session.handle_effect(now, input);
            self.pump(now, slot);
        }
    }
}

/// The client's text as io's read of it: at most `max_bytes`, cut on a character boundary.
fn content(text: &str, max_bytes: u64, identity: Option<FileIdentity>) -> FileContent {
    let limit = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mut end = text.len().min(limit);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    FileContent {
        bytes: text.as_bytes()[..end].to_vec(),
        total_len: text.len() as u64,
        identity,
    }
}
