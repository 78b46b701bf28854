//! `read_diff` against real repositories made with the git CLI, each target's changed paths
//! cross-checked against `git diff --name-status` (and `git ls-files --others` for the working
//! tree).

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use luxe_core::effects::{ChangedFile, DiffSource};
use luxe_core::protocol::guided_review::{FileStatus, ReviewTarget};
use luxe_io::git::read_diff;
use tempfile::TempDir;

/// A repository in a temp dir, driven by the git CLI with no user or system config.
struct Repo {
    dir: TempDir,
}

fn git_in(dir: &Path, args: &[&str]) -> Vec<u8> {
    let output = run_git(dir, args);
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn run_git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .expect("git runs")
}

impl Repo {
    fn new() -> Self {
        let repo = Self {
            dir: TempDir::new().expect("temp dir"),
        };
        repo.git(&["-c", "init.defaultBranch=main", "init", "-q"]);
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn cwd(&self) -> String {
        self.path().to_string_lossy().into_owned()
    }

    fn git(&self, args: &[&str]) -> Vec<u8> {
        git_in(self.path(), args)
    }

    fn write(&self, path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) {
        let full = self.path().join(path);
        std::fs::create_dir_all(full.parent().expect("has a parent")).expect("dirs");
        std::fs::write(full, bytes).expect("written");
    }

    fn remove(&self, path: &str) {
        std::fs::remove_file(self.path().join(path)).expect("removed");
    }

    fn chmod(&self, path: &str, mode: u32) {
        let full = self.path().join(path);
        std::fs::set_permissions(full, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn rev(&self, spec: &str) -> String {
        String::from_utf8(self.git(&["rev-parse", spec]))
            .expect("hex")
            .trim()
            .to_owned()
    }

    fn read(&self, target: &ReviewTarget) -> DiffSource {
        read_diff(&self.cwd(), target).expect("diff read")
    }

    /// `git diff --name-status <args>` as (status, path, old path).
    fn git_changes(&self, args: &[&str]) -> BTreeSet<Entry> {
        let mut command = vec!["diff", "--name-status", "-z", "--no-ext-diff"];
        command.extend_from_slice(args);
        let out = self.git(&command);
        let mut fields = out
            .split(|&b| b == 0)
            .filter(|field| !field.is_empty())
            .map(|field| String::from_utf8_lossy(field).into_owned());
        let mut changes = BTreeSet::new();
        while let Some(status) = fields.next() {
            let letter = status.chars().next().expect("a status letter");
            let first = fields.next().expect("a path");
            let entry = if matches!(letter, 'R' | 'C') {
                (letter, fields.next().expect("a new path"), Some(first))
            } else {
                (letter, first, None)
            };
            changes.insert(entry);
        }
        changes
    }

    /// The untracked files that are not ignored, as additions.
    fn git_untracked(&self) -> BTreeSet<Entry> {
        self.git(&["ls-files", "-z", "--others", "--exclude-standard"])
            .split(|&b| b == 0)
            .filter(|field| !field.is_empty())
            .map(|path| ('A', String::from_utf8_lossy(path).into_owned(), None))
            .collect()
    }

    /// Reads the working tree and checks it against `git diff HEAD` plus the untracked files.
    fn working_tree(&self) -> DiffSource {
        let source = self.read(&ReviewTarget::WorkingTree);
        let mut expected = self.git_changes(&["HEAD"]);
        expected.extend(self.git_untracked());
        assert_eq!(entries(&source), expected);
        source
    }

    /// Reads the index and checks it against `git diff --cached`.
    fn staged(&self) -> DiffSource {
        let source = self.read(&ReviewTarget::Staged);
        assert_eq!(entries(&source), self.git_changes(&["--cached"]));
        source
    }
}

type Entry = (char, String, Option<String>);

fn entries(source: &DiffSource) -> BTreeSet<Entry> {
    source
        .files
        .iter()
        .map(|file| {
            (
                file.status.letter(),
                file.path.clone(),
                file.old_path.clone(),
            )
        })
        .collect()
}

fn file<'a>(source: &'a DiffSource, path: &str) -> &'a ChangedFile {
    source
        .files
        .iter()
        .find(|file| file.path == path)
        .unwrap_or_else(|| panic!("{path} not in {:?}", entries(source)))
}

fn old_bytes<'a>(source: &'a DiffSource, path: &str) -> Option<&'a [u8]> {
    file(source, path).old.as_deref()
}

fn new_bytes<'a>(source: &'a DiffSource, path: &str) -> Option<&'a [u8]> {
    file(source, path).new.as_deref()
}

fn canonical(path: &Path) -> String {
    std::fs::canonicalize(path)
        .expect("canonical")
        .to_string_lossy()
        .into_owned()
}

fn non_utf8_name() -> PathBuf {
    PathBuf::from(OsStr::from_bytes(b"caf\xe9.txt"))
}

#[test]
fn working_tree_shows_every_kind_of_change_with_both_sides() {
    let repo = Repo::new();
    repo.write(".gitignore", "*.log\n");
    repo.write("modified.txt", "one\ntwo\n");
    repo.write("deleted.txt", "gone soon\n");
    repo.write("script.sh", "echo hi\n");
    repo.write("binary.bin", b"\x00\x01\x02\xff");
    repo.write("empty-then-full.txt", "");
    repo.write("crlf.txt", "a\r\nb\r\n");
    repo.write("no-newline.txt", "last line");
    repo.write("becomes-link.txt", "text\n");
    repo.write("dir with spaces/a file.txt", "spaced\n");
    repo.write(non_utf8_name(), "latin-1 name\n");
    repo.commit_all("base");

    repo.write("modified.txt", "one\nTWO\n");
    repo.remove("deleted.txt");
    repo.chmod("script.sh", 0o755);
    repo.write("binary.bin", b"\x00\x01\x03\xff");
    repo.write("empty-then-full.txt", "now\n");
    repo.write("crlf.txt", "a\r\nB\r\n");
    repo.write("no-newline.txt", "last line changed");
    repo.remove("becomes-link.txt");
    std::os::unix::fs::symlink("modified.txt", repo.path().join("becomes-link.txt"))
        .expect("symlink");
    repo.write("dir with spaces/a file.txt", "still spaced\n");
    repo.write(non_utf8_name(), "latin-1 name, changed\n");
    repo.write("new/untracked.txt", "fresh\n");
    repo.write("new-empty.txt", "");
    repo.write("debug.log", "ignored\n");

    let source = repo.working_tree();
    assert_eq!(source.root, canonical(repo.path()));
    assert_eq!(source.base_commit, Some(repo.rev("HEAD")));
    assert_eq!(source.head_commit, None);
    let paths: Vec<&str> = source.files.iter().map(|f| f.path.as_str()).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted, "files are sorted by path");
    assert!(!paths.contains(&"debug.log"), "ignored files stay out");

    let modified = file(&source, "modified.txt");
    assert_eq!(modified.status, FileStatus::Modified);
    assert_eq!(modified.old.as_deref(), Some(&b"one\ntwo\n"[..]));
    assert_eq!(modified.new.as_deref(), Some(&b"one\nTWO\n"[..]));
    assert_eq!(
        (modified.old_mode, modified.new_mode),
        (Some(0o100644), Some(0o100644))
    );

    let deleted = file(&source, "deleted.txt");
    assert_eq!(deleted.status, FileStatus::Deleted);
    assert_eq!(deleted.old.as_deref(), Some(&b"gone soon\n"[..]));
    assert_eq!((deleted.new.as_ref(), deleted.new_mode), (None, None));

    let script = file(&source, "script.sh");
    assert_eq!(script.status, FileStatus::Modified);
    assert_eq!(
        (script.old_mode, script.new_mode),
        (Some(0o100644), Some(0o100755))
    );
    assert_eq!(script.old, script.new, "only the mode changed");

    let binary = file(&source, "binary.bin");
    assert_eq!(binary.new.as_deref(), Some(&b"\x00\x01\x03\xff"[..]));

    assert_eq!(old_bytes(&source, "empty-then-full.txt"), Some(&b""[..]));
    assert_eq!(new_bytes(&source, "crlf.txt"), Some(&b"a\r\nB\r\n"[..]));
    assert_eq!(
        new_bytes(&source, "no-newline.txt"),
        Some(&b"last line changed"[..])
    );

    let link = file(&source, "becomes-link.txt");
    assert_eq!(link.status, FileStatus::TypeChanged);
    assert_eq!(
        (link.old_mode, link.new_mode),
        (Some(0o100644), Some(0o120000))
    );
    assert_eq!(
        link.new.as_deref(),
        Some(&b"modified.txt"[..]),
        "a link's bytes are its target"
    );

    assert_eq!(
        file(&source, "dir with spaces/a file.txt").status,
        FileStatus::Modified
    );
    let latin = file(&source, "caf\u{fffd}.txt");
    assert_eq!(latin.new.as_deref(), Some(&b"latin-1 name, changed\n"[..]));

    let untracked = file(&source, "new/untracked.txt");
    assert_eq!(untracked.status, FileStatus::Added);
    assert_eq!((untracked.old.as_ref(), untracked.old_mode), (None, None));
    assert_eq!(untracked.new.as_deref(), Some(&b"fresh\n"[..]));
    assert_eq!(new_bytes(&source, "new-empty.txt"), Some(&b""[..]));
}

#[test]
fn staged_and_working_tree_differ_where_the_index_does() {
    let repo = Repo::new();
    repo.write("both.txt", "v1\n");
    repo.write("only-disk.txt", "v1\n");
    repo.write("staged-then-undone.txt", "v1\n");
    repo.write(
        "to-move.txt",
        "a file long enough to be recognised after a move\n",
    );
    repo.commit_all("base");

    repo.write("both.txt", "v2\n");
    repo.write("staged-then-undone.txt", "v2\n");
    repo.write("staged-new.txt", "new\n");
    repo.git(&[
        "add",
        "both.txt",
        "staged-then-undone.txt",
        "staged-new.txt",
    ]);
    repo.git(&["mv", "to-move.txt", "moved.txt"]);
    repo.write("both.txt", "v3\n");
    repo.write("staged-then-undone.txt", "v1\n");
    repo.write("only-disk.txt", "v2\n");

    let staged = repo.staged();
    assert_eq!(new_bytes(&staged, "both.txt"), Some(&b"v2\n"[..]));
    assert!(staged.files.iter().all(|f| f.path != "only-disk.txt"));
    let moved = file(&staged, "moved.txt");
    assert_eq!(moved.status, FileStatus::Renamed);
    assert_eq!(moved.old_path.as_deref(), Some("to-move.txt"));
    assert_eq!(staged.base_commit, Some(repo.rev("HEAD")));

    let working = repo.working_tree();
    assert_eq!(new_bytes(&working, "both.txt"), Some(&b"v3\n"[..]));
    assert_eq!(old_bytes(&working, "both.txt"), Some(&b"v1\n"[..]));
    assert_eq!(file(&working, "only-disk.txt").status, FileStatus::Modified);
    assert!(
        working
            .files
            .iter()
            .all(|f| f.path != "staged-then-undone.txt"),
        "a staged change undone on disk is no change from HEAD"
    );
    assert_eq!(
        file(&working, "moved.txt").old_path.as_deref(),
        Some("to-move.txt")
    );
}

#[test]
fn a_repository_without_commits_is_all_additions() {
    let repo = Repo::new();
    repo.write(".gitignore", "target/\n");
    repo.write("src/lib.rs", "fn main() {}\n");
    repo.git(&["add", "src/lib.rs"]);
    repo.write("notes.md", "untracked\n");
    repo.write("target/out", "ignored\n");

    // `git diff HEAD` cannot run without a HEAD: the expectation is the index plus untracked.
    let source = repo.read(&ReviewTarget::WorkingTree);
    let mut expected = repo.git_untracked();
    expected.insert(('A', "src/lib.rs".into(), None));
    assert_eq!(entries(&source), expected);
    assert_eq!(source.base_commit, None);
    assert_eq!(
        new_bytes(&source, "src/lib.rs"),
        Some(&b"fn main() {}\n"[..])
    );

    let staged = repo.staged();
    assert_eq!(
        entries(&staged),
        BTreeSet::from([('A', "src/lib.rs".into(), None)])
    );
    assert_eq!(staged.base_commit, None);
}

#[test]
fn branch_defaults_to_the_remotes_default_branch() {
    let origin = TempDir::new().expect("temp dir");
    git_in(
        origin.path(),
        &["-c", "init.defaultBranch=trunk", "init", "-q", "--bare"],
    );
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "-b", "trunk"]);
    repo.write("kept.txt", "kept\n");
    repo.write(
        "renamed.txt",
        "content that is long enough to be paired as a rename\n",
    );
    repo.write("edited.txt", "before\n");
    repo.commit_all("base");
    let origin_path = origin.path().to_string_lossy().into_owned();
    repo.git(&["remote", "add", "origin", &origin_path]);
    repo.git(&["push", "-q", "origin", "trunk"]);
    repo.git(&["remote", "set-head", "origin", "-a"]);
    let merge_base = repo.rev("HEAD");

    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.git(&["mv", "renamed.txt", "moved.txt"]);
    repo.write("edited.txt", "after\n");
    repo.write("added.txt", "added\n");
    repo.commit_all("feature work");
    // The base moves on after the branch point: its changes are not the branch's.
    repo.git(&["checkout", "-q", "trunk"]);
    repo.write("kept.txt", "changed on trunk\n");
    repo.commit_all("trunk moves");
    repo.git(&["push", "-q", "origin", "trunk"]);
    repo.git(&["checkout", "-q", "feature"]);

    let source = repo.read(&ReviewTarget::Branch { base: None });
    assert_eq!(entries(&source), repo.git_changes(&["origin/trunk...HEAD"]));
    assert_eq!(source.base_commit, Some(merge_base));
    assert_eq!(source.head_commit, Some(repo.rev("HEAD")));
    let moved = file(&source, "moved.txt");
    assert_eq!(moved.status, FileStatus::Renamed);
    assert_eq!(moved.old_path.as_deref(), Some("renamed.txt"));
    assert_eq!(moved.old, moved.new);

    let named = repo.read(&ReviewTarget::Branch {
        base: Some("trunk".into()),
    });
    assert_eq!(entries(&named), entries(&source));
}

#[test]
fn branch_falls_back_to_main_and_says_when_there_is_no_base() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo.write("a.txt", "b\n");
    repo.commit_all("topic");
    let source = repo.read(&ReviewTarget::Branch { base: None });
    assert_eq!(entries(&source), repo.git_changes(&["main...HEAD"]));

    repo.git(&["branch", "-q", "-m", "main", "trunk"]);
    let err = read_diff(&repo.cwd(), &ReviewTarget::Branch { base: None }).unwrap_err();
    assert!(err.contains("no base branch"), "{err}");
}

#[test]
fn commits_compare_two_revisions() {
    let repo = Repo::new();
    repo.write("a.txt", "first\n");
    repo.write("long.txt", "a body of text that survives the move intact\n");
    repo.write("run.sh", "echo\n");
    repo.write("link-later", "a file for now\n");
    repo.write(non_utf8_name(), "bytes\n");
    repo.commit_all("one");
    repo.write("a.txt", "second\n");
    repo.commit_all("two");
    std::fs::create_dir(repo.path().join("moved")).expect("dir");
    repo.git(&["mv", "long.txt", "moved/long.txt"]);
    repo.write("b.txt", "b\n");
    repo.remove("a.txt");
    repo.chmod("run.sh", 0o755);
    repo.remove("link-later");
    std::os::unix::fs::symlink("b.txt", repo.path().join("link-later")).expect("symlink");
    repo.write(non_utf8_name(), "other bytes\n");
    repo.commit_all("three");

    let target = ReviewTarget::Commits {
        from: "HEAD~2".into(),
        to: "HEAD".into(),
    };
    let source = repo.read(&target);
    assert_eq!(entries(&source), repo.git_changes(&["HEAD~2", "HEAD"]));
    assert_eq!(source.base_commit, Some(repo.rev("HEAD~2")));
    assert_eq!(source.head_commit, Some(repo.rev("HEAD")));
    assert_eq!(old_bytes(&source, "a.txt"), Some(&b"first\n"[..]));
    assert_eq!(file(&source, "moved/long.txt").status, FileStatus::Renamed);
    let run = file(&source, "run.sh");
    assert_eq!(
        (run.old_mode, run.new_mode),
        (Some(0o100644), Some(0o100755))
    );
    let link = file(&source, "link-later");
    assert_eq!(link.status, FileStatus::TypeChanged);
    assert_eq!(link.new.as_deref(), Some(&b"b.txt"[..]));

    let trees = repo.read(&ReviewTarget::Commits {
        from: "HEAD~1^{tree}".into(),
        to: "HEAD".into(),
    });
    assert_eq!(
        entries(&trees),
        repo.git_changes(&["HEAD~1^{tree}", "HEAD"])
    );
    assert_eq!(trees.base_commit, None, "a tree is not a commit");
}

#[test]
fn unknown_revisions_and_other_refusals_are_named() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    repo.commit_all("one");
    let err = read_diff(
        &repo.cwd(),
        &ReviewTarget::Commits {
            from: "no-such-branch".into(),
            to: "HEAD".into(),
        },
    )
    .unwrap_err();
    assert!(err.contains("unknown revision 'no-such-branch'"), "{err}");

    let err = read_diff(
        &repo.cwd(),
        &ReviewTarget::PullRequest {
            number: 1,
            repository: None,
        },
    )
    .unwrap_err();
    assert_eq!(err, "pull requests are read through gh, not git");

    let outside = TempDir::new().expect("temp dir");
    let cwd = outside.path().to_string_lossy().into_owned();
    let err = read_diff(&cwd, &ReviewTarget::WorkingTree).unwrap_err();
    assert!(err.contains("not a git repository"), "{err}");
    assert!(err.contains(&cwd), "{err}");
}

#[test]
fn a_subdirectory_reads_the_whole_repository() {
    let repo = Repo::new();
    repo.write("top.txt", "top\n");
    repo.write("sub/inner.txt", "inner\n");
    repo.commit_all("base");
    repo.write("top.txt", "top changed\n");
    repo.write("sub/inner.txt", "inner changed\n");
    let sub = repo.path().join("sub").to_string_lossy().into_owned();
    let source = read_diff(&sub, &ReviewTarget::WorkingTree).expect("diff read");
    assert_eq!(source.root, canonical(repo.path()));
    assert_eq!(entries(&source), repo.git_changes(&["HEAD"]));
}

#[test]
fn intent_to_add_and_file_mode_config_are_honoured() {
    let repo = Repo::new();
    repo.write("tool.sh", "echo\n");
    repo.commit_all("base");
    repo.write("planned.txt", "intended\n");
    repo.git(&["add", "--intent-to-add", "planned.txt"]);
    repo.git(&["config", "core.fileMode", "false"]);
    repo.chmod("tool.sh", 0o755);

    let working = repo.working_tree();
    assert_eq!(
        entries(&working),
        BTreeSet::from([('A', "planned.txt".into(), None)])
    );
    repo.staged();
}

#[test]
fn a_conflicted_file_compares_heads_side_with_the_disk() {
    let repo = Repo::new();
    repo.write("clash.txt", "base\n");
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("clash.txt", "theirs\n");
    repo.commit_all("theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("clash.txt", "ours\n");
    repo.commit_all("ours");
    let merge = run_git(repo.path(), &["merge", "-q", "other"]);
    assert!(!merge.status.success(), "the merge conflicts");

    let source = repo.read(&ReviewTarget::WorkingTree);
    let clash = file(&source, "clash.txt");
    assert_eq!(clash.status, FileStatus::Modified);
    assert_eq!(clash.old.as_deref(), Some(&b"ours\n"[..]));
    let new = String::from_utf8(clash.new.clone().expect("on disk")).expect("text");
    assert!(new.contains("<<<<<<<") && new.contains("theirs"), "{new}");
}
