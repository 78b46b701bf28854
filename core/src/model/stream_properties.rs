//! Properties every provider's stream decoder must keep, shared by their tests.

use super::sse::split_at;
use super::wire::{ModelEvent, StreamDecoder};

/// Decodes `chunks` in order with a fresh decoder.
pub(crate) fn decode_chunks<D: StreamDecoder + Default>(chunks: &[&[u8]]) -> Vec<ModelEvent> {
    let mut decoder = D::default();
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.push(chunk, &mut out);
    }
    decoder.finish(&mut out);
    out
}

/// Cutting `stream` anywhere gives the same events as feeding it whole.
pub(crate) fn chunking_is_invisible<D: StreamDecoder + Default>(
    stream: &[u8],
    cuts: &[usize],
) -> bool {
    decode_chunks::<D>(&split_at(stream, cuts)) == decode_chunks::<D>(&[stream])
}

/// A stream that stops anywhere ends in exactly one terminal event, and it is the last.
pub(crate) fn cut_anywhere_ends_once<D: StreamDecoder + Default>(
    stream: &[u8],
    cut: usize,
) -> bool {
    let out = decode_chunks::<D>(&[&stream[..cut % (stream.len() + 1)]]);
    let terminal = |e: &ModelEvent| matches!(e, ModelEvent::Finished(_) | ModelEvent::Error { .. });
    out.iter().filter(|e| terminal(e)).count() == 1 && out.last().is_some_and(terminal)
}

/// Overwritten bytes never panic, and chunking stays invisible.
pub(crate) fn corruption_is_harmless<D: StreamDecoder + Default>(
    mut stream: Vec<u8>,
    flips: &[(usize, u8)],
    cuts: &[usize],
) -> bool {
    let len = stream.len();
    for &(at, byte) in flips {
        stream[at % len] = byte;
    }
    chunking_is_invisible::<D>(&stream, cuts)
}
