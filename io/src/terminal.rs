//! The interface's shell: io owns the terminal. Raw mode, the alternate screen, bracketed
//! paste and (where the terminal has it) the keyboard enhancement protocol, so Shift+Enter is
//! seen; every frame drawn inside a synchronized update, only the cells that changed. The
//! terminal is given back as it was on every way out: quitting, a panic (the terminal first,
//! then the message), SIGTERM, SIGHUP, and Ctrl+Z (after `fg` the screen is drawn whole
//! again).

use std::io::{self, Stdout, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossterm::event::{
    self as term, Event as CtEvent, KeyCode as CtKey, KeyEventKind, KeyModifiers,
    KeyboardEnhancementFlags, MouseEventKind,
};
use crossterm::{execute, terminal as ct};
use luxe_core::Luxe;
use luxe_interface::{Interface, Key, KeyCode, Mods, OneShot, Request, TermEvent};
use ratatui_core::layout::Rect;
use ratatui_core::terminal::Terminal;
use ratatui_crossterm::CrosstermBackend;
use smol::channel::{Receiver, Sender};

use crate::effects::Effects;
use crate::front_loop;

/// How many effect results may wait for the core before their producers wait too.
const COMPLETION_BACKLOG: usize = 256;

/// Whether the terminal is in the interface's modes (so a restore has something to undo).
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Reports mouse buttons and the wheel (1000) in SGR encoding (1006); no motion (1002, 1003),
/// which crossterm's `EnableMouseCapture` would add.
const MOUSE_ON: &[u8] = b"\x1b[?1000h\x1b[?1006h";

/// Turns [`MOUSE_ON`] off again.
const MOUSE_OFF: &[u8] = b"\x1b[?1006l\x1b[?1000l";

/// Whether the terminal has the keyboard enhancement protocol, as it answered at start.
static ENHANCEMENT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Whether keyboard enhancement was pushed (and must be popped).
static ENHANCED: AtomicBool = AtomicBool::new(false);

/// Runs the interface made by `make` (given the terminal's size) to its end, and returns the
/// process's exit status. `open` makes the session a [`Request::Open`] asks for (`None`: a
/// new one; an id: that stored session resumed), or says in one line why it cannot. Inputs
/// to remember are appended to `history` (`None`: none are kept). The terminal is restored
/// before this returns.
pub fn run_interface(
    make: impl FnOnce(u16, u16) -> Interface,
    open: impl FnMut(Option<&str>) -> Result<Luxe, String>,
    history: Option<PathBuf>,
) -> i32 {
    let (width, height) = ct::size().unwrap_or((80, 24));
    if let Err(err) = take_terminal() {
        give_back_terminal();
        eprintln!("luxe: cannot set up the terminal: {err}");
        return 1;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        give_back_terminal();
        previous(info);
    }));
    let interface = make(width, height);
    let (events_in, events) = smol::channel::unbounded();
    std::thread::Builder::new()
        .name("terminal-events".into())
        .spawn(move || read_events(&events_in))
        .map_err(|err| tracing::error!("terminal events: {err}"))
        .ok();
    let code = smol::block_on(drive(interface, open, history, events));
    give_back_terminal();
    code
}

/// Puts the terminal in the interface's modes.
fn take_terminal() -> io::Result<()> {
    ct::enable_raw_mode()?;
    TAKEN.store(true, Ordering::SeqCst);
    let mut out = io::stdout();
    execute!(out, ct::EnterAlternateScreen, term::EnableBracketedPaste)?;
    // Buttons and the wheel only (no motion), in SGR form: the wheel scrolls, and Shift+drag
    // still selects text in the terminals that capture allows it in.
    out.write_all(MOUSE_ON)?;
    out.flush()?;
    // Asked once, before the event reader starts: asked again (after Ctrl+Z and `fg`), the
    // question would wait for the reader, which waits for a key, and nothing would be drawn.
    let supported =
        *ENHANCEMENT.get_or_init(|| ct::supports_keyboard_enhancement().unwrap_or(false));
    if supported {
        let flags = KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES
            | KeyboardEnhancementFlags::REPORT_ALTERNATE_KEYS;
        execute!(out, term::PushKeyboardEnhancementFlags(flags))?;
        ENHANCED.store(true, Ordering::SeqCst);
    }
    Ok(())
}

/// Gives the terminal back as it was: main screen, cooked mode, a visible cursor. Safe to call
/// more than once, and from a panic.
fn give_back_terminal() {
    if !TAKEN.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if ENHANCED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, term::PopKeyboardEnhancementFlags);
    }
    let _ = out.write_all(MOUSE_OFF);
    let _ = execute!(
        out,
        term::DisableBracketedPaste,
        ct::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = ct::disable_raw_mode();
    let _ = out.flush();
}

/// Reads the terminal's events for as long as the process runs, in the interface's words.
fn read_events(events: &Sender<TermEvent>) {
    loop {
        let event = match term::read() {
            Ok(event) => event,
            Err(err) => {
                tracing::debug!("terminal events ended: {err}");
                return;
            }
        };
        if let Some(event) = translated(event)
            && events.send_blocking(event).is_err()
        {
            return;
        }
    }
}

/// A crossterm event as the interface names it; `None` for what it does not use.
fn translated(event: CtEvent) -> Option<TermEvent> {
    match event {
        CtEvent::Key(key) if key.kind != KeyEventKind::Release => {
            let mods = Mods {
                shift: key.modifiers.contains(KeyModifiers::SHIFT),
                ctrl: key.modifiers.contains(KeyModifiers::CONTROL),
                alt: key.modifiers.contains(KeyModifiers::ALT),
            };
            let code = match key.code {
                CtKey::Char(c) => KeyCode::Char(c),
                CtKey::Enter => KeyCode::Enter,
                CtKey::Tab => KeyCode::Tab,
                CtKey::BackTab => KeyCode::BackTab,
                CtKey::Backspace => KeyCode::Backspace,
                CtKey::Delete => KeyCode::Delete,
                CtKey::Esc => KeyCode::Esc,
                CtKey::Up => KeyCode::Up,
                CtKey::Down => KeyCode::Down,
                CtKey::Left => KeyCode::Left,
                CtKey::Right => KeyCode::Right,
                CtKey::Home => KeyCode::Home,
                CtKey::End => KeyCode::End,
                CtKey::PageUp => KeyCode::PageUp,
                CtKey::PageDown => KeyCode::PageDown,
                _ => return None,
            };
            Some(TermEvent::Key(Key { code, mods }))
        }
        CtEvent::Paste(text) => Some(TermEvent::Paste(text)),
        CtEvent::Mouse(mouse) => match mouse.kind {
            MouseEventKind::ScrollUp => Some(TermEvent::Wheel { up: true }),
            MouseEventKind::ScrollDown => Some(TermEvent::Wheel { up: false }),
            _ => None,
        },
        CtEvent::Resize(width, height) => Some(TermEvent::Resize { width, height }),
        _ => None,
    }
}

/// Runs one session after another in the same terminal: each with effects of its own, so
/// nothing of a replaced session reaches the next; the interface's exit ends the loop.
async fn drive(
    mut interface: Interface,
    mut open: impl FnMut(Option<&str>) -> Result<Luxe, String>,
    history: Option<PathBuf>,
    events: Receiver<TermEvent>,
) -> i32 {
    let mut terminal = match Terminal::new(CrosstermBackend::new(io::stdout())) {
        Ok(terminal) => terminal,
        Err(err) => {
            tracing::error!("terminal: {err}");
            return 1;
        }
    };
    loop {
        let (sender, completions) = smol::channel::bounded(COMPLETION_BACKLOG);
        let effects = Effects::new(sender);
        let local = effects.local_executor();
        let take = |interface: &mut Interface, now, event| interface.handle_term(now, event);
        let between = |interface: &mut Interface| {
            while let Some(request) = interface.take_request() {
                match request {
                    Request::Suspend => {
                        let (width, height) = suspend(&mut terminal);
                        interface.handle_term(Instant::now(), TermEvent::Resize { width, height });
                    }
                    Request::Remember { line } => {
                        if let Some(path) = &history
                            && let Err(err) = append_private(path, &line)
                        {
                            tracing::warn!("keeping the input in {}: {err}", path.display());
                        }
                    }
                    Request::Open { resume } => match open(resume.as_deref()) {
                        Ok(luxe) => interface.open(Instant::now(), luxe),
                        Err(why) => interface.refuse_open(&why),
                    },
                }
            }
            let now = Instant::now();
            if interface.draw_due(now) {
                draw(&mut terminal, interface);
                interface.drawn(now);
            }
        };
        let run = front_loop::run(
            &mut interface,
            effects,
            completions,
            Some(events.clone()),
            take,
            between,
        );
        let code = local.run(run).await;
        if !interface.take_replaced() {
            return code;
        }
    }
}

/// Appends `bytes` to the file at `path`, made readable by its owner only if it is new.
fn append_private(path: &std::path::Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

/// Draws a frame inside a synchronized update, so the terminal shows it whole.
fn draw(terminal: &mut Terminal<CrosstermBackend<Stdout>>, interface: &mut Interface) {
    let _ = execute!(io::stdout(), ct::BeginSynchronizedUpdate);
    let drawn = terminal.draw(|frame| {
        let area = frame.area();
        interface.render(area, frame.buffer_mut());
        frame.set_cursor_position(interface.cursor());
    });
    let _ = execute!(io::stdout(), ct::EndSynchronizedUpdate);
    if let Err(err) = drawn {
        tracing::debug!("drawing failed: {err}");
    }
}

/// Ctrl+Z: gives the terminal back, stops, and takes it again once continued; returns the
/// terminal's size then. The next frame is drawn whole: `resize` clears the screen and forgets
/// the last frame. (`Terminal::clear` would not do: it first asks the terminal where the cursor
/// is, and the answer goes to the event-reading thread, which holds crossterm's reader; the
/// question times out, and the clear with it.)
fn suspend(terminal: &mut Terminal<CrosstermBackend<Stdout>>) -> (u16, u16) {
    give_back_terminal();
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::TSTP);
    if let Err(err) = take_terminal() {
        tracing::warn!("taking the terminal back: {err}");
    }
    let (width, height) = ct::size().unwrap_or((80, 24));
    if let Err(err) = terminal.resize(Rect::new(0, 0, width, height)) {
        tracing::warn!("clearing the terminal: {err}");
    }
    (width, height)
}

/// Runs `luxe -p`'s one turn to its end: the answer's text to stdout as it comes, a failure's
/// reason to stderr; returns the exit status.
pub fn run_one_shot(one: OneShot) -> i32 {
    let mut one = one;
    let (sender, completions) = smol::channel::bounded(COMPLETION_BACKLOG);
    let effects = Effects::new(sender);
    let local = effects.local_executor();
    let no_events: Option<Receiver<()>> = None;
    let between = |one: &mut OneShot| {
        let text = one.take_text();
        if !text.is_empty() {
            let mut out = io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
        if let Some(error) = one.take_error() {
            eprintln!("luxe: {error}");
        }
    };
    let run = front_loop::run(
        &mut one,
        effects,
        completions,
        no_events,
        |_, _, ()| {},
        between,
    );
    smol::block_on(local.run(run))
}
