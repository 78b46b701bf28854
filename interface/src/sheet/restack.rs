//! `/restack`: `plan_restack` shows each branch that would move — from where onto where, its
//! commits, the pull request base that changes — and Enter confirms it (`restack`). The result
//! is shown plainly: each moved branch with its backup ref, and each part that could not
//! follow with what to check.

use luxe_core::protocol::events::Event;
use luxe_core::protocol::stack::{RestackPlan, Restacked, RetargetPlace};
use ratatui_core::style::{Color, Style};
use ratatui_core::text::Line;
use serde_json::json;

use super::{Asked, Status, Writes, failure, folded, heading};
use crate::keys::{Key, KeyCode};

/// The `/restack` sheet: the plan asked for under `request_id`, then the pushed result.
#[derive(Debug, Clone)]
pub(crate) struct RestackSheet {
    request_id: String,
    plan: Option<RestackPlan>,
    result: Option<Restacked>,
    /// What happened last.
    pub(super) status: Option<Status>,
}

/// A commit's short form.
fn short(sha: &str) -> String {
    sha.chars().take(8).collect()
}

impl RestackSheet {
    /// A sheet whose plan is asked for under `request_id`.
    pub(crate) fn new(request_id: String) -> Self {
        Self {
            request_id,
            plan: None,
            result: None,
            status: Some(Status::Waiting("fetching and planning…".into())),
        }
    }

    pub(super) fn take(&mut self, event: &Event) {
        match event {
            Event::RestackPlanned(planned) if planned.request_id == self.request_id => {
                self.plan = planned.plan.clone();
                self.status = match (&planned.plan, &planned.refusal) {
                    (_, Some(refusal)) => Some(Status::Failed(refusal.clone())),
                    (Some(plan), None) if plan.branches.is_empty() => Some(Status::Done(
                        "nothing to restack: every branch sits where it should".into(),
                    )),
                    _ => None,
                };
            }
            Event::Restacked(done) if done.request_id.as_deref() == Some(&self.request_id) => {
                self.status = Some(if done.retarget_failed.is_empty() {
                    Status::Done(format!(
                        "restacked {} branches and pushed them",
                        done.branches.len()
                    ))
                } else {
                    Status::Failed(format!(
                        "pushed, but {} could not follow: see below",
                        done.retarget_failed.len()
                    ))
                });
                self.result = Some(done.clone());
            }
            Event::RestackFailed(failed)
                if failed.request_id.as_deref() == Some(&self.request_id) =>
            {
                self.status = Some(Status::Failed(format!(
                    "{} (nothing was pushed unless this says the push did not finish; /restack plans again)",
                    failed.reason
                )));
            }
            other => {
                if let Some(reason) = failure(other, &self.request_id) {
                    self.status = Some(Status::Failed(reason.to_owned()));
                }
            }
        }
    }

    /// Whether there is a plan to confirm.
    pub(super) fn can_restack(&self) -> bool {
        self.plan.as_ref().is_some_and(|p| !p.branches.is_empty()) && self.result.is_none()
    }

    pub(super) fn key(&mut self, key: Key, writes: Writes) -> Asked {
        let ready = self.can_restack();
        match key.code {
            KeyCode::Char('q') => Asked::Close,
            KeyCode::Enter if ready => match (writes.off(), &self.plan) {
                (Some(why), _) => {
                    self.status = Some(Status::Failed(why.into()));
                    Asked::Nothing
                }
                (None, Some(plan)) => {
                    self.status = Some(Status::Waiting("rebasing and pushing…".into()));
                    Asked::Send(
                        "restack",
                        json!({"plan_id": plan.id, "request_id": self.request_id}),
                    )
                }
                (None, None) => Asked::Nothing,
            },
            _ => Asked::Nothing,
        }
    }

    pub(super) fn rows(&self, width: usize) -> Vec<Line<'static>> {
        let plain = Style::new();
        let mut out = Vec::new();
        if let Some(plan) = self.plan.as_ref().filter(|p| !p.branches.is_empty()) {
            out.push(heading(
                &format!("{} branches move, bottom first", plan.branches.len()),
                width,
            ));
            for moving in &plan.branches {
                let onto = match &moving.new_parent_sha {
                    Some(sha) => format!("{} ({})", moving.new_parent, short(sha)),
                    None => moving.new_parent.clone(),
                };
                let plural = if moving.commits == 1 { "" } else { "s" };
                let rows = [
                    (format!("{} (#{})", moving.branch, moving.pull_request), 2),
                    (format!("from {} onto {onto}", short(&moving.old_parent)), 4),
                    (
                        format!(
                            "{} commit{plural} · pull request base → {}",
                            moving.commits, moving.new_base
                        ),
                        4,
                    ),
                ];
                for (text, indent) in rows {
                    out.extend(folded(&text, width, indent, plain));
                }
            }
        }
        if let Some(done) = &self.result {
            out.push(Line::raw(""));
            out.push(heading("Moved", width));
            for branch in &done.branches {
                let text = format!(
                    "{}: {} → {} (the old head is kept at {})",
                    branch.branch,
                    short(&branch.old_head),
                    short(&branch.new_head),
                    branch.backup_ref
                );
                out.extend(folded(&text, width, 2, plain));
            }
            for failed in &done.retarget_failed {
                let what = match (failed.place, failed.pull_request) {
                    (RetargetPlace::Github, Some(n)) => {
                        format!(
                            "#{n}'s base on GitHub: {} — check it with `gh pr view {n}`",
                            failed.reason
                        )
                    }
                    (RetargetPlace::Github, None) => {
                        format!("the base on GitHub: {}", failed.reason)
                    }
                    (RetargetPlace::Local, _) => format!(
                        "the branch here: {} — check it with `git log {}`",
                        failed.reason, failed.branch
                    ),
                };
                let text = format!("✗ {}: {what}", failed.branch);
                out.extend(folded(&text, width, 2, Style::new().fg(Color::Red)));
            }
        }
        out
    }
}
