//! quickcheck on the virtual clock: the GitHub and stack actions that default to what the
//! workspace probe finds, sent at random moments of that probe (before its first command ends,
//! between its steps, after it), answer exactly as they do when sent after the probe ended —
//! whatever gh says (logged out, no repository, no pull request, or all of it), and each exactly
//! once.

use std::collections::{BTreeMap, VecDeque};

use luxe_core::harness::{frames, test_config};
use luxe_core::{Input, Output};
use luxe_sim::session::{Sim, small_review_source};
use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde_json::{Value, json};

const HEAD: &str = "1111111111111111111111111111111111111111";

/// What gh and git say in this run.
#[derive(Clone, Copy, Debug)]
struct World {
    logged_in: bool,
    repository: bool,
    pull_request: bool,
}

impl World {
    fn answer(self, program: &str, args: &[String]) -> (i32, String, String) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let pr = json!({"number": 7, "title": "T", "url": "https://github.com/o/r/pull/7",
            "state": "OPEN", "isDraft": false, "headRefName": "frobs", "headRefOid": HEAD,
            "baseRefName": "main"});
        let ok = |stdout: String| (0, stdout, String::new());
        match (program, args.as_slice()) {
            ("git", ["status", ..]) => ok(format!("# branch.oid {HEAD}\n# branch.head frobs\n")),
            ("gh", ["auth", "status"]) if !self.logged_in => (
                1,
                String::new(),
                "You are not logged into any GitHub hosts. To log in, run: gh auth login".into(),
            ),
            ("gh", ["auth", "status"]) => ok(String::new()),
            ("gh", ["repo", "view", ..]) if !self.repository => {
                (1, String::new(), "no git remotes found".into())
            }
            ("gh", ["repo", "view", ..]) => ok(json!({"nameWithOwner": "o/r",
                "defaultBranchRef": {"name": "main"}})
            .to_string()),
            ("gh", ["pr", "view", "--json", ..]) if !self.pull_request => (
                1,
                String::new(),
                "no pull requests found for branch \"frobs\"".into(),
            ),
            ("gh", ["pr", "view", ..]) => ok(pr.to_string()),
            ("gh", ["pr", "checks", ..]) => ok("[]".into()),
            ("gh", ["pr", "diff", ..]) => ok("diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,2 @@\n fn a() {}\n-fn b() {}\n+fn b() { 1 }\n".into()),
            ("gh", ["api", "graphql", ..]) => ok(json!({"data": {"repository":
                {"pullRequest": {"reviewThreads": {"nodes": []}}}}})
            .to_string()),
            ("git", ["log", ..]) => ok(format!("{HEAD}\0Subject\0Body\0\n")),
            // Whatever else a flow asks (fetch, for-each-ref…) fails the same way every time.
            _ => (1, String::new(), "not scripted".into()),
        }
    }
}

impl Arbitrary for World {
    fn arbitrary(g: &mut Gen) -> Self {
        Self {
            logged_in: u8::arbitrary(g) % 4 != 0,
            repository: u8::arbitrary(g) % 4 != 0,
            pull_request: bool::arbitrary(g),
        }
    }
}

/// One step of a run: send the next action, or end one running command (chosen by index).
#[derive(Clone, Debug)]
enum Op {
    Send,
    Finish(u8),
}

impl Arbitrary for Op {
    fn arbitrary(g: &mut Gen) -> Self {
        if bool::arbitrary(g) {
            Self::Send
        } else {
            Self::Finish(u8::arbitrary(g))
        }
    }
}

fn actions(review: &str) -> Vec<Value> {
    vec![
        json!({"kind": "get_pull_request", "content": {"request_id": "get", "number": 7}}),
        json!({"kind": "preview_pull_request", "content": {"request_id": "pr-preview"}}),
        json!({"kind": "preview_pull_request_review",
            "content": {"request_id": "review-preview", "review_id": review}}),
        json!({"kind": "preview_stack", "content": {"request_id": "stack-preview"}}),
        json!({"kind": "plan_restack", "content": {"request_id": "plan"}}),
    ]
}

/// A session whose probe has not answered yet, with a branch review open (no gh needed).
struct Run {
    sim: Sim,
    world: World,
    running: Vec<Output>,
    answers: BTreeMap<String, Vec<Value>>,
    review: String,
}

impl Run {
    fn new(world: World) -> Self {
        let mut config = test_config();
        config.github_writes = true;
        let mut sim = Sim::with_config(config);
        let running = sim.take_start_effects();
        let mut run = Self {
            sim,
            world,
            running,
            answers: BTreeMap::new(),
            review: String::new(),
        };
        let load = json!({"kind": "load_guided_review", "content": {"request_id": "load",
            "target": {"kind": "branch", "base": "main"}}});
        let out = run.sim.send_outputs(load.to_string().as_bytes());
        run.take(out);
        while let Some(at) = run
            .running
            .iter()
            .position(|o| matches!(o, Output::ReadDiff { .. }))
        {
            run.finish(at);
        }
        let loaded = run.answers.remove("load").expect("the review loaded");
        run.review = loaded[0]["content"]["review"]["id"]
            .as_str()
            .expect("a review id")
            .to_owned();
        run
    }

    /// Keeps the frames that answer a request and the effects still to end.
    fn take(&mut self, outputs: Vec<Output>) {
        for event in frames(&outputs) {
            let mut frame = serde_json::to_value(event).expect("events serialize");
            let Some(id) = frame["content"]["request_id"].as_str().map(str::to_owned) else {
                continue;
            };
            if let Some(plan) = frame["content"]
                .get_mut("plan")
                .and_then(Value::as_object_mut)
            {
                plan.remove("id");
            }
            self.answers.entry(id).or_default().push(frame);
        }
        self.running.extend(
            outputs
                .into_iter()
                .filter(|o| matches!(o, Output::Spawn { .. } | Output::ReadDiff { .. })),
        );
    }

    /// Ends the running effect at `at` as the world says.
    fn finish(&mut self, at: usize) {
        let out = match self.running.remove(at) {
            Output::Spawn {
                id, program, args, ..
            } => {
                let (code, stdout, stderr) = self.world.answer(&program, &args);
                let mut out = self.sim.input(Input::ProcessOutput {
                    id,
                    stream: luxe_core::effects::Stream::Stdout,
                    bytes: stdout.as_bytes(),
                });
                out.extend(self.sim.input(Input::ProcessOutput {
                    id,
                    stream: luxe_core::effects::Stream::Stderr,
                    bytes: stderr.as_bytes(),
                }));
                out.extend(self.sim.input(Input::ProcessExited {
                    id,
                    status: Ok(Some(code)),
                }));
                out
            }
            Output::ReadDiff { id, .. } => self.sim.input(Input::DiffRead {
                id,
                result: Ok(Box::new(small_review_source())),
            }),
            _ => Vec::new(),
        };
        self.take(out);
    }

    fn send(&mut self, frame: &Value) {
        let out = self.sim.send_outputs(frame.to_string().as_bytes());
        self.take(out);
    }

    fn drain(&mut self) {
        while !self.running.is_empty() {
            self.finish(0);
        }
    }
}

fn answers_do_not_depend_on_when_they_were_asked(world: World, ops: Vec<Op>) -> bool {
    // Reference: the probe ends first, then every action.
    let mut reference = Run::new(world);
    reference.drain();
    for action in actions(&reference.review.clone()) {
        reference.send(&action);
        reference.drain();
    }

    let mut run = Run::new(world);
    let mut to_send: VecDeque<Value> = actions(&run.review.clone()).into();
    for op in ops {
        match op {
            Op::Send => {
                if let Some(action) = to_send.pop_front() {
                    run.send(&action);
                }
            }
            Op::Finish(i) if !run.running.is_empty() => {
                let at = usize::from(i) % run.running.len();
                run.finish(at);
            }
            Op::Finish(_) => {}
        }
    }
    while let Some(action) = to_send.pop_front() {
        run.send(&action);
    }
    run.drain();
    for (id, frames) in &run.answers {
        assert_eq!(
            frames.len(),
            1,
            "{id} answered {} times: {frames:?}",
            frames.len()
        );
    }
    assert_eq!(run.answers.len(), 5, "{:?}", run.answers.keys());
    assert_eq!(run.answers, reference.answers, "{world:?}");
    true
}

#[test]
fn workspace_defaulted_actions_answer_the_same_whenever_they_are_sent() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(answers_do_not_depend_on_when_they_were_asked as fn(World, Vec<Op>) -> bool);
}
