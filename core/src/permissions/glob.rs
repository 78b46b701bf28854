//! A small glob matcher for permission patterns: `*`, `**`, `?`, and `\` to take the next
//! character literally; and [`intersects`], which tells whether a pattern and a template with
//! holes (parts of a command only known at run time) could meet on some text.

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

/// One position of a pattern or template, for [`intersects`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Atom {
    /// Exactly this character (one after a `\` in the pattern is taken literally).
    Lit(char),
    /// Any one character (`/` only when `slash`).
    One {
        /// Whether it may be `/`.
        slash: bool,
    },
    /// Any run of characters, empty included (`/` only when `slash`).
    Many {
        /// Whether the run may hold `/`.
        slash: bool,
    },
}

/// `pattern` as atoms. `**/` becomes one `Many` that may cross directories: it also matches
/// text such as `ab` that `**/b` does not, which only errs towards a match.
pub fn atoms(pattern: &str, mode: GlobMode) -> Vec<Atom> {
    let text = mode == GlobMode::Text;
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                out.push(Atom::Many { slash: true });
                i += 2;
                if chars.get(i) == Some(&'/') {
                    i += 1;
                }
            }
            '*' => {
                out.push(Atom::Many { slash: text });
                i += 1;
            }
            '?' => {
                out.push(Atom::One { slash: text });
                i += 1;
            }
            '\\' => {
                out.push(Atom::Lit(chars.get(i + 1).copied().unwrap_or('\\')));
                i += 2;
            }
            c => {
                out.push(Atom::Lit(c));
                i += 1;
            }
        }
    }
    out
}

/// Whether some text matches both `a` and `b`: a search over pairs of positions, so linear
/// in the product of their lengths.
pub fn intersects(a: &[Atom], b: &[Atom]) -> bool {
    let width = b.len() + 1;
    let mut seen = vec![false; (a.len() + 1) * width];
    let mut todo = vec![(0usize, 0usize)];
    while let Some((i, j)) = todo.pop() {
        let Some(slot) = seen.get_mut(i * width + j) else {
            continue;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        let (x, y) = (a.get(i).copied(), b.get(j).copied());
        if x.is_none() && y.is_none() {
            return true;
        }
        // A run may end here, matching nothing more.
        if let Some(Atom::Many { .. }) = x {
            todo.push((i + 1, j));
        }
        if let Some(Atom::Many { .. }) = y {
            todo.push((i, j + 1));
        }
        // Both consume one shared character.
        let (Some(x), Some(y)) = (x, y) else {
            continue;
        };
        if !one_char_in_common(x, y) {
            continue;
        }
        let next_i = if matches!(x, Atom::Many { .. }) {
            i
        } else {
            i + 1
        };
        let next_j = if matches!(y, Atom::Many { .. }) {
            j
        } else {
            j + 1
        };
        if (next_i, next_j) != (i, j) {
            todo.push((next_i, next_j));
        } else {
            // Two runs side by side: either may end first.
            todo.push((i + 1, j));
            todo.push((i, j + 1));
        }
    }
    false
}

fn one_char_in_common(x: Atom, y: Atom) -> bool {
    let allows_slash = |a: Atom| match a {
        Atom::Lit(c) => c == '/',
        Atom::One { slash } | Atom::Many { slash } => slash,
    };
    match (x, y) {
        (Atom::Lit(c), Atom::Lit(d)) => c == d,
        (Atom::Lit(c), other) | (other, Atom::Lit(c)) => c != '/' || allows_slash(other),
        // Two wildcards share any character other than `/`.
        _ => true,
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

    #[test]
    fn intersections() {
        let text = |p| atoms(p, GlobMode::Text);
        let path = |p| atoms(p, GlobMode::Path);
        let any = Atom::Many { slash: true };
        let lit = |s: &str| s.chars().map(Atom::Lit).collect::<Vec<_>>();
        let with_hole = |s: &str| {
            let mut v = lit(s);
            v.push(any);
            v
        };
        assert!(intersects(&text("rm *"), &lit("rm v")));
        assert!(!intersects(&text("rm *"), &lit("rmdir v")));
        assert!(intersects(&text("rm *"), &[any]));
        assert!(intersects(&text("rm -rf *"), &with_hole("rm ")));
        assert!(!intersects(&text("rm -rf *"), &with_hole("ls ")));
        assert!(intersects(&text("git push*"), &with_hole("git")));
        assert!(intersects(&path("secrets/**"), &lit("secrets/k")));
        assert!(intersects(&path("secrets/**"), &path("s*/k")));
        assert!(!intersects(&path("secrets/*"), &lit("secrets/a/b")));
        assert!(intersects(&path("**/*.pem"), &path("*.pem")));
        assert!(!intersects(&path("secrets/**"), &path("src/*.rs")));
        assert!(intersects(&[any, any], &lit("x")));
        assert!(intersects(&[], &[any]));
        assert!(!intersects(&[], &lit("a")));
    }
}
