//! The io jobs on their own: which effect each call begins with, what every result means,
//! that an edit writes through the file it read, and that hidden paths are no search result.

use super::*;
use crate::permissions::{Permissions, RuleSet};
use crate::protocol::events::ToolOutputDelta;
use crate::protocol::values::PermissionMode;

const CWD: &str = "/work/p";
const ID: EffectId = EffectId(7);

fn cx(redactor: &Redactor) -> Context<'_> {
    Context {
        cwd: CWD,
        redactor,
        bash_timeout: Duration::from_secs(120),
        tool_env_unset: &[],
    }
}

fn gate() -> ToolGate {
    let permissions = Permissions::new(PermissionMode::Default, RuleSet::default());
    ToolGate::new(CWD, permissions, Vec::new(), Vec::new())
}

/// The job of `args` on an `opened` file that exists.
fn begin(args: ToolArgs, opened: &mut Option<EffectId>) -> (Output, Work) {
    begin_on(args, opened, true)
}

fn begin_on(args: ToolArgs, opened: &mut Option<EffectId>, exists: bool) -> (Output, Work) {
    let redactor = Redactor::default();
    match Work::begin(args, ID, opened, exists, &cx(&redactor)) {
        Begun::Io(output, work) => (output, work),
        Begun::Not(args) => panic!("{args:?} is io work"),
    }
}

fn take(work: &mut Work, input: Input<'_>) -> Progress {
    work.take(input, ID, "call_1", &gate(), &Redactor::default())
}

fn ended(progress: Progress) -> Done {
    match progress {
        Progress::Done(done) => done,
        other => panic!("not done: {other:?}"),
    }
}

fn content(text: &str) -> FileContent {
    FileContent::whole(text.as_bytes().to_vec())
}

#[test]
fn a_read_goes_through_the_opened_file_and_takes_it() {
    let mut opened = Some(EffectId(3));
    let read = ToolArgs::Read {
        path: "a.txt".into(),
        offset: None,
        limit: None,
    };
    let (output, mut work) = begin(read, &mut opened);
    assert!(matches!(
        output,
        Output::ReadOpened {
            id: ID,
            handle: EffectId(3),
            ..
        }
    ));
    assert_eq!(opened, None, "its last use");
    let other = take(
        &mut work,
        Input::FileRead {
            id: EffectId(8),
            result: Ok(content("x")),
        },
    );
    assert!(matches!(other, Progress::Unrelated), "another effect's");
    let done = ended(take(
        &mut work,
        Input::FileRead {
            id: ID,
            result: Ok(content("hello\n")),
        },
    ));
    assert_eq!(done.status, ToolStatus::Ok);
    assert!(done.text.contains("hello"), "{}", done.text);
    assert_eq!(done.changed, None);
}

#[test]
fn an_edit_reads_then_writes_through_the_same_file_with_its_diff() {
    let mut opened = Some(EffectId(3));
    let edit = ToolArgs::Edit {
        path: "a.txt".into(),
        old_text: "hello".into(),
        new_text: "bye".into(),
        replace_all: false,
    };
    let (output, mut work) = begin(edit, &mut opened);
    assert!(matches!(output, Output::ReadOpened { .. }));
    assert_eq!(opened, Some(EffectId(3)), "kept for the write");
    let Progress::Write { path, bytes, then } = take(
        &mut work,
        Input::FileRead {
            id: ID,
            result: Ok(content("hello world\n")),
        },
    ) else {
        panic!("an edit that applies is written");
    };
    assert_eq!(path, "/work/p/a.txt");
    assert_eq!(bytes, b"bye world\n");
    let write = write_output(EffectId(9), path, bytes, &mut opened);
    assert!(matches!(
        write,
        Output::ReplaceOpened {
            handle: EffectId(3),
            ..
        }
    ));
    let done = written(*then);
    assert_eq!(done.status, ToolStatus::Ok);
    assert_eq!(done.text, "Edited a.txt: 1 replacement(s)");
    assert_eq!(done.changed.as_deref(), Some("a.txt"));
    let change = done.change.expect("an edit's change");
    assert_eq!(
        change.diff.as_deref(),
        Some("--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-hello world\n+bye world\n"),
        "the lines the edit changed, as they are in the file"
    );
    assert_eq!(change.before, None, "an edit's change is its texts");
}

/// The write job's end once its write (effect 9) succeeded.
fn written(then: Work) -> Done {
    let mut then = then;
    ended(then.take(
        Input::FileWritten {
            id: EffectId(9),
            result: Ok(()),
        },
        EffectId(9),
        "call_1",
        &gate(),
        &Redactor::default(),
    ))
}

fn write_args(content: &str) -> ToolArgs {
    ToolArgs::Write {
        path: "notes.txt".into(),
        content: content.into(),
    }
}

#[test]
fn a_write_over_a_file_reads_what_it_replaces_through_the_same_file_first() {
    let mut opened = Some(EffectId(3));
    let (output, mut work) = begin(write_args("NEW-LINE-2\n"), &mut opened);
    assert!(
        matches!(
            output,
            Output::ReadOpened {
                id: ID,
                handle: EffectId(3),
                ..
            }
        ),
        "{output:?}"
    );
    assert_eq!(opened, Some(EffectId(3)), "kept for the write");
    let Progress::Write { path, bytes, then } = take(
        &mut work,
        Input::FileRead {
            id: ID,
            result: Ok(content("OLD-LINE-1\n")),
        },
    ) else {
        panic!("a write is written whatever it replaced");
    };
    assert_eq!(path, "/work/p/notes.txt");
    assert_eq!(bytes, b"NEW-LINE-2\n");
    let done = written(*then);
    assert_eq!(done.text, "Wrote 11 bytes to notes.txt");
    let change = done.change.expect("a write's change");
    let before = FileBefore::Text {
        text: "OLD-LINE-1\n".into(),
    };
    assert_eq!(change.before, Some(before));
    assert_eq!(
        change.diff.as_deref(),
        Some("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-OLD-LINE-1\n+NEW-LINE-2\n")
    );
}

#[test]
fn a_write_of_a_new_file_says_it_was_absent_and_reads_nothing() {
    let mut opened = Some(EffectId(3));
    let (output, work) = begin_on(write_args("hello\n"), &mut opened, false);
    assert!(
        matches!(
            output,
            Output::ReplaceOpened {
                id: ID,
                handle: EffectId(3),
                ..
            }
        ),
        "{output:?}"
    );
    let mut work = work;
    let done = ended(take(
        &mut work,
        Input::FileWritten {
            id: ID,
            result: Ok(()),
        },
    ));
    let change = done.change.expect("a write's change");
    assert_eq!(change.before, Some(FileBefore::Absent));
    assert_eq!(
        change.diff.as_deref(),
        Some("--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,1 @@\n+hello\n")
    );
}

#[test]
fn a_write_over_a_file_it_cannot_show_still_writes_and_claims_nothing() {
    let large = FileContent {
        bytes: b"abc".to_vec(),
        total_len: 10 * 1024 * 1024,
        identity: None,
    };
    let binary = FileContent::whole(vec![0xff, 0xfe, 0]);
    for read in [Ok(large), Ok(binary), Err("permission denied".to_owned())] {
        let mut opened = Some(EffectId(3));
        let (_, mut work) = begin(write_args("x"), &mut opened);
        let Progress::Write { bytes, then, .. } = take(
            &mut work,
            Input::FileRead {
                id: ID,
                result: read,
            },
        ) else {
            panic!("written all the same");
        };
        assert_eq!(bytes, b"x");
        let change = written(*then).change.expect("a write's change");
        assert_eq!(change.before, Some(FileBefore::Unshown));
        assert_eq!(change.diff, None, "no diff of what is not shown");
    }
}

#[test]
fn an_edit_of_a_file_too_large_or_not_text_or_without_the_text_writes_nothing() {
    let edit = || ToolArgs::Edit {
        path: "a.txt".into(),
        old_text: "hello".into(),
        new_text: "bye".into(),
        replace_all: false,
    };
    let cut = FileContent {
        total_len: 99,
        ..content("hello")
    };
    let binary = FileContent::whole(vec![0xff, 0xfe]);
    for (read, why) in [
        (cut, "a.txt is larger than 4 MiB"),
        (binary, "a.txt is not UTF-8 text"),
        (content("nothing here"), "old_text"),
    ] {
        let (_, mut work) = begin(edit(), &mut None);
        let done = ended(take(
            &mut work,
            Input::FileRead {
                id: ID,
                result: Ok(read),
            },
        ));
        assert_eq!(done.status, ToolStatus::Error);
        assert!(done.text.contains(why), "{}", done.text);
        assert_eq!(done.changed, None);
    }
}

#[test]
fn a_write_that_fails_changes_nothing_and_says_why() {
    let write = ToolArgs::Write {
        path: "b.txt".into(),
        content: "x".into(),
    };
    let (output, mut work) = begin(write, &mut None);
    assert!(matches!(output, Output::WriteFile { ref path, .. } if path == "/work/p/b.txt"));
    let done = ended(take(
        &mut work,
        Input::FileWritten {
            id: ID,
            result: Err("disk full".into()),
        },
    ));
    assert_eq!(
        (done.status, done.text.as_str()),
        (ToolStatus::Error, "disk full")
    );
    assert_eq!(done.changed, None);
}

#[test]
fn a_command_shows_its_output_and_times_out_once() {
    let bash = ToolArgs::Bash {
        command: "seq 3".into(),
        timeout_ms: Some(50),
    };
    let (output, mut work) = begin(bash, &mut None);
    assert!(matches!(output, Output::Spawn { ref program, .. } if program == "bash"));
    assert!(work.is_command());
    assert_eq!(work.limit(), Some(Duration::from_millis(50)));
    let shown = take(
        &mut work,
        Input::ProcessOutput {
            id: ID,
            stream: Stream::Stdout,
            bytes: b"1\n",
        },
    );
    let Progress::Shown(Event::ToolOutputDelta(ToolOutputDelta { chunk, .. })) = shown else {
        panic!("output shows as it comes: {shown:?}");
    };
    assert_eq!(chunk, "1\n");
    assert!(work.time_out(), "the first time");
    assert!(!work.time_out(), "only once");
    assert_eq!(work.limit(), None, "no deadline once it ran out");
    let done = ended(take(
        &mut work,
        Input::ProcessExited {
            id: ID,
            status: Ok(None),
        },
    ));
    assert_ne!(done.status, ToolStatus::Ok);
    assert!(done.text.contains("1\n"), "{}", done.text);
}

#[test]
fn hidden_paths_are_no_search_or_listing_result() {
    let grep = ToolArgs::Grep {
        pattern: "TOKEN".into(),
        path: None,
        glob: None,
        case_insensitive: false,
    };
    let (_, mut work) = begin(grep, &mut None);
    let hit = |path: &str| crate::effects::SearchHit {
        path: path.into(),
        line: 1,
        text: "TOKEN=x".into(),
    };
    let done = ended(take(
        &mut work,
        Input::SearchDone {
            id: ID,
            result: Ok(vec![hit(".env"), hit("src/a.rs")]),
        },
    ));
    assert!(done.text.contains("src/a.rs"), "{}", done.text);
    assert!(!done.text.contains(".env"), "{}", done.text);
    let glob = ToolArgs::Glob {
        pattern: "*".into(),
        path: None,
    };
    let (_, mut work) = begin(glob, &mut None);
    let done = ended(take(
        &mut work,
        Input::FilesListed {
            id: ID,
            result: Ok(vec!["sub/.env.local".into(), "README.md".into()]),
        },
    ));
    assert!(done.text.contains("README.md"), "{}", done.text);
    assert!(!done.text.contains(".env"), "{}", done.text);
}

#[test]
fn questions_plans_and_mcp_calls_are_no_io_work() {
    let redactor = Redactor::default();
    let plan = ToolArgs::UpdatePlan {
        entries: Vec::new(),
    };
    assert!(matches!(
        Work::begin(plan, ID, &mut Some(EffectId(3)), true, &cx(&redactor)),
        Begun::Not(ToolArgs::UpdatePlan { .. })
    ));
}
