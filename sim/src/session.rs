//! The deterministic simulation harness: `luxe-core` driven directly, on a virtual clock, with
//! every step checked by `luxe_core::harness::Checked` and the transcript printed on failure.

use std::time::{Duration, Instant};

use luxe_core::effects::{ChangedFile, DiffSource};
use luxe_core::harness::{Checked, frames, test_config};
use luxe_core::protocol::events::Event;
use luxe_core::protocol::guided_review::FileStatus;
use luxe_core::{Config, Input, Output};

/// A session under simulation. Later capabilities add scripted models, tools, gh and git here.
pub struct Sim {
    checked: Checked,
    start: Vec<Event>,
    /// The effects the session started with (its probes), until a test takes them.
    start_effects: Vec<Output>,
    transcript: Vec<String>,
}

impl Sim {
    /// A session with the default test config.
    pub fn new() -> Self {
        Self::with_config(test_config())
    }

    /// A session with `config`.
    pub fn with_config(config: Config) -> Self {
        let mut sim = Self {
            checked: Checked::new(config, Instant::now()),
            start: Vec::new(),
            start_effects: Vec::new(),
            transcript: Vec::new(),
        };
        let start = sim.checked.take_start();
        sim.record_outputs(&start);
        sim.start = frames(&start).cloned().collect();
        sim.start_effects = start
            .into_iter()
            .filter(|o| !matches!(o, Output::Frame(_)))
            .collect();
        sim
    }

    /// The effects the session started with (the start-up probes), for a test to answer.
    pub fn take_start_effects(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.start_effects)
    }

    /// The frames the session started with (`ready`, `state_changed`).
    pub fn start_frames(&self) -> &[Event] {
        &self.start
    }

    /// Sends one client line (a JSON frame, or anything) and returns the frames it produced.
    pub fn send(&mut self, line: &str) -> Vec<Event> {
        self.send_bytes(line.as_bytes())
    }

    /// Sends raw bytes as one line.
    pub fn send_bytes(&mut self, line: &[u8]) -> Vec<Event> {
        frames(&self.send_outputs(line)).cloned().collect()
    }

    /// Sends one line and returns every output it produced, effects included.
    pub fn send_outputs(&mut self, line: &[u8]) -> Vec<Output> {
        self.transcript
            .push(format!("← {}", String::from_utf8_lossy(line)));
        let out = self.checked.line(line);
        self.record_outputs(&out);
        out
    }

    /// Feeds any input and returns all outputs.
    pub fn input(&mut self, input: Input<'_>) -> Vec<Output> {
        self.transcript.push(format!("← {input:?}"));
        let out = self.checked.input(input);
        self.record_outputs(&out);
        out
    }

    /// Moves the virtual clock forward, running due timers.
    pub fn advance(&mut self, by: Duration) -> Vec<Output> {
        self.transcript.push(format!("⏱ +{by:?}"));
        let out = self.checked.advance(by);
        self.record_outputs(&out);
        out
    }

    /// Whether the session has exited.
    pub fn is_closed(&self) -> bool {
        self.checked.is_closed()
    }

    /// Everything sent and received so far, one line each.
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    fn record_outputs(&mut self, outputs: &[Output]) {
        for output in outputs {
            self.transcript.push(match output {
                Output::Frame(frame) => {
                    let mut line = Vec::new();
                    frame.encode(&mut line);
                    format!("→ {}", String::from_utf8_lossy(&line).trim_end())
                }
                other => format!("→ {other:?}"),
            });
        }
    }
}

impl Default for Sim {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- sim transcript ---\n{}", self.transcript.join("\n"));
        }
    }
}

/// A small working-tree change, as io would read it, for review simulations: one modified
/// file whose second line changed.
pub fn small_review_source() -> DiffSource {
    DiffSource {
        root: "/work/app".into(),
        base_commit: Some("a".repeat(40)),
        head_commit: None,
        files: vec![ChangedFile {
            path: "src/lib.rs".into(),
            old_path: None,
            status: FileStatus::Modified,
            old_mode: Some(0o100_644),
            new_mode: Some(0o100_644),
            old: Some(b"fn a() {}\nfn b() {}\n".to_vec()),
            new: Some(b"fn a() {}\nfn b() { 1 }\n".to_vec()),
        }],
    }
}
