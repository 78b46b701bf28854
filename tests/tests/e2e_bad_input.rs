//! Bad input never ends the session and gets exactly one answer (design §1), end to end.

use std::io::Write;

use luxe_tests::process::{LuxeProcess, Workspace};

fn started(ws: &Workspace) -> LuxeProcess {
    let mut luxe = LuxeProcess::spawn(ws.luxe());
    luxe.expect("ready");
    luxe.expect("state_changed");
    luxe
}

#[test]
fn steer_turn_without_text_gets_the_seeds_exact_reason() {
    let ws = Workspace::new();
    let mut luxe = started(&ws);
    luxe.send(r#"{"kind":"steer_turn","content":{}}"#);
    let rejected = luxe.expect("action_rejected");
    assert_eq!(
        rejected,
        serde_json::json!({"kind": "steer_turn", "reason": "steer_turn: missing field `text`"})
    );
}

#[test]
fn ten_thousand_garbage_lines_then_a_valid_frame() {
    let ws = Workspace::new();
    let mut luxe = started(&ws);
    let garbage = [
        "not json",
        "{",
        "[]",
        "42",
        r#"{"kind":5}"#,
        r#"{"content":{}}"#,
        r#"{"kind":"warp_drive"}"#,
        r#"{"kind":"set_mode","content":{"mode":"ludicrous"}}"#,
        "\u{7f}\u{1}{{{",
        r#"{"kind":"close","content":"now"}"#,
    ];
    // 9,999 patterned lines and one that is not UTF-8: 10,000 in all, then a valid frame.
    let mut batch = Vec::new();
    for i in 0..9_999 {
        batch.extend_from_slice(garbage[i % garbage.len()].as_bytes());
        batch.push(b'\n');
    }
    batch.extend_from_slice(b"\xff\xfe\n");
    batch.extend_from_slice(br#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
    batch.push(b'\n');
    luxe.send_raw(&batch);
    for i in 0..10_000 {
        let frame = luxe.recv();
        assert_eq!(frame["kind"], "action_rejected", "line {i}: {frame}");
    }
    assert_eq!(luxe.expect("state_changed")["mode"], "plan");
    luxe.send(r#"{"kind":"close"}"#);
    luxe.expect_stdout_closed();
    assert_eq!(luxe.wait().0.code(), Some(0));
}

#[test]
fn each_row_of_the_bad_input_table() {
    let ws = Workspace::new();
    let mut luxe = started(&ws);
    let rows: [(&[u8], serde_json::Value); 7] = [
        (b"{oops", serde_json::Value::Null),
        (b"\"a string\"", serde_json::Value::Null),
        (b"{\"kind\":\"\xc3\x28\"}", serde_json::Value::Null),
        (
            br#"{"kind":"nope","content":{"request_id":"r7"}}"#,
            "nope".into(),
        ),
        (
            br#"{"kind":"set_thinking","content":{"thinking":"max"}}"#,
            "set_thinking".into(),
        ),
        (
            br#"{"kind":"restack","content":{"request_id":"r1"}}"#,
            "restack".into(),
        ),
        // Two `kind`s: taken by neither, not by the last.
        (
            br#"{"kind":"set_mode","content":{"mode":"plan"},"kind":"close"}"#,
            serde_json::Value::Null,
        ),
    ];
    for (line, kind) in rows {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        luxe.send_raw(&bytes);
        let rejected = luxe.expect("action_rejected");
        assert_eq!(rejected["kind"], kind, "{}", String::from_utf8_lossy(line));
    }
    // Blank lines and a CRLF line: nothing for the blanks, an answer for the frame.
    luxe.send_raw(b"\n   \n\r\n{\"kind\":\"set_mode\",\"content\":{\"mode\":\"plan\"}}\r\n");
    assert_eq!(luxe.expect("state_changed")["mode"], "plan");
}

#[test]
fn request_id_is_echoed_and_gated_kinds_say_why() {
    let ws = Workspace::new();
    let mut luxe = started(&ws);
    luxe.send(r#"{"kind":"open_stack","content":{"request_id":"m1"}}"#);
    let rejected = luxe.expect("action_rejected");
    assert_eq!(rejected["request_id"], "m1");
    assert_eq!(
        rejected["reason"],
        "GitHub writes are off: start luxe with --github-writes"
    );
    luxe.send(r#"{"kind":"merge_pull_request","content":{"request_id":"g1","number":3,"method":"squash"}}"#);
    let rejected = luxe.expect("action_rejected");
    assert_eq!(rejected["request_id"], "g1");
    assert_eq!(
        rejected["reason"],
        "GitHub writes are off: start luxe with --github-writes"
    );
}

#[test]
fn a_line_over_8_mib_is_refused_without_being_buffered() {
    let ws = Workspace::new();
    let mut luxe = started(&ws);
    let before = peak_rss_kib(luxe.pid());
    // 64 MiB in one line, written in pieces: luxe must skip it, not hold it.
    let piece = vec![b'x'; 1024 * 1024];
    for _ in 0..64 {
        luxe.send_raw(&piece);
    }
    luxe.send_raw(b"\n");
    let rejected = luxe.expect("action_rejected");
    assert_eq!(
        rejected,
        serde_json::json!({"kind": null, "reason": "frame too long"})
    );
    let after = peak_rss_kib(luxe.pid());
    assert!(
        after < before + 24 * 1024,
        "peak RSS grew from {before} KiB to {after} KiB for a skipped line"
    );
    // Exactly at the limit is accepted as a line (here: a malformed one).
    let mut at_limit = vec![b' '; 8 * 1024 * 1024 - 2];
    at_limit.extend_from_slice(b"{}\n");
    luxe.send_raw(&at_limit);
    let rejected = luxe.expect("action_rejected");
    assert_eq!(
        rejected["reason"],
        "malformed frame: missing string field `kind`"
    );
    luxe.send(r#"{"kind":"set_mode","content":{"mode":"plan"}}"#);
    assert_eq!(luxe.expect("state_changed")["mode"], "plan");
}

#[test]
fn a_closed_stdout_ends_luxe_quietly_with_a_failure_status() {
    let ws = Workspace::new();
    let mut child = ws
        .luxe()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // Writes may fail once luxe is gone; that is the point.
    for _ in 0..100 {
        if stdin.write_all(b"garbage\n").is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        out.status.code().is_some(),
        "killed by a signal: {:?}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}
