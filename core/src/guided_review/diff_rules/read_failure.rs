//! Why a diff could not be read, as io found it, and how the client is told: io names the
//! step that failed and passes the error's own words; the sentence the client reads (in
//! `review_load_failed` and the like) is made here, so it is the same whoever reads the diff.

use std::fmt;

/// A diff read that failed, in io's facts; its [`fmt::Display`] is the client's sentence.
/// Every `reason` is the error's own words, as [`reason`] puts them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFailure {
    /// No repository holds `cwd`, nor any of its parents.
    NotARepository {
        /// The directory the review was asked for.
        cwd: String,
    },
    /// The repository that holds `cwd` could not be opened.
    CannotOpen {
        /// The directory the review was asked for.
        cwd: String,
        /// Why not.
        reason: String,
    },
    /// The repository is bare: there is no working tree to review.
    Bare {
        /// Its git directory.
        git_dir: String,
    },
    /// A path on disk could not be read (the working tree's root, a changed file).
    Path {
        /// The path, absolute.
        path: String,
        /// Why not.
        reason: String,
    },
    /// HEAD could not be read.
    Head(String),
    /// A commit could not be read.
    Commit {
        /// Its object id, in full hex.
        commit: String,
        /// Why not.
        reason: String,
    },
    /// A tree could not be read.
    Tree {
        /// Its object id, in full hex.
        tree: String,
        /// Why not.
        reason: String,
    },
    /// A blob (one side of a changed file) could not be read.
    Blob {
        /// Its object id, in full hex.
        blob: String,
        /// Why not.
        reason: String,
    },
    /// A conflicted path's entry in HEAD could not be read.
    InHead {
        /// The path, as git names it.
        path: String,
        /// Why not.
        reason: String,
    },
    /// The index could not be read.
    Index(String),
    /// HEAD could not be compared with the index (a `staged` review).
    HeadAgainstIndex(String),
    /// Git's status of the working tree could not be read.
    Status(String),
    /// Two trees could not be compared (a `branch` or `commits` review).
    Diff(String),
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
            Self::NotARepository { cwd } => {
                write!(f, "not a git repository: {cwd} (nor any of its parents)")
            }
            Self::CannotOpen { cwd: path, reason } | Self::Path { path, reason } => {
                write!(f, "{path}: {reason}")
            }
            Self::Bare { git_dir } => {
                write!(
                    f,
                    "{git_dir}: a bare repository has no working tree to review"
                )
            }
            Self::Head(reason) => write!(f, "HEAD: {reason}"),
            Self::Commit { commit, reason } => write!(f, "commit {commit}: {reason}"),
            Self::Tree { tree, reason } => write!(f, "tree {tree}: {reason}"),
            Self::Blob { blob, reason } => write!(f, "blob {blob}: {reason}"),
            Self::InHead { path, reason } => write!(f, "{path} in HEAD: {reason}"),
            Self::Index(reason) => write!(f, "the index: {reason}"),
            Self::HeadAgainstIndex(reason) => write!(f, "HEAD against the index: {reason}"),
            Self::Status(reason) => write!(f, "status: {reason}"),
            Self::Diff(reason) => write!(f, "diff: {reason}"),
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

impl From<ReadFailure> for String {
    fn from(failure: ReadFailure) -> Self {
        failure.to_string()
    }
}

/// An error in words from what failed (`what`, the error's own message) and its deepest cause:
/// the cause is added only when the message does not already say it.
pub fn reason(what: &str, cause: &str) -> String {
    if what.contains(cause) {
        what.to_owned()
    } else {
        format!("{what}: {cause}")
    }
}

#[cfg(test)]
mod tests {
    use quickcheck::quickcheck;

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

    #[test]
    fn a_failed_git_read_names_the_step_then_git_s_words() {
        let cases = [
            (
                ReadFailure::NotARepository {
                    cwd: "/w/app".into(),
                },
                "not a git repository: /w/app (nor any of its parents)",
            ),
            (
                ReadFailure::CannotOpen {
                    cwd: "/w/app".into(),
                    reason: "bad config".into(),
                },
                "/w/app: bad config",
            ),
            (
                ReadFailure::Bare {
                    git_dir: "/w/app.git".into(),
                },
                "/w/app.git: a bare repository has no working tree to review",
            ),
            (
                ReadFailure::Path {
                    path: "/w/app/a.rs".into(),
                    reason: "Permission denied (os error 13)".into(),
                },
                "/w/app/a.rs: Permission denied (os error 13)",
            ),
            (ReadFailure::Head("broken ref".into()), "HEAD: broken ref"),
            (
                ReadFailure::Commit {
                    commit: "abc1".into(),
                    reason: "missing".into(),
                },
                "commit abc1: missing",
            ),
            (
                ReadFailure::Tree {
                    tree: "abc2".into(),
                    reason: "missing".into(),
                },
                "tree abc2: missing",
            ),
            (
                ReadFailure::Blob {
                    blob: "abc3".into(),
                    reason: "missing".into(),
                },
                "blob abc3: missing",
            ),
            (
                ReadFailure::InHead {
                    path: "src/a.rs".into(),
                    reason: "missing".into(),
                },
                "src/a.rs in HEAD: missing",
            ),
            (ReadFailure::Index("corrupt".into()), "the index: corrupt"),
            (
                ReadFailure::HeadAgainstIndex("corrupt".into()),
                "HEAD against the index: corrupt",
            ),
            (ReadFailure::Status("corrupt".into()), "status: corrupt"),
            (ReadFailure::Diff("corrupt".into()), "diff: corrupt"),
        ];
        for (failure, words) in cases {
            assert_eq!(String::from(failure), words);
        }
    }

    #[test]
    fn a_cause_is_added_only_when_the_message_lacks_it() {
        assert_eq!(
            reason("object not found", "object not found"),
            "object not found"
        );
        assert_eq!(
            reason("cannot read ref: No such file", "No such file"),
            "cannot read ref: No such file"
        );
        assert_eq!(
            reason("cannot read ref", "No such file"),
            "cannot read ref: No such file"
        );
    }

    quickcheck! {
        fn a_reason_says_both_what_failed_and_why(what: String, cause: String) -> bool {
            let words = reason(&what, &cause);
            words.starts_with(&what) && words.contains(&cause)
        }
    }
}
