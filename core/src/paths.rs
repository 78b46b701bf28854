//! Paths the model names, resolved against cwd without touching the disk.

/// A path resolved against cwd: absolute, with `.` and `..` folded away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The absolute path io operates on.
    pub absolute: String,
    /// Relative to cwd when inside it, else absolute: what rules match and the client sees.
    pub shown: String,
    /// Whether it lies inside cwd.
    pub inside_cwd: bool,
}

/// The directories under the working directory that decide what Luxe itself does (its settings;
/// git's config and hooks, which run inside the git Luxe runs for itself): a tool write there
/// always asks.
pub const GUARDED_DIRS: [&str; 2] = [".luxe", ".git"];

/// Resolves `path` (relative to `cwd`, or absolute). Symlinks are not followed here.
pub fn resolve(cwd: &str, path: &str) -> Resolved {
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("{cwd}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let absolute = format!("/{}", parts.join("/"));
    let cwd_norm = cwd.trim_end_matches('/');
    let (shown, inside_cwd) = if absolute == cwd_norm {
        (".".to_owned(), true)
    } else if let Some(rest) = absolute
        .strip_prefix(cwd_norm)
        .and_then(|r| r.strip_prefix('/'))
    {
        (rest.to_owned(), true)
    } else if cwd_norm.is_empty() {
        // cwd is `/`: everything is inside.
        (absolute.trim_start_matches('/').to_owned(), true)
    } else {
        (absolute.clone(), false)
    };
    Resolved {
        absolute,
        shown,
        inside_cwd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_absolute_and_dot_dot() {
        let r = resolve("/work/app", "src/../src/main.rs");
        assert_eq!(
            (r.absolute.as_str(), r.shown.as_str(), r.inside_cwd),
            ("/work/app/src/main.rs", "src/main.rs", true)
        );
        let r = resolve("/work/app", "../other/x");
        assert_eq!((r.shown.as_str(), r.inside_cwd), ("/work/other/x", false));
        let r = resolve("/work/app", "/work/app2/x");
        assert!(!r.inside_cwd, "a sibling with a common prefix is outside");
        let r = resolve("/work/app", ".");
        assert_eq!((r.shown.as_str(), r.inside_cwd), (".", true));
        let r = resolve("/work/app", "../../../../etc/passwd");
        assert_eq!(r.absolute, "/etc/passwd");
    }
}
