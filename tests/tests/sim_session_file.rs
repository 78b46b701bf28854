//! The session file on the virtual clock, through what disks do to it: a file torn anywhere and
//! resumed, appends that fail after writing part of their bytes, results that come late. Io is
//! played here byte for byte, so the file these build is the one a real run would leave.

use std::collections::VecDeque;

use luxe_core::config::SessionFile;
use luxe_core::effects::EffectId;
use luxe_core::harness::test_config;
use luxe_core::model::conversation::Message;
use luxe_core::store::{Record, restore};
use luxe_core::{Config, Input, Output};
use luxe_sim::session::Sim;
use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde_json::json;

const DIR: &str = "/home/.luxe/sessions";
const PATH: &str = "/home/.luxe/sessions/session-test.jsonl";

fn config(resume: Option<&[u8]>) -> Config {
    let mut config = test_config();
    config.sessions_dir = Some(DIR.into());
    config.resume = resume.map(|bytes| SessionFile {
        path: PATH.into(),
        bytes: bytes.to_vec(),
    });
    config
}

/// What a client does between two looks at the file.
#[derive(Clone, Debug)]
enum Step {
    /// A message, and so a turn (without a model it ends at once, recorded).
    Say(String),
    /// A mode change, recorded as settings.
    Mode(bool),
    /// The results held back so far reach the core.
    Answer,
}

impl Arbitrary for Step {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 4 {
            0 | 1 => Self::Say(String::arbitrary(g)),
            2 => Self::Mode(bool::arbitrary(g)),
            _ => Self::Answer,
        }
    }
}

impl Step {
    fn line(&self) -> Option<String> {
        match self {
            Self::Say(text) => Some(
                json!({"kind": "submit_user_message", "content": {"text": text}}).to_string(),
            ),
            Self::Mode(plan) => Some(
                json!({"kind": "set_mode", "content": {"mode": if *plan { "plan" } else { "build" }}})
                    .to_string(),
            ),
            Self::Answer => None,
        }
    }
}

/// What becomes of one append: all of it is written, or (`torn: Some(n)`) only its first
/// `n % len` bytes and the write fails; its result comes at once or (`late`) with the next
/// [`Step::Answer`].
#[derive(Clone, Copy, Debug)]
struct Fate {
    torn: Option<u16>,
    late: bool,
}

impl Arbitrary for Fate {
    fn arbitrary(g: &mut Gen) -> Self {
        Self {
            torn: (u8::arbitrary(g) % 3 == 0).then(|| u16::arbitrary(g)),
            late: bool::arbitrary(g),
        }
    }
}

/// Io for the session file: appends land (or tear) as their fates say.
#[derive(Default)]
struct Disk {
    file: Vec<u8>,
    fates: VecDeque<Fate>,
    held: Vec<(EffectId, Result<(), String>)>,
    /// The bytes of every append that was written whole.
    landed: Vec<u8>,
    /// The bytes of every append.
    issued: Vec<u8>,
}

impl Disk {
    /// Performs the appends among `outputs`; returns the results due now.
    fn perform(&mut self, outputs: &[Output]) -> Vec<(EffectId, Result<(), String>)> {
        let mut now = Vec::new();
        for output in outputs {
            let Output::AppendFile { id, path, bytes } = output else {
                continue;
            };
            assert_eq!(path, PATH);
            // The first write carries the header: it is taken to land (a session whose header
            // never reached the disk has nothing to resume).
            let fate = match self.fates.pop_front() {
                Some(fate) if !self.issued.is_empty() => fate,
                _ => Fate {
                    torn: None,
                    late: false,
                },
            };
            self.issued.extend(bytes);
            let result = match fate.torn {
                Some(written) => {
                    let written = usize::from(written) % bytes.len();
                    self.file.extend(&bytes[..written]);
                    Err("No space left on device".to_owned())
                }
                None => {
                    self.file.extend(bytes);
                    self.landed.extend(bytes);
                    Ok(())
                }
            };
            if fate.late {
                self.held.push((*id, result));
            } else {
                now.push((*id, result));
            }
        }
        now
    }

    /// A session of `config`, its file started on this disk (a new session writes its header
    /// as it starts).
    fn start(&mut self, config: Config) -> Sim {
        let mut sim = Sim::with_config(config);
        let start = sim.take_start_effects();
        self.settle(&mut sim, start);
        sim
    }

    /// Runs `outputs` and every output their results cause, until nothing is due.
    fn settle(&mut self, sim: &mut Sim, outputs: Vec<Output>) {
        let mut due = self.perform(&outputs);
        while !due.is_empty() {
            let mut next = Vec::new();
            for (id, result) in due {
                let out = sim.input(Input::FileAppended { id, result });
                next.extend(self.perform(&out));
            }
            due = next;
        }
    }
}

/// The records in `bytes`, one per line; lines that are not records (a torn append's part, an
/// empty line) hold none.
fn records_in(bytes: &[u8]) -> impl Iterator<Item = Record> + '_ {
    bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
}

fn messages_in(bytes: &[u8]) -> Vec<Message> {
    records_in(bytes)
        .filter_map(|record| match record {
            Record::Message { message, .. } => Some(message),
            _ => None,
        })
        .collect()
}

fn is_subsequence<T: PartialEq>(short: &[T], long: &[T]) -> bool {
    let mut long = long.iter();
    short.iter().all(|item| long.any(|other| other == item))
}

/// Whatever tears and late results the appends meet, the file restores every record of every
/// append that landed, in order, and nothing that was never written.
fn failed_appends_swallow_nothing_after_them(steps: Vec<Step>, fates: Vec<Fate>) -> bool {
    let mut disk = Disk {
        fates: fates.into(),
        ..Disk::default()
    };
    let mut sim = disk.start(config(None));
    for step in &steps {
        match step.line() {
            Some(line) => {
                let out = sim.send_outputs(line.as_bytes());
                disk.settle(&mut sim, out);
            }
            None => {
                for (id, result) in std::mem::take(&mut disk.held) {
                    let out = sim.input(Input::FileAppended { id, result });
                    disk.settle(&mut sim, out);
                }
            }
        }
    }
    if disk.file.is_empty() {
        return true;
    }
    let Ok(restored) = restore(&disk.file) else {
        return false;
    };
    is_subsequence(&messages_in(&disk.landed), &restored.messages)
        && is_subsequence(&restored.messages, &messages_in(&disk.issued))
}

#[test]
fn property_failed_appends_swallow_nothing_after_them() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(failed_appends_swallow_nothing_after_them as fn(Vec<Step>, Vec<Fate>) -> bool);
}

/// A session file written without trouble, by a session that said `texts`.
fn written(texts: &[String]) -> Vec<u8> {
    let mut disk = Disk::default();
    let mut sim = disk.start(config(None));
    for (n, text) in texts.iter().enumerate() {
        let out = sim.send_outputs(Step::Say(text.clone()).line().unwrap().as_bytes());
        disk.settle(&mut sim, out);
        let out = sim.send_outputs(Step::Mode(n % 2 == 0).line().unwrap().as_bytes());
        disk.settle(&mut sim, out);
    }
    disk.file
}

/// A file cut anywhere after its header, resumed, then one more message: restoring the file
/// that leaves gives every record whole before the cut, then the new one, and skips at most
/// the torn line.
fn a_cut_anywhere_swallows_nothing_after_the_resume(texts: Vec<String>, cut: usize) -> bool {
    // A few turns make every kind of line; more only cost time.
    let file = written(&texts[..texts.len().min(12)]);
    if file.is_empty() {
        return true;
    }
    let header_end = file.iter().position(|b| *b == b'\n').unwrap();
    let cut = header_end + cut % (file.len() - header_end + 1);
    let before = &file[..cut];
    let mut sim = Sim::with_config(config(Some(before)));
    let mut disk = Disk {
        file: before.to_vec(),
        ..Disk::default()
    };
    let out = sim.send_outputs(Step::Say("after the cut".into()).line().unwrap().as_bytes());
    disk.settle(&mut sim, out);

    // A cut inside a record leaves a torn line; a cut at a line's end, or just before its line
    // feed, leaves only whole records (a proper prefix of a JSON object never reads as one).
    let last = before.rsplit(|b| *b == b'\n').next().unwrap();
    let torn = serde_json::from_slice::<Record>(last).is_err() && !last.is_empty();
    let mut want = messages_in(before);
    want.extend(messages_in(&disk.landed));
    let Ok(restored) = restore(&disk.file) else {
        return false;
    };
    let turns_before = records_in(before)
        .filter(|r| matches!(r, Record::TurnEnded { .. }))
        .count();
    restored.messages == want
        // The turn gets no answer here: a note in the model's place may close it.
        && want
            .iter()
            .rev()
            .find(|m| m.role == luxe_core::model::conversation::Role::User)
            .is_some_and(|m| m.text() == "after the cut")
        && restored.turns as usize == turns_before + 1
        && restored.skipped.len() == usize::from(torn)
}

#[test]
fn property_a_cut_anywhere_swallows_nothing_after_the_resume() {
    QuickCheck::new().tests(300).quickcheck(
        a_cut_anywhere_swallows_nothing_after_the_resume as fn(Vec<String>, usize) -> bool,
    );
}
