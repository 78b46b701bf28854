//! Why a diff could not be read, as io found it, and how the client is told: io names the
//! step that failed and passes the error's own words; the sentence the client reads (in
//! `review_load_failed` and the like) is made here, so it is the same whoever reads the diff.

use std::fmt;

/// A diff read that failed, in io's facts; its [`fmt::Display`] is the client's sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFailure {
    /// The reader panicked: a bug in luxe (in gix or in io), whose message went to the log.
    ReaderPanicked,
    /// The reader could not be started (its thread was refused), in the system's words.
    ReaderNotStarted(String),
    /// The reader was started but ended before it took the read.
    ReaderEndedAtOnce,
}

impl fmt::Display for ReadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ReaderPanicked => {
                f.write_str("reading the diff failed unexpectedly (a bug in luxe: see the log)")
            }
            Self::ReaderNotStarted(reason) => {
                write!(f, "cannot start reading the diff: {reason}")
            }
            Self::ReaderEndedAtOnce => {
                f.write_str("cannot start reading the diff: the diff thread ended at once")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_reader_is_worded_as_luxe_s_fault_not_the_repository_s() {
        assert_eq!(
            ReadFailure::ReaderPanicked.to_string(),
            "reading the diff failed unexpectedly (a bug in luxe: see the log)"
        );
        assert_eq!(
            ReadFailure::ReaderNotStarted("Resource temporarily unavailable".into()).to_string(),
            "cannot start reading the diff: Resource temporarily unavailable"
        );
        assert_eq!(
            ReadFailure::ReaderEndedAtOnce.to_string(),
            "cannot start reading the diff: the diff thread ended at once"
        );
    }
}
