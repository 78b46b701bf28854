//! What happens around the turns themselves: a turn waiting for the start-up probes,
//! `compact` taking the session, a compacted turn that still cannot fit, and a queued message
//! taken back.

use super::*;
use crate::model::compaction::summary_of;
use crate::session::conversation::Conversation;
use crate::session::turn::compaction::{Budget, DROPPED_NOTE};

#[test]
fn a_turn_waits_for_the_start_up_probes_and_a_missing_model_ends_it_with_the_setup_hint() {
    let mut bench = Bench::new();
    bench.context = ProjectContext::default();
    let mut turns = bench.turns();
    let _ = bench.submit(&mut turns, Ms(0), message("hi"), TurnSource::User);
    assert!(
        requests(&bench.outputs()).is_empty(),
        "no request before the probes"
    );
    bench.context = ProjectContext::found_nothing();
    assert!(matches!(
        turns.context_ready(&mut bench.desk(), Ms(1)),
        Then::Nothing
    ));
    assert_eq!(requests(&bench.outputs()).len(), 1);

    let mut bench = Bench::new();
    bench.model = None;
    let mut turns = bench.turns();
    let Then::Ended(ended) = bench.submit(&mut turns, Ms(0), message("hi"), TurnSource::User)
    else {
        panic!("no model: the turn ends at once")
    };
    assert!(
        ended.why.starts_with("no model is configured"),
        "{}",
        ended.why
    );
    assert!(requests(&bench.outputs()).is_empty());
}

/// Six messages, the user's and the model's in turn, each `text`.
fn six_turns_of(text: &str) -> Vec<Message> {
    (0..6)
        .map(|i| Message {
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            content: vec![Block::Text { text: text.into() }],
        })
        .collect()
}

#[test]
fn compact_replaces_the_older_conversation_with_the_summary_and_frees_the_session() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    let request = |id: &str| Compact {
        request_id: id.into(),
        instructions: None,
    };
    let refused = bench.compact(&mut turns, Ms(0), request("c0"));
    assert!(refused.is_err_and(|e| e.starts_with("nothing to compact")));
    let long = "word ".repeat(40_000);
    let view = six_turns_of(&long);
    turns.restore(view, 3, Some(0.5));
    let before = turns.conversation().estimated_tokens();

    let then = bench.compact(&mut turns, Ms(1), request("c1")).unwrap();
    assert!(matches!(then, Then::Nothing));
    let out = bench.outputs();
    assert_eq!(kinds(&out), ["state_changed", "compaction_started"]);
    let [summary] = requests(&out)[..] else {
        panic!("one summary request")
    };
    assert!(
        bench
            .compact(&mut turns, Ms(2), request("c2"))
            .is_err_and(|e| e.contains("already")),
        "one at a time"
    );
    let then = answer(
        &mut turns,
        &mut bench,
        Ms(3),
        summary,
        &text_answer(None, "They talked."),
    );
    assert!(matches!(then, Then::Free), "{then:?}");
    let out = bench.outputs();
    assert!(
        !kinds(&out).contains(&"token_delta"),
        "a summary is not shown"
    );
    let ended = frame(&out, "compaction_ended");
    assert_eq!(ended["request_id"], "c1");
    assert!(ended["tokens_after"].as_u64() < ended["tokens_before"].as_u64());
    assert!(turns.conversation().estimated_tokens() < before && !turns.is_running());
}

/// The body of request `id` among `outputs`, as text.
fn body_of(outputs: &[Output], id: EffectId) -> String {
    outputs
        .iter()
        .find_map(|output| match output {
            Output::HttpRequest { id: sent, request } if *sent == id => {
                Some(String::from_utf8_lossy(&request.body).into_owned())
            }
            _ => None,
        })
        .expect("the request was sent")
}

#[test]
fn a_turn_whose_summary_and_message_still_pass_the_window_drops_the_summary_before_sending() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    // 300,000 tokens of older conversation (four characters a token) in a 200,000 window.
    let old = "word ".repeat(40_000);
    let view = six_turns_of(&old);
    turns.restore(view, 3, None);
    // The latest message alone takes 195,000 tokens: with an 8,000-token summary before it the
    // request cannot fit; without it, it can.
    let latest = "LATEST ".repeat(111_430);
    let _ = bench.submit(&mut turns, Ms(0), message(&latest), TurnSource::User);
    let out = bench.outputs();
    assert_eq!(
        frame(&out, "compaction_started")["trigger"],
        "context_window"
    );
    let [summary] = requests(&out)[..] else {
        panic!("the summary request first: {:?}", kinds(&out))
    };
    let text = format!("SUMMARY-OF-OLD {}", "sum ".repeat(8_000));
    let then = answer(
        &mut turns,
        &mut bench,
        Ms(1),
        summary,
        &text_answer(None, &text),
    );
    assert!(matches!(then, Then::Nothing), "{then:?}");
    let out = bench.outputs();
    assert!(
        frame(&out, "compaction_ended")["error"].is_null(),
        "the summary was taken"
    );
    let [request] = requests(&out)[..] else {
        panic!("the turn's request: {:?}", kinds(&out))
    };
    let body = body_of(&out, request);
    assert!(
        !body.contains("SUMMARY-OF-OLD") && body.contains("dropped without a summary"),
        "the summary gave way to the note before the request was sent"
    );
    assert!(body.contains("LATEST LATEST"), "the latest message is sent");
    let opening = turns.conversation().messages().first().and_then(summary_of);
    assert_eq!(
        opening,
        Some(DROPPED_NOTE),
        "the model's view opens with the note"
    );
}

#[test]
fn a_resumed_sessions_first_request_counts_the_system_prompt_and_tools_before_it_compacts() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    // 103,000 tokens restored (four characters a token, nothing counted yet): with the margin
    // for the estimate's error, a few hundred tokens short of compacting in a 200,000 window
    // when nothing else is counted; luxe's system prompt and tools take more than that.
    let view = vec![
        Message {
            role: Role::User,
            content: vec![Block::Text {
                text: "a".repeat(206_000),
            }],
        },
        Message {
            role: Role::Assistant,
            content: vec![Block::Text {
                text: "b".repeat(205_990),
            }],
        },
    ];
    turns.restore(view, 1, None);
    let _ = bench.submit(&mut turns, Ms(0), message("go"), TurnSource::User);
    let model = bench.model.clone().expect("a model");
    let mut bare = Conversation::default();
    bare.restore(turns.conversation().messages().to_vec());
    let without_overhead = Budget {
        model: Some(&model),
        window: Some(200_000),
        conversation: &bare,
    };
    assert!(
        !without_overhead.near_the_window(&model),
        "the messages alone do not come near the window"
    );
    let out = bench.outputs();
    assert_eq!(
        frame(&out, "compaction_started")["trigger"],
        "context_window",
        "the system prompt and tools, measured before the check, bring it near"
    );
}

#[test]
fn a_withdrawn_message_never_runs_and_only_the_last_is_taken_back() {
    let mut bench = Bench::new();
    let mut turns = bench.turns();
    let _ = bench.submit(&mut turns, Ms(0), message("hi"), TurnSource::User);
    assert!(turns.withdraw_queued().is_none(), "nothing is queued yet");
    let [first] = requests(&bench.outputs())[..] else {
        panic!("one request")
    };
    for text in ["second", "third"] {
        let _ = bench.submit(&mut turns, Ms(1), message(text), TurnSource::User);
    }
    let withdrawn = turns.withdraw_queued().expect("the last queued");
    assert_eq!((withdrawn.text.as_str(), withdrawn.position), ("third", 2));
    let _ = answer(
        &mut turns,
        &mut bench,
        Ms(5),
        first,
        &text_answer(None, "Hello."),
    );
    let _ = bench.outputs();
    let _ = bench.after_run(&mut turns, Ms(6), false);
    let out = bench.outputs();
    let [request] = requests(&out)[..] else {
        panic!("the one message left runs")
    };
    let body = body_of(&out, request);
    assert!(body.contains("second") && !body.contains("third"), "{body}");
    assert!(
        turns.withdraw_queued().is_none(),
        "the queue is empty again"
    );
}
