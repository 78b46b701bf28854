//! A small glob matcher for permission patterns: `*`, `**`, `?`, and `\` to take the next
//! character literally.

/// How `*` treats `/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobMode {
    /// Paths: `*` and `?` stop at `/`; `**` crosses directories.
    Path,
    /// Commands: `*` matches anything, spaces and slashes included.
    Text,
}

/// Whether `text` matches `pattern` in `mode`.
pub fn glob_match(pattern: &str, text: &str, mode: GlobMode) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    matches(&pattern, &text, mode)
}

fn matches(p: &[char], t: &[char], mode: GlobMode) -> bool {
    // Iterative with memo-free backtracking over star positions: patterns are short.
    match p.first() {
        None => t.is_empty(),
        Some('*') => {
            let double = p.get(1) == Some(&'*');
            let rest = if double { &p[2..] } else { &p[1..] };
            // `**/` also matches zero directories.
            if double && rest.first() == Some(&'/') && matches(&rest[1..], t, mode) {
                return true;
            }
            let crosses = double || mode == GlobMode::Text;
            for i in 0..=t.len() {
                if matches(rest, &t[i..], mode) {
                    return true;
                }
                if i < t.len() && t[i] == '/' && !crosses {
                    return false;
                }
            }
            false
        }
        Some('\\') => match p.get(1) {
            Some(c) => t.first() == Some(c) && matches(&p[2..], &t[1..], mode),
            None => t.first() == Some(&'\\') && t.len() == 1,
        },
        Some('?') => {
            !t.is_empty()
                && (t[0] != '/' || mode == GlobMode::Text)
                && matches(&p[1..], &t[1..], mode)
        }
        Some(c) => t.first() == Some(c) && matches(&p[1..], &t[1..], mode),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_globs() {
        let m = |p, t| glob_match(p, t, GlobMode::Path);
        assert!(m("src/**", "src/a/b.rs"));
        assert!(m("src/*.rs", "src/a.rs"));
        assert!(!m("src/*.rs", "src/a/b.rs"));
        assert!(m("**/*.rs", "a.rs"));
        assert!(m("**/*.rs", "x/y/a.rs"));
        assert!(m(".env.*", ".env.local"));
        assert!(!m(".env", ".envrc"));
        assert!(m("a?c", "abc"));
        assert!(!m("a?c", "a/c"));
    }

    #[test]
    fn text_globs() {
        let m = |p, t| glob_match(p, t, GlobMode::Text);
        assert!(m("cargo test*", "cargo test -p luxe-core"));
        assert!(m("cargo test*", "cargo test"));
        assert!(!m("cargo test*", "cargo build"));
        assert!(m("git *", "git log --oneline /tmp"));
        assert!(m("ls \\*.rs", "ls *.rs"));
        assert!(!m("ls \\*.rs", "ls a.rs"));
    }
}
