//! A stack of branches for the stack tests: a checkout with a bare origin, each branch pushed
//! with an open pull request in the fake gh, and luxe started on it with GitHub writes.

use std::path::Path;

use serde_json::json;

use crate::fake_gh::FakeGh;
use crate::git_repo::{bare_origin, clone_as, git, init_repo, write};
use crate::process::{LuxeProcess, Workspace};

/// A checkout with a bare origin and a stack of `n` branches `s1`…`sn` (one commit each, file
/// `f<i>.txt`), all pushed, each with an open pull request #i based on the one below; HEAD on
/// the top branch.
pub struct Stack {
    /// The checkout.
    pub ws: Workspace,
    /// Its bare origin.
    pub origin: tempfile::TempDir,
    /// The fake gh, whose pull requests are the stack's.
    pub fake: FakeGh,
}

impl Stack {
    /// The stack of `n` branches.
    pub fn new(n: usize) -> Self {
        let ws = Workspace::new();
        init_repo(ws.path(), &[("shared.txt", "one\ntwo\nthree\n")]);
        let origin = bare_origin(ws.path());
        let mut pulls = Vec::new();
        for i in 1..=n {
            let branch = format!("s{i}");
            git(ws.path(), &["checkout", "--quiet", "-b", &branch]);
            write(ws.path(), &format!("f{i}.txt"), &format!("file {i}\n"));
            git(ws.path(), &["add", "-A"]);
            git(
                ws.path(),
                &["commit", "--quiet", "-m", &format!("commit {i}")],
            );
            git(ws.path(), &["push", "--quiet", "-u", "origin", &branch]);
            let base = if i == 1 {
                "main".to_owned()
            } else {
                format!("s{}", i - 1)
            };
            pulls.push(json!({
                "number": i, "title": format!("Part {i}"), "body": "", "state": "OPEN",
                "url": format!("https://github.com/acme/widgets/pull/{i}"),
                "headRefName": branch, "baseRefName": base,
                "headRefOid": rev(ws.path(), &branch), "isDraft": false,
            }));
        }
        let fake = FakeGh::new(&json!({
            "repo": {
                "nameWithOwner": "acme/widgets",
                "url": "https://github.com/acme/widgets",
                "defaultBranchRef": {"name": "main"}
            },
            "pull_requests": pulls,
        }));
        Self { ws, origin, fake }
    }

    /// The checkout's directory.
    pub fn path(&self) -> &Path {
        self.ws.path()
    }

    /// git in the bare origin.
    pub fn origin_git(&self, args: &[&str]) -> String {
        git(self.origin.path(), args)
    }

    /// Starts luxe with GitHub writes on, after its first dock.
    pub fn luxe(&self) -> LuxeProcess {
        self.luxe_with(&[])
    }

    /// [`Stack::luxe`] with more environment variables.
    pub fn luxe_with(&self, env: &[(&str, std::ffi::OsString)]) -> LuxeProcess {
        let mut cmd = self.ws.luxe();
        cmd.envs(self.fake.envs())
            .env("LUXE_GH_TIMEOUT_MS", "10000")
            .arg("--github-writes");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut luxe = LuxeProcess::spawn(cmd);
        luxe.expect("ready");
        luxe.expect("state_changed");
        luxe.watch_workspace();
        luxe.expect("workspace_updated");
        luxe
    }

    /// Marks pull request `number` merged on GitHub, and optionally moves the ones based on
    /// its branch to `retarget` (as GitHub does when the merged branch is deleted).
    pub fn merged(&self, number: u64, retarget: Option<&str>) {
        self.fake.update_state(|state| {
            let pulls = state["pull_requests"].as_array_mut().unwrap();
            let head = pulls
                .iter()
                .find(|p| p["number"] == number)
                .map(|p| p["headRefName"].clone())
                .unwrap();
            for pull in pulls.iter_mut() {
                if pull["number"] == number {
                    pull["state"] = json!("MERGED");
                } else if let Some(base) = retarget
                    && pull["baseRefName"] == head
                {
                    pull["baseRefName"] = json!(base);
                }
            }
        });
    }

    /// The base branch of pull request `number`, as the fake gh holds it.
    pub fn base_of(&self, number: u64) -> String {
        let state = self.fake.state();
        let pulls = state["pull_requests"].as_array().unwrap();
        let pull = pulls.iter().find(|p| p["number"] == number).unwrap();
        pull["baseRefName"].as_str().unwrap().to_owned()
    }
}

/// The commit `rev` names in `dir`.
pub fn rev(dir: &Path, rev: &str) -> String {
    git(dir, &["rev-parse", rev]).trim().to_owned()
}

/// Moves `main` on origin with a commit from another clone that writes `text` to `path`.
pub fn advance_main(stack: &Stack, path: &str, text: &str) {
    let clone = clone_as(stack.origin.path(), "Other");
    write(clone.path(), path, text);
    git(clone.path(), &["add", "-A"]);
    git(clone.path(), &["commit", "--quiet", "-m", "main moves"]);
    git(clone.path(), &["push", "--quiet", "origin", "main"]);
}
