//! [`Machine`]: what io's driver runs, so that one loop serves `luxe --rpc` ([`crate::Luxe`])
//! and `luxe --acp` ([`crate::acp::Acp`]).

use std::time::Instant;

use crate::effects::{Input, Output};

/// A deterministic state machine with the driver contract [`crate::Luxe`] documents: feed an
/// input, drain the outputs, wait for the next deadline.
pub trait Machine {
    /// Feeds one thing that happened. Drain [`Machine::poll_output`] afterwards.
    fn handle_input(&mut self, now: Instant, input: Input<'_>);
    /// The next instruction for io, or `None` when drained.
    fn poll_output(&mut self) -> Option<Output>;
    /// The earliest deadline at which [`Machine::handle_timeout`] wants to run, if any.
    fn poll_timeout(&self) -> Option<Instant>;
    /// Runs whatever timers are due at `now`.
    fn handle_timeout(&mut self, now: Instant);
    /// Whether the machine has ended; io exits once the outputs are drained.
    fn is_closed(&self) -> bool;
}

/// `Machine` by the type's own methods of the same names, for the machines io can run.
macro_rules! by_own_methods {
    ($($machine:ty),+) => {$(
        impl Machine for $machine {
            fn handle_input(&mut self, now: Instant, input: Input<'_>) {
                Self::handle_input(self, now, input);
            }
            fn poll_output(&mut self) -> Option<Output> {
                Self::poll_output(self)
            }
            fn poll_timeout(&self) -> Option<Instant> {
                Self::poll_timeout(self)
            }
            fn handle_timeout(&mut self, now: Instant) {
                Self::handle_timeout(self, now);
            }
            fn is_closed(&self) -> bool {
                Self::is_closed(self)
            }
        }
    )+};
}

by_own_methods!(crate::Luxe, crate::acp::Acp);
