//! The core's share of streaming: 10,000 Anthropic and OpenAI text deltas decoded from SSE,
//! folded into the answer and encoded as `token_delta` frames.
//! `cargo bench -p luxe-core --bench stream`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use luxe_core::model::anthropic::AnthropicStream;
use luxe_core::model::assembler::MessageAssembler;
use luxe_core::model::openai::OpenAiStream;
use luxe_core::model::wire::{ModelEvent, StreamDecoder};
use luxe_core::protocol::codec::encode;
use luxe_core::protocol::events::{Event, TokenDelta};
use std::hint::black_box;

const DELTAS: usize = 10_000;

fn anthropic_transcript() -> Vec<u8> {
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    for i in 0..DELTAS {
        s.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"tok{i} \"}}}}\n\n"
        ));
    }
    s.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
        event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n\
        event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s.into_bytes()
}

fn openai_transcript() -> Vec<u8> {
    let mut s = String::new();
    for i in 0..DELTAS {
        s.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"tok{i} \"}},\"logprobs\":null,\"finish_reason\":null}}],\"usage\":null}}\n\n"
        ));
    }
    s.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    s.into_bytes()
}

/// What a turn does with each event on the hot path.
fn fold(events: &[ModelEvent], out: &mut Vec<u8>) {
    let mut assembler = MessageAssembler::default();
    for event in events {
        assembler.apply(event);
        if let ModelEvent::TextDelta { block, text } = event {
            encode(
                &Event::TokenDelta(TokenDelta {
                    block: *block,
                    delta: text.clone(),
                }),
                out,
            );
        }
    }
    black_box(assembler.finish().expect("a whole answer"));
}

/// Decodes a transcript in 16 KiB reads, as io hands it over.
fn decode<D: StreamDecoder + Default>(transcript: &[u8]) -> Vec<ModelEvent> {
    let mut events = Vec::with_capacity(DELTAS + 8);
    let mut decoder = D::default();
    for chunk in transcript.chunks(16 * 1024) {
        decoder.push(chunk, &mut events);
    }
    decoder.finish(&mut events);
    events
}

/// Decodes, folds into the answer and encodes the frames.
fn whole<D: StreamDecoder + Default>(transcript: &[u8]) -> Vec<u8> {
    let events = decode::<D>(transcript);
    let mut out = Vec::with_capacity(1 << 20);
    fold(&events, &mut out);
    out
}

fn stream(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream");
    group.throughput(Throughput::Elements(DELTAS as u64));
    group.sample_size(20);
    let anthropic = anthropic_transcript();
    group.bench_function("anthropic 10k deltas: decode", |b| {
        b.iter(|| decode::<AnthropicStream>(&anthropic))
    });
    group.bench_function("anthropic 10k deltas: decode, fold, encode", |b| {
        b.iter(|| whole::<AnthropicStream>(&anthropic))
    });
    let openai = openai_transcript();
    group.bench_function("openai 10k deltas: decode, fold, encode", |b| {
        b.iter(|| whole::<OpenAiStream>(&openai))
    });
    group.finish();
}

criterion_group!(benches, stream);
criterion_main!(benches);
