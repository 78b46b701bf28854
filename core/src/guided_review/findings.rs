//! The review session: findings anchored to the review, their threads, and every edit the
//! protocol names, applied purely. A change is applied to a copy and kept only once it is on
//! disk (the session's review save queue), so an edit here either returns the new state or says why not.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::protocol::actions::ReviewEdit;
use crate::protocol::findings::{
    Anchor, Author, EntryKind, Finding, FindingStatus, ReviewSession, Severity, Side, ThreadEntry,
};
use crate::protocol::guided_review::{Hunk, HunkLine, Review};

/// What the agent is asked to do on a finding once a save that sent it is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentTask {
    /// Answer the comment or reply on the finding's thread (an `answer` entry).
    Answer,
    /// Change the code, then `report`.
    Fix,
}

/// The session with what luxe keeps beside it: where each line anchor sits inside its hunk,
/// so that it can follow the hunk when other hunks move it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    /// The file format's version.
    pub version: u32,
    /// The findings and threads, as the protocol sends them.
    pub session: ReviewSession,
    /// Per finding id, the first and last index of its anchored lines in the hunk's lines.
    #[serde(default)]
    pub positions: BTreeMap<String, (u32, u32)>,
    /// The number the next new finding's id takes (`finding_<n>`), from 1; it only grows, so ids
    /// are never reused.
    pub next_finding: u64,
}

/// The review session file format version.
pub const STORED_VERSION: u32 = 1;

impl Stored {
    /// An empty session for `review_id`.
    pub fn new(review_id: &str) -> Self {
        Self {
            version: STORED_VERSION,
            session: ReviewSession {
                id: review_id.to_owned(),
                revision: 0,
                findings: Vec::new(),
                notes: Vec::new(),
            },
            positions: BTreeMap::new(),
            next_finding: 1,
        }
    }

    /// Reads a stored session, refusing another review's or a newer format.
    pub fn parse(bytes: &[u8], review_id: &str) -> Result<Self, String> {
        let stored: Self = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if stored.version > STORED_VERSION {
            return Err(format!(
                "written by a newer luxe (format {}; this one reads {STORED_VERSION})",
                stored.version
            ));
        }
        if stored.session.id != review_id {
            return Err(format!("it belongs to {}", stored.session.id));
        }
        Ok(stored)
    }

    /// The session file's content: this, as pretty-printed JSON.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Plain data of strings and numbers: serialization cannot fail.
        #[allow(clippy::expect_used)]
        serde_json::to_vec_pretty(self).expect("a review session serializes")
    }

    /// Applies `edit` at time `at` (ms): the new state and what the agent is asked to do, or
    /// why the edit cannot be saved. `self` is left as it was either way.
    pub fn apply(
        &self,
        edit: ReviewEdit,
        review: &Review,
        at: u64,
    ) -> Result<(Self, Option<(String, AgentTask)>), String> {
        let mut next = self.clone();
        let entry = |kind, body: String| ThreadEntry::new(Author::Reviewer, kind, body, at);
        let task = match edit {
            ReviewEdit::Comment {
                anchor,
                body,
                severity,
                send,
            } => {
                let id = next.push_finding(
                    anchor,
                    severity,
                    FindingStatus::Draft,
                    entry(EntryKind::Comment, body),
                    review,
                )?;
                next.send_if(send, &id, AgentTask::Answer)?
            }
            ReviewEdit::Reply {
                comment_id,
                body,
                send,
            } => {
                let body = non_empty(body)?;
                next.finding_mut(&comment_id)?
                    .thread
                    .push(entry(EntryKind::Reply, body));
                next.send_if(send, &comment_id, AgentTask::Answer)?
            }
            ReviewEdit::RequestFix {
                comment_id,
                body,
                send,
            } => {
                let body = match body {
                    Some(body) => non_empty(body)?,
                    None => "Please fix this.".to_owned(),
                };
                next.finding_mut(&comment_id)?
                    .thread
                    .push(entry(EntryKind::FixRequest, body));
                next.send_if(send, &comment_id, AgentTask::Fix)?
            }
            ReviewEdit::Update {
                comment_id,
                body,
                severity,
            } => {
                if body.is_none() && severity.is_none() {
                    return Err("nothing to update: give body or severity".into());
                }
                let body = body.map(non_empty).transpose()?;
                let finding = next.finding_mut(&comment_id)?;
                if let Some(severity) = severity {
                    finding.severity = severity;
                }
                if let (Some(body), Some(first)) = (body, finding.thread.first_mut()) {
                    first.body = body;
                }
                None
            }
            ReviewEdit::Delete { comment_id } => {
                next.finding_mut(&comment_id)?;
                next.session.findings.retain(|f| f.id != comment_id);
                next.positions.remove(&comment_id);
                None
            }
            ReviewEdit::Resolve { comment_id } => {
                next.finding_mut(&comment_id)?.status = FindingStatus::Resolved;
                None
            }
            ReviewEdit::Reopen { comment_id } => {
                next.finding_mut(&comment_id)?.status = FindingStatus::Open;
                None
            }
            ReviewEdit::Send { comment_id } => {
                let asks_fix = next
                    .finding_mut(&comment_id)?
                    .thread
                    .iter()
                    .rev()
                    .find(|e| e.author == Author::Reviewer)
                    .is_some_and(|e| e.kind == EntryKind::FixRequest);
                let task = if asks_fix {
                    AgentTask::Fix
                } else {
                    AgentTask::Answer
                };
                next.send_if(true, &comment_id, task)?
            }
        };
        next.session.revision += 1;
        Ok((next, task))
    }

    /// Marks `id` sent (open, pending) when `send`, returning the agent's task.
    fn send_if(
        &mut self,
        send: bool,
        id: &str,
        task: AgentTask,
    ) -> Result<Option<(String, AgentTask)>, String> {
        if !send {
            return Ok(None);
        }
        let finding = self.finding_mut(id)?;
        if finding.pending {
            return Err(format!("the agent is already working on {id}"));
        }
        finding.status = FindingStatus::Open;
        finding.pending = true;
        Ok(Some((id.to_owned(), task)))
    }

    /// The finding called `id`.
    pub fn finding_mut(&mut self, id: &str) -> Result<&mut Finding, String> {
        self.session
            .findings
            .iter_mut()
            .find(|f| f.id == id)
            .ok_or_else(|| format!("unknown comment {id}"))
    }

    /// Adds a finding written by the agent; `Err` says why its anchor is not in the review.
    pub fn add_agent_finding(
        &mut self,
        anchor: Anchor,
        severity: Severity,
        body: String,
        review: &Review,
        at: u64,
    ) -> Result<String, String> {
        let entry = ThreadEntry::new(Author::Agent, EntryKind::Comment, body, at);
        let id = self.push_finding(anchor, severity, FindingStatus::Open, entry, review)?;
        self.session.revision += 1;
        Ok(id)
    }

    /// Adds a finding whose thread starts with `entry`, checking its anchor and body.
    fn push_finding(
        &mut self,
        anchor: Anchor,
        severity: Severity,
        status: FindingStatus,
        entry: ThreadEntry,
        review: &Review,
    ) -> Result<String, String> {
        let entry = ThreadEntry {
            body: non_empty(entry.body)?,
            ..entry
        };
        let (position, line_text) = locate(&anchor, review)?;
        let id = format!("finding_{}", self.next_finding);
        self.next_finding += 1;
        if let Some(position) = position {
            self.positions.insert(id.clone(), position);
        }
        self.session.findings.push(Finding {
            id: id.clone(),
            anchor,
            severity,
            status,
            outdated: false,
            pending: false,
            line_text,
            thread: vec![entry],
        });
        Ok(id)
    }

    /// Adds an entry to finding `id`'s thread and sets whether a turn still works on it.
    pub fn add_entry(&mut self, id: &str, entry: ThreadEntry, pending: bool) -> Result<(), String> {
        let finding = self.finding_mut(id)?;
        finding.thread.push(entry);
        finding.pending = pending;
        self.session.revision += 1;
        Ok(())
    }

    /// Adds a note about the review as a whole.
    pub fn add_note(&mut self, body: String, at: u64) {
        self.session
            .notes
            .push(ThreadEntry::new(Author::System, EntryKind::Note, body, at));
        self.session.revision += 1;
    }

    /// Re-anchors every finding in `review` (a re-read of the same review): anchors whose hunk
    /// or file is gone become outdated; the others follow their hunk. Whether anything changed.
    pub fn follow(&mut self, review: &Review) -> bool {
        let mut changed = false;
        for finding in &mut self.session.findings {
            let position = self.positions.get(&finding.id).copied();
            let (anchor, outdated) = follow_anchor(&finding.anchor, position, review);
            if anchor != finding.anchor || outdated != finding.outdated {
                finding.anchor = anchor;
                finding.outdated = outdated;
                changed = true;
            }
        }
        changed
    }
}

fn non_empty(body: String) -> Result<String, String> {
    if body.trim().is_empty() {
        Err("empty body".into())
    } else {
        Ok(body)
    }
}

/// The hunk `hunk_id` of file `file_id`, if the review has it.
fn hunk_of<'r>(review: &'r Review, file_id: &str, hunk_id: &str) -> Option<&'r Hunk> {
    review
        .hunks
        .iter()
        .find(|h| h.id == hunk_id && h.file_id == file_id)
}

/// The index in `hunk.lines` of line `line` on `side`.
fn line_index(hunk: &Hunk, side: Side, line: u32) -> Option<usize> {
    hunk.lines
        .iter()
        .position(|l| number_on(l, side) == Some(line))
}

/// A hunk line's number on `side`.
fn number_on(line: HunkLine<'_>, side: Side) -> Option<u32> {
    match side {
        Side::Old => line.old_line,
        Side::New => line.new_line,
    }
}

/// Where an anchor's lines sit in their hunk (first and last index), and the first one's text.
type Located = (Option<(u32, u32)>, Option<String>);

/// Whether `anchor` names a file, a hunk or lines `review` shows; or why not, as `edit_review`
/// answers it (a client may check before it sends).
pub fn check_anchor(anchor: &Anchor, review: &Review) -> Result<(), String> {
    locate(anchor, review).map(|_| ())
}

/// Checks `anchor` against `review`: where its lines sit in their hunk, and the first line's
/// text; or why it is not in the review.
fn locate(anchor: &Anchor, review: &Review) -> Result<Located, String> {
    let missing = |what: &str| Err(format!("anchor not in the review: {what}"));
    let file_exists = |file_id: &str| review.files.iter().any(|f| f.id == file_id);
    let (file_id, hunk_id, side, start, end) = match anchor {
        Anchor::File { file_id } => {
            return if file_exists(file_id) {
                Ok((None, None))
            } else {
                missing(&format!("no file {file_id}"))
            };
        }
        Anchor::Hunk { file_id, hunk_id } => {
            return match hunk_of(review, file_id, hunk_id) {
                Some(_) => Ok((None, None)),
                None => missing(&format!("no hunk {hunk_id} in file {file_id}")),
            };
        }
        Anchor::Line {
            file_id,
            hunk_id,
            side,
            line,
        } => (file_id, hunk_id, *side, *line, *line),
        Anchor::Range {
            file_id,
            hunk_id,
            side,
            start_line,
            end_line,
        } => (file_id, hunk_id, *side, *start_line, *end_line),
    };
    if start > end {
        return Err("anchor not in the review: start_line is after end_line".into());
    }
    let Some(hunk) = hunk_of(review, file_id, hunk_id) else {
        return missing(&format!("no hunk {hunk_id} in file {file_id}"));
    };
    let side_name = match side {
        Side::Old => "old",
        Side::New => "new",
    };
    let (Some(first), Some(last)) = (line_index(hunk, side, start), line_index(hunk, side, end))
    else {
        return missing(&format!(
            "hunk {hunk_id} has no {side_name} line {start}..={end}"
        ));
    };
    let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    Ok((
        Some((index(first), index(last))),
        hunk.lines.get(first).map(|l| l.text.to_owned()),
    ))
}

/// `anchor` as it sits in `review`, and whether it is outdated.
fn follow_anchor(anchor: &Anchor, position: Option<(u32, u32)>, review: &Review) -> (Anchor, bool) {
    let file_exists = |file_id: &str| review.files.iter().any(|f| f.id == file_id);
    match anchor {
        Anchor::File { file_id } => (anchor.clone(), !file_exists(file_id)),
        Anchor::Hunk { file_id, hunk_id } => {
            (anchor.clone(), hunk_of(review, file_id, hunk_id).is_none())
        }
        Anchor::Line {
            file_id,
            hunk_id,
            side,
            ..
        }
        | Anchor::Range {
            file_id,
            hunk_id,
            side,
            ..
        } => {
            let number =
                |hunk: &Hunk, i: u32| hunk.lines.get(i as usize).and_then(|l| number_on(l, *side));
            let moved = hunk_of(review, file_id, hunk_id).zip(position).and_then(
                |(hunk, (first, last))| Some((number(hunk, first)?, number(hunk, last)?)),
            );
            match (moved, anchor) {
                (Some((line, _)), Anchor::Line { .. }) => (
                    Anchor::Line {
                        file_id: file_id.clone(),
                        hunk_id: hunk_id.clone(),
                        side: *side,
                        line,
                    },
                    false,
                ),
                (Some((start_line, end_line)), _) => (
                    Anchor::Range {
                        file_id: file_id.clone(),
                        hunk_id: hunk_id.clone(),
                        side: *side,
                        start_line,
                        end_line,
                    },
                    false,
                ),
                (None, _) => (anchor.clone(), true),
            }
        }
    }
}

#[cfg(test)]
mod tests;
