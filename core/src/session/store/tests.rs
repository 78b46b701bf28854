//! The store at its seam: records in, appends out, through a outbox of its own.

use super::*;

fn turn_ended(n: u32) -> Record {
    Record::TurnEnded {
        turn_id: format!("turn_{n}"),
        cost_usd: None,
    }
}

fn settings() -> Record {
    settings_record(None, Mode::default(), Thinking::default())
}

fn store() -> Store {
    Store::new(Some("/sessions/"), "s1", "/work", "2026-12-02")
}

/// The appends queued, as `(id, path, text)`.
fn appends(outbox: &mut Outbox) -> Vec<(EffectId, String, String)> {
    std::iter::from_fn(|| outbox.pop())
        .filter_map(|output| match output {
            Output::AppendFile { id, path, bytes } => {
                Some((id, path, String::from_utf8(bytes).unwrap_or_default()))
            }
            _ => None,
        })
        .collect()
}

fn lines(records: &[Record]) -> String {
    records
        .iter()
        .map(|r| String::from_utf8(encode(r)).unwrap_or_default())
        .collect()
}

fn header() -> Record {
    Record::Session {
        version: FORMAT_VERSION,
        id: "s1".into(),
        cwd: "/work".into(),
        created: "2026-12-02".into(),
    }
}

#[test]
fn records_of_one_drain_share_an_append_after_the_header_once() {
    let (mut store, mut outbox) = (store(), Outbox::default());
    store.record(&mut outbox, &turn_ended(1), settings);
    store.record(&mut outbox, &turn_ended(2), settings);
    let first = appends(&mut outbox);
    let result = Ok(());
    store.appended(&Input::FileAppended {
        id: first[0].0,
        result,
    });
    store.record(&mut outbox, &turn_ended(3), || {
        unreachable!("the header is written")
    });
    let second = appends(&mut outbox);

    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].1, "/sessions/s1.jsonl");
    let expected = lines(&[header(), settings(), turn_ended(1), turn_ended(2)]);
    assert_eq!(first[0].2, expected);
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].2, lines(&[turn_ended(3)]));
}

#[test]
fn an_append_that_failed_is_repaired_by_a_leading_newline_on_the_next() {
    let (mut store, mut outbox) = (store(), Outbox::default());
    store.record(&mut outbox, &turn_ended(1), settings);
    let [(failed, ..)] = appends(&mut outbox)[..] else {
        panic!("one append");
    };
    let result = Err("disk full".to_owned());
    let said = store.appended(&Input::FileAppended { id: failed, result });
    assert_eq!(
        said.as_deref(),
        Some("the session could not be saved: disk full")
    );

    store.record(&mut outbox, &turn_ended(2), settings);
    let [(repairing, _, ref text)] = appends(&mut outbox)[..] else {
        panic!("one append");
    };
    assert_eq!(*text, format!("\n{}", lines(&[turn_ended(2)])));

    // A second failure is not said again; a success makes the tail whole.
    let result = Err("disk full".to_owned());
    assert_eq!(
        store.appended(&Input::FileAppended {
            id: repairing,
            result
        }),
        None
    );
    store.record(&mut outbox, &turn_ended(3), settings);
    let [(written, ..)] = appends(&mut outbox)[..] else {
        panic!("one append");
    };
    let result = Ok(());
    assert_eq!(
        store.appended(&Input::FileAppended {
            id: written,
            result
        }),
        None
    );
    store.record(&mut outbox, &turn_ended(4), settings);
    assert_eq!(appends(&mut outbox)[0].2, lines(&[turn_ended(4)]));
}

#[test]
fn an_append_not_answered_yet_is_repaired_but_an_earlier_ones_answer_says_nothing() {
    let (mut store, mut outbox) = (store(), Outbox::default());
    store.record(&mut outbox, &turn_ended(1), settings);
    let first = appends(&mut outbox)[0].0;
    store.record(&mut outbox, &turn_ended(2), settings);
    let text = appends(&mut outbox).remove(0).2;
    assert!(text.starts_with('\n'), "{text:?}");
    // The first append's success does not make the tail whole: the second may be torn.
    let result = Ok(());
    store.appended(&Input::FileAppended { id: first, result });
    store.record(&mut outbox, &turn_ended(3), settings);
    assert!(appends(&mut outbox)[0].2.starts_with('\n'));
}

#[test]
fn a_resumed_torn_file_gets_a_newline_and_no_header() {
    let file = SessionFile {
        path: "/sessions/old.jsonl".into(),
        bytes: b"{\"type\":\"sess".to_vec(),
    };
    let (mut store, mut outbox) = (Store::resumed(Some("/sessions"), &file), Outbox::default());
    store.record(&mut outbox, &turn_ended(1), || unreachable!("resumed"));
    let [(_, ref path, ref text)] = appends(&mut outbox)[..] else {
        panic!("one append");
    };
    assert_eq!(path, "/sessions/old.jsonl");
    assert_eq!(*text, format!("\n{}", lines(&[turn_ended(1)])));
}

#[test]
fn settings_and_syncs_wait_for_the_file_to_be_started() {
    let (mut store, mut outbox) = (store(), Outbox::default());
    store.record_settings(&mut outbox, settings());
    store.sync(&mut outbox);
    assert_eq!(outbox.pop(), None);
    store.record(&mut outbox, &turn_ended(1), settings);
    store.sync(&mut outbox);
    let mut outputs: Vec<_> = std::iter::from_fn(|| outbox.pop()).collect();
    store.record_settings(&mut outbox, settings());
    outputs.extend(std::iter::from_fn(|| outbox.pop()));
    assert!(
        matches!(
            &outputs[..],
            [Output::AppendFile { .. }, Output::SyncFile { path }, Output::AppendFile { bytes, .. }]
                if path == "/sessions/s1.jsonl" && bytes.ends_with(&encode(&settings()))
        ),
        "{outputs:?}"
    );
}

#[test]
fn nothing_is_written_without_a_directory() {
    let (mut store, mut outbox) = (Store::new(None, "s1", "/work", "today"), Outbox::default());
    store.record(&mut outbox, &turn_ended(1), settings);
    store.sync(&mut outbox);
    assert_eq!(outbox.pop(), None);
    let answer = store.list(&mut outbox, "r1".into());
    assert_eq!(
        answer,
        Some(SessionsListed {
            request_id: "r1".into(),
            sessions: Vec::new(),
        })
    );
}

#[test]
fn list_sessions_read_becomes_its_answer() {
    let (mut store, mut outbox) = (store(), Outbox::default());
    assert_eq!(store.list(&mut outbox, "r1".into()), None);
    let Some(Output::ReadSessions { id, dir }) = outbox.pop() else {
        panic!("a read of the directory");
    };
    assert_eq!(dir, "/sessions/");
    let message = Message {
        role: Role::User,
        content: vec![Block::Text {
            text: "fix the secret bug".into(),
        }],
    };
    let file: Vec<u8> = [header(), Record::Message { message, by: None }]
        .iter()
        .flat_map(encode)
        .collect();
    let elsewhere = Record::Session {
        version: FORMAT_VERSION,
        id: "s2".into(),
        cwd: "/other".into(),
        created: "2026-12-01".into(),
    };
    let files = vec![
        ("/sessions/s1.jsonl".to_owned(), file, 7),
        ("/sessions/s2.jsonl".to_owned(), encode(&elsewhere), 8),
    ];
    let redact = |text: &str| text.replace("secret", "[redacted]");
    let input = Input::SessionsRead {
        id,
        result: Ok(files),
    };
    let listed = store.sessions_read(&input, "/work", &redact);
    let Some(Listed {
        failure: None,
        answer,
    }) = listed
    else {
        panic!("an answer: {listed:?}");
    };
    assert_eq!(answer.request_id, "r1");
    assert_eq!(answer.sessions.len(), 1, "{:?}", answer.sessions);
    assert_eq!(answer.sessions[0].id, "s1");
    assert!(
        !format!("{:?}", answer.sessions[0]).contains("secret"),
        "{answer:?}"
    );
    // Answered once: the same result again is nobody's.
    assert_eq!(store.sessions_read(&input, "/work", &redact), None);
}

#[test]
fn a_directory_that_cannot_be_read_is_said_before_an_empty_answer() {
    let (mut store, mut outbox) = (store(), Outbox::default());
    store.list(&mut outbox, "r1".into());
    let Some(Output::ReadSessions { id, .. }) = outbox.pop() else {
        panic!("a read of the directory");
    };
    let input = Input::SessionsRead {
        id,
        result: Err("permission denied".into()),
    };
    let listed = store.sessions_read(&input, "/work", &|t| t.to_owned());
    assert_eq!(
        listed,
        Some(Listed {
            failure: Some("the sessions could not be listed: permission denied".into()),
            answer: SessionsListed {
                request_id: "r1".into(),
                sessions: Vec::new(),
            },
        })
    );
}

#[test]
fn a_restored_session_shows_every_message_and_keeps_its_view() {
    let said = |role, text: &str| Message {
        role,
        content: vec![Block::Text { text: text.into() }],
    };
    let restored = Restored {
        id: "s1".into(),
        messages: vec![said(Role::User, "hi"), said(Role::Assistant, "hello")],
        view: Some(vec![said(Role::User, "summary")]),
        turns: 2,
        cost_usd: 0.5,
        cost_unknown: true,
        ..Restored::default()
    };
    let restoring = restoring(restored);
    assert_eq!(restoring.shown.messages.len(), 2);
    assert_eq!(restoring.shown.messages[1].role, "assistant");
    assert_eq!(restoring.shown.messages[1].text, "hello");
    assert_eq!(restoring.view, vec![said(Role::User, "summary")]);
    assert_eq!((restoring.turns, restoring.cost_usd), (2, None));
}

#[test]
fn a_new_session_starts_its_file_so_its_id_can_be_resumed_before_anything_is_said() {
    let (mut store, mut outbox) = (store(), Outbox::default());
    store.start(&mut outbox, &settings());
    let started = appends(&mut outbox);
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(started[0].1, "/sessions/s1.jsonl");
    assert_eq!(started[0].2, lines(&[header(), settings()]));
    let restored = crate::store::restore(started[0].2.as_bytes()).expect("a session file");
    assert_eq!(restored.id, "s1");
    assert_eq!(restored.cwd, "/work");
    assert!(restored.messages.is_empty());
    assert!(restored.settings.is_some(), "its settings come back");

    store.start(&mut outbox, &settings());
    assert_eq!(appends(&mut outbox), [], "started once");
    let result = Ok(());
    store.appended(&Input::FileAppended {
        id: started[0].0,
        result,
    });
    store.record(&mut outbox, &turn_ended(1), || {
        unreachable!("the header is written")
    });
    assert_eq!(appends(&mut outbox)[0].2, lines(&[turn_ended(1)]));
}

#[test]
fn a_resumed_or_unkept_session_writes_nothing_at_its_start() {
    let file = SessionFile {
        path: "/sessions/s1.jsonl".into(),
        bytes: lines(&[header(), settings()]).into_bytes(),
    };
    for mut store in [
        Store::resumed(Some("/sessions"), &file),
        Store::new(None, "s1", "/w", "d"),
    ] {
        let mut outbox = Outbox::default();
        store.start(&mut outbox, &settings());
        assert_eq!(appends(&mut outbox), []);
    }
}
