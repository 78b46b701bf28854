//! [`Checked`]: a `Luxe` driven on a virtual clock whose every step is checked: each client line
//! gets the answer the protocol promises, frames are flushed before the effects after them, no
//! `.env` value leaves, and the [`Ledger`] keeps the promises across steps.

use std::time::{Duration, Instant};

use super::check_line;
use super::frame_checks::frames;
use super::ledger::Ledger;
use crate::config::Config;
use crate::effects::{Input, Output};
use crate::luxe::Luxe;
use crate::output_order::is_effect;
use crate::protocol::actions::Action;
use crate::protocol::codec::{Incoming, Rejection, decode};
use crate::protocol::events::Event;
use crate::redact::secret_values;

/// A `Luxe` whose every step is checked against the protocol's invariants.
#[derive(Debug)]
pub struct Checked {
    luxe: Luxe,
    now: Instant,
    exited: bool,
    start: Vec<Output>,
    ledger: Ledger,
    /// The values of the config's `.env` files, which no frame or request body may carry.
    secrets: Vec<String>,
    /// The last frame drained since the last flush: io may still hold it.
    unflushed: Option<Event>,
}

impl Checked {
    /// Starts a session; `config` must be valid. The start-up frames are checked and kept for
    /// [`Checked::take_start`].
    pub fn new(config: Config, now: Instant) -> Self {
        let secrets = config
            .env_files
            .iter()
            .flat_map(|file| secret_values(&file.bytes))
            .collect();
        let luxe = Luxe::new(config, now).expect("a valid config");
        let mut checked = Self {
            luxe,
            now,
            exited: false,
            start: Vec::new(),
            ledger: Ledger::default(),
            secrets,
            unflushed: None,
        };
        checked.ledger.starting = true;
        checked.start = checked.drain();
        checked.ledger.starting = false;
        match checked.start.first() {
            Some(Output::Frame(frame)) if matches!(frame.event(), Event::Ready(_)) => {}
            other => panic!("ready must come first, got {other:?}"),
        }
        checked
    }

    /// The outputs `Luxe::new` queued (`ready`, `state_changed`); empty after the first call.
    pub fn take_start(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.start)
    }

    /// Whether an `Exit` was drained.
    pub fn is_closed(&self) -> bool {
        self.exited
    }

    /// The virtual clock.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Moves the clock forward, running timers that fall due, and returns their outputs.
    pub fn advance(&mut self, by: Duration) -> Vec<Output> {
        let target = self.now + by;
        let mut out = Vec::new();
        while let Some(deadline) = self.luxe.poll_timeout().filter(|d| *d <= target) {
            self.now = self.now.max(deadline);
            self.luxe.handle_timeout(self.now);
            out.extend(self.drain());
        }
        self.now = target;
        out
    }

    /// Feeds any input and drains, checking the invariants every output must keep.
    pub fn input(&mut self, input: Input<'_>) -> Vec<Output> {
        let opened = match &input {
            Input::FileOpened { id, result: Ok(_) } => {
                if let Some(open) = self.ledger.open_files.get_mut(id) {
                    open.1 = true;
                }
                Some(*id)
            }
            Input::FileOpened { id, result: Err(_) } => {
                // io holds nothing for an open that failed.
                self.ledger.open_files.remove(id);
                None
            }
            _ => None,
        };
        self.luxe.handle_input(self.now, input);
        let out = self.drain();
        if let Some(id) = opened {
            assert!(
                self.ledger.open_turn.is_some() || !self.ledger.open_files.contains_key(&id),
                "{id:?} was opened after its turn and is still held"
            );
        }
        out
    }

    /// Feeds one client line (LF appended) and checks that it got exactly the answer the
    /// protocol promises for it.
    pub fn line(&mut self, line: &[u8]) -> Vec<Output> {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        let was_closed = self.exited;
        // A review or GitHub request is answered later (after git, gh or disk), exactly once;
        // so is an edit_review that makes no edit (review_session_save_failed).
        let awaited = match decode(line) {
            Ok(Some(Incoming {
                action,
                request_id: Some(id),
            })) if answered_later(&action) => Some(id),
            Err(Rejection {
                kind: Some(kind),
                request_id: Some(id),
                ..
            }) if kind == "edit_review" => Some(id),
            _ => None,
        };
        if let Some(id) = awaited
            && !was_closed
            && line.len() <= self.luxe.max_frame_bytes()
        {
            self.ledger.counted.insert(id.clone());
            *self.ledger.awaiting.entry(id).or_default() += 1;
        }
        let out = self.input(Input::ClientBytes(&bytes));
        if was_closed {
            assert!(out.is_empty(), "output after exit: {out:?}");
            return out;
        }
        let frames: Vec<&Event> = frames(&out).collect();
        if line.len() > self.luxe.max_frame_bytes() {
            assert_one_rejection(&frames, None, line);
            return out;
        }
        match decode(line) {
            Ok(None) => assert!(out.is_empty(), "a blank line was answered: {out:?}"),
            Err(rejection) => {
                assert_eq!(
                    frames,
                    [&rejection.into_event()],
                    "a bad line gets exactly its rejection"
                );
                assert_eq!(out.len(), 1);
            }
            Ok(Some(incoming)) => match incoming.action {
                Action::Close => {
                    assert_eq!(out, [Output::Exit { code: 0 }]);
                }
                // These move a turn along: their frames are checked by the ledger.
                Action::SubmitUserMessage(_)
                | Action::RespondPermission(_)
                | Action::AnswerQuestion(_)
                | Action::InterruptTurn
                | Action::SetPermissionAutoApprove(_)
                | Action::RefreshWorkspace => {}
                // Answered now or later, exactly once: the ledger counts.
                action if answered_later(&action) => {}
                // Started (its end is the ledger's to check) or refused, with its id either way.
                Action::Compact(compact) => {
                    let id = Some(&compact.request_id);
                    let started = frames.iter().any(
                        |f| matches!(f, Event::CompactionStarted(s) if s.request_id.as_ref() == id),
                    );
                    let refused = matches!(frames[..],
                        [Event::ActionRejected(r)] if r.request_id.as_ref() == id);
                    assert!(started || refused, "compact is started or refused: {out:?}");
                }
                // Exactly one frame; effects may come with it (a settings change is recorded).
                _ => {
                    assert_eq!(frames.len(), 1, "one answer per action: {out:?}");
                }
            },
        }
        out
    }

    /// Drains the outputs, checking the order io performs them in: every frame is flushed
    /// before an effect after it starts. The flushes themselves carry nothing and are not
    /// returned.
    fn drain(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        while let Some(output) = self.luxe.poll_output() {
            assert!(!self.exited, "output after exit: {output:?}");
            if is_effect(&output) {
                assert!(
                    self.unflushed.is_none(),
                    "{output:?} starts before {:?} is flushed",
                    self.unflushed
                );
            }
            match &output {
                Output::Flush => {
                    self.unflushed = None;
                    continue;
                }
                Output::Frame(frame) => {
                    let mut line = Vec::new();
                    frame.encode(&mut line);
                    check_line(&line);
                    self.check_redacted(&line);
                    self.ledger.observe(frame.event());
                    self.unflushed = Some(frame.event().clone());
                }
                Output::HttpRequest { request, .. } => {
                    self.check_redacted(&request.body);
                    self.ledger.observe_effect(&output);
                }
                Output::Exit { .. } => self.exited = true,
                effect => self.ledger.observe_effect(effect),
            }
            out.push(output);
        }
        assert_eq!(
            self.exited,
            self.luxe.is_closed(),
            "exit and is_closed disagree"
        );
        out
    }
}

impl Checked {
    /// Asserts that `bytes` (a frame, a request body) carry no `.env` value.
    fn check_redacted(&self, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        for secret in &self.secrets {
            assert!(
                !text.contains(secret.as_str()),
                "a .env value got out: {text}"
            );
        }
    }
}

/// Whether `action` is answered once, possibly later (after git, gh or the disk): review and
/// GitHub requests.
fn answered_later(action: &Action) -> bool {
    matches!(
        action,
        Action::LoadGuidedReview(_)
            | Action::EditReview(_)
            | Action::RequestAgentReview(_)
            | Action::CommitReviewChapters(_)
            | Action::ListPullRequests(_)
            | Action::GetPullRequest(_)
            | Action::PostPullRequestComment(_)
            | Action::ReplyToReviewThread(_)
            | Action::ResolveReviewThread(_)
            | Action::EditPullRequest(_)
            | Action::MergePullRequest(_)
            | Action::PreviewPullRequest(_)
            | Action::OpenPullRequest(_)
            | Action::PreviewPullRequestReview(_)
            | Action::PostPullRequestReview(_)
            | Action::PreviewStack(_)
            | Action::OpenStack(_)
            | Action::PlanRestack(_)
            | Action::Restack(_)
    )
}

fn assert_one_rejection(frames: &[&Event], kind: Option<&str>, line: &[u8]) {
    match frames {
        [Event::ActionRejected(rejected)] => assert_eq!(rejected.kind.as_deref(), kind),
        other => panic!(
            "{:?} must get exactly one action_rejected, got {other:?}",
            String::from_utf8_lossy(&line[..line.len().min(200)])
        ),
    }
}
