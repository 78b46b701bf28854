//! Pull request reviews on the GitHub machine: loaded as a guided review, previewed against
//! the pull request's diff, and posted with a body given to gh on stdin.

use super::*;

#[test]
fn a_pull_request_loaded_as_a_review_reads_its_head_then_leaves_its_diff_to_the_session() {
    let mut rig = Rig::new();
    let target = ReviewTarget::PullRequest {
        number: 9,
        repository: Some("x/y".into()),
    };
    let shell = fake::shell(&rig.timings, &rig.unset);
    let then =
        (rig.machine).load_review(&mut rig.outbox, &shell, at(0), "r".into(), target.clone());
    assert_eq!(then, Then::Nothing);
    let (head, then) = rig.ok(at(1), r#"{"headRefOid":"feed"}"#);
    assert_eq!(head.line(), "gh pr view 9 --json headRefOid --repo x/y");
    assert_eq!(then, Then::Nothing);
    let (diff, then) = rig.ok(at(2), "diff --git a/f b/f\n");
    assert_eq!(diff.line(), "gh pr diff 9 --repo x/y");
    assert_eq!(
        then,
        Then::TargetDiff {
            request_id: "r".into(),
            target,
            patch: "diff --git a/f b/f\n".into(),
        }
    );
    assert!(rig.drain().is_empty(), "the session answers it");
}

#[test]
fn a_pull_request_review_posts_once_what_its_preview_showed_and_only_while_nothing_moved() {
    use crate::protocol::github::{
        PostPullRequestReview, PreviewPullRequestReview, ReviewComment, Verdict,
    };

    let mut rig = Rig::new();
    let target = ReviewTarget::PullRequest {
        number: 9,
        repository: Some("x/y".into()),
    };
    let shell = fake::shell(&rig.timings, &rig.unset);
    let loaded =
        (rig.machine).load_review(&mut rig.outbox, &shell, at(0), "l".into(), target.clone());
    assert_eq!(loaded, Then::Nothing);
    let _ = rig.ok(at(1), r#"{"headRefOid":"feed"}"#);
    let (_, loaded) = rig.ok(at(2), "diff --git a/f b/f\n");
    assert!(matches!(loaded, Then::TargetDiff { .. }), "{loaded:?}");

    // Previewed: the diff is read at the head the load saw, then drafted by the session.
    let preview = |rig: &mut Rig, request_id: &str, revision: u64| {
        let shell = fake::shell(&rig.timings, &rig.unset);
        let request = PreviewPullRequestReview {
            request_id: request_id.into(),
            review_id: "rv".into(),
        };
        let read = (rig.machine).preview_review(&mut rig.outbox, &shell, at(3), request, &target);
        assert_eq!(read, Ok(Then::Nothing));
        let (diff, then) = rig.ok(at(4), "diff --git a/f b/f\n");
        assert_eq!(diff.line(), "gh pr diff 9 --repo x/y");
        let Then::ReviewDiff { pull, head_sha, .. } = then else {
            panic!("{then:?}");
        };
        assert_eq!(
            (pull.clone(), head_sha.as_str()),
            ((9, Some("x/y".into())), "feed")
        );
        let comment = ReviewComment {
            path: "f".into(),
            line: 3,
            side: "RIGHT".into(),
            start_line: None,
            body: "An off-by-one.".into(),
        };
        let drafted = (revision, vec![comment], Vec::new(), Verdict::RequestChanges);
        (rig.machine).review_previewed(
            &mut rig.outbox,
            request_id.into(),
            pull,
            head_sha,
            Some(drafted),
        );
        let drained = rig.drain();
        let [Event::PullRequestReviewPreview(shown)] = &drained.events[..] else {
            panic!("{:?}", drained.kinds());
        };
        assert_eq!(
            (shown.session_revision, shown.comments.len()),
            (revision, 1)
        );
    };
    let post = |rig: &mut Rig, request_id: &str, revision: u64| {
        let shell = fake::shell(&rig.timings, &rig.unset);
        let post = PostPullRequestReview {
            request_id: request_id.into(),
            verdict: Verdict::Comment,
            body: Some("Two things.".into()),
        };
        (rig.machine).post_review(&mut rig.outbox, &shell, at(5), post, Some(revision))
    };
    preview(&mut rig, "v", 3);

    // Confirmed with the head now `head`: what the machine queued once it read it.
    let confirm = |rig: &mut Rig, head: &str, now: Ms| {
        assert_eq!(post(rig, "v", 3), Ok(Then::Nothing));
        let (read, then) = rig.ok(now, &format!(r#"{{"headRefOid":"{head}"}}"#));
        assert_eq!(read.line(), "gh pr view 9 --json headRefOid --repo x/y");
        assert_eq!(then, Then::Nothing, "the machine posts on its own");
        rig.drain()
    };
    let failure = |drained: &Drained| {
        assert_eq!((&drained.spawned, &drained.written), (&vec![], &vec![]));
        let [Event::PullRequestReviewPostFailed(failed)] = &drained.events[..] else {
            panic!("{:?}", drained.kinds());
        };
        failed.reason.clone()
    };

    // The findings moved after the preview: nothing is read or posted.
    assert_eq!(post(&mut rig, "v", 4), Ok(Then::Nothing));
    let moved = failure(&rig.drain());
    assert!(
        moved.starts_with("the findings changed after the preview (revision 3, now 4)"),
        "{moved}"
    );

    // The head moved after the preview: refused before the body is written.
    let moved = failure(&confirm(&mut rig, "beef", at(6)));
    assert!(
        moved.starts_with("the pull request's head moved since the preview (feed → beef)"),
        "{moved}"
    );

    // Unmoved: the body, with the verdict and text the confirmation chose, is posted on gh's
    // stdin, and no file is written; the workspace is probed again after the post.
    let drained = confirm(&mut rig, "feed", at(7));
    assert_eq!(drained.written, [], "nothing of a post on disk");
    let posting = drained.one_spawn();
    assert_eq!(
        posting.line(),
        "gh api --method POST repos/x/y/pulls/9/reviews --input -"
    );
    let body: serde_json::Value = serde_json::from_slice(&posting.stdin).expect("JSON");
    assert_eq!(body["commit_id"], "feed");
    assert_eq!(
        body["event"], "COMMENT",
        "the confirmation's verdict, not the suggested one"
    );
    assert_eq!(body["body"], "Two things.");
    assert_eq!(body["comments"][0]["body"], "An off-by-one.");
    let url = r#"{"html_url":"https://github.com/x/y/pull/9#pullrequestreview-1"}"#;
    let then = rig.end(at(9), posting.id, (url, ""), Ok(Some(0)));
    assert_eq!(then, Then::Nothing);
    let drained = rig.drain();
    assert_eq!(
        drained.events,
        [Event::PullRequestReviewPosted(GithubDone {
            request_id: "v".into(),
            url: Some("https://github.com/x/y/pull/9#pullrequestreview-1".into()),
        })]
    );
    assert_eq!(
        drained.one_spawn().line(),
        GIT_STATUS,
        "probed after the write"
    );

    let again = post(&mut rig, "v", 3).unwrap_err();
    assert!(
        again.starts_with("no preview to confirm"),
        "a review posts once: {again}"
    );
}
