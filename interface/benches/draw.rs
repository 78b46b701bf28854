//! One frame's draw at 120×40 while an answer streams, with 10 and with 10,000 earlier
//! messages in the transcript: the cost must not grow with the transcript (each cell's rows are
//! cached per width, and a frame folds only the cells it shows).

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use luxe_core::Luxe;
use luxe_core::harness::test_config;
use luxe_interface::{Interface, Key, KeyCode, TermEvent};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

/// An interface whose transcript holds `messages` earlier messages (typed and sent: each is a
/// message and the session's answer, an error without a model).
fn with_messages(messages: usize) -> Interface {
    let now = Instant::now();
    let luxe = Luxe::new(test_config(), now).expect("a session");
    let mut interface = Interface::new(luxe, 120, 40);
    for n in 0..messages {
        for c in format!("message {n}").chars() {
            interface.handle_term(now, TermEvent::Key(Key::plain(KeyCode::Char(c))));
        }
        interface.handle_term(now, TermEvent::Key(Key::plain(KeyCode::Enter)));
        while luxe_core::Machine::poll_output(&mut interface).is_some() {}
    }
    interface
}

fn draw(c: &mut Criterion) {
    let area = Rect::new(0, 0, 120, 40);
    for messages in [10, 10_000] {
        let mut interface = with_messages(messages);
        let mut buf = Buffer::empty(area);
        interface.render(area, &mut buf);
        let now = Instant::now();
        c.bench_function(&format!("frame at 120x40 with {messages} messages"), |b| {
            // A key typed since the last frame (the composer changed, the transcript not), and
            // taken back the next time, so the composer stays as it was over every iteration.
            let mut typed = false;
            b.iter(|| {
                let code = if typed {
                    KeyCode::Backspace
                } else {
                    KeyCode::Char('x')
                };
                typed = !typed;
                interface.handle_term(now, TermEvent::Key(Key::plain(code)));
                interface.render(area, &mut buf);
            });
        });
    }
}

criterion_group!(benches, draw);
criterion_main!(benches);
