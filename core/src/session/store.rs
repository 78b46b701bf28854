//! Keeping the session: every message, settings change and turn end is appended to the
//! session's file as it happens, and made durable at the end of every turn. No record is ever
//! glued onto a torn line: while the store cannot be sure the file ends with a whole line (a
//! torn tail found at resume, a failed append, an append not answered yet), the next record
//! starts with a line feed. The repair travels in the record's own write, so a crash during it
//! leaves only another torn tail, repaired the same way at the next resume.

use super::owners::Owner;
use crate::config::SessionFile;
use crate::effects::{EffectId, Input, Output};
use crate::model::conversation::{Block, Message, Role};
use crate::protocol::events::{
    Event, RestoredMessage, RestoredToolCall, RestoredToolResult, SessionRestored, SessionsListed,
};
use crate::store::{FORMAT_VERSION, Record, Restored, encode, ends_mid_line, summaries};

use super::Session;

/// Where the session is written, and how far.
#[derive(Debug, Default)]
pub(super) struct Store {
    /// Where sessions live; `None` when nothing is kept.
    dir: Option<String>,
    /// The file; `None` when nothing is kept.
    path: Option<String>,
    /// `list_sessions` requests waiting for the directory to be read.
    listing: Vec<(EffectId, String)>,
    /// Whether the header is written (it is, lazily, with the first record).
    started: bool,
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

impl Store {
    pub(super) fn new(dir: Option<&str>, session_id: &str) -> Self {
        Self {
            dir: dir.map(str::to_owned),
            path: dir
                .zip(crate::store::file_name(session_id).ok())
                .map(|(d, name)| format!("{}/{name}", d.trim_end_matches('/'))),
            ..Self::default()
        }
    }

    pub(super) fn resumed(dir: Option<&str>, file: &SessionFile) -> Self {
        Self {
            dir: dir.map(str::to_owned),
            path: Some(file.path.clone()),
            started: true,
            tail: if ends_mid_line(&file.bytes) {
                Tail::Torn
            } else {
                Tail::Whole
            },
            ..Self::default()
        }
    }
}

impl Session {
    /// Adds a message to the conversation and to the file.
    pub(super) fn remember(&mut self, message: Message) {
        self.record(Record::Message {
            message: message.clone(),
        });
        self.conversation.push(message);
    }

    /// Appends a record, the header first if this is the first. Records of one step share a
    /// write: joined to an append still queued, a record needs no repair of its own.
    pub(super) fn record(&mut self, record: Record) {
        let Some(path) = self.store.path.clone() else {
            return;
        };
        if let Some(bytes) = self.port.queued_append(&path) {
            bytes.extend(encode(&record));
            return;
        }
        let mut bytes = Vec::new();
        if self.store.tail != Tail::Whole {
            bytes.push(b'\n');
        }
        if !std::mem::replace(&mut self.store.started, true) {
            bytes.extend(encode(&Record::Session {
                version: FORMAT_VERSION,
                id: self.session_id.clone(),
                cwd: self.cwd.clone(),
                created: self.today.clone(),
            }));
            bytes.extend(encode(&self.settings_record()));
        }
        bytes.extend(encode(&record));
        let id = self.effect_id(Owner::Store);
        self.store.tail = Tail::Pending(id);
        self.port.push(Output::AppendFile { id, path, bytes });
    }

    /// Records the settings now in force.
    pub(super) fn record_settings(&mut self) {
        if self.store.started {
            let record = self.settings_record();
            self.record(record);
        }
    }

    fn settings_record(&self) -> Record {
        Record::Settings {
            model: self
                .model
                .as_ref()
                .map(|m| format!("{}/{}", m.provider.as_str(), m.id)),
            mode: self.mode,
            thinking: self.thinking,
        }
    }

    /// Makes the turn's records durable.
    pub(super) fn sync_store(&mut self) {
        if let (Some(path), true) = (self.store.path.clone(), self.store.started) {
            self.port.push(Output::SyncFile { path });
        }
    }

    /// An append was answered. Only the last one issued tells how the file ends: any earlier
    /// one was followed by a record that started a new line. A failure is said once; the
    /// session goes on.
    pub(super) fn store_result(&mut self, input: &Input<'_>) {
        let Input::FileAppended { id, result } = input else {
            return;
        };
        if self.store.tail == Tail::Pending(*id) {
            self.store.tail = if result.is_ok() {
                Tail::Whole
            } else {
                Tail::Torn
            };
        }
        if let Err(error) = result
            && !std::mem::replace(&mut self.store.failed, true)
        {
            self.report_error(format!("the session could not be saved: {error}"));
        }
    }

    /// `list_sessions`: read the directory, then answer.
    pub(super) fn list_sessions(&mut self, request_id: String) {
        let Some(dir) = self.store.dir.clone() else {
            return self.emit(Event::SessionsListed(SessionsListed {
                request_id,
                sessions: Vec::new(),
            }));
        };
        let id = self.effect_id(Owner::Listing);
        self.store.listing.push((id, request_id));
        self.port.push(Output::ReadSessions { id, dir });
    }

    /// The directory was read: answer the `list_sessions` that asked.
    pub(super) fn sessions_read(&mut self, input: &Input<'_>) {
        let Input::SessionsRead { id, result } = input else {
            return;
        };
        let Some(at) = self.store.listing.iter().position(|(l, _)| l == id) else {
            return;
        };
        let (_, request_id) = self.store.listing.remove(at);
        let sessions = match result {
            Ok(files) => summaries(files, &self.cwd, &|text| {
                self.redactor.redact(text).into_owned()
            }),
            Err(error) => {
                self.report_error(format!("the sessions could not be listed: {error}"));
                Vec::new()
            }
        };
        self.emit(Event::SessionsListed(SessionsListed {
            request_id,
            sessions,
        }));
    }

    /// Takes over a restored session's conversation and tells the client.
    pub(super) fn restore(&mut self, restored: Restored) {
        self.turns_started = u64::from(restored.turns);
        // A turn whose prices were unknown leaves the session's total unknown, as it was.
        self.session_cost_usd = (!restored.cost_unknown).then_some(restored.cost_usd);
        let messages = restored.messages.iter().map(restored_message).collect();
        self.conversation
            .restore(restored.view.unwrap_or(restored.messages));
        self.emit(Event::SessionRestored(SessionRestored {
            session_id: restored.id,
            messages,
            turns: restored.turns,
            cost_usd: restored.cost_usd,
        }));
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
