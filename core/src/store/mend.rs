//! A conversation restored from a file that lost lines (an append that failed halfway, a disk
//! that filled and then had room again) can break the rules every provider enforces: a first
//! message that is the model's, two messages of one role in a row, a tool result whose call is
//! gone, a call whose result is gone. Each request would then be refused, and the resumed session could never continue.
//! Mending keeps every message that was read and makes the conversation valid again.

use crate::model::conversation::{Block, Message, Role};

/// What stands where the opening message was lost, so the conversation starts with the person.
pub const LOST_OPENING: &str =
    "[the message that opened this conversation could not be read from the session file]";

/// What the model reads as the result of a call whose result was lost.
pub const LOST_RESULT: &str = "[this call's result could not be read from the session file]";

/// Mends `messages` in place: results of calls that are not in the message before are dropped
/// (a message left empty goes with them), messages of one role in a row become one (results
/// first), a call the next message has no result for gets [`LOST_RESULT`] there (the last
/// message's calls are the next turn's to settle), and a conversation that opens with the
/// model's message gets [`LOST_OPENING`] before it. A conversation that lost nothing is left as
/// it is.
pub fn mend_lost_records(messages: &mut Vec<Message>) {
    drop_orphan_results(messages);
    let mut mended: Vec<Message> = Vec::with_capacity(messages.len());
    for message in messages.drain(..) {
        match mended.last_mut() {
            Some(last) if last.role == message.role => {
                last.content.extend(message.content);
                // Results go first in a message, as providers want them.
                last.content
                    .sort_by_key(|b| !matches!(b, Block::ToolResult { .. }));
            }
            _ => mended.push(message),
        }
    }
    answer_lost_calls(&mut mended);
    if mended.first().is_some_and(|m| m.role == Role::Assistant) {
        mended.insert(
            0,
            Message {
                role: Role::User,
                content: vec![Block::Text {
                    text: LOST_OPENING.to_owned(),
                }],
            },
        );
    }
    *messages = mended;
}

/// Gives each call of a model's message that the next message has no result for a result
/// saying it was lost, before the next message's own content.
fn answer_lost_calls(messages: &mut [Message]) {
    for at in 1..messages.len() {
        let (before, after) = messages.split_at_mut(at);
        let (call, next) = (&before[at - 1], &mut after[0]);
        if call.role != Role::Assistant {
            continue;
        }
        let lost: Vec<Block> = (call.content.iter())
            .filter_map(|b| match b {
                Block::ToolUse { id, .. } if !answers(next, id) => Some(Block::ToolResult {
                    tool_use_id: id.clone(),
                    content: LOST_RESULT.to_owned(),
                    is_error: true,
                    images: Vec::new(),
                }),
                _ => None,
            })
            .collect();
        next.content.splice(0..0, lost);
    }
}

/// Whether `message` holds the result of call `id`.
fn answers(message: &Message, id: &str) -> bool {
    (message.content.iter())
        .any(|b| matches!(b, Block::ToolResult { tool_use_id, .. } if tool_use_id == id))
}

/// Drops each tool result whose call is not in the message right before it.
fn drop_orphan_results(messages: &mut Vec<Message>) {
    let mut calls: Vec<String> = Vec::new();
    messages.retain_mut(|message| {
        let before = std::mem::take(&mut calls);
        match message.role {
            Role::Assistant => {
                calls = (message.content.iter())
                    .filter_map(|b| match b {
                        Block::ToolUse { id, .. } => Some(id.clone()),
                        _ => None,
                    })
                    .collect();
                true
            }
            Role::User => {
                let had = message.content.len();
                message.content.retain(|b| match b {
                    Block::ToolResult { tool_use_id, .. } => before.contains(tool_use_id),
                    _ => true,
                });
                had == 0 || !message.content.is_empty()
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::compaction::tests::{call, result, text, valid};

    /// The conversation of two turns, one with a tool call.
    fn whole() -> Vec<Message> {
        vec![
            text(Role::User, "read a"),
            call("t1"),
            result("t1", "a"),
            text(Role::Assistant, "done"),
            text(Role::User, "thanks"),
            text(Role::Assistant, "welcome"),
        ]
    }

    /// Whether providers would take it: valid, each message's results first in it, and every
    /// call answered by the next message (the last message's calls are the next turn's).
    fn taken(messages: &[Message]) -> bool {
        let is_result = |b: &Block| matches!(b, Block::ToolResult { .. });
        let results_first = (messages.iter()).all(|m| {
            m.content
                .iter()
                .skip_while(|b| is_result(b))
                .all(|b| !is_result(b))
        });
        let calls_answered = messages.windows(2).all(|pair| {
            pair[0].content.iter().all(|b| match b {
                Block::ToolUse { id, .. } => answers(&pair[1], id),
                _ => true,
            })
        });
        messages.is_empty() || (valid(messages) && results_first && calls_answered)
    }

    #[test]
    fn a_conversation_that_lost_nothing_is_left_as_it_is() {
        let mut messages = whole();
        mend_lost_records(&mut messages);
        assert_eq!(messages, whole());
    }

    #[test]
    fn a_lost_opening_is_stood_for_and_a_lost_call_takes_its_result_with_it() {
        let mut messages = whole()[1..].to_vec();
        mend_lost_records(&mut messages);
        assert_eq!(messages[0], text(Role::User, LOST_OPENING));
        assert!(taken(&messages), "{messages:?}");
        let mut messages = whole();
        messages.remove(1);
        mend_lost_records(&mut messages);
        assert!(taken(&messages), "{messages:?}");
        assert_eq!(
            messages[0],
            text(Role::User, "read a"),
            "nothing read is dropped"
        );
    }

    #[test]
    fn a_lost_result_is_stood_for_where_the_model_reads_it() {
        let mut messages = whole();
        messages.remove(2);
        mend_lost_records(&mut messages);
        assert!(taken(&messages), "{messages:?}");
        assert!(
            matches!(&messages[2].content[0],
                Block::ToolResult { tool_use_id, content, is_error: true, .. }
                    if tool_use_id == "t1" && content == LOST_RESULT),
            "{messages:?}"
        );
    }

    quickcheck::quickcheck! {
        fn any_lines_lost_leave_a_conversation_providers_take(lost: Vec<bool>) -> bool {
            let mut messages: Vec<Message> = (whole().into_iter())
                .chain(whole())
                .zip(lost.into_iter().chain(std::iter::repeat(false)))
                .filter(|(_, lost)| !lost)
                .map(|(m, _)| m)
                .collect();
            let texts = |m: &[Message]| m.iter().flat_map(|m| &m.content)
                .filter(|b| matches!(b, Block::Text { .. })).count();
            let before = texts(&messages);
            mend_lost_records(&mut messages);
            taken(&messages) && texts(&messages) >= before
        }
    }
}
