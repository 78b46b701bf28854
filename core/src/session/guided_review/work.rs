//! [`ReviewWork`]: what a review turn is for, the one word the save queue (a kept change
//! starts work) and the turns (the work a turn does) share.

/// What the agent does in a review turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::session) enum ReviewWork {
    /// Answer on finding `.0`'s thread.
    Answer(String),
    /// Change the code for finding `.0`, then `report`.
    Fix(String),
    /// Review the whole diff with `add_finding`.
    Review,
}
