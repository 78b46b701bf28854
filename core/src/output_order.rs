//! The one ordering rule io keeps, decided here so that io follows it mechanically and the
//! simulator can check it: a frame reaches the client before any effect queued after it
//! starts (the client hears of a call before the call runs).
//!
//! Outputs go out in the order the session queued them. Frames may wait in io's buffer (one
//! write per drain or batch of drains), so before an effect that follows a frame not yet
//! flushed the core puts an [`Output::Flush`]. A session append is performed on the spot, in
//! that same order, so a record is on disk before any frame after it is written.

use crate::effects::Output;

/// Puts a [`Output::Flush`] before each effect that a frame since the last one precedes.
///
/// It looks at the head of the queue instead of taking it, so an output moves once, from the
/// queue to io: at 100,000 token frames a second each move of an [`Output`] shows.
#[derive(Debug, Default)]
pub(crate) struct OutputOrder {
    /// A frame was given since the last `Flush`.
    unflushed: bool,
}

impl OutputOrder {
    /// Whether an [`Output::Flush`] must go out before `next`, the output at the head of the
    /// queue. Asked once per look: after a `true` the same output is asked about again, and
    /// then goes.
    pub(crate) fn flush_before(&mut self, next: &Output) -> bool {
        if matches!(next, Output::Frame(_)) {
            self.unflushed = true;
            false
        } else {
            is_effect(next) && std::mem::take(&mut self.unflushed)
        }
    }

    /// The next output of `queue`, or the flush that goes before it; `None` once it is empty.
    pub(crate) fn next_of<Q: Queue>(&mut self, queue: &mut Q) -> Option<Output> {
        if self.flush_before(queue.peek()?) {
            return Some(Output::Flush);
        }
        queue.take()
    }
}

/// A queue of outputs whose head can be looked at before it is taken.
pub(crate) trait Queue {
    /// The oldest output, left in place.
    fn peek(&self) -> Option<&Output>;
    /// The oldest output, taken.
    fn take(&mut self) -> Option<Output>;
}

/// Whether io starts `output` as an effect, whose results come back later: everything but
/// frames, flushes, log lines, session appends (performed on the spot) and `Exit`.
pub(crate) fn is_effect(output: &Output) -> bool {
    !matches!(
        output,
        Output::Frame(_)
            | Output::Flush
            | Output::Log(_)
            | Output::AppendFile { .. }
            | Output::Exit { .. }
    )
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::effects::{EffectId, Frame};
    use crate::protocol::events::{Event, SessionsListed};

    fn frame(request: &str) -> Output {
        Output::Frame(Frame::new(Event::SessionsListed(SessionsListed {
            request_id: request.into(),
            sessions: Vec::new(),
        })))
    }

    fn append(id: u64) -> Output {
        Output::AppendFile {
            id: EffectId(id),
            path: "/s".into(),
            bytes: Vec::new(),
        }
    }

    fn kill(id: u64) -> Output {
        Output::Kill { id: EffectId(id) }
    }

    impl Queue for VecDeque<Output> {
        fn peek(&self) -> Option<&Output> {
            self.front()
        }

        fn take(&mut self) -> Option<Output> {
            self.pop_front()
        }
    }

    fn drained(queued: Vec<Output>) -> Vec<Output> {
        let mut queue: VecDeque<Output> = queued.into();
        let mut order = OutputOrder::default();
        std::iter::from_fn(|| order.next_of(&mut queue)).collect()
    }

    #[test]
    fn an_effect_after_a_frame_waits_behind_a_flush() {
        let out = drained(vec![
            frame("a"),
            kill(1),
            kill(2),
            append(3),
            frame("b"),
            append(4),
            kill(5),
            Output::Exit { code: 0 },
        ]);
        assert_eq!(
            out,
            [
                frame("a"),
                Output::Flush,
                kill(1),
                kill(2),
                append(3),
                frame("b"),
                append(4),
                Output::Flush,
                kill(5),
                Output::Exit { code: 0 },
            ]
        );
    }

    #[test]
    fn without_a_frame_before_them_effects_need_no_flush() {
        assert_eq!(drained(vec![kill(1), append(2)]), [kill(1), append(2)]);
        assert_eq!(
            drained(vec![frame("a"), append(1)]),
            [frame("a"), append(1)]
        );
        assert_eq!(drained(Vec::new()), []);
    }

    #[test]
    fn a_frame_of_an_earlier_drain_is_flushed_too() {
        // io may keep a drain's frames for the next write, as it does for a batch of results.
        let mut order = OutputOrder::default();
        let mut drain = |queued: Vec<Output>| {
            let mut queue: VecDeque<Output> = queued.into();
            std::iter::from_fn(|| order.next_of(&mut queue)).collect::<Vec<_>>()
        };
        assert_eq!(drain(vec![frame("a")]), [frame("a")]);
        assert_eq!(drain(vec![kill(1)]), [Output::Flush, kill(1)]);
        assert_eq!(drain(vec![kill(2)]), [kill(2)]);
    }

    #[test]
    fn effects_are_what_io_starts() {
        assert!(!is_effect(&frame("a")));
        assert!(!is_effect(&append(1)));
        assert!(!is_effect(&Output::Flush));
        assert!(!is_effect(&Output::Exit { code: 0 }));
        assert!(is_effect(&kill(1)));
    }
}
