//! A turn that ends without the model's answer (an error, an interrupt, a refused request)
//! must not leave the conversation ending in the user's message: the next turn would send two
//! user messages in a row, which chat templates that require alternating roles reject, and
//! every later request would fail the same way. A short note in the model's place closes it.

use crate::model::conversation::{Block, Message, Role};

use super::Session;

impl Session {
    /// Closes the model's view after a turn that got no answer: results for tool calls that
    /// have none, then a note in the model's place saying why there was no answer.
    pub(super) fn settle_unanswered(&mut self, why: &str) {
        let Some(last) = self.conversation.messages().last() else {
            return;
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
            return;
        }
        if !unanswered.is_empty() {
            self.remember(Message {
                role: Role::User,
                content: unanswered,
            });
        }
        self.remember(Message {
            role: Role::Assistant,
            content: vec![Block::Text {
                text: format!("[The turn ended without an answer: {why}.]"),
            }],
        });
    }
}
