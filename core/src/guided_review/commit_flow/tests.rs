use super::*;
use crate::protocol::guided_review::{FileStatus, HunkLine, HunkLines, LineKind, ReviewTarget};
use crate::steps::{Asked, drive_steps};

const HEAD: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const INDEX: &str = "/repo/.git/luxe-review.index";

/// The repository of these tests, read when HEAD was [`HEAD`] (what the fake git answers).
fn read_at() -> ReadAt {
    ReadAt {
        root: "/repo".into(),
        head: Some(HEAD.into()),
    }
}

/// The repository of these tests, read before it had a commit.
fn read_without_head() -> ReadAt {
    ReadAt {
        head: None,
        ..read_at()
    }
}

/// An object id git would print: `kind` (a hex letter) then `n`.
fn oid(kind: char, n: usize) -> String {
    format!("{kind}{n:039x}")
}

/// A working-tree review of `files` (path, old path, hunk ids) read in `chapters` (id, title,
/// hunk ids); every hunk changes one line.
fn review(files: &[(&str, Option<&str>, &[&str])], chapters: &[(&str, &str, &[&str])]) -> Review {
    let mut hunks = Vec::new();
    let mut review_files = Vec::new();
    for (path, old_path, hunk_ids) in files {
        for (n, id) in hunk_ids.iter().enumerate() {
            let at = u32::try_from(n).expect("few hunks") * 10 + 1;
            let line = |kind, text| HunkLine {
                kind,
                old_line: None,
                new_line: None,
                text,
                no_newline: false,
            };
            let lines: HunkLines = [
                line(LineKind::Context, "fn f() {"),
                line(LineKind::Del, "    old();"),
                line(LineKind::Add, id),
            ]
            .into_iter()
            .collect();
            hunks.push(Hunk {
                id: (*id).into(),
                file_id: (*path).into(),
                old_start: at,
                old_lines: 2,
                new_start: at,
                new_lines: 2,
                header: String::new(),
                lines,
            });
        }
        review_files.push(ReviewFile {
            id: (*path).into(),
            path: (*path).into(),
            old_path: old_path.map(str::to_owned),
            status: if old_path.is_some() {
                FileStatus::Renamed
            } else {
                FileStatus::Modified
            },
            binary: false,
            withheld: false,
            additions: 1,
            deletions: 1,
            hunk_ids: hunk_ids.iter().map(|h| (*h).into()).collect(),
        });
    }
    Review {
        id: "r".into(),
        revision_id: "v".into(),
        target: ReviewTarget::WorkingTree,
        files: review_files,
        hunks,
        chapters: chapters
            .iter()
            .map(|(id, title, hunk_ids)| Chapter {
                id: (*id).into(),
                title: (*title).into(),
                summary: format!("about {title}"),
                hunk_ids: hunk_ids.iter().map(|h| (*h).into()).collect(),
            })
            .collect(),
    }
}

fn request(chapter_ids: Option<&[&str]>, stack: bool) -> CommitReviewChapters {
    CommitReviewChapters {
        request_id: "k".into(),
        review_id: "r".into(),
        chapter_ids: chapter_ids.map(|ids| ids.iter().map(|c| (*c).into()).collect()),
        messages: None,
        stack: stack.then_some(true),
    }
}

/// A git that does what it is asked: `main` checked out at [`HEAD`], `branches` (in
/// `for-each-ref`'s format) existing, and `fail` answering the first command whose arguments
/// start with its words.
fn git<'a>(
    branches: &'a str,
    fail: Option<(&'a [&'a str], Ran)>,
) -> impl FnMut(&Asked) -> Ran + 'a {
    let (mut trees, mut commits) = (0, 0);
    let mut fail = fail;
    move |step| {
        let Asked::Run(cmd) = step else {
            return Ran::ok("");
        };
        assert_eq!(cmd.cwd.as_deref(), Some("/repo"), "{cmd:?}");
        if let Some((words, _)) = &fail
            && cmd.args.len() >= words.len()
            && cmd.args.iter().zip(words.iter()).all(|(a, w)| a == w)
        {
            return fail.take().expect("checked").1;
        }
        let words: Vec<&str> = cmd.args.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["rev-parse", "--git-path", ..] => Ran::ok(".git/luxe-review.index\n"),
            ["rev-parse", ..] => Ran::ok(format!("{HEAD}\n")),
            ["symbolic-ref", ..] => Ran::ok("main\n"),
            ["for-each-ref", ..] => Ran::ok(branches),
            ["write-tree"] => {
                trees += 1;
                Ran::ok(format!("{}\n", oid('e', trees)))
            }
            ["commit-tree", ..] => {
                commits += 1;
                Ran::ok(format!("{}\n", oid('c', commits)))
            }
            _ => Ran::ok(""),
        }
    }
}

/// A step in one line: a command with its variables, or the file written.
fn line(step: &Asked) -> String {
    match step {
        Asked::Run(cmd) => {
            let mut words: Vec<String> = cmd.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            words.push(cmd.program.name().into());
            words.extend(cmd.args.iter().map(|a| a.replace('\n', "\\n")));
            words.join(" ")
        }
        Asked::Write(write) => format!("write {}", write.path),
    }
}

fn lines(asked: &[Asked]) -> Vec<String> {
    asked.iter().map(line).collect()
}

fn patches(asked: &[Asked]) -> Vec<String> {
    asked
        .iter()
        .filter_map(|step| match step {
            Asked::Write(write) => Some(String::from_utf8(write.bytes.clone()).expect("text")),
            Asked::Run(_) => None,
        })
        .collect()
}

/// A git command that exited with `code`, having printed `stderr`.
fn exited(code: i32, stderr: &str) -> Ran {
    Ran::of(Program::Git, &Ok(Some(code)), b"", stderr.as_bytes(), false)
}

/// Two chapters over the two hunks of one file.
fn split_file() -> Review {
    review(
        &[("a.rs", None, &["h1", "h2"])],
        &[("c1", "One", &["h1"]), ("c2", "Two", &["h2"])],
    )
}

/// Two chapters over three whole files, one of them renamed.
fn whole_files() -> Review {
    review(
        &[
            ("a.rs", None, &["h1"]),
            ("b.rs", None, &["h2"]),
            ("new.rs", Some("old.rs"), &["h3"]),
        ],
        &[
            ("c1", "First part", &["h1", "h3"]),
            ("c2", "Second", &["h2"]),
        ],
    )
}

#[test]
fn chapters_are_committed_in_order_onto_head_in_a_temporary_index_then_head_moves() {
    let mut flow =
        CommitFlow::new(&request(None, false), &whole_files(), read_at()).expect("starts");
    let (asked, done) = drive_steps(&mut flow, git("", None));
    let index = format!("GIT_INDEX_FILE={INDEX}");
    let (t1, t2, c1, c2) = (oid('e', 1), oid('e', 2), oid('c', 1), oid('c', 2));
    assert_eq!(
        lines(&asked),
        [
            "git rev-parse --git-path luxe-review.index".to_owned(),
            "git rev-parse --verify --quiet HEAD^{commit}".to_owned(),
            format!("{index} git read-tree {HEAD}"),
            format!("{index} git add -A -- a.rs new.rs old.rs"),
            format!("{index} git write-tree"),
            format!("git commit-tree {t1} -m First part\\n\\nabout First part -p {HEAD}"),
            format!("{index} git add -A -- b.rs"),
            format!("{index} git write-tree"),
            format!("git commit-tree {t2} -m Second\\n\\nabout Second -p {c1}"),
            format!("git update-ref -m luxe: commit review chapters HEAD {c2} {HEAD}"),
            "git reset --quiet -- a.rs b.rs new.rs old.rs".to_owned(),
            format!("rm -f {INDEX} {INDEX}.patch"),
        ]
    );
    let committed = done.expect("committed");
    assert_eq!(
        committed.commits,
        [
            ChapterCommit {
                chapter_id: "c1".into(),
                sha: c1,
                branch: None,
            },
            ChapterCommit {
                chapter_id: "c2".into(),
                sha: c2,
                branch: None,
            },
        ]
    );
    assert_eq!(
        committed.stack, None,
        "HEAD moved: the review is read again"
    );
    assert_eq!(flow.request_id(), "k");
}

#[test]
fn chosen_chapters_take_their_messages_and_the_first_commit_of_a_new_repository_has_no_parent() {
    let mut request = request(Some(&["c2"]), false);
    request.messages = Some(BTreeMap::from([("c2".into(), "Mine".into())]));
    let mut flow = CommitFlow::new(&request, &whole_files(), read_without_head()).expect("starts");
    let no_head = (&["rev-parse", "--verify"][..], exited(1, ""));
    let (asked, done) = drive_steps(&mut flow, git("", Some(no_head)));
    let lines = lines(&asked);
    assert!(
        lines.contains(&format!("GIT_INDEX_FILE={INDEX} git read-tree --empty")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&format!("git commit-tree {} -m Mine", oid('e', 1))),
        "no parent: {lines:?}"
    );
    assert!(
        lines.contains(&format!(
            "git update-ref -m luxe: commit review chapters HEAD {}",
            oid('c', 1)
        )),
        "HEAD is created, from nothing: {lines:?}"
    );
    assert!(
        lines.contains(&"git reset --quiet -- b.rs".to_owned()),
        "{lines:?}"
    );
    let commits = done.expect("committed").commits;
    assert_eq!(commits.len(), 1);
    assert_eq!(commits[0].chapter_id, "c2");
}

#[test]
fn a_stack_gets_a_branch_per_chapter_never_an_existing_name_and_head_stays() {
    let mut flow =
        CommitFlow::new(&request(None, true), &whole_files(), read_at()).expect("starts");
    // Taken here and on origin: neither may be reused.
    let branches = format!(
        "refs/heads/main\0{HEAD}\nrefs/heads/main-1-first-part\0{HEAD}\nrefs/remotes/origin/main-2-second\0{HEAD}\n"
    );
    let (asked, done) = drive_steps(&mut flow, git(&branches, None));
    let lines = lines(&asked);
    let (c1, c2) = (oid('c', 1), oid('c', 2));
    assert_eq!(
        lines[2], "git symbolic-ref --quiet --short HEAD",
        "{lines:?}"
    );
    assert!(lines[3].starts_with("git for-each-ref"), "{lines:?}");
    assert_eq!(
        lines[lines.len() - 3..],
        [
            format!(
                "git update-ref -m luxe: stack of review chapters refs/heads/main-1-first-part-2 {c1} "
            ),
            format!(
                "git update-ref -m luxe: stack of review chapters refs/heads/main-2-second-2 {c2} "
            ),
            format!("rm -f {INDEX} {INDEX}.patch"),
        ],
        "each branch made only if it does not exist (the empty old value)"
    );
    assert!(
        !lines
            .iter()
            .any(|l| (l.contains("update-ref") && l.contains(" HEAD ")) || l.contains(" reset ")),
        "HEAD, the index and the work tree stay: {lines:?}"
    );
    let committed = done.expect("committed");
    let made: Vec<_> = committed
        .commits
        .iter()
        .map(|c| (c.sha.as_str(), c.branch.as_deref()))
        .collect();
    assert_eq!(
        made,
        [
            (c1.as_str(), Some("main-1-first-part-2")),
            (c2.as_str(), Some("main-2-second-2")),
        ]
    );
    let stack = committed.stack.expect("the stack for preview_stack");
    let named: Vec<_> = stack
        .iter()
        .map(|b| (b.branch.as_str(), b.title.as_str()))
        .collect();
    assert_eq!(
        named,
        [
            ("main-1-first-part-2", "First part"),
            ("main-2-second-2", "Second")
        ]
    );
}

#[test]
fn a_stack_needs_a_commit_to_stand_on() {
    let mut flow =
        CommitFlow::new(&request(None, true), &whole_files(), read_without_head()).expect("starts");
    let no_head = (&["rev-parse", "--verify"][..], Ran::failed("no HEAD"));
    let (asked, done) = drive_steps(&mut flow, git("", Some(no_head)));
    assert_eq!(
        done,
        Err("a stack needs a commit to stand on: HEAD has none".into())
    );
    assert_eq!(
        lines(&asked).last(),
        Some(&format!("rm -f {INDEX} {INDEX}.patch")),
        "only the cleanup runs after"
    );
    assert_eq!(asked.len(), 3);
}

#[test]
fn a_file_split_across_chapters_gets_each_chapters_hunks_as_a_patch_applied_to_the_index() {
    let review = review(
        &[("a.rs", None, &["h1", "h2"]), ("b.rs", None, &["h3"])],
        &[("c1", "One", &["h1", "h3"]), ("c2", "Two", &["h2"])],
    );
    let mut flow = CommitFlow::new(&request(None, false), &review, read_at()).expect("starts");
    let (asked, done) = drive_steps(&mut flow, git("", None));
    let index = format!("GIT_INDEX_FILE={INDEX}");
    let apply = format!("{index} git apply --cached --whitespace=nowarn {INDEX}.patch");
    let lines = lines(&asked);
    assert_eq!(
        lines[3..8],
        [
            format!("{index} git add -A -- b.rs"),
            format!("write {INDEX}.patch"),
            apply.clone(),
            format!("{index} git write-tree"),
            format!(
                "git commit-tree {} -m One\\n\\nabout One -p {HEAD}",
                oid('e', 1)
            ),
        ],
        "the whole file staged, the split one patched: {lines:?}"
    );
    assert_eq!(
        lines[8..11],
        [
            format!("write {INDEX}.patch"),
            apply,
            format!("{index} git write-tree"),
        ],
        "the second chapter has no whole file: no `git add`: {lines:?}"
    );
    let hunk =
        |at: u32, id: &str| format!("@@ -{at},2 +{at},2 @@\n fn f() {{\n-    old();\n+{id}\n");
    let header = "diff --git a/a.rs b/a.rs\n--- a/a.rs\n+++ b/a.rs\n";
    assert_eq!(
        patches(&asked),
        [
            format!("{header}{}", hunk(1, "h1")),
            format!("{header}{}", hunk(11, "h2")),
        ],
        "each patch holds only its chapter's hunks of the file"
    );
    assert!(
        lines.contains(&"git reset --quiet -- a.rs b.rs".to_owned()),
        "{lines:?}"
    );
    assert_eq!(done.expect("committed").commits.len(), 2);
}

#[test]
fn a_failing_git_command_is_named_and_only_the_cleanup_runs_after_it() {
    let mut flow =
        CommitFlow::new(&request(None, false), &split_file(), read_at()).expect("starts");
    let apply = (
        &["apply", "--cached"][..],
        exited(1, "error: patch failed: a.rs:1\n"),
    );
    let (asked, done) = drive_steps(&mut flow, git("", Some(apply)));
    assert_eq!(
        done,
        Err("git apply --cached: error: patch failed: a.rs:1".into())
    );
    let lines = lines(&asked);
    assert!(
        lines[lines.len() - 2].contains("git apply --cached"),
        "{lines:?}"
    );
    assert_eq!(
        lines[lines.len() - 1],
        format!("rm -f {INDEX} {INDEX}.patch")
    );
    assert!(!lines.iter().any(|l| l.contains("update-ref")), "{lines:?}");
}

#[test]
fn a_patch_that_cannot_be_written_is_named_too() {
    let mut flow =
        CommitFlow::new(&request(None, false), &split_file(), read_at()).expect("starts");
    let mut git = git("", None);
    let (asked, done) = drive_steps(&mut flow, |step| match step {
        Asked::Write(_) => Ran::written(&Err("disk full".into())),
        Asked::Run(_) => git(step),
    });
    assert_eq!(done, Err("writing the chapter's patch: disk full".into()));
    assert_eq!(
        lines(&asked).last(),
        Some(&format!("rm -f {INDEX} {INDEX}.patch"))
    );
}

#[test]
fn what_git_prints_for_a_tree_must_be_an_object_id() {
    let mut flow =
        CommitFlow::new(&request(None, false), &whole_files(), read_at()).expect("starts");
    let tree = (&["write-tree"][..], Ran::ok("warning: no tree\n"));
    let (asked, done) = drive_steps(&mut flow, git("", Some(tree)));
    assert_eq!(
        done,
        Err("git write-tree: git printed no object id (16 bytes)".into())
    );
    assert!(!lines(&asked).iter().any(|l| l.contains("commit-tree")));
}

#[test]
fn a_stack_that_fails_partway_names_the_branches_it_made() {
    let mut flow =
        CommitFlow::new(&request(None, true), &whole_files(), read_at()).expect("starts");
    let second = (
        &[
            "update-ref",
            "-m",
            "luxe: stack of review chapters",
            "refs/heads/main-2-second",
        ][..],
        Ran::failed("reference already exists"),
    );
    let (_, done) = drive_steps(&mut flow, git("", Some(second)));
    assert_eq!(
        done,
        Err("git update-ref (creating a stack's branch; does it exist?): reference already exists (branches made before: main-1-first-part)".into())
    );
}

#[test]
fn unknown_or_no_chapters_are_refused_before_any_command() {
    let review = whole_files();
    let refused = |ids: &[&str]| {
        CommitFlow::new(&request(Some(ids), false), &review, read_at()).expect_err("refused")
    };
    assert_eq!(refused(&["c1", "nope"]), "unknown chapter nope");
    assert_eq!(refused(&[]), "no chapters to commit");
}

/// One chapter over a source file and a withheld `.env`, and one over a `.env` alone.
fn with_env() -> Review {
    let mut review = review(
        &[
            ("a.rs", None, &["h1"]),
            (".env", None, &["h2"]),
            ("b/.env", None, &["h3"]),
        ],
        &[
            ("c1", "Code and settings", &["h1", "h2"]),
            ("c2", "Settings", &["h3"]),
        ],
    );
    for file in review.files.iter_mut().filter(|f| f.path.ends_with(".env")) {
        file.withheld = true;
    }
    review
}

#[test]
fn a_withheld_env_file_is_never_committed_and_a_chapter_of_nothing_else_is_refused() {
    let review = with_env();
    let mut flow =
        CommitFlow::new(&request(Some(&["c1"]), true), &review, read_at()).expect("starts");
    let (asked, done) = drive_steps(&mut flow, git("", None));
    let adds: Vec<String> = lines(&asked)
        .into_iter()
        .filter(|l| l.contains(" add "))
        .collect();
    assert_eq!(adds, [format!("GIT_INDEX_FILE={INDEX} git add -A -- a.rs")]);
    assert!(
        !lines(&asked).iter().any(|l| l.contains(".env")),
        "nothing of .env: {asked:?}"
    );
    assert_eq!(done.expect("committed").commits.len(), 1);
    for chosen in [None, Some(&["c2"][..])] {
        let refused = CommitFlow::new(&request(chosen, false), &review, read_at());
        let Err(why) = refused else {
            panic!("refused before any step")
        };
        assert!(
            why.starts_with("chapter c2 (Settings) holds only .env files"),
            "{why}"
        );
    }
}

mod head_moved;
