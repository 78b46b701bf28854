//! HEAD moving under a commit of chapters: since the review was read (refused before any
//! commit) or while it runs (refused at the move); either way nothing is committed or moved.

use super::*;

#[test]
fn head_moved_meanwhile_is_refused_and_nothing_moves() {
    let mut flow =
        CommitFlow::new(&request(None, false), &whole_files(), read_at()).expect("starts");
    let moved = (
        &["update-ref", "-m", "luxe: commit review chapters", "HEAD"][..],
        exited(
            128,
            "fatal: update_ref failed for ref 'HEAD': cannot lock ref 'HEAD': is at bbbb but expected aaaa\n",
        ),
    );
    let (asked, done) = drive_steps(&mut flow, git("", Some(moved)));
    let reason = done.expect_err("refused");
    assert!(
        reason.starts_with("git update-ref HEAD (did HEAD move?): fatal: update_ref failed"),
        "{reason}"
    );
    let lines = lines(&asked);
    assert!(
        !lines.iter().any(|l| l.contains(" reset ")),
        "the real index is left alone: {lines:?}"
    );
    assert_eq!(
        lines.last(),
        Some(&format!("rm -f {INDEX} {INDEX}.patch")),
        "the temporary index is removed: {lines:?}"
    );
}

#[test]
fn head_moved_since_the_review_was_read_is_refused_before_any_commit() {
    for stack in [false, true] {
        let elsewhere = ReadAt {
            head: Some("b".repeat(40)),
            ..read_at()
        };
        let mut flow =
            CommitFlow::new(&request(None, stack), &whole_files(), elsewhere).expect("starts");
        let (asked, done) = drive_steps(&mut flow, git("", None));
        let reason = done.expect_err("refused");
        assert!(
            reason.starts_with("HEAD moved since the review was read (from bbbbbbb to aaaaaaa)"),
            "{reason}"
        );
        assert!(flow.head_moved(), "the review is to be read again");
        let lines = lines(&asked);
        assert!(
            !lines.iter().any(|l| l.contains("commit-tree")
                || l.contains("update-ref")
                || l.contains(" add ")
                || l.contains(" reset ")),
            "nothing committed, nothing moved: {lines:?}"
        );
        assert_eq!(
            lines.last(),
            Some(&format!("rm -f {INDEX} {INDEX}.patch")),
            "the temporary index is removed: {lines:?}"
        );
    }
    // Read before the first commit, and one was made meanwhile.
    let mut flow = CommitFlow::new(&request(None, false), &whole_files(), read_without_head())
        .expect("starts");
    let (_, done) = drive_steps(&mut flow, git("", None));
    assert!(
        done.expect_err("refused")
            .starts_with("HEAD moved since the review was read (from no commit to aaaaaaa)")
    );
}
