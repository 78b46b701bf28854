//! The stacks machine at its seam, without a session or a binary: a fake git and gh answer the
//! commands its flows spawn, in order, on a test clock; the tests read the frames and whether
//! the workspace must be probed again.

use super::*;
use crate::protocol::stack::StackPending;
use crate::session::step_runner::fake::{self, Ms, Spawned, at, ended};

/// When the tests' plans are made, on the wall clock.
const WALL_MS: u64 = 1_700_000_000_000;

/// The workspace the probe found: branch `b` of `o/r`, on `main`.
fn ready() -> WorkspaceUpdated {
    WorkspaceUpdated {
        branch: Some("b".into()),
        head_sha: Some("hb".into()),
        upstream: None,
        ahead: 0,
        behind: 0,
        dirty: false,
        repository: Some("o/r".into()),
        github: GithubState::Ready,
        pull_request: None,
    }
}

/// What the stacks see of `last`, with `main` the default branch and gh ready.
fn on_main(last: &WorkspaceUpdated) -> Workspace<'_> {
    Workspace {
        last: Some(last),
        default_branch: Some("main"),
        not_ready: None,
    }
}

/// A Stacks machine on the fake shell.
type Rig = fake::Rig<Stacks<Ms>>;

impl Rig {
    fn preview(&mut self, now: Ms, branches: Option<&[&str]>, workspace: &Workspace<'_>) -> bool {
        let shell = fake::shell(&self.timings, &self.unset);
        let preview = PreviewStack {
            request_id: "s".into(),
            branches: branches.map(|b| b.iter().map(|b| (*b).to_owned()).collect()),
        };
        (self.machine).preview(&mut self.outbox, &shell, (now, WALL_MS), preview, workspace)
    }

    fn open(&mut self, now: Ms) -> Result<bool, String> {
        let shell = fake::shell(&self.timings, &self.unset);
        let open = OpenStack {
            request_id: "s".into(),
            titles: None,
            descriptions: None,
            draft: None,
        };
        (self.machine).open(&mut self.outbox, &shell, (now, WALL_MS), open)
    }

    /// Feeds the end of the one command spawned since the last drain: that command, and
    /// whether the workspace must be probed again.
    fn end(
        &mut self,
        now: Ms,
        (stdout, stderr): (&str, &str),
        status: Result<Option<i32>, String>,
    ) -> (Spawned, bool) {
        let spawned = self.drain().one_spawn().clone();
        let shell = fake::shell(&self.timings, &self.unset);
        let mut moved = false;
        for input in ended(spawned.id, stdout, stderr, status) {
            moved = (self.machine).handle(&mut self.outbox, &shell, (now, WALL_MS), &input);
        }
        (spawned, moved)
    }

    /// `restack` of `plan_id` with no turn running, answered by request `r`.
    fn restack(&mut self, now: Ms, plan_id: &str) -> Result<bool, String> {
        let shell = fake::shell(&self.timings, &self.unset);
        let restack = Restack {
            plan_id: plan_id.into(),
            request_id: Some("r".into()),
        };
        (self.machine).restack(&mut self.outbox, &shell, (now, WALL_MS), restack, false)
    }

    fn ok(&mut self, now: Ms, stdout: &str) -> (Spawned, bool) {
        self.end(now, (stdout, ""), Ok(Some(0)))
    }

    /// Previews the stack `a` (on `main`) then `b`, each with one commit.
    fn previewed(&mut self) -> StackPreview {
        let last = ready();
        let workspace = on_main(&last);
        assert!(!self.preview(at(0), Some(&["a", "b"]), &workspace));
        let (log_a, moved) = self.ok(at(1), "ha\0Add a\x1e\n");
        assert_eq!(
            log_a.line(),
            "git log --reverse --format=%H%x00%s%x1e origin/main..a"
        );
        assert!(!moved, "a preview moves nothing");
        let (log_b, _) = self.ok(at(2), "hb\0Add b\x1e\n");
        assert_eq!(log_b.line(), "git log --reverse --format=%H%x00%s%x1e a..b");
        let drained = self.drain();
        assert_eq!(drained.spawned, []);
        let [Event::StackPreview(preview)] = &drained.events[..] else {
            panic!("{:?}", drained.kinds());
        };
        (**preview).clone()
    }
}

/// `gh pr create`'s `--head` and `--base`, or `None` for another command.
fn created(spawned: &Spawned) -> Option<(&str, &str)> {
    let after = |flag: &str| {
        let at = spawned.args.iter().position(|a| a == flag)?;
        spawned.args.get(at + 1).map(String::as_str)
    };
    spawned
        .args
        .starts_with(&["pr".into(), "create".into()])
        .then(|| Some((after("--head")?, after("--base")?)))?
}

const REFS: &str = "refs/heads/a\0ha\nrefs/heads/b\0hb\n";

#[test]
fn a_stack_preview_reads_each_branch_over_the_one_below_and_needs_a_default_branch() {
    let mut rig = Rig::new();
    let preview = rig.previewed();
    let drafts: Vec<_> = (preview.pull_requests.iter())
        .map(|d| (d.branch.as_str(), d.base.as_str(), d.title.as_str()))
        .collect();
    assert_eq!(drafts, [("a", "main", "Add a"), ("b", "a", "Add b")]);

    let unknown = Workspace {
        last: None,
        default_branch: None,
        not_ready: Some("gh is not logged in: run `gh auth login`".into()),
    };
    assert!(!rig.preview(at(3), None, &unknown));
    let drained = fake::drain(&mut rig.outbox);
    assert_eq!(drained.spawned, [], "nothing to run without a base");
    assert_eq!(
        drained.events,
        [Event::GithubReadFailed(RequestFailed {
            request_id: "s".into(),
            reason: "gh is not logged in: run `gh auth login`".into(),
        })]
    );
}

#[test]
fn opening_a_stack_pushes_every_branch_then_creates_and_links_bottom_first_once() {
    let mut rig = Rig::new();
    rig.previewed();
    assert_eq!(rig.open(at(3)), Ok(false));
    let (list, _) = rig.ok(at(4), "[]");
    assert!(
        list.line().starts_with("gh pr list --state open"),
        "{}",
        list.line()
    );
    let (refs, _) = rig.ok(at(5), REFS);
    assert!(
        refs.line().starts_with("git for-each-ref"),
        "{}",
        refs.line()
    );
    let (push, _) = rig.ok(at(6), "");
    assert_eq!(
        push.line(),
        "git push --atomic --porcelain --set-upstream origin refs/heads/a:refs/heads/a refs/heads/b:refs/heads/b"
    );
    let mut ran = Vec::new();
    for url in [
        "https://github.com/o/r/pull/11\n",
        "https://github.com/o/r/pull/12\n",
    ] {
        ran.push(rig.ok(at(7), url));
    }
    for _ in 0..2 {
        ran.push(rig.ok(at(8), ""));
    }
    let creates: Vec<_> = ran.iter().filter_map(|(s, _)| created(s)).collect();
    assert_eq!(creates, [("a", "main"), ("b", "a")]);
    let edits: Vec<_> = ran[2..]
        .iter()
        .map(|(s, _)| s.args[..3].join(" "))
        .collect();
    assert_eq!(edits, ["pr edit 11", "pr edit 12"]);
    assert_eq!(
        ran.iter().map(|(_, moved)| *moved).collect::<Vec<_>>(),
        [false, false, false, true],
        "the workspace is probed again once the stack is open"
    );
    let drained = fake::drain(&mut rig.outbox);
    let [Event::StackOpened(opened)] = &drained.events[..] else {
        panic!("{:?}", drained.kinds());
    };
    let numbers: Vec<_> = opened.pull_requests.iter().map(|p| p.number).collect();
    assert_eq!(numbers, [11, 12]);
    let again = rig.open(at(9)).unwrap_err();
    assert!(again.contains("is open already"), "{again}");
}

#[test]
fn a_failing_push_stops_the_open_with_its_error_and_keeps_the_stack_to_confirm_again() {
    let mut rig = Rig::new();
    rig.previewed();
    assert_eq!(rig.open(at(3)), Ok(false));
    rig.ok(at(4), "[]");
    rig.ok(at(5), REFS);
    let stderr = "! [rejected] a -> a (fetch first)\n";
    let (push, moved) = rig.end(at(6), ("", stderr), Ok(Some(1)));
    assert!(push.line().starts_with("git push --atomic"));
    assert!(moved, "a push that may have half happened is probed after");
    let drained = fake::drain(&mut rig.outbox);
    assert_eq!(
        drained.spawned,
        [],
        "no pull request opens after a failed push"
    );
    let [Event::StackOpenFailed(failed)] = &drained.events[..] else {
        panic!("{:?}", drained.kinds());
    };
    assert_eq!(failed.reason, "git push: ! [rejected] a -> a (fetch first)");
    assert_eq!(failed.opened, []);
    let pending = |branch: &str, base: &str| StackPending {
        branch: branch.into(),
        base: base.into(),
    };
    assert_eq!(failed.pending, [pending("a", "main"), pending("b", "a")]);

    assert_eq!(
        rig.open(at(7)),
        Ok(false),
        "the stack can be confirmed again"
    );
    let list = fake::drain(&mut rig.outbox).one_spawn().clone();
    assert!(list.line().starts_with("gh pr list --state open"));
}

#[test]
fn a_stack_command_past_its_timeout_is_killed_and_its_flow_fails() {
    let mut rig = Rig::new();
    let last = ready();
    let workspace = on_main(&last);
    assert!(!rig.preview(at(0), None, &workspace));
    let line = fake::drain(&mut rig.outbox).one_spawn().clone();
    assert!(line.line().starts_with("git rev-list --first-parent"));
    let due = rig.timings.git_timeout;
    assert_eq!(rig.machine.deadline(), Some(due));
    rig.machine.handle_timeout(&mut rig.outbox, due - at(1));
    assert!(fake::drain(&mut rig.outbox).is_empty(), "not due yet");
    rig.machine.handle_timeout(&mut rig.outbox, due);
    assert_eq!(fake::drain(&mut rig.outbox).killed, [line.id]);
    rig.machine.handle_timeout(&mut rig.outbox, due + at(1));
    assert!(fake::drain(&mut rig.outbox).is_empty(), "killed once");
    assert_eq!(rig.machine.deadline(), None);

    let shell = fake::shell(&rig.timings, &rig.unset);
    let exit = Input::ProcessExited {
        id: line.id,
        status: Ok(None),
    };
    assert!(!(rig.machine).handle(&mut rig.outbox, &shell, (due, WALL_MS), &exit));
    let drained = fake::drain(&mut rig.outbox);
    assert_eq!(
        drained.events,
        [Event::GithubReadFailed(RequestFailed {
            request_id: "s".into(),
            reason: "git: git did not answer in time".into(),
        })]
    );
}

#[test]
fn a_plan_is_refused_before_any_command_when_gh_is_not_ready_and_a_restack_needs_a_plan() {
    let mut rig = Rig::new();
    let shell = fake::shell(&rig.timings, &rig.unset);
    let last = WorkspaceUpdated {
        github: GithubState::Unauthenticated,
        ..ready()
    };
    let workspace = Workspace {
        last: Some(&last),
        default_branch: Some("main"),
        not_ready: Some("gh is not logged in: run `gh auth login`".into()),
    };
    let plan = PlanRestack {
        request_id: "p".into(),
        repository: None,
    };
    assert!(!(rig.machine).plan(&mut rig.outbox, &shell, (at(0), WALL_MS), plan, &workspace));
    let drained = fake::drain(&mut rig.outbox);
    assert_eq!(drained.spawned, []);
    assert_eq!(
        drained.events,
        [Event::RestackPlanned(Box::new(RestackPlanned {
            request_id: "p".into(),
            plan: None,
            refusal: Some("gh is not logged in: run `gh auth login`".into()),
        }))]
    );

    let restack = |plan_id: &str| Restack {
        plan_id: plan_id.into(),
        request_id: None,
    };
    let at0 = (at(1), WALL_MS);
    let busy = (rig.machine).restack(&mut rig.outbox, &shell, at0, restack("x"), true);
    assert_eq!(busy, Err("a turn is running: restack after it ends".into()));
    let unknown = (rig.machine).restack(&mut rig.outbox, &shell, at0, restack("x"), false);
    assert_eq!(unknown, Err("no plan x: plan_restack first".into()));
    assert!(fake::drain(&mut rig.outbox).is_empty());
}

#[test]
fn a_plan_is_pushed_once_with_the_restack_it_describes_and_a_newer_plan_replaces_it() {
    use crate::stack::restack::world::World;

    let mut rig = Rig::new();
    let last = ready();
    let workspace = on_main(&last);
    let plan = |rig: &mut Rig, now: Ms| {
        let shell = fake::shell(&rig.timings, &rig.unset);
        let plan = PlanRestack {
            request_id: "p".into(),
            repository: Some("o/r".into()),
        };
        let moved = (rig.machine).plan(&mut rig.outbox, &shell, (now, WALL_MS), plan, &workspace);
        assert!(!moved, "a plan moves nothing");
        // `a` (#1) was squash-merged into main as s1; `b` (#2) still sits on it.
        let pulls = r#"[{"number":1,"state":"MERGED","headRefName":"a","baseRefName":"main","headRefOid":"a1"},
                        {"number":2,"state":"OPEN","headRefName":"b","baseRefName":"a","headRefOid":"b2"}]"#;
        let refs = "refs/heads/a\0a1\nrefs/heads/b\0b2\n\
                    refs/remotes/origin/main\0s1\nrefs/remotes/origin/a\0a1\nrefs/remotes/origin/b\0b2\n";
        let mut lines = Vec::new();
        for answer in [
            "",
            pulls,
            refs,
            "",
            "b2 b1\nb1 a1\na1 m0\n-m0\n",
            "",
            "git version 2.45.0\n",
        ] {
            let (spawned, moved) = rig.ok(now, answer);
            assert!(!moved);
            lines.push(spawned.line());
        }
        assert_eq!(lines[0], "git fetch --quiet origin");
        assert!(
            lines[1].starts_with("gh pr list --state all"),
            "{}",
            lines[1]
        );
        let drained = rig.drain();
        assert_eq!(drained.spawned, [], "{lines:#?}");
        let [Event::RestackPlanned(planned)] = &drained.events[..] else {
            panic!("{:?}", drained.kinds());
        };
        assert_eq!(planned.refusal, None);
        planned.plan.clone().expect("a plan")
    };
    let made = plan(&mut rig, at(0));
    let moves: Vec<_> = (made.branches.iter())
        .map(|m| {
            (
                m.branch.as_str(),
                m.old_parent.as_str(),
                m.new_parent.as_str(),
                m.commits,
            )
        })
        .collect();
    assert_eq!(moves, [("b", "a1", "origin/main", 2)]);

    let heads = |pairs: &[(&str, &str)]| {
        (pairs.iter())
            .map(|(b, h)| ((*b).to_owned(), (*h).to_owned()))
            .collect()
    };
    let mut world = World {
        local: heads(&[("a", "a1"), ("b", "b2")]),
        remote: heads(&[("main", "s1"), ("a", "a1"), ("b", "b2")]),
        bases: [(2, "a".to_owned())].into(),
        ..World::default()
    };
    assert_eq!(rig.restack(at(1), &made.id), Ok(false));
    let mut next = rig.drain().one_spawn().clone();
    let busy = rig.restack(at(1), &made.id);
    assert_eq!(busy, Err(format!("plan {} is being pushed", made.id)));
    let shell = fake::shell(&rig.timings, &rig.unset);
    let replan = PlanRestack {
        request_id: "p2".into(),
        repository: None,
    };
    let at1 = (at(1), WALL_MS);
    assert!(!(rig.machine).plan(&mut rig.outbox, &shell, at1, replan, &workspace));
    let refused = rig.drain();
    let [Event::RestackPlanned(refused)] = &refused.events[..] else {
        panic!("{:?}", refused.kinds());
    };
    let refusal = refused.refusal.as_deref().unwrap_or_default();
    assert!(
        refusal.starts_with("a restack is being pushed"),
        "{refusal}"
    );

    // The restack's commands, answered by the model repository, until the flow answers.
    let mut moved = Vec::new();
    let restacked = loop {
        let ran = world.answer(&next.args);
        let shell = fake::shell(&rig.timings, &rig.unset);
        let (stdout, stderr, code) = match &ran.result {
            Ok(stdout) => (stdout.as_str(), "", 0),
            Err(reason) => ("", reason.as_str(), 1),
        };
        for input in ended(next.id, stdout, stderr, Ok(Some(code))) {
            let at2 = (at(2), WALL_MS);
            moved.push((rig.machine).handle(&mut rig.outbox, &shell, at2, &input));
        }
        let drained = rig.drain();
        match (&drained.spawned[..], &drained.events[..]) {
            ([spawned], []) => next = spawned.clone(),
            ([], [Event::Restacked(restacked)]) => break restacked.clone(),
            _ => panic!("{drained:?}"),
        }
    };
    assert_eq!(
        moved.iter().filter(|m| **m).count(),
        1,
        "probed again once, after the push"
    );
    assert_eq!(moved.last(), Some(&true));
    assert_eq!(restacked.plan_id, made.id);
    assert_eq!(restacked.request_id.as_deref(), Some("r"));
    assert_eq!(restacked.retarget_failed, []);
    let [branch] = &restacked.branches[..] else {
        panic!("{restacked:?}");
    };
    assert_eq!(
        (branch.branch.as_str(), branch.old_head.as_str()),
        ("b", "b2")
    );
    assert_eq!(
        world.remote["b"], branch.new_head,
        "origin has what was reported"
    );
    assert_eq!(
        world.local["b"], branch.new_head,
        "the branch here followed"
    );
    assert_eq!(
        world.backups.get(&branch.backup_ref),
        Some(&"b2".to_owned())
    );
    assert_eq!(world.bases[&2], "main", "#2 now asks to merge into main");

    let again = rig.restack(at(3), &made.id);
    let pushed = format!(
        "plan {} was pushed already (a plan is pushed once): plan_restack again",
        made.id
    );
    assert_eq!(again, Err(pushed));
    let newer = plan(&mut rig, at(4));
    assert_ne!(newer.id, made.id);
    let replaced = rig.restack(at(5), &made.id);
    assert_eq!(
        replaced,
        Err(format!("plan {} was replaced by a newer plan", made.id))
    );
    assert!(rig.drain().is_empty(), "refusals run nothing");
}
