//! The git probe: `git status --porcelain=v2 --branch` parsed into branch, head, upstream,
//! ahead/behind and dirtiness. The system prompt uses it now; `workspace_updated` will too.

/// The arguments that produce what [`parse`] reads (run with [`NO_OPTIONAL_LOCKS`]).
pub const STATUS_ARGS: &[&str] = &[
    "status",
    "--porcelain=v2",
    "--branch",
    "--untracked-files=normal",
];

/// What luxe's own git runs with: a status never refreshes the user's index, so it never
/// holds `index.lock` while the user's own `git add` needs it.
pub const NO_OPTIONAL_LOCKS: (&str, &str) = ("GIT_OPTIONAL_LOCKS", "0");

/// The state of the checkout.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitStatus {
    /// The branch; `None` when HEAD is detached.
    pub branch: Option<String>,
    /// HEAD's commit; `None` before the first commit.
    pub head: Option<String>,
    /// The upstream branch, when set.
    pub upstream: Option<String>,
    /// Commits ahead of the upstream.
    pub ahead: u32,
    /// Commits behind the upstream.
    pub behind: u32,
    /// Whether anything is changed, staged or untracked.
    pub dirty: bool,
}

/// Parses porcelain v2 output; unknown lines are ignored.
pub fn parse(output: &str) -> GitStatus {
    let mut status = GitStatus::default();
    for line in output.lines() {
        if let Some(rest) = line.strip_prefix("# branch.oid ") {
            status.head = (rest != "(initial)").then(|| rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("# branch.head ") {
            status.branch = (rest != "(detached)").then(|| rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("# branch.upstream ") {
            status.upstream = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("# branch.ab ") {
            for part in rest.split_whitespace() {
                if let Some(n) = part.strip_prefix('+') {
                    status.ahead = n.parse().unwrap_or(0);
                } else if let Some(n) = part.strip_prefix('-') {
                    status.behind = n.parse().unwrap_or(0);
                }
            }
        } else if !line.starts_with('#') && !line.is_empty() {
            status.dirty = true;
        }
    }
    status
}

impl GitStatus {
    /// One line for the system prompt.
    pub fn summary(&self) -> String {
        let head = self
            .head
            .as_deref()
            .map_or("no commits yet", |h| &h[..h.len().min(12)]);
        let mut text = format!(
            "branch {}, HEAD {head}",
            self.branch.as_deref().unwrap_or("(detached)")
        );
        if let Some(upstream) = &self.upstream {
            text.push_str(&format!(
                ", upstream {upstream} (ahead {}, behind {})",
                self.ahead, self.behind
            ));
        }
        text.push_str(if self.dirty {
            ", uncommitted changes"
        } else {
            ", clean"
        });
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_branch_upstream_and_changes() {
        let out = "# branch.oid 1234567890abcdef1234567890abcdef12345678\n# branch.head main\n# branch.upstream origin/main\n# branch.ab +2 -1\n1 .M N... 100644 100644 100644 abc abc src/lib.rs\n? new.txt\n";
        let s = parse(out);
        assert_eq!(s.branch.as_deref(), Some("main"));
        assert_eq!(s.upstream.as_deref(), Some("origin/main"));
        assert_eq!((s.ahead, s.behind, s.dirty), (2, 1, true));
        assert_eq!(
            s.summary(),
            "branch main, HEAD 1234567890ab, upstream origin/main (ahead 2, behind 1), uncommitted changes"
        );
    }

    #[test]
    fn fresh_repo_and_detached_head() {
        let s = parse("# branch.oid (initial)\n# branch.head main\n");
        assert_eq!((s.head, s.dirty), (None, false));
        let s = parse("# branch.oid abc\n# branch.head (detached)\n");
        assert_eq!(s.branch, None);
    }
}
