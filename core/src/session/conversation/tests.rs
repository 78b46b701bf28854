//! The conversation's accounting: a count calibrates what follows it, dropping always leaves a
//! valid view that is smaller, and a dropped summary gives way to the note once.

use super::*;
use crate::model::compaction::tests::{Conversation as Turns, text, valid};
use quickcheck::quickcheck;

fn conversation(messages: Vec<Message>) -> Conversation {
    let mut conversation = Conversation::default();
    for message in messages {
        conversation.push(message);
    }
    conversation
}

#[test]
fn a_count_calibrates_the_estimate_of_what_follows_it() {
    let mut c = conversation(vec![text(Role::User, &"1, 2, ".repeat(100))]);
    c.set_overhead(400, 0);
    assert_eq!(
        c.estimated_tokens(),
        (600 + 400) / 4,
        "four characters a token, uncounted"
    );
    c.calibrate(1, 500);
    assert_eq!(
        c.estimated_tokens(),
        500,
        "the provider's count, as it said"
    );
    assert_eq!(c.chars_per_token(), 2.0);
    c.push(text(Role::Assistant, "abcdefgh"));
    assert_eq!(
        c.estimated_tokens(),
        504,
        "the rest at the counted two a token"
    );
    c.calibrate(5, 10);
    assert_eq!(
        c.estimated_tokens(),
        504,
        "a count for messages it does not have is ignored"
    );
}

#[test]
fn steering_joins_the_users_message_and_never_follows_an_answer() {
    let mut c = conversation(vec![text(Role::User, "go")]);
    let more = [Block::Text { text: "and".into() }];
    assert!(c.extend_last_user(&more));
    assert_eq!(c.messages()[0].content.len(), 2);
    c.push(text(Role::Assistant, "ok"));
    assert!(!c.extend_last_user(&more));
    assert_eq!(c.messages().len(), 2);
    assert_eq!(c.messages()[1], text(Role::Assistant, "ok"));
}

#[test]
fn with_no_older_turn_left_the_summary_goes_once() {
    let mut c = conversation(vec![
        text(Role::User, "old question"),
        text(Role::Assistant, "a"),
    ]);
    c.push(text(Role::User, "now"));
    assert_eq!(c.replace_older(2, &"long summary ".repeat(50)), 1);
    assert_eq!(c.messages().len(), 1);
    assert_eq!(c.cut_keeping(0), None, "no older turn");
    assert_eq!(c.drop_cut(0, "note"), Some(0), "but a summary to drop");
    let before = c.estimated_tokens();
    assert_eq!(c.replace_older(0, "note"), 1);
    assert!(c.estimated_tokens() < before);
    assert_eq!(summary_of(&c.messages()[0]), Some("note"));
    assert_eq!(
        c.messages()[0].content.len(),
        2,
        "the note and the user's message"
    );
    assert_eq!(
        c.drop_cut(0, "note"),
        None,
        "the note is all that is left to drop"
    );
}

quickcheck! {
    fn every_drop_leaves_a_smaller_valid_view(turns: Turns, keep: u16, counted: bool) -> bool {
        let messages = turns.0;
        if !valid(&messages) {
            return true;
        }
        let mut c = conversation(messages);
        if counted {
            let len = c.messages().len();
            let tokens = c.estimated_tokens() / 2 + 1;
            c.calibrate(len, tokens);
        }
        while let Some(cut) = c.drop_cut(u64::from(keep), "note") {
            let before = message_chars(c.messages());
            c.replace_older(cut, "note");
            if !valid(c.messages()) || message_chars(c.messages()) >= before {
                return false;
            }
        }
        valid(c.messages())
    }
}
