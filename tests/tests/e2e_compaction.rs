//! Compaction end to end on both providers: `compact`, automatic compaction near the context
//! window, and compact-and-retry when the provider refuses a request as too long. The summary
//! replaces the older conversation in what the model is sent; the store keeps every message.

use luxe_tests::model_server::{Part, Reply, Script, ScriptUsage, Stop};
use luxe_tests::process::LuxeProcess;
use luxe_tests::rig::{
    BOTH, Provider, ended, of_kind, restored_texts, rig, spawn, submit, until_turn_ended,
};
use serde_json::{Value, json};
use std::time::Duration;

/// The provider's own words for a request too long for the context window.
fn overflow(provider: Provider) -> Reply {
    let body = match provider {
        Provider::Anthropic => json!({"type": "error", "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 213456 tokens > 200000 maximum"}}),
        Provider::OpenAi => json!({"error": {
            "message": "This model's maximum context length is 400000 tokens. However, your messages resulted in 401234 tokens.",
            "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
    };
    Reply::Status {
        code: 400,
        body: Some(body.to_string()),
        retry_after: None,
    }
}

/// A question long enough that a short summary of it is shorter than it: compaction never
/// accepts a summary that does not shrink the conversation.
fn long(question: &str) -> String {
    format!(
        "{question}: {}",
        "some context for the question. ".repeat(40)
    )
}

fn turn(luxe: &mut LuxeProcess, text: &str) -> Vec<Value> {
    submit(luxe, text);
    until_turn_ended(luxe)
}

/// Whether `body` is a summary request: no tools, one message asking for a summary.
fn is_summary_request(body: &Value) -> bool {
    body.get("tools").is_none()
        && body.to_string().contains("<conversation>")
        && body
            .to_string()
            .contains("Summarize the conversation above")
}

#[test]
fn compact_replaces_the_older_conversation_for_the_model_and_the_store_keeps_it() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(Reply::text("The answer is 42."));
        turn(&mut r.luxe, &long("first question"));
        r.server.push(Reply::text("second answer"));
        turn(&mut r.luxe, &long("second question"));

        r.server
            .push(Reply::text("SUMMARY: the user asked and 42 was the answer"));
        r.luxe.send(
            r#"{"kind":"compact","content":{"request_id":"c1","instructions":"mention 42"}}"#,
        );
        assert_eq!(r.luxe.expect("state_changed")["streaming"], true);
        let frames = r.luxe.until("compaction_ended");
        assert_eq!(r.luxe.expect("state_changed")["streaming"], false);
        let started = of_kind(&frames, "compaction_started");
        assert_eq!(started.len(), 1, "{provider:?}: {frames:?}");
        assert_eq!(started[0]["request_id"], "c1");
        assert_eq!(started[0]["trigger"], "request");
        assert!(
            of_kind(&frames, "token_delta").is_empty(),
            "a summary is not shown"
        );
        let done = ended(&frames);
        assert_eq!(done["request_id"], "c1");
        assert!(done.get("error").is_none(), "{done}");
        assert!(done["tokens_before"].as_u64().unwrap() > 0);
        assert!(done["tokens_after"].as_u64().unwrap() > 0);

        let summary = r.server.requests().last().unwrap().body.clone();
        assert!(is_summary_request(&summary), "{summary}");
        let asked = summary.to_string();
        assert!(asked.contains("first question") && asked.contains("mention 42"));

        r.server.push(Reply::text("third answer"));
        turn(&mut r.luxe, "third question");
        let sent = r.server.requests().last().unwrap().body.to_string();
        assert!(
            sent.contains("SUMMARY: the user asked and 42 was the answer"),
            "{sent}"
        );
        assert!(!sent.contains("first question"), "{provider:?}: {sent}");
        assert!(sent.contains("third question") && sent.contains("tools"));
        r.luxe.send(r#"{"kind":"close"}"#);
        assert_eq!(r.luxe.wait().0.code(), Some(0));

        // Resumed, the client sees every message and the model the compacted view.
        let mut luxe = spawn(&r.ws, &r.server, provider, &["-c"], &[]);
        let restored = luxe.expect("session_restored");
        let texts = restored_texts(&restored);
        assert_eq!(
            texts[0],
            long("first question"),
            "the store keeps everything"
        );
        assert_eq!(texts.len(), 6);
        r.server.push(Reply::text("fourth answer"));
        turn(&mut luxe, "fourth question");
        let sent = r.server.requests().last().unwrap().body.to_string();
        assert!(sent.contains("SUMMARY: the user asked") && !sent.contains("first question"));
        assert!(sent.contains("third answer") && sent.contains("fourth question"));
    }
}

#[test]
fn an_overflow_compacts_once_and_retries_on_both_providers() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        r.server.push(Reply::text("first answer"));
        turn(&mut r.luxe, &long("first question"));

        r.server.push(overflow(provider));
        r.server.push(Reply::text("SUMMARY-B"));
        r.server.push(Reply::text("answered after compaction"));
        let frames = turn(&mut r.luxe, "second question");
        assert_eq!(
            ended(&frames)["reason"],
            "end_turn",
            "{provider:?}: {frames:?}"
        );
        let started = of_kind(&frames, "compaction_started");
        assert_eq!(started[0]["trigger"], "overflow");
        assert_eq!(started[0]["turn_id"], ended(&frames)["turn_id"]);
        assert!(
            of_kind(&frames, "compaction_ended")[0]
                .get("error")
                .is_none()
        );
        let requests = r.server.requests();
        assert_eq!(requests.len(), 4);
        assert!(is_summary_request(&requests[2].body));
        let retried = requests[3].body.to_string();
        assert!(retried.contains("SUMMARY-B") && retried.contains("second question"));
        assert!(!retried.contains("first question"), "{retried}");

        // Still too long after compacting: the oldest turns are dropped, with a note to the
        // model, and the request is sent again.
        r.server.push(overflow(provider));
        r.server.push(Reply::text("SUMMARY-D"));
        r.server.push(overflow(provider));
        r.server.push(Reply::text("answered after dropping"));
        let frames = turn(&mut r.luxe, &long("third question"));
        let end = ended(&frames);
        assert_eq!(end["reason"], "end_turn", "{provider:?}: {frames:?}");
        assert_eq!(
            of_kind(&frames, "compaction_started").len(),
            1,
            "summarized once a turn"
        );
        let requests = r.server.requests();
        assert_eq!(requests.len(), 8);
        let dropped = requests[7].body.to_string();
        assert!(
            dropped.contains("were dropped without a summary"),
            "{dropped}"
        );
        assert!(dropped.contains("third question"), "{dropped}");
        r.server.push(Reply::text("still here"));
        assert_eq!(ended(&turn(&mut r.luxe, "hello?"))["reason"], "end_turn");

        // The last message alone too long: the turn says why, and the next one works.
        for _ in 0..10 {
            r.server.push(overflow(provider));
        }
        let frames = turn(&mut r.luxe, &long("too long alone"));
        let end = ended(&frames);
        assert_eq!(end["reason"], "error", "{provider:?}: {frames:?}");
        let error = end["error"].as_str().unwrap();
        assert!(
            error.contains("the last message alone is too long"),
            "{error}"
        );
        r.server.clear_replies();
        // The provider's count says the view is still too long: the next turn compacts first.
        r.server.push(Reply::text("SUMMARY-E"));
        r.server.push(Reply::text("and again"));
        let frames = turn(&mut r.luxe, "short");
        assert_eq!(ended(&frames)["reason"], "end_turn", "{frames:?}");
        let last = r.server.requests().last().unwrap().body.clone();
        let roles: Vec<&Value> = last["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &m["role"])
            .filter(|r| *r != "system")
            .collect();
        assert!(roles.windows(2).all(|w| w[0] != w[1]), "{last}");
    }
}

#[test]
fn near_the_context_window_a_turn_compacts_before_its_request() {
    for provider in BOTH {
        let mut r = rig(provider, &[], &[]);
        // The provider counts the prompt at 95% of the window (200k / 400k tokens).
        let input = match provider {
            Provider::Anthropic => 190_000,
            Provider::OpenAi => 380_000,
        };
        r.server.push(Reply::Stream(
            Script::new(vec![Part::Text(vec!["big".into()])], Stop::EndTurn).with_usage(
                ScriptUsage {
                    input,
                    output: 10,
                    ..ScriptUsage::default()
                },
            ),
        ));
        turn(&mut r.luxe, &long("read everything"));
        r.server.push(Reply::text("SUMMARY-C"));
        r.server.push(Reply::text("small again"));
        let frames = turn(&mut r.luxe, "go on");
        assert_eq!(ended(&frames)["reason"], "end_turn", "{frames:?}");
        let started = of_kind(&frames, "compaction_started");
        assert_eq!(started[0]["trigger"], "context_window", "{provider:?}");
        assert!(started[0]["tokens_before"].as_u64().unwrap() >= input);
        let requests = r.server.requests();
        assert!(is_summary_request(&requests[1].body));
        assert!(requests[2].body.to_string().contains("SUMMARY-C"));
        let usage = of_kind(&frames, "turn_usage");
        assert!(
            usage[0]["prompt_tokens"].as_u64().unwrap() >= 20,
            "the summary request counts in the turn's usage"
        );
    }
}

#[test]
fn compact_is_refused_while_busy_or_with_nothing_to_compact_and_can_be_interrupted() {
    let mut r = rig(Provider::Anthropic, &[], &[]);
    r.luxe
        .send(r#"{"kind":"compact","content":{"request_id":"early"}}"#);
    let rejected = r.luxe.expect("action_rejected");
    assert_eq!(rejected["request_id"], "early");
    assert!(
        rejected["reason"]
            .as_str()
            .unwrap()
            .contains("nothing to compact")
    );

    r.server.push(Reply::text("one"));
    turn(&mut r.luxe, "question one");
    // A slow stream rather than a silent server: curl notices a cancelled request only when
    // the server speaks again, and a silent one would hold the connection.
    r.server.push(Reply::Stream(
        Script::new(vec![Part::Text(vec!["slow".into(); 50])], Stop::EndTurn)
            .with_delay(Duration::from_millis(100)),
    ));
    submit(&mut r.luxe, "question two");
    r.luxe.until("turn_started");
    r.luxe
        .send(r#"{"kind":"compact","content":{"request_id":"busy"}}"#);
    let rejected = r.luxe.expect("action_rejected");
    assert_eq!(rejected["request_id"], "busy");
    assert!(
        rejected["reason"]
            .as_str()
            .unwrap()
            .contains("turn is running")
    );
    r.luxe.send(r#"{"kind":"interrupt_turn"}"#);
    until_turn_ended(&mut r.luxe);

    // A compaction holds the session: messages queue behind it, and interrupt stops it.
    r.server.push(Reply::Stream(
        Script::new(vec![Part::Text(vec!["slow".into(); 50])], Stop::EndTurn)
            .with_delay(Duration::from_millis(100)),
    ));
    r.luxe
        .send(r#"{"kind":"compact","content":{"request_id":"c2"}}"#);
    r.luxe.until("compaction_started");
    submit(&mut r.luxe, "queued question");
    assert_eq!(r.luxe.expect("user_message_queued")["position"], 1);
    r.luxe
        .send(r#"{"kind":"steer_turn","content":{"text":"x"}}"#);
    assert_eq!(
        r.luxe.expect("action_rejected")["reason"],
        "no turn is running"
    );
    r.server.push(Reply::text("queued answer"));
    r.luxe.send(r#"{"kind":"interrupt_turn"}"#);
    let done = r.luxe.expect("compaction_ended");
    assert_eq!(done["request_id"], "c2");
    assert_eq!(done["error"], "interrupted");
    assert_eq!(done["tokens_after"], done["tokens_before"]);
    r.luxe.expect("state_changed");
    let frames = until_turn_ended(&mut r.luxe);
    assert_eq!(of_kind(&frames, "turn_started")[0]["source"], "queue");
    assert_eq!(ended(&frames)["reason"], "end_turn");
    let sent = r.server.requests().last().unwrap().body.to_string();
    assert!(
        sent.contains("question one"),
        "an interrupted compaction changes nothing"
    );
}
