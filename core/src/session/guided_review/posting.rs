//! A guided review posted as a pull request review: the preview turns the reviewer's open
//! findings into inline comments checked against the pull request's diff; the confirmation
//! posts exactly that, once, and only if neither the findings nor the head moved since.

use crate::github::diff_lines::DiffLines;
use crate::protocol::findings::{Anchor, Author, FindingStatus, ReviewSession, Severity, Side};
use crate::protocol::github::{ReviewComment, SkippedFinding, Verdict};
use crate::protocol::guided_review::Review;

/// The comments, the findings left out, and the verdict the findings suggest.
pub(in crate::session) fn comments_for(
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
pub(in crate::session) fn review_body(
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

#[cfg(test)]
pub(in crate::session) mod tests {
    use super::*;
    use crate::guided_review::patch::build_from_patch;
    use crate::protocol::findings::{EntryKind, Finding, ThreadEntry};
    use crate::protocol::guided_review::ReviewTarget;

    /// A pull request's diff of one hunk: a line changed into two.
    pub(in crate::session) const PATCH: &str = "diff --git a/src/a.rs b/src/a.rs\n\
        --- a/src/a.rs\n\
        +++ b/src/a.rs\n\
        @@ -1,3 +1,4 @@\n \
        one\n\
        -two\n\
        +2\n\
        +2b\n \
        three\n";

    /// [`PATCH`] as a review.
    pub(in crate::session) fn review() -> Review {
        let target = ReviewTarget::PullRequest {
            number: 7,
            repository: None,
        };
        build_from_patch(&target, "/repo", PATCH)
    }

    fn finding(n: u32, anchor: Anchor, severity: Severity, author: Author) -> Finding {
        let entry =
            |author, body: &str| ThreadEntry::new(author, EntryKind::Comment, body.to_owned(), 1);
        Finding {
            id: format!("finding:{n}"),
            anchor,
            severity,
            status: FindingStatus::Open,
            outdated: false,
            pending: false,
            line_text: None,
            thread: vec![
                entry(author, "first"),
                entry(Author::Agent, "an answer"),
                entry(Author::Reviewer, "second"),
            ],
        }
    }

    fn line(review: &Review, side: Side, line: u32) -> Anchor {
        Anchor::Line {
            file_id: review.files[0].id.clone(),
            hunk_id: review.hunks[0].id.clone(),
            side,
            line,
        }
    }

    fn session(findings: Vec<Finding>) -> ReviewSession {
        ReviewSession {
            id: "review:r".into(),
            revision: 1,
            findings,
            notes: Vec::new(),
        }
    }

    #[test]
    fn the_reviewers_open_findings_in_the_diff_become_comments() {
        let review = review();
        let file = Anchor::File {
            file_id: review.files[0].id.clone(),
        };
        let mut resolved = finding(
            5,
            line(&review, Side::New, 2),
            Severity::Issue,
            Author::Reviewer,
        );
        resolved.status = FindingStatus::Resolved;
        let mut outdated = finding(
            6,
            line(&review, Side::New, 2),
            Severity::Issue,
            Author::Reviewer,
        );
        outdated.outdated = true;
        let findings = vec![
            finding(
                1,
                line(&review, Side::Old, 2),
                Severity::Suggestion,
                Author::Reviewer,
            ),
            finding(
                2,
                line(&review, Side::New, 40),
                Severity::Issue,
                Author::Reviewer,
            ),
            finding(3, file, Severity::Issue, Author::Reviewer),
            finding(
                4,
                line(&review, Side::New, 3),
                Severity::Issue,
                Author::Agent,
            ),
            resolved,
            outdated,
        ];
        let diff = DiffLines::parse(PATCH);
        let (comments, skipped, verdict) = comments_for(&review, &session(findings), &diff);

        assert_eq!(
            comments,
            [ReviewComment {
                path: "src/a.rs".into(),
                line: 2,
                side: "LEFT".into(),
                start_line: None,
                body: "first\n\nsecond".into(),
            }]
        );
        let skipped: Vec<_> = (skipped.iter())
            .map(|s| (s.comment_id.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                ("finding:2", "its line is not in the pull request's diff"),
                (
                    "finding:3",
                    "a comment on a whole file cannot be posted inline"
                ),
                ("finding:6", "its anchor is outdated"),
            ]
        );
        assert_eq!(verdict, Verdict::Comment);
    }

    #[test]
    fn the_verdict_follows_the_findings() {
        let review = review();
        let diff = DiffLines::parse(PATCH);
        let verdict = |findings| comments_for(&review, &session(findings), &diff).2;
        assert_eq!(verdict(Vec::new()), Verdict::Approve);
        let issue = finding(
            1,
            line(&review, Side::New, 3),
            Severity::Issue,
            Author::Reviewer,
        );
        assert_eq!(verdict(vec![issue]), Verdict::RequestChanges);
        let hunk = Anchor::Hunk {
            file_id: review.files[0].id.clone(),
            hunk_id: review.hunks[0].id.clone(),
        };
        let praise = finding(2, hunk, Severity::Praise, Author::Reviewer);
        let (comments, _, verdict) = comments_for(&review, &session(vec![praise]), &diff);
        assert_eq!(verdict, Verdict::Comment);
        // A hunk is posted on its last line on the new side.
        assert_eq!((comments[0].line, comments[0].side.as_str()), (4, "RIGHT"));
        let range = Anchor::Range {
            file_id: review.files[0].id.clone(),
            hunk_id: review.hunks[0].id.clone(),
            side: Side::New,
            start_line: 2,
            end_line: 3,
        };
        let question = finding(3, range, Severity::Question, Author::Reviewer);
        let (comments, ..) = comments_for(&review, &session(vec![question]), &diff);
        assert_eq!((comments[0].start_line, comments[0].line), (Some(2), 3));
    }

    #[test]
    fn a_range_is_posted_with_its_start_on_the_same_side() {
        let comments = [ReviewComment {
            path: "src/a.rs".into(),
            line: 3,
            side: "RIGHT".into(),
            start_line: Some(2),
            body: "these".into(),
        }];
        let body = review_body("abc123", Verdict::RequestChanges, "see below", &comments);
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        assert_eq!(
            body,
            serde_json::json!({
                "commit_id": "abc123",
                "event": "REQUEST_CHANGES",
                "body": "see below",
                "comments": [{
                    "path": "src/a.rs", "line": 3, "side": "RIGHT", "body": "these",
                    "start_line": 2, "start_side": "RIGHT",
                }],
            })
        );
    }
}
