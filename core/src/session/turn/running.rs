//! One running turn's own state: its id and kind, its tally, steering waiting for the next
//! request, compaction's part, what a review turn works on and what it did, the latest
//! answer's text, and its step (waiting for the start-up probes, a model request, a back-off,
//! tool calls). Generic over its clock so that unit tests keep time themselves.

use std::ops::Add;
use std::time::{Duration, Instant};

use crate::effects::EffectId;
use crate::protocol::events::TurnSteered;

use super::compaction::TurnCompaction;
use super::tally::Tally;
use crate::session::guided_review::turns::ReviewTask;
use crate::session::model_step::ModelStep;
use crate::session::tool_run::ToolStep;

/// A running turn, or a compaction the client asked for (which runs like a turn that only
/// compacts: it holds the session, queues messages and can be interrupted).
#[derive(Debug)]
pub(in crate::session) struct Turn<At = Instant> {
    /// The turn's id; empty for a `compact` run.
    id: String,
    kind: TurnKind,
    /// Its tokens and cost so far.
    tally: Tally,
    steering: Vec<String>,
    /// Compaction's part of the turn: while a compaction is under way, model requests are
    /// summary requests.
    compaction: TurnCompaction,
    /// What a review turn does on the review.
    review: Option<ReviewTask>,
    /// Whether a fix turn called `report`.
    reported: bool,
    /// Whether a tool changed files.
    changed_files: bool,
    /// The text of the latest answer, for a review thread.
    answer_text: String,
    step: Step<At>,
}

/// What a [`Turn`] is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TurnKind {
    /// A turn of the conversation.
    Conversation,
    /// Only a `compact` request.
    Compaction,
}

/// Where the turn stands.
#[derive(Debug)]
pub(super) enum Step<At = Instant> {
    /// Waiting for the start-up probes before the first request, and for the server's word on
    /// the model's window until `window_until` (when it was being asked).
    WaitingForContext { window_until: Option<At> },
    /// A model request is under way; it is given up for silence at `idle_deadline`.
    Model {
        step: Box<ModelStep>,
        idle_deadline: At,
    },
    /// Waiting before the next attempt.
    Backoff { attempt: u32, until: At },
    /// Running the tool calls of the last answer.
    Tools(Box<ToolStep<At>>),
}

/// What an ended turn leaves: its id and tally for the record and `turn_usage`, and for a
/// review turn what it did.
#[derive(Debug)]
pub(super) struct Finished {
    pub(super) id: String,
    pub(super) tally: Tally,
    pub(super) review: Option<ReviewTask>,
    pub(super) answer_text: String,
    pub(super) reported: bool,
    pub(super) changed_files: bool,
}

impl<At: Copy + Ord + Add<Duration, Output = At>> Turn<At> {
    /// A turn of `kind` with nothing done yet; `priced` when the model's prices are known.
    pub(super) fn new(id: String, kind: TurnKind, priced: bool) -> Self {
        Self {
            id,
            kind,
            tally: Tally::new(priced),
            steering: Vec::new(),
            compaction: TurnCompaction::default(),
            review: None,
            reported: false,
            changed_files: false,
            answer_text: String::new(),
            step: Step::WaitingForContext { window_until: None },
        }
    }

    /// The turn's id; empty for a `compact` run.
    pub(in crate::session) fn id(&self) -> &str {
        &self.id
    }

    /// What the turn is for.
    pub(super) fn kind(&self) -> TurnKind {
        self.kind
    }

    /// What it cost so far; `None` once a price was unknown.
    pub(in crate::session) fn cost_usd(&self) -> Option<f64> {
        self.tally.cost_usd()
    }

    /// Compaction's part of the turn.
    pub(super) fn compaction(&self) -> &TurnCompaction {
        &self.compaction
    }

    /// Compaction's part of the turn, to change.
    pub(super) fn compaction_mut(&mut self) -> &mut TurnCompaction {
        &mut self.compaction
    }

    /// Adds a model step's usage at `prices`: a summary's counts apart from the answer's.
    pub(super) fn add_usage(
        &mut self,
        usage: &crate::model::wire::Usage,
        prices: Option<&crate::protocol::events::ModelCost>,
    ) {
        let summary = self.compaction.is_running();
        self.tally.add(usage, prices, summary);
    }

    /// What a review turn does on the review.
    pub(in crate::session) fn review(&self) -> Option<&ReviewTask> {
        self.review.as_ref()
    }

    /// A fix turn called `report`.
    pub(in crate::session) fn note_report(&mut self) {
        self.reported = true;
    }

    /// A tool call of this turn changed files: when it ends the open review is read again.
    pub(super) fn note_changed_files(&mut self) {
        self.changed_files = true;
    }

    /// The tool calls under way, when the turn runs them.
    pub(super) fn tools_mut(&mut self) -> Option<&mut ToolStep<At>> {
        match &mut self.step {
            Step::Tools(step) => Some(step),
            _ => None,
        }
    }

    /// Where the turn stands.
    pub(super) fn step(&self) -> &Step<At> {
        &self.step
    }

    /// The step under way, taken out (an interrupt): the turn waits for nothing after it.
    pub(super) fn take_step(&mut self) -> Step<At> {
        std::mem::replace(
            &mut self.step,
            Step::WaitingForContext { window_until: None },
        )
    }

    /// The tool calls under way, taken out (an interrupt); any other step stays.
    pub(super) fn take_tools(&mut self) -> Option<ToolStep<At>> {
        match self.take_step() {
            Step::Tools(step) => Some(*step),
            other => {
                self.step = other;
                None
            }
        }
    }

    /// Sets what a review turn does on the review.
    pub(super) fn for_review(mut self, review: Option<ReviewTask>) -> Self {
        self.review = review;
        self
    }

    /// `steer_turn`'s text joins the next request of a conversation turn; its frame, or
    /// `None` for a `compact` run, which takes no steering.
    pub(super) fn steer(&mut self, text: String) -> Option<TurnSteered> {
        (self.kind == TurnKind::Conversation).then(|| {
            self.steering.push(text.clone());
            TurnSteered {
                turn_id: self.id.clone(),
                text,
            }
        })
    }

    /// The steering texts that join the request being built.
    pub(super) fn take_steering(&mut self) -> Vec<String> {
        std::mem::take(&mut self.steering)
    }

    /// Whether steering waits for the next request.
    pub(super) fn is_steered(&self) -> bool {
        !self.steering.is_empty()
    }

    /// Keeps the latest answer's text for a review thread (a blank answer keeps the one
    /// before).
    pub(super) fn note_answer(&mut self, text: String) {
        if !text.trim().is_empty() {
            self.answer_text = text;
        }
    }

    /// The request `step` is under way, given up for silence at `idle_deadline`.
    pub(super) fn await_model(&mut self, step: ModelStep, idle_deadline: At) {
        self.step = Step::Model {
            step: Box::new(step),
            idle_deadline,
        };
    }

    /// The model step waiting on `id`, which was just heard from: it is given up for
    /// silence at `idle_deadline` now.
    pub(super) fn model_step(&mut self, id: EffectId, idle_deadline: At) -> Option<&mut ModelStep> {
        match &mut self.step {
            Step::Model {
                step,
                idle_deadline: idle,
            } if step.http() == id => {
                *idle = idle_deadline;
                Some(step)
            }
            _ => None,
        }
    }

    /// The model step under way, if any.
    pub(super) fn model_step_mut(&mut self) -> Option<&mut ModelStep> {
        match &mut self.step {
            Step::Model { step, .. } => Some(step),
            _ => None,
        }
    }

    /// The model step under way, taken out: its stream is over.
    pub(super) fn take_model_step(&mut self) -> Option<Box<ModelStep>> {
        match self.take_step() {
            Step::Model { step, .. } => Some(step),
            other => {
                self.step = other;
                None
            }
        }
    }

    /// Runs the tool calls of the answer.
    pub(super) fn run_tools(&mut self, calls: Vec<(String, String, serde_json::Value)>) {
        self.step = Step::Tools(Box::new(ToolStep::new(calls)));
    }

    /// Waits until `until` before attempt `attempt`.
    pub(super) fn back_off(&mut self, attempt: u32, until: At) {
        self.step = Step::Backoff { attempt, until };
    }

    /// Whether the turn waits for the start-up probes before its first request.
    pub(super) fn waits_for_context(&self) -> bool {
        matches!(self.step, Step::WaitingForContext { .. })
    }

    /// Whether a turn that waits for its context has waited for the server's word on the
    /// window as long as it may, at `now`.
    pub(super) fn window_wait_over(&self, now: At) -> bool {
        matches!(self.step, Step::WaitingForContext { window_until: Some(until) } if until <= now)
    }

    /// The turn's first request waits for the server's word on the window until `until`, if
    /// it has not started waiting already.
    pub(super) fn wait_for_window(&mut self, until: At) {
        if let Step::WaitingForContext { window_until } = &mut self.step {
            window_until.get_or_insert(until);
        }
    }

    /// The earliest deadline the turn waits on.
    pub(super) fn deadline(&self) -> Option<At> {
        match &self.step {
            Step::Model { idle_deadline, .. } => Some(*idle_deadline),
            Step::Backoff { until, .. } => Some(*until),
            Step::Tools(tools) => tools.deadline(),
            Step::WaitingForContext { window_until } => *window_until,
        }
    }

    /// The turn is over: what it leaves.
    pub(super) fn finish(self) -> Finished {
        Finished {
            id: self.id,
            tally: self.tally,
            review: self.review,
            answer_text: self.answer_text,
            reported: self.reported,
            changed_files: self.changed_files,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_joins_a_conversation_turn_only_and_is_taken_once() {
        let mut compact = Turn::<Duration>::new(String::new(), TurnKind::Compaction, false);
        assert!(
            compact.steer("faster".into()).is_none(),
            "a compact run takes none"
        );
        let mut turn = Turn::<Duration>::new("turn_3".into(), TurnKind::Conversation, true);
        let steered = turn.steer("use tabs".into()).unwrap();
        assert_eq!(
            (steered.turn_id.as_str(), steered.text.as_str()),
            ("turn_3", "use tabs")
        );
        turn.steer("and tests".into());
        assert!(turn.is_steered());
        assert_eq!(turn.take_steering(), ["use tabs", "and tests"]);
        assert!(!turn.is_steered() && turn.take_steering().is_empty());
        assert_eq!(turn.cost_usd(), Some(0.0), "priced: nothing spent yet");
    }

    #[test]
    fn a_blank_answer_keeps_the_text_before_and_the_turn_waits_for_its_context_first() {
        let mut turn = Turn::<Duration>::new("turn_1".into(), TurnKind::Conversation, false);
        assert!(turn.waits_for_context() && turn.deadline().is_none());
        turn.note_answer("Fixed in a.rs.".into());
        turn.note_answer(" \n".into());
        assert_eq!(turn.answer_text, "Fixed in a.rs.");
        assert!(turn.model_step_mut().is_none() && turn.take_model_step().is_none());
        assert!(
            turn.waits_for_context(),
            "taking no model step changes nothing"
        );
        turn.run_tools(Vec::new());
        assert!(turn.tools_mut().is_some() && !turn.waits_for_context());
        assert_eq!(turn.cost_usd(), None, "unpriced");
    }
}
