//! Which lines of which files a pull request's diff shows, from `gh pr diff` (a unified diff),
//! so review comments are checked before posting: GitHub refuses a whole review for one comment
//! whose line is not in the diff.

use std::collections::BTreeSet;

/// The commentable lines of a diff: `(path, side, line)`, side `LEFT` (old) or `RIGHT` (new).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DiffLines {
    lines: BTreeSet<(String, &'static str, u64)>,
}

impl DiffLines {
    /// Reads a unified diff as `git diff` and `gh pr diff` print it.
    pub fn parse(diff: &str) -> Self {
        let mut lines = BTreeSet::new();
        let mut path: Option<String> = None;
        let mut old_path: Option<String> = None;
        let (mut old, mut new) = (0u64, 0u64);
        let mut in_hunk = false;
        for line in diff.lines() {
            if line.starts_with("diff --git ") {
                in_hunk = false;
            } else if let Some(header) = line.strip_prefix("@@ -") {
                let mut parts = header.split(' ');
                let start = |part: Option<&str>| {
                    part.and_then(|p| p.trim_start_matches('+').split(',').next())
                        .and_then(|n| n.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                old = start(parts.next());
                new = start(parts.next());
                in_hunk = true;
            } else if in_hunk {
                // Inside a hunk every line is content, even one that starts with `---`.
                let Some(path) = &path else { continue };
                match line.as_bytes().first() {
                    Some(b'+') => {
                        lines.insert((path.clone(), "RIGHT", new));
                        new += 1;
                    }
                    Some(b'-') => {
                        lines.insert((path.clone(), "LEFT", old));
                        old += 1;
                    }
                    Some(b' ') | None => {
                        lines.insert((path.clone(), "RIGHT", new));
                        lines.insert((path.clone(), "LEFT", old));
                        old += 1;
                        new += 1;
                    }
                    // `\ No newline at end of file`.
                    _ => {}
                }
            } else if let Some(rest) = line.strip_prefix("--- ") {
                old_path = rest.strip_prefix("a/").map(str::to_owned);
            } else if let Some(rest) = line.strip_prefix("+++ ") {
                // A deleted file is commented on at its old path.
                path = rest
                    .strip_prefix("b/")
                    .map(str::to_owned)
                    .or_else(|| old_path.take());
            }
        }
        Self { lines }
    }

    /// Whether line `line` of `path` on `side` is in the diff.
    pub fn contains(&self, path: &str, side: &str, line: u64) -> bool {
        let side = if side == "LEFT" { "LEFT" } else { "RIGHT" };
        self.lines.contains(&(path.to_owned(), side, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_added_and_deleted_lines_count_on_their_sides() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,4 @@\n fn a() {}\n-fn b() {}\n+fn b() { 1 }\n+fn c() {}\n fn d() {}\n";
        let lines = DiffLines::parse(diff);
        assert!(lines.contains("src/a.rs", "RIGHT", 1) && lines.contains("src/a.rs", "LEFT", 1));
        assert!(lines.contains("src/a.rs", "LEFT", 2) && !lines.contains("src/a.rs", "RIGHT", 5));
        assert!(lines.contains("src/a.rs", "RIGHT", 3) && lines.contains("src/a.rs", "RIGHT", 4));
        assert!(
            lines.contains("src/a.rs", "LEFT", 3),
            "the last context line, old side"
        );
        assert!(!lines.contains("src/b.rs", "RIGHT", 1));
        let deleted =
            "diff --git a/gone.rs b/gone.rs\n--- a/gone.rs\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
        assert!(
            DiffLines::parse(deleted).contains("gone.rs", "LEFT", 1),
            "at its old path"
        );
    }
}
