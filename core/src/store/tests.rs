//! Records round-trip; damaged files restore what they can.

use super::*;
use crate::model::conversation::Role;
use quickcheck::{Arbitrary, Gen, quickcheck};
use serde_json::json;

fn header_record() -> Record {
    Record::Session {
        version: FORMAT_VERSION,
        id: "s1".into(),
        cwd: "/w".into(),
        created: "2026-11-29".into(),
    }
}

fn text(role: Role, text: &str) -> Message {
    Message {
        role,
        content: vec![Block::Text { text: text.into() }],
    }
}

fn file(records: &[Record]) -> Vec<u8> {
    records.iter().flat_map(encode).collect()
}

#[test]
fn a_torn_last_line_and_appended_garbage_are_skipped() {
    let mut bytes = file(&[
        header_record(),
        Record::Message {
            message: text(Role::User, "hi"),
            by: None,
        },
        Record::Message {
            message: text(Role::Assistant, "hello"),
            by: None,
        },
    ]);
    bytes.extend_from_slice(b"{\"type\":\"message\",\"message\":{\"ro");
    let restored = restore(&bytes).unwrap();
    assert_eq!(restored.messages.len(), 2);
    assert_eq!(restored.skipped.len(), 1);
    bytes.extend_from_slice(b"\n\x00\xffgarbage\n");
    assert_eq!(restore(&bytes).unwrap().messages.len(), 2);
}

#[test]
fn a_file_ends_mid_line_when_its_last_write_was_torn() {
    let whole = file(&[header_record()]);
    assert!(!ends_mid_line(b""));
    assert!(!ends_mid_line(&whole));
    assert!(
        ends_mid_line(&whole[..whole.len() - 1]),
        "cut before its LF"
    );
    assert!(ends_mid_line(&whole[..7]));
}

#[test]
fn a_newer_format_is_refused_not_misread() {
    let bytes = file(&[Record::Session {
        version: FORMAT_VERSION + 1,
        id: "s".into(),
        cwd: "/w".into(),
        created: "d".into(),
    }]);
    assert!(restore(&bytes).unwrap_err().contains("newer luxe"));
    assert!(restore(b"hello\n").is_err());
    assert!(restore(b"").is_err());
}

#[test]
fn appends_extend_the_last_message_and_turns_sum() {
    let bytes = file(&[
        header_record(),
        Record::Message {
            message: text(Role::User, "a"),
            by: None,
        },
        Record::Append {
            blocks: vec![Block::Text { text: "b".into() }],
        },
        Record::TurnEnded {
            turn_id: "turn_1".into(),
            cost_usd: Some(0.5),
        },
        Record::TurnEnded {
            turn_id: "turn_2".into(),
            cost_usd: None,
        },
        Record::Settings {
            model: Some("openai/gpt-5".into()),
            mode: Mode::Plan,
            thinking: Thinking::High,
        },
    ]);
    let r = restore(&bytes).unwrap();
    assert_eq!(r.messages[0].content.len(), 2);
    assert_eq!((r.turns, r.cost_usd, r.cost_unknown), (2, 0.5, true));
    assert_eq!(
        r.settings,
        Some((Some("openai/gpt-5".into()), Mode::Plan, Thinking::High))
    );
}

#[test]
fn a_compaction_changes_the_view_not_the_messages() {
    let bytes = file(&[
        header_record(),
        Record::Message {
            message: text(Role::User, "old question"),
            by: None,
        },
        Record::Message {
            message: text(Role::Assistant, "old answer"),
            by: None,
        },
        Record::Compacted {
            summary: "S".into(),
            kept: 1,
            cost_usd: Some(0.25),
        },
        Record::Message {
            message: text(Role::User, "new"),
            by: None,
        },
        Record::Append {
            blocks: vec![Block::Text {
                text: "more".into(),
            }],
        },
        Record::Compacted {
            summary: "too many".into(),
            kept: 9,
            cost_usd: None,
        },
    ]);
    let r = restore(&bytes).unwrap();
    assert_eq!(r.messages.len(), 3, "the store keeps everything");
    assert_eq!(r.cost_usd, 0.25);
    assert!(
        !r.cost_unknown,
        "an automatic compaction's cost is its turn's"
    );
    assert_eq!(
        r.skipped.len(),
        1,
        "a compaction that keeps too much is skipped"
    );
    let view = r.view.unwrap();
    let mut expected = crate::model::compaction::compacted_view("S", &r.messages[1..2]);
    expected.push(r.messages[2].clone());
    assert_eq!(view, expected);
    assert_eq!(view[2].content.len(), 2, "appends reach the view");
}

#[test]
fn a_version_1_file_still_reads() {
    let mut bytes = encode(&Record::Session {
        version: 1,
        id: "old".into(),
        cwd: "/w".into(),
        created: "d".into(),
    });
    bytes.extend(encode(&Record::Message {
        message: text(Role::User, "hi"),
        by: None,
    }));
    assert_eq!(restore(&bytes).unwrap().messages.len(), 1);
}

#[test]
fn latest_for_picks_the_newest_of_this_cwd_that_holds_a_message() {
    let h = |id: &str, cwd: &str| {
        encode(&Record::Session {
            version: 1,
            id: id.into(),
            cwd: cwd.into(),
            created: "d".into(),
        })
    };
    let said = |id: &str, cwd: &str| {
        let mut head = h(id, cwd);
        head.extend(encode(&Record::Message {
            message: text(Role::User, "hi"),
            by: None,
        }));
        head
    };
    let mut opened_and_left = h("e", "/w");
    opened_and_left.extend(encode(&Record::Settings {
        model: None,
        mode: Mode::Build,
        thinking: Thinking::Off,
    }));
    // A first message longer than the head: the head is full, so the session holds one.
    let mut long = h("f", "/long");
    long.resize(usize::try_from(HEAD_BYTES).unwrap(), b'x');
    let candidates = vec![
        ("a".to_owned(), said("a", "/w"), 10),
        ("b".to_owned(), said("b", "/other"), 30),
        ("c".to_owned(), said("c", "/w"), 20),
        ("d".to_owned(), b"junk".to_vec(), 40),
        ("e".to_owned(), opened_and_left, 50),
        ("f".to_owned(), long, 60),
    ];
    assert_eq!(latest_for(&candidates, "/w"), Some("c"));
    assert_eq!(latest_for(&candidates, "/none"), None);
    assert_eq!(latest_for(&candidates, "/long"), Some("f"));
}

#[derive(Clone, Debug)]
struct Session(Vec<Record>);

impl Arbitrary for Session {
    fn arbitrary(g: &mut Gen) -> Self {
        let mut records = vec![header_record()];
        // The view's length after a compaction is `kept` or one more: `kept` never overshoots.
        let mut view = 0;
        for _ in 0..usize::arbitrary(g) % 20 {
            let s = String::arbitrary(g);
            let record = match u8::arbitrary(g) % 6 {
                0 => Record::Message {
                    message: text(Role::User, &s),
                    by: None,
                },
                1 => Record::Message {
                    message: Message {
                        role: Role::Assistant,
                        content: vec![
                            Block::Thinking {
                                text: s.clone(),
                                signature: Some("sig".into()),
                            },
                            Block::ToolUse {
                                id: "t".into(),
                                name: "read".into(),
                                input: json!({"path": s}),
                            },
                        ],
                    },
                    by: None,
                },
                2 => Record::Message {
                    message: Message {
                        role: Role::User,
                        content: vec![Block::ToolResult {
                            tool_use_id: "t".into(),
                            content: s,
                            is_error: bool::arbitrary(g),
                            images: Vec::new(),
                        }],
                    },
                    by: None,
                },
                3 => Record::TurnEnded {
                    turn_id: s,
                    cost_usd: Some(f64::from(u16::arbitrary(g)) / 100.0),
                },
                4 => Record::Compacted {
                    summary: s,
                    kept: usize::arbitrary(g) % (view + 1),
                    cost_usd: None,
                },
                _ => Record::Settings {
                    model: Some(s),
                    mode: Mode::Build,
                    thinking: Thinking::Low,
                },
            };
            match &record {
                Record::Message { .. } => view += 1,
                Record::Compacted { kept, .. } => view = *kept,
                _ => {}
            }
            records.push(record);
        }
        Self(records)
    }
}

quickcheck! {
    fn a_written_session_reads_back_the_same(session: Session) -> bool {
        let restored = restore(&file(&session.0)).unwrap();
        let messages: Vec<Message> = session.0.iter().filter_map(|r| match r {
            Record::Message { message, .. } => Some(message.clone()),
            _ => None,
        }).collect();
        let turns = session.0.iter().filter(|r| matches!(r, Record::TurnEnded { .. })).count();
        let compacted = session.0.iter().any(|r| matches!(r, Record::Compacted { .. }));
        // Calls left without results get them; nothing else changes.
        without_repairs(&restored.messages) == messages
            && every_call_answered(&restored.messages)
            && restored.turns as usize == turns
            && restored.view.is_some() == compacted
            // The view ends on the conversation's last message (each repaired for itself).
            && restored.view.as_ref().is_none_or(|v| {
                without_repairs(&v[v.len().saturating_sub(1)..])
                    == without_repairs(&restored.messages[restored.messages.len().saturating_sub(1)..])
                    || v.len() == 1
            })
            && restored.skipped.is_empty()
    }
}

/// `messages` without the results restore gave to calls left unanswered.
fn without_repairs(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .filter_map(|m| {
            let content: Vec<Block> = m
                .content
                .iter()
                .filter(|b| {
                    !matches!(b, Block::ToolResult { content, is_error: true, .. }
                        if content == "the session ended before this call finished")
                })
                .cloned()
                .collect();
            (!content.is_empty()).then_some(Message {
                role: m.role,
                content,
            })
        })
        .collect()
}

/// Whether every tool call has its result in the message right after it.
fn every_call_answered(messages: &[Message]) -> bool {
    messages.iter().enumerate().all(|(at, m)| {
        m.content.iter().all(|b| match b {
            Block::ToolUse { id, .. } => messages.get(at + 1).is_some_and(|next| {
                next.role == Role::User
                    && next.content.iter().any(
                        |r| matches!(r, Block::ToolResult { tool_use_id, .. } if tool_use_id == id),
                    )
            }),
            _ => true,
        })
    })
}

/// The messages and turn ends of `records`.
fn contents(records: &[Record]) -> (Vec<Message>, usize) {
    let messages = records
        .iter()
        .filter_map(|r| match r {
            Record::Message { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect();
    let turns = records
        .iter()
        .filter(|r| matches!(r, Record::TurnEnded { .. }))
        .count();
    (messages, turns)
}

quickcheck! {
    /// A file cut anywhere after its header, then a new line started where it ends mid-line,
    /// then more records: every record whole before the cut and every record after it reads
    /// back, and only a torn record is skipped.
    fn a_new_line_after_any_cut_keeps_the_records_on_both_sides(
        session: Session,
        cut: usize,
        more: Session
    ) -> bool {
        let bytes = file(&session.0);
        let header = encode(&session.0[0]).len() - 1;
        let cut = header + cut % (bytes.len() - header + 1);
        // Whole: its JSON is all there, its line feed perhaps not.
        let mut end = 0;
        let whole: Vec<Record> = session.0.iter().take_while(|r| {
            end += encode(r).len();
            end - 1 <= cut
        }).cloned().collect();
        let torn = file(&whole).len() < cut;
        // Compactions need the messages before them: the later records hold none.
        let later: Vec<Record> = more.0[1..]
            .iter()
            .filter(|r| !matches!(r, Record::Compacted { .. }))
            .cloned()
            .collect();
        let mut written = bytes[..cut].to_vec();
        if ends_mid_line(&written) {
            written.push(b'\n');
        }
        written.extend(file(&later));

        let restored = restore(&written).unwrap();
        let (mut messages, turns) = contents(&whole);
        let (later_messages, later_turns) = contents(&later);
        messages.extend(later_messages);
        // Calls left without results get them; nothing else changes.
        without_repairs(&restored.messages) == messages
            && every_call_answered(&restored.messages)
            && restored.turns as usize == turns + later_turns
            && restored.skipped.len() == usize::from(torn)
    }
}

#[test]
fn calls_a_crash_left_unanswered_are_answered_wherever_they_are() {
    let call = |id: &str| Message {
        role: Role::Assistant,
        content: vec![Block::ToolUse {
            id: id.into(),
            name: "bash".into(),
            input: json!({"command": "sleep 100"}),
        }],
    };
    // A crash during call c1; resumed, the user went on (a new message, a whole turn with its
    // own call c2 answered), then the file was resumed again.
    let bytes = file(&[
        header_record(),
        Record::Message {
            message: text(Role::User, "run it"),
            by: None,
        },
        Record::Message {
            message: call("c1"),
            by: None,
        },
        Record::Message {
            message: text(Role::User, "again"),
            by: None,
        },
        Record::Message {
            message: call("c2"),
            by: None,
        },
        Record::Message {
            message: Message {
                role: Role::User,
                content: vec![Block::ToolResult {
                    tool_use_id: "c2".into(),
                    content: "ok".into(),
                    is_error: false,
                    images: Vec::new(),
                }],
            },
            by: None,
        },
        Record::Message {
            message: text(Role::Assistant, "done"),
            by: None,
        },
        Record::Message {
            message: call("c3"),
            by: None,
        },
    ]);
    let r = restore(&bytes).unwrap();
    let results = |m: &Message| -> Vec<String> {
        m.content
            .iter()
            .filter_map(|b| match b {
                Block::ToolResult { tool_use_id, .. } => Some(tool_use_id.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        results(&r.messages[2]),
        ["c1"],
        "c1's result leads the next message"
    );
    assert!(matches!(&r.messages[2].content[1], Block::Text { text } if text == "again"));
    assert_eq!(
        results(&r.messages[4]),
        ["c2"],
        "an answered call is left as it was"
    );
    assert_eq!(
        r.messages.len(),
        8,
        "c3, the last, gets a message of its own"
    );
    assert_eq!(results(&r.messages[7]), ["c3"]);
}

#[test]
fn a_title_is_cut_after_its_secrets_are_redacted() {
    let secret = "sk-live-title-secret-123";
    let first = format!("{}{secret} and more", "x".repeat(70));
    let bytes = file(&[
        header_record(),
        Record::Message {
            message: text(Role::User, &first),
            by: None,
        },
    ]);
    let files = [("/s/a.jsonl".to_owned(), bytes, 1)];
    let listed = summaries(&files, "/w", &|t: &str| t.replace(secret, "[redacted]"));
    assert_eq!(listed[0].title, format!("{}[redacted]", "x".repeat(70)));
    assert!(!listed[0].title.contains("sk-l"));
}

#[test]
fn session_files_are_named_as_file_name_names_them() {
    assert!(is_session_file(&file_name("abc").unwrap()));
    assert!(is_session_file("a.b.jsonl"));
    assert!(is_session_file("..jsonl"));
    assert!(!is_session_file(".jsonl"), "a hidden file with no stem");
    assert!(!is_session_file("abc.json"));
    assert!(!is_session_file("abc.jsonl.tmp"));
}
