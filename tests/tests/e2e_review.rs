//! Guided review end to end: real repositories, the real binary, the loopback model for the
//! agent's answers, fixes and reviews, and real commits.

use luxe_tests::git_repo::{THREE_CHANGES_LIB, git, three_changes, write};
use luxe_tests::model_server::{ModelServer, Reply};
use luxe_tests::process::{LuxeProcess, Workspace};
use serde_json::{Value, json};

const LIB: &str = THREE_CHANGES_LIB;

/// A repository with a base commit and three working-tree changes: `beta` changed, a new
/// file, and the README.
fn project() -> Workspace {
    let ws = Workspace::new();
    three_changes(ws.path(), &[]);
    ws
}

fn start(ws: &Workspace, server: Option<&ModelServer>, flags: &[&str]) -> LuxeProcess {
    let mut cmd = ws.luxe();
    if let Some(server) = server {
        cmd.env("ANTHROPIC_API_KEY", "k")
            .env("ANTHROPIC_BASE_URL", server.anthropic_base_url());
    }
    cmd.args(flags);
    let mut luxe = LuxeProcess::spawn(cmd);
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

/// Loads the working-tree review: `(review, session)`.
fn load(luxe: &mut LuxeProcess) -> (Value, Value) {
    luxe.send(r#"{"kind":"load_guided_review","content":{"request_id":"load","target":{"kind":"working_tree"}}}"#);
    let loaded = luxe.expect("guided_review_loaded");
    assert_eq!(loaded["request_id"], "load");
    let restored = luxe.expect("review_session_restored");
    (loaded["review"].clone(), restored["session"].clone())
}

/// The anchor of the added line `needle` (new side).
fn anchor_at(review: &Value, needle: &str) -> Value {
    for hunk in review["hunks"].as_array().unwrap() {
        for line in hunk["lines"].as_array().unwrap() {
            if line["kind"] == "add" && line["text"].as_str().unwrap().contains(needle) {
                return json!({"kind": "line", "file_id": hunk["file_id"], "hunk_id": hunk["id"],
                    "side": "new", "line": line["new_line"]});
            }
        }
    }
    panic!("no added line with {needle}: {review}");
}

fn edit(luxe: &mut LuxeProcess, request_id: &str, review_id: &Value, fields: Value) {
    let mut content = json!({"request_id": request_id, "review_id": review_id});
    for (k, v) in fields.as_object().unwrap() {
        content[k] = v.clone();
    }
    luxe.send(&json!({"kind": "edit_review", "content": content}).to_string());
}

#[test]
fn load_comment_restart_restore_then_outdated_after_an_edit() {
    let ws = project();
    let mut luxe = start(&ws, None, &[]);
    let (review, session) = load(&mut luxe);
    assert_eq!(session["revision"], 0);
    let paths: Vec<&str> = review["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["README.md", "src/lib.rs", "src/new.rs"]);
    let chapters = review["chapters"].as_array().unwrap();
    let covered: usize = chapters
        .iter()
        .map(|c| c["hunk_ids"].as_array().unwrap().len())
        .sum();
    assert_eq!(covered, review["hunks"].as_array().unwrap().len());

    let id = &review["id"];
    let anchor = anchor_at(&review, "2 + 40");
    edit(
        &mut luxe,
        "c1",
        id,
        json!({"edit": "comment", "anchor": anchor, "body": "Why 40?", "severity": "question"}),
    );
    let saved = luxe.expect("review_session_saved");
    assert_eq!(saved["request_id"], "c1");
    assert_eq!(saved["session"]["revision"], 1);
    let finding = &saved["session"]["findings"][0];
    assert_eq!(finding["status"], "draft");
    assert_eq!(finding["line_text"], "    2 + 40");

    // Every bad edit is answered under its id, and changes nothing.
    edit(
        &mut luxe,
        "bad1",
        id,
        json!({"edit": "reply", "comment_id": "finding_9", "body": "x"}),
    );
    edit(
        &mut luxe,
        "bad2",
        id,
        json!({"edit": "comment", "anchor": {"kind": "file", "file_id": "file:nope"}, "body": "x", "severity": "issue"}),
    );
    edit(
        &mut luxe,
        "bad3",
        id,
        json!({"edit": "comment", "anchor": anchor, "body": " ", "severity": "issue"}),
    );
    edit(
        &mut luxe,
        "bad4",
        &json!("review:other"),
        json!({"edit": "resolve", "comment_id": "finding_1"}),
    );
    for (request_id, why) in [
        ("bad1", "unknown comment finding_9"),
        ("bad2", "anchor not in the review"),
        ("bad3", "empty body"),
        ("bad4", "is not open"),
    ] {
        let failed = luxe.expect("review_session_save_failed");
        assert_eq!(failed["request_id"], request_id);
        assert!(failed["reason"].as_str().unwrap().contains(why), "{failed}");
    }
    luxe.send(r#"{"kind":"request_agent_review","content":{"request_id":"r1","review_id":"review:other"}}"#);
    let rejected = luxe.expect("action_rejected");
    assert_eq!(rejected["request_id"], "r1");
    luxe.send(r#"{"kind":"close"}"#);
    assert_eq!(luxe.wait().0.code(), Some(0));
    let files = std::fs::read_dir(ws.path().join("home/reviews"))
        .unwrap()
        .count();
    assert_eq!(files, 1, "the session is on disk");

    // A restart brings the finding back.
    let mut luxe = start(&ws, None, &[]);
    let (again, session) = load(&mut luxe);
    assert_eq!(again["id"], review["id"]);
    assert_eq!(again["revision_id"], review["revision_id"]);
    assert_eq!(session["revision"], 1);
    assert_eq!(session["findings"][0]["outdated"], false);
    luxe.send(r#"{"kind":"close"}"#);
    luxe.wait();

    // The anchored line changes: the finding is kept, outdated, with its original text.
    write(
        ws.path(),
        "src/lib.rs",
        &LIB.replace("    2\n", "    2 + 41\n"),
    );
    let mut luxe = start(&ws, None, &[]);
    let (_, session) = load(&mut luxe);
    let finding = &session["findings"][0];
    assert_eq!(finding["outdated"], true, "{session}");
    assert_eq!(finding["line_text"], "    2 + 40");
    let saved = luxe.expect("review_session_saved");
    assert!(
        saved.get("request_id").is_none(),
        "marking outdated is saved as progress"
    );
}

#[test]
fn fifty_edits_in_flight_get_fifty_answers() {
    let ws = project();
    let mut luxe = start(&ws, None, &[]);
    let (review, _) = load(&mut luxe);
    let anchor = anchor_at(&review, "gamma");
    let mut lines = String::new();
    for n in 0..50 {
        let content = json!({"request_id": format!("e{n}"), "review_id": review["id"], "edit": "comment",
            "anchor": anchor, "body": format!("note {n}"), "severity": "nitpick"});
        lines.push_str(&json!({"kind": "edit_review", "content": content}).to_string());
        lines.push('\n');
    }
    luxe.send_raw(lines.as_bytes());
    for n in 0..50 {
        let saved = luxe.expect("review_session_saved");
        assert_eq!(saved["request_id"], format!("e{n}"));
        assert_eq!(saved["session"]["revision"], n + 1);
    }
}

#[test]
fn not_a_git_repository_fails_with_a_reason() {
    let ws = Workspace::new();
    let mut luxe = start(&ws, None, &[]);
    luxe.send(r#"{"kind":"load_guided_review","content":{"request_id":"l","target":{"kind":"working_tree"}}}"#);
    let failed = luxe.expect("guided_review_failed");
    assert_eq!(failed["request_id"], "l");
    assert!(
        failed["reason"]
            .as_str()
            .unwrap()
            .contains("not a git repository"),
        "{failed}"
    );
}

/// Frames until the review turn ends and its thread entry is saved.
fn review_turn(luxe: &mut LuxeProcess) -> Vec<Value> {
    let mut frames = luxe.until("turn_ended");
    loop {
        let frame = luxe.recv();
        let done = frame["kind"] == "review_session_saved";
        frames.push(frame);
        if done {
            return frames;
        }
    }
}

#[test]
fn a_question_and_a_fix_are_answered_on_their_thread() {
    let ws = project();
    let server = ModelServer::start();
    let mut luxe = start(&ws, Some(&server), &[]);
    let (review, _) = load(&mut luxe);
    let id = review["id"].clone();
    server.push(Reply::text("Forty is the offset the caller expects."));
    edit(
        &mut luxe,
        "q",
        &id,
        json!({"edit": "comment", "anchor": anchor_at(&review, "2 + 40"),
        "body": "Why add 40 here?", "severity": "question", "send": true}),
    );
    let saved = luxe.expect("review_session_saved");
    assert_eq!(saved["request_id"], "q");
    assert_eq!(saved["session"]["findings"][0]["pending"], true);
    let frames = review_turn(&mut luxe);
    let started = frames.iter().find(|f| f["kind"] == "turn_started").unwrap();
    assert_eq!(started["content"]["source"], "review");
    let last = &frames.last().unwrap()["content"]["session"]["findings"][0];
    assert_eq!(last["pending"], false);
    let answer = &last["thread"][1];
    assert_eq!(
        (&answer["author"], &answer["kind"]),
        (&json!("agent"), &json!("answer"))
    );
    assert_eq!(answer["body"], "Forty is the offset the caller expects.");
    let asked = server.requests().last().unwrap().body.to_string();
    assert!(
        asked.contains("Why add 40 here?") && asked.contains("2 + 40"),
        "{asked}"
    );

    // A fix: the agent edits (asking permission as usual), reports, and the review is re-read.
    server.push(Reply::tool_call(
        "t1",
        "edit",
        json!({"path": "src/lib.rs", "old_text": "2 + 40", "new_text": "42"}),
    ));
    server.push(Reply::tool_call(
        "t2",
        "report",
        json!({"comment_id": "finding_1", "status": "fixed", "summary": "Folded the constant."}),
    ));
    server.push(Reply::text("Done."));
    edit(
        &mut luxe,
        "f",
        &id,
        json!({"edit": "request_fix", "comment_id": "finding_1", "send": true}),
    );
    assert_eq!(luxe.expect("review_session_saved")["request_id"], "f");
    let prompt = luxe.until("permission_requested");
    let request = &prompt.last().unwrap()["content"];
    // Edits keep working while the turn runs.
    edit(
        &mut luxe,
        "r",
        &id,
        json!({"edit": "reply", "comment_id": "finding_1", "body": "Take your time."}),
    );
    let saved = luxe.expect("review_session_saved");
    assert_eq!(saved["request_id"], "r");
    assert_eq!(saved["session"]["findings"][0]["pending"], true);
    luxe.send(
        &json!({"kind": "respond_permission", "content": {"id": request["id"], "reply": "once"}})
            .to_string(),
    );
    // The report, the re-read review and the finding's end arrive as they are saved or read.
    let (mut reported, mut updated, mut closed) = (false, false, false);
    while !(reported && updated && closed) {
        let frame = luxe.recv();
        let thread = &frame["content"]["session"]["findings"][0]["thread"];
        if let Some(entries) = thread.as_array() {
            reported |= entries.iter().any(|e| {
                e["kind"] == "report"
                    && e["status"] == "fixed"
                    && e["body"] == "Folded the constant."
            });
        }
        if frame["kind"] == "guided_review_updated" {
            updated = true;
            let text = frame["content"]["review"].to_string();
            assert!(text.contains("    42") && !text.contains("2 + 40"));
        }
        if frame["kind"] == "review_session_saved" {
            // Done, and outdated: the line it pointed at changed.
            let finding = &frame["content"]["session"]["findings"][0];
            closed |= finding["pending"] == false && finding["outdated"] == true;
        }
    }
    assert_eq!(
        std::fs::read_to_string(ws.path().join("src/lib.rs")).unwrap(),
        LIB.replace("    2\n", "    42\n")
    );
}

/// A project with a model, its review loaded and one saved draft, `finding_1`, on `gamma`.
fn with_a_draft(body: &str, severity: &str) -> (Workspace, ModelServer, LuxeProcess, Value) {
    let ws = project();
    let server = ModelServer::start();
    let mut luxe = start(&ws, Some(&server), &[]);
    let (review, _) = load(&mut luxe);
    edit(
        &mut luxe,
        "c",
        &review["id"],
        json!({"edit": "comment", "anchor": anchor_at(&review, "gamma"),
        "body": body, "severity": severity}),
    );
    luxe.expect("review_session_saved");
    (ws, server, luxe, review)
}

#[test]
fn a_fix_turn_without_a_report_says_why_and_stays_open() {
    let (_ws, server, mut luxe, review) = with_a_draft("Document gamma.", "issue");
    server.push(Reply::text("I looked but changed nothing."));
    edit(
        &mut luxe,
        "f",
        &review["id"],
        json!({"edit": "request_fix", "comment_id": "finding_1", "body": "Add a doc comment.", "send": true}),
    );
    assert_eq!(luxe.expect("review_session_saved")["request_id"], "f");
    let frames = review_turn(&mut luxe);
    let finding = &frames.last().unwrap()["content"]["session"]["findings"][0];
    assert_eq!(finding["status"], "open");
    assert_eq!(finding["pending"], false);
    let note = finding["thread"].as_array().unwrap().last().unwrap();
    assert_eq!(
        (&note["author"], &note["kind"]),
        (&json!("system"), &json!("note"))
    );
    assert!(
        note["body"].as_str().unwrap().contains("without a report"),
        "{note}"
    );
}

/// Frames until the agent-review turn has ended and a save carries a note about a dropped
/// finding; `(frames, that session)`. The turn's end says the model's last request reached the
/// server, which the save may come before or after.
fn agent_review_until_dropped(luxe: &mut LuxeProcess) -> (Vec<Value>, Value) {
    let (mut frames, mut ended, mut dropped) = (Vec::new(), false, None);
    while !(ended && dropped.is_some()) {
        let frame = luxe.recv();
        ended |= frame["kind"] == "turn_ended";
        if frame["kind"] == "review_session_saved" {
            let session = frame["content"]["session"].clone();
            let notes = session["notes"].as_array().unwrap();
            if notes
                .iter()
                .any(|n| n["body"].as_str().unwrap().contains("dropped"))
            {
                dropped = Some(session);
            }
        }
        frames.push(frame);
    }
    (frames, dropped.unwrap_or_default())
}

/// The contents of the `tool_finished` frames among `frames`.
fn tools_finished(frames: &[Value]) -> Vec<&Value> {
    frames
        .iter()
        .filter(|f| f["kind"] == "tool_finished")
        .map(|f| &f["content"])
        .collect()
}

/// Frames until a save shows that no turn works on the first finding any more (the turn's
/// last save: the report before it may be written after the turn ends).
fn until_closed(luxe: &mut LuxeProcess) -> Vec<Value> {
    let mut frames = Vec::new();
    loop {
        let frame = luxe.recv();
        let done = frame["kind"] == "review_session_saved"
            && frame["content"]["session"]["findings"][0]["pending"] == false;
        frames.push(frame);
        if done {
            return frames;
        }
    }
}

#[test]
fn a_fix_turn_that_reports_not_fixed_carries_the_status_on_its_thread() {
    let (_ws, server, mut luxe, review) = with_a_draft("Rename gamma.", "suggestion");
    // Without `status` first: the model is told what is missing, in a sentence.
    server.push(Reply::tool_call(
        "r1",
        "report",
        json!({"comment_id": "finding_1", "summary": "Other crates call gamma."}),
    ));
    server.push(Reply::tool_call(
        "r2",
        "report",
        json!({"comment_id": "finding_1", "status": "not_fixed", "summary": "Other crates call gamma."}),
    ));
    server.push(Reply::text("Left as is."));
    edit(
        &mut luxe,
        "f",
        &review["id"],
        json!({"edit": "request_fix", "comment_id": "finding_1", "send": true}),
    );
    assert_eq!(luxe.expect("review_session_saved")["request_id"], "f");
    let frames = until_closed(&mut luxe);
    let finished = tools_finished(&frames);
    assert_eq!(finished.len(), 2, "{frames:#?}");
    assert_eq!(finished[0]["status"], "error");
    let told = finished[0]["output"].as_str().unwrap();
    assert!(
        told.starts_with("report needs `status`") && told.contains("not_fixed"),
        "{told}"
    );
    assert_eq!(finished[1]["status"], "ok");
    let finding = &frames.last().unwrap()["content"]["session"]["findings"][0];
    let reports: Vec<&Value> = finding["thread"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "report")
        .collect();
    assert_eq!(reports.len(), 1, "{finding}");
    assert_eq!(reports[0]["author"], "agent");
    assert_eq!(reports[0]["status"], "not_fixed");
    assert_eq!(reports[0]["body"], "Other crates call gamma.");
    assert_eq!(finding["status"], "open");
    assert_eq!(finding["pending"], false);
}

#[test]
fn agent_review_anchors_findings_by_path_and_line_and_drops_an_unshown_one() {
    let ws = project();
    let server = ModelServer::start();
    let mut luxe = start(&ws, Some(&server), &[]);
    let (review, _) = load(&mut luxe);
    // The arguments as the design gives them: a path and a line; `side` is "new" by default.
    server.push(Reply::tool_call(
        "a1",
        "add_finding",
        json!({"path": "src/new.rs", "line": 1, "severity": "suggestion", "body": "gamma needs a test"}),
    ));
    // The deleted line, by its old number.
    server.push(Reply::tool_call(
        "a2",
        "add_finding",
        json!({"path": "src/lib.rs", "line": 13, "side": "old", "severity": "question", "body": "Why was 2 wrong?"}),
    ));
    // A line of the file that the review does not show.
    server.push(Reply::tool_call(
        "a3",
        "add_finding",
        json!({"path": "src/lib.rs", "line": 2, "severity": "issue", "body": "made up"}),
    ));
    server.push(Reply::text("Reviewed."));
    luxe.send(&json!({"kind": "request_agent_review", "content": {"request_id": "ar", "review_id": review["id"]}}).to_string());
    let recorded = luxe.expect("review_session_saved");
    assert_eq!(recorded["request_id"], "ar");
    let (frames, last) = agent_review_until_dropped(&mut luxe);

    let findings = last["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "{last}");
    assert_eq!(findings[0]["anchor"], anchor_at(&review, "pub fn gamma"));
    assert_eq!(findings[0]["thread"][0]["author"], "agent");
    assert_eq!(findings[0]["thread"][0]["body"], "gamma needs a test");
    assert_eq!(findings[0]["severity"], "suggestion");
    let deleted = &findings[1];
    assert_eq!(deleted["anchor"]["kind"], "line");
    assert_eq!(deleted["anchor"]["side"], "old");
    assert_eq!(deleted["anchor"]["line"], 13);
    assert_eq!(
        deleted["anchor"]["hunk_id"],
        anchor_at(&review, "2 + 40")["hunk_id"]
    );
    assert_eq!(deleted["line_text"], "    2");

    let finished = tools_finished(&frames);
    assert_eq!(finished.len(), 3, "{frames:#?}");
    assert_eq!(
        (&finished[0]["status"], &finished[1]["status"]),
        (&json!("ok"), &json!("ok"))
    );
    // The model hears which lines of the file it can anchor to, so it can correct itself.
    assert_eq!(finished[2]["status"], "error");
    let told = finished[2]["output"].as_str().unwrap();
    assert!(
        told.contains("src/lib.rs")
            && told.contains("new lines 10–14")
            && told.contains("old lines 10–14"),
        "{told}"
    );
    let results = server.requests().last().unwrap().body.to_string();
    assert!(results.contains("new lines 10–14"), "the model hears it");
}

#[test]
fn commit_review_chapters_makes_one_commit_per_chapter_with_the_same_diff() {
    let ws = project();
    let before_head = git(ws.path(), &["rev-parse", "HEAD"]).trim().to_owned();
    git(ws.path(), &["add", "-N", "src/new.rs"]);
    let before = git(ws.path(), &["diff", "HEAD"]);
    git(ws.path(), &["reset", "--quiet"]);
    let mut luxe = start(&ws, None, &[]);
    let (review, _) = load(&mut luxe);
    let chapters = review["chapters"].as_array().unwrap().len();
    luxe.send(&json!({"kind": "commit_review_chapters", "content": {"request_id": "k", "review_id": review["id"]}}).to_string());
    let committed = luxe.expect("review_chapters_committed");
    assert_eq!(committed["request_id"], "k");
    let commits = committed["commits"].as_array().unwrap();
    assert_eq!(commits.len(), chapters);
    let log = git(ws.path(), &["rev-list", &format!("{before_head}..HEAD")]);
    assert_eq!(log.lines().count(), chapters);
    assert_eq!(
        log.lines().next().unwrap(),
        commits.last().unwrap()["sha"].as_str().unwrap()
    );
    assert_eq!(
        git(ws.path(), &["diff", &before_head, "HEAD"]),
        before,
        "the commits hold the change"
    );
    assert_eq!(
        git(ws.path(), &["status", "--porcelain"]),
        "",
        "nothing left, index in step"
    );
    let updated = luxe.expect("guided_review_updated");
    assert!(
        updated["review"]["files"].as_array().unwrap().is_empty(),
        "the review is read again"
    );
}

#[test]
fn commit_review_chapters_is_refused_when_read_only() {
    let ws = project();
    let mut luxe = start(&ws, None, &["--read-only"]);
    let (review, _) = load(&mut luxe);
    luxe.send(&json!({"kind": "commit_review_chapters", "content": {"request_id": "k", "review_id": review["id"]}}).to_string());
    let rejected = luxe.expect("action_rejected");
    assert_eq!(rejected["reason"], "read-only session");
    assert_eq!(git(ws.path(), &["rev-list", "--count", "HEAD"]).trim(), "1");
}
