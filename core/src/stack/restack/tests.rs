//! The restack flow against a model of a repository and its origin: unit cases, and the
//! property that a restack either pushes exactly the plan or changes nothing.

use std::collections::{BTreeMap, BTreeSet};

use quickcheck::{Arbitrary, Gen, quickcheck};

use super::*;
use crate::protocol::stack::OldHead;
use crate::stack::flow::Flow;

/// A repository, its origin and GitHub, as far as a restack sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct World {
    local: BTreeMap<String, String>,
    remote: BTreeMap<String, String>,
    worktrees: BTreeMap<String, String>,
    dirty: BTreeSet<String>,
    backups: BTreeMap<String, String>,
    bases: BTreeMap<u64, String>,
    conflicts: BTreeSet<String>,
    /// The push is refused whole (`stale info`, a hook): nothing moves.
    push_refused: bool,
    /// The connection drops after origin took the push.
    push_cut: bool,
    local_fails: BTreeSet<String>,
    gh_fails: BTreeSet<u64>,
    next: u64,
}

impl World {
    fn answer(&mut self, cmd: &Cmd) -> Ran {
        let a: Vec<&str> = cmd.args.iter().map(String::as_str).collect();
        match a.as_slice() {
            ["for-each-ref", ..] => Ran::ok(
                self.local
                    .iter()
                    .map(|(b, s)| format!("refs/heads/{b}\0{s}\n"))
                    .collect::<String>(),
            ),
            ["ls-remote", "origin", refs @ ..] => Ran::ok(
                refs.iter()
                    .filter_map(|r| {
                        let b = r.strip_prefix("refs/heads/")?;
                        Some(format!("{}\t{r}\n", self.remote.get(b)?))
                    })
                    .collect::<String>(),
            ),
            ["worktree", "list", "--porcelain"] => Ran::ok(
                self.worktrees
                    .iter()
                    .map(|(b, p)| format!("worktree {p}\nHEAD x\nbranch refs/heads/{b}\n\n"))
                    .collect::<String>(),
            ),
            ["-C", path, "status", ..] => Ran::ok(if self.dirty.contains(*path) {
                " M f\n"
            } else {
                ""
            }),
            ["replay", "--onto", onto, range] => {
                let branch = range.rsplit("refs/heads/").next().unwrap_or_default();
                if self.conflicts.contains(branch) {
                    return Ran::failed("CONFLICT (content): Merge conflict in f");
                }
                self.next += 1;
                let old = &self.local[branch];
                Ran::ok(format!(
                    "update refs/heads/{branch} n{}-{onto} {old}\n",
                    self.next
                ))
            }
            ["update-ref", "-m", _, reference, sha] => {
                self.backups
                    .insert((*reference).to_owned(), (*sha).to_owned());
                Ran::ok("")
            }
            ["update-ref", "-m", _, reference, new, old] => {
                let b = reference.trim_start_matches("refs/heads/");
                if self.local_fails.contains(b)
                    || self.local.get(b).map(String::as_str) != Some(*old)
                {
                    return Ran::failed("cannot lock ref");
                }
                self.local.insert(b.to_owned(), (*new).to_owned());
                Ran::ok("")
            }
            ["-C", path, "reset", "--quiet", "--keep", new] => {
                let Some(b) = self
                    .worktrees
                    .iter()
                    .find(|(_, p)| p == path)
                    .map(|(b, _)| b.clone())
                else {
                    return Ran::failed("not a worktree");
                };
                if self.local_fails.contains(&b) {
                    return Ran::failed("Entry 'f' not uptodate. Cannot merge.");
                }
                self.local.insert(b, (*new).to_owned());
                Ran::ok("")
            }
            ["push", "--atomic", "--porcelain", "origin", rest @ ..] => {
                let mut updates = Vec::new();
                for arg in rest {
                    if let Some(lease) = arg.strip_prefix("--force-with-lease=refs/heads/") {
                        let (b, expect) = lease.split_once(':').unwrap_or((lease, ""));
                        let now = self.remote.get(b).map_or("", String::as_str);
                        if now != expect {
                            return Ran::failed(format!("! [rejected] {b} (stale info)"));
                        }
                    } else if let Some((new, b)) = arg.split_once(":refs/heads/") {
                        updates.push((b.to_owned(), new.to_owned()));
                    }
                }
                if self.push_refused {
                    return Ran::failed("! [remote rejected] (pre-receive hook declined)");
                }
                self.remote.extend(updates);
                if self.push_cut {
                    return Ran::failed("fatal: the remote end hung up unexpectedly");
                }
                Ran::ok("Done\n")
            }
            ["pr", "edit", number, "--base", base] => {
                let number: u64 = number.parse().unwrap_or_default();
                if self.gh_fails.contains(&number) {
                    return Ran::failed("GraphQL: Base ref must be a branch");
                }
                self.bases.insert(number, (*base).to_owned());
                Ran::ok("")
            }
            other => Ran::failed(format!("the model does not know {other:?}")),
        }
    }
}

fn drive(flow: &mut RestackFlow, world: &mut World) -> Restacking {
    let mut next = flow.start();
    for _ in 0..1000 {
        match next {
            Next::Run(cmd) => next = flow.on(world.answer(&cmd)),
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
    /// What changed between plan and confirmation (nothing when empty).
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
            if bool::arbitrary(g) && bool::arbitrary(g) {
                let path = format!("/wt{i}");
                world.worktrees.insert(branch.clone(), path.clone());
                checked_out.insert(branch.clone(), path);
            }
            let number = 10 + i as u64;
            let base = if i == 0 {
                "main".to_owned()
            } else {
                format!("b{}", i - 1)
            };
            let was = if bool::arbitrary(g) {
                base.clone()
            } else {
                format!("merged{i}")
            };
            world.bases.insert(number, was.clone());
            old_base.insert(branch.clone(), was);
            moves.push(RestackMove {
                branch,
                pull_request: number,
                old_head: OldHead { local, remote },
                old_parent: format!("p{i}"),
                new_parent: if i == 0 {
                    "origin/main".into()
                } else {
                    format!("b{}", i - 1)
                },
                new_parent_sha: (i == 0).then(|| "m".to_owned()),
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
            if checked_out.get(&b).map(String::as_str) != Some(&format!("/elsewhere-{b}")) {
                moved.push("worktree");
            }
        }
        if chance(g) && !checked_out.is_empty() {
            let paths: Vec<&String> = checked_out.values().collect();
            world
                .dirty
                .insert(paths[usize::arbitrary(g) % paths.len()].clone());
            moved.push("dirty");
        }
        if chance(g) {
            world.conflicts.insert(pick(g));
            moved.push("conflict");
        }
        if chance(g) {
            world.push_refused = true;
            moved.push("refused");
        }
        world.push_cut = chance(g);
        if chance(g) {
            world.local_fails.insert(pick(g));
        }
        if chance(g) {
            world.gh_fails.insert(10 + (usize::arbitrary(g) % n) as u64);
        }
        Case {
            planned: Planned {
                moves,
                old_base,
                checked_out,
                scratch_dir: None,
            },
            world,
            moved,
        }
    }
}

fn check(case: Case) -> bool {
    let before = case.world.clone();
    let mut world = case.world.clone();
    let mut flow = RestackFlow::new("7".into(), case.planned.clone());
    let done = drive(&mut flow, &mut world);
    let moves = &case.planned.moves;
    let old_locals: BTreeSet<&String> = moves.iter().map(|m| &m.old_head.local).collect();
    let kept: BTreeSet<&String> = world.backups.values().collect();
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
                world.local, before.local,
                "nothing here moves after an unfinished push"
            );
            // All or nothing on origin.
            let pushed = moves
                .iter()
                .all(|m| world.remote.get(&m.branch) != before.remote.get(&m.branch));
            assert!(world.remote == before.remote || pushed);
        }
        Ok(pushed) => {
            assert!(case.moved.is_empty(), "pushed although {:?}", case.moved);
            assert!(
                old_locals.iter().all(|o| kept.contains(o)),
                "old heads kept"
            );
            // Exactly the plan: every moving branch at its new head, nothing else.
            let mut expected = before.remote.clone();
            for b in &pushed.branches {
                expected.insert(b.branch.clone(), b.new_head.clone());
            }
            assert_eq!(world.remote, expected);
            assert_eq!(pushed.branches.len(), moves.len());
            for b in &pushed.branches {
                let followed = world.local[&b.branch] == b.new_head;
                let reported = pushed
                    .retarget_failed
                    .iter()
                    .any(|f| f.branch == b.branch && f.place == RetargetPlace::Local);
                assert!(followed != reported, "{} followed or reported", b.branch);
            }
            for m in moves {
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
        "-C {wt} cherry-pick --keep-redundant-commits a1..l"
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
            Next::Done(done) => break done,
        }
    };
    let stopped = done.unwrap_err();
    assert!(!stopped.push_started);
    assert!(stopped.reason.contains("CONFLICT") && stopped.reason.contains("nothing was pushed"));
    assert!(seen.last().unwrap().starts_with("worktree remove --force"));
    assert!(!seen.iter().any(|c| c.starts_with("push")));
}
