//! The session's routing, by feature: each file holds the `impl Session` methods that lend a
//! feature's machine what it borrows (the outbox, the facts, another machine's answer as a
//! value) and act on what it returns (its `Then`). What to do is decided in the machines, where
//! their unit tests reach it without a session; the feature folders hold only their machines.

mod github;
mod guided_review;
mod stack;
mod state;
mod turn;
