//! Small enumerations shared by actions and events.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the agent may do: `build` has every tool, `plan` only the read-only ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Every tool.
    #[default]
    Build,
    /// Read-only tools, for planning.
    Plan,
}

/// Reasoning effort, mapped to each provider's own setting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Thinking {
    /// No extended reasoning.
    #[default]
    Off,
    /// The smallest budget: 2,048 reasoning tokens with Anthropic, `low` effort with OpenAI.
    Low,
    /// A moderate budget: more than low, less than high.
    Medium,
    /// The largest budget: 24,576 reasoning tokens with Anthropic (kept below `max_tokens`), `high`
    /// effort with OpenAI.
    High,
}

/// How much runs without asking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PermissionMode {
    /// Reads inside cwd run; edits and bash ask.
    #[default]
    Default,
    /// Edits inside cwd run too.
    AcceptEdits,
    /// Nothing asks (`--yolo`); deny rules still hold.
    Bypass,
    /// Only read tools; no GitHub writes (`--read-only`).
    ReadOnly,
}

impl PermissionMode {
    /// The name used on the command line and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "accept-edits",
            Self::Bypass => "bypass",
            Self::ReadOnly => "read-only",
        }
    }

    /// Parses a name as [`Self::as_str`] writes it.
    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::Default,
            Self::AcceptEdits,
            Self::Bypass,
            Self::ReadOnly,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == name)
    }
}

/// A client's answer to a permission prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PermissionReply {
    /// Allow this call.
    Once,
    /// Allow this call and every later one the shown `always_rule` covers.
    Always,
    /// Deny this call and tell the model why.
    Reject,
}

/// A client's answer to a question: `{"answered":[labels]}`, `{"custom":"text"}` or `"dismissed"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuestionReply {
    /// The labels chosen.
    Answered(Vec<String>),
    /// The user's own words.
    Custom(String),
    /// No answer.
    Dismissed,
}

/// What started a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnSource {
    /// A `submit_user_message` while idle.
    User,
    /// A message queued while an earlier turn ran.
    Queue,
    /// A guided-review comment or fix request.
    Review,
}

/// What started a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompactionTrigger {
    /// The client's `compact`.
    Request,
    /// The next request of a turn would come near the model's context window.
    ContextWindow,
    /// The provider refused a request of a turn as too long for its context window.
    Overflow,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnEndReason {
    /// The model finished.
    EndTurn,
    /// The client's `interrupt_turn` (or `close`) stopped it.
    Interrupted,
    /// The model hit its output limit.
    MaxTokens,
    /// The model declined.
    Refusal,
    /// A failure; `turn_ended.error` says what.
    Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_mode_names_round_trip_and_match_serde() {
        for mode in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Bypass,
            PermissionMode::ReadOnly,
        ] {
            assert_eq!(PermissionMode::parse(mode.as_str()), Some(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
        }
        assert_eq!(PermissionMode::parse("yolo"), None);
    }

    #[test]
    fn question_reply_wire_shapes() {
        let answered: QuestionReply = serde_json::from_str(r#"{"answered":["yes"]}"#).unwrap();
        assert_eq!(answered, QuestionReply::Answered(vec!["yes".into()]));
        let custom: QuestionReply = serde_json::from_str(r#"{"custom":"maybe"}"#).unwrap();
        assert_eq!(custom, QuestionReply::Custom("maybe".into()));
        let dismissed: QuestionReply = serde_json::from_str(r#""dismissed""#).unwrap();
        assert_eq!(dismissed, QuestionReply::Dismissed);
    }
}
