//! `/stack`: `preview_stack` lists the stack's branches, bottom first, each with the pull
//! request it would open; Enter opens them (`open_stack`, a GitHub write). After a partial
//! failure, Enter again opens only what is left.

use luxe_core::protocol::events::Event;
use luxe_core::protocol::stack::{StackDraft, StackPullRequest};
use ratatui_core::style::Style;
use ratatui_core::text::Line;
use serde_json::json;

use super::{Asked, Status, Writes, failure, folded, heading};
use crate::keys::{Key, KeyCode};

/// The `/stack` sheet: the drafted pull requests, then those opened.
#[derive(Debug, Clone)]
pub(crate) struct StackSheet {
    request_id: String,
    drafts: Option<Vec<StackDraft>>,
    /// The pull requests open, bottom first, once some are.
    opened: Vec<StackPullRequest>,
    done: bool,
    /// What happened last.
    pub(super) status: Option<Status>,
}

impl StackSheet {
    /// A sheet whose preview is asked for under `request_id`.
    pub(crate) fn new(request_id: String) -> Self {
        Self {
            request_id,
            drafts: None,
            opened: Vec::new(),
            done: false,
            status: Some(Status::Waiting("reading the stack…".into())),
        }
    }

    pub(super) fn take(&mut self, event: &Event) {
        match event {
            Event::StackPreview(preview) if preview.request_id == self.request_id => {
                self.drafts = Some(preview.pull_requests.clone());
                self.status = None;
            }
            Event::StackOpened(opened) if opened.request_id == self.request_id => {
                self.opened = opened.pull_requests.clone();
                self.done = true;
                self.status = Some(Status::Done(format!(
                    "opened {} pull requests",
                    self.opened.len()
                )));
            }
            Event::StackOpenFailed(failed) if failed.request_id == self.request_id => {
                self.opened = failed.opened.clone();
                let pending: Vec<&str> = failed.pending.iter().map(|p| p.branch.as_str()).collect();
                self.status = Some(Status::Failed(format!(
                    "{} · still to open: {} (Enter opens the rest)",
                    failed.reason,
                    pending.join(", ")
                )));
            }
            other => {
                if let Some(reason) = failure(other, &self.request_id) {
                    self.status = Some(Status::Failed(reason.to_owned()));
                }
            }
        }
    }

    /// Whether there is a stack to open.
    pub(super) fn can_open(&self) -> bool {
        self.drafts.is_some() && !self.done
    }

    pub(super) fn key(&mut self, key: Key, writes: Writes) -> Asked {
        match key.code {
            KeyCode::Char('q') => Asked::Close,
            KeyCode::Enter if self.can_open() => match writes.off() {
                Some(why) => {
                    self.status = Some(Status::Failed(why.into()));
                    Asked::Nothing
                }
                None => {
                    self.status = Some(Status::Waiting("pushing and opening…".into()));
                    Asked::Send("open_stack", json!({"request_id": self.request_id}))
                }
            },
            _ => Asked::Nothing,
        }
    }

    pub(super) fn rows(&self, width: usize) -> Vec<Line<'static>> {
        let Some(drafts) = &self.drafts else {
            return Vec::new();
        };
        let plain = Style::new();
        let mut out = vec![heading(
            &format!("{} branches, bottom first", drafts.len()),
            width,
        )];
        for draft in drafts {
            let open = self.opened.iter().find(|o| o.branch == draft.branch);
            let number = open.map(|o| format!("#{} ", o.number)).unwrap_or_default();
            out.extend(folded(
                &format!("{} → {}", draft.branch, draft.base),
                width,
                2,
                plain,
            ));
            out.extend(folded(&format!("{number}{}", draft.title), width, 4, plain));
            if let Some(open) = open {
                out.extend(folded(&open.url, width, 4, plain));
            }
        }
        out
    }
}
