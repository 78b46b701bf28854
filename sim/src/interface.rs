//! A simulated terminal interface: a person's keys, pastes, resizes and wheel turns, and the
//! session's io and model, played against `luxe_interface::Interface` (which drives its session
//! only through the protocol's actions). After every step a frame is drawn, and it must hold
//! no control character and no `.env` value, and keep the dock on its last row.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use luxe_core::effects::HttpMethod;
use luxe_core::effects::{EffectId, Input, Output};
use luxe_core::harness::fake_io::{FakeIo, Step};
use luxe_core::{Luxe, Machine};
use luxe_interface::{Interface, Key, KeyCode, Mods, Request, TermEvent};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use crate::draw::Draw;
use crate::rpc::{ModelOp, SECRET, config, fake_io, model_answer, performed};

/// What a person types one key at a time.
const ALPHABET: &[u8] = b"abc xyz/@0123456789-.?";

/// Commands typed whole and sent.
const COMMANDS: &[&str] = &[
    "/help",
    "/model",
    "/mode plan",
    "/mode build",
    "/thinking low",
    "/auto-approve on",
    "/compact",
    "/review",
    "/sessions",
    "/new",
    "/github",
    "/pr",
    "/stack",
    "/restack",
    "/nonsense",
    "fix the tests please",
];

/// One step of a person, io, the model or the clock.
#[derive(Debug, Clone)]
pub enum Op {
    /// A character key (of a small alphabet).
    Type(u8),
    /// A command (or a message) typed and sent with Enter.
    Command(u8),
    /// A named key with modifiers (shift, ctrl, alt: a bit each).
    Key(u8, u8),
    /// A paste of this many bytes.
    Paste(u16),
    /// The terminal resized (columns, rows; 0 and 1 among them).
    Resize(u8, u8),
    /// The wheel turned (`true`: up).
    Wheel(bool),
    /// io performs its oldest effect (`true`: as a healthy machine would).
    Effect(bool),
    /// The model answers its oldest request.
    Model(ModelOp),
    /// The clock moves this many milliseconds.
    Advance(u16),
}

impl Op {
    /// A step, drawn.
    pub fn draw(g: &mut impl Draw) -> Self {
        match g.below(20) {
            0..=3 => Op::Type(g.byte()),
            4 | 5 => Op::Command(g.byte()),
            6..=8 => Op::Key(g.byte(), g.byte()),
            9 => Op::Paste((g.number() % 2048) as u16),
            10 => Op::Resize(g.byte(), g.byte()),
            11 => Op::Wheel(g.bool()),
            12..=14 => Op::Effect(!g.byte().is_multiple_of(6)),
            15..=17 => Op::Model(ModelOp::draw(g)),
            _ => Op::Advance((g.number() % 3000) as u16),
        }
    }
}

/// The interface, its terminal's size, and the io and model it meets.
pub struct Terminal {
    ui: Interface,
    now: Instant,
    size: (u16, u16),
    exited: bool,
    effects: VecDeque<Output>,
    http: VecDeque<EffectId>,
    io: FakeIo,
    tool_ids: u32,
    sessions: u32,
    /// How many times the interface took something (a terminal event, an io result, time).
    fed: u64,
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("size", &self.size)
            .field("exited", &self.exited)
            .field("effects", &self.effects.len())
            .field("http", &self.http.len())
            .finish_non_exhaustive()
    }
}

impl Terminal {
    /// The interface on a session of its own (a fake Anthropic, a `.env` holding the secret)
    /// in a `width`×`height` terminal, its start-up probes answered.
    pub fn start(now: Instant, width: u16, height: u16) -> Self {
        let luxe = Luxe::new(config(), now).expect("a valid config");
        let mut terminal = Self {
            ui: Interface::new(luxe, width, height),
            now,
            size: (width, height),
            exited: false,
            effects: VecDeque::new(),
            http: VecDeque::new(),
            io: fake_io(),
            tool_ids: 0,
            sessions: 1,
            fed: 0,
        };
        terminal.settle();
        while !terminal.effects.is_empty() {
            terminal.effect(true);
        }
        terminal.io.guard_env = true;
        terminal
    }

    /// How many times the interface took something so far: a step that leaves it as it was
    /// did nothing (an io answer with nothing waiting, a step after it ended).
    pub fn fed(&self) -> u64 {
        self.fed
    }

    /// Whether the interface has ended.
    pub fn is_closed(&self) -> bool {
        self.exited
    }

    /// Takes one step, then draws a frame and checks it; a digest of the frame.
    pub fn step(&mut self, op: &Op) -> u64 {
        if self.exited {
            return 0;
        }
        match *op {
            Op::Type(n) => self.key(KeyCode::Char(char::from(*pick(ALPHABET, n))), 0),
            Op::Command(n) => {
                for c in pick(COMMANDS, n).chars() {
                    self.key(KeyCode::Char(c), 0);
                }
                self.key(KeyCode::Enter, 0);
            }
            Op::Key(n, mods) => self.key(*pick(&KeyCode::NAMED, n), mods),
            Op::Paste(len) => {
                let text = "line of a paste\n".repeat(usize::from(len) / 16 + 1);
                self.term(TermEvent::Paste(text));
            }
            Op::Resize(w, h) => {
                self.size = (u16::from(w % 160), u16::from(h % 60));
                let (width, height) = self.size;
                self.term(TermEvent::Resize { width, height });
            }
            Op::Wheel(up) => self.term(TermEvent::Wheel { up }),
            Op::Effect(ok) => self.effect(ok),
            Op::Model(ref model) => {
                if let Some(id) = self.http.pop_front() {
                    let steps = model_answer(model, id, &mut self.tool_ids);
                    self.run(steps);
                }
            }
            Op::Advance(ms) => self.advance(Duration::from_millis(u64::from(ms))),
        }
        self.frame()
    }

    fn key(&mut self, code: KeyCode, mods: u8) {
        let mods = Mods {
            shift: mods & 1 != 0,
            ctrl: mods & 2 != 0,
            alt: mods & 4 != 0,
        };
        self.term(TermEvent::Key(Key { code, mods }));
    }

    fn term(&mut self, event: TermEvent) {
        self.fed += 1;
        self.ui.handle_term(self.now, event);
        self.settle();
    }

    fn input(&mut self, input: Input<'_>) {
        self.fed += 1;
        self.ui.handle_input(self.now, input);
        self.settle();
    }

    fn advance(&mut self, by: Duration) {
        self.fed += 1;
        let target = self.now + by;
        while let Some(deadline) = self.ui.poll_timeout().filter(|d| *d <= target) {
            self.now = self.now.max(deadline);
            self.ui.handle_timeout(self.now);
            self.settle();
        }
        self.now = target;
    }

    /// Does what io answered, in order.
    fn run(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Feed(completion) => completion.lend(|input| self.input(input)),
                Step::Advance(by) => self.advance(by),
            }
        }
    }

    fn effect(&mut self, ok: bool) {
        if let Some(effect) = self.effects.pop_front() {
            let steps = performed(&mut self.io, effect, ok);
            self.run(steps);
        }
    }

    /// Does what the interface asks of io, and queues its session's effects.
    fn settle(&mut self) {
        loop {
            while let Some(request) = self.ui.take_request() {
                match request {
                    Request::Suspend => {
                        let (width, height) = self.size;
                        self.ui
                            .handle_term(self.now, TermEvent::Resize { width, height });
                    }
                    Request::Remember { .. } => {}
                    Request::Open { resume: Some(_) } => {
                        self.ui
                            .refuse_open("the simulator keeps no earlier sessions");
                    }
                    Request::Open { resume: None } => {
                        self.sessions += 1;
                        let mut config = config();
                        config.session_id = format!("session-{}", self.sessions);
                        let luxe = Luxe::new(config, self.now).expect("a valid config");
                        self.ui.open(self.now, luxe);
                    }
                }
            }
            let Some(output) = self.ui.poll_output() else {
                if self.ui.take_replaced() {
                    // The old session's effects end with it, as io drops them.
                    self.effects.clear();
                    self.http.clear();
                    continue;
                }
                return;
            };
            match output {
                Output::Exit { .. } => {
                    if !self.ui.take_replaced() {
                        self.exited = true;
                        return;
                    }
                    self.effects.clear();
                    self.http.clear();
                }
                // A question about a local server's model: never answered here.
                Output::HttpRequest { request, .. }
                    if request.method == HttpMethod::Get || request.url.ends_with("/api/show") => {}
                Output::HttpRequest { id, request } => {
                    let body = String::from_utf8_lossy(&request.body);
                    assert!(!body.contains(SECRET), "a model request carries the secret");
                    self.http.push_back(id);
                }
                Output::CancelHttp { id } => self.http.retain(|h| *h != id),
                Output::CloseOpened { handle } => self.io.closed(handle),
                Output::Kill { id } => {
                    self.effects.retain(|e| e.result_id() != Some(id));
                    self.ui.handle_input(
                        self.now,
                        Input::ProcessExited {
                            id,
                            status: Ok(None),
                        },
                    );
                }
                Output::Log(_) | Output::Flush | Output::Frame(_) | Output::Message(_) => {}
                effect => self.effects.push_back(effect),
            }
        }
    }

    /// Draws a frame at the terminal's size and checks it: no control character, no secret,
    /// the dock on the last row. A digest of what it shows.
    fn frame(&mut self) -> u64 {
        let (width, height) = self.size;
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        self.ui.render(area, &mut buf);
        let mut text = String::new();
        for cell in &buf.content {
            assert!(
                !cell.symbol().chars().any(char::is_control),
                "a control character reached the screen: {:?}",
                cell.symbol()
            );
            text.push_str(cell.symbol());
        }
        assert!(!text.contains(SECRET), "the screen shows the secret");
        if width >= 4 && height >= 1 {
            let dock: String = (0..width).map(|x| buf[(x, height - 1)].symbol()).collect();
            assert!(!dock.trim().is_empty(), "the dock is on the last row");
        }
        fnv(text.as_bytes())
    }
}

/// `items[n]`, wrapping.
fn pick<T>(items: &[T], n: u8) -> &T {
    &items[usize::from(n) % items.len()]
}

/// FNV-1a of `bytes`: a frame's digest for the transcript.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
