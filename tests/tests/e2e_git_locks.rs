//! Luxe's own `git status` (the start-up probe and the workspace probe behind
//! `workspace_updated`) never takes the index lock, so it never makes the user's own `git add`
//! or `git commit` fail with "index.lock: File exists" while it runs, and never rewrites the
//! user's index.

use std::os::unix::fs::MetadataExt;

use luxe_tests::git_repo::{init_repo, write};
use luxe_tests::process::{LuxeProcess, Workspace};

#[test]
fn luxes_status_probes_leave_the_index_alone() {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("a.txt", "same\n"), ("b.txt", "same\n")]);
    // The same bytes again: only the files' times change, so a plain `git status` refreshes
    // the index and writes it back (taking `.git/index.lock` to do so).
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(ws.path(), "a.txt", "same\n");
    write(ws.path(), "b.txt", "same\n");
    let index = ws.path().join(".git/index");
    let before = std::fs::metadata(&index).expect("the index");

    let mut luxe = LuxeProcess::spawn(ws.luxe());
    luxe.watch_workspace();
    luxe.expect("ready");
    luxe.until("workspace_updated");
    luxe.send_frame("refresh_workspace", serde_json::json!({}));
    luxe.until("workspace_updated");
    luxe.close_stdin();
    luxe.wait();

    let after = std::fs::metadata(&index).expect("the index");
    assert_eq!(
        (
            before.ino(),
            before.mtime(),
            before.mtime_nsec(),
            before.len()
        ),
        (after.ino(), after.mtime(), after.mtime_nsec(), after.len()),
        "luxe's git status rewrote the user's index"
    );
}
