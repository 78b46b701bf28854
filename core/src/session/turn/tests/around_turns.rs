//! What happens around the turns themselves: a turn waiting for the start-up probes,
//! `compact` taking the session, and a queued message taken back.

use super::*;

#[test]
fn a_turn_waits_for_the_start_up_probes_and_a_missing_model_ends_it_with_the_setup_hint() {
    let mut bench = Bench::new();
    bench.context = ProjectContext::default();
    let mut turns = Turns::<Ms>::new(None);
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
    let mut turns = Turns::<Ms>::new(None);
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

#[test]
fn compact_replaces_the_older_conversation_with_the_summary_and_frees_the_session() {
    let mut bench = Bench::new();
    let mut turns = Turns::<Ms>::new(None);
    let request = |id: &str| Compact {
        request_id: id.into(),
        instructions: None,
    };
    let refused = bench.compact(&mut turns, Ms(0), request("c0"));
    assert!(refused.is_err_and(|e| e.starts_with("nothing to compact")));
    let long = "word ".repeat(40_000);
    let view = (0..6)
        .map(|i| Message {
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            content: vec![Block::Text { text: long.clone() }],
        })
        .collect();
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

#[test]
fn a_withdrawn_message_never_runs_and_only_the_last_is_taken_back() {
    let mut bench = Bench::new();
    let mut turns = Turns::<Ms>::new(None);
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
    assert_eq!(requests(&out).len(), 1, "the one message left runs");
    let body: String = (out.iter())
        .filter_map(|output| match output {
            Output::HttpRequest { request, .. } => {
                Some(String::from_utf8_lossy(&request.body).into_owned())
            }
            _ => None,
        })
        .collect();
    assert!(body.contains("second") && !body.contains("third"), "{body}");
    assert!(
        turns.withdraw_queued().is_none(),
        "the queue is empty again"
    );
}
