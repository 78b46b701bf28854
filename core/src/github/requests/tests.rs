//! The request chains driven against fake gh and git output, without a session.

use super::*;
use crate::protocol::github::{GithubState, MergeMethod};
use crate::steps::{Program, drive};

const PR: &str = r#"{"number":7,"title":"T","body":"B","url":"https://github.com/o/r/pull/7","state":"OPEN","isDraft":false,"headRefName":"feat","headRefOid":"abc","baseRefName":"main","author":{"login":"ana"},"reviewDecision":"","mergeable":"MERGEABLE","additions":3,"deletions":1,"changedFiles":2,"updatedAt":"2026-11-30T00:00:00Z"}"#;
const THREADS: &str = r#"{"data":{"repository":{"pullRequest":{"reviewThreads":{"nodes":[{"id":"PRRT_1","isResolved":false,"path":"a.rs","line":3,"diffSide":"RIGHT","comments":{"nodes":[{"id":"c1","body":"hm","author":{"login":"bo"},"createdAt":"t"}]}}]}}}}}"#;

/// Runs `request` to its end, answering each command with `answer`; the commands it ran.
fn run(
    mut request: Request,
    answer: impl FnMut(&Cmd) -> Ran,
) -> (Vec<Cmd>, Result<Answer, Failed>, Request) {
    let (ran, done) = drive(&mut request, answer);
    assert!(ran.len() < 10, "a request is a short chain: {ran:?}");
    (ran, done, request)
}

fn merge(number: u64) -> MergePullRequest {
    MergePullRequest {
        request_id: "m".into(),
        repository: None,
        number,
        method: MergeMethod::Squash,
        delete_branch: None,
    }
}

#[test]
fn get_reads_the_pull_request_then_its_threads_in_the_named_repository() {
    let request = Request::get("g".into(), 7, None, "o/r".into());
    let (ran, done, _) = run(request, |cmd| match cmd.args.first().map(String::as_str) {
        Some("pr") => Ran::ok(PR),
        _ => Ran::ok(THREADS),
    });
    assert_eq!(ran.len(), 2);
    assert!(
        ran[1]
            .args
            .iter()
            .any(|a| a.contains("o/r") || a == "owner=o")
    );
    let Ok(Answer::Fetched { repository, detail }) = done else {
        panic!("{done:?}");
    };
    assert_eq!(repository, None);
    assert_eq!(detail.summary.number, 7);
    assert_eq!(detail.threads.len(), 1);
}

#[test]
fn output_gh_did_not_mean_is_a_failure_without_a_dock_state() {
    let request = Request::get("g".into(), 7, None, "o/r".into());
    let (ran, done, _) = run(request, |_| Ran::ok("not json"));
    assert_eq!(ran.len(), 1, "the threads are not asked for");
    let failed = done.unwrap_err();
    assert_eq!(failed.gh_state, None);
    assert!(!failed.reason.is_empty());
}

#[test]
fn a_gh_failure_ends_the_request_with_the_state_it_implies() {
    let request = Request::list("l".into(), vec!["pr".into(), "list".into()]);
    let (_, done, request) = run(request, |_| Ran {
        gh_state: Some(GithubState::Unauthenticated),
        ..Ran::failed("not logged in")
    });
    assert_eq!(
        done,
        Err(Failed {
            reason: "not logged in".into(),
            gh_state: Some(GithubState::Unauthenticated),
        })
    );
    assert_eq!(request.kind(), Kind::Read);
}

#[test]
fn a_merge_without_a_known_head_reads_it_first_and_merges_at_it() {
    let (ran, done, request) = run(Request::merge("m".into(), merge(7), None), |cmd| {
        if cmd.args.iter().any(|a| a == "headRefOid") {
            Ran::ok(r#"{"headRefOid":"f00d"}"#)
        } else {
            Ran::ok("https://github.com/o/r/pull/7\n")
        }
    });
    assert_eq!(ran.len(), 2);
    assert!(ran[1].args.iter().any(|a| a == "f00d"), "{:?}", ran[1]);
    assert_eq!(
        request.learned_head(),
        Some(&((None, 7), "f00d".to_owned()))
    );
    assert!(matches!(done, Ok(Answer::Merged { number: 7, .. })));
}

#[test]
fn a_merge_at_a_known_head_runs_once_and_a_failed_one_keeps_the_head_read() {
    let (ran, _, request) = run(Request::merge("m".into(), merge(7), Some("abc")), |_| {
        Ran::ok("")
    });
    assert_eq!(ran.len(), 1);
    assert!(ran[0].args.iter().any(|a| a == "abc"));
    assert_eq!(request.learned_head(), None);

    let mut calls = 0;
    let (_, done, request) = run(Request::merge("m".into(), merge(7), None), |_| {
        calls += 1;
        if calls == 1 {
            Ran::ok(r#"{"headRefOid":"f00d"}"#)
        } else {
            Ran::failed("not mergeable")
        }
    });
    assert!(done.is_err());
    assert!(
        request.learned_head().is_some(),
        "the head read stays known"
    );
}

#[test]
fn an_edit_that_also_changes_the_draft_state_runs_two_commands_for_one_answer() {
    let request = Request::edit(
        "e".into(),
        vec!["pr".into(), "edit".into()],
        Some(vec!["pr".into(), "ready".into()]),
    );
    let (ran, done, _) = run(request, |_| Ran::ok("https://github.com/o/r/pull/7"));
    assert_eq!(ran.len(), 2);
    assert_eq!(ran[1].args, ["pr", "ready"]);
    assert_eq!(
        done,
        Ok(Answer::Edited(Some("https://github.com/o/r/pull/7".into())))
    );
    assert!(done.unwrap().wrote());
}

#[test]
fn opening_pushes_with_git_then_creates_with_gh_and_needs_an_address() {
    let preview = PullRequestPreview {
        request_id: "o".into(),
        title: "Title".into(),
        description: "Body".into(),
        base: "main".into(),
        head: "feat".into(),
        commits: Vec::new(),
    };
    let (ran, done, _) = run(Request::open("o".into(), &preview, true), |cmd| {
        match cmd.program {
            Program::Git => Ran::ok(""),
            Program::Gh => Ran::ok("https://github.com/o/r/pull/12\n"),
            Program::Rm => unreachable!("a request removes no file"),
        }
    });
    assert_eq!(
        ran.iter().map(|c| c.program).collect::<Vec<_>>(),
        [Program::Git, Program::Gh]
    );
    assert!(ran[1].args.iter().any(|a| a == "Title"));
    assert!(ran[1].args.iter().any(|a| a == "--draft"));
    assert_eq!(
        done,
        Ok(Answer::Opened {
            number: 12,
            url: "https://github.com/o/r/pull/12".into()
        })
    );

    let (_, done, _) = run(Request::open("o".into(), &preview, false), |_| Ran::ok(""));
    let failed = done.unwrap_err();
    assert!(
        failed.reason.contains("printed no pull request address"),
        "{failed:?}"
    );
}

#[test]
fn a_pull_request_review_reads_its_head_then_its_diff() {
    let target = ReviewTarget::PullRequest {
        number: 3,
        repository: Some("o/r".into()),
    };
    let request = Request::load_review("r".into(), target.clone()).unwrap();
    let (ran, done, request) = run(request, |cmd| {
        if cmd.args.iter().any(|a| a == "headRefOid") {
            Ran::ok(r#"{"headRefOid":"beef"}"#)
        } else {
            Ran::ok("diff --git a/x b/x\n")
        }
    });
    assert_eq!(ran.len(), 2);
    assert_eq!(
        request.learned_head(),
        Some(&((Some("o/r".into()), 3), "beef".to_owned()))
    );
    assert_eq!(
        done,
        Ok(Answer::TargetDiff {
            target,
            patch: "diff --git a/x b/x\n".into()
        })
    );
    assert!(
        Request::load_review("r".into(), ReviewTarget::WorkingTree).is_none(),
        "only a pull request is read through gh"
    );
}

quickcheck::quickcheck! {
    /// Whatever gh and git answer, every request ends, once, after a few commands, and only
    /// requests that change GitHub say they wrote.
    fn every_request_ends_once_whatever_the_commands_print(outputs: Vec<(bool, String)>) -> bool {
        let preview = PullRequestPreview {
            request_id: "o".into(),
            title: "t".into(),
            description: "d".into(),
            base: "main".into(),
            head: "feat".into(),
            commits: Vec::new(),
        };
        let requests = [
            Request::list("a".into(), vec!["pr".into()]),
            Request::get("b".into(), 1, None, "o/r".into()),
            Request::comment("c".into(), vec!["pr".into()]),
            Request::edit("d".into(), vec!["pr".into()], Some(vec!["ready".into()])),
            Request::merge("e".into(), merge(2), None),
            Request::preview("f".into(), "main".into(), "feat".into()),
            Request::open("g".into(), &preview, false),
            Request::review_head("h".into(), "o/r", 4),
        ];
        requests.into_iter().all(|request| {
            let mut i = 0;
            let (ran, done, mut request) = run(request, |_| {
                let (ok, text) = outputs.get(i).cloned().unwrap_or((true, String::new()));
                i += 1;
                if ok { Ran::ok(text) } else { Ran::failed(text) }
            });
            let read_only = matches!(
                done,
                Ok(Answer::Listed(_) | Answer::Fetched { .. } | Answer::Commits { .. } | Answer::ReviewHead(_))
            );
            let restarted = matches!(request.start(), Next::Done(Err(_)));
            !ran.is_empty() && ran.len() <= 2 && restarted && !(read_only && done.as_ref().is_ok_and(Answer::wrote))
        })
    }
}
