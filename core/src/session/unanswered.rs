//! A turn that ends without the model's answer (an error, an interrupt, a refused request)
//! must not leave the conversation ending in the user's message: the next turn would send two
//! user messages in a row, which chat templates that require alternating roles reject, and
//! every later request would fail the same way. A short note in the model's place closes it.

use crate::model::conversation::{Block, Message, Role};

/// What closes a conversation that ends with `last` after a turn that got no answer: results
/// for the tool calls it has none for, then a note in the model's place saying `why`. Nothing
/// when the model already had the last word.
pub(super) fn closing(last: Option<&Message>, why: &str) -> Vec<Message> {
    let Some(last) = last else {
        return Vec::new();
    };
    let unanswered: Vec<Block> = match last.role {
        Role::User => Vec::new(),
        Role::Assistant => last
            .content
            .iter()
            .filter_map(|b| match b {
                Block::ToolUse { id, .. } => Some(Block::ToolResult {
                    tool_use_id: id.clone(),
                    content: "This call did not run: the turn ended first.".into(),
                    is_error: true,
                    images: Vec::new(),
                }),
                _ => None,
            })
            .collect(),
    };
    if last.role == Role::Assistant && unanswered.is_empty() {
        return Vec::new();
    }
    let mut closing = Vec::new();
    if !unanswered.is_empty() {
        closing.push(Message {
            role: Role::User,
            content: unanswered,
        });
    }
    closing.push(Message {
        role: Role::Assistant,
        content: vec![Block::Text {
            text: format!("[The turn ended without an answer: {why}.]"),
        }],
    });
    closing
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(role: Role, text: &str) -> Message {
        Message {
            role,
            content: vec![Block::Text { text: text.into() }],
        }
    }

    #[test]
    fn a_users_last_word_gets_a_note_in_the_models_place() {
        let closed = closing(Some(&text(Role::User, "hi")), "the model failed");
        assert_eq!(
            closed,
            [text(
                Role::Assistant,
                "[The turn ended without an answer: the model failed.]"
            )]
        );
    }

    #[test]
    fn calls_without_results_get_results_then_the_note() {
        let calls = Message {
            role: Role::Assistant,
            content: vec![
                Block::Text {
                    text: "on it".into(),
                },
                Block::ToolUse {
                    id: "t1".into(),
                    name: "bash".into(),
                    input: json!({"command": "ls"}),
                },
            ],
        };
        let closed = closing(Some(&calls), "interrupted");
        assert_eq!(closed.len(), 2);
        assert_eq!(closed[0].role, Role::User);
        assert!(matches!(
            &closed[0].content[..],
            [Block::ToolResult { tool_use_id, is_error: true, .. }] if tool_use_id == "t1"
        ));
        assert_eq!(closed[1].role, Role::Assistant);
    }

    #[test]
    fn the_models_last_word_or_nothing_needs_no_closing() {
        assert!(closing(Some(&text(Role::Assistant, "done")), "x").is_empty());
        assert!(closing(None, "x").is_empty());
    }
}
