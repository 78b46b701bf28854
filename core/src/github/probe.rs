//! The workspace probe behind `workspace_updated` as a pure [`Flow`]: `git status`, then gh's
//! login, the repository, the branch's pull request and its checks, each step only when the
//! one before found what it needs.

use crate::git::status::{STATUS_ARGS, parse as parse_status};
use crate::protocol::github::{GithubState, WorkspaceUpdated};
use crate::steps::{Cmd, Flow, Next, Ran};

use super::{gh, parse};

/// The probe's steps, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Git,
    Auth,
    Repo,
    PullRequest,
    Checks,
}

/// What a probe found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The workspace as `workspace_updated` shows it.
    pub workspace: WorkspaceUpdated,
    /// The repository's default branch, when the repository was read (`Some(None)`: it has
    /// none gh could tell).
    pub default_branch: Option<Option<String>>,
    /// Why no GitHub was found, when a command of the probe failed.
    pub failure: Option<String>,
    /// The branch's pull request and its head commit.
    pub head: Option<(u64, String)>,
}

/// A workspace probe under way.
#[derive(Debug, Clone)]
pub struct Probe {
    step: Step,
    found: Found,
}

impl Default for Probe {
    fn default() -> Self {
        Self {
            step: Step::Git,
            found: Found {
                workspace: WorkspaceUpdated {
                    branch: None,
                    head_sha: None,
                    upstream: None,
                    ahead: 0,
                    behind: 0,
                    dirty: false,
                    repository: None,
                    github: GithubState::Ready,
                    pull_request: None,
                },
                default_branch: None,
                failure: None,
                head: None,
            },
        }
    }
}

impl Probe {
    fn then(&mut self, step: Step, args: Vec<String>) -> Next<Found> {
        self.step = step;
        Next::Run(Cmd::gh(args))
    }

    fn done(&mut self) -> Next<Found> {
        Next::Done(self.found.clone())
    }
}

impl Flow for Probe {
    type Output = Found;

    fn start(&mut self) -> Next<Found> {
        self.step = Step::Git;
        Next::Run(Cmd::git(
            STATUS_ARGS.iter().map(|a| (*a).to_owned()).collect(),
        ))
    }

    fn on(&mut self, ran: Ran) -> Next<Found> {
        let workspace = &mut self.found.workspace;
        match self.step {
            Step::Git => {
                if let Ok(stdout) = &ran.result {
                    let status = parse_status(stdout);
                    workspace.branch = status.branch;
                    workspace.head_sha = status.head;
                    workspace.upstream = status.upstream;
                    workspace.ahead = status.ahead;
                    workspace.behind = status.behind;
                    workspace.dirty = status.dirty;
                }
                self.then(Step::Auth, gh::auth_status())
            }
            Step::Auth => match ran.failure() {
                None => self.then(Step::Repo, gh::repo_view()),
                Some(reason) => {
                    workspace.github = ran.gh_state.unwrap_or(GithubState::Unauthenticated);
                    self.found.failure = Some(format!("gh auth status: {reason}"));
                    self.done()
                }
            },
            Step::Repo => match (&ran.result, parse::repository(ran.stdout())) {
                (Ok(_), Ok((repository, default_branch))) => {
                    workspace.repository = Some(repository);
                    self.found.default_branch = Some(default_branch);
                    self.then(Step::PullRequest, gh::current_pr())
                }
                (result, parsed) => {
                    let reason = match (result, parsed) {
                        (Err(reason), _) => reason.clone(),
                        (Ok(_), Err(reason)) => reason,
                        (Ok(_), Ok(_)) => String::new(),
                    };
                    workspace.github = ran.gh_state.unwrap_or(GithubState::NoRemote);
                    self.found.failure = Some(format!("gh repo view: {reason}"));
                    self.done()
                }
            },
            Step::PullRequest => match (&ran.result, parse::branch_pull_request(ran.stdout())) {
                (Ok(stdout), Ok(pr)) => {
                    if let Ok(head) = parse::head_sha(stdout) {
                        self.found.head = Some((pr.number, head));
                    }
                    let number = pr.number;
                    workspace.pull_request = Some(pr);
                    self.then(Step::Checks, gh::pr_checks(number, None))
                }
                // No pull request for this branch (or none readable): the dock shows none.
                _ => self.done(),
            },
            Step::Checks => {
                // gh exits 8 while checks are pending; its JSON is still the answer.
                if let (Ok(checks), Some(pr)) =
                    (parse::checks(ran.stdout()), workspace.pull_request.as_mut())
                {
                    pr.checks = checks;
                }
                self.done()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::{Program, drive};

    const STATUS: &str = "# branch.oid abc\n# branch.head feat\n";
    const REPO: &str = r#"{"nameWithOwner":"o/r","url":"u","defaultBranchRef":{"name":"trunk"}}"#;

    fn run(mut probe: Probe, answer: impl FnMut(&Cmd) -> Ran) -> (Vec<Cmd>, Found) {
        drive(&mut probe, answer)
    }

    #[test]
    fn a_logged_out_gh_stops_the_probe_after_git_and_says_why() {
        let (ran, found) = run(Probe::default(), |cmd| match cmd.program {
            Program::Git => Ran::ok(STATUS),
            Program::Rm => unreachable!("the probe removes no file"),
            Program::Gh => Ran {
                gh_state: Some(GithubState::Unauthenticated),
                ..Ran::failed("You are not logged into any GitHub hosts")
            },
        });
        assert_eq!(ran.len(), 2);
        assert_eq!(found.workspace.branch.as_deref(), Some("feat"));
        assert_eq!(found.workspace.github, GithubState::Unauthenticated);
        assert_eq!(
            found.failure.as_deref(),
            Some("gh auth status: You are not logged into any GitHub hosts")
        );
        assert_eq!(found.default_branch, None);
    }

    #[test]
    fn a_repository_without_a_pull_request_for_the_branch_ends_after_the_lookup() {
        let mut calls = 0;
        let (ran, found) = run(Probe::default(), |cmd| {
            calls += 1;
            match (cmd.program, calls) {
                (Program::Git, _) => Ran::ok(STATUS),
                (_, 2) => Ran::ok(""),
                (_, 3) => Ran::ok(REPO),
                _ => Ran::failed("no pull requests found for branch \"feat\""),
            }
        });
        assert_eq!(ran.len(), 4);
        assert_eq!(found.workspace.repository.as_deref(), Some("o/r"));
        assert_eq!(found.default_branch, Some(Some("trunk".into())));
        assert_eq!(found.workspace.pull_request, None);
        assert_eq!(found.workspace.github, GithubState::Ready);
        assert_eq!(found.failure, None);
    }

    #[test]
    fn output_that_is_no_repository_is_no_remote_with_the_reason() {
        let (_, found) = run(Probe::default(), |cmd| {
            match cmd.args.first().map(String::as_str) {
                Some("repo") => Ran::ok("not json"),
                _ => Ran::ok(STATUS),
            }
        });
        assert_eq!(found.workspace.github, GithubState::NoRemote);
        assert!(found.failure.unwrap().starts_with("gh repo view: "));
    }
}
