//! The session's routing, by feature: each file holds the `impl Session` methods that lend a
//! feature's machine what it borrows (the outbox, the facts, another machine's answer as a value)
//! and act on what it returns. What to do is decided in the machines, where their unit tests
//! reach it without a session; the feature files themselves hold only their machines.

mod conversation;
mod github;
