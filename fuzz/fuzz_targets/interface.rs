//! The terminal interface as a front door: arbitrary keys, pastes, resizes, wheel turns and
//! session frames (any event kind with any content) in any order. After each, a frame is drawn
//! and must hold no control character and keep the dock on its last row.
#![no_main]

use std::time::Instant;

use luxe_core::harness::test_config;
use luxe_core::{Luxe, Machine};
use luxe_interface::{Interface, Key, KeyCode, Mods, TermEvent};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let now = Instant::now();
    let Ok(luxe) = Luxe::new(test_config(), now) else {
        return;
    };
    let (mut width, mut height) = (80u16, 24u16);
    let mut ui = Interface::new(luxe, width, height);
    let mut at = 0;
    let take = |n: usize, at: &mut usize| {
        let piece = &data[(*at).min(data.len())..(*at + n).min(data.len())];
        *at += n;
        piece
    };
    while at < data.len() {
        let op = take(1, &mut at)[0];
        let arg = take(1, &mut at).first().copied().unwrap_or(0);
        let mods = Mods {
            shift: op & 0x10 != 0,
            ctrl: op & 0x20 != 0,
            alt: op & 0x40 != 0,
        };
        match op % 6 {
            0 => {
                let code = KeyCode::Char(char::from(arg));
                ui.handle_term(now, TermEvent::Key(Key { code, mods }));
            }
            1 => {
                let code = KeyCode::NAMED[usize::from(arg) % KeyCode::NAMED.len()];
                ui.handle_term(now, TermEvent::Key(Key { code, mods }));
            }
            2 => {
                let text = String::from_utf8_lossy(take(usize::from(arg), &mut at)).into_owned();
                ui.handle_term(now, TermEvent::Paste(text));
            }
            3 => {
                width = u16::from(arg % 160);
                height = u16::from(take(1, &mut at).first().copied().unwrap_or(0) % 60);
                ui.handle_term(now, TermEvent::Resize { width, height });
            }
            4 => ui.handle_term(now, TermEvent::Wheel { up: arg % 2 == 0 }),
            _ => {
                let len = usize::from(arg) * 4;
                let line = take(len, &mut at).to_vec();
                ui.take_frame(&line);
            }
        }
        // The session's effects are dropped: nothing is performed here.
        while ui.poll_output().is_some() {}
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        ui.render(area, &mut buf);
        for cell in &buf.content {
            assert!(
                !cell.symbol().chars().any(char::is_control),
                "a control character reached the screen: {:?}",
                cell.symbol()
            );
        }
        if width >= 4 && height >= 1 {
            let dock: String = (0..width).map(|x| buf[(x, height - 1)].symbol()).collect();
            assert!(!dock.trim().is_empty(), "the dock is on the last row");
        }
    }
});
