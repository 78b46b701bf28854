//! What the screen shows, built from the session's events only (the same typed events an
//! `--rpc` client reads as JSON): the transcript, the prompts waiting for the person, the
//! dock's facts.

use std::collections::VecDeque;

use luxe_core::protocol::events::{Event, PermissionRequested, QuestionAsked, Started, ToolStatus};
use luxe_core::protocol::github::WorkspaceUpdated;
use luxe_core::protocol::values::TurnEndReason;

use crate::picker::{Entry, Pick, Picker};
use crate::sheet::Writes;
use crate::transcript::{Cell, ToolCell, Transcript};

/// The dock's facts: where, which model, how full, what it cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Dock {
    pub cwd: String,
    pub workspace: Option<WorkspaceUpdated>,
    pub model: Option<String>,
    pub mode: String,
    pub context_window: Option<u32>,
    pub context_tokens: u64,
    pub cost_usd: Option<f64>,
    pub streaming: bool,
}

/// Everything drawn, but the composer.
#[derive(Debug, Clone, Default)]
pub(crate) struct View {
    pub transcript: Transcript,
    pub permissions: VecDeque<PermissionRequested>,
    pub question: Option<QuestionAsked>,
    /// The options picked so far of a question that takes several.
    pub picked: Vec<usize>,
    /// The highlighted option of the question.
    pub question_at: usize,
    pub queued: Vec<String>,
    pub dock: Dock,
    /// The session's id, as `ready` gave it.
    pub session_id: String,
    /// Whether GitHub writes are on, as `ready` said.
    pub writes: Writes,
    /// A list waiting for a choice (`/model`, `/sessions`).
    pub picker: Option<Picker>,
}

/// What the start-up flags did, a line each, for the first screen.
fn started_lines(started: &Started) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(worktree) = &started.worktree {
        lines.push(format!(
            "--worktree: working in {} on the new branch {}",
            worktree.path, worktree.branch
        ));
    }
    if let Some(number) = started.from_pr {
        lines.push(format!("--from-pr: pull request #{number} is checked out"));
    }
    if let Some(issue) = &started.issue {
        let url = if issue.url.is_empty() {
            String::new()
        } else {
            format!(" ({})", issue.url)
        };
        lines.push(format!(
            "--issue: #{} “{}”{url} opens your first message",
            issue.number, issue.title
        ));
    }
    lines
}

impl View {
    /// Picks option `at` of a question that takes several, or unpicks it.
    pub(crate) fn toggle_picked(&mut self, at: usize) {
        match self.picked.iter().position(|p| *p == at) {
            Some(i) => {
                self.picked.remove(i);
            }
            None => self.picked.push(at),
        }
    }

    /// Takes one event of the session.
    pub(crate) fn take(&mut self, event: &Event) {
        match event {
            Event::Ready(ready) => {
                self.dock.cwd = ready.cwd.clone();
                self.session_id = ready.session_id.clone();
                self.writes = Writes {
                    github: ready.github_writes,
                    read_only: ready.read_only,
                };
                for line in ready.started.iter().flat_map(|s| started_lines(s)) {
                    self.transcript.push(Cell::Note(line));
                }
            }
            Event::StateChanged(state) => {
                self.dock.model = state.model.as_ref().map(|m| m.id.clone());
                if let Some(window) = state.model.as_ref().and_then(|m| m.context_window) {
                    self.dock.context_window = Some(window);
                }
                self.dock.mode = format!("{:?}", state.mode).to_lowercase();
                self.dock.streaming = state.streaming;
            }
            Event::SessionRestored(restored) => {
                for message in &restored.messages {
                    if message.role == "user" && !message.text.is_empty() {
                        self.transcript.push(Cell::User(message.text.clone()));
                    } else if !message.text.is_empty() {
                        self.transcript.push(Cell::Answer(message.text.clone()));
                    }
                    for call in &message.tool_calls {
                        self.transcript.push(Cell::Tool(ToolCell {
                            call_id: call.id.clone(),
                            title: format!("{} {}", call.name, brief(&call.input)),
                            body: String::new(),
                            ended: Some("ok".into()),
                        }));
                    }
                }
                if !restored.messages.is_empty() {
                    let plural = if restored.turns == 1 { "" } else { "s" };
                    self.transcript.push(Cell::Note(format!(
                        "resumed: {} turn{plural}, ${:.4}",
                        restored.turns, restored.cost_usd
                    )));
                }
            }
            Event::UserMessageQueued(queued) => self.queued.push(queued.text.clone()),
            Event::UserMessageWithdrawn(withdrawn) => {
                let at = usize::try_from(withdrawn.position).unwrap_or(usize::MAX);
                if (1..=self.queued.len()).contains(&at) {
                    self.queued.remove(at - 1);
                }
            }
            Event::TurnStarted(_) if !self.queued.is_empty() => {
                self.queued.remove(0);
            }
            Event::TokenDelta(delta) => self.transcript.answer_delta(&delta.delta),
            Event::ThinkingDelta(delta) => self.transcript.thinking_delta(&delta.delta),
            Event::ToolStarted(started) => {
                self.transcript.push(Cell::Tool(ToolCell {
                    call_id: started.call_id.clone(),
                    title: tool_title(&started.title),
                    body: String::new(),
                    ended: None,
                }));
            }
            Event::ToolOutputDelta(delta) => {
                self.transcript
                    .tool(&delta.call_id, |tool| tool.body.push_str(&delta.chunk));
            }
            Event::ToolFinished(finished) => {
                let ended = match finished.status {
                    ToolStatus::Ok => "ok",
                    ToolStatus::Error => "error",
                    ToolStatus::Denied => "denied",
                    ToolStatus::Interrupted => "interrupted",
                };
                self.transcript.tool(&finished.call_id, |tool| {
                    tool.ended = Some(ended.to_owned());
                    match (&finished.diff, finished.status) {
                        (Some(diff), _) => tool.body = diff.clone(),
                        (None, ToolStatus::Ok) if !tool.body.is_empty() => {}
                        (None, _) => tool.body = finished.output.clone(),
                    }
                });
            }
            Event::PermissionRequested(asked) => self.permissions.push_back(asked.clone()),
            Event::PermissionResolved(resolved) => {
                self.permissions.retain(|p| p.id != resolved.id);
            }
            Event::QuestionAsked(asked) => {
                self.question = Some(asked.clone());
                self.picked.clear();
                self.question_at = 0;
            }
            Event::QuestionResolved(resolved)
                if self.question.as_ref().is_some_and(|q| q.id == resolved.id) =>
            {
                self.question = None;
            }
            Event::TurnUsage(usage) => {
                self.dock.context_tokens = usage.context_tokens;
                if usage.context_window.is_some() {
                    self.dock.context_window = usage.context_window;
                }
                self.dock.cost_usd = usage.session_cost_usd;
                let cost = usage
                    .cost_usd
                    .map_or_else(|| "cost unknown".to_owned(), |c| format!("${c:.4}"));
                self.transcript.push(Cell::Note(format!(
                    "{} in, {} out, {cost}",
                    usage.prompt_tokens, usage.completion_tokens
                )));
            }
            Event::TurnEnded(ended) => match (&ended.reason, &ended.error) {
                (_, Some(error)) => self.transcript.push(Cell::Error(error.clone())),
                (TurnEndReason::Interrupted, None) => {
                    self.transcript.push(Cell::Note("interrupted".into()));
                }
                (TurnEndReason::MaxTokens, None) => {
                    self.transcript
                        .push(Cell::Note("the answer reached its token limit".into()));
                }
                _ => {}
            },
            Event::ModelRetrying(retry) => self.transcript.push(Cell::Note(format!(
                "retrying in {:.1}s (attempt {}): {}",
                retry.delay_ms as f64 / 1000.0,
                retry.attempt,
                retry.reason
            ))),
            Event::CompactionStarted(_) => {
                self.transcript
                    .push(Cell::Note("compacting the conversation…".into()));
            }
            Event::CompactionEnded(ended) => self.transcript.push(Cell::Note(match &ended.error {
                Some(error) => format!("compaction failed: {error}"),
                None => format!(
                    "compacted: {} → {} tokens",
                    ended.tokens_before, ended.tokens_after
                ),
            })),
            Event::Error(error) => self.transcript.push(Cell::Error(error.message.clone())),
            Event::ActionRejected(rejected) => {
                self.transcript.push(Cell::Error(rejected.reason.clone()));
            }
            Event::WorkspaceUpdated(workspace) => {
                self.dock.workspace = Some((**workspace).clone());
            }
            Event::ModelsListed(listed) => {
                let entries = (listed.models.iter())
                    .map(|model| Entry {
                        label: format!("{}  {}", model.id, model.name),
                        unavailable: (!model.available).then(|| {
                            let hint = listed
                                .providers
                                .iter()
                                .find(|p| p.provider == model.provider);
                            hint.and_then(|p| p.hint.clone())
                                .unwrap_or_else(|| format!("{} is not configured", model.provider))
                        }),
                        pick: Pick::Model(model.id.clone()),
                    })
                    .collect();
                self.picker = Some(Picker::new(
                    "Switch the model (Enter takes, Esc closes, typing narrows)",
                    entries,
                ));
            }
            Event::SessionsListed(listed) if listed.sessions.is_empty() => {
                let none = "no sessions stored for this directory".to_owned();
                self.transcript.push(Cell::Note(none));
            }
            Event::SessionsListed(listed) => {
                let entries = (listed.sessions.iter())
                    .map(|session| {
                        let plural = if session.turns == 1 { "" } else { "s" };
                        let title = if session.title.is_empty() {
                            "(no message)"
                        } else {
                            &session.title
                        };
                        Entry {
                            label: format!(
                                "{title}  · {} turn{plural}, ${:.4}  {}",
                                session.turns, session.cost_usd, session.id
                            ),
                            unavailable: None,
                            pick: Pick::Session(session.id.clone()),
                        }
                    })
                    .collect();
                self.picker = Some(Picker::new(
                    "Resume a session here, newest first (Enter resumes, Esc closes)",
                    entries,
                ));
            }
            _ => {}
        }
    }
}

/// A call's title as its cell shows it: an MCP tool (`mcp__server__tool …`) by its server and
/// its name.
fn tool_title(title: &str) -> String {
    let Some(rest) = title.strip_prefix("mcp__") else {
        return title.to_owned();
    };
    match rest.split_once("__") {
        Some((server, tool)) => format!("{server} › {tool}"),
        None => title.to_owned(),
    }
}

/// A tool input in a few words (its path, command or pattern).
fn brief(input: &serde_json::Value) -> String {
    ["path", "command", "pattern", "question"]
        .iter()
        .find_map(|key| input.get(key).and_then(serde_json::Value::as_str))
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::tool_title;

    #[test]
    fn an_mcp_tool_is_shown_by_its_server_and_name() {
        assert_eq!(
            tool_title("mcp__github__create_issue"),
            "github › create_issue"
        );
        assert_eq!(tool_title("mcp__fs__read a.txt"), "fs › read a.txt");
        assert_eq!(tool_title("bash ls"), "bash ls");
        assert_eq!(tool_title("mcp__odd"), "mcp__odd");
    }
}
