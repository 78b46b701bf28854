//! Keeping the session: every message, settings change and turn end is appended to the
//! session's file as it happens, and made durable at the end of every turn. No record is ever
//! glued onto a torn line: while the store cannot be sure the file ends with a whole line (a
//! torn tail found at resume, a failed append, an append not answered yet), the next record
//! starts with a line feed. The repair travels in the record's own write, so a crash during it
//! leaves only another torn tail, repaired the same way at the next resume.

use super::outbox::Outbox;
use super::owners::Owner;
use crate::config::SessionFile;
use crate::effects::{EffectId, Input, Output};
use crate::model::catalogue::ModelRef;
use crate::model::conversation::{Block, Message, Role};
use crate::protocol::events::{
    RestoredMessage, RestoredToolCall, RestoredToolResult, SessionRestored, SessionsListed,
};
use crate::protocol::values::{Mode, Thinking};
use crate::store::{
    FORMAT_VERSION, Record, Restored, encode, ends_mid_line, mend_lost_records, summaries,
};

/// Where the session is written, and how far.
#[derive(Debug, Default)]
pub(super) struct Store {
    /// Where sessions live; `None` when nothing is kept.
    dir: Option<String>,
    /// The file; `None` when nothing is kept.
    path: Option<String>,
    /// `list_sessions` requests waiting for the directory to be read.
    listing: Vec<(EffectId, String)>,
    /// The header, until [`Store::start`] (or else the first record) writes it with the
    /// settings then in force. `None` once written, or resumed.
    header: Option<Record>,
    /// Whether a failed write was reported (once is enough).
    failed: bool,
    /// What the store knows of the end of the file.
    tail: Tail,
}

/// How the session file ends, as far as the store knows.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// With a whole line, or the file does not exist yet.
    #[default]
    Whole,
    /// With this append, the last one issued, whose result has not come: until it does, the
    /// file may end inside it.
    Pending(EffectId),
    /// Perhaps inside a line: the file was torn before a resume, or the last append failed.
    Torn,
}

/// A `list_sessions` answered: what to report first (the directory could not be read), then
/// the answer.
#[derive(Debug, PartialEq)]
pub(super) struct Listed {
    /// Why nothing could be listed, for the error event that precedes the answer.
    pub failure: Option<String>,
    /// The `sessions_listed` to send, after the error event when `failure` is set.
    pub answer: SessionsListed,
}

/// A restored session as the store read it: what the client is shown, and what the session
/// takes over.
#[derive(Debug)]
pub(super) struct Restoring {
    /// The `session_restored` frame: every message, as the client shows it.
    pub shown: SessionRestored,
    /// The model's view of the conversation (compacted, or every message).
    pub view: Vec<Message>,
    /// How many turns ended in the file; the resumed session's next turn is `turn_<turns + 1>`.
    pub turns: u64,
    /// The cost so far; `None` when a turn's prices were unknown, as it was.
    pub cost_usd: Option<f64>,
}

impl Store {
    /// A new session `session_id`, started in `cwd` on `today`, kept in `dir` (if any).
    pub(super) fn new(dir: Option<&str>, session_id: &str, cwd: &str, today: &str) -> Self {
        Self {
            dir: dir.map(str::to_owned),
            path: dir
                .zip(crate::store::file_name(session_id).ok())
                .map(|(d, name)| format!("{}/{name}", d.trim_end_matches('/'))),
            header: Some(Record::Session {
                version: FORMAT_VERSION,
                id: session_id.to_owned(),
                cwd: cwd.to_owned(),
                created: today.to_owned(),
            }),
            ..Self::default()
        }
    }

    /// A resumed session, appended to `file` as it was read (a torn tail is repaired by the
    /// first record).
    pub(super) fn resumed(dir: Option<&str>, file: &SessionFile) -> Self {
        Self {
            dir: dir.map(str::to_owned),
            path: Some(file.path.clone()),
            header: None,
            tail: if ends_mid_line(&file.bytes) {
                Tail::Torn
            } else {
                Tail::Whole
            },
            ..Self::default()
        }
    }

    /// Starts a new session's file with its header and `settings`, so that the id `ready`
    /// gave can be loaded and resumed before anything is said in it (with its cwd and
    /// settings, and no message). A resumed session's file exists already: nothing is written.
    pub(super) fn start(&mut self, outbox: &mut Outbox, settings: &Record) {
        let (Some(path), Some(header)) = (self.path.clone(), self.header.take()) else {
            return;
        };
        let mut bytes = encode(&header);
        bytes.extend(encode(settings));
        self.append(outbox, path, bytes);
    }

    /// Issues the append of `bytes` to `path`; until it is answered, the file may end inside it.
    fn append(&mut self, outbox: &mut Outbox, path: String, bytes: Vec<u8>) {
        let id = outbox.effect_id(Owner::Store);
        self.tail = Tail::Pending(id);
        outbox.push(Output::AppendFile { id, path, bytes });
    }

    /// Appends `record`, the header and `settings` first if this is the first. Records of one
    /// step share a write: joined to an append still queued, a record needs no repair of its
    /// own.
    pub(super) fn record(
        &mut self,
        outbox: &mut Outbox,
        record: &Record,
        settings: impl FnOnce() -> Record,
    ) {
        let Some(path) = self.path.clone() else {
            return;
        };
        if let Some(bytes) = outbox.queued_append(&path) {
            bytes.extend(encode(record));
            return;
        }
        let mut bytes = Vec::new();
        if self.tail != Tail::Whole {
            bytes.push(b'\n');
        }
        if let Some(header) = self.header.take() {
            bytes.extend(encode(&header));
            bytes.extend(encode(&settings()));
        }
        bytes.extend(encode(record));
        self.append(outbox, path, bytes);
    }

    /// Records `settings`, now in force, once the file is started (until then the header
    /// carries them).
    pub(super) fn record_settings(&mut self, outbox: &mut Outbox, settings: Record) {
        if self.header.is_none() {
            self.record(outbox, &settings, || settings.clone());
        }
    }

    /// Makes the turn's records durable.
    pub(super) fn sync(&self, outbox: &mut Outbox) {
        if let (Some(path), None) = (&self.path, &self.header) {
            outbox.push(Output::SyncFile { path: path.clone() });
        }
    }

    /// An append was answered: the failure to report, the first time one fails. Only the last
    /// append issued tells how the file ends: any earlier one was followed by a record that
    /// started a new line. The session goes on either way.
    pub(super) fn appended(&mut self, input: &Input<'_>) -> Option<String> {
        let Input::FileAppended { id, result } = input else {
            return None;
        };
        if self.tail == Tail::Pending(*id) {
            self.tail = if result.is_ok() {
                Tail::Whole
            } else {
                Tail::Torn
            };
        }
        match result {
            Err(error) if !std::mem::replace(&mut self.failed, true) => {
                Some(format!("the session could not be saved: {error}"))
            }
            _ => None,
        }
    }

    /// `list_sessions`: read the directory; answered at once (with nothing) when no
    /// directory is kept.
    pub(super) fn list(
        &mut self,
        outbox: &mut Outbox,
        request_id: String,
    ) -> Option<SessionsListed> {
        let Some(dir) = self.dir.clone() else {
            return Some(SessionsListed {
                request_id,
                sessions: Vec::new(),
            });
        };
        let id = outbox.effect_id(Owner::Listing);
        self.listing.push((id, request_id));
        outbox.push(Output::ReadSessions { id, dir });
        None
    }

    /// The directory was read: the answer to the `list_sessions` that asked, listing the
    /// sessions of `cwd` with their titles through `redact`.
    pub(super) fn sessions_read(
        &mut self,
        input: &Input<'_>,
        cwd: &str,
        redact: &dyn Fn(&str) -> String,
    ) -> Option<Listed> {
        let Input::SessionsRead { id, result } = input else {
            return None;
        };
        let at = self.listing.iter().position(|(l, _)| l == id)?;
        let (_, request_id) = self.listing.remove(at);
        let (sessions, failure) = match result {
            Ok(files) => (summaries(files, cwd, redact), None),
            Err(error) => (
                Vec::new(),
                Some(format!("the sessions could not be listed: {error}")),
            ),
        };
        Some(Listed {
            failure,
            answer: SessionsListed {
                request_id,
                sessions,
            },
        })
    }
}

/// The settings record of `model`, `mode` and `thinking`.
pub(super) fn settings_record(model: Option<&ModelRef>, mode: Mode, thinking: Thinking) -> Record {
    Record::Settings {
        model: model.map(|m| format!("{}/{}", m.provider.as_str(), m.id)),
        mode,
        thinking,
    }
}

/// What a restored session shows the client and gives the session.
pub(super) fn restoring(restored: Restored) -> Restoring {
    let messages = restored.messages.iter().map(restored_message).collect();
    Restoring {
        shown: SessionRestored {
            session_id: restored.id,
            messages,
            turns: restored.turns,
            cost_usd: restored.cost_usd,
        },
        view: {
            // What the model is sent must be a conversation providers take, whatever lines
            // the file lost; the client is shown what was read.
            let mut view = restored.view.unwrap_or(restored.messages);
            mend_lost_records(&mut view);
            view
        },
        turns: u64::from(restored.turns),
        cost_usd: (!restored.cost_unknown).then_some(restored.cost_usd),
    }
}

fn restored_message(message: &Message) -> RestoredMessage {
    let mut shown = RestoredMessage {
        role: match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
        .to_owned(),
        text: String::new(),
        tool_calls: Vec::new(),
        tool_results: Vec::new(),
    };
    for block in &message.content {
        match block {
            Block::Text { text } => {
                if !shown.text.is_empty() {
                    shown.text.push('\n');
                }
                shown.text.push_str(text);
            }
            Block::ToolUse { id, name, input } => shown.tool_calls.push(RestoredToolCall {
                id: id.clone(),
                name: name.clone(),
                input: input.clone(),
            }),
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => shown.tool_results.push(RestoredToolResult {
                tool_use_id: tool_use_id.clone(),
                content: content.clone(),
                is_error: *is_error,
            }),
            Block::Image { .. } | Block::Thinking { .. } => {}
        }
    }
    shown
}

#[cfg(test)]
mod tests;
