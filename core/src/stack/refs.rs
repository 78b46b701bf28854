//! What git prints about refs and worktrees, parsed.

use std::collections::BTreeMap;

/// The format [`parse_refs`] reads: `refname NUL objectname` per line.
pub const REF_FORMAT: &str = "--format=%(refname)%00%(objectname)";

/// Where the branches are: local ones (`refs/heads/B`) and origin's (`refs/remotes/origin/B`,
/// or `refs/heads/B` as `git ls-remote` prints them), by short name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refs {
    /// Each local branch's commit, by short name (`refs/heads/` left off).
    pub local: BTreeMap<String, String>,
    /// origin's branches.
    pub remote: BTreeMap<String, String>,
}

/// Parses `git for-each-ref` output in [`REF_FORMAT`]; other refs are ignored.
pub fn parse_refs(stdout: &str) -> Refs {
    let mut refs = Refs::default();
    for line in stdout.lines() {
        let Some((name, sha)) = line.split_once('\0') else {
            continue;
        };
        if let Some(branch) = name.strip_prefix("refs/heads/") {
            refs.local.insert(branch.to_owned(), sha.to_owned());
        } else if let Some(branch) = name.strip_prefix("refs/remotes/origin/")
            && branch != "HEAD"
        {
            refs.remote.insert(branch.to_owned(), sha.to_owned());
        }
    }
    refs
}

/// Parses `git ls-remote origin refs/heads/...`: `sha TAB refs/heads/B` per line.
pub fn parse_ls_remote(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .filter_map(|line| {
            let (sha, name) = line.split_once('\t')?;
            Some((name.strip_prefix("refs/heads/")?.to_owned(), sha.to_owned()))
        })
        .collect()
}

/// Parses `git worktree list --porcelain`: the worktrees each branch is checked out in (more
/// than one only when forced).
pub fn parse_worktrees(stdout: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut path = None;
    for line in stdout.lines() {
        if let Some(p) = line.strip_prefix("worktree ") {
            path = Some(p.to_owned());
        } else if let Some(branch) = line.strip_prefix("branch refs/heads/")
            && let Some(path) = &path
        {
            out.entry(branch.to_owned()).or_default().push(path.clone());
        }
    }
    out
}

/// The new and old heads `git replay` printed for `branch` (`update refs/heads/B NEW OLD`).
pub fn replayed_head(stdout: &str, branch: &str) -> Option<(String, String)> {
    let wanted = format!("refs/heads/{branch}");
    stdout.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        if words.next() != Some("update") || words.next() != Some(wanted.as_str()) {
            return None;
        }
        Some((words.next()?.to_owned(), words.next()?.to_owned()))
    })
}

/// `git version 2.47.3` (and vendor suffixes) → `(2, 47)`.
pub fn git_version(stdout: &str) -> Option<(u32, u32)> {
    let version = stdout.trim().strip_prefix("git version ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()?;
    Some((major, minor))
}

/// Whether `git replay` is there: it came with git 2.44.
pub fn has_replay(version: (u32, u32)) -> bool {
    version >= (2, 44)
}

/// A full hexadecimal object id (SHA-1 or SHA-256).
pub fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_split_local_and_origin() {
        let refs = parse_refs(
            "refs/heads/a\0aaa\nrefs/remotes/origin/HEAD\0bbb\nrefs/remotes/origin/a\0ccc\nrefs/tags/t\0ddd\n",
        );
        assert_eq!(refs.local.get("a").map(String::as_str), Some("aaa"));
        assert_eq!(refs.remote.get("a").map(String::as_str), Some("ccc"));
        assert_eq!(refs.remote.len(), 1);
    }

    #[test]
    fn worktrees_map_branches_to_paths() {
        let out = "worktree /r\nHEAD 1\nbranch refs/heads/main\n\nworktree /w\nHEAD 2\ndetached\n\nworktree /x\nHEAD 3\nbranch refs/heads/b\n";
        let map = parse_worktrees(out);
        assert_eq!(
            map.get("main").map(Vec::as_slice),
            Some(&["/r".to_owned()][..])
        );
        assert_eq!(
            map.get("b").map(Vec::as_slice),
            Some(&["/x".to_owned()][..])
        );
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn replay_output_and_versions() {
        let out = "update refs/heads/b 2222 1111\nupdate refs/heads/c 4444 3333\n";
        assert_eq!(
            replayed_head(out, "c"),
            Some(("4444".into(), "3333".into()))
        );
        assert_eq!(replayed_head(out, "a"), None);
        assert_eq!(git_version("git version 2.47.3\n"), Some((2, 47)));
        assert_eq!(
            git_version("git version 2.39.2 (Apple Git-143)"),
            Some((2, 39))
        );
        assert_eq!(git_version("git version 2.44.0.windows.1"), Some((2, 44)));
        assert!(has_replay((2, 44)) && !has_replay((2, 43)) && has_replay((3, 0)));
        assert_eq!(
            parse_ls_remote("abc\trefs/heads/x\nbad\n")
                .get("x")
                .map(String::as_str),
            Some("abc")
        );
    }
}
