//! A session's events as ACP sees them: `session/update`s, and the few events the host acts on
//! itself (a turn's start and end, a permission prompt, new settings).
//!
//! A running command's output: ACP's `tool_call_update` replaces the call's whole `content`,
//! so an update per chunk carrying everything so far would cost the square of the output.
//! Each update carries only the last [`RUNNING_TAIL_BYTES`] (after a line saying how much came
//! before), and the host sends them at its own pace ([`Step::OutputGrew`]); the final update
//! carries the output as the model was told it.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::guided_review::unified::{Direction, apply};
use crate::protocol::events::{
    ActionRejected, CompactionEnded, Event, FileBefore, PermissionRequested, PlanStatus,
    QuestionAsked, SessionRestored, StateChanged, ToolFinished, ToolStarted, ToolStatus, TurnUsage,
};
use crate::protocol::values::{PermissionReply, TurnEndReason};

use crate::effects::ChunkKind;

/// What one event means to the host.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// Send this `update` for the session.
    Update(Value),
    /// Send this text chunk for the session.
    Chunk(ChunkKind, String),
    /// A running call's output grew: the host sends [`Translator::running_output`] when its
    /// pace allows.
    OutputGrew,
    /// Ask the client: `session/request_permission` for prompt `perm_id`.
    Ask {
        /// The prompt's id, for `respond_permission`.
        perm_id: String,
        /// The `toolCall` (a `ToolCallUpdate`).
        tool_call: Value,
        /// The rule an `allow_always` adds.
        always_rule: String,
    },
    /// Prompt `perm_id` is settled, by the client or otherwise.
    Settled(String),
    /// A turn began.
    TurnStarted,
    /// The running turn ended.
    TurnEnded {
        /// Why, as `turn_ended` said; the prompt's `stopReason` is made from it (`interrupted` is
        /// `cancelled`, `error` answers the prompt with an error).
        reason: TurnEndReason,
        /// With reason `error`: what failed, in words for a person (`turn_ended.error`); else
        /// `None`.
        error: Option<String>,
    },
    /// A `compact` run ended.
    Compacted(CompactionEnded),
    /// The session's settings now.
    State(StateChanged),
    /// An action was refused.
    Rejected(ActionRejected),
    /// The agent asked a question (`ask_user`).
    Question(QuestionAsked),
    /// A question was settled, by the client or otherwise.
    QuestionSettled(String),
}

/// A tool call as far as the client has heard of it.
#[derive(Debug, Clone)]
struct Call {
    name: String,
    input: Value,
    /// Whether `in_progress` went out.
    running: bool,
    /// The end of the output so far (a bash call's, streamed).
    output: Tail,
    /// Whether output came since the client last saw it.
    fresh: bool,
}

/// The most of a running call's output one `tool_call_update` shows: its last 8 KiB.
pub(crate) const RUNNING_TAIL_BYTES: usize = 8 * 1024;

/// The end of a running call's output: what an update shows, and how much came before it.
#[derive(Debug, Clone, Default)]
struct Tail {
    text: String,
    /// Bytes dropped from the front of `text`.
    cut: usize,
}

impl Tail {
    fn push(&mut self, chunk: &str) {
        self.text.push_str(chunk);
        // Trimmed only past twice what is shown, so each byte is moved a bounded number of times.
        if self.text.len() > 2 * RUNNING_TAIL_BYTES {
            let at = boundary_after(&self.text, self.text.len() - RUNNING_TAIL_BYTES);
            self.text.drain(..at);
            self.cut += at;
        }
    }

    /// The last [`RUNNING_TAIL_BYTES`] at most, after a line saying how much is left out.
    fn shown(&self) -> String {
        let at = boundary_after(
            &self.text,
            self.text.len().saturating_sub(RUNNING_TAIL_BYTES),
        );
        match self.cut + at {
            0 => self.text.clone(),
            cut => format!(
                "[{cut} bytes of earlier output not shown]\n{}",
                &self.text[at..]
            ),
        }
    }
}

/// The first character boundary of `text` at or after `at`.
fn boundary_after(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Turns one session's events into [`Step`]s.
#[derive(Debug, Clone, Default)]
pub(crate) struct Translator {
    cwd: String,
    /// Ordered, so that output of several calls goes out in a fixed order.
    calls: BTreeMap<String, Call>,
    /// Open permission prompts: prompt id → the call waiting.
    prompts: HashMap<String, String>,
    /// Whether a restored conversation is drawn (`session/load`) or not (`resume`).
    replay: bool,
}

/// An event as the host first sorts it: a streamed token, or anything else.
pub(crate) enum Sorted {
    /// A token's text and whose it is: what comes thousands of times a second, taken
    /// straight to its chunk with no list of steps to build.
    Chunk(ChunkKind, String),
    /// Every other event, for [`Translator::steps`].
    Other(Event),
}

/// Sorts `event`: a token or thinking delta goes straight to its chunk, every other event to
/// [`Translator::steps`].
pub(crate) fn sort(event: Event) -> Sorted {
    match event {
        Event::TokenDelta(delta) => Sorted::Chunk(ChunkKind::Agent, delta.delta),
        Event::ThinkingDelta(delta) => Sorted::Chunk(ChunkKind::Thought, delta.delta),
        other => Sorted::Other(other),
    }
}

impl Translator {
    /// A translator for a session in `cwd` (tool paths are shown absolute) that draws a
    /// restored conversation when `replay`.
    pub(crate) fn new(cwd: &str, replay: bool) -> Self {
        Self {
            cwd: cwd.to_owned(),
            calls: BTreeMap::new(),
            prompts: HashMap::new(),
            replay,
        }
    }

    /// What `event` means.
    pub(crate) fn steps(&mut self, event: Event) -> Vec<Step> {
        let event = match sort(event) {
            Sorted::Chunk(kind, text) => return vec![Step::Chunk(kind, text)],
            Sorted::Other(event) => event,
        };
        match event {
            Event::ToolStarted(started) => vec![Step::Update(self.tool_started(&started))],
            Event::ToolOutputDelta(delta) => {
                let Some(call) = self.calls.get_mut(&delta.call_id) else {
                    return Vec::new();
                };
                call.output.push(&delta.chunk);
                call.fresh = true;
                vec![Step::OutputGrew]
            }
            Event::ToolFinished(finished) => self.tool_finished(&finished),
            Event::PermissionRequested(asked) => vec![self.ask(&asked)],
            Event::PermissionResolved(resolved) => {
                let mut steps = vec![Step::Settled(resolved.id.clone())];
                if resolved.reply == PermissionReply::Reject {
                    self.prompts.remove(&resolved.id);
                } else {
                    steps.extend(self.permission_granted(&resolved.id));
                }
                steps
            }
            Event::PlanUpdated(plan) => {
                let entries: Vec<Value> = plan
                    .entries
                    .iter()
                    .map(|e| {
                        let status = match e.status {
                            PlanStatus::Pending => "pending",
                            PlanStatus::InProgress => "in_progress",
                            PlanStatus::Done => "completed",
                        };
                        json!({"content": e.content, "priority": "medium", "status": status})
                    })
                    .collect();
                vec![Step::Update(
                    json!({"sessionUpdate": "plan", "entries": entries}),
                )]
            }
            Event::TurnUsage(usage) => vec![Step::Update(usage_update(&usage))],
            Event::TurnStarted(_) => vec![Step::TurnStarted],
            Event::TurnEnded(ended) => {
                self.calls.clear();
                self.prompts.clear();
                vec![Step::TurnEnded {
                    reason: ended.reason,
                    error: ended.error,
                }]
            }
            Event::CompactionEnded(ended) if ended.request_id.is_some() => {
                vec![Step::Compacted(ended)]
            }
            Event::StateChanged(state) => vec![Step::State(state)],
            Event::ActionRejected(rejected) => vec![Step::Rejected(rejected)],
            Event::QuestionAsked(asked) => vec![Step::Question(asked)],
            Event::QuestionResolved(resolved) => vec![Step::QuestionSettled(resolved.id)],
            Event::SessionRestored(restored) if self.replay => self.replay(&restored),
            _ => Vec::new(),
        }
    }

    fn tool_started(&mut self, started: &ToolStarted) -> Value {
        self.calls.insert(
            started.call_id.clone(),
            Call {
                name: started.name.clone(),
                input: started.input.clone(),
                running: false,
                output: Tail::default(),
                fresh: false,
            },
        );
        json!({
            "sessionUpdate": "tool_call", "toolCallId": started.call_id, "title": started.title,
            "kind": kind(&started.name), "status": "pending", "rawInput": started.input,
            "locations": self.locations(&started.input),
        })
    }

    /// An `in_progress` update for each call whose output the client has not seen, with the
    /// end of that output.
    pub(crate) fn running_output(&mut self) -> Vec<Value> {
        self.calls
            .iter_mut()
            .filter(|(_, call)| call.fresh)
            .map(|(id, call)| {
                call.fresh = false;
                call.running = true;
                json!({
                    "sessionUpdate": "tool_call_update", "toolCallId": id,
                    "status": "in_progress", "content": [text_content(&call.output.shown())],
                })
            })
            .collect()
    }

    fn ask(&mut self, asked: &PermissionRequested) -> Step {
        self.prompts.insert(asked.id.clone(), asked.call_id.clone());
        let input = self
            .calls
            .get(&asked.call_id)
            .map_or(Value::Null, |c| c.input.clone());
        let mut content = vec![text_content(&asked.detail)];
        content.extend(
            asked
                .diff
                .as_deref()
                .and_then(|diff| self.asked_diff(&asked.tool, &input, diff)),
        );
        Step::Ask {
            perm_id: asked.id.clone(),
            tool_call: json!({
                "toolCallId": asked.call_id, "title": asked.title, "kind": kind(&asked.tool),
                "status": "pending", "rawInput": input, "locations": self.locations(&input),
                "content": content,
            }),
            always_rule: asked.always_rule.clone(),
        }
    }

    /// The call behind an allowed prompt runs now.
    fn permission_granted(&mut self, perm_id: &str) -> Vec<Step> {
        let Some(call_id) = self.prompts.remove(perm_id) else {
            return Vec::new();
        };
        match self.calls.get_mut(&call_id) {
            Some(call) if !call.running => {
                call.running = true;
                vec![Step::Update(json!({
                    "sessionUpdate": "tool_call_update", "toolCallId": call_id,
                    "status": "in_progress",
                }))]
            }
            _ => Vec::new(),
        }
    }

    fn tool_finished(&mut self, finished: &ToolFinished) -> Vec<Step> {
        let call = self.calls.remove(&finished.call_id);
        let mut steps = Vec::new();
        if call.as_ref().is_some_and(|c| !c.running) {
            steps.push(Step::Update(json!({
                "sessionUpdate": "tool_call_update", "toolCallId": finished.call_id,
                "status": "in_progress",
            })));
        }
        let status = if finished.status == ToolStatus::Ok {
            "completed"
        } else {
            "failed"
        };
        let mut content = vec![text_content(&finished.output)];
        if finished.status == ToolStatus::Ok
            && let Some(call) = &call
            && let Some(diff) = self.diff(&call.name, &call.input, finished.before.as_ref())
        {
            content.push(diff);
        }
        steps.push(Step::Update(json!({
            "sessionUpdate": "tool_call_update", "toolCallId": finished.call_id,
            "status": status, "content": content,
        })));
        steps
    }

    /// A write's or an edit's change as ACP draws it. ACP's `oldText: null` means "created",
    /// so a write says it only when its file was absent, shows the text it replaced otherwise,
    /// and shows no diff when that text is not known.
    fn diff(&self, tool: &str, input: &Value, before: Option<&FileBefore>) -> Option<Value> {
        let path = self.absolute(input.get("path")?.as_str()?);
        match tool {
            "write" => {
                let old = match before? {
                    FileBefore::Absent => Value::Null,
                    FileBefore::Text { text } => json!(text),
                    FileBefore::Unshown => return None,
                };
                Some(json!({
                    "type": "diff", "path": path, "oldText": old,
                    "newText": input.get("content")?,
                }))
            }
            "edit" => Some(json!({
                "type": "diff", "path": path, "oldText": input.get("old_text")?,
                "newText": input.get("new_text")?,
            })),
            _ => None,
        }
    }

    /// The change a prompt shows (`diff`, `permission_requested.diff`) as ACP draws it, the
    /// same as the call's end will: an edit's texts from its input; a write's old text is the
    /// diff applied backwards to its content (`null` when the diff creates the file).
    fn asked_diff(&self, tool: &str, input: &Value, diff: &str) -> Option<Value> {
        let before = match tool {
            "write" if diff.starts_with("--- /dev/null\n") => Some(FileBefore::Absent),
            "write" => {
                let content = input.get("content")?.as_str()?;
                let text = apply(diff, content, Direction::Backward)?;
                Some(FileBefore::Text { text })
            }
            _ => None,
        };
        self.diff(tool, input, before.as_ref())
    }

    fn locations(&self, input: &Value) -> Vec<Value> {
        let Some(path) = input.get("path").and_then(Value::as_str) else {
            return Vec::new();
        };
        let mut location = json!({"path": self.absolute(path)});
        if let Some(line) = input.get("offset").and_then(Value::as_u64) {
            location["line"] = json!(line);
        }
        vec![location]
    }

    fn absolute(&self, path: &str) -> String {
        if path.starts_with('/') {
            path.to_owned()
        } else {
            format!("{}/{}", self.cwd.trim_end_matches('/'), path)
        }
    }

    /// A stored conversation as the updates that draw it, oldest first.
    fn replay(&self, restored: &SessionRestored) -> Vec<Step> {
        let results: BTreeMap<&str, (&str, bool)> = restored
            .messages
            .iter()
            .flat_map(|m| &m.tool_results)
            .map(|r| (r.tool_use_id.as_str(), (r.content.as_str(), r.is_error)))
            .collect();
        let mut updates = Vec::new();
        for message in &restored.messages {
            let user = message.role == "user";
            if !message.text.is_empty() {
                let kind = if user {
                    ChunkKind::User
                } else {
                    ChunkKind::Agent
                };
                updates.push(Step::Chunk(kind, message.text.clone()));
            }
            for call in &message.tool_calls {
                let (output, failed) = results.get(call.id.as_str()).copied().unwrap_or(("", true));
                updates.push(Step::Update(json!({
                    "sessionUpdate": "tool_call", "toolCallId": call.id, "title": call.name,
                    "kind": kind(&call.name), "status": if failed { "failed" } else { "completed" },
                    "rawInput": call.input, "locations": self.locations(&call.input),
                    "content": [text_content(output)],
                })));
            }
        }
        updates
    }
}

/// ACP's `ToolKind` of a Luxe tool.
fn kind(tool: &str) -> &'static str {
    match tool {
        "read" => "read",
        "write" | "edit" => "edit",
        "bash" => "execute",
        "grep" | "glob" => "search",
        "update_plan" | "ask_user" => "think",
        _ => "other",
    }
}

fn text_content(text: &str) -> Value {
    json!({"type": "content", "content": {"type": "text", "text": text}})
}

fn usage_update(usage: &TurnUsage) -> Value {
    let mut update = json!({
        "sessionUpdate": "usage_update", "used": usage.context_tokens,
        "size": usage.context_window.unwrap_or(0),
    });
    if let Some(cost) = usage.session_cost_usd {
        update["cost"] = json!({"amount": cost, "currency": "USD"});
    }
    update
}

#[cfg(test)]
mod tests;
