//! The stack a branch is the top of: the local branches whose heads lie on HEAD's first-parent
//! line above the default branch, bottom first.

use std::collections::BTreeMap;

/// `line` is `git rev-list --first-parent HEAD --not origin/<default>` (newest first); `local`
/// the local branches. Branches at the same commit keep only the current one, else the first
/// by name; the default branch itself is never part of a stack.
pub fn stack_of_head(
    line: &[String],
    local: &BTreeMap<String, String>,
    current: Option<&str>,
    default_branch: &str,
) -> Vec<String> {
    let mut stack = Vec::new();
    for commit in line.iter().rev() {
        let mut here = local
            .iter()
            .filter(|(name, sha)| *sha == commit && name.as_str() != default_branch)
            .map(|(name, _)| name.as_str());
        let first = here.next();
        let chosen = match current {
            Some(current) if local.get(current) == Some(commit) => Some(current),
            _ => first,
        };
        if let Some(branch) = chosen {
            stack.push(branch.to_owned());
        }
    }
    stack
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bottom_first_from_the_line_of_head() {
        let line: Vec<String> = ["c3", "c2", "c1"].map(String::from).to_vec();
        let local: BTreeMap<String, String> = [
            ("main", "c0"),
            ("a", "c1"),
            ("b", "c2"),
            ("b-copy", "c2"),
            ("top", "c3"),
            ("other", "zz"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .into();
        assert_eq!(
            stack_of_head(&line, &local, Some("top"), "main"),
            ["a", "b", "top"]
        );
        assert_eq!(
            stack_of_head(&line, &local, Some("b-copy"), "main"),
            ["a", "b-copy", "top"]
        );
        assert!(stack_of_head(&[], &local, Some("main"), "main").is_empty());
    }
}
