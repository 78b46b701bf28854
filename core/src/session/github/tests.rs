//! The GitHub machine at its seam, without a session or a binary: a fake git and gh answer the
//! commands it spawns (found on the outbox by effect id), on a test clock, and the tests read
//! the frames and the [`Then`] values it answers with.

use super::*;
use crate::effects::EffectId;
use crate::protocol::github::{ListPullRequests, PostPullRequestComment};
use crate::session::step_runner::fake::{self, Drained, Ms, Spawned, at, ended};

mod pull_request_reviews;

const STATUS: &str = "# branch.oid abc123\n# branch.head feat\n";
const REPO: &str =
    r#"{"nameWithOwner":"o/r","url":"https://github.com/o/r","defaultBranchRef":{"name":"trunk"}}"#;
const GIT_STATUS: &str = "git status --porcelain=v2 --branch --untracked-files=normal";
const NO_PR: &str = "no pull requests found for branch \"feat\"";

/// A Github machine on the fake shell.
type Rig = fake::Rig<Github<Ms>>;

impl Rig {
    fn probe(&mut self, now: Ms, announce: bool) -> Then {
        let shell = fake::shell(&self.timings, &self.unset);
        self.machine.probe(&mut self.outbox, &shell, now, announce)
    }

    fn act(&mut self, now: Ms, action: Action) -> Result<Then, Rejection> {
        let shell = fake::shell(&self.timings, &self.unset);
        self.machine.act(&mut self.outbox, &shell, now, action)
    }

    fn timeout(&mut self, now: Ms) -> Then {
        let shell = fake::shell(&self.timings, &self.unset);
        self.machine.handle_timeout(&mut self.outbox, &shell, now)
    }

    /// Feeds command `id`'s end; what the machine answered its exit with.
    fn end(
        &mut self,
        now: Ms,
        id: EffectId,
        (stdout, stderr): (&str, &str),
        status: Result<Option<i32>, String>,
    ) -> Then {
        let shell = fake::shell(&self.timings, &self.unset);
        let mut then = Then::Nothing;
        for input in ended(id, stdout, stderr, status) {
            then = self.machine.handle(&mut self.outbox, &shell, now, &input);
        }
        then
    }

    /// Answers the one command spawned since the last drain with exit 0 and `stdout`; that
    /// command, and what the machine answered.
    fn ok(&mut self, now: Ms, stdout: &str) -> (Spawned, Then) {
        let spawned = self.drain().one_spawn().clone();
        let then = self.end(now, spawned.id, (stdout, ""), Ok(Some(0)));
        (spawned, then)
    }

    /// Runs a whole probe that finds `o/r` on branch `feat` with no pull request.
    fn probed(&mut self, now: Ms) {
        assert_eq!(self.probe(now, true), Then::Nothing);
        for stdout in [STATUS, "", REPO] {
            assert_eq!(self.ok(now, stdout).1, Then::Nothing);
        }
        let spawned = self.drain().one_spawn().clone();
        let then = self.end(now, spawned.id, ("", NO_PR), Ok(Some(1)));
        assert_eq!(then, Then::ProbeEnded(Vec::new()));
        self.drain();
    }
}

fn workspace(drained: &Drained) -> Vec<&WorkspaceUpdated> {
    (drained.events.iter())
        .filter_map(|event| match event {
            Event::WorkspaceUpdated(workspace) => Some(&**workspace),
            _ => None,
        })
        .collect()
}

#[test]
fn a_probe_that_finds_a_repository_sends_the_workspace_and_polls_quietly_later() {
    let mut rig = Rig::new();
    assert_eq!(rig.probe(at(0), true), Then::Nothing);
    let (git, _) = rig.ok(at(1), STATUS);
    assert_eq!(git.line(), GIT_STATUS);
    assert_eq!(
        (git.cwd.as_str(), git.unset.as_slice()),
        (fake::CWD, &rig.unset[..])
    );
    let (auth, _) = rig.ok(at(2), "");
    assert_eq!(auth.line(), "gh auth status");
    assert!(
        auth.env
            .contains(&("GH_PROMPT_DISABLED".into(), "1".into())),
        "gh never prompts: {:?}",
        auth.env
    );
    let (repo, _) = rig.ok(at(3), REPO);
    assert!(
        repo.line().starts_with("gh repo view --json"),
        "{}",
        repo.line()
    );
    let pr = rig.drain().one_spawn().clone();
    assert!(
        pr.line().starts_with("gh pr view --json number"),
        "{}",
        pr.line()
    );
    let then = rig.end(at(4), pr.id, ("", NO_PR), Ok(Some(1)));
    assert_eq!(then, Then::ProbeEnded(Vec::new()));

    let drained = rig.drain();
    let [found] = workspace(&drained)[..] else {
        panic!("one workspace_updated: {:?}", drained.kinds());
    };
    assert_eq!(found.github, GithubState::Ready);
    assert_eq!(found.branch.as_deref(), Some("feat"));
    assert_eq!(found.repository.as_deref(), Some("o/r"));
    assert_eq!(found.pull_request, None);
    assert_eq!(rig.machine.workspace().default_branch, Some("trunk"));
    assert_eq!(rig.machine.workspace().not_ready, None);

    let poll = at(4) + rig.timings.github_poll;
    assert_eq!(rig.machine.deadline(), Some(poll));
    assert_eq!(rig.timeout(poll - at(1)), Then::Nothing);
    assert!(rig.drain().is_empty(), "no poll before its time");
    assert_eq!(rig.timeout(poll), Then::Nothing);
    for stdout in [STATUS, "", REPO] {
        let _ = rig.ok(poll, stdout);
    }
    let pr = rig.drain().one_spawn().clone();
    let then = rig.end(poll, pr.id, ("", NO_PR), Ok(Some(1)));
    assert_eq!(then, Then::ProbeEnded(Vec::new()));
    assert!(
        rig.drain().events.is_empty(),
        "a poll that finds nothing new sends nothing"
    );
}

#[test]
fn gh_missing_or_logged_out_is_the_workspace_state_and_what_later_refusals_say() {
    let cases = [
        (
            ("", ""),
            Err("No such file or directory".to_owned()),
            GithubState::Missing,
            "gh is not installed or not on PATH",
        ),
        (
            (
                "",
                "To get started with GitHub CLI, please run:  gh auth login",
            ),
            Ok(Some(4)),
            GithubState::Unauthenticated,
            "gh is not logged in",
        ),
    ];
    for (printed, status, state, why) in cases {
        let mut rig = Rig::new();
        let _ = rig.probe(at(0), true);
        let _ = rig.ok(at(1), STATUS);
        let auth = rig.drain().one_spawn().clone();
        let then = rig.end(at(2), auth.id, printed, status);
        assert_eq!(then, Then::ProbeEnded(Vec::new()));
        let drained = rig.drain();
        assert_eq!(drained.spawned, [], "no gh command after auth fails");
        let [found] = workspace(&drained)[..] else {
            panic!("one workspace_updated: {:?}", drained.kinds());
        };
        assert_eq!((found.github, found.repository.as_deref()), (state, None));
        assert_eq!(found.branch.as_deref(), Some("feat"), "git still answered");
        assert_eq!(rig.machine.deadline(), None, "gh not ready: no poll");
        let not_ready = rig.machine.workspace().not_ready.unwrap_or_default();
        assert!(not_ready.contains(why), "{not_ready}");

        let preview = Action::PreviewPullRequest(PreviewPullRequest {
            request_id: "p".into(),
            base: None,
            head: None,
        });
        assert_eq!(rig.act(at(3), preview), Ok(Then::Nothing));
        let drained = rig.drain();
        let [Event::GithubReadFailed(failed)] = &drained.events[..] else {
            panic!("{:?}", drained.kinds());
        };
        assert!(
            failed
                .reason
                .contains("the workspace probe failed (gh auth status: ")
                && failed.reason.contains(why),
            "{}",
            failed.reason
        );
    }
}

#[test]
fn a_pull_request_is_previewed_from_the_workspace_then_pushed_and_opened_once() {
    let mut rig = Rig::new();
    rig.probed(at(0));
    let preview = Action::PreviewPullRequest(PreviewPullRequest {
        request_id: "p".into(),
        base: None,
        head: None,
    });
    assert_eq!(rig.act(at(1), preview), Ok(Then::Nothing));
    let (log, then) = rig.ok(at(2), "c0ffee\0Add the parser\x1e\n");
    assert_eq!(
        log.line(),
        "git log --reverse --format=%H%x00%s%x1e origin/trunk..feat"
    );
    let Then::Draft {
        request_id,
        base,
        head,
        commits,
    } = then
    else {
        panic!("the commits go to the session for the review's chapters: {then:?}");
    };
    assert_eq!((base.as_str(), head.as_str()), ("trunk", "feat"));
    assert_eq!(commits[0].subject, "Add the parser");
    rig.machine
        .previewed(&mut rig.outbox, request_id, (base, head), commits, None);
    let drained = rig.drain();
    let [Event::PullRequestPreview(preview)] = &drained.events[..] else {
        panic!("{:?}", drained.kinds());
    };
    assert_eq!(preview.title, "Add the parser");

    let open = || {
        Action::OpenPullRequest(OpenPullRequest {
            request_id: "p".into(),
            title: None,
            description: None,
            draft: None,
        })
    };
    assert_eq!(rig.act(at(3), open()), Ok(Then::Nothing));
    let (push, then) = rig.ok(at(4), "");
    assert_eq!(
        (push.line().as_str(), then),
        ("git push --set-upstream origin feat", Then::Nothing)
    );
    let url = "https://github.com/o/r/pull/7";
    let (create, then) = rig.ok(at(5), &format!("{url}\n"));
    assert!(
        create
            .line()
            .starts_with("gh pr create --title Add the parser --body ## Commits"),
        "{}",
        create.line()
    );
    assert!(create.line().ends_with("--base trunk --head feat"));
    assert_eq!(then, Then::Nothing);
    let drained = rig.drain();
    assert_eq!(
        drained.events,
        [Event::PullRequestOpened(PullRequestOpened {
            request_id: "p".into(),
            number: 7,
            url: url.into(),
        })]
    );
    assert_eq!(
        drained.one_spawn().line(),
        GIT_STATUS,
        "a write is followed by a fresh probe"
    );
    let again = rig.act(at(6), open()).unwrap_err();
    assert_eq!(again.request_id.as_deref(), Some("p"));
    assert!(
        again.reason.starts_with("no preview to confirm"),
        "{again:?}"
    );
}

#[test]
fn a_failing_gh_command_answers_with_its_kinds_failure_and_a_logout_updates_the_workspace() {
    let mut rig = Rig::new();
    rig.probed(at(0));
    let comment = |request_id: &str| {
        Action::PostPullRequestComment(PostPullRequestComment {
            request_id: request_id.into(),
            repository: None,
            number: 3,
            body: "LGTM".into(),
        })
    };
    assert_eq!(rig.act(at(1), comment("c1")), Ok(Then::Nothing));
    let spawned = rig.drain().one_spawn().clone();
    assert_eq!(spawned.line(), "gh pr comment 3 --body LGTM");
    let stderr = "GraphQL: Could not resolve to a PullRequest with the number of 3.\n";
    assert_eq!(
        rig.end(at(2), spawned.id, ("", stderr), Ok(Some(1))),
        Then::Nothing
    );
    let drained = rig.drain();
    let [Event::PullRequestCommentPostFailed(failed)] = &drained.events[..] else {
        panic!("{:?}", drained.kinds());
    };
    assert_eq!(failed.request_id, "c1");
    assert!(
        failed.reason.contains("Could not resolve"),
        "{}",
        failed.reason
    );
    assert_eq!(drained.spawned, [], "a failed write is no reason to probe");

    assert_eq!(rig.act(at(3), comment("c2")), Ok(Then::Nothing));
    let spawned = rig.drain().one_spawn().clone();
    let _ = rig.end(at(4), spawned.id, ("", "run gh auth login"), Ok(Some(4)));
    let drained = rig.drain();
    assert_eq!(
        drained.kinds(),
        ["workspace_updated", "pull_request_comment_post_failed"]
    );
    assert_eq!(
        workspace(&drained)[0].github,
        GithubState::Unauthenticated,
        "the dock learns gh logged out"
    );
}

#[test]
fn a_gh_command_past_its_timeout_is_killed_once_and_answered_as_timed_out() {
    let mut rig = Rig::new();
    let list = Action::ListPullRequests(ListPullRequests {
        request_id: "l".into(),
        repository: None,
        state: None,
    });
    assert_eq!(rig.act(at(0), list), Ok(Then::Nothing));
    let spawned = rig.drain().one_spawn().clone();
    assert!(spawned.line().starts_with("gh pr list --json"));
    let due = rig.timings.gh_timeout;
    assert_eq!(rig.machine.deadline(), Some(due));
    let _ = rig.timeout(due - at(1));
    assert!(rig.drain().is_empty(), "not due yet");
    let _ = rig.timeout(due);
    assert_eq!(rig.drain().killed, [spawned.id]);
    assert_eq!(
        rig.machine.deadline(),
        None,
        "a killed command waits no more"
    );
    let _ = rig.timeout(due + at(1000));
    assert!(rig.drain().is_empty(), "killed once");
    assert_eq!(rig.end(due, spawned.id, ("", ""), Ok(None)), Then::Nothing);
    let drained = rig.drain();
    let [Event::GithubReadFailed(failed)] = &drained.events[..] else {
        panic!("{:?}", drained.kinds());
    };
    assert_eq!(failed.request_id, "l");
    assert_eq!(failed.reason, "gh did not answer in time");
}

#[test]
fn actions_waiting_for_the_probe_come_back_in_order_when_it_ends_and_a_probe_asked_meanwhile_runs_after()
 {
    let mut rig = Rig::new();
    let get = |request_id: &str| Incoming {
        request_id: Some(request_id.into()),
        action: Action::GetPullRequest(GetPullRequest {
            request_id: request_id.into(),
            repository: None,
            number: 1,
        }),
    };
    let named = Action::GetPullRequest(GetPullRequest {
        request_id: "n".into(),
        repository: Some("o/r".into()),
        number: 1,
    });
    assert!(rig.machine.must_wait(&get("g1").action, None));
    assert!(
        !rig.machine.must_wait(&named, None),
        "it names its repository"
    );
    assert!(rig.machine.wait(get("g1")), "no probe runs: start one");
    let _ = rig.probe(at(0), false);
    assert!(
        !rig.machine.wait(get("g2")),
        "the running probe will answer it"
    );
    assert_eq!(rig.probe(at(1), true), Then::Nothing);
    for stdout in [STATUS, "", REPO] {
        let _ = rig.ok(at(2), stdout);
    }
    let pr = rig.drain().one_spawn().clone();
    let then = rig.end(at(3), pr.id, ("", NO_PR), Ok(Some(1)));
    assert_eq!(then, Then::ProbeEnded(vec![get("g1"), get("g2")]));
    assert!(!rig.machine.must_wait(&get("g3").action, None));
    assert_eq!(workspace(&rig.drain()).len(), 1);

    let shell = fake::shell(&rig.timings, &rig.unset);
    assert_eq!(
        rig.machine.probe_queued(&mut rig.outbox, &shell, at(4)),
        Then::Nothing
    );
    let (git, _) = rig.ok(at(5), STATUS);
    assert_eq!(git.line(), GIT_STATUS);
    for stdout in ["", REPO] {
        let _ = rig.ok(at(5), stdout);
    }
    let pr = rig.drain().one_spawn().clone();
    let then = rig.end(at(6), pr.id, ("", NO_PR), Ok(Some(1)));
    assert_eq!(then, Then::ProbeEnded(Vec::new()));
    assert_eq!(
        workspace(&rig.drain()).len(),
        1,
        "the queued probe was asked to announce, so it does though nothing changed"
    );
    let shell = fake::shell(&rig.timings, &rig.unset);
    assert_eq!(
        rig.machine.probe_queued(&mut rig.outbox, &shell, at(7)),
        Then::Nothing
    );
    assert!(rig.drain().is_empty(), "nothing more was asked for");
}
