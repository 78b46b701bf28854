//! Agent turns on the open review: queuing a review turn with its prompt (answer a thread,
//! fix a finding, review the whole diff), the `report` and `add_finding` tools those turns
//! offer, and what a review turn leaves on its thread when it ends.

use std::time::Instant;

use serde_json::Value;

use crate::protocol::findings::{Author, EntryKind, ReportStatus, ThreadEntry};
use crate::protocol::values::TurnSource;
use crate::review::path_line::{NotShown, Place, anchor_at, review_path};

use super::Session;
use super::review_prompts::{agent_review_prompt, finding_prompt};
use super::review_saves::Change;
use super::tools::review_args::{AddFinding, Report};
use super::turn::Queued;

/// What the agent does in a review turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ReviewWork {
    /// Answer on finding `.0`'s thread.
    Answer(String),
    /// Change the code for finding `.0`, then `report`.
    Fix(String),
    /// Review the whole diff with `add_finding`.
    Review,
}

/// A review turn's task, carried by the queued message that starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ReviewTask {
    pub(super) review_id: String,
    pub(super) work: ReviewWork,
}

impl ReviewTask {
    /// The extra tools the turn offers.
    pub(super) fn tools(&self) -> &'static [&'static str] {
        match self.work {
            ReviewWork::Answer(_) => &[],
            ReviewWork::Fix(_) => &["report"],
            ReviewWork::Review => &["add_finding"],
        }
    }
}

impl Session {
    /// Queues the review turn for `task`, with its prompt built from the review as it is now.
    pub(super) fn queue_review_turn(&mut self, now: Instant, task: ReviewTask) {
        let Some(open) = self.review.view() else {
            return;
        };
        let text = match &task.work {
            ReviewWork::Answer(id) | ReviewWork::Fix(id) => {
                let fix = matches!(task.work, ReviewWork::Fix(_));
                match open.stored.session.findings.iter().find(|f| &f.id == id) {
                    Some(finding) => finding_prompt(open.review, finding, fix),
                    None => return,
                }
            }
            ReviewWork::Review => agent_review_prompt(open.review),
        };
        let queued = Queued {
            text,
            images: Vec::new(),
            review: Some(task),
        };
        self.submit(now, queued, TurnSource::Review);
    }

    /// The `report` and `add_finding` tools: what they changed, for the model, or why not.
    pub(super) fn review_tool(
        &mut self,
        now: Instant,
        name: &str,
        input: &Value,
    ) -> Result<String, String> {
        let task = self
            .turns
            .running()
            .and_then(|t| t.review().cloned())
            .ok_or_else(|| format!("{name} is only available in a review turn."))?;
        if self.check_open(&task.review_id).is_err() {
            return Err(
                "The review this turn works on is no longer open, so nothing was recorded.".into(),
            );
        }
        match (name, &task.work) {
            ("report", ReviewWork::Fix(finding_id)) => {
                let finding_id = finding_id.clone();
                self.report_tool(now, &finding_id, input)
            }
            ("add_finding", ReviewWork::Review) => self.add_finding_tool(now, input),
            _ => Err(format!(
                "{name} is not available in this turn: add_finding is for agent reviews, report for fix requests."
            )),
        }
    }

    /// `report` in the fix turn of finding `finding_id`.
    fn report_tool(
        &mut self,
        now: Instant,
        finding_id: &str,
        input: &Value,
    ) -> Result<String, String> {
        let report = Report::parse(input)?;
        if report.comment_id != finding_id {
            return Err(format!(
                "report's `comment_id` must be {finding_id}, the comment this turn works on, not {:?}.",
                report.comment_id
            ));
        }
        if let Some(turn) = self.turns.running_mut() {
            turn.note_report();
        }
        let body = report.summary.trim().to_owned();
        let entry = ThreadEntry {
            status: Some(report.status),
            ..ThreadEntry::new(Author::Agent, EntryKind::Report, body, self.wall_ms(now))
        };
        self.queue_change(
            now,
            Change::Entry {
                finding_id: finding_id.to_owned(),
                entry,
                pending: true,
            },
        );
        let status = match report.status {
            ReportStatus::Fixed => "fixed",
            ReportStatus::NotFixed => "not fixed",
        };
        Ok(format!("Reported on {finding_id} as {status}."))
    }

    /// `add_finding` in an agent review: the path and line become an anchor in the open review.
    fn add_finding_tool(&mut self, now: Instant, input: &Value) -> Result<String, String> {
        let args = AddFinding::parse(input)?;
        let Some(open) = self.review.view() else {
            return Err("No review is open, so nothing was recorded.".into());
        };
        let path = review_path(open.review, open.root, &self.facts.cwd, &args.path);
        let place = Place {
            path: &path,
            side: args.side,
            line: args.line,
            end_line: args.end_line,
        };
        match anchor_at(open.review, &place) {
            Ok(anchor) => {
                let described = place.to_string();
                self.queue_change(
                    now,
                    Change::AgentFinding {
                        anchor,
                        severity: args.severity,
                        body: args.body,
                    },
                );
                Ok(format!("Finding added at {described}."))
            }
            Err(why) => {
                let retry = match why {
                    NotShown::NoFile { .. } => "one of those paths",
                    NotShown::Lines { .. } => "a line the review shows",
                    NotShown::AcrossHunks { .. } => "a range inside one of those ranges",
                };
                let note = format!("An agent finding was dropped: {why}.");
                self.queue_change(now, Change::Note { body: note });
                Err(format!(
                    "Not added: {why}. Call add_finding again with {retry}."
                ))
            }
        }
    }

    /// A review turn ended: its answer or a note lands on the thread.
    pub(super) fn review_turn_ended(
        &mut self,
        now: Instant,
        task: &ReviewTask,
        answer: &str,
        reported: bool,
        why: &str,
    ) {
        if self.check_open(&task.review_id).is_err() {
            return;
        }
        let at = self.wall_ms(now);
        let (finding_id, entry) = match &task.work {
            ReviewWork::Answer(id) if !answer.trim().is_empty() => (
                id.clone(),
                ThreadEntry::new(
                    Author::Agent,
                    EntryKind::Answer,
                    answer.trim().to_owned(),
                    at,
                ),
            ),
            ReviewWork::Answer(id) => (
                id.clone(),
                self.system_entry(now, &format!("The agent ended without an answer ({why}).")),
            ),
            ReviewWork::Fix(id) if reported => {
                (id.clone(), self.system_entry(now, "The fix turn ended."))
            }
            ReviewWork::Fix(id) => (
                id.clone(),
                self.system_entry(
                    now,
                    &format!(
                        "The fix turn ended without a report ({why}); the comment stays open."
                    ),
                ),
            ),
            ReviewWork::Review => return,
        };
        self.close_thread(now, finding_id, entry);
    }

    pub(super) fn system_entry(&self, now: Instant, body: &str) -> ThreadEntry {
        ThreadEntry::new(
            Author::System,
            EntryKind::Note,
            body.to_owned(),
            self.wall_ms(now),
        )
    }
}
