//! `complete_path`: the files under the working directory whose path holds what a person typed
//! after `@`, best first. io lists them (honouring `.gitignore`, as `glob` does); the ranking is
//! decided here.

use crate::effects::{EffectId, Input, Output};
use crate::protocol::events::PathsCompleted;

use super::outbox::Outbox;
use super::owners::Owner;

/// The most paths one answer gives.
pub(super) const MAX_SHOWN: usize = 50;

/// The most paths io is asked for: more than are shown, so ranking has some to choose from.
const MAX_LISTED: usize = 500;

/// The `complete_path` requests waiting for io's listing.
#[derive(Debug, Default)]
pub(super) struct PathCompletion {
    waiting: Vec<(EffectId, String, String)>,
}

impl PathCompletion {
    /// Asks io for the files under `cwd` whose path holds `prefix`.
    pub(super) fn ask(
        &mut self,
        outbox: &mut Outbox,
        cwd: &str,
        request_id: String,
        prefix: String,
    ) {
        let pattern = format!("**/*{}*", escaped(&prefix));
        let id = outbox.issue(Owner::Completion, |id| Output::ListFiles {
            id,
            root: cwd.to_owned(),
            pattern,
            max_results: MAX_LISTED,
        });
        self.waiting.push((id, request_id, prefix));
    }

    /// io listed the files: the answer to the request that asked (a failed listing answers
    /// with no paths; what failed is the returned error).
    pub(super) fn listed(&mut self, input: &Input<'_>) -> Option<(PathsCompleted, Option<String>)> {
        let Input::FilesListed { id, result } = input else {
            return None;
        };
        let at = self.waiting.iter().position(|(w, _, _)| w == id)?;
        let (_, request_id, prefix) = self.waiting.remove(at);
        let (paths, failure) = match result {
            Ok(paths) => (ranked(paths, &prefix), None),
            Err(why) => (Vec::new(), Some(format!("complete_path: {why}"))),
        };
        let answer = PathsCompleted {
            request_id,
            prefix,
            paths,
        };
        Some((answer, failure))
    }
}

/// `text` with glob's special characters taken literally.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The best [`MAX_SHOWN`] of `paths` for `prefix`: those starting with it, then those whose
/// file name starts with it, then the rest; shorter, then by name, within each.
fn ranked(paths: &[String], prefix: &str) -> Vec<String> {
    let rank = |path: &str| {
        let name = path.rsplit('/').next().unwrap_or(path);
        if path.starts_with(prefix) {
            0
        } else if name.starts_with(prefix) {
            1
        } else {
            2
        }
    };
    let mut paths: Vec<&String> = paths.iter().filter(|p| p.contains(prefix)).collect();
    paths.sort_by_key(|p| (rank(p), p.len(), p.as_str()));
    paths.into_iter().take(MAX_SHOWN).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    fn listed(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| (*p).to_owned()).collect()
    }

    #[test]
    fn io_is_asked_for_files_holding_the_text_taken_literally() {
        let (mut completion, mut outbox) = (PathCompletion::default(), Outbox::default());
        completion.ask(&mut outbox, "/repo", "r1".into(), "src/a*[b]".into());
        let Some(Output::ListFiles { root, pattern, .. }) = outbox.pop() else {
            panic!("a listing");
        };
        assert_eq!(root, "/repo");
        assert_eq!(pattern, r"**/*src/a\*\[b\]*");
        let glob = globset::Glob::new(&pattern)
            .expect("a glob")
            .compile_matcher();
        assert!(glob.is_match("src/a*[b].rs"));
        assert!(!glob.is_match("src/ab.rs"), "the star is literal");
    }

    #[test]
    fn the_answer_ranks_paths_starting_with_the_text_then_file_names_then_the_rest() {
        let (mut completion, mut outbox) = (PathCompletion::default(), Outbox::default());
        completion.ask(&mut outbox, "/repo", "r1".into(), "ma".into());
        let Some(Output::ListFiles { id, .. }) = outbox.pop() else {
            panic!("a listing");
        };
        let paths = listed(&[
            "src/format.rs",
            "src/main.rs",
            "main.rs",
            "make/x",
            "Cargo.toml",
        ]);
        let input = Input::FilesListed {
            id,
            result: Ok(paths),
        };
        let (answer, failure) = completion.listed(&input).expect("its answer");
        assert_eq!(failure, None);
        assert_eq!(answer.request_id, "r1");
        assert_eq!(answer.prefix, "ma");
        assert_eq!(
            answer.paths,
            ["make/x", "main.rs", "src/main.rs", "src/format.rs"]
        );
        assert!(completion.listed(&input).is_none(), "answered once");
    }

    #[test]
    fn a_failed_listing_answers_with_no_paths_and_says_why() {
        let (mut completion, mut outbox) = (PathCompletion::default(), Outbox::default());
        completion.ask(&mut outbox, "/gone", "r1".into(), String::new());
        let Some(Output::ListFiles { id, .. }) = outbox.pop() else {
            panic!("a listing");
        };
        let input = Input::FilesListed {
            id,
            result: Err("/gone: No such file or directory".into()),
        };
        let (answer, failure) = completion.listed(&input).expect("its answer");
        assert!(answer.paths.is_empty());
        assert_eq!(
            failure.as_deref(),
            Some("complete_path: /gone: No such file or directory")
        );
    }

    quickcheck! {
        fn an_answer_holds_only_listed_paths_with_the_text_at_most_fifty(paths: Vec<String>, prefix: String) -> bool {
            let answer = ranked(&paths, &prefix);
            answer.len() <= MAX_SHOWN
                && answer.iter().all(|p| p.contains(prefix.as_str()) && paths.contains(p))
        }
    }
}
