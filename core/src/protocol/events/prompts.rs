//! What waits for the client in a turn: permission prompts and questions, asked and settled.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::protocol::values::{PermissionReply, QuestionReply};

/// Who settled a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResolvedBy {
    /// The client's `respond_permission` or `answer_question`.
    Client,
    /// A rule, without asking.
    Rule,
    /// Auto-approve (`--auto-approve` or `set_permission_auto_approve`), as `once`.
    AutoApprove,
    /// The turn was interrupted (`interrupt_turn` or `close`) while it waited: a permission is
    /// `reject`ed, a question `dismissed`.
    Interrupt,
}

/// `permission_requested`: a call the rules leave as ask waits for `respond_permission`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRequested {
    /// `perm_1`, … — echo it in `respond_permission`.
    pub id: String,
    /// The tool call waiting.
    pub call_id: String,
    /// The tool's name, as in `tool_started`.
    pub tool: String,
    /// A one-line summary.
    pub title: String,
    /// What exactly would happen (the command, the path). For a `write` or an `edit` without
    /// `diff`, a second line says why its change is not shown.
    pub detail: String,
    /// The rule an `always` reply adds for this session.
    pub always_rule: String,
    /// For a `write` or an `edit`: the change it would make, as a unified diff in the form of
    /// `tool_finished.diff` (hunk headers carry the real line numbers), against the file as it
    /// is when asked. Absent when the file cannot be shown (larger than 4 MiB, not UTF-8
    /// text, unreadable) or the edit cannot be made (its `old_text` is not in the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// `permission_resolved`: a permission prompt was settled, and by whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionResolved {
    /// The `id` of the `permission_requested` it settles.
    pub id: String,
    /// What was decided: the client's reply, `once` for auto-approve, `reject` when the turn was
    /// interrupted.
    pub reply: PermissionReply,
    /// Who made it.
    pub by: ResolvedBy,
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionOption {
    /// What is chosen.
    pub label: String,
    /// More about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `question_asked`: the model asks the user (`ask_user`); the turn waits for `answer_question`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionAsked {
    /// `q_1`, … — echo it in `answer_question`.
    pub id: String,
    /// The `ask_user` call waiting.
    pub call_id: String,
    /// The question's text, as the model wrote it.
    pub question: String,
    /// The choices the model offered, in its order; an `answered` reply names them by `label`.
    pub options: Vec<QuestionOption>,
    /// Whether several may be chosen.
    pub multiple: bool,
}

/// `question_resolved`: a question was answered or dismissed, and by whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionResolved {
    /// The `id` of the `question_asked` it settles.
    pub id: String,
    /// The labels chosen, the user's own words, or `dismissed` (also when the turn was
    /// interrupted).
    pub reply: QuestionReply,
    /// Who gave it.
    pub by: ResolvedBy,
}
