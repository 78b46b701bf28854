//! [`Interface`]: the terminal interface as a machine in front of one session. Keys become the
//! protocol's actions, sent to the session as the JSON lines an `--rpc` client writes; the
//! session's frames come back as the typed events an `--rpc` client reads, and only change
//! what is drawn. Effects pass through to io untouched.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use luxe_core::effects::{Input, Output};
use luxe_core::protocol::actions::Action;
use luxe_core::protocol::events::Event;
use luxe_core::protocol::values::PermissionReply;
use luxe_core::{Luxe, Machine};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use serde_json::{Value, json};

use crate::composer::Composer;
use crate::keys::{Key, KeyCode, TermEvent};
use crate::mention::Mention;
use crate::picker::{Entry, Pick};
use crate::review::{Outcome, ReviewView};
use crate::sheet::{Asked, PullRequestSheet, RestackSheet, Sheet, StackSheet};
use crate::slash::{self, Command, SheetKind};
use crate::transcript::Cell;
use crate::view::View;

/// How long a second Ctrl+C on an idle screen has to quit.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

/// The least time between two frames drawn for the session's events: 30 a second, as Ink
/// (Claude Code's renderer) draws at most and as smooth as streamed text needs; each frame
/// costs a wake-up, a draw and a write, so 60 made a paced answer cost a third more CPU than
/// reading it without a screen. Keys are drawn at once, whatever this says.
pub const FRAME_INTERVAL: Duration = Duration::from_micros(33_333);

/// How many rows one notch of the wheel scrolls.
const WHEEL_ROWS: i64 = 3;

/// What the interface asks of io besides the session's effects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Give the terminal back and stop the process (Ctrl+Z); redraw when it continues.
    Suspend,
    /// Append this line to the history file (an input, to walk with Up in later runs).
    Remember {
        /// The line's bytes, its newline included.
        line: Vec<u8>,
    },
    /// Make another session to take this one's place: a new one (`/new`), or the stored one
    /// with this id (`/sessions`). Answer with [`Interface::open`] or [`Interface::refuse_open`].
    Open {
        /// The stored session to resume; `None` starts a new one.
        resume: Option<String>,
    },
}

/// The interface and the session it drives.
///
/// Drive it as io drives any [`Machine`] (`handle_input`, `poll_output`, `poll_timeout`,
/// `handle_timeout`), and besides: feed terminal events to [`Interface::handle_term`], take
/// [`Interface::take_request`], and draw with [`Interface::render`] whenever
/// [`Interface::draw_due`] says so (then tell it with [`Interface::drawn`]).
pub struct Interface {
    luxe: Luxe,
    view: View,
    composer: Composer,
    /// Rows scrolled up from the bottom; 0 follows the stream.
    scroll: usize,
    /// When the last frame was drawn.
    drawn_at: Option<Instant>,
    /// Whether the change waiting to be drawn is the person's (drawn at once).
    urgent: bool,
    size: (u16, u16),
    dirty: bool,
    /// When Ctrl+C last cleared an idle screen.
    ctrl_c_at: Option<Instant>,
    /// A one-line hint under the composer (how to quit, a refusal of the interface's own).
    hint: Option<String>,
    requests: VecDeque<Request>,
    next_request: u64,
    /// Which slash command the list selects.
    slash_selected: usize,
    /// Where the last drawing put the cursor.
    cursor: (u16, u16),
    /// Draw without colours (`NO_COLOR`): bold, dim and reverse still tell things apart.
    no_colour: bool,
    /// The `@` word being completed.
    mention: Option<Mention>,
    /// A sheet open over the conversation (`/github`, `/pr`, `/stack`, `/restack`).
    sheet: Option<Sheet>,
    /// The session that takes over once the current one has closed.
    next: Option<Luxe>,
    /// When io should poll again though nothing came in: the `close` sent outside a key's
    /// handling (by [`Interface::open`]) has outputs waiting.
    poll_at: Option<Instant>,
    /// Whether the current session was just replaced: nothing more is polled until io has
    /// finished the old session's effects and called [`Interface::take_replaced`].
    replaced: bool,
    /// The guided review view (`/review`), full screen while it is shown.
    review: ReviewView,
}

impl std::fmt::Debug for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interface")
            .field("cells", &self.view.transcript.len())
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl Interface {
    /// The interface in front of `luxe`, for a terminal of `width` × `height`.
    pub fn new(luxe: Luxe, width: u16, height: u16) -> Self {
        Self {
            luxe,
            view: View::default(),
            composer: Composer::default(),
            scroll: 0,
            drawn_at: None,
            urgent: true,
            size: (width, height),
            dirty: true,
            ctrl_c_at: None,
            hint: None,
            requests: VecDeque::new(),
            next_request: 0,
            slash_selected: 0,
            cursor: (0, 0),
            no_colour: false,
            mention: None,
            sheet: None,
            next: None,
            poll_at: None,
            replaced: false,
            review: ReviewView::default(),
        }
    }

    /// The same interface with `earlier` inputs (oldest first) for Up to walk, as
    /// [`crate::earlier_inputs`] read them from the history file.
    pub fn with_history(mut self, earlier: Vec<String>) -> Self {
        self.composer = std::mem::take(&mut self.composer).with_history(earlier);
        self
    }

    /// The same interface drawing without colours, as `NO_COLOR` asks.
    pub fn without_colour(mut self) -> Self {
        self.no_colour = true;
        self
    }

    /// Whether a frame should be drawn at `now`: something changed since the last, and either
    /// the person did something (a key, a paste, a resize: drawn at once) or a frame's time
    /// has passed since the last (the session's events, a streamed answer among them, are
    /// drawn at most [`FRAME_INTERVAL`] apart: what came meanwhile is drawn together).
    pub fn draw_due(&self, now: Instant) -> bool {
        self.dirty
            && (self.urgent
                || self
                    .drawn_at
                    .is_none_or(|at| now.saturating_duration_since(at) >= FRAME_INTERVAL))
    }

    /// A frame was drawn at `now` (after [`Interface::render`]).
    pub fn drawn(&mut self, now: Instant) {
        self.drawn_at = Some(now);
        self.urgent = false;
    }

    /// The next thing io must do besides the session's effects.
    pub fn take_request(&mut self) -> Option<Request> {
        self.requests.pop_front()
    }

    /// The session io made for a [`Request::Open`]: the current one is closed (as `close`
    /// closes it: its records written, its commands stopped), then `luxe` takes its place.
    pub fn open(&mut self, now: Instant, luxe: Luxe) {
        self.next = Some(luxe);
        self.send(now, "close", Value::Null);
        self.poll_at = Some(now);
    }

    /// io could not make the session a [`Request::Open`] asked for: why, in one line. The
    /// current session goes on.
    pub fn refuse_open(&mut self, why: &str) {
        self.view
            .transcript
            .push(Cell::Error(format!("cannot switch sessions: {why}")));
        self.dirty = true;
    }

    /// Whether the session was replaced at its exit (so the exit is not the interface's):
    /// io has finished the old session's effects and now runs the new one's.
    pub fn take_replaced(&mut self) -> bool {
        std::mem::take(&mut self.replaced)
    }

    /// Where the terminal's cursor goes (in the composer), as the last drawing placed it.
    pub fn cursor(&self) -> (u16, u16) {
        self.cursor
    }

    /// Notes where the drawing put the cursor.
    pub(crate) fn set_cursor(&mut self, at: (u16, u16)) {
        self.cursor = at;
    }

    /// Draws the whole screen into `buf` over `area`.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) {
        self.dirty = false;
        crate::render::screen(self, area, buf);
        if self.no_colour {
            for cell in &mut buf.content {
                cell.set_fg(ratatui_core::style::Color::Reset);
                cell.set_bg(ratatui_core::style::Color::Reset);
            }
        }
    }

    /// Takes what happened at the terminal at `now`.
    pub fn handle_term(&mut self, now: Instant, event: TermEvent) {
        self.dirty = true;
        self.urgent = true;
        match event {
            TermEvent::Resize { width, height } => self.size = (width, height),
            TermEvent::Paste(text) if self.review.is_shown() => self.review.paste(&text),
            TermEvent::Paste(text) => {
                if self.view.question.is_none() && self.view.permissions.is_empty() {
                    self.composer.paste(&text);
                }
            }
            TermEvent::Key(key) => self.key(now, key),
            TermEvent::Wheel { up } if self.review.is_shown() => self.review.wheel(up),
            TermEvent::Wheel { up } => {
                let rows = if up { WHEEL_ROWS } else { -WHEEL_ROWS };
                match self.view.picker.as_mut() {
                    Some(picker) => picker.step(if up { -1 } else { 1 }),
                    None => self.scroll_by(rows),
                }
            }
        }
    }

    fn key(&mut self, now: Instant, key: Key) {
        self.pressed(now, key);
        if let Some(input) = self.composer.take_fresh()
            && let Some(line) = crate::history::history_line(&self.view.dock.cwd, &input)
        {
            self.requests.push_back(Request::Remember { line });
        }
    }

    fn pressed(&mut self, now: Instant, key: Key) {
        if self.review.is_shown() && self.view.permissions.is_empty() {
            return self.review_key(now, key);
        }
        let global = key.mods.ctrl && matches!(key.code, KeyCode::Char('c' | 'd' | 'z'));
        if self.sheet.is_some() && !global {
            return self.sheet_key(now, key);
        }
        if key.mods.ctrl {
            return self.control(now, key.code);
        }
        if !self.view.permissions.is_empty() {
            return self.permission_key(now, key.code);
        }
        if self.view.picker.is_some() {
            return self.picker_key(now, key.code);
        }
        if self.view.question.is_some() && self.question_key(now, key.code) {
            return;
        }
        self.hint = None;
        if self.mention.as_ref().is_some_and(Mention::is_offered) && self.mention_key(key) {
            return;
        }
        self.composer_key(now, key);
        self.follow_mention(now);
    }

    /// A key while the review view is shown: a question a review turn asked takes its keys
    /// first; the view's requests go to the session.
    fn review_key(&mut self, now: Instant, key: Key) {
        if self.view.question.is_some() && !key.mods.ctrl && self.question_key(now, key.code) {
            return;
        }
        match self.review.key(key, self.view.writes) {
            Outcome::Nothing => {}
            Outcome::Send(action) => self.send_action(now, &action),
            Outcome::Close => self.review.hide(),
            Outcome::Pass => self.control(now, key.code),
        }
    }

    /// A key for the composer (and what it does to the session).
    fn composer_key(&mut self, now: Instant, key: Key) {
        let newline = key.mods.shift || key.mods.alt;
        match key.code {
            KeyCode::Enter if newline => self.composer.insert('\n'),
            KeyCode::Enter => self.enter(now),
            KeyCode::Tab if self.slash_listing() => self.complete_slash(),
            KeyCode::Tab if self.busy() && !self.composer.is_empty() => {
                let text = self.composer.take();
                self.send(now, "submit_user_message", json!({"text": text}));
            }
            KeyCode::Esc if self.busy() => self.send(now, "interrupt_turn", Value::Null),
            KeyCode::Esc => self.composer.clear(),
            KeyCode::Char(c) => self.composer.insert(c),
            KeyCode::Backspace if self.composer.is_empty() && !self.view.queued.is_empty() => {
                self.send(now, "withdraw_queued_message", Value::Null);
            }
            KeyCode::Backspace => self.composer.backspace(),
            KeyCode::Delete => self.composer.delete(),
            KeyCode::Left => self.composer.left(),
            KeyCode::Right => self.composer.right(),
            KeyCode::Home => self.composer.home(),
            KeyCode::End if self.composer.is_empty() => self.scroll = 0,
            KeyCode::End => self.composer.end(),
            KeyCode::Up if self.slash_listing() => {
                self.slash_selected = self.slash_selected.saturating_sub(1);
            }
            KeyCode::Down if self.slash_listing() => self.slash_selected += 1,
            KeyCode::Up => self.composer.up(),
            KeyCode::Down => self.composer.down(),
            KeyCode::PageUp => self.scroll_by(i64::from(self.size.1 / 2).max(1)),
            KeyCode::PageDown => self.scroll_by(-i64::from(self.size.1 / 2).max(1)),
            KeyCode::Tab | KeyCode::BackTab => {}
        }
    }

    /// A key for the open sheet: what it asks is sent, or closes the sheet.
    fn sheet_key(&mut self, now: Instant, key: Key) {
        let writes = self.view.writes;
        let Some(sheet) = self.sheet.as_mut() else {
            return;
        };
        match sheet.key(key, writes) {
            Asked::Nothing => {}
            Asked::Close => self.sheet = None,
            Asked::Send(kind, content) => self.send(now, kind, content),
        }
    }

    /// Opens the sheet `kind` and asks the session for what fills it.
    fn open_sheet(&mut self, now: Instant, kind: SheetKind, request_id: String) {
        let sheet = match kind {
            SheetKind::Github => Sheet::Github,
            SheetKind::PullRequest => {
                Sheet::PullRequest(Box::new(PullRequestSheet::new(request_id.clone())))
            }
            SheetKind::Stack => Sheet::Stack(StackSheet::new(request_id.clone())),
            SheetKind::Restack => Sheet::Restack(RestackSheet::new(request_id.clone())),
        };
        let opening = sheet.opening(&request_id);
        self.sheet = Some(sheet);
        if let Some((kind, content)) = opening {
            self.send(now, kind, content);
        }
    }

    /// Up, Down, Tab, Enter and Esc while paths are offered for an `@` word; whether the key
    /// was the list's.
    fn mention_key(&mut self, key: Key) -> bool {
        let Some(mention) = self.mention.as_mut() else {
            return false;
        };
        match key.code {
            KeyCode::Up => mention.step(-1),
            KeyCode::Down => mention.step(1),
            KeyCode::Esc => mention.dismissed = true,
            KeyCode::Tab | KeyCode::Enter if !key.mods.shift && !key.mods.alt => {
                if let Some(chosen) = mention.chosen() {
                    let start = mention.start;
                    self.composer.replace_to_cursor(start, &chosen);
                }
                self.mention = None;
            }
            _ => return false,
        }
        true
    }

    /// Asks the session for paths when the `@` word at the cursor changed; forgets the list
    /// when there is no such word.
    fn follow_mention(&mut self, now: Instant) {
        let Some((start, prefix)) = self.composer.at_word() else {
            self.mention = None;
            return;
        };
        if (self.mention.as_ref()).is_some_and(|m| m.start == start && m.prefix == prefix) {
            return;
        }
        let prefix = prefix.to_owned();
        self.next_request += 1;
        let request_id = format!("ui_{}", self.next_request);
        self.mention = Some(Mention::asked(start, &prefix, request_id.clone()));
        let content = json!({"request_id": request_id, "prefix": prefix});
        self.send(now, "complete_path", content);
    }

    fn control(&mut self, now: Instant, code: KeyCode) {
        match code {
            KeyCode::Char('c') if self.busy() => self.send(now, "interrupt_turn", Value::Null),
            KeyCode::Char('c') if !self.composer.is_empty() => {
                self.composer.clear();
                self.ctrl_c_at = Some(now);
                self.hint = Some("press Ctrl+C again to quit".into());
            }
            KeyCode::Char('c') => {
                if self
                    .ctrl_c_at
                    .is_some_and(|at| now.saturating_duration_since(at) < QUIT_WINDOW)
                {
                    self.quit(now);
                } else {
                    self.ctrl_c_at = Some(now);
                    self.hint = Some("press Ctrl+C again to quit".into());
                }
            }
            KeyCode::Char('d') if self.composer.is_empty() => self.quit(now),
            KeyCode::Char('u') => self.composer.clear(),
            KeyCode::Char('j') => self.composer.insert('\n'),
            KeyCode::Char('t') => self.view.transcript.toggle_thinking(),
            KeyCode::Char('z') => self.requests.push_back(Request::Suspend),
            KeyCode::Enter => self.composer.insert('\n'),
            _ => {}
        }
    }

    /// y, a, n or Esc answer the first prompt waiting.
    fn permission_key(&mut self, now: Instant, code: KeyCode) {
        let Some(id) = self.view.permissions.front().map(|p| p.id.clone()) else {
            return;
        };
        let reply = match code {
            KeyCode::Char('y') => PermissionReply::Once,
            KeyCode::Char('a') => PermissionReply::Always,
            KeyCode::Char('n') | KeyCode::Esc => PermissionReply::Reject,
            _ => return,
        };
        let reply = serde_json::to_value(reply).unwrap_or(Value::Null);
        self.send(now, "respond_permission", json!({"id": id, "reply": reply}));
    }

    /// Up and Down move, typing narrows, Enter takes, Esc closes the list.
    fn picker_key(&mut self, now: Instant, code: KeyCode) {
        let Some(picker) = self.view.picker.as_mut() else {
            return;
        };
        match code {
            KeyCode::Up => picker.step(-1),
            KeyCode::Down => picker.step(1),
            KeyCode::PageUp => picker.step(-10),
            KeyCode::PageDown => picker.step(10),
            KeyCode::Char(c) => picker.type_char(c),
            KeyCode::Backspace => picker.backspace(),
            KeyCode::Esc => self.view.picker = None,
            KeyCode::Enter => {
                let Some(entry) = picker.current().cloned() else {
                    return;
                };
                self.view.picker = None;
                self.take_pick(now, entry);
            }
            _ => {}
        }
    }

    fn take_pick(&mut self, now: Instant, entry: Entry) {
        match entry.pick {
            Pick::Model(_) if entry.unavailable.is_some() => {
                let why = entry.unavailable.unwrap_or_default();
                self.view.transcript.push(Cell::Error(why));
            }
            Pick::Model(id) => self.send(now, "set_model", json!({"model": id})),
            Pick::Session(id) if id == self.view.session_id => {
                let note = "that is this session".to_owned();
                self.view.transcript.push(Cell::Note(note));
            }
            Pick::Session(id) => self.requests.push_back(Request::Open { resume: Some(id) }),
        }
    }

    /// Digits pick (or toggle, when several may be chosen), Up and Down move the highlight,
    /// Space toggles it, Enter answers (the highlighted option, or those toggled), Esc
    /// dismisses; other keys write a free answer in the composer. Whether the key was the
    /// question's.
    fn question_key(&mut self, now: Instant, code: KeyCode) -> bool {
        let Some(question) = self.view.question.clone() else {
            return false;
        };
        let count = question.options.len();
        match code {
            KeyCode::Char(digit @ '1'..='9') if self.composer.is_empty() => {
                let at = usize::from(digit as u8 - b'1');
                if at >= count {
                    return true;
                }
                self.view.question_at = at;
                if question.multiple {
                    self.view.toggle_picked(at);
                } else {
                    let label = question.options[at].label.clone();
                    self.answer(now, &question.id, json!({"answered": [label]}));
                }
                true
            }
            KeyCode::Char(' ') if self.composer.is_empty() && question.multiple => {
                self.view.toggle_picked(self.view.question_at);
                true
            }
            KeyCode::Up if self.composer.is_empty() => {
                self.view.question_at = self.view.question_at.saturating_sub(1);
                true
            }
            KeyCode::Down if self.composer.is_empty() => {
                self.view.question_at = (self.view.question_at + 1).min(count.saturating_sub(1));
                true
            }
            KeyCode::Enter if !self.composer.is_empty() => {
                let text = self.composer.take();
                self.answer(now, &question.id, json!({"custom": text}));
                true
            }
            KeyCode::Enter => {
                let chosen = if question.multiple {
                    self.view.picked.clone()
                } else {
                    vec![self.view.question_at]
                };
                let labels: Vec<&str> = (chosen.iter())
                    .filter_map(|at| question.options.get(*at).map(|o| o.label.as_str()))
                    .collect();
                self.answer(now, &question.id, json!({"answered": labels}));
                true
            }
            KeyCode::Esc => {
                self.answer(now, &question.id, json!("dismissed"));
                true
            }
            _ => false,
        }
    }

    fn answer(&mut self, now: Instant, id: &str, reply: Value) {
        self.send(now, "answer_question", json!({"id": id, "reply": reply}));
    }

    fn enter(&mut self, now: Instant) {
        if self.slash_listing() {
            let matching = slash::matching(self.composer.shown());
            let typed = self.composer.shown().trim();
            if !matching.iter().any(|(name, _)| typed.starts_with(name)) {
                self.complete_slash();
            }
        }
        if self.composer.shown().trim().is_empty() {
            return;
        }
        let text = self.composer.take();
        self.scroll = 0;
        if text.starts_with('/') {
            return self.command(now, &text);
        }
        if self.busy() {
            self.send(now, "steer_turn", json!({"text": text}));
        } else {
            self.view.transcript.push(Cell::User(text.clone()));
            self.send(now, "submit_user_message", json!({"text": text}));
        }
    }

    fn command(&mut self, now: Instant, line: &str) {
        self.next_request += 1;
        let request = format!("ui_{}", self.next_request);
        match slash::parse(line, &request) {
            Command::Action(kind, content) => self.send(now, kind, content),
            Command::Help => self
                .view
                .transcript
                .push(Cell::Note(crate::render::HELP.into())),
            Command::Quit => self.quit(now),
            Command::New => self.requests.push_back(Request::Open { resume: None }),
            Command::Sheet(kind) => self.open_sheet(now, kind, request),
            Command::Review(target) => {
                if let Some(action) = self.review.open_target(target) {
                    self.send_action(now, &action);
                }
            }
            Command::Wrong(why) => self.view.transcript.push(Cell::Error(why)),
        }
    }

    /// Whether a turn or a compaction runs (as the last `state_changed` said).
    fn busy(&self) -> bool {
        self.view.dock.streaming
    }

    /// Whether the composer holds a slash command's first word being typed.
    pub(crate) fn slash_listing(&self) -> bool {
        let text = self.composer.shown();
        text.starts_with('/') && !text.contains(char::is_whitespace)
    }

    fn complete_slash(&mut self) {
        let matching = slash::matching(self.composer.shown());
        if let Some((name, _)) = matching.get(self.slash_selected.min(matching.len().max(1) - 1)) {
            self.composer.set(format!("{name} "));
        }
        self.slash_selected = 0;
    }

    fn scroll_by(&mut self, rows: i64) {
        // Counting stops past where this scroll can reach: only those cells are folded.
        let reach = (self.scroll as i64 + rows).max(0) as usize + usize::from(self.size.1);
        let most = self.view.transcript.rows_up_to(self.size.0.max(1), reach);
        let next = (self.scroll as i64 + rows).clamp(0, most as i64);
        self.scroll = usize::try_from(next).unwrap_or(0);
    }

    fn quit(&mut self, now: Instant) {
        self.send(now, "close", Value::Null);
    }

    /// Sends an action at `now` (the time matters only to the session's timers).
    fn send(&mut self, now: Instant, kind: &str, content: Value) {
        let mut frame = json!({"kind": kind});
        if !content.is_null() {
            frame["content"] = content;
        }
        self.send_line(now, frame.to_string().into_bytes());
    }

    /// Sends a typed action at `now`, as the JSON line an `--rpc` client writes.
    fn send_action(&mut self, now: Instant, action: &Action) {
        // A typed action is plain data: serializing it cannot fail.
        let line = serde_json::to_vec(action).unwrap_or_default();
        self.send_line(now, line);
    }

    fn send_line(&mut self, now: Instant, mut line: Vec<u8>) {
        line.push(b'\n');
        self.luxe.handle_input(now, Input::ClientBytes(&line));
        self.dirty = true;
    }

    /// Takes one event of the session: an answer to the review view's own request is shown
    /// there; the view, the composer and an open sheet follow every other.
    fn take_event(&mut self, event: &Event) {
        self.dirty = true;
        if self.review.take(event) {
            return;
        }
        self.composer_event(event);
        if let Some(sheet) = self.sheet.as_mut() {
            sheet.take(event);
        }
        self.view.take(event);
    }

    /// Takes one frame as an `--rpc` client reads it (its JSON line), as if the session had
    /// sent it; a line that is no event changes nothing. For the fuzz target, which has no
    /// session able to send every kind of event with every content.
    #[cfg(feature = "fuzzing")]
    pub fn take_frame(&mut self, line: &[u8]) {
        if let Ok(event) = serde_json::from_slice::<Event>(line) {
            self.take_event(&event);
        }
    }

    /// What the session's events do to the composer and its list: paths offered for the `@`
    /// word, a withdrawn message back in the composer.
    fn composer_event(&mut self, event: &Event) {
        match event {
            Event::PathsCompleted(done) => {
                if let Some(mention) = self.mention.as_mut() {
                    mention.answered(&done.request_id, &done.paths);
                }
            }
            // Back where it can be edited; text typed meanwhile stays after it.
            Event::UserMessageWithdrawn(withdrawn) => {
                let typed = self.composer.take_draft();
                let text = if typed.is_empty() {
                    withdrawn.text.clone()
                } else {
                    format!("{} {typed}", withdrawn.text)
                };
                self.composer.set(text);
            }
            _ => {}
        }
    }

    /// The parts the renderer reads.
    pub(crate) fn parts(&mut self) -> Parts<'_> {
        let slash = self.slash_listing().then_some(self.slash_selected);
        Parts {
            view: &mut self.view,
            composer: &self.composer,
            scroll: self.scroll,
            hint: self.hint.as_deref(),
            slash,
            mention: self.mention.as_ref().filter(|m| m.is_offered()),
            sheet: self.sheet.as_ref(),
            review: &mut self.review,
        }
    }
}

/// What drawing reads of the interface.
pub(crate) struct Parts<'a> {
    pub view: &'a mut View,
    pub composer: &'a Composer,
    pub scroll: usize,
    pub hint: Option<&'a str>,
    pub slash: Option<usize>,
    /// Paths offered for the `@` word, when they are on screen.
    pub mention: Option<&'a Mention>,
    /// The sheet open over the conversation.
    pub sheet: Option<&'a Sheet>,
    /// The review view.
    pub review: &'a mut ReviewView,
}

impl Machine for Interface {
    fn handle_input(&mut self, now: Instant, input: Input<'_>) {
        // SIGTERM or SIGHUP ends the interface: a session waiting to take over never starts
        // (with the terminal gone, nobody would end it).
        if matches!(input, Input::Terminate) {
            self.next = None;
        }
        self.luxe.handle_input(now, input);
    }

    /// The session's effects, for io; its frames change only what is drawn. At the exit of a
    /// session being replaced, the next one takes its place and the exit goes to io, which
    /// finishes the old session's effects before it polls again.
    fn poll_output(&mut self) -> Option<Output> {
        if self.replaced {
            return None;
        }
        loop {
            match self.luxe.poll_output()? {
                Output::Exit { code } if self.next.is_some() => {
                    if let Some(next) = self.next.take() {
                        self.luxe = next;
                    }
                    self.view = View::default();
                    self.review = ReviewView::default();
                    self.scroll = 0;
                    self.replaced = true;
                    self.dirty = true;
                    return Some(Output::Exit { code });
                }
                Output::Frame(frame) => {
                    // What a client of --rpc would be shown, secrets cut out.
                    self.take_event(&frame.redacted_event());
                }
                Output::Flush | Output::Message(_) => {}
                other => return Some(other),
            }
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        // A frame held back for its interval is due then.
        let frame = (self.dirty && !self.urgent)
            .then_some(self.drawn_at)
            .flatten()
            .map(|at| at + FRAME_INTERVAL);
        [self.luxe.poll_timeout(), self.poll_at, frame]
            .into_iter()
            .flatten()
            .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.poll_at.is_some_and(|at| at <= now) {
            self.poll_at = None;
        }
        self.luxe.handle_timeout(now);
    }

    fn is_closed(&self) -> bool {
        self.luxe.is_closed()
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
