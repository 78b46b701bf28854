//! The branches `commit_review_chapters{stack: true}` makes: `<current>-<n>-<chapter slug>`,
//! never a name that exists.

use std::collections::BTreeSet;

/// The longest slug taken from a chapter title.
const SLUG_MAX: usize = 40;

/// One branch name per title, in order: the current branch (`stack` when detached), the
/// chapter's position and its title as a slug; a name taken (by `existing` or an earlier one
/// here) gets `-2`, `-3`, … so that no branch is ever overwritten.
pub fn branch_names(
    current: Option<&str>,
    titles: &[&str],
    existing: &BTreeSet<String>,
) -> Vec<String> {
    let prefix = current.unwrap_or("stack");
    let mut taken = existing.clone();
    titles
        .iter()
        .enumerate()
        .map(|(i, title)| {
            let slug = slug(title);
            let base = if slug.is_empty() {
                format!("{prefix}-{}", i + 1)
            } else {
                format!("{prefix}-{}-{slug}", i + 1)
            };
            let mut name = base.clone();
            let mut n = 2;
            // A ref `a/b` cannot live beside a ref `a/b/c`, so a name under a taken one is
            // taken too.
            while taken
                .iter()
                .any(|t| t == &name || t.starts_with(&format!("{name}/")))
            {
                name = format!("{base}-{n}");
                n += 1;
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// Lowercase ASCII letters and digits, words joined by `-`.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for word in title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if out.len() + word.len() + 1 > SLUG_MAX {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_branch_and_titles_and_never_clash() {
        let existing: BTreeSet<String> = ["feat-1-parser".to_owned()].into();
        let names = branch_names(
            Some("feat"),
            &["Parser", "Build & CI: Cargo.toml", "Parser", "…"],
            &existing,
        );
        assert_eq!(
            names,
            [
                "feat-1-parser-2",
                "feat-2-build-ci-cargo-toml",
                "feat-3-parser",
                "feat-4"
            ]
        );
        assert_eq!(branch_names(None, &["x"], &BTreeSet::new()), ["stack-1-x"]);
    }

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let name = &branch_names(Some("b"), &["word ".repeat(30).as_str()], &BTreeSet::new())[0];
        assert!(name.len() <= "b-1-".len() + SLUG_MAX, "{name}");
        assert!(!name.ends_with('-'));
    }
}
