//! What a review turn asks the agent: a finding with its thread, hunk and file; or the whole
//! diff to review, its lines numbered as `add_finding` names them.

use std::fmt::Write as _;

use crate::protocol::findings::{Anchor, Author, Finding, ReportStatus, Side};
use crate::protocol::guided_review::{Hunk, LineKind, Review};

/// The most of a diff put in an agent-review prompt; the rest is named, not shown.
const REVIEW_PROMPT_MAX: usize = 200_000;

/// The prompt of a turn that answers on `finding`, or fixes it when `fix`.
pub(in crate::session) fn finding_prompt(review: &Review, finding: &Finding, fix: bool) -> String {
    let mut text = String::new();
    let file_id = anchor_file(&finding.anchor);
    let file = review.files.iter().find(|f| f.id == file_id);
    let _ = writeln!(
        text,
        "This is a guided code review. The reviewer left finding {} ({:?}) on {}.",
        finding.id,
        finding.severity,
        file.map_or("a file that is no longer in the diff", |f| f.path.as_str())
    );
    if finding.outdated {
        text.push_str("Its anchor is outdated: the code it pointed at has changed since.\n");
    }
    if let Some(line_text) = &finding.line_text {
        let _ = writeln!(
            text,
            "It points at {}: `{line_text}`",
            describe(&finding.anchor)
        );
    }
    if let Some(hunk) =
        anchor_hunk(&finding.anchor).and_then(|id| review.hunks.iter().find(|h| h.id == id))
    {
        text.push_str("\nThe hunk:\n```diff\n");
        write_hunk(&mut text, hunk, false);
        text.push_str("```\n");
    }
    text.push_str("\nThe thread so far:\n");
    for entry in &finding.thread {
        let who = match entry.author {
            Author::Reviewer => "reviewer",
            Author::Agent => "you",
            Author::System => "luxe",
        };
        let what = entry.kind.words();
        let status = match entry.status {
            Some(ReportStatus::Fixed) => ", fixed",
            Some(ReportStatus::NotFixed) => ", not fixed",
            None => "",
        };
        let _ = writeln!(text, "- {who} ({what}{status}): {}", entry.body);
    }
    text.push('\n');
    if fix {
        let _ = write!(
            text,
            "Change the code as the reviewer asks, with your tools. When done, call the `report` \
             tool with comment_id \"{}\", status \"fixed\" if you changed the code as asked or \
             \"not_fixed\" if you did not, and a short summary of what you changed (or why not).",
            finding.id
        );
    } else {
        text.push_str(
            "Answer the reviewer's latest message on this thread. Read the code if you need to; \
             do not change files unless the reviewer asks you to. Your final message is posted \
             on the thread as your answer.",
        );
    }
    text
}

/// The prompt of a turn that reviews the whole diff.
pub(in crate::session) fn agent_review_prompt(review: &Review) -> String {
    let mut text = String::from(
        "Review this change as a careful senior engineer. For every problem worth raising \
         (bugs, missing tests, unclear code, risks), call the `add_finding` tool with the file's \
         `path`, a `line` shown below, a `severity` (question, suggestion, issue, nitpick or \
         praise) and a `body`. Each diff line below starts with its old and its new line number: \
         an added or unchanged line is named by its new number (`side` \"new\", the default), a \
         deleted line by its old number with `side` \"old\". For several lines of one hunk, \
         give the first as `line` and the last as `end_line`. Then end with a short overall \
         summary.\n\n",
    );
    let mut left_out = Vec::new();
    for file in &review.files {
        if text.len() > REVIEW_PROMPT_MAX {
            left_out.push(file.path.as_str());
            continue;
        }
        let _ = match &file.old_path {
            Some(old) => writeln!(text, "File {} ({:?} from {old}):", file.path, file.status),
            None => writeln!(text, "File {} ({:?}):", file.path, file.status),
        };
        for hunk in review.hunks.iter().filter(|h| h.file_id == file.id) {
            text.push_str("```diff\n");
            write_hunk(&mut text, hunk, true);
            text.push_str("```\n");
        }
    }
    if !left_out.is_empty() {
        let _ = write!(
            text,
            "\nLeft out for size (read them yourself if needed): {}\n",
            left_out.join(", ")
        );
    }
    text
}

/// A hunk as diff text, with line numbers when `numbered` (`old new` before each line).
fn write_hunk(text: &mut String, hunk: &Hunk, numbered: bool) {
    let _ = writeln!(
        text,
        "@@ -{},{} +{},{} @@ {}",
        hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines, hunk.header
    );
    for line in &hunk.lines {
        let sign = match line.kind {
            LineKind::Context => ' ',
            LineKind::Add => '+',
            LineKind::Del => '-',
        };
        if numbered {
            let n = |v: Option<u32>| v.map_or_else(|| "-".to_owned(), |n| n.to_string());
            let _ = writeln!(
                text,
                "{:>5} {:>5} {sign}{}",
                n(line.old_line),
                n(line.new_line),
                line.text
            );
        } else {
            let _ = writeln!(text, "{sign}{}", line.text);
        }
    }
}

fn anchor_file(anchor: &Anchor) -> &str {
    match anchor {
        Anchor::Line { file_id, .. }
        | Anchor::Range { file_id, .. }
        | Anchor::Hunk { file_id, .. }
        | Anchor::File { file_id } => file_id,
    }
}

fn anchor_hunk(anchor: &Anchor) -> Option<&str> {
    match anchor {
        Anchor::Line { hunk_id, .. }
        | Anchor::Range { hunk_id, .. }
        | Anchor::Hunk { hunk_id, .. } => Some(hunk_id),
        Anchor::File { .. } => None,
    }
}

fn describe(anchor: &Anchor) -> String {
    let side = |s: &Side| match s {
        Side::Old => "old",
        Side::New => "new",
    };
    match anchor {
        Anchor::Line { side: s, line, .. } => format!("{} line {line}", side(s)),
        Anchor::Range {
            side: s,
            start_line,
            end_line,
            ..
        } => format!("{} lines {start_line}–{end_line}", side(s)),
        Anchor::Hunk { .. } => "the hunk".into(),
        Anchor::File { .. } => "the file".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::findings::{EntryKind, FindingStatus, Severity, ThreadEntry};
    use crate::session::guided_review::posting::tests::review;

    fn finding(review: &Review) -> Finding {
        Finding {
            id: "finding:1".into(),
            anchor: Anchor::Line {
                file_id: review.files[0].id.clone(),
                hunk_id: review.hunks[0].id.clone(),
                side: Side::New,
                line: 2,
            },
            severity: Severity::Issue,
            status: FindingStatus::Open,
            outdated: true,
            pending: false,
            line_text: Some("2".into()),
            thread: vec![ThreadEntry::new(
                Author::Reviewer,
                EntryKind::FixRequest,
                "spell it out".into(),
                1,
            )],
        }
    }

    #[test]
    fn a_finding_prompt_shows_its_place_hunk_and_thread_and_what_to_do() {
        let review = review();
        let answer = finding_prompt(&review, &finding(&review), false);
        for part in [
            "finding finding:1 (Issue) on src/a.rs",
            "Its anchor is outdated",
            "It points at new line 2: `2`",
            "```diff\n@@ -1,3 +1,4 @@ \n one\n-two\n+2\n+2b\n three\n```",
            "- reviewer (fix request): spell it out",
            "Answer the reviewer's latest message",
        ] {
            assert!(answer.contains(part), "{part:?} in {answer}");
        }
        let fix = finding_prompt(&review, &finding(&review), true);
        assert!(
            fix.contains("call the `report` tool with comment_id \"finding:1\""),
            "{fix}"
        );
        assert!(!fix.contains("Answer the reviewer's"), "{fix}");
    }

    #[test]
    fn the_review_prompt_numbers_each_line_by_both_sides() {
        let text = agent_review_prompt(&review());
        assert!(text.contains("File src/a.rs (Modified):"), "{text}");
        assert!(
            text.contains("    1     1  one\n    2     - -two\n    -     2 +2\n"),
            "{text}"
        );
        assert!(!text.contains("Left out for size"), "{text}");
    }
}
