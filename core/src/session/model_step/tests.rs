//! A model step on its own, fed what an HTTP exchange brings: a stream shown and finished, a
//! secret split across deltas held back, error bodies read into the right ending, and the
//! retry waits.

use super::*;
use crate::model::openai::OpenAiStream;

fn step() -> ModelStep {
    let sent = Sent {
        http: EffectId(7),
        attempt: 1,
        provider: Provider::OpenAi,
        history_len: 3,
        estimated_prompt: 100,
    };
    ModelStep::new(sent, Box::new(OpenAiStream::default()))
}

fn chunk(delta: serde_json::Value) -> String {
    format!(
        "data: {}\n\n",
        serde_json::json!({"choices":[{"index":0,"delta":delta}]})
    )
}

/// Feeds `body` as one response and folds its events in: the text shown, and the ending.
fn run(step: &mut ModelStep, redactor: &Redactor, body: &str) -> (String, Option<Outcome>) {
    step.response(200, None);
    let mut events = step.body(body.as_bytes());
    events.extend(step.ended().expect("a stream"));
    let mut shown = String::new();
    for event in events {
        match step.event(event, Some(redactor)) {
            Ok(frames) => {
                for frame in frames.into_iter().flatten() {
                    if let Event::TokenDelta(d) = frame {
                        shown.push_str(&d.delta);
                    }
                }
            }
            Err(outcome) => return (shown, Some(outcome)),
        }
    }
    if let Some(Event::TokenDelta(d)) = step.rest() {
        shown.push_str(&d.delta);
    }
    (shown, None)
}

#[test]
fn a_stream_is_shown_and_ends_with_its_stop_reason() {
    let mut step = step();
    let body = chunk(serde_json::json!({"content":"hel"}))
        + &chunk(serde_json::json!({"content":"lo"}))
        + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
    let (shown, outcome) = run(&mut step, &Redactor::new([]), &body);
    assert_eq!(shown, "hello");
    assert!(
        matches!(outcome, Some(Outcome::Finished(StopReason::EndTurn))),
        "{outcome:?}"
    );
    assert!(step.assembler().has_output());
    assert_eq!(
        (step.attempt(), step.history_len(), step.estimated_prompt()),
        (1, 3, 100)
    );
}

#[test]
fn a_secret_split_across_deltas_is_never_shown() {
    let secret = "sk-live-9f8e7d6c5b4a";
    let mut step = step();
    let body = chunk(serde_json::json!({"content":"key sk-live-9f8"}))
        + &chunk(serde_json::json!({"content":"e7d6c5b4a done"}));
    let (shown, _) = run(&mut step, &Redactor::new([secret.to_owned()]), &body);
    assert!(!shown.contains("sk-live"), "{shown}");
    assert!(
        shown.starts_with("key ") && shown.ends_with(" done"),
        "{shown}"
    );
}

#[test]
fn a_summary_is_folded_in_but_not_shown() {
    let mut step = step();
    step.response(200, None);
    let events = step.body(chunk(serde_json::json!({"content":"summary"})).as_bytes());
    for event in events {
        assert!(matches!(step.event(event, None), Ok([None, None])));
    }
    assert!(step.assembler().has_output());
}

#[test]
fn error_bodies_end_the_step_as_they_should() {
    let ended = |status: u16, body: &str| {
        let mut step = step();
        step.response(status, Some("2".into()));
        assert!(
            step.body(body.as_bytes()).is_empty(),
            "an error body decodes to nothing"
        );
        step.ended().expect_err("an error response")
    };
    let overflow = r#"{"error":{"code":400,"message":"request (4117 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4117,"n_ctx":4096}}"#;
    match ended(400, overflow) {
        Outcome::Overflow(_, facts) => assert_eq!(facts.window, Some(4096)),
        other => panic!("{other:?}"),
    }
    match ended(503, r#"{"error":{"message":"busy"}}"#) {
        Outcome::Retry { retry_after, .. } => assert_eq!(retry_after.as_deref(), Some("2")),
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(ended(401, "{}"), Outcome::Fail(m) if m.starts_with("the model request failed: HTTP 401"))
    );
}

#[test]
fn a_break_is_retried_only_before_anything_was_shown() {
    let mut step = step();
    assert!(matches!(
        step.broke("r".into(), "f".into()),
        Outcome::Retry { .. }
    ));
    let (_, _) = run(
        &mut step,
        &Redactor::new([]),
        &chunk(serde_json::json!({"content":"x"})),
    );
    assert!(matches!(step.broke("r".into(), "f".into()), Outcome::Fail(f) if f == "f"));
}

#[test]
fn retry_waits_grow_are_jittered_capped_and_follow_retry_after() {
    let (base, max) = (Duration::from_millis(100), Duration::from_secs(2));
    let mut rng = Rng::new(1);
    for attempt in 1..8 {
        let wait = retry_delay(attempt, None, base, max, &mut rng);
        let floor = (base * (1 << (attempt - 1))).min(max);
        assert!(
            wait >= floor && wait <= (floor + floor / 4).min(max),
            "{attempt}: {wait:?}"
        );
    }
    assert_eq!(
        retry_delay(1, Some(" 1.5 "), base, max, &mut rng),
        Duration::from_millis(1500)
    );
    assert_eq!(retry_delay(1, Some("60"), base, max, &mut rng), max);
    let wait = retry_delay(1, Some("soon"), base, max, &mut rng);
    assert!(
        wait >= base && wait <= base + base / 4,
        "an unreadable retry-after is ignored"
    );
}
