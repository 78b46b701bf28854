//! The commit of chapters at its seam, without a session or a binary: a fake git answers the
//! commands it spawns, and the tests read what it answers and what it leaves to the review
//! (read again after HEAD moved) or to the stacks (the branches a stack made).

use super::*;
use crate::config::Timings;
use crate::protocol::events::ChapterCommit;
use crate::protocol::guided_review::{Chapter, FileStatus, Hunk, HunkLines, ReviewFile};
use crate::session::step_runner::fake::{self, Ms, at, drain, ended};

/// The review's repository: its commands run there, not in the session's directory.
const ROOT: &str = "/top";
const HEAD: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// A working-tree review of `a.rs` and `b.rs`, one hunk and one chapter each.
fn review() -> Review {
    let file = |path: &str, hunk: &str| ReviewFile {
        id: path.into(),
        path: path.into(),
        old_path: None,
        status: FileStatus::Modified,
        binary: false,
        withheld: false,
        additions: 1,
        deletions: 1,
        hunk_ids: vec![hunk.into()],
    };
    let hunk = |path: &str, id: &str| Hunk {
        id: id.into(),
        file_id: path.into(),
        old_start: 1,
        old_lines: 1,
        new_start: 1,
        new_lines: 1,
        header: String::new(),
        lines: HunkLines::default(),
    };
    let chapter = |id: &str, title: &str, hunk: &str| Chapter {
        id: id.into(),
        title: title.into(),
        summary: format!("about {title}"),
        hunk_ids: vec![hunk.into()],
    };
    Review {
        id: "r".into(),
        revision_id: "v".into(),
        target: ReviewTarget::WorkingTree,
        files: vec![file("a.rs", "h1"), file("b.rs", "h2")],
        hunks: vec![hunk("a.rs", "h1"), hunk("b.rs", "h2")],
        chapters: vec![
            chapter("c1", "Parser", "h1"),
            chapter("c2", "Printer", "h2"),
        ],
    }
}

fn request(stack: bool) -> CommitReviewChapters {
    CommitReviewChapters {
        request_id: "k".into(),
        review_id: "r".into(),
        chapter_ids: None,
        messages: None,
        stack: stack.then_some(true),
    }
}

/// What a git with `main` checked out at [`HEAD`] prints for `args` (the `n`th object it
/// writes gets an id ending in `n`).
fn git(args: &[String], written: &mut usize) -> String {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["rev-parse", "--git-path", ..] => ".git/luxe-review.index\n".into(),
        ["rev-parse", ..] => format!("{HEAD}\n"),
        ["symbolic-ref", ..] => "main\n".into(),
        ["write-tree"] | ["commit-tree", ..] => {
            *written += 1;
            format!("{:040x}\n", *written)
        }
        _ => String::new(),
    }
}

/// Runs a commit of `request` to its end against [`git`], failing the first command that
/// starts with `fail`: the commands run, and what the commit left to other features.
fn commit(request: &CommitReviewChapters, fail: &[&str]) -> (Vec<String>, Then, Vec<Event>) {
    let (timings, unset) = (Timings::default(), fake::unset());
    let shell = fake::shell(&timings, &unset);
    let (mut commits, mut outbox) = (commits::<Ms>(), Outbox::default());
    let read_at = ReadAt {
        root: ROOT.into(),
        head: Some(HEAD.into()),
    };
    let started = commits.start(&mut outbox, &shell, at(0), request, (&review(), read_at));
    assert_eq!(started, Ok(Then::Nothing));
    let (mut ran, mut after, mut events, mut written) = (Vec::new(), Then::Nothing, Vec::new(), 0);
    loop {
        let drained = drain(&mut outbox);
        events.extend(drained.events.iter().cloned());
        let Some(spawned) = drained.spawned.first() else {
            return (ran, after, events);
        };
        let spawned = spawned.clone();
        assert_eq!(spawned.cwd, ROOT, "{}", spawned.line());
        assert_eq!(
            commits.flows.deadline(),
            None,
            "local git work has no deadline"
        );
        let failing = spawned.args.iter().zip(fail).all(|(a, f)| a == f) && !fail.is_empty();
        let (stdout, stderr, status) = if failing {
            (String::new(), "fatal: no space left", Ok(Some(128)))
        } else {
            (git(&spawned.args, &mut written), "", Ok(Some(0)))
        };
        for input in ended(spawned.id, &stdout, stderr, status) {
            after = commits.handle(&mut outbox, &shell, at(1), &input);
        }
        ran.push(spawned.line());
    }
}

#[test]
fn a_commit_onto_head_answers_its_commits_and_leaves_the_review_to_be_read_again() {
    let (ran, after, events) = commit(&request(false), &[]);
    assert_eq!(after, Then::HeadMoved);
    let sha = |n: usize| format!("{n:040x}");
    let move_head = format!(
        "git update-ref -m luxe: commit review chapters HEAD {} {HEAD}",
        sha(4)
    );
    assert!(
        ran.contains(&move_head),
        "HEAD moves to the last commit: {ran:#?}"
    );
    assert_eq!(
        events,
        [Event::ReviewChaptersCommitted(ReviewChaptersCommitted {
            request_id: "k".into(),
            commits: vec![
                ChapterCommit {
                    chapter_id: "c1".into(),
                    sha: sha(2),
                    branch: None,
                },
                ChapterCommit {
                    chapter_id: "c2".into(),
                    sha: sha(4),
                    branch: None,
                },
            ],
        })]
    );
    assert_eq!(
        ran.last().map(|l| &l[..5]),
        Some("rm -f"),
        "the temporary index goes"
    );
}

#[test]
fn a_stack_of_chapters_leaves_its_branches_to_the_stacks_and_head_where_it_was() {
    let (ran, after, events) = commit(&request(true), &[]);
    let Then::Stack(branches) = after else {
        panic!("the stacks get the branches: {after:?} {events:?}");
    };
    let made: Vec<_> = branches
        .iter()
        .map(|b| (b.branch.as_str(), b.title.as_str()))
        .collect();
    assert_eq!(
        made,
        [("main-1-parser", "Parser"), ("main-2-printer", "Printer")]
    );
    assert_eq!(branches[0].summary, "about Parser");
    assert!(
        !ran.iter().any(|l| l.contains(" HEAD ")),
        "HEAD does not move: {ran:#?}"
    );
    assert_eq!(events[0].kind(), "review_chapters_committed");
}

#[test]
fn a_failing_git_command_answers_the_commit_failed_and_leaves_nothing_to_others() {
    let (ran, after, events) = commit(&request(false), &["write-tree"]);
    assert_eq!(after, Then::Nothing);
    let [Event::ReviewChaptersCommitFailed(failed)] = &events[..] else {
        panic!("{events:?}");
    };
    assert_eq!(failed.reason, "git write-tree: fatal: no space left");
    assert!(
        !ran.iter().any(|l| l.starts_with("git commit-tree")),
        "{ran:#?}"
    );
    assert!(
        ran.last().is_some_and(|l| l.starts_with("rm -f")),
        "cleaned up: {ran:#?}"
    );
}
