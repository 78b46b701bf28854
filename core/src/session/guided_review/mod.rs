//! Guided review, the session's side: the open review and everything the session does with it.
//! The pure review (diffs, hunks, chapters, findings) is `crate::guided_review`'s; these files hold
//! the machines that keep one open in a session, and the session's routing to them.
//!
//! Read bottom up (each file uses only those above it in this list):
//! - `work.rs`: what a review turn is for.
//! - `save_queue.rs` (*machine*): the save queue, one change at a time.
//! - `turns.rs`: agent turns on the open review, their `report` and `add_finding` tools and
//!   what a turn leaves on its thread; `prompts.rs`, what such a turn asks the agent.
//! - `open.rs` (*machine*): the open review, loaded, refreshed and read; `open/saving.rs`,
//!   its changes saved through the queue.
//! - `posting.rs`: the open review posted as a pull request review, previewed then confirmed.
//! - `commit_chapters.rs` (*machine*): chapters committed through `git` steps.
//!
//! The `impl Session` methods that lend these machines what they borrow and act on what they
//! answer are the session's routing, `session/routes/guided_review.rs`.

pub(super) mod commit_chapters;
pub(super) mod open;
pub(super) mod posting;
pub(super) mod prompts;
pub(super) mod save_queue;
pub(super) mod turns;
pub(super) mod work;
