//! GitHub and stack actions that default to the checkout's repository, branch, default branch or
//! pull request, sent as the first frames after `ready` while a slow gh (the fake, sleeping
//! before every answer) is still probing the workspace: each is answered exactly once, and as it
//! would be once the probe had ended.

use std::collections::BTreeMap;

use luxe_tests::fake_gh::{FakeGh, example_state};
use luxe_tests::git_repo::{bare_origin, git, init_repo, write};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::{Value, json};

/// The actions under test, each under its own request id. `review` is the id of the branch
/// review loaded just before, for `preview_pull_request_review`.
fn actions(review: &str) -> Vec<(&'static str, Value)> {
    vec![
        (
            "get_pull_request",
            json!({"request_id": "get", "number": 7}),
        ),
        ("preview_pull_request", json!({"request_id": "pr-preview"})),
        (
            "preview_pull_request_review",
            json!({"request_id": "review-preview", "review_id": review}),
        ),
        ("preview_stack", json!({"request_id": "stack-preview"})),
        ("plan_restack", json!({"request_id": "plan"})),
    ]
}

/// Branch `frobs` (pull request #7 of the example state) one commit over main, both on a bare
/// origin.
fn project() -> (Workspace, tempfile::TempDir) {
    let ws = Workspace::new();
    init_repo(ws.path(), &[("src/frob.rs", "fn frob() {}\n")]);
    let origin = bare_origin(ws.path());
    git(ws.path(), &["checkout", "--quiet", "-b", "frobs"]);
    write(ws.path(), "src/frob.rs", "fn frob() {}\nfn more() {}\n");
    git(ws.path(), &["commit", "--quiet", "-am", "More frobs"]);
    git(ws.path(), &["push", "--quiet", "-u", "origin", "frobs"]);
    (ws, origin)
}

fn start(ws: &Workspace, fake: &FakeGh, gh_timeout_ms: u64) -> LuxeProcess {
    let mut cmd = ws.luxe();
    cmd.envs(fake.envs())
        .env("LUXE_GH_TIMEOUT_MS", gh_timeout_ms.to_string())
        .arg("--github-writes");
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.watch_workspace();
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

/// Loads a branch review (no gh needed) and returns its id.
fn load_review(luxe: &mut LuxeProcess) -> String {
    let target = json!({"kind": "branch"});
    luxe.send_frame(
        "load_guided_review",
        json!({"request_id": "load", "target": target}),
    );
    let loaded = luxe.answer();
    assert_eq!(loaded["kind"], "guided_review_loaded", "{loaded}");
    assert_eq!(luxe.answer()["kind"], "review_session_restored");
    loaded["content"]["review"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sends the actions and reads frames until each is answered and the probe has ended; then
/// checks nothing answers any of them twice (a `list_models` behind them all is answered after
/// every frame they caused). Returns each answer by request id, with the fields that differ
/// between runs (plan ids) taken out.
fn answers(luxe: &mut LuxeProcess, review: &str, probed: bool) -> BTreeMap<String, Value> {
    let sent = actions(review);
    for (kind, content) in &sent {
        luxe.send_frame(kind, content.clone());
    }
    let mut answered: BTreeMap<String, Value> = BTreeMap::new();
    let mut docked = probed;
    let mut sentinel_sent = false;
    loop {
        let frame = luxe.recv();
        let kind = frame["kind"].as_str().unwrap_or_default().to_owned();
        if kind == "workspace_updated" {
            docked = true;
        } else if kind == "models_listed" {
            break;
        } else if let Some(id) = frame["content"]["request_id"].as_str() {
            let mut answer = frame.clone();
            if let Some(plan) = answer["content"]
                .get_mut("plan")
                .and_then(Value::as_object_mut)
            {
                plan.remove("id");
            }
            let before = answered.insert(id.to_owned(), answer);
            assert!(
                before.is_none(),
                "{id} answered twice: {before:?} and {frame}"
            );
        }
        if !sentinel_sent && docked && answered.len() == sent.len() {
            luxe.send_frame("list_models", json!({"request_id": "sentinel"}));
            sentinel_sent = true;
        }
    }
    answered
}

#[test]
fn actions_sent_before_the_first_probe_ends_answer_as_they_would_after_it() {
    let (ws, _origin) = project();
    let mut state = example_state();
    // Four gh commands in the probe: about 600 ms before the dock is known.
    state["delay_ms"] = json!(150);
    let fake = FakeGh::new(&state);

    let mut early = start(&ws, &fake, 10_000);
    let review = load_review(&mut early);
    let first = answers(&mut early, &review, false);
    drop(early);

    let mut late = start(&ws, &fake, 10_000);
    late.expect("workspace_updated");
    let review = load_review(&mut late);
    let later = answers(&mut late, &review, true);

    assert_eq!(first.len(), 5, "{first:#?}");
    for (id, answer) in &later {
        assert_eq!(first.get(id), Some(answer), "{id} answered otherwise early");
    }
    // Worked, not refused for want of a repository: the pull request was read, its preview
    // made, the review drafted.
    assert_eq!(first["get"]["kind"], "pull_request_fetched", "{first:#?}");
    assert_eq!(first["pr-preview"]["kind"], "pull_request_preview");
    assert_eq!(
        first["review-preview"]["kind"],
        "pull_request_review_preview"
    );
}

#[test]
fn a_probe_that_times_out_answers_the_waiting_actions_with_its_failure() {
    let (ws, _origin) = project();
    let mut state = example_state();
    state["delay_ms"] = json!(2_000);
    let fake = FakeGh::new(&state);
    let mut luxe = start(&ws, &fake, 300);
    luxe.send_frame(
        "get_pull_request",
        json!({"request_id": "get", "number": 7}),
    );
    luxe.send_frame("preview_pull_request", json!({"request_id": "pr-preview"}));
    luxe.send_frame("plan_restack", json!({"request_id": "plan"}));
    let mut reasons = BTreeMap::new();
    while reasons.len() < 3 {
        let frame = luxe.answer();
        let content = &frame["content"];
        let id = content["request_id"].as_str().unwrap().to_owned();
        let reason = content["reason"]
            .as_str()
            .or(content["refusal"].as_str())
            .unwrap_or_else(|| panic!("a failure: {frame}"))
            .to_owned();
        assert!(reasons.insert(id, reason).is_none(), "answered twice");
    }
    for id in ["get", "pr-preview", "plan"] {
        assert!(
            reasons[id].contains("did not answer in time"),
            "{id}: {}",
            reasons[id]
        );
    }
    luxe.send_frame("list_models", json!({"request_id": "m"}));
    assert_eq!(luxe.answer()["kind"], "models_listed");
}
