//! Codec cost per frame: decoding a valid action, rejecting garbage, encoding an event.
//! `cargo bench -p luxe-core --bench codec`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use luxe_core::protocol::codec::{decode, encode};
use luxe_core::protocol::events::{Event, ModelCost, ModelInfo, StateChanged};
use luxe_core::protocol::values::{Mode, PermissionMode, Thinking};
use std::hint::black_box;

fn state_changed() -> Event {
    Event::StateChanged(StateChanged {
        model: Some(ModelInfo {
            id: "anthropic/claude-sonnet-4-5".into(),
            provider: "anthropic".into(),
            name: "Claude Sonnet 4.5".into(),
            context_window: Some(200_000),
            max_output_tokens: Some(64_000),
            reasoning: true,
            available: true,
            cost: Some(ModelCost {
                input: 3.0,
                output: 15.0,
                cache_read: 0.3,
                cache_write: 3.75,
            }),
            supports_tools: None,
        }),
        streaming: false,
        mode: Mode::Build,
        thinking: Thinking::Off,
        permission_mode: PermissionMode::Default,
        auto_approve: false,
        trust_project: false,
    })
}

fn codec(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    group.throughput(Throughput::Elements(1));
    let submit = br#"{"kind":"submit_user_message","content":{"text":"what does this repo do?"}}"#;
    group.bench_function("decode submit_user_message", |b| {
        b.iter(|| decode(black_box(submit)))
    });
    let steer = br#"{"kind":"steer_turn","content":{}}"#;
    group.bench_function("decode bad content (steer_turn)", |b| {
        b.iter(|| decode(black_box(steer)))
    });
    group.bench_function("decode malformed line", |b| {
        b.iter(|| decode(black_box(b"this is not json at all")))
    });
    let event = state_changed();
    let mut out = Vec::with_capacity(1024);
    group.bench_function("encode state_changed", |b| {
        b.iter(|| {
            out.clear();
            encode(black_box(&event), &mut out);
        })
    });
    let rejected = decode(b"garbage").expect_err("garbage").into_event();
    group.bench_function("encode action_rejected", |b| {
        b.iter(|| {
            out.clear();
            encode(black_box(&rejected), &mut out);
        })
    });
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
