//! The restack flow against a model of a repository and its origin: unit cases, and the
//! property that a restack either pushes exactly the plan or changes nothing.

use std::collections::{BTreeMap, BTreeSet};

use quickcheck::{Arbitrary, Gen, quickcheck};

use super::world::{World, replayed};
use super::*;
use crate::protocol::stack::OldHead;
use crate::steps::Flow;

fn drive(flow: &mut RestackFlow, world: &mut World) -> Restacking {
    let mut next = flow.start();
    for _ in 0..1000 {
        match next {
            Next::Run(cmd) => next = flow.on(world.answer(&cmd.args)),
            Next::Write(_) => unreachable!("a restack writes no file"),
            Next::Done(done) => return done,
        }
    }
    panic!("the flow does not end");
}

/// A random plan and the world it was made in, then what happened before the confirmation.
#[derive(Debug, Clone)]
struct Case {
    planned: Planned,
    world: World,
    /// What changed between plan and confirmation that must stop it before the push.
    moved: Vec<&'static str>,
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = 1 + usize::arbitrary(g) % 5;
        let mut world = World::default();
        let mut moves = Vec::new();
        let mut old_base = BTreeMap::new();
        let mut checked_out = BTreeMap::new();
        for i in 0..n {
            let branch = format!("b{i}");
            let local = format!("l{i}");
            let remote = match u8::arbitrary(g) % 3 {
                0 => None,
                1 => Some(local.clone()),
                _ => Some(format!("r{i}")),
            };
            world.local.insert(branch.clone(), local.clone());
            if let Some(r) = &remote {
                world.remote.insert(branch.clone(), r.clone());
            }
            if u8::arbitrary(g) % 4 == 0 {
                let path = format!("/wt{i}");
                world.worktrees.insert(branch.clone(), path.clone());
                checked_out.insert(branch.clone(), path);
            }
            let number = 10 + i as u64;
            // What it sits on: origin's main, the branch below (moving too), or a branch that
            // is not moving.
            let (new_parent, new_parent_sha) = match (i, u8::arbitrary(g) % 3) {
                (0, _) => ("origin/main".to_owned(), Some("m".to_owned())),
                (_, 0) => (format!("fixed{i}"), Some(format!("f{i}"))),
                _ => (format!("b{}", i - 1), None),
            };
            let base = new_parent.trim_start_matches("origin/").to_owned();
            let was = if bool::arbitrary(g) {
                base.clone()
            } else {
                format!("merged{i}")
            };
            // Sometimes already on its new parent: carried over as it is.
            let old_parent = match &new_parent_sha {
                Some(sha) if u8::arbitrary(g) % 4 == 0 => sha.clone(),
                _ => format!("p{i}"),
            };
            world.bases.insert(number, was.clone());
            old_base.insert(branch.clone(), was);
            moves.push(RestackMove {
                branch,
                pull_request: number,
                old_head: OldHead { local, remote },
                old_parent,
                new_parent,
                new_parent_sha,
                new_base: base,
                commits: 1,
            });
        }
        world.remote.insert("main".into(), "m".into());
        world.remote.insert("other".into(), "o".into());
        world.local.insert("other".into(), "o".into());
        let pick = |g: &mut Gen| format!("b{}", usize::arbitrary(g) % n);
        let mut moved = Vec::new();
        // What can happen between a plan and its confirmation, each sometimes.
        let chance = |g: &mut Gen| u8::arbitrary(g) % 8 == 0;
        if chance(g) {
            world.local.insert(pick(g), "moved-here".into());
            moved.push("local");
        }
        if chance(g) {
            world.remote.insert(pick(g), "moved-there".into());
            moved.push("remote");
        }
        if chance(g) {
            let b = pick(g);
            world.worktrees.insert(b.clone(), format!("/elsewhere-{b}"));
            moved.push("worktree");
        }
        if chance(g) && !checked_out.is_empty() {
            let paths: Vec<&String> = checked_out.values().collect();
            world
                .dirty
                .insert(paths[usize::arbitrary(g) % paths.len()].clone());
            moved.push("dirty");
        }
        if chance(g) {
            let b = pick(g);
            // A conflict only stops a branch that is rebuilt, not one carried over as it is.
            let m = &moves[b[1..].parse::<usize>().unwrap_or_default()];
            if m.new_parent_sha.as_ref() != Some(&m.old_parent) {
                moved.push("conflict");
            }
            world.conflicts.insert(b);
        }
        world.push_refused = chance(g);
        world.push_cut = chance(g);
        if chance(g) {
            world.race = Some(pick(g));
        }
        if chance(g) && !checked_out.is_empty() {
            let branches: Vec<&String> = checked_out.keys().collect();
            world.committed_meanwhile =
                Some(branches[usize::arbitrary(g) % branches.len()].clone());
        }
        if chance(g) {
            world.local_fails.insert(pick(g));
        }
        if chance(g) {
            world.gh_fails.insert(10 + (usize::arbitrary(g) % n) as u64);
        }
        let scratch_dir = (u8::arbitrary(g) % 3 == 0).then(|| "/repo/.git".to_owned());
        Case {
            planned: Planned {
                moves,
                old_base,
                checked_out,
                scratch_dir,
            },
            world,
            moved,
        }
    }
}

/// Each moving branch's new head, worked out from the plan alone.
fn expected_heads(planned: &Planned) -> BTreeMap<String, String> {
    let mut heads: BTreeMap<String, String> = BTreeMap::new();
    for m in &planned.moves {
        let onto = m
            .new_parent_sha
            .clone()
            .unwrap_or_else(|| heads[&m.new_parent].clone());
        let new = if onto == m.old_parent {
            m.old_head.local.clone()
        } else {
            replayed(&onto, &m.old_parent, &m.old_head.local)
        };
        heads.insert(m.branch.clone(), new);
    }
    heads
}

fn check(case: Case) -> bool {
    let before = case.world.clone();
    let mut world = case.world.clone();
    let mut flow = RestackFlow::new("7".into(), case.planned.clone());
    let done = drive(&mut flow, &mut world);
    let moves = &case.planned.moves;
    let expected = expected_heads(&case.planned);
    let mut all_pushed = before.remote.clone();
    all_pushed.extend(expected.clone());
    let old_locals: BTreeSet<&String> = moves.iter().map(|m| &m.old_head.local).collect();
    let kept: BTreeSet<&String> = world.backups.values().collect();
    assert!(
        world.scratch.is_none(),
        "the private worktree is always removed"
    );
    match done {
        Err(stopped) if !stopped.push_started => {
            // Changed nothing a user sees.
            assert!(
                !case.moved.is_empty(),
                "stopped without cause: {}",
                stopped.reason
            );
            assert_eq!(world.local, before.local);
            assert_eq!(world.remote, before.remote);
            assert_eq!(world.bases, before.bases);
            assert!(
                stopped.reason.contains("plan again")
                    || stopped.reason.contains("nothing was pushed"),
                "{}",
                stopped.reason
            );
        }
        Err(stopped) => {
            assert!(case.moved.is_empty(), "pushed although {:?}", case.moved);
            assert!(
                stopped.reason.contains("Check the branches on GitHub"),
                "{}",
                stopped.reason
            );
            assert!(
                old_locals.iter().all(|o| kept.contains(o)),
                "old heads kept"
            );
            assert_eq!(
                world.bases, before.bases,
                "no retarget after an unfinished push"
            );
            // All of the plan or none of it on origin (what raced us stays).
            let mut raced = before.remote.clone();
            if let Some(b) = &before.race {
                raced.insert(b.clone(), "raced".into());
            }
            assert!(
                world.remote == raced || world.remote == all_pushed,
                "{:?}",
                world.remote
            );
        }
        Ok(pushed) => {
            assert!(case.moved.is_empty(), "pushed although {:?}", case.moved);
            assert!(!before.push_refused && !before.push_cut);
            assert!(
                old_locals.iter().all(|o| kept.contains(o)),
                "old heads kept"
            );
            // Exactly the plan: every moving branch at the head the plan implies, nothing else.
            assert_eq!(world.remote, all_pushed);
            let reported: BTreeMap<&str, &String> = pushed
                .branches
                .iter()
                .map(|b| (b.branch.as_str(), &b.new_head))
                .collect();
            assert_eq!(
                reported,
                expected.iter().map(|(b, h)| (b.as_str(), h)).collect()
            );
            for m in moves {
                let new = &expected[&m.branch];
                let followed = world.local[&m.branch] == *new;
                let failed_here = pushed
                    .retarget_failed
                    .iter()
                    .any(|f| f.branch == m.branch && f.place == RetargetPlace::Local);
                if *new != m.old_head.local {
                    assert!(followed != failed_here, "{} followed or reported", m.branch);
                }
                // Someone's commit there meanwhile is never reset away.
                if before.committed_meanwhile.as_ref() == Some(&m.branch)
                    && case.planned.checked_out.contains_key(&m.branch)
                    && *new != m.old_head.local
                {
                    assert_eq!(world.local[&m.branch], "committed-meanwhile");
                }
                let wanted = case.planned.old_base[&m.branch] != m.new_base;
                let retargeted = world.bases[&m.pull_request] == m.new_base;
                let reported = pushed.retarget_failed.iter().any(|f| {
                    f.pull_request == Some(m.pull_request) && f.place == RetargetPlace::Github
                });
                assert!(!wanted || retargeted != reported);
            }
        }
    }
    true
}

quickcheck! {
    fn a_restack_pushes_exactly_the_plan_or_changes_nothing(case: Case) -> bool {
        check(case)
    }
}

fn one_move(scratch: Option<&str>) -> Planned {
    Planned {
        moves: vec![RestackMove {
            branch: "b".into(),
            pull_request: 2,
            old_head: OldHead {
                local: "l".into(),
                remote: Some("l".into()),
            },
            old_parent: "a1".into(),
            new_parent: "origin/main".into(),
            new_parent_sha: Some("m".into()),
            new_base: "main".into(),
            commits: 1,
        }],
        old_base: [("b".to_owned(), "a".to_owned())].into(),
        checked_out: BTreeMap::new(),
        scratch_dir: scratch.map(str::to_owned),
    }
}

#[test]
fn without_replay_a_private_worktree_rebuilds_and_is_always_removed() {
    let mut flow = RestackFlow::new("9".into(), one_move(Some("/repo/.git")));
    let mut cmds = Vec::new();
    let mut next = flow.start();
    let answers = [
        "refs/heads/b\0l\n",
        "l\trefs/heads/b\n",
        "",
        "",
        "",
        "n1\n",
        "",
        "",
        "",
        "",
        "",
    ];
    let mut answers = answers.iter();
    let done = loop {
        match next {
            Next::Run(cmd) => {
                cmds.push(cmd.args.join(" "));
                next = flow.on(Ran::ok(*answers.next().unwrap()));
            }
            Next::Write(_) => unreachable!("a restack writes no file"),
            Next::Done(done) => break done,
        }
    };
    let pushed = done.unwrap();
    assert_eq!(pushed.branches[0].new_head, "n1");
    let wt = "/repo/.git/luxe-restack-9";
    assert!(
        cmds.contains(&format!("worktree add --quiet --detach {wt} m")),
        "{cmds:#?}"
    );
    assert!(cmds.contains(&format!(
        "-c user.useConfigOnly=true -C {wt} cherry-pick --keep-redundant-commits a1..l"
    )));
    assert!(cmds.contains(&format!("worktree remove --force {wt}")));
    assert!(cmds.iter().any(|c| c.starts_with(
        "push --atomic --porcelain origin --force-with-lease=refs/heads/b:l n1:refs/heads/b"
    )));

    // A conflict: the worktree still goes, then the restack stops with nothing pushed.
    let mut flow = RestackFlow::new("9".into(), one_move(Some("/repo/.git")));
    let mut next = flow.start();
    let mut seen = Vec::new();
    let done = loop {
        match next {
            Next::Run(cmd) => {
                let line = cmd.args.join(" ");
                let ran = match () {
                    () if line.starts_with("for-each-ref") => Ran::ok("refs/heads/b\0l\n"),
                    () if line.starts_with("ls-remote") => Ran::ok("l\trefs/heads/b\n"),
                    () if line.contains("cherry-pick") => Ran::failed("CONFLICT (content)"),
                    () => Ran::ok(""),
                };
                seen.push(line);
                next = flow.on(ran);
            }
            Next::Write(_) => unreachable!("a restack writes no file"),
            Next::Done(done) => break done,
        }
    };
    let stopped = done.unwrap_err();
    assert!(!stopped.push_started);
    assert!(stopped.reason.contains("CONFLICT") && stopped.reason.contains("nothing was pushed"));
    assert!(seen.last().unwrap().starts_with("worktree remove --force"));
    assert!(!seen.iter().any(|c| c.starts_with("push")));
}
