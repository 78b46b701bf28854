//! The composer's keys that ask the session something: `@` completion (`complete_path`) and
//! Backspace taking a queued message back (`withdraw_queued_message`).

use luxe_core::protocol::events::{PathsCompleted, UserMessageQueued, UserMessageWithdrawn};

use super::*;

fn offer(ui: &mut Interface, paths: &[&str]) {
    let request_id = ui
        .mention
        .as_ref()
        .expect("an @ word asked")
        .request_id
        .clone();
    let done = Event::PathsCompleted(PathsCompleted {
        request_id,
        prefix: String::new(),
        paths: paths.iter().map(|p| (*p).to_owned()).collect(),
    });
    ui.composer_event(&done);
}

#[test]
fn an_at_word_asks_for_paths_and_tab_puts_the_chosen_one_in_its_place() {
    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "explain @ma");
    let asked = ui.mention.clone().expect("asked");
    assert_eq!((asked.start, asked.prefix.as_str()), (8, "ma"));
    offer(&mut ui, &["main.rs", "src/main.rs"]);
    let shown = screen(&mut ui);
    assert!(
        shown.contains("@main.rs") && shown.contains("@src/main.rs"),
        "{shown}"
    );
    press(&mut ui, now, Key::plain(KeyCode::Down));
    press(&mut ui, now, Key::plain(KeyCode::Tab));
    assert_eq!(ui.composer.shown(), "explain @src/main.rs ");
    assert!(ui.mention.is_none(), "the word is done");
    assert!(!screen(&mut ui).contains("Tab or Enter takes"));
}

#[test]
fn an_answer_to_an_older_word_is_not_offered_and_esc_puts_the_list_away() {
    let (mut ui, now) = interface(80, 24);
    typed(&mut ui, now, "@a");
    let older = ui.mention.clone().expect("asked").request_id;
    typed(&mut ui, now, "b");
    ui.composer_event(&Event::PathsCompleted(PathsCompleted {
        request_id: older,
        prefix: "a".into(),
        paths: vec!["a.rs".into()],
    }));
    assert!(
        !screen(&mut ui).contains("@a.rs"),
        "answered a word no longer there"
    );
    offer(&mut ui, &["ab.rs"]);
    press(&mut ui, now, Key::plain(KeyCode::Esc));
    assert!(!screen(&mut ui).contains("@ab.rs"));
    press(&mut ui, now, Key::plain(KeyCode::Enter));
    assert!(
        matches!(ui.view.transcript.cells().next(), Some(Cell::User(text)) if text == "@ab"),
        "Enter sends once the list is away"
    );
}

#[test]
fn backspace_on_an_empty_composer_takes_the_last_queued_message_back_into_it() {
    let (mut ui, now) = interface(80, 24);
    for (text, position) in [("first later", 1), ("second later", 2)] {
        event(
            &mut ui,
            Event::UserMessageQueued(UserMessageQueued {
                text: text.into(),
                position,
            }),
        );
    }
    let shown = screen(&mut ui);
    assert!(shown.contains("queued: first later") && shown.contains("queued: second later"));
    // The session here runs no turn, so it says nothing is queued: the key reached it.
    press(&mut ui, now, Key::plain(KeyCode::Backspace));
    assert!(
        screen(&mut ui).contains("no message is queued"),
        "{}",
        screen(&mut ui)
    );
    let withdrawn = Event::UserMessageWithdrawn(UserMessageWithdrawn {
        text: "second later".into(),
        position: 2,
    });
    event(&mut ui, withdrawn);
    assert_eq!(ui.composer.shown(), "second later");
    assert_eq!(ui.view.queued, ["first later"]);
    press(&mut ui, now, Key::plain(KeyCode::Backspace));
    assert_eq!(
        ui.composer.shown(),
        "second late",
        "a written composer edits as usual"
    );
}
