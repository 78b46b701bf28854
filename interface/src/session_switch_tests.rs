//! `/new`, `/sessions` and `/model` in place: the lists they open, and one session giving way
//! to the next in the same interface.

use luxe_core::protocol::events::ModelInfo;
use luxe_core::protocol::events::{ModelsListed, ProviderStatus, SessionSummary, SessionsListed};

use super::*;
use crate::picker::Pick;

fn enter(ui: &mut Interface, now: Instant) {
    press(ui, now, Key::plain(KeyCode::Enter));
}

/// The session `ui` shows, by the id its `ready` gave.
fn shown_session(ui: &Interface) -> String {
    ui.view.session_id.clone()
}

/// Drives `ui` as io does across a switch: outputs until the old session's exit, then (as io
/// does once the old effects are finished) the next session's.
fn run_switch(ui: &mut Interface) -> Option<i32> {
    let mut exit = None;
    while let Some(output) = luxe_core::Machine::poll_output(ui) {
        if let Output::Exit { code } = output {
            exit = Some(code);
        }
    }
    exit
}

#[test]
fn new_asks_io_for_a_session_and_the_old_one_closes_before_the_new_one_shows() {
    let (mut ui, now) = interface(80, 24);
    let first = shown_session(&ui);
    typed(&mut ui, now, "/new");
    enter(&mut ui, now);
    assert_eq!(ui.take_request(), Some(Request::Open { resume: None }));
    let mut config = test_config();
    config.session_id = "second".into();
    ui.open(now, Luxe::new(config, now).expect("a session"));
    // Sent outside a key's handling: io is told to poll now, not at the next key.
    assert!(luxe_core::Machine::poll_timeout(&ui).is_some_and(|at| at <= now));
    // The old session's close ends in an exit that io sees (to finish its effects)...
    assert_eq!(run_switch(&mut ui), Some(0));
    // ...and nothing of the new one is polled until io says the old one is done.
    assert!(luxe_core::Machine::poll_output(&mut ui).is_none());
    assert!(ui.take_replaced());
    assert!(!ui.take_replaced(), "said once");
    drain(&mut ui);
    assert_eq!(shown_session(&ui), "second");
    assert_ne!(first, "second");
    assert!(!luxe_core::Machine::is_closed(&ui));
    // The new session is the one that answers.
    typed(&mut ui, now, "/mode plan");
    enter(&mut ui, now);
    assert_eq!(ui.view.dock.mode, "plan");
}

#[test]
fn a_session_io_cannot_make_is_one_line_and_the_current_one_goes_on() {
    let (mut ui, _) = interface(80, 24);
    let first = shown_session(&ui);
    ui.refuse_open("no stored session abc");
    assert!(
        screen(&mut ui).contains("cannot switch sessions: no stored session abc"),
        "{}",
        screen(&mut ui)
    );
    assert!(run_switch(&mut ui).is_none());
    assert!(!ui.take_replaced());
    assert_eq!(shown_session(&ui), first);
}

fn listed_sessions(ids: &[&str]) -> Event {
    Event::SessionsListed(SessionsListed {
        request_id: "ui_1".into(),
        sessions: (ids.iter())
            .map(|id| SessionSummary {
                id: (*id).into(),
                title: format!("about {id}"),
                updated: 0,
                turns: 2,
                cost_usd: 0.01,
            })
            .collect(),
    })
}

#[test]
fn sessions_lists_newest_first_and_enter_resumes_the_highlighted_one() {
    let (mut ui, now) = interface(80, 24);
    let current = shown_session(&ui);
    event(&mut ui, listed_sessions(&["s-new", &current, "s-old"]));
    let shown = screen(&mut ui);
    assert!(shown.contains("› about s-new"), "{shown}");
    press(&mut ui, now, Key::plain(KeyCode::Down));
    enter(&mut ui, now);
    assert!(
        ui.take_request().is_none(),
        "the current session is not resumed again"
    );
    assert!(screen(&mut ui).contains("that is this session"));
    event(&mut ui, listed_sessions(&["s-new", &current, "s-old"]));
    typed(&mut ui, now, "old");
    enter(&mut ui, now);
    assert_eq!(
        ui.take_request(),
        Some(Request::Open {
            resume: Some("s-old".into())
        })
    );
    assert!(ui.view.picker.is_none());
}

fn model(id: &str, available: bool) -> ModelInfo {
    ModelInfo {
        id: id.into(),
        provider: id.split('/').next().unwrap_or_default().into(),
        name: id.into(),
        context_window: Some(200_000),
        max_output_tokens: None,
        reasoning: false,
        available,
        cost: None,
        supports_tools: None,
    }
}

#[test]
fn model_opens_a_picker_and_enter_switches_or_says_why_not() {
    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "/model");
    enter(&mut ui, now);
    assert!(ui.view.picker.is_some(), "list_models answered with a list");
    event(
        &mut ui,
        Event::ModelsListed(ModelsListed {
            request_id: "ui_1".into(),
            models: vec![
                model("anthropic/a-model", false),
                model("openai/b-model", true),
            ],
            providers: vec![ProviderStatus {
                provider: "anthropic".into(),
                available: false,
                hint: Some("set ANTHROPIC_API_KEY".into()),
            }],
        }),
    );
    let shown = screen(&mut ui);
    assert!(shown.contains("(set ANTHROPIC_API_KEY)"), "{shown}");
    enter(&mut ui, now);
    assert!(screen(&mut ui).contains("✗ set ANTHROPIC_API_KEY"));
    assert!(ui.view.picker.is_none());
    event(
        &mut ui,
        Event::ModelsListed(ModelsListed {
            request_id: "ui_2".into(),
            models: vec![
                model("anthropic/a-model", false),
                model("openai/b-model", true),
            ],
            providers: vec![],
        }),
    );
    press(&mut ui, now, Key::plain(KeyCode::Down));
    assert_eq!(
        ui.view
            .picker
            .as_ref()
            .and_then(|p| p.current())
            .map(|e| e.pick.clone()),
        Some(Pick::Model("openai/b-model".into()))
    );
    enter(&mut ui, now);
    assert_eq!(ui.view.dock.model.as_deref(), Some("openai/b-model"));
    press(&mut ui, now, Key::plain(KeyCode::Esc));
}

#[test]
fn esc_closes_a_list_without_choosing() {
    let (mut ui, now) = interface(80, 24);
    event(&mut ui, listed_sessions(&["s-1"]));
    press(&mut ui, now, Key::plain(KeyCode::Esc));
    assert!(ui.view.picker.is_none());
    assert!(ui.take_request().is_none());
}

#[test]
fn a_signal_while_a_session_waits_to_take_over_ends_the_interface() {
    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "/new");
    enter(&mut ui, now);
    assert_eq!(ui.take_request(), Some(Request::Open { resume: None }));
    ui.open(now, Luxe::new(test_config(), now).expect("a session"));
    luxe_core::Machine::handle_input(&mut ui, now, Input::Terminate);
    assert_eq!(run_switch(&mut ui), Some(0));
    assert!(!ui.take_replaced(), "the exit is the interface's own");
}

#[test]
fn keys_draw_at_once_and_the_sessions_events_at_most_a_frame_apart() {
    let (mut ui, now) = interface(80, 24);
    assert!(ui.draw_due(now), "the first frame");
    let _ = screen(&mut ui);
    ui.drawn(now);
    event(
        &mut ui,
        Event::TokenDelta(luxe_core::protocol::events::TokenDelta {
            block: 0,
            delta: "streamed".into(),
        }),
    );
    assert!(!ui.draw_due(now), "held back within the frame's interval");
    let due = luxe_core::Machine::poll_timeout(&ui).expect("a frame to wake for");
    assert!(due <= now + crate::FRAME_INTERVAL);
    assert!(ui.draw_due(now + crate::FRAME_INTERVAL));
    // A key is the person's: drawn at once, whenever the last frame was.
    typed(&mut ui, now, "x");
    assert!(ui.draw_due(now));
    let _ = screen(&mut ui);
    ui.drawn(now);
    assert!(!ui.draw_due(now), "nothing changed since");
}
