//! quickcheck on the virtual clock: a pull request review preview, then any sequence of edits,
//! then the confirmation; gh and the disk are scripted. The review posts only if no edit
//! changed the findings since the preview, and then exactly what the preview showed.

use std::collections::VecDeque;

use luxe_core::harness::{frames, test_config};
use luxe_core::protocol::events::Event;
use luxe_core::{Input, Output};
use luxe_sim::session::{Sim, small_review_source};
use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde_json::{Value, json};

const HEAD: &str = "1111111111111111111111111111111111111111";

/// The pull request's diff: the change of `small_review_source`.
const DIFF: &str = "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,2 @@\n fn a() {}\n-fn b() {}\n+fn b() { 1 }\n";

/// Answers every effect of `outputs` as git, gh and the disk would (gh from `answer`), and
/// returns the frames that came of it all.
fn play(sim: &mut Sim, outputs: Vec<Output>) -> Vec<Event> {
    let mut frames_seen: Vec<Event> = frames(&outputs).cloned().collect();
    let mut pending: VecDeque<Output> = outputs.into();
    while let Some(output) = pending.pop_front() {
        let more = match output {
            Output::Spawn {
                id, program, args, ..
            } => {
                let (code, stdout) = answer(&program, &args);
                let mut out = sim.input(Input::ProcessOutput {
                    id,
                    stream: luxe_core::effects::Stream::Stdout,
                    bytes: stdout.as_bytes(),
                });
                out.extend(sim.input(Input::ProcessExited {
                    id,
                    status: Ok(Some(code)),
                }));
                out
            }
            Output::ReadDiff { id, .. } => sim.input(Input::DiffRead {
                id,
                result: Ok(Box::new(small_review_source())),
            }),
            Output::ReadFile { id, .. } => sim.input(Input::FileRead {
                id,
                result: Err("No such file or directory (os error 2)".into()),
            }),
            Output::WriteFile { id, .. } => sim.input(Input::FileWritten { id, result: Ok(()) }),
            _ => Vec::new(),
        };
        frames_seen.extend(frames(&more).cloned());
        pending.extend(more.into_iter().filter(|o| !matches!(o, Output::Frame(_))));
    }
    frames_seen
}

/// What git and gh print for each command luxe runs here.
fn answer(program: &str, args: &[String]) -> (i32, String) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let pr = json!({"number": 7, "title": "T", "url": "https://github.com/o/r/pull/7",
        "state": "OPEN", "isDraft": false, "headRefName": "frobs", "headRefOid": HEAD,
        "baseRefName": "main"});
    match (program, args.as_slice()) {
        ("git", ["status", ..]) => (0, format!("# branch.oid {HEAD}\n# branch.head frobs\n")),
        ("gh", ["auth", "status"]) => (0, String::new()),
        ("gh", ["repo", "view", ..]) => (0, json!({"nameWithOwner": "o/r"}).to_string()),
        ("gh", ["pr", "view", ..]) => (0, pr.to_string()),
        ("gh", ["pr", "checks", ..]) => (0, "[]".into()),
        ("gh", ["pr", "diff", ..]) => (0, DIFF.into()),
        ("gh", ["api", ..]) => (
            0,
            json!({"html_url": "https://github.com/o/r/pull/7#r1"}).to_string(),
        ),
        other => panic!("unexpected command {other:?}"),
    }
}

fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(Event::kind).collect()
}

fn send(sim: &mut Sim, frame: Value) -> Vec<Event> {
    let out = sim.send_outputs(frame.to_string().as_bytes());
    play(sim, out)
}

/// An edit after the preview: some save (and so change the findings), some are refused.
#[derive(Clone, Debug)]
enum After {
    Reply,
    Resolve,
    UnknownComment,
    EmptyComment,
}

impl Arbitrary for After {
    fn arbitrary(g: &mut Gen) -> Self {
        g.choose(&[
            Self::Reply,
            Self::Resolve,
            Self::UnknownComment,
            Self::EmptyComment,
        ])
        .cloned()
        .expect("non-empty")
    }
}

fn posts_only_if_nothing_changed(edits: Vec<After>) -> bool {
    let mut config = test_config();
    config.reviews_dir = Some("/home/u/.luxe/reviews".into());
    config.github_writes = true;
    let mut sim = Sim::with_config(config);
    // The start-up probes: git, then gh; the dock shows PR #7 at HEAD.
    let start = sim.take_start_effects();
    assert!(kinds(&play(&mut sim, start)).contains(&"workspace_updated"));
    let loaded = send(
        &mut sim,
        json!({"kind": "load_guided_review", "content": {"request_id": "l",
        "target": {"kind": "branch", "base": "main"}}}),
    );
    let Some(Event::GuidedReviewLoaded(loaded)) = loaded.first() else {
        panic!("{loaded:?}")
    };
    let review = serde_json::to_value(&*loaded.review).expect("serializes");
    let hunk = &review["hunks"][0];
    let added = hunk["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == "add")
        .unwrap();
    let anchor = json!({"kind": "line", "file_id": hunk["file_id"], "hunk_id": hunk["id"],
        "side": "new", "line": added["new_line"]});
    let edit = |fields: Value| {
        let mut content = json!({"request_id": "e", "review_id": review["id"]});
        for (k, v) in fields.as_object().unwrap() {
            content[k] = v.clone();
        }
        json!({"kind": "edit_review", "content": content})
    };
    send(
        &mut sim,
        edit(json!({"edit": "comment", "anchor": anchor, "body": "why?", "severity": "issue"})),
    );
    let preview = send(
        &mut sim,
        json!({"kind": "preview_pull_request_review", "content":
        {"request_id": "p", "review_id": review["id"]}}),
    );
    let Some(Event::PullRequestReviewPreview(shown)) = preview.first() else {
        panic!("{preview:?}")
    };
    assert_eq!(shown.comments.len(), 1);
    let mut changed = false;
    for after in edits {
        let frames = send(
            &mut sim,
            match after {
                After::Reply => {
                    edit(json!({"edit": "reply", "comment_id": "finding_1", "body": "more"}))
                }
                After::Resolve => edit(json!({"edit": "resolve", "comment_id": "finding_1"})),
                After::UnknownComment => {
                    edit(json!({"edit": "resolve", "comment_id": "finding_9"}))
                }
                After::EmptyComment => edit(
                    json!({"edit": "comment", "anchor": anchor, "body": " ", "severity": "issue"}),
                ),
            },
        );
        changed |= kinds(&frames).contains(&"review_session_saved");
    }
    let answer = send(
        &mut sim,
        json!({"kind": "post_pull_request_review", "content":
        {"request_id": "p", "verdict": "comment"}}),
    );
    let posted = kinds(&answer).contains(&"pull_request_review_posted");
    let refused = answer.iter().any(|e| {
        matches!(e, Event::PullRequestReviewPostFailed(f)
        if f.reason.contains("findings changed"))
    });
    posted != changed && refused == changed
}

#[test]
fn a_review_posts_only_if_no_edit_changed_the_findings_since_its_preview() {
    QuickCheck::new()
        .tests(100)
        .quickcheck(posts_only_if_nothing_changed as fn(Vec<After>) -> bool);
}
