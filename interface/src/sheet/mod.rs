//! Sheets: full-screen pages over the conversation for the checkout's GitHub side — `/github`
//! (the dock's details), `/pr` (open the branch's pull request), `/stack` (open a stack of them)
//! and `/restack` (move a stack after its base moved). Each is built only from the protocol's
//! events and sends only its actions; writes are offered only when `ready` said
//! `github_writes`, and otherwise the keys say why they are off. `q` or Esc goes back.

mod github;
mod pull_request;
mod restack;
mod stack;

use luxe_core::protocol::events::Event;
use luxe_core::protocol::github::WorkspaceUpdated;
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::Line;
use serde_json::{Value, json};

use crate::keys::{Key, KeyCode};
use crate::text::{cut, fold, visible};

pub(crate) use pull_request::PullRequestSheet;
pub(crate) use restack::RestackSheet;
pub(crate) use stack::StackSheet;

/// What the sheet's writes need and why they may be off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Writes {
    /// `ready.github_writes`.
    pub github: bool,
    /// `ready.read_only`.
    pub read_only: bool,
}

impl Writes {
    /// Why GitHub writes are off, if they are.
    pub(crate) fn off(self) -> Option<&'static str> {
        if self.read_only {
            Some("GitHub writes are off: this session is read-only")
        } else if !self.github {
            Some("GitHub writes are off: start luxe with --github-writes")
        } else {
            None
        }
    }
}

/// One open sheet.
#[derive(Debug, Clone)]
pub(crate) enum Sheet {
    /// `/github`: the dock's details.
    Github,
    /// `/pr`: the branch's drafted pull request, then the opened one.
    PullRequest(Box<PullRequestSheet>),
    /// `/stack`: the stack's drafted pull requests, then the opened ones.
    Stack(StackSheet),
    /// `/restack`: a restack's plan, then its result.
    Restack(RestackSheet),
}

/// What a key on a sheet asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Asked {
    /// Nothing beyond what changed on the sheet.
    Nothing,
    /// Send this action (kind, content).
    Send(&'static str, Value),
    /// Go back to the conversation.
    Close,
}

/// A line under a sheet: what happened last, or why a key did nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    /// Sent, waiting for the session's answer; the text says what is under way.
    Waiting(String),
    /// It worked; the text says what was done.
    Done(String),
    /// It did not, and why (what to do next when there is something).
    Failed(String),
}

impl Sheet {
    /// The action that fills the sheet when it opens, with the request id it goes under.
    pub(crate) fn opening(&self, request_id: &str) -> Option<(&'static str, Value)> {
        match self {
            Self::Github => Some(("refresh_workspace", Value::Null)),
            Self::PullRequest(_) => {
                Some(("preview_pull_request", json!({"request_id": request_id})))
            }
            Self::Stack(_) => Some(("preview_stack", json!({"request_id": request_id}))),
            Self::Restack(_) => Some(("plan_restack", json!({"request_id": request_id}))),
        }
    }

    /// Takes one event of the session (those not for this sheet change nothing).
    pub(crate) fn take(&mut self, event: &Event) {
        match self {
            Self::Github => {}
            Self::PullRequest(sheet) => sheet.take(event),
            Self::Stack(sheet) => sheet.take(event),
            Self::Restack(sheet) => sheet.take(event),
        }
    }

    /// A key, with what writes are allowed.
    pub(crate) fn key(&mut self, key: Key, writes: Writes) -> Asked {
        if matches!(key.code, KeyCode::Esc) && !key.mods.ctrl {
            return Asked::Close;
        }
        match self {
            Self::Github => match key.code {
                KeyCode::Char('q') => Asked::Close,
                KeyCode::Char('R') => Asked::Send("refresh_workspace", Value::Null),
                _ => Asked::Nothing,
            },
            Self::PullRequest(sheet) => sheet.key(key, writes),
            Self::Stack(sheet) => sheet.key(key, writes),
            Self::Restack(sheet) => sheet.key(key, writes),
        }
    }

    /// The sheet's title row.
    pub(crate) fn title(&self) -> &'static str {
        match self {
            Self::Github => "GitHub",
            Self::PullRequest(_) => "Open a pull request",
            Self::Stack(_) => "Open a stack of pull requests",
            Self::Restack(_) => "Restack",
        }
    }

    /// The keys, as the bottom row says them.
    pub(crate) fn hints(&self, writes: Writes) -> String {
        let confirm = |what: &str| match writes.off() {
            Some(why) => format!("Enter: off ({why})"),
            None => format!("Enter {what}"),
        };
        match self {
            Self::Github => "R refreshes · q or Esc goes back".into(),
            Self::PullRequest(sheet) => sheet.hints(&confirm("opens it")),
            Self::Stack(sheet) if sheet.can_open() => {
                format!("{} · q or Esc goes back", confirm("opens the stack"))
            }
            Self::Restack(sheet) if sheet.can_restack() => {
                format!("{} · q or Esc goes back", confirm("restacks"))
            }
            Self::Stack(_) | Self::Restack(_) => "q or Esc goes back".into(),
        }
    }

    /// The body's rows at `width`; the GitHub sheet reads the dock's facts.
    pub(crate) fn rows(
        &self,
        workspace: Option<&WorkspaceUpdated>,
        width: usize,
    ) -> Vec<Line<'static>> {
        match self {
            Self::Github => github::rows(workspace, width),
            Self::PullRequest(sheet) => sheet.rows(width),
            Self::Stack(sheet) => sheet.rows(width),
            Self::Restack(sheet) => sheet.rows(width),
        }
    }

    /// The status row, if there is one.
    pub(crate) fn status(&self) -> Option<&Status> {
        match self {
            Self::Github => None,
            Self::PullRequest(sheet) => sheet.status.as_ref(),
            Self::Stack(sheet) => sheet.status.as_ref(),
            Self::Restack(sheet) => sheet.status.as_ref(),
        }
    }
}

/// Why the request `request_id` failed, when `event` says it did: a refusal, a read that
/// failed, an open that failed.
pub(crate) fn failure<'a>(event: &'a Event, request_id: &str) -> Option<&'a str> {
    match event {
        Event::ActionRejected(rejected) if rejected.request_id.as_deref() == Some(request_id) => {
            Some(&rejected.reason)
        }
        Event::GithubReadFailed(failed) | Event::PullRequestOpenFailed(failed)
            if failed.request_id == request_id =>
        {
            Some(&failed.reason)
        }
        _ => None,
    }
}

/// `text` folded to `width`, each row indented by `indent` spaces, in `style`.
pub(crate) fn folded(text: &str, width: usize, indent: usize, style: Style) -> Vec<Line<'static>> {
    let inner = width.saturating_sub(indent).max(1);
    let pad = " ".repeat(indent);
    text.split('\n')
        .flat_map(|line| fold(&visible(line), inner))
        .map(|row| Line::styled(format!("{pad}{row}"), style))
        .collect()
}

/// `text` as a bold heading row, cut to `width` columns.
pub(crate) fn heading(text: &str, width: usize) -> Line<'static> {
    Line::styled(
        cut(&visible(text), width),
        Style::new().add_modifier(Modifier::BOLD),
    )
}

/// The status row's look.
pub(crate) fn status_line(status: &Status, width: usize) -> Line<'static> {
    let (text, style) = match status {
        Status::Waiting(text) => (format!("⋯ {text}"), Style::new().fg(Color::Yellow)),
        Status::Done(text) => (format!("✓ {text}"), Style::new().fg(Color::Green)),
        Status::Failed(text) => (format!("✗ {text}"), Style::new().fg(Color::Red)),
    };
    Line::styled(cut(&visible(&text), width), style)
}
