//! `/pr`: `preview_pull_request` drafts the branch's pull request; the person edits its title
//! and description; Enter opens it (`open_pull_request`, a GitHub write) and the sheet shows its
//! URL. A failed open can be confirmed again.

use luxe_core::protocol::events::Event;
use luxe_core::protocol::github::PullRequestPreview;
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::Line;
use serde_json::json;

use super::{Asked, Status, Writes, failure, folded, heading};
use crate::composer::Composer;
use crate::keys::{Key, KeyCode};

/// Which field the keys edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Description,
}

/// The `/pr` sheet.
#[derive(Debug, Clone)]
pub(crate) struct PullRequestSheet {
    request_id: String,
    preview: Option<PullRequestPreview>,
    title: Composer,
    description: Composer,
    field: Field,
    /// Its number and page, once open.
    opened: Option<(u64, String)>,
    /// What happened last.
    pub(super) status: Option<Status>,
}

impl PullRequestSheet {
    /// A sheet whose preview is asked for under `request_id`.
    pub(crate) fn new(request_id: String) -> Self {
        Self {
            request_id,
            preview: None,
            title: Composer::default(),
            description: Composer::default(),
            field: Field::Title,
            opened: None,
            status: Some(Status::Waiting("drafting the pull request…".into())),
        }
    }

    pub(super) fn take(&mut self, event: &Event) {
        match event {
            Event::PullRequestPreview(preview) if preview.request_id == self.request_id => {
                self.title.set(preview.title.clone());
                self.description.set(preview.description.clone());
                self.preview = Some((**preview).clone());
                self.status = None;
            }
            Event::PullRequestOpened(opened) if opened.request_id == self.request_id => {
                self.opened = Some((opened.number, opened.url.clone()));
                self.status = Some(Status::Done(format!(
                    "opened #{}: {}",
                    opened.number, opened.url
                )));
            }
            other => {
                if let Some(reason) = failure(other, &self.request_id) {
                    let again = if self.preview.is_some() {
                        " (Enter tries again)"
                    } else {
                        ""
                    };
                    self.status = Some(Status::Failed(format!("{reason}{again}")));
                }
            }
        }
    }

    pub(super) fn key(&mut self, key: Key, writes: Writes) -> Asked {
        if self.preview.is_none() || self.opened.is_some() {
            return match key.code {
                KeyCode::Char('q') => Asked::Close,
                _ => Asked::Nothing,
            };
        }
        let newline =
            key.mods.shift || key.mods.alt || (key.mods.ctrl && key.code == KeyCode::Char('j'));
        let field = match self.field {
            Field::Title => &mut self.title,
            Field::Description => &mut self.description,
        };
        match key.code {
            KeyCode::Enter | KeyCode::Char('j') if newline && self.field == Field::Description => {
                field.insert('\n');
            }
            KeyCode::Enter | KeyCode::Char('j') if newline => {}
            KeyCode::Enter => return self.open(writes),
            KeyCode::Tab | KeyCode::BackTab => {
                self.field = match self.field {
                    Field::Title => Field::Description,
                    Field::Description => Field::Title,
                };
            }
            _ if key.mods.ctrl => {}
            KeyCode::Char(c) => field.insert(c),
            KeyCode::Backspace => field.backspace(),
            KeyCode::Delete => field.delete(),
            KeyCode::Left => field.left(),
            KeyCode::Right => field.right(),
            KeyCode::Home => field.home(),
            KeyCode::End => field.end(),
            _ => {}
        }
        Asked::Nothing
    }

    fn open(&mut self, writes: Writes) -> Asked {
        if let Some(why) = writes.off() {
            self.status = Some(Status::Failed(why.into()));
            return Asked::Nothing;
        }
        let title = self.title.shown().trim().to_owned();
        if title.is_empty() {
            self.status = Some(Status::Failed("a pull request needs a title".into()));
            return Asked::Nothing;
        }
        self.status = Some(Status::Waiting("pushing and opening…".into()));
        Asked::Send(
            "open_pull_request",
            json!({
                "request_id": self.request_id,
                "title": title,
                "description": self.description.shown(),
            }),
        )
    }

    pub(super) fn hints(&self, confirm: &str) -> String {
        if self.opened.is_some() || self.preview.is_none() {
            "q or Esc goes back".into()
        } else {
            format!(
                "{confirm} · Tab: title / description · Shift+Enter: a new line · Esc goes back"
            )
        }
    }

    pub(super) fn rows(&self, width: usize) -> Vec<Line<'static>> {
        let Some(preview) = &self.preview else {
            return Vec::new();
        };
        let plain = Style::new();
        let label = |field: Field, name: &str| {
            let style = if self.field == field {
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
            } else {
                Style::new().add_modifier(Modifier::BOLD)
            };
            Line::styled(
                format!(
                    "{name}{}",
                    if self.field == field {
                        " (editing)"
                    } else {
                        ""
                    }
                ),
                style,
            )
        };
        let mut out = folded(
            &format!("{} ← {}", preview.base, preview.head),
            width,
            0,
            plain,
        );
        out.push(Line::raw(""));
        out.push(label(Field::Title, "Title"));
        out.extend(folded(self.title.shown(), width, 2, plain));
        out.push(label(Field::Description, "Description"));
        out.extend(folded(self.description.shown(), width, 2, plain));
        out.push(Line::raw(""));
        out.push(heading(
            &format!("Commits ({})", preview.commits.len()),
            width,
        ));
        for commit in &preview.commits {
            let short: String = commit.sha.chars().take(8).collect();
            out.extend(folded(
                &format!("{short} {}", commit.subject),
                width,
                2,
                plain,
            ));
        }
        out
    }
}
