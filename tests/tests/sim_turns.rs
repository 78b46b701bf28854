//! Simulated agent turns on the virtual clock: quickcheck drives random interleavings of client
//! actions, model responses (text, tool calls, errors, dropped connections), tool results, time
//! and interrupts through `luxe-core`. Every step is checked by the harness's ledger (one
//! `turn_ended` per `turn_started`, every prompt settled once, no tool work outside a turn);
//! here we also check that every request to the model is well-formed: each tool call has its
//! result in the very next message.

use std::time::Duration;

use luxe_core::config::Providers;
use luxe_core::effects::EffectId;
use luxe_core::harness::fake_io::http_answer;
use luxe_core::model::wire::Endpoint;
use luxe_core::protocol::events::Event;
use luxe_core::{Input, Output};
use luxe_sim::rpc::{ModelOp, Op, Setup, World, config};
use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde_json::{Value, json};

fn runs() -> u64 {
    std::env::var("QUICKCHECK_TESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

fn random_interleavings_keep_every_promise(setup: Setup, ops: Vec<Op>) -> bool {
    let mut world = World::with(&setup);
    for op in &ops {
        world.step(op);
    }
    // Whatever state it is in, an interrupt ends the turn and the session still answers.
    world.line(json!({"kind":"interrupt_turn"}));
    world.line(json!({"kind":"set_mode","content":{"mode":"plan"}}));
    true
}

#[test]
fn property_random_interleavings_keep_every_promise() {
    QuickCheck::new()
        .tests(runs())
        .quickcheck(random_interleavings_keep_every_promise as fn(Setup, Vec<Op>) -> bool);
}

#[test]
fn a_tool_call_round_trip_in_simulation() {
    let mut world = World::new();
    world.step(&Op::Submit);
    world.step(&Op::Model(ModelOp::Tool(0, vec![7, 99])));
    // The file is opened first; then read inside cwd runs without a prompt, through it.
    assert!(matches!(
        world.effects.front(),
        Some(Output::OpenFile { .. })
    ));
    world.step(&Op::Effect(true));
    assert!(matches!(
        world.effects.front(),
        Some(Output::ReadOpened { .. })
    ));
    world.step(&Op::Effect(true));
    assert_eq!(world.http.len(), 1, "the result went back to the model");
    world.step(&Op::Model(ModelOp::Text(vec![])));
    assert!(world.http.is_empty() && world.effects.is_empty());
}

#[test]
fn retries_back_off_on_the_virtual_clock() {
    let mut world = World::new();
    world.step(&Op::Submit);
    world.step(&Op::Model(ModelOp::Status(529)));
    assert!(world.http.is_empty(), "waiting before the retry");
    world.step(&Op::Advance(2000));
    assert_eq!(world.http.len(), 1, "the retry went out after the backoff");
}

/// A llama.cpp-like server at its context limit: a window of `slack` tokens more than the first
/// request takes (the system prompt and the tools, about 5,000 characters, are most of a small
/// window such as llama-server's `-c 2048`), counting a token for every `chars_per_token`
/// characters of the request body; turn `i`'s user message and answer have sizes from `turns[i]`.
#[derive(Clone, Debug)]
struct ContextLimit {
    slack: u64,
    chars_per_token: u64,
    turns: Vec<(u16, u16)>,
}

impl Arbitrary for ContextLimit {
    fn arbitrary(g: &mut Gen) -> Self {
        let turns: Vec<(u16, u16)> = Vec::arbitrary(g);
        Self {
            slack: 300 + u64::from(u16::arbitrary(g) % 12_288),
            chars_per_token: 2 + u64::from(u8::arbitrary(g) % 3),
            turns: turns.into_iter().take(12).collect(),
        }
    }
}

/// An OpenAI-compatible stream of `text`, with the server's counts.
fn openai_text_stream(text: &str, prompt: u64, completion: u64) -> Vec<u8> {
    openai_sse(&[
        json!({"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}),
        json!({"choices":[{"index":0,"delta":{"content":text}}]}),
        json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        json!({"choices":[],"usage":{"prompt_tokens":prompt,"completion_tokens":completion}}),
    ])
}

/// OpenAI chunks as a server streams them, `[DONE]` last.
fn openai_sse(events: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for event in events {
        out.push_str(&format!("data: {event}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

/// Turns at the server's context limit: however the conversation grows, every request that
/// reaches the model has alternating roles, a refusal as too long recovers within the turn, and
/// every turn ends with the model's answer.
fn turns_at_the_context_limit_always_recover(limit: ContextLimit) -> bool {
    let mut world = local_world();
    let mut window = None;
    for (i, (message, answer)) in limit.turns.iter().enumerate() {
        // A user message of up to a fifth of the slack: the window holds it with the base.
        let room = usize::try_from(limit.slack * limit.chars_per_token / 5).unwrap_or(1_000);
        let text = format!(
            "question {i}: {}",
            "1, 2, 3, ".repeat(usize::from(*message) % room / 9)
        );
        world.line(json!({"kind":"submit_user_message","content":{"text":text}}));
        let mut refusals = 0;
        while world.ended.len() <= i {
            let Some(id) = world.http.pop_front() else {
                panic!("a turn waits on nothing: {:?}", world.ended);
            };
            let body = world.bodies.remove(&id).expect("a request has a body");
            let tokens = body.len() as u64 / limit.chars_per_token;
            let window = *window.get_or_insert(tokens + limit.slack);
            let max: u64 =
                serde_json::from_slice::<Value>(&body).expect("JSON")["max_completion_tokens"]
                    .as_u64()
                    .expect("max_completion_tokens");
            if tokens > window {
                refusals += 1;
                assert!(refusals <= 8, "refused {refusals} times in one turn");
                let error = json!({"error":{"code":400,"message":format!("request ({tokens} tokens) exceeds the available context size ({window} tokens), try increasing it"),"type":"exceed_context_size_error","n_prompt_tokens":tokens,"n_ctx":window}});
                world.fail_with(id, 400, error.to_string().as_bytes());
                continue;
            }
            let chars = (usize::from(*answer) % 2_000).min(usize::try_from(max).unwrap_or(0) * 2);
            let reply = format!("answer {i} {}", "x".repeat(chars));
            let stream =
                openai_text_stream(&reply, tokens, reply.len() as u64 / limit.chars_per_token);
            world.run(http_answer(id, 200, [&stream[..]]));
        }
        assert!(
            world.ended[i].starts_with("\"end_turn\""),
            "turn {i} ended {:?} with {limit:?}",
            world.ended[i]
        );
    }
    true
}

#[test]
fn property_turns_at_the_context_limit_always_recover() {
    QuickCheck::new()
        .tests(runs() / 3)
        .quickcheck(turns_at_the_context_limit_always_recover as fn(ContextLimit) -> bool);
}

/// A session on a local OpenAI-compatible server's model, outside the catalogue.
/// A session on a local server whose questions about the model stay unanswered; its turns
/// do not wait for them (the waiting has tests of its own).
fn local_world() -> World {
    local_world_waiting(Duration::ZERO)
}

/// The same, with turns waiting up to `window_wait` for the server's word on the window.
fn local_world_waiting(window_wait: Duration) -> World {
    let mut config = config();
    config.timings.window_wait = window_wait;
    config.model = Some("openai/smollm2".into());
    config.providers = Providers {
        anthropic: None,
        openai: Some(Endpoint {
            base_url: "http://llama.test/v1".into(),
            api_key: None,
        }),
    };
    World::with_config(config, Vec::new())
}

/// Streams `events` (OpenAI chunks) as the answer to the oldest model request; its body.
fn answer_openai(world: &mut World, events: &[Value]) -> Value {
    let id = world.http.pop_front().expect("a model request");
    let body = world.bodies.remove(&id).expect("a body");
    world.run(http_answer(id, 200, [&openai_sse(events)[..]]));
    serde_json::from_slice(&body).expect("JSON")
}

/// Answers the server's question `id` with 200 and `body`, all but its end.
fn answer_but_end(world: &mut World, id: EffectId, body: &[u8]) {
    world.input(Input::HttpResponse {
        id,
        status: 200,
        retry_after: None,
    });
    world.input(Input::HttpBody { id, bytes: body });
}

fn submit_go(world: &mut World) {
    world.line(json!({"kind":"submit_user_message","content":{"text":"go"}}));
}

#[test]
fn the_token_limit_in_the_middle_of_a_tool_call_ends_the_turn_max_tokens() {
    let mut world = local_world();
    submit_go(&mut world);
    answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}),
            json!({"choices":[{"index":0,"delta":{"content":"Let me read it."}}]}),
            json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\": \"src/ma"}}]}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}),
        ],
    );
    assert_eq!(world.ended[0], "\"max_tokens\" ");
    submit_go(&mut world);
    let next = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"ok"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert!(
        next.to_string().contains("Let me read it."),
        "the text is kept: {next}"
    );
    assert_eq!(world.ended[1], "\"end_turn\" ");
}

#[test]
fn an_answer_that_is_only_reasoning_is_kept_in_the_conversation() {
    let mut world = local_world();
    submit_go(&mut world);
    answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"reasoning_content":"thinking it over"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert_eq!(world.ended[0], "\"end_turn\" ");
    submit_go(&mut world);
    let next = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"ok"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    let messages = next["messages"].as_array().expect("messages");
    assert_eq!(
        messages[2],
        json!({"role":"assistant","content":"thinking it over"}),
        "{next}"
    );
}

#[test]
fn an_interrupted_turn_counts_what_streamed_and_unknown_prices_make_the_session_cost_null() {
    let mut world = local_world();
    submit_go(&mut world);
    let id = *world.http.front().expect("a model request");
    world.input(Input::HttpResponse {
        id,
        status: 200,
        retry_after: None,
    });
    let mut stream = String::new();
    for _ in 0..120 {
        let chunk = json!({"choices":[{"index":0,"delta":{"content":"word "}}]});
        stream.push_str(&format!("data: {chunk}\n\n"));
    }
    world.input(Input::HttpBody {
        id,
        bytes: stream.as_bytes(),
    });
    let out = world.checked.line(br#"{"kind":"interrupt_turn"}"#);
    let usage = out
        .iter()
        .find_map(|o| match o {
            Output::Frame(frame) => match frame.event() {
                Event::TurnUsage(u) => Some(serde_json::to_value(u).expect("JSON")),
                _ => None,
            },
            _ => None,
        })
        .expect("turn_usage");
    world.absorb(out);
    assert!(
        usage["completion_tokens"].as_u64().unwrap() >= 100,
        "{usage}"
    );
    assert!(usage["prompt_tokens"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(usage["cost_usd"], Value::Null);
    assert_eq!(usage["session_cost_usd"], Value::Null, "{usage}");
}

#[test]
fn a_llama_cpp_overflow_teaches_the_window_and_output_is_capped_to_fit() {
    let mut world = local_world();
    submit_go(&mut world);
    let answer = "1, 2, 3, ".repeat(300);
    answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":answer}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    submit_go(&mut world);
    let id = world.http.pop_front().expect("a model request");
    let first: Value = serde_json::from_slice(&world.bodies.remove(&id).unwrap()).unwrap();
    assert!(
        first["max_completion_tokens"].as_u64().unwrap() <= 4_096,
        "no more than a small model's whole context when the window is not known: {}",
        first["max_completion_tokens"]
    );
    let body = br#"{"error":{"code":400,"message":"request (2117 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":2117,"n_ctx":2048}}"#;
    let out = {
        world.input(Input::HttpResponse {
            id,
            status: 400,
            retry_after: None,
        });
        world.input(Input::HttpBody { id, bytes: body });
        world.checked.input(Input::HttpEnded { id })
    };
    let learned = out.iter().find_map(|o| match o {
        Output::Frame(frame) => match frame.event() {
            Event::StateChanged(s) => s.model.as_ref().and_then(|m| m.context_window),
            _ => None,
        },
        _ => None,
    });
    world.absorb(out);
    assert_eq!(
        learned,
        Some(2048),
        "state_changed shows the window learned"
    );
    let id = *world.http.front().expect("sent again");
    let again: Value = serde_json::from_slice(&world.bodies[&id]).unwrap();
    assert!(
        again["max_completion_tokens"].as_u64().unwrap() <= 2048 / 4 + 256,
        "{}",
        again["max_completion_tokens"]
    );
}

#[test]
fn the_first_request_waits_for_the_window_and_fits_it_with_its_output_cap() {
    let mut world = local_world_waiting(Duration::from_secs(2));
    submit_go(&mut world);
    assert!(
        world.http.is_empty(),
        "no request while the server is asked"
    );
    // A question that fails changes nothing: the others may still say the window.
    let (models, _) = world.gets[0].clone();
    world.input(Input::HttpFailed {
        id: models,
        error: "connection refused".into(),
    });
    assert!(world.http.is_empty(), "/props and /api/show are still out");
    let (props, _) = world.gets[1].clone();
    answer_but_end(
        &mut world,
        props,
        br#"{"default_generation_settings":{"n_ctx":2048}}"#,
    );
    assert!(world.http.is_empty(), "not before the answer is whole");
    world.input(Input::HttpEnded { id: props });
    assert_eq!(world.http.len(), 1, "the window is known: sent");
    let first = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"hi"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    let cap = first["max_completion_tokens"].as_u64().unwrap();
    let chars = first["messages"].to_string().len() + first["tools"].to_string().len();
    assert!(
        (chars as u64).div_ceil(3) + cap <= 2048,
        "{chars} characters at 3 a token and {cap} fit the window"
    );
}

#[test]
fn a_first_request_waits_for_the_window_no_longer_than_window_wait() {
    let mut world = local_world_waiting(Duration::from_secs(2));
    submit_go(&mut world);
    let out = world.checked.advance(Duration::from_millis(1_999));
    world.absorb(out);
    assert!(world.http.is_empty(), "still waiting");
    let out = world.checked.advance(Duration::from_millis(1));
    world.absorb(out);
    assert_eq!(world.http.len(), 1, "sent without the window");
    let sent: Value = serde_json::from_slice(&world.bodies[&world.http[0]]).unwrap();
    assert_eq!(
        sent["max_completion_tokens"], 4096,
        "a model of unknown size"
    );
}

#[test]
fn the_server_says_its_window_and_that_its_template_cannot_use_tools() {
    let mut world = local_world();
    let urls: Vec<&str> = world.gets.iter().map(|(_, url)| url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://llama.test/v1/models",
            "http://llama.test/props",
            "http://llama.test/api/show"
        ]
    );
    // Without a wait, a turn goes ahead while the server has not answered.
    submit_go(&mut world);
    let first = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"hi"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert!(first["tools"].is_array());
    let (props, _) = world.gets[1].clone();
    let answer = br#"{"default_generation_settings":{"n_ctx":2048},"chat_template_caps":{"supports_tools":false}}"#;
    answer_but_end(&mut world, props, answer);
    let out = world.checked.input(Input::HttpEnded { id: props });
    let state = out
        .iter()
        .rev()
        .find_map(|o| match o {
            Output::Frame(frame) => match frame.event() {
                Event::StateChanged(s) => s.model.clone(),
                _ => None,
            },
            _ => None,
        })
        .expect("state_changed says what was learned");
    world.absorb(out);
    assert_eq!(state.context_window, Some(2048));
    assert_eq!(state.supports_tools, Some(false));
    submit_go(&mut world);
    let second = answer_openai(
        &mut world,
        &[
            json!({"choices":[{"index":0,"delta":{"content":"hi"}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
        ],
    );
    assert!(
        second.get("tools").is_none(),
        "no tools for a template that drops them"
    );
    assert!(second["max_completion_tokens"].as_u64().unwrap() <= 2048);
    // The other question times out and is given up.
    let (models, _) = world.gets[0].clone();
    let out = world.checked.advance(Duration::from_secs(6));
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::CancelHttp { id } if *id == models))
    );
}
