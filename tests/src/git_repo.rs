//! Real git repositories for tests: the git CLI with no global or system configuration, a
//! fixed author, and `home/` (the workspace's `LUXE_HOME`) ignored.

use std::path::Path;
use std::process::Command;

/// Runs `git args` in `dir` and returns its stdout as text; panics with stderr when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&git_bytes(dir, args)).into_owned()
}

/// Runs `git args` in `dir` and returns its stdout's bytes (a diff of binary files, or output
/// timed as it is); panics with stderr when it fails.
pub fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = git_command(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A git command in `dir` that reads no user or system configuration.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com");
    cmd
}

/// Makes `dir` a repository on `main` whose first commit holds `files` and a `.gitignore` that
/// leaves out `home/`; luxe's own commits there get the same author.
pub fn init_repo(dir: &Path, files: &[(&str, &str)]) {
    git(dir, &["init", "--quiet", "-b", "main"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
    write(dir, ".gitignore", "home/\n");
    for (path, text) in files {
        write(dir, path, text);
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "-m", "base"]);
}

/// Writes `text` to `path` under `dir`, making directories.
pub fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A bare repository on disk as `dir`'s `origin`, with `main` pushed and tracked; the stand-in
/// for GitHub's side of a push.
pub fn bare_origin(dir: &Path) -> tempfile::TempDir {
    let origin = tempfile::tempdir().expect("a temp dir");
    git(origin.path(), &["init", "--quiet", "--bare", "-b", "main"]);
    let url = origin.path().to_string_lossy().into_owned();
    git(dir, &["remote", "add", "origin", &url]);
    git(dir, &["push", "--quiet", "-u", "origin", "main"]);
    origin
}

/// A fresh clone of `origin` committing as `name`: someone else's checkout, or GitHub's own
/// merges.
pub fn clone_as(origin: &Path, name: &str) -> tempfile::TempDir {
    let clone = tempfile::tempdir().expect("a temp dir");
    let url = origin.to_string_lossy().into_owned();
    git(clone.path(), &["clone", "--quiet", &url, "."]);
    git(clone.path(), &["config", "user.name", name]);
    git(
        clone.path(),
        &["config", "user.email", "someone@example.com"],
    );
    clone
}

/// The git on PATH, resolved (for wrappers and PATHs that must still find it).
pub fn real_git() -> std::path::PathBuf {
    let out = Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .expect("sh runs");
    std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// `src/lib.rs` of [`three_changes`] as committed: `beta` returns 2.
pub const THREE_CHANGES_LIB: &str = "fn alpha() -> u32 {\n    1\n}\n\n// spacer\n// spacer\n// spacer\n// spacer\n// spacer\n// spacer\n\nfn beta() -> u32 {\n    2\n}\n";

/// Makes `dir` a repository whose working tree has three changes for a guided review: `beta`
/// in `src/lib.rs` returns `2 + 40`, `src/new.rs` is new, and the README gains a line.
/// `ignored` lines join `home/` in the committed `.gitignore`.
pub fn three_changes(dir: &Path, ignored: &[&str]) {
    let gitignore = std::iter::once("home/")
        .chain(ignored.iter().copied())
        .map(|line| format!("{line}\n"))
        .collect::<String>();
    init_repo(
        dir,
        &[
            (".gitignore", &gitignore),
            ("src/lib.rs", THREE_CHANGES_LIB),
            ("README.md", "# Demo\n"),
        ],
    );
    write(
        dir,
        "src/lib.rs",
        &THREE_CHANGES_LIB.replace("    2\n", "    2 + 40\n"),
    );
    write(dir, "src/new.rs", "pub fn gamma() {}\n");
    write(dir, "README.md", "# Demo\n\nNow with gamma.\n");
}
