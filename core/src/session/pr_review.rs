//! A guided review posted as a pull request review: the preview turns the reviewer's open
//! findings into inline comments checked against the pull request's diff; the confirmation
//! posts exactly that, once, and only if neither the findings nor the head moved since.

use crate::github::diff_lines::DiffLines;
use crate::protocol::findings::{Anchor, Author, FindingStatus, ReviewSession, Severity, Side};
use crate::protocol::github::{ReviewComment, SkippedFinding, Verdict};
use crate::protocol::review::Review;

/// The comments, the findings left out, and the verdict the findings suggest.
pub(super) fn comments_for(
    review: &Review,
    session: &ReviewSession,
    diff: &DiffLines,
) -> (Vec<ReviewComment>, Vec<SkippedFinding>, Verdict) {
    let mut comments = Vec::new();
    let mut skipped = Vec::new();
    let mut issues = false;
    for finding in &session.findings {
        let reviewers = finding
            .thread
            .first()
            .is_some_and(|e| e.author == Author::Reviewer);
        if !reviewers || finding.status == FindingStatus::Resolved {
            continue;
        }
        let skip = |reason: &str| SkippedFinding {
            comment_id: finding.id.clone(),
            reason: reason.to_owned(),
        };
        if finding.outdated {
            skipped.push(skip("its anchor is outdated"));
            continue;
        }
        let Some(comment) = comment_at(review, &finding.anchor) else {
            skipped.push(skip("a comment on a whole file cannot be posted inline"));
            continue;
        };
        let in_diff = diff.contains(&comment.path, &comment.side, comment.line)
            && comment
                .start_line
                .is_none_or(|start| diff.contains(&comment.path, &comment.side, start));
        if !in_diff {
            skipped.push(skip("its line is not in the pull request's diff"));
            continue;
        }
        issues |= finding.severity == Severity::Issue;
        let body = finding
            .thread
            .iter()
            .filter(|e| e.author == Author::Reviewer)
            .map(|e| e.body.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        comments.push(ReviewComment { body, ..comment });
    }
    let verdict = if issues {
        Verdict::RequestChanges
    } else if comments.is_empty() && skipped.is_empty() {
        Verdict::Approve
    } else {
        Verdict::Comment
    };
    (comments, skipped, verdict)
}

/// Where `anchor` points as a comment (without its body); `None` for a file.
fn comment_at(review: &Review, anchor: &Anchor) -> Option<ReviewComment> {
    let path = |file_id: &str| {
        review
            .files
            .iter()
            .find(|f| f.id == file_id)
            .map(|f| f.path.clone())
    };
    let side_name = |side: Side| match side {
        Side::Old => "LEFT".to_owned(),
        Side::New => "RIGHT".to_owned(),
    };
    let comment = |file_id: &str, side, line, start_line| {
        Some(ReviewComment {
            path: path(file_id)?,
            line,
            side: side_name(side),
            start_line,
            body: String::new(),
        })
    };
    match anchor {
        Anchor::Line {
            file_id,
            side,
            line,
            ..
        } => comment(file_id, *side, u64::from(*line), None),
        Anchor::Range {
            file_id,
            side,
            start_line,
            end_line,
            ..
        } => comment(
            file_id,
            *side,
            u64::from(*end_line),
            Some(u64::from(*start_line)).filter(|s| s != &u64::from(*end_line)),
        ),
        Anchor::Hunk { file_id, hunk_id } => {
            // The hunk's last line on the new side stands for it.
            let hunk = review.hunks.iter().find(|h| &h.id == hunk_id)?;
            let last = hunk.lines.iter().rev().find_map(|l| l.new_line)?;
            comment(file_id, Side::New, u64::from(last), None)
        }
        Anchor::File { .. } => None,
    }
}

/// The JSON body of the review POST.
pub(super) fn review_body(
    head_sha: &str,
    verdict: Verdict,
    body: &str,
    comments: &[ReviewComment],
) -> Vec<u8> {
    let event = match verdict {
        Verdict::Approve => "APPROVE",
        Verdict::RequestChanges => "REQUEST_CHANGES",
        Verdict::Comment => "COMMENT",
    };
    let comments: Vec<serde_json::Value> = comments
        .iter()
        .map(|c| {
            let mut value = serde_json::json!({
                "path": c.path, "line": c.line, "side": c.side, "body": c.body,
            });
            if let Some(start) = c.start_line {
                value["start_line"] = start.into();
                value["start_side"] = c.side.clone().into();
            }
            value
        })
        .collect();
    serde_json::json!({
        "commit_id": head_sha,
        "event": event,
        "body": body,
        "comments": comments,
    })
    .to_string()
    .into_bytes()
}
