use super::*;
use crate::protocol::events::{
    OutputStream, PermissionResolved, ResolvedBy, TokenDelta, ToolOutputDelta,
};

fn started(call: &str, name: &str, input: Value) -> Event {
    Event::ToolStarted(ToolStarted {
        call_id: call.into(),
        name: name.into(),
        title: format!("{name} x"),
        input,
    })
}

fn updates(steps: Vec<Step>) -> Vec<Value> {
    steps
        .into_iter()
        .filter_map(|s| match s {
            Step::Update(u) => Some(u),
            _ => None,
        })
        .collect()
}

#[test]
fn a_tool_call_goes_pending_in_progress_completed_with_its_diff() {
    let mut t = Translator::new("/w", true);
    let input = json!({"path": "a.rs", "old_text": "a", "new_text": "b"});
    let call = updates(t.steps(started("call_1", "edit", input)));
    assert_eq!(call[0]["kind"], "edit");
    assert_eq!(call[0]["status"], "pending");
    assert_eq!(call[0]["locations"][0]["path"], "/w/a.rs");
    let done = updates(t.steps(Event::ToolFinished(ToolFinished {
        call_id: "call_1".into(),
        status: ToolStatus::Ok,
        output: "edited".into(),
        diff: None,
        before: None,
    })));
    assert_eq!(done[0]["status"], "in_progress");
    assert_eq!(done[1]["status"], "completed");
    assert_eq!(
        done[1]["content"][1],
        json!({"type": "diff", "path": "/w/a.rs", "oldText": "a", "newText": "b"})
    );
}

#[test]
fn a_writes_diff_is_created_only_when_its_file_was_absent() {
    let content = json!({"path": "notes.txt", "content": "NEW-LINE-2\n"});
    let replaced = FileBefore::Text {
        text: "OLD-LINE-1\n".into(),
    };
    let cases = [
        (Some(replaced), Some(json!("OLD-LINE-1\n"))),
        (Some(FileBefore::Absent), Some(Value::Null)),
        (Some(FileBefore::Unshown), None),
        (None, None),
    ];
    for (before, old_text) in cases {
        let mut t = Translator::new("/w", true);
        t.steps(started("call_1", "write", content.clone()));
        let done = updates(t.steps(Event::ToolFinished(ToolFinished {
            call_id: "call_1".into(),
            status: ToolStatus::Ok,
            output: "Wrote 11 bytes to notes.txt".into(),
            diff: None,
            before: before.clone(),
        })));
        let shown = &done.last().unwrap()["content"];
        let expected = old_text.map(|old| {
            json!({"type": "diff", "path": "/w/notes.txt", "oldText": old,
                "newText": "NEW-LINE-2\n"})
        });
        assert_eq!(shown.get(1), expected.as_ref(), "{before:?}");
    }
}

#[test]
fn a_denied_call_fails_and_output_streams() {
    let mut t = Translator::new("/w", true);
    t.steps(started("call_1", "bash", json!({"command": "ls"})));
    t.steps(Event::PermissionRequested(PermissionRequested {
        id: "perm_1".into(),
        call_id: "call_1".into(),
        tool: "bash".into(),
        title: "ls".into(),
        detail: "ls".into(),
        always_rule: "bash(ls)".into(),
        diff: None,
    }));
    let granted = t.steps(Event::PermissionResolved(PermissionResolved {
        id: "perm_1".into(),
        reply: PermissionReply::Once,
        by: ResolvedBy::Client,
    }));
    assert_eq!(granted[0], Step::Settled("perm_1".into()));
    assert_eq!(updates(granted)[0]["status"], "in_progress");
    for chunk in ["a", "b"] {
        let grew = t.steps(Event::ToolOutputDelta(ToolOutputDelta {
            call_id: "call_1".into(),
            stream: OutputStream::Stdout,
            chunk: chunk.into(),
        }));
        assert_eq!(grew, [Step::OutputGrew]);
    }
    let shown = t.running_output();
    assert_eq!(shown[0]["content"][0]["content"]["text"], "ab");
    assert!(t.running_output().is_empty(), "nothing new");
    t.steps(started(
        "call_2",
        "write",
        json!({"path": "/x", "content": "c"}),
    ));
    let failed = updates(t.steps(Event::ToolFinished(ToolFinished {
        call_id: "call_2".into(),
        status: ToolStatus::Denied,
        output: "denied".into(),
        diff: None,
        before: None,
    })));
    assert_eq!(failed.last().unwrap()["status"], "failed");
    assert_eq!(
        failed.last().unwrap()["content"].as_array().unwrap().len(),
        1
    );
}

/// The `toolCall` of the prompt for `input` of `tool`, whose `permission_requested`
/// carries `diff`.
fn asked(tool: &str, input: Value, diff: Option<String>) -> Value {
    let mut t = Translator::new("/w", true);
    t.steps(started("call_1", tool, input));
    let steps = t.steps(Event::PermissionRequested(PermissionRequested {
        id: "perm_1".into(),
        call_id: "call_1".into(),
        tool: tool.into(),
        title: format!("{tool} notes.txt"),
        detail: "notes.txt".into(),
        always_rule: format!("{tool}(notes.txt)"),
        diff,
    }));
    match &steps[..] {
        [Step::Ask { tool_call, .. }] => tool_call.clone(),
        other => panic!("not one question: {other:?}"),
    }
}

#[test]
fn a_prompt_for_a_write_or_an_edit_carries_its_change_as_acp_diff_content() {
    use crate::guided_review::unified::file_diff;
    let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let new = old.replace("line 12\n", "twelve\n");
    let write = json!({"path": "notes.txt", "content": new});
    let diff = file_diff("notes.txt", Some(&old), &new);
    let call = asked("write", write.clone(), Some(diff));
    assert_eq!(call["content"][0]["content"]["text"], "notes.txt");
    assert_eq!(
        call["content"][1],
        json!({"type": "diff", "path": "/w/notes.txt", "oldText": old, "newText": new}),
        "the whole old text, from the diff and the new one"
    );
    let create = json!({"path": "notes.txt", "content": "fresh\n"});
    let diff = file_diff("notes.txt", None, "fresh\n");
    assert_eq!(
        asked("write", create, Some(diff))["content"][1],
        json!({"type": "diff", "path": "/w/notes.txt", "oldText": null, "newText": "fresh\n"})
    );
    let edit = json!({"path": "notes.txt", "old_text": "line 12", "new_text": "twelve"});
    let diff = file_diff("notes.txt", Some(&old), &new);
    assert_eq!(
        asked("edit", edit.clone(), Some(diff))["content"][1],
        json!({"type": "diff", "path": "/w/notes.txt", "oldText": "line 12",
            "newText": "twelve"})
    );
    // No diff (the file cannot be shown), or one that does not fit the write: text only.
    assert_eq!(
        asked("edit", edit, None)["content"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let misfit = "--- a/notes.txt\n+++ b/notes.txt\n@@ -90,1 +90,1 @@\n-a\n+b\n";
    let call = asked("write", write, Some(misfit.into()));
    assert_eq!(call["content"].as_array().map(Vec::len), Some(1));
}

/// What [`Tail::shown`] must be for output `full`: all of it, or its end from the first
/// character boundary within the last [`RUNNING_TAIL_BYTES`], after the count left out.
fn tail_of(full: &str) -> String {
    let at = boundary_after(full, full.len().saturating_sub(RUNNING_TAIL_BYTES));
    match at {
        0 => full.to_owned(),
        at => format!("[{at} bytes of earlier output not shown]\n{}", &full[at..]),
    }
}

fn shows_the_tail(chunks: Vec<(String, u16)>) -> bool {
    let mut tail = Tail::default();
    let mut full = String::new();
    for (chunk, times) in chunks {
        // Long chunks too: up to about 40 KiB each.
        let chunk = chunk.repeat(usize::from(times % 600));
        tail.push(&chunk);
        full.push_str(&chunk);
        let shown = tail.shown();
        if shown != tail_of(&full) || tail.text.len() > 2 * RUNNING_TAIL_BYTES + chunk.len() {
            return false;
        }
    }
    true
}

#[test]
fn property_a_running_call_shows_the_end_of_its_output() {
    quickcheck::QuickCheck::new()
        .tests(300)
        .quickcheck(shows_the_tail as fn(Vec<(String, u16)>) -> bool);
    let mut tail = Tail::default();
    for _ in 0..10_000 {
        tail.push("é-line\n");
    }
    let shown = tail.shown();
    assert!(shown.starts_with("[71"), "{}", &shown[..40]);
    assert!(shown.len() <= RUNNING_TAIL_BYTES + 50 && shown.ends_with("é-line\n"));
}

#[test]
fn deltas_are_chunks() {
    let mut t = Translator::new("/w", true);
    let steps = t.steps(Event::ThinkingDelta(TokenDelta {
        block: 0,
        delta: "hm".into(),
    }));
    assert_eq!(steps, [Step::Chunk(ChunkKind::Thought, "hm".into())]);
}
