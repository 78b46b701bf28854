//! Every bad or missing argument of a review tool is named in a sentence for the model.

use super::*;
use serde_json::json;

#[test]
fn add_finding_takes_the_design_s_arguments_with_side_new_by_default() {
    assert_eq!(
        AddFinding::parse(
            &json!({"path": "src/a.rs", "line": 12, "severity": "issue", "body": "b"})
        ),
        Ok(AddFinding {
            path: "src/a.rs".into(),
            line: 12,
            side: Side::New,
            end_line: None,
            severity: Severity::Issue,
            body: "b".into(),
        })
    );
    let full = json!({"path": "a", "line": 3, "side": "old", "end_line": 5, "severity": "praise",
        "body": "b", "unknown": true, "anchor": null});
    let parsed = AddFinding::parse(&full).unwrap();
    assert_eq!(
        (parsed.side, parsed.end_line, parsed.severity),
        (Side::Old, Some(5), Severity::Praise)
    );
    // Null is absent.
    let nulls = json!({"path": "a", "line": 3, "side": null, "end_line": null, "severity": "issue", "body": "b"});
    assert_eq!(AddFinding::parse(&nulls).unwrap().side, Side::New);
}

#[test]
fn each_bad_add_finding_argument_is_named_in_a_sentence() {
    let base = json!({"path": "a.rs", "line": 12, "severity": "issue", "body": "b"});
    let with = |key: &str, value: Value| {
        let mut input = base.clone();
        input[key] = value;
        AddFinding::parse(&input).unwrap_err()
    };
    let without = |key: &str| {
        let mut input = base.clone();
        input.as_object_mut().unwrap().remove(key);
        AddFinding::parse(&input).unwrap_err()
    };
    assert_eq!(
        without("line"),
        "add_finding needs `line`: the line number in the file, as the review shows it."
    );
    assert_eq!(
        without("path"),
        "add_finding needs `path`: the file's path, as the review shows it."
    );
    assert_eq!(
        without("severity"),
        "add_finding needs `severity`: how much it matters: question, suggestion, issue, nitpick or praise."
    );
    assert_eq!(
        without("body"),
        "add_finding needs `body`: the finding, for the reviewer."
    );
    assert_eq!(
        with("body", json!("  ")),
        "add_finding needs a `body` that is not blank: the finding, for the reviewer."
    );
    assert_eq!(
        with("line", json!("12")),
        "add_finding's `line` must be a whole number from 1 up (the line number in the file, as the review shows it), not \"12\"."
    );
    assert!(with("line", json!(0)).starts_with("add_finding's `line` must be a whole number"));
    assert!(with("line", json!(1.5)).ends_with("not 1.5."));
    assert!(with("line", json!(u64::from(u32::MAX) + 1)).contains("whole number"));
    assert!(with("end_line", json!(-1)).starts_with("add_finding's `end_line` must be"));
    assert_eq!(
        with("end_line", json!(4)),
        "add_finding's `end_line` (4) is before `line` (12): give the last line of the range, or leave `end_line` out for one line."
    );
    assert_eq!(
        with("path", json!(7)),
        "add_finding's `path` must be text (the file's path, as the review shows it), not 7."
    );
    assert_eq!(
        with("side", json!("left")),
        "add_finding's `side` must be \"old\" or \"new\", not \"left\"."
    );
    assert_eq!(
        with("severity", json!("major")),
        "add_finding's `severity` must be \"question\", \"suggestion\", \"issue\", \"nitpick\" or \"praise\", not \"major\"."
    );
    let long = with("body", json!(["x".repeat(100)]));
    assert!(long.ends_with("…."), "a long value is cut: {long}");
    assert_eq!(
        AddFinding::parse(&json!("a.rs:12")).unwrap_err(),
        "add_finding takes its arguments as a JSON object, not \"a.rs:12\"."
    );
    // The form the build used to ask for, with hashes, is not the design's.
    let old = json!({"anchor": {"kind": "line", "file_id": "file:x", "hunk_id": "hunk:y", "side": "new", "line": 1},
        "severity": "issue", "body": "b"});
    assert!(
        AddFinding::parse(&old)
            .unwrap_err()
            .starts_with("add_finding needs `path`")
    );
}

#[test]
fn report_needs_its_comment_a_status_and_a_summary() {
    assert_eq!(
        Report::parse(&json!({"comment_id": "finding_1", "status": "not_fixed", "summary": "s"})),
        Ok(Report {
            comment_id: "finding_1".into(),
            status: ReportStatus::NotFixed,
            summary: "s".into(),
        })
    );
    let base = json!({"comment_id": "finding_1", "status": "fixed", "summary": "s"});
    let without = |key: &str| {
        let mut input = base.clone();
        input.as_object_mut().unwrap().remove(key);
        Report::parse(&input).unwrap_err()
    };
    assert_eq!(
        without("status"),
        "report needs `status`: \"fixed\" when you changed the code as asked, \"not_fixed\" when you did not."
    );
    assert_eq!(
        without("comment_id"),
        "report needs `comment_id`: the id of the comment this turn works on, as the prompt gives it."
    );
    assert_eq!(
        without("summary"),
        "report needs `summary`: what you changed, or why you did not, for the reviewer."
    );
    let mut done = base.clone();
    done["status"] = json!("done");
    assert_eq!(
        Report::parse(&done).unwrap_err(),
        "report's `status` must be \"fixed\" or \"not_fixed\", not \"done\"."
    );
    assert_eq!(
        Report::parse(&Value::Null).unwrap_err(),
        "report takes its arguments as a JSON object, not null."
    );
}
