//! The view after compaction is always a valid conversation; transcripts cut where they should.

use super::*;
use quickcheck::{Arbitrary, Gen, quickcheck};
use serde_json::json;

pub(crate) fn text(role: Role, text: &str) -> Message {
    Message {
        role,
        content: vec![Block::Text { text: text.into() }],
    }
}

pub(crate) fn call(id: &str) -> Message {
    Message {
        role: Role::Assistant,
        content: vec![Block::ToolUse {
            id: id.into(),
            name: "read_file".into(),
            input: json!({"path": "a.rs"}),
        }],
    }
}

pub(crate) fn result(id: &str, content: &str) -> Message {
    Message {
        role: Role::User,
        content: vec![Block::ToolResult {
            tool_use_id: id.into(),
            content: content.into(),
            is_error: false,
            images: Vec::new(),
        }],
    }
}

#[test]
fn the_cut_never_separates_a_call_from_its_result() {
    let messages = vec![
        text(Role::User, "read a.rs"),
        call("t1"),
        result("t1", &"x".repeat(4000)),
        text(Role::Assistant, "done"),
    ];
    // Only the last answer fits; index 2 (a tool result) is never a start.
    assert_eq!(cut_point(&messages, 10), Some(3));
    assert_eq!(cut_point(&messages, 10_000), Some(1));
    assert_eq!(cut_point(&messages[..1], 10_000), None);
    assert_eq!(
        cut_point(&messages[..3], 0),
        Some(1),
        "the latest place when none fits"
    );
}

#[test]
fn the_summary_opens_the_first_kept_user_message() {
    let view = compacted_view("S", &[text(Role::User, "next"), call("t")]);
    assert_eq!(view.len(), 2);
    assert_eq!(view[0].content.len(), 2);
    assert!(matches!(&view[0].content[0], Block::Text { text } if text.ends_with("S")));
    let view = compacted_view("S", &[call("t")]);
    assert_eq!(view[0].role, Role::User);
    assert_eq!(view[1], call("t"));
}

#[test]
fn a_new_summary_replaces_the_one_the_kept_part_opens_with() {
    for kept in [vec![text(Role::User, "next"), call("t")], vec![call("t")]] {
        let once = compacted_view("old", &kept);
        assert_eq!(summary_of(&once[0]), Some("old"));
        let again = compacted_view("new", &once);
        assert_eq!(
            again,
            compacted_view("new", &kept),
            "one summary, the new one"
        );
    }
    assert_eq!(summary_of(&text(Role::User, "next")), None);
    assert_eq!(summary_of(&text(Role::Assistant, SUMMARY_PREFIX)), None);
}

#[test]
fn the_transcript_cuts_long_results_and_keeps_the_latest_part() {
    let older = vec![
        text(Role::User, "first question"),
        call("t1"),
        result("t1", &"y".repeat(5_000)),
        text(Role::Assistant, "last answer"),
    ];
    let Block::Text { text: whole } =
        &summary_request(&transcript(&older), Some("focus on tests"), 100_000).content[0]
    else {
        panic!("a text block");
    };
    assert!(whole.contains("first question") && whole.contains("[tool call: read_file"));
    assert!(whole.contains("[… cut]") && !whole.contains(&"y".repeat(2_001)));
    assert!(whole.ends_with("The user adds: focus on tests"));
    let Block::Text { text: short } = &summary_request(&transcript(&older), None, 50).content[0]
    else {
        panic!("a text block");
    };
    assert!(short.contains("left out") && short.contains("last answer"));
    assert!(!short.contains("first question"));
}

#[test]
fn estimates_count_every_kind_of_block() {
    assert_eq!(tokens_of_chars(0), 0);
    assert_eq!(tokens_of_chars(5), 2);
    let image = Message {
        role: Role::User,
        content: vec![Block::Image {
            media_type: "image/png".into(),
            data: "AAAA".into(),
        }],
    };
    assert_eq!(estimate_tokens(&[image]), IMAGE_TOKENS);
    assert_eq!(estimate_tokens(&[result("t", "abcdefgh")]), 2);
}

/// A conversation as turns produce them: user text, then answers with or without tool calls,
/// each call answered by the next user message.
#[derive(Clone, Debug)]
pub(crate) struct Conversation(pub(crate) Vec<Message>);

impl Arbitrary for Conversation {
    fn arbitrary(g: &mut Gen) -> Self {
        let mut messages = vec![text(Role::User, &String::arbitrary(g))];
        for n in 0..usize::arbitrary(g) % 12 {
            let id = format!("t{n}");
            match u8::arbitrary(g) % 3 {
                0 => {
                    messages.push(call(&id));
                    messages.push(result(&id, &String::arbitrary(g)));
                }
                1 => messages.push(text(Role::Assistant, &String::arbitrary(g))),
                _ => {
                    if messages.last().is_some_and(|m| m.role == Role::Assistant) {
                        messages.push(text(Role::User, &String::arbitrary(g)));
                    }
                }
            }
        }
        Self(messages)
    }
}

/// Roles alternate, the view starts with the user, and every result follows its call.
pub(crate) fn valid(view: &[Message]) -> bool {
    let alternates = view.windows(2).all(|w| w[0].role != w[1].role);
    let answered = view.iter().enumerate().all(|(at, m)| {
        m.content.iter().all(|b| match b {
            Block::ToolResult { tool_use_id, .. } => {
                at > 0
                    && view[at - 1]
                        .content
                        .iter()
                        .any(|c| matches!(c, Block::ToolUse { id, .. } if id == tool_use_id))
            }
            _ => true,
        })
    });
    view.first().is_some_and(|m| m.role == Role::User) && alternates && answered
}

quickcheck! {
    fn compaction_keeps_the_conversation_valid(conversation: Conversation, keep: u16) -> bool {
        let messages = conversation.0;
        if !valid(&messages) {
            return true;
        }
        match cut_point(&messages, u64::from(keep)) {
            None => messages.len() == 1 || messages[1..].iter().all(|m| !may_start_at(m)),
            Some(at) => {
                let view = compacted_view("summary", &messages[at..]);
                let unchanged = match messages[at].role {
                    Role::User => &messages[at + 1..],
                    Role::Assistant => &messages[at..],
                };
                at >= 1 && valid(&view) && view[1..] == *unchanged
            }
        }
    }
}
