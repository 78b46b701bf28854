//! The descriptions of a stack's pull requests: each lists the whole stack, bottom first, with
//! this one marked, and with pull request numbers once they are known (GitHub links `#N`).

/// One entry of the list: a branch and its pull request's number when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The branch's name, shown in code after the `#N` (if any).
    pub branch: &'a str,
    /// Its pull request's number once open, shown as `#N`.
    pub number: Option<u64>,
}

/// The heading the stack's list starts with; what comes before it is the person's.
pub const HEADING: &str = "## Stack";

/// `body` followed by the stack's list, `position` marking this pull request.
pub fn with_stack(body: &str, stack: &[Entry<'_>], position: usize) -> String {
    let mut out = body.trim_end().to_owned();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(HEADING);
    out.push('\n');
    // Top of the stack first, as GitHub users read stacks: what merges last is on top.
    for (i, entry) in stack.iter().enumerate().rev() {
        let what = match entry.number {
            Some(number) => format!("#{number} `{}`", entry.branch),
            None => format!("`{}`", entry.branch),
        };
        let mark = if i == position {
            " ← this pull request"
        } else {
            ""
        };
        out.push_str(&format!("{}. {what}{mark}\n", i + 1));
    }
    out
}

/// The person's part of a description: what comes before the stack's list.
pub fn own_part(description: &str) -> &str {
    match description.find(HEADING) {
        Some(at) => description[..at].trim_end(),
        None => description.trim_end(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_the_stack_top_first_and_marks_this_one() {
        let stack = [
            Entry {
                branch: "a",
                number: Some(1),
            },
            Entry {
                branch: "b",
                number: None,
            },
        ];
        let text = with_stack("Parser.\n", &stack, 0);
        assert_eq!(
            text,
            "Parser.\n\n## Stack\n2. `b`\n1. #1 `a` ← this pull request\n"
        );
        assert_eq!(own_part(&text), "Parser.");
        assert_eq!(own_part(&with_stack(own_part(&text), &stack, 1)), "Parser.");
    }
}
