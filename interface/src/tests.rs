//! The interface without a terminal: keys in, the protocol's actions out (what the session
//! answers shows it), events in, the screen out (snapshots of the drawn buffer at 80×24 and
//! 120×40), and a property: any keys, pastes, resizes and events never panic, and every frame
//! shows the composer and the dock.

use std::time::{Duration, Instant};

use luxe_core::Luxe;
use luxe_core::harness::test_config;
use luxe_core::protocol::events::{
    Event, PermissionRequested, QuestionAsked, QuestionOption, TokenDelta, ToolFinished,
    ToolOutputDelta, ToolStarted, ToolStatus, TurnUsage,
};
use luxe_core::protocol::github::{BranchPullRequest, Check, GithubState, WorkspaceUpdated};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::*;
use crate::keys::Mods;
use crate::transcript::Cell;

fn interface(width: u16, height: u16) -> (Interface, Instant) {
    // The only clock read: an origin for the instants these tests make up.
    let now = Instant::now();
    let luxe = Luxe::new(test_config(), now).expect("a session");
    let mut interface = Interface::new(luxe, width, height);
    drain(&mut interface);
    (interface, now)
}

/// Takes the session's outputs (the frames change the view; effects are dropped: no io here).
fn drain(interface: &mut Interface) {
    while luxe_core::Machine::poll_output(interface).is_some() {}
}

fn press(interface: &mut Interface, now: Instant, key: Key) {
    interface.handle_term(now, TermEvent::Key(key));
    drain(interface);
}

fn typed(interface: &mut Interface, now: Instant, text: &str) {
    for c in text.chars() {
        press(interface, now, Key::plain(KeyCode::Char(c)));
    }
}

fn screen(interface: &mut Interface) -> String {
    let (width, height) = interface.size;
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    interface.render(area, &mut buf);
    (0..height)
        .map(|y| {
            let row: String = (0..width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn event(interface: &mut Interface, event: Event) {
    interface.take_event(&event);
}

#[test]
fn enter_sends_and_the_session_answers_a_turn_without_a_model_with_its_error() {
    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "hello");
    press(&mut ui, now, Key::plain(KeyCode::Enter));
    let cells: Vec<&Cell> = ui.view.transcript.cells().collect();
    assert_eq!(cells[0], &Cell::User("hello".into()));
    assert!(
        matches!(cells.last(), Some(Cell::Error(e)) if e.starts_with("no model is configured")),
        "{cells:?}"
    );
    assert!(ui.composer.is_empty());
}

#[test]
fn slash_commands_change_the_session_and_an_unknown_one_reaches_no_model() {
    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "/mode plan");
    press(&mut ui, now, Key::plain(KeyCode::Enter));
    assert_eq!(ui.view.dock.mode, "plan", "state_changed came back");
    typed(&mut ui, now, "/frob");
    press(&mut ui, now, Key::plain(KeyCode::Enter));
    let last = ui.view.transcript.cells().last().cloned();
    assert!(matches!(last, Some(Cell::Error(e)) if e.contains("unknown command /frob")));
    assert!(
        !ui.view
            .transcript
            .cells()
            .any(|c| matches!(c, Cell::User(_)))
    );
}

#[test]
fn ctrl_c_clears_then_quits_within_two_seconds_and_ctrl_d_quits_when_empty() {
    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "draft");
    press(&mut ui, now, Key::ctrl('c'));
    assert!(ui.composer.is_empty() && !luxe_core::Machine::is_closed(&ui));
    assert_eq!(ui.hint.as_deref(), Some("press Ctrl+C again to quit"));
    press(&mut ui, now + Duration::from_secs(3), Key::ctrl('c'));
    assert!(
        !luxe_core::Machine::is_closed(&ui),
        "too late: a new first press"
    );
    press(&mut ui, now + Duration::from_millis(3_500), Key::ctrl('c'));
    assert!(luxe_core::Machine::is_closed(&ui));

    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "x");
    press(&mut ui, now, Key::ctrl('d'));
    assert!(!luxe_core::Machine::is_closed(&ui), "not with text written");
    press(&mut ui, now, Key::ctrl('u'));
    press(&mut ui, now, Key::ctrl('d'));
    assert!(luxe_core::Machine::is_closed(&ui));
}

#[test]
fn shift_enter_alt_enter_and_ctrl_j_write_a_new_line() {
    let (mut ui, now) = interface(80, 24);
    for mods in [
        Mods {
            shift: true,
            ..Mods::default()
        },
        Mods {
            alt: true,
            ..Mods::default()
        },
    ] {
        press(
            &mut ui,
            now,
            Key {
                code: KeyCode::Enter,
                mods,
            },
        );
    }
    press(&mut ui, now, Key::ctrl('j'));
    assert_eq!(ui.composer.shown(), "\n\n\n");
}

fn asked_permission() -> Event {
    Event::PermissionRequested(PermissionRequested {
        id: "perm_1".into(),
        call_id: "call_1".into(),
        tool: "bash".into(),
        title: "cargo test".into(),
        detail: "cargo test --workspace".into(),
        always_rule: "bash(cargo test *)".into(),
        diff: None,
    })
}

fn tool_cells(ui: &mut Interface) {
    event(ui, Event::TokenDelta(TokenDelta {
        block: 0,
        delta: "# Plan\n\nI will **run** the tests:\n- first `cargo test`\n```rust\nfn main() {}\n```\n".into(),
    }));
    event(
        ui,
        Event::ToolStarted(ToolStarted {
            call_id: "call_1".into(),
            name: "bash".into(),
            title: "bash cargo test".into(),
            input: serde_json::json!({"command": "cargo test"}),
        }),
    );
    event(
        ui,
        Event::ToolOutputDelta(ToolOutputDelta {
            call_id: "call_1".into(),
            stream: luxe_core::protocol::events::OutputStream::Stdout,
            chunk: "running 3 tests\n\u{1b}[32mok\u{1b}[0m\r\n".into(),
        }),
    );
    event(
        ui,
        Event::ToolStarted(ToolStarted {
            call_id: "call_2".into(),
            name: "edit".into(),
            title: "edit src/lib.rs".into(),
            input: serde_json::json!({"path": "src/lib.rs"}),
        }),
    );
    event(
        ui,
        Event::ToolFinished(ToolFinished {
            call_id: "call_2".into(),
            status: ToolStatus::Ok,
            output: "Edited src/lib.rs: 1 replacement(s)".into(),
            diff: Some("--- a/src/lib.rs\n+++ b/src/lib.rs\n-old();\n+new();\n".into()),
            before: None,
        }),
    );
}

fn dock(ui: &mut Interface) {
    let checks = [("build", "pass"), ("test", "fail"), ("lint", "pending")]
        .map(|(name, bucket)| Check {
            name: name.into(),
            state: bucket.to_uppercase(),
            bucket: bucket.into(),
            link: None,
        })
        .to_vec();
    event(
        ui,
        Event::WorkspaceUpdated(Box::new(WorkspaceUpdated {
            branch: Some("frobs".into()),
            head_sha: None,
            upstream: None,
            ahead: 2,
            behind: 0,
            dirty: true,
            repository: Some("acme/widgets".into()),
            github: GithubState::Ready,
            pull_request: Some(BranchPullRequest {
                number: 7,
                title: "Frob".into(),
                url: "u".into(),
                state: "OPEN".into(),
                draft: false,
                base: "main".into(),
                head: "frobs".into(),
                review_decision: Some("CHANGES_REQUESTED".into()),
                mergeable: None,
                checks,
            }),
        })),
    );
    event(
        ui,
        Event::TurnUsage(TurnUsage {
            prompt_tokens: 5018,
            completion_tokens: 26,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            reasoning_tokens: 0,
            cost_usd: Some(0.0258),
            context_tokens: 50_000,
            context_window: Some(200_000),
            session_cost_usd: Some(0.0258),
        }),
    );
}

/// Every screen the snapshots hold, drawn at one size.
fn screens(width: u16, height: u16) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let (mut ui, now) = interface(width, height);
    out.push(("idle", screen(&mut ui)));
    tool_cells(&mut ui);
    dock(&mut ui);
    out.push((
        "streaming_markdown_and_tools_with_the_dock",
        screen(&mut ui),
    ));
    event(&mut ui, asked_permission());
    out.push(("permission", screen(&mut ui)));
    press(&mut ui, now, Key::plain(KeyCode::Char('n')));
    event(
        &mut ui,
        Event::QuestionAsked(QuestionAsked {
            id: "q_1".into(),
            call_id: "call_3".into(),
            question: "Which database?".into(),
            options: vec![
                QuestionOption {
                    label: "sqlite".into(),
                    description: Some("a file".into()),
                },
                QuestionOption {
                    label: "postgres".into(),
                    description: None,
                },
            ],
            multiple: false,
        }),
    );
    out.push(("question", screen(&mut ui)));
    ui.view.question = None;
    typed(&mut ui, now, "/m");
    out.push(("slash_list", screen(&mut ui)));
    out
}

#[test]
fn screens_at_80x24_and_120x40() {
    for (width, height) in [(80, 24), (120, 40)] {
        for (name, shown) in screens(width, height) {
            insta::assert_snapshot!(format!("{name}_{width}x{height}"), shown);
        }
    }
}

/// An answer with every Markdown construct the transcript draws.
const EVERY_CONSTRUCT: &str = "# Release notes\n## What changed\nLuxe draws **bold**, *italic*, ~~old~~ and `code`; see [the docs](https://luxe.dev/docs).\n- a list item long enough to fold onto a second row at eighty columns, under its text\n  - nested\n1. first\n2. [ ] a task\n> a quote\n---\n| Flag | Meaning |\n|:-----|--------:|\n| `-p` | one turn |\n| `-c` | the last session again, with its whole conversation |\n\n```rust\nfn main() { /* a comment that\nends here */ println!(\"hi {}\", 42); }\n```\nThat is all.\n";

/// An edit whose diff has a hunk header, and a write that replaces a file.
fn edit_and_write(ui: &mut Interface) {
    let diffs = [
        (
            "call_e",
            "edit src/frob.rs",
            "--- a/src/frob.rs\n+++ b/src/frob.rs\n@@ -98,4 +98,5 @@ impl Frob {\n     fn level(&self) -> u32 {\n-        1\n+        // Two since the rewrite.\n+        2\n     }\n }\n",
        ),
        (
            "call_w",
            "write tools/gen.py",
            "--- a/tools/gen.py\n+++ b/tools/gen.py\n@@ -1,2 +1,3 @@\n-def old():\n-    pass\n+def new(x):\n+    \"\"\"Twice x.\"\"\"\n+    return x * 2  # a long line that folds under its own text, past the gutter of numbers\n",
        ),
    ];
    for (call_id, title, diff) in diffs {
        event(
            ui,
            Event::ToolStarted(ToolStarted {
                call_id: call_id.into(),
                name: title.split(' ').next().unwrap_or_default().into(),
                title: title.into(),
                input: serde_json::Value::Null,
            }),
        );
        event(
            ui,
            Event::ToolFinished(ToolFinished {
                call_id: call_id.into(),
                status: ToolStatus::Ok,
                output: String::new(),
                diff: Some(diff.into()),
                before: None,
            }),
        );
    }
}

#[test]
fn an_answer_with_every_construct_and_numbered_diffs_at_80x24_and_120x40() {
    for (width, height) in [(80, 24), (120, 40)] {
        let (mut ui, _) = interface(width, height);
        event(
            &mut ui,
            Event::TokenDelta(TokenDelta {
                block: 0,
                delta: EVERY_CONSTRUCT.into(),
            }),
        );
        insta::assert_snapshot!(format!("markdown_answer_{width}x{height}"), screen(&mut ui));
        let (mut ui, _) = interface(width, height);
        edit_and_write(&mut ui);
        insta::assert_snapshot!(
            format!("edit_and_write_diffs_{width}x{height}"),
            screen(&mut ui)
        );
    }
}

/// The answer streamed a few characters at a time ends on the screen it shows whole.
#[test]
fn an_answer_streamed_in_pieces_shows_what_it_shows_whole() {
    let (mut whole, _) = interface(80, 24);
    event(
        &mut whole,
        Event::TokenDelta(TokenDelta {
            block: 0,
            delta: EVERY_CONSTRUCT.into(),
        }),
    );
    let (mut streamed, _) = interface(80, 24);
    let chars: Vec<char> = EVERY_CONSTRUCT.chars().collect();
    for piece in chars.chunks(7) {
        event(
            &mut streamed,
            Event::TokenDelta(TokenDelta {
                block: 0,
                delta: piece.iter().collect(),
            }),
        );
        screen(&mut streamed);
    }
    assert_eq!(screen(&mut streamed), screen(&mut whole));
}

#[test]
fn a_20x6_terminal_keeps_the_composer_and_the_dock() {
    let (mut ui, _) = interface(20, 6);
    tool_cells(&mut ui);
    dock(&mut ui);
    insta::assert_snapshot!("tiny_20x6", screen(&mut ui));
}

#[test]
fn a_permission_prompt_waits_for_its_keys_and_y_reaches_the_session() {
    let (mut ui, now) = interface(80, 24);
    event(&mut ui, asked_permission());
    press(&mut ui, now, Key::plain(KeyCode::Char('x')));
    assert_eq!(ui.view.permissions.len(), 1, "other keys wait");
    press(&mut ui, now, Key::plain(KeyCode::Char('y')));
    // No such prompt in the session: it refuses, and says so on screen.
    let last = ui.view.transcript.cells().last().cloned();
    assert!(
        matches!(&last, Some(Cell::Error(e)) if e.contains("perm_1")),
        "respond_permission reached the session: {last:?}"
    );
}

/// Drawing 10,000 cells costs what drawing the visible ones costs: the cells above the screen
/// are never folded.
#[test]
fn a_long_transcript_folds_only_what_is_shown() {
    let (mut ui, _) = interface(120, 40);
    for n in 0..10_000 {
        ui.view.transcript.push(Cell::Note(format!("note {n}")));
    }
    screen(&mut ui);
    let folded = ui.view.transcript.folded_cells();
    assert!(folded < 40, "{folded} cells folded for one screen");
}

#[derive(Debug, Clone)]
enum Step {
    Key(Key),
    Paste(String),
    Resize(u16, u16),
    Answer(String),
    Tool(String),
    Wheel(bool),
    /// A list to choose from (`/sessions`' answer), a queued message, paths for an `@` word.
    Listed(Vec<String>),
    Queued(String),
    Offered(Vec<String>),
    /// A slash command that opens a sheet.
    Sheet(u8),
}

impl quickcheck::Arbitrary for Step {
    fn arbitrary(g: &mut quickcheck::Gen) -> Self {
        match u8::arbitrary(g) % 11 {
            10 => Self::Sheet(u8::arbitrary(g)),
            6 => Self::Wheel(bool::arbitrary(g)),
            7 => Self::Listed(Vec::arbitrary(g)),
            8 => Self::Queued(String::arbitrary(g)),
            9 => Self::Offered(Vec::arbitrary(g)),
            0 => Self::Paste(String::arbitrary(g)),
            1 => Self::Resize(u16::arbitrary(g) % 200, u16::arbitrary(g) % 60),
            2 => Self::Answer(String::arbitrary(g)),
            3 => Self::Tool(String::arbitrary(g)),
            4 => Self::Key(Key {
                code: *g.choose(&KeyCode::NAMED).expect("codes"),
                mods: Mods {
                    shift: bool::arbitrary(g),
                    ctrl: false,
                    alt: bool::arbitrary(g),
                },
            }),
            _ => {
                let c = *g
                    .choose(&['a', '/', 'm', ' ', '1', 'é', '日', 'y', 'n', 't', 'j', '@'])
                    .expect("c");
                Self::Key(Key {
                    code: KeyCode::Char(c),
                    mods: Mods {
                        ctrl: c == 't' || c == 'j',
                        ..Mods::default()
                    },
                })
            }
        }
    }
}

quickcheck::quickcheck! {
    fn any_steps_never_panic_and_every_frame_shows_the_composer_and_the_dock(steps: Vec<Step>) -> bool {
        let (mut ui, now) = interface(80, 24);
        for step in steps {
            match step {
                Step::Key(key) => press(&mut ui, now, key),
                Step::Paste(text) => ui.handle_term(now, TermEvent::Paste(text)),
                Step::Resize(width, height) => ui.handle_term(now, TermEvent::Resize { width, height }),
                Step::Answer(text) => event(&mut ui, Event::TokenDelta(TokenDelta { block: 0, delta: text })),
                Step::Tool(text) => {
                    event(&mut ui, Event::ToolStarted(ToolStarted {
                        call_id: "c".into(), name: "bash".into(), title: text.clone(),
                        input: serde_json::Value::Null,
                    }));
                    event(&mut ui, Event::ToolOutputDelta(ToolOutputDelta {
                        call_id: "c".into(),
                        stream: luxe_core::protocol::events::OutputStream::Stderr,
                        chunk: text,
                    }));
                }
                Step::Wheel(up) => ui.handle_term(now, TermEvent::Wheel { up }),
                Step::Sheet(which) => {
                    let line = ["/github", "/pr", "/stack", "/restack"][usize::from(which % 4)];
                    ui.composer.clear();
                    typed(&mut ui, now, line);
                    press(&mut ui, now, Key::plain(KeyCode::Enter));
                }
                Step::Listed(ids) => event(&mut ui, Event::SessionsListed(
                    luxe_core::protocol::events::SessionsListed {
                        request_id: "r".into(),
                        sessions: ids.into_iter().map(|id| luxe_core::protocol::events::SessionSummary {
                            title: id.clone(), id, updated: 0, turns: 1, cost_usd: 0.0,
                        }).collect(),
                    },
                )),
                Step::Queued(text) => event(&mut ui, Event::UserMessageQueued(
                    luxe_core::protocol::events::UserMessageQueued { text, position: 1 },
                )),
                Step::Offered(paths) => {
                    if let Some(request_id) = ui.mention.as_ref().map(|m| m.request_id.clone()) {
                        ui.composer_event(&Event::PathsCompleted(
                            luxe_core::protocol::events::PathsCompleted {
                                request_id, prefix: String::new(), paths,
                            },
                        ));
                    }
                }
            }
            let (width, height) = ui.size;
            let shown = screen(&mut ui);
            if height >= 2 && width >= 4 {
                let rows: Vec<&str> = shown.lines().collect();
                let dock = rows.last().copied().unwrap_or_default();
                // The composer is the row right above the dock: `›` alone when it is empty,
                // else one of its rows (marked `›`, or indented under it).
                let last = rows[rows.len() - 2];
                // A sheet covers the conversation: its keys take the composer's row.
                let hints = ui.sheet.as_ref().map(|s| s.hints(ui.view.writes));
                let composer = if let Some(hints) = hints {
                    hints.starts_with(last.trim_end_matches('…')) && !last.is_empty()
                } else if ui.composer.is_empty() {
                    last == "›"
                } else {
                    last.starts_with('›') || last.starts_with("  ") || last.is_empty()
                };
                if dock.is_empty() || !composer {
                    return false;
                }
            }
        }
        true
    }
}

#[test]
fn no_color_draws_without_colours() {
    let (ui, _) = interface(80, 24);
    let mut ui = ui.without_colour();
    tool_cells(&mut ui);
    let area = Rect::new(0, 0, 80, 24);
    let mut buf = Buffer::empty(area);
    ui.render(area, &mut buf);
    let coloured = buf.content.iter().any(|c| {
        c.fg != ratatui_core::style::Color::Reset || c.bg != ratatui_core::style::Color::Reset
    });
    assert!(!coloured);
}

#[test]
fn a_write_or_an_edit_waiting_for_permission_shows_its_change_numbered_as_in_the_file() {
    let (mut ui, _) = interface(80, 24);
    let diff = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -40,3 +40,3 @@\n fn lib() {\n-    old();\n+    new();\n }\n";
    event(
        &mut ui,
        Event::PermissionRequested(PermissionRequested {
            id: "perm_9".into(),
            call_id: "call_9".into(),
            tool: "edit".into(),
            title: "edit src/lib.rs".into(),
            detail: "src/lib.rs".into(),
            always_rule: "edit(src/**)".into(),
            diff: Some(diff.into()),
        }),
    );
    let shown = screen(&mut ui);
    assert!(
        shown.contains("41    -     old();"),
        "the old line's number: {shown}"
    );
    assert!(
        shown.contains("   41 +     new();"),
        "the new line's number: {shown}"
    );
    insta::assert_snapshot!("permission_for_an_edit_80x24", shown);
    // Without a diff (a file that cannot be shown), the detail says why; nothing else is made up.
    let (mut ui, _) = interface(80, 24);
    event(
        &mut ui,
        Event::PermissionRequested(PermissionRequested {
            id: "perm_9".into(),
            call_id: "call_9".into(),
            tool: "write".into(),
            title: "write big.bin".into(),
            detail: "big.bin\nThe change is not shown: the file is larger than 4 MiB".into(),
            always_rule: "write(big.bin)".into(),
            diff: None,
        }),
    );
    assert!(screen(&mut ui).contains("The change is not shown: the file is larger"));
}

#[path = "session_switch_tests.rs"]
mod session_switch;

#[path = "composer_keys_tests.rs"]
mod composer_keys;

#[path = "sheet_tests.rs"]
mod sheets;

#[path = "review/screen_tests.rs"]
mod review_screens;
