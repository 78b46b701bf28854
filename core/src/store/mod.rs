//! Sessions that last: each session is an append-only JSON Lines file of [`Record`]s, built
//! here and appended by io. [`restore`] rebuilds a session from its file, skipping a torn line
//! (a crash mid-write) and refusing a file from a newer format; [`ends_mid_line`] says whether
//! the next record must start a new line so that it is not glued onto a torn one.

use serde::{Deserialize, Serialize};

use crate::model::compaction::compacted_view;
use crate::model::conversation::{Block, Message};
use crate::protocol::values::{Mode, Thinking};

/// The format version written in every session file's first record. Version 2 added
/// [`Record::Compacted`], which a version-1 reader would skip and so misread the model's view.
pub const FORMAT_VERSION: u32 = 2;

/// One line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// Always first.
    Session {
        /// The format version the file was written in ([`FORMAT_VERSION`] when this luxe wrote it);
        /// a file from a newer one is refused.
        version: u32,
        /// The session's id, which also names its file (`<id>.jsonl`).
        id: String,
        /// The directory it ran in.
        cwd: String,
        /// The day it started, `YYYY-MM-DD`.
        created: String,
    },
    /// A whole message of the conversation.
    Message {
        /// The message as the conversation holds it: its role and blocks.
        message: Message,
        /// Who wrote a turn's opening message (absent on every other message, and in files
        /// written before luxe recorded it): the session is named after a person's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<Writer>,
    },
    /// Blocks added to the last message (text a client steered into a running turn).
    Append {
        /// What to add to the end of the last message, in order.
        blocks: Vec<Block>,
    },
    /// The model, mode and thinking level in force from here on.
    Settings {
        /// `provider/model` (`anthropic/claude-sonnet-4-5`); `None` when the session had no model.
        model: Option<String>,
        /// `build` or `plan`.
        mode: Mode,
        /// Reasoning effort.
        thinking: Thinking,
    },
    /// The model's view was compacted: from here on it is the summary and the last `kept`
    /// messages of the view before (see [`compacted_view`]). The messages stay in the file.
    Compacted {
        /// The model's summary of the rest.
        summary: String,
        /// How many messages of the view were kept word for word.
        kept: usize,
        /// What a `compact` request cost (automatic compaction is part of its turn's cost).
        cost_usd: Option<f64>,
    },
    /// A turn ended, and what it cost.
    TurnEnded {
        /// The ended turn's `turn_id` (`turn_1`, …), as its frames carried it.
        turn_id: String,
        /// Its cost, when the prices are known.
        cost_usd: Option<f64>,
    },
}

/// Who wrote the message that opened a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Writer {
    /// The person: what they typed is its last text block (an issue's text may precede it).
    Person,
    /// Luxe itself: a guided review's prompt for a comment or a fix.
    Luxe,
}

/// One record as a line, LF included.
pub fn encode(record: &Record) -> Vec<u8> {
    // Records hold strings, numbers and JSON values only, which always serialize.
    #[allow(clippy::expect_used)]
    let mut line = serde_json::to_vec(record).expect("records serialize");
    line.push(b'\n');
    line
}

/// Whether `file` ends inside a line: the last write was torn (a crash, a failed write), and a
/// record appended as it is would be glued onto the torn half and be unreadable with it.
pub fn ends_mid_line(file: &[u8]) -> bool {
    file.last().is_some_and(|last| *last != b'\n')
}

/// A session rebuilt from its file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Restored {
    /// The session's id, from the file's header record.
    pub id: String,
    /// The directory it ran in.
    pub cwd: String,
    /// The conversation, every message of it.
    pub messages: Vec<Message>,
    /// The model's view of it, when it was compacted (else the view is `messages`).
    pub view: Option<Vec<Message>>,
    /// The last settings recorded.
    pub settings: Option<(Option<String>, Mode, Thinking)>,
    /// How many turns ended: the file's `turn_ended` records.
    pub turns: u32,
    /// What they cost, counting only the turns whose prices were known.
    pub cost_usd: f64,
    /// Whether a turn ended without a known cost: the session's total is then unknown.
    pub cost_unknown: bool,
    /// Lines that could not be read, for a warning on stderr.
    pub skipped: Vec<String>,
    /// What names the session: the text of the first turn a person opened (see [`Writer`]);
    /// in a file that records no writer, the first user message's text.
    pub title: String,
}

/// The header of a session file, if its first line is one.
pub fn header(first_line: &[u8]) -> Option<(String, String, u32)> {
    match serde_json::from_slice(first_line) {
        Ok(Record::Session {
            id, cwd, version, ..
        }) => Some((id, cwd, version)),
        _ => None,
    }
}

/// Rebuilds a session. Unreadable lines are skipped and reported (a torn last line is what a
/// crash mid-write leaves); a file without a header, or from a newer format, is refused.
pub fn restore(file: &[u8]) -> Result<Restored, String> {
    let mut lines = file.split(|b| *b == b'\n').enumerate();
    let (id, cwd) = match lines.next().and_then(|(_, l)| header(l)) {
        Some((_, _, version)) if version > FORMAT_VERSION => {
            return Err(format!(
                "the session file was written by a newer luxe (format {version}; this one reads {FORMAT_VERSION})"
            ));
        }
        Some((id, cwd, _)) => (id, cwd),
        None => return Err("not a luxe session file (no session header)".into()),
    };
    let mut restored = Restored {
        id,
        cwd,
        ..Restored::default()
    };
    let mut title = title::Title::default();
    for (number, line) in lines {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(line) {
            Ok(Record::Message { message, by }) => {
                title.note(&message, by);
                if let Some(view) = restored.view.as_mut() {
                    view.push(message.clone());
                }
                restored.messages.push(message);
            }
            Ok(Record::Append { blocks }) => match restored.messages.last_mut() {
                Some(last) => {
                    if let Some(last) = restored.view.as_mut().and_then(|v| v.last_mut()) {
                        last.content.extend(blocks.iter().cloned());
                    }
                    last.content.extend(blocks);
                }
                None => restored
                    .skipped
                    .push(format!("line {}: nothing to append to", number + 1)),
            },
            Ok(Record::Compacted {
                summary,
                kept,
                cost_usd,
            }) => {
                let view = restored.view.as_deref().unwrap_or(&restored.messages);
                match view.len().checked_sub(kept) {
                    Some(from) => {
                        restored.view = Some(compacted_view(&summary, &view[from..]));
                        restored.cost_usd += cost_usd.unwrap_or(0.0);
                    }
                    None => restored.skipped.push(format!(
                        "line {}: a compaction keeps more messages than there are",
                        number + 1
                    )),
                }
            }
            Ok(Record::Settings {
                model,
                mode,
                thinking,
            }) => restored.settings = Some((model, mode, thinking)),
            Ok(Record::TurnEnded { cost_usd, .. }) => {
                restored.turns += 1;
                restored.cost_unknown |= cost_usd.is_none();
                restored.cost_usd += cost_usd.unwrap_or(0.0);
            }
            Ok(Record::Session { .. }) => {
                restored
                    .skipped
                    .push(format!("line {}: a second header", number + 1));
            }
            Err(err) => restored.skipped.push(format!("line {}: {err}", number + 1)),
        }
    }
    restored.title = title.text();
    answer_dangling_calls(&mut restored.messages);
    if let Some(view) = restored.view.as_mut() {
        answer_dangling_calls(view);
    }
    Ok(restored)
}

/// A session that ended while tools ran (a crash, a kill) leaves calls without results, which
/// providers refuse in every later request: each call gets one, right after the answer that
/// made it, wherever in the conversation it is (a resumed session that ran more turns after
/// such a crash still has the gap in its file, so the repair is made at every restore).
fn answer_dangling_calls(messages: &mut Vec<Message>) {
    use crate::model::conversation::Role;
    let mut at = 0;
    while at < messages.len() {
        let calls: Vec<String> = match &messages[at] {
            Message {
                role: Role::Assistant,
                content,
            } => content
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { id, .. } => Some(id.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        at += 1;
        if calls.is_empty() {
            continue;
        }
        let answered: Vec<String> = match messages.get(at) {
            Some(Message {
                role: Role::User,
                content,
            }) => content
                .iter()
                .filter_map(|b| match b {
                    Block::ToolResult { tool_use_id, .. } => Some(tool_use_id.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let missing: Vec<Block> = calls
            .into_iter()
            .filter(|id| !answered.contains(id))
            .map(|id| Block::ToolResult {
                tool_use_id: id,
                content: "the session ended before this call finished".to_owned(),
                is_error: true,
                images: Vec::new(),
            })
            .collect();
        if missing.is_empty() {
            continue;
        }
        match messages.get_mut(at) {
            // Results go first in the message that follows the calls, as providers want them.
            Some(next) if next.role == Role::User => {
                next.content.splice(0..0, missing);
            }
            _ => messages.insert(
                at,
                Message {
                    role: Role::User,
                    content: missing,
                },
            ),
        }
    }
}

/// This directory's sessions among `(path, content, updated)` files, newest first. Files that
/// are not sessions, or belong to another directory, are left out. Each title is the first
/// user text passed through `redact` and then cut to 80 characters, so a cut cannot leave the
/// start of a secret that the whole text would have shown redacted.
pub fn summaries(
    files: &[(String, Vec<u8>, u64)],
    cwd: &str,
    redact: &dyn Fn(&str) -> String,
) -> Vec<crate::protocol::events::SessionSummary> {
    let mut found: Vec<_> = files
        .iter()
        .filter_map(|(_, bytes, updated)| {
            // A session nothing was said in is kept (its id can be resumed) but not listed.
            let restored = restore(bytes)
                .ok()
                .filter(|r| r.cwd == cwd && !r.messages.is_empty())?;
            let title = redact(&restored.title).chars().take(80).collect();
            Some(crate::protocol::events::SessionSummary {
                id: restored.id,
                title,
                updated: *updated,
                turns: restored.turns,
                cost_usd: restored.cost_usd,
            })
        })
        .collect();
    found.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| b.id.cmp(&a.id)));
    found
}

/// The file name of session `id`, refusing ids that could name a path elsewhere.
pub fn file_name(id: &str) -> Result<String, String> {
    let ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(format!("{id}.jsonl"))
    } else {
        Err(format!("{id:?} is not a session id"))
    }
}

/// Whether a directory entry named `name` is a session file (as [`file_name`] names them):
/// a name with more than its `.jsonl` ending. The one rule for listing sessions and for `-c`.
pub fn is_session_file(name: &str) -> bool {
    name.strip_suffix(".jsonl")
        .is_some_and(|stem| !stem.is_empty())
}

/// How much of each session file `-c` reads to choose one: the header and the first records,
/// enough to see whether anything was said in it.
pub const HEAD_BYTES: u64 = 8 * 1024;

/// Whether the session whose file begins with `head` (at most [`HEAD_BYTES`] of it) holds a
/// message. A head that is full may hold one past its end (a long first message), so it
/// counts as holding one.
pub fn holds_a_message(head: &[u8]) -> bool {
    head.len() as u64 >= HEAD_BYTES
        || head
            .split(|b| *b == b'\n')
            .any(|line| matches!(serde_json::from_slice(line), Ok(Record::Message { .. })))
}

/// The most recently updated session of `cwd` that holds a message, among `(path, head,
/// updated)` candidates (`head`: the file's first [`HEAD_BYTES`] at most). A session nothing
/// was said in (opened and left) is not continued: `-c` means the last conversation.
pub fn latest_for<'a>(candidates: &'a [(String, Vec<u8>, u64)], cwd: &str) -> Option<&'a str> {
    candidates
        .iter()
        .filter(|(_, head, _)| {
            let first = head.split(|b| *b == b'\n').next().unwrap_or_default();
            header(first).is_some_and(|(_, c, _)| c == cwd) && holds_a_message(head)
        })
        .max_by_key(|(path, _, updated)| (*updated, path.clone()))
        .map(|(path, _, _)| path.as_str())
}

mod mend;
mod title;

pub use mend::{LOST_OPENING, mend_lost_records};

#[cfg(test)]
mod tests;
