//! Agent turns on the open review: queuing a review turn with its prompt (answer a thread,
//! fix a finding, review the whole diff), the `report` and `add_finding` tools those turns
//! offer, and what a review turn leaves on its thread when it ends. The tools and the ending
//! are pure ([`ReviewTask::run_tool`], [`ReviewTask::ended`]); the session's routing
//! (`routes/guided_review.rs`) queues what they return.

use serde_json::Value;

use crate::guided_review::findings::Stored;
use crate::guided_review::path_line::{NotShown, Place, anchor_at, review_path};
use crate::protocol::findings::{Author, EntryKind, ReportStatus, ThreadEntry};
use crate::protocol::guided_review::Review;

use super::save_queue::Change;
use super::work::ReviewWork;
use crate::session::tools::review_args::{AddFinding, Report};

/// What review turns read of the open review (they change it only through the save queue).
pub(in crate::session) struct OpenView<'a> {
    /// The open review as loaded: files, hunks and chapters.
    pub review: &'a Review,
    /// The repository's work tree root.
    pub root: &'a str,
    /// Its session as it is on disk.
    pub stored: &'a Stored,
}

/// A review turn's task, carried by the queued message that starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::session) struct ReviewTask {
    pub(in crate::session) review_id: String,
    pub(in crate::session) work: ReviewWork,
}

impl ReviewTask {
    /// The extra tools the turn offers.
    pub(in crate::session) fn tools(&self) -> &'static [&'static str] {
        match self.work {
            ReviewWork::Answer(_) => &[],
            ReviewWork::Fix(_) => &["report"],
            ReviewWork::Review => &["add_finding"],
        }
    }

    /// Runs tool `name` of this task on `open`, the task's review (`None` once it is closed),
    /// at wall time `at_ms`; paths are resolved against the session's `cwd`.
    pub(in crate::session) fn run_tool(
        &self,
        name: &str,
        input: &Value,
        open: Option<OpenView<'_>>,
        cwd: &str,
        at_ms: u64,
    ) -> ToolDone {
        let Some(open) = open else {
            return ToolDone::refused(
                "The review this turn works on is no longer open, so nothing was recorded.".into(),
            );
        };
        match (name, &self.work) {
            ("report", ReviewWork::Fix(finding_id)) => report(finding_id, input, at_ms),
            ("add_finding", ReviewWork::Review) => add_finding(open, cwd, input),
            _ => ToolDone::refused(format!(
                "{name} is not available in this turn: add_finding is for agent reviews, report for fix requests."
            )),
        }
    }

    /// What the turn leaves on its thread when it ends, and on which finding: its answer, or a
    /// note saying how it ended; nothing for a review of the whole diff.
    pub(in crate::session) fn ended(
        &self,
        answer: &str,
        reported: bool,
        why: &str,
        at_ms: u64,
    ) -> Option<(String, ThreadEntry)> {
        let (finding_id, entry) = match &self.work {
            ReviewWork::Answer(id) if !answer.trim().is_empty() => (
                id,
                ThreadEntry::new(
                    Author::Agent,
                    EntryKind::Answer,
                    answer.trim().to_owned(),
                    at_ms,
                ),
            ),
            ReviewWork::Answer(id) => (
                id,
                system_note(
                    &format!("The agent ended without an answer ({why})."),
                    at_ms,
                ),
            ),
            ReviewWork::Fix(id) if reported => (id, system_note("The fix turn ended.", at_ms)),
            ReviewWork::Fix(id) => (
                id,
                system_note(
                    &format!(
                        "The fix turn ended without a report ({why}); the comment stays open."
                    ),
                    at_ms,
                ),
            ),
            ReviewWork::Review => return None,
        };
        Some((finding_id.clone(), entry))
    }
}

/// What a review tool call did.
#[derive(Debug)]
pub(in crate::session) struct ToolDone {
    /// The tool's result for the model, or why nothing was done.
    pub(in crate::session) answer: Result<String, String>,
    /// The change it makes to the open review.
    pub(in crate::session) change: Option<Change>,
    /// Whether it was the fix turn's `report`, which the turn notes.
    pub(in crate::session) reported: bool,
}

impl ToolDone {
    fn refused(why: String) -> Self {
        Self {
            answer: Err(why),
            change: None,
            reported: false,
        }
    }
}

/// `report` in the fix turn of finding `finding_id`.
fn report(finding_id: &str, input: &Value, at_ms: u64) -> ToolDone {
    let report = match Report::parse(input) {
        Ok(report) => report,
        Err(why) => return ToolDone::refused(why),
    };
    if report.comment_id != finding_id {
        return ToolDone::refused(format!(
            "report's `comment_id` must be {finding_id}, the comment this turn works on, not {:?}.",
            report.comment_id
        ));
    }
    let status = match report.status {
        ReportStatus::Fixed => "fixed",
        ReportStatus::NotFixed => "not fixed",
    };
    let entry = ThreadEntry {
        status: Some(report.status),
        ..ThreadEntry::new(
            Author::Agent,
            EntryKind::Report,
            report.summary.trim().to_owned(),
            at_ms,
        )
    };
    ToolDone {
        answer: Ok(format!("Reported on {finding_id} as {status}.")),
        change: Some(Change::Entry {
            finding_id: finding_id.to_owned(),
            entry,
            pending: true,
        }),
        reported: true,
    }
}

/// `add_finding` in an agent review: the path and line become an anchor in the open review;
/// a place the review does not show leaves a note on the review and tells the model where to
/// aim instead.
fn add_finding(open: OpenView<'_>, cwd: &str, input: &Value) -> ToolDone {
    let args = match AddFinding::parse(input) {
        Ok(args) => args,
        Err(why) => return ToolDone::refused(why),
    };
    let path = review_path(open.review, open.root, cwd, &args.path);
    let place = Place {
        path: &path,
        side: args.side,
        line: args.line,
        end_line: args.end_line,
    };
    let (answer, change) = match anchor_at(open.review, &place) {
        Ok(anchor) => (
            Ok(format!("Finding added at {place}.")),
            Change::AgentFinding {
                anchor,
                severity: args.severity,
                body: args.body,
            },
        ),
        Err(why) => {
            let retry = match why {
                NotShown::NoFile { .. } => "one of those paths",
                NotShown::Lines { .. } => "a line the review shows",
                NotShown::AcrossHunks { .. } => "a range inside one of those ranges",
            };
            (
                Err(format!(
                    "Not added: {why}. Call add_finding again with {retry}."
                )),
                Change::Note {
                    body: format!("An agent finding was dropped: {why}."),
                },
            )
        }
    };
    ToolDone {
        answer,
        change: Some(change),
        reported: false,
    }
}

/// A note from luxe itself on a thread, at wall time `at_ms`.
pub(in crate::session) fn system_note(body: &str, at_ms: u64) -> ThreadEntry {
    ThreadEntry::new(Author::System, EntryKind::Note, body.to_owned(), at_ms)
}

#[cfg(test)]
mod tests;
