//! What a write and an edit show of their change: the permission prompt's diff against the
//! file as it is when asked (read for it, or known for a file the write creates), the diff of
//! `tool_finished` against the file as the call found it when it ran, both numbered as in the
//! file and redacted; and a prompt without a diff saying why.

use quickcheck::{Arbitrary, Gen, QuickCheck};

use super::*;

/// `n` numbered lines, `line 1` to `line n`.
fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// The content of the one frame of `kind` among `outputs`, as core made it (before the frame
/// gate, so that the redaction checked is the tool run's own).
fn event(outputs: &[Output], kind: &str) -> Value {
    let found: Vec<Value> = outputs
        .iter()
        .filter_map(|output| match output {
            Output::Frame(frame) if frame.event().kind() == kind => Some(
                serde_json::to_value(frame.event()).expect("an event is JSON")["content"].clone(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "one {kind} in {:?}", Bench::events(outputs));
    found[0].clone()
}

/// The id of the one replacement among `outputs`.
fn replacement(outputs: &[Output]) -> EffectId {
    let ids: Vec<EffectId> = outputs
        .iter()
        .filter_map(|output| match output {
            Output::ReplaceOpened { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 1, "one replacement in {outputs:?}");
    ids[0]
}

/// A call on `a.txt` started and its file opened (`exists`: it is there).
fn opened(bench: &mut Bench, name: &str, input: Value, exists: bool) -> ToolStep<Ms> {
    let mut tools = step(&[(name, input)]);
    let _ = tools.run_next(&mut bench.desk(), Ms(0));
    let open = effect(&bench.outputs(), "open");
    let opened = Opened {
        path: format!("{CWD}/a.txt"),
        identity: exists.then_some(FileIdentity { dev: 1, ino: 2 }),
        kind: exists.then_some(FileKind::Regular),
    };
    let input = Input::FileOpened {
        id: open,
        result: Ok(opened),
    };
    let _ = tools.handle(&mut bench.desk(), Ms(1), input);
    tools
}

/// io's read of the file, answering the one read among `outputs`.
fn read(tools: &mut ToolStep<Ms>, bench: &mut Bench, outputs: &[Output], text: &str) -> Then {
    let input = Input::FileRead {
        id: effect(outputs, "read"),
        result: Ok(FileContent::whole(text.as_bytes().to_vec())),
    };
    tools.handle(&mut bench.desk(), Ms(2), input)
}

fn once(tools: &mut ToolStep<Ms>, bench: &mut Bench) {
    let reply = RespondPermission {
        id: "perm_1".into(),
        reply: PermissionReply::Once,
        message: None,
    };
    let need = tools.respond_permission(&mut bench.desk(), Ms(3), reply);
    assert!(matches!(need, Ok(Then::Nothing)), "{need:?}");
}

/// The write the call makes succeeds.
fn written(tools: &mut ToolStep<Ms>, bench: &mut Bench, outputs: &[Output]) -> Answered {
    let input = Input::FileWritten {
        id: replacement(outputs),
        result: Ok(()),
    };
    answered(tools.handle(&mut bench.desk(), Ms(5), input))
}

#[test]
fn an_edit_is_asked_about_with_its_diff_and_ends_with_the_diff_of_the_file_it_found() {
    let mut bench = Bench::new(Mode::Build);
    let edit = json!({"path": "a.txt", "old_text": "line 10\n", "new_text": "ten\n"});
    let mut tools = opened(&mut bench, "edit", edit, true);
    let outputs = bench.outputs();
    assert_eq!(
        Bench::events(&outputs),
        [] as [&str; 0],
        "asked once the file is read"
    );
    // Line 9 holds a `.env` value: the diff shows it redacted, numbered as in the file.
    let file = numbered(20).replace("line 9\n", "line 9 s3cret-value\n");
    assert!(matches!(
        read(&mut tools, &mut bench, &outputs, &file),
        Then::Nothing
    ));
    let outputs = bench.outputs();
    let asked = event(&outputs, "permission_requested");
    assert_eq!(
        asked["diff"],
        "--- a/a.txt\n+++ b/a.txt\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9 [redacted]\n-line 10\n+ten\n line 11\n line 12\n line 13\n"
    );
    assert_eq!(
        (asked["title"].as_str(), asked["detail"].as_str()),
        (Some("edit a.txt"), Some("a.txt"))
    );
    once(&mut tools, &mut bench);
    // The call reads the file again: two lines were added at its top meanwhile.
    let outputs = bench.outputs();
    assert_eq!(Bench::events(&outputs), ["permission_resolved"]);
    let file = format!("new 1\nnew 2\n{}", numbered(20));
    assert!(matches!(
        read(&mut tools, &mut bench, &outputs, &file),
        Then::Nothing
    ));
    let outputs = bench.outputs();
    let answered = written(&mut tools, &mut bench, &outputs);
    assert!(answered.changed_files);
    let finished = event(&bench.outputs(), "tool_finished");
    assert_eq!(finished["status"], "ok");
    assert_eq!(
        finished["diff"],
        "--- a/a.txt\n+++ b/a.txt\n@@ -9,7 +9,7 @@\n line 7\n line 8\n line 9\n-line 10\n+ten\n line 11\n line 12\n line 13\n"
    );
}

#[test]
fn a_write_over_a_file_is_asked_about_with_the_line_diff_of_the_two_texts() {
    let mut bench = Bench::new(Mode::Build);
    let old = numbered(12);
    let new = old
        .replace("line 2\n", "two\n")
        .replace("line 12\n", "twelve");
    let write = json!({"path": "a.txt", "content": new});
    let mut tools = opened(&mut bench, "write", write, true);
    let outputs = bench.outputs();
    assert!(matches!(
        read(&mut tools, &mut bench, &outputs, &old),
        Then::Nothing
    ));
    let expected = "--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n@@ -9,4 +9,4 @@\n line 9\n line 10\n line 11\n-line 12\n+twelve\n\\ No newline at end of file\n";
    assert_eq!(
        event(&bench.outputs(), "permission_requested")["diff"],
        expected
    );
    once(&mut tools, &mut bench);
    let outputs = bench.outputs();
    assert!(matches!(
        read(&mut tools, &mut bench, &outputs, &old),
        Then::Nothing
    ));
    let outputs = bench.outputs();
    written(&mut tools, &mut bench, &outputs);
    let finished = event(&bench.outputs(), "tool_finished");
    assert_eq!(finished["diff"], expected);
    assert_eq!(finished["before"], json!({"kind": "text", "text": old}));
}

#[test]
fn a_write_that_creates_its_file_is_asked_about_at_once_with_every_line_added() {
    let mut bench = Bench::new(Mode::Build);
    let write = json!({"path": "a.txt", "content": "one\ntwo\n"});
    let mut tools = opened(&mut bench, "write", write, false);
    let outputs = bench.outputs();
    assert!(
        !outputs
            .iter()
            .any(|o| matches!(o, Output::ReadOpened { .. })),
        "nothing to read"
    );
    let created = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n";
    assert_eq!(event(&outputs, "permission_requested")["diff"], created);
    once(&mut tools, &mut bench);
    let outputs = bench.outputs();
    written(&mut tools, &mut bench, &outputs);
    let finished = event(&bench.outputs(), "tool_finished");
    assert_eq!(
        (&finished["diff"], &finished["before"]),
        (&json!(created), &json!({"kind": "absent"}))
    );
}

#[test]
fn a_prompt_without_a_diff_says_why_and_the_call_runs_as_before() {
    // An edit whose old_text is not in the file is still asked about; approved, it reads the
    // file again and fails as it always has.
    let mut bench = Bench::new(Mode::Build);
    let edit = json!({"path": "a.txt", "old_text": "absent", "new_text": "x"});
    let mut tools = opened(&mut bench, "edit", edit, true);
    let outputs = bench.outputs();
    let _ = read(&mut tools, &mut bench, &outputs, "line 1\n");
    let asked = event(&bench.outputs(), "permission_requested");
    assert_eq!(asked.get("diff"), None);
    assert_eq!(
        asked["detail"],
        "a.txt\nThe change is not shown: old_text was not found in the file (it must match exactly, whitespace included)"
    );
    once(&mut tools, &mut bench);
    let outputs = bench.outputs();
    let answered = answered(read(&mut tools, &mut bench, &outputs, "line 1\n"));
    assert!(
        results(&answered)[0]
            .1
            .starts_with("old_text was not found")
    );

    // A file too large, not text, or unreadable.
    let large = FileContent {
        bytes: b"line 1\n".to_vec(),
        total_len: 5 << 20,
        identity: None,
    };
    let cases = [
        (Ok(large), "a.txt is larger than 4 MiB"),
        (
            Ok(FileContent::whole(vec![0xff, 0xfe])),
            "a.txt is not UTF-8 text",
        ),
        (
            Err("the file changed".to_owned()),
            "a.txt could not be read: the file changed",
        ),
    ];
    for (result, why) in cases {
        let mut bench = Bench::new(Mode::Build);
        let write = json!({"path": "a.txt", "content": "x"});
        let mut tools = opened(&mut bench, "write", write, true);
        let id = effect(&bench.outputs(), "read");
        let _ = tools.handle(&mut bench.desk(), Ms(2), Input::FileRead { id, result });
        let asked = event(&bench.outputs(), "permission_requested");
        assert_eq!(asked.get("diff"), None, "{why}");
        assert_eq!(
            asked["detail"],
            format!("a.txt\nThe change is not shown: {why}")
        );
    }
}

#[test]
fn an_interrupt_while_the_file_is_read_for_the_prompt_ends_the_call_without_a_prompt() {
    let mut bench = Bench::new(Mode::Build);
    let edit = json!({"path": "a.txt", "old_text": "a", "new_text": "b"});
    let tools = opened(&mut bench, "edit", edit, true);
    effect(&bench.outputs(), "read");
    let interrupted = tools.interrupt(&mut bench.outbox, |_, _| panic!("no MCP call runs"));
    let outputs = bench.outputs();
    assert_eq!(
        Bench::events(&outputs),
        ["tool_finished"],
        "no prompt was open"
    );
    assert!(
        outputs
            .iter()
            .any(|o| matches!(o, Output::CloseOpened { .. })),
        "{outputs:?}"
    );
    assert_eq!(
        results(&interrupted.answered)[0].1,
        "interrupted by the user"
    );
}

#[test]
fn under_auto_approve_the_prompt_with_its_diff_is_approved_as_it_opens() {
    let mut bench = Bench::new(Mode::Build);
    bench.auto_approve = true;
    let edit = json!({"path": "a.txt", "old_text": "a", "new_text": "b"});
    let mut tools = opened(&mut bench, "edit", edit, true);
    let outputs = bench.outputs();
    let _ = read(&mut tools, &mut bench, &outputs, "a\n");
    let outputs = bench.outputs();
    assert_eq!(
        Bench::events(&outputs),
        ["permission_requested", "permission_resolved"]
    );
    assert!(
        event(&outputs, "permission_requested")["diff"]
            .as_str()
            .is_some_and(|d| d.ends_with("-a\n+b\n"))
    );
    effect(&outputs, "read");
}

/// A file of a few lines, a `.env` value on some of them, and the change a call makes of it.
#[derive(Debug, Clone)]
struct Change {
    lines: Vec<String>,
    /// Which line the call changes, and what it puts there.
    at: usize,
    with: String,
    /// A write (replacing the whole file) rather than an edit.
    write: bool,
}

const SECRET: &str = "s3cret-value";

impl Arbitrary for Change {
    fn arbitrary(g: &mut Gen) -> Self {
        // The value alone, inside other text, or at a line's start or end.
        let pieces = ["", "x", " ", "=", SECRET, "\"", "line"];
        let line = |g: &mut Gen| -> String {
            let n = usize::from(u8::arbitrary(g) % 4);
            (0..n).map(|_| *g.choose(&pieces).unwrap_or(&"")).collect()
        };
        let count = usize::from(u8::arbitrary(g) % 12) + 1;
        let lines: Vec<String> = (0..count).map(|i| format!("{i}:{}\n", line(g))).collect();
        Self {
            at: usize::arbitrary(g) % count,
            with: format!("new {}\n", line(g)),
            lines,
            write: bool::arbitrary(g),
        }
    }
}

/// Neither diff of a call that changes a file holding a `.env` value shows the value, in the
/// events core makes nor in the frames the client reads.
fn no_value_in_any_diff(change: Change) -> bool {
    let mut bench = Bench::new(Mode::Build);
    let old = change.lines.concat();
    let input = if change.write {
        let mut lines = change.lines.clone();
        lines[change.at] = change.with.clone();
        json!({"path": "a.txt", "content": lines.concat()})
    } else {
        json!({"path": "a.txt", "old_text": change.lines[change.at], "new_text": change.with})
    };
    let name = if change.write { "write" } else { "edit" };
    let mut tools = opened(&mut bench, name, input, true);
    // Asked once the file is read; run once approved, reading it again.
    let mut outputs = bench.outputs();
    let _ = read(&mut tools, &mut bench, &outputs, &old);
    outputs.extend(bench.outputs());
    once(&mut tools, &mut bench);
    let ran = bench.outputs();
    let _ = read(&mut tools, &mut bench, &ran, &old);
    outputs.extend(ran);
    let after = bench.outputs();
    if after
        .iter()
        .any(|o| matches!(o, Output::ReplaceOpened { .. }))
    {
        written(&mut tools, &mut bench, &after);
    }
    outputs.extend(after);
    outputs.extend(bench.outputs());
    let leaks = |kind: &str, field: &str| {
        outputs.iter().any(|output| match output {
            Output::Frame(frame) if frame.event().kind() == kind => {
                let event = serde_json::to_value(frame.event()).unwrap_or_default();
                let mut line = Vec::new();
                frame.encode(&mut line);
                event["content"][field]
                    .as_str()
                    .is_some_and(|d| d.contains(SECRET))
                    || String::from_utf8_lossy(&line).contains(SECRET)
            }
            _ => false,
        })
    };
    !leaks("permission_requested", "diff") && !leaks("tool_finished", "diff")
}

#[test]
fn property_no_env_value_shows_in_a_diff() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(no_value_in_any_diff as fn(Change) -> bool);
}
