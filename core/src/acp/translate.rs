//! A session's events as ACP sees them: `session/update`s, and the few events the host acts on
//! itself (a turn's start and end, a permission prompt, new settings).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::protocol::events::{
    ActionRejected, CompactionEnded, Event, PermissionRequested, PlanStatus, QuestionAsked,
    SessionRestored, StateChanged, ToolFinished, ToolStarted, ToolStatus, TurnUsage,
};
use crate::protocol::values::{PermissionReply, TurnEndReason};

/// What one event means to the host.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// Send this `update` for the session.
    Update(Value),
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
        /// Why.
        reason: TurnEndReason,
        /// With `error`: the sentence.
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
    /// Output so far (a bash call's, streamed).
    output: String,
}

/// Turns one session's events into [`Step`]s.
#[derive(Debug, Clone, Default)]
pub(crate) struct Translator {
    cwd: String,
    calls: HashMap<String, Call>,
    /// Open permission prompts: prompt id → the call waiting.
    prompts: HashMap<String, String>,
    /// Whether a restored conversation is drawn (`session/load`) or not (`resume`).
    replay: bool,
}

impl Translator {
    /// A translator for a session in `cwd` (tool paths are shown absolute) that draws a
    /// restored conversation when `replay`.
    pub(crate) fn new(cwd: &str, replay: bool) -> Self {
        Self {
            cwd: cwd.to_owned(),
            calls: HashMap::new(),
            prompts: HashMap::new(),
            replay,
        }
    }

    /// What `event` means.
    pub(crate) fn steps(&mut self, event: &Event) -> Vec<Step> {
        match event {
            Event::TokenDelta(delta) => {
                vec![Step::Update(chunk("agent_message_chunk", &delta.delta))]
            }
            Event::ThinkingDelta(delta) => {
                vec![Step::Update(chunk("agent_thought_chunk", &delta.delta))]
            }
            Event::ToolStarted(started) => vec![Step::Update(self.tool_started(started))],
            Event::ToolOutputDelta(delta) => {
                let Some(call) = self.calls.get_mut(&delta.call_id) else {
                    return Vec::new();
                };
                call.running = true;
                call.output.push_str(&delta.chunk);
                vec![Step::Update(json!({
                    "sessionUpdate": "tool_call_update", "toolCallId": delta.call_id,
                    "status": "in_progress", "content": [text_content(&call.output)],
                }))]
            }
            Event::ToolFinished(finished) => self.tool_finished(finished),
            Event::PermissionRequested(asked) => vec![self.ask(asked)],
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
            Event::TurnUsage(usage) => vec![Step::Update(usage_update(usage))],
            Event::TurnStarted(_) => vec![Step::TurnStarted],
            Event::TurnEnded(ended) => {
                self.calls.clear();
                self.prompts.clear();
                vec![Step::TurnEnded {
                    reason: ended.reason,
                    error: ended.error.clone(),
                }]
            }
            Event::CompactionEnded(ended) if ended.request_id.is_some() => {
                vec![Step::Compacted(ended.clone())]
            }
            Event::StateChanged(state) => vec![Step::State(state.clone())],
            Event::ActionRejected(rejected) => vec![Step::Rejected(rejected.clone())],
            Event::QuestionAsked(asked) => vec![Step::Question(asked.clone())],
            Event::QuestionResolved(resolved) => vec![Step::QuestionSettled(resolved.id.clone())],
            Event::SessionRestored(restored) if self.replay => self
                .replay(restored)
                .into_iter()
                .map(Step::Update)
                .collect(),
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
                output: String::new(),
            },
        );
        json!({
            "sessionUpdate": "tool_call", "toolCallId": started.call_id, "title": started.title,
            "kind": kind(&started.name), "status": "pending", "rawInput": started.input,
            "locations": self.locations(&started.input),
        })
    }

    fn ask(&mut self, asked: &PermissionRequested) -> Step {
        self.prompts.insert(asked.id.clone(), asked.call_id.clone());
        let input = self
            .calls
            .get(&asked.call_id)
            .map_or(Value::Null, |c| c.input.clone());
        Step::Ask {
            perm_id: asked.id.clone(),
            tool_call: json!({
                "toolCallId": asked.call_id, "title": asked.title, "kind": kind(&asked.tool),
                "status": "pending", "rawInput": input, "locations": self.locations(&input),
                "content": [text_content(&asked.detail)],
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
            && let Some(diff) = self.diff(&call.name, &call.input)
        {
            content.push(diff);
        }
        steps.push(Step::Update(json!({
            "sessionUpdate": "tool_call_update", "toolCallId": finished.call_id,
            "status": status, "content": content,
        })));
        steps
    }

    /// A write's or an edit's change as ACP draws it.
    fn diff(&self, tool: &str, input: &Value) -> Option<Value> {
        let path = self.absolute(input.get("path")?.as_str()?);
        match tool {
            "write" => Some(json!({
                "type": "diff", "path": path, "oldText": null, "newText": input.get("content")?,
            })),
            "edit" => Some(json!({
                "type": "diff", "path": path, "oldText": input.get("old_text")?,
                "newText": input.get("new_text")?,
            })),
            _ => None,
        }
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
    fn replay(&self, restored: &SessionRestored) -> Vec<Value> {
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
                    "user_message_chunk"
                } else {
                    "agent_message_chunk"
                };
                updates.push(chunk(kind, &message.text));
            }
            for call in &message.tool_calls {
                let (output, failed) = results.get(call.id.as_str()).copied().unwrap_or(("", true));
                updates.push(json!({
                    "sessionUpdate": "tool_call", "toolCallId": call.id, "title": call.name,
                    "kind": kind(&call.name), "status": if failed { "failed" } else { "completed" },
                    "rawInput": call.input, "locations": self.locations(&call.input),
                    "content": [text_content(output)],
                }));
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

fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
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
mod tests {
    use super::*;
    use crate::protocol::events::{
        OutputStream, PermissionResolved, ResolvedBy, TokenDelta, ToolOutputDelta,
    };

    fn started(call: &str, name: &str, input: Value) -> Event {
        Event::ToolStarted(ToolStarted {
            call_id: call.into(),
            name: name.into(),
            title: format!("{name} x"),
            input,
        })
    }

    fn updates(steps: Vec<Step>) -> Vec<Value> {
        steps
            .into_iter()
            .filter_map(|s| match s {
                Step::Update(u) => Some(u),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_tool_call_goes_pending_in_progress_completed_with_its_diff() {
        let mut t = Translator::new("/w", true);
        let input = json!({"path": "a.rs", "old_text": "a", "new_text": "b"});
        let call = updates(t.steps(&started("call_1", "edit", input)));
        assert_eq!(call[0]["kind"], "edit");
        assert_eq!(call[0]["status"], "pending");
        assert_eq!(call[0]["locations"][0]["path"], "/w/a.rs");
        let done = updates(t.steps(&Event::ToolFinished(ToolFinished {
            call_id: "call_1".into(),
            status: ToolStatus::Ok,
            output: "edited".into(),
            diff: None,
        })));
        assert_eq!(done[0]["status"], "in_progress");
        assert_eq!(done[1]["status"], "completed");
        assert_eq!(
            done[1]["content"][1],
            json!({"type": "diff", "path": "/w/a.rs", "oldText": "a", "newText": "b"})
        );
    }

    #[test]
    fn a_denied_call_fails_and_output_streams() {
        let mut t = Translator::new("/w", true);
        t.steps(&started("call_1", "bash", json!({"command": "ls"})));
        t.steps(&Event::PermissionRequested(PermissionRequested {
            id: "perm_1".into(),
            call_id: "call_1".into(),
            tool: "bash".into(),
            title: "ls".into(),
            detail: "ls".into(),
            always_rule: "bash(ls)".into(),
        }));
        let granted = t.steps(&Event::PermissionResolved(PermissionResolved {
            id: "perm_1".into(),
            reply: PermissionReply::Once,
            by: ResolvedBy::Client,
        }));
        assert_eq!(granted[0], Step::Settled("perm_1".into()));
        assert_eq!(updates(granted)[0]["status"], "in_progress");
        for chunk in ["a", "b"] {
            t.steps(&Event::ToolOutputDelta(ToolOutputDelta {
                call_id: "call_1".into(),
                stream: OutputStream::Stdout,
                chunk: chunk.into(),
            }));
        }
        assert_eq!(t.calls["call_1"].output, "ab");
        t.steps(&started(
            "call_2",
            "write",
            json!({"path": "/x", "content": "c"}),
        ));
        let failed = updates(t.steps(&Event::ToolFinished(ToolFinished {
            call_id: "call_2".into(),
            status: ToolStatus::Denied,
            output: "denied".into(),
            diff: None,
        })));
        assert_eq!(failed.last().unwrap()["status"], "failed");
        assert_eq!(
            failed.last().unwrap()["content"].as_array().unwrap().len(),
            1
        );
    }

    #[test]
    fn deltas_are_chunks() {
        let mut t = Translator::new("/w", true);
        let steps = t.steps(&Event::ThinkingDelta(TokenDelta {
            block: 0,
            delta: "hm".into(),
        }));
        assert_eq!(updates(steps)[0]["sessionUpdate"], "agent_thought_chunk");
    }
}
