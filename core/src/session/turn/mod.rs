//! A turn: model requests with retries, streamed events, then tool calls, until the model ends
//! its answer, fails, or the client interrupts. Its requests are `requests.rs`'s.

mod requests;
mod tally;

pub(super) use requests::encode_call;

use std::time::Instant;

use crate::effects::EffectId;
use crate::effects::Output;
use crate::model::catalogue::{ModelRef, Provider};
use crate::model::conversation::{Block, Message, Role};
use crate::protocol::events::{Event, TurnEnded, TurnStarted, TurnSteered, UserMessageQueued};
use crate::protocol::values::{TurnEndReason, TurnSource};

use super::compaction::TurnCompaction;
use super::model_step::ModelStep;
use super::review_turns::ReviewTask;
use super::tool_run::ToolStep;
use super::{Queued, Session};
use crate::store::Record;

/// A running turn, or a compaction the client asked for (which runs like a turn that only
/// compacts: it holds the session, queues messages and can be interrupted).
#[derive(Debug)]
pub(super) struct Turn {
    /// The turn's id; empty for a `compact` run.
    id: String,
    kind: TurnKind,
    /// Its tokens and cost so far.
    tally: tally::Tally,
    steering: Vec<String>,
    /// Compaction's part of the turn (owned by `compaction.rs`): while a compaction is under
    /// way, model requests are summary requests.
    pub(super) compaction: TurnCompaction,
    /// What a review turn does on the review.
    review: Option<ReviewTask>,
    /// Whether a fix turn called `report`.
    reported: bool,
    /// Whether a tool changed files.
    changed_files: bool,
    /// The text of the latest answer, for a review thread.
    answer_text: String,
    step: Step,
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
pub(super) enum Step {
    /// Waiting for the start-up probes before the first request.
    WaitingForContext,
    /// A model request is under way; it is given up for silence at `idle_deadline`.
    Model {
        step: Box<ModelStep>,
        idle_deadline: Instant,
    },
    /// Waiting before the next attempt.
    Backoff { attempt: u32, until: Instant },
    /// Running the tool calls of the last answer.
    Tools(Box<ToolStep>),
}

impl Turn {
    /// The turn's id; empty for a `compact` run.
    pub(super) fn id(&self) -> &str {
        &self.id
    }

    /// What the turn is for.
    pub(super) fn kind(&self) -> TurnKind {
        self.kind
    }

    /// What it cost so far; `None` once a price was unknown.
    pub(super) fn cost_usd(&self) -> Option<f64> {
        self.tally.cost_usd()
    }

    /// What a review turn does on the review.
    pub(super) fn review(&self) -> Option<&ReviewTask> {
        self.review.as_ref()
    }

    /// A fix turn called `report`.
    pub(super) fn note_report(&mut self) {
        self.reported = true;
    }

    /// A tool changed files.
    pub(super) fn note_changed_files(&mut self) {
        self.changed_files = true;
    }

    /// The tool calls under way, when the turn runs them.
    pub(super) fn tools_mut(&mut self) -> Option<&mut ToolStep> {
        match &mut self.step {
            Step::Tools(step) => Some(step),
            _ => None,
        }
    }

    /// Sets what a review turn does on the review.
    fn for_review(mut self, review: Option<ReviewTask>) -> Self {
        self.review = review;
        self
    }

    /// `steer_turn`'s text joins the next request of a conversation turn; its frame, or
    /// `None` for a `compact` run, which takes no steering.
    fn steer(&mut self, text: String) -> Option<TurnSteered> {
        (self.kind == TurnKind::Conversation).then(|| {
            self.steering.push(text.clone());
            TurnSteered {
                turn_id: self.id.clone(),
                text,
            }
        })
    }

    /// The steering texts that join the request being built.
    fn take_steering(&mut self) -> Vec<String> {
        std::mem::take(&mut self.steering)
    }

    /// Whether steering waits for the next request.
    fn is_steered(&self) -> bool {
        !self.steering.is_empty()
    }

    /// Keeps the latest answer's text for a review thread (a blank answer keeps the one
    /// before).
    fn note_answer(&mut self, text: String) {
        if !text.trim().is_empty() {
            self.answer_text = text;
        }
    }

    /// The request `step` is under way, given up for silence at `idle_deadline`.
    fn await_model(&mut self, step: ModelStep, idle_deadline: Instant) {
        self.step = Step::Model {
            step: Box::new(step),
            idle_deadline,
        };
    }

    /// The model step waiting on `id`, which was just heard from: it is given up for
    /// silence at `idle_deadline` now.
    fn model_step(&mut self, id: EffectId, idle_deadline: Instant) -> Option<&mut ModelStep> {
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
    fn model_step_mut(&mut self) -> Option<&mut ModelStep> {
        match &mut self.step {
            Step::Model { step, .. } => Some(step),
            _ => None,
        }
    }

    /// The model step under way, taken out: its stream is over.
    fn take_model_step(&mut self) -> Option<Box<ModelStep>> {
        match std::mem::replace(&mut self.step, Step::WaitingForContext) {
            Step::Model { step, .. } => Some(step),
            other => {
                self.step = other;
                None
            }
        }
    }

    /// Runs the tool calls of the answer.
    fn run_tools(&mut self, calls: Vec<(String, String, serde_json::Value)>) {
        self.step = Step::Tools(Box::new(ToolStep::new(calls)));
    }

    /// Waits until `until` before attempt `attempt`.
    fn back_off(&mut self, attempt: u32, until: Instant) {
        self.step = Step::Backoff { attempt, until };
    }

    /// Whether the turn waits for the start-up probes before its first request.
    fn waits_for_context(&self) -> bool {
        matches!(self.step, Step::WaitingForContext)
    }

    /// A turn of `kind` with nothing done yet; `priced` when the model's prices are known.
    pub(super) fn new(id: String, kind: TurnKind, priced: bool) -> Self {
        Self {
            id,
            kind,
            tally: tally::Tally::new(priced),
            steering: Vec::new(),
            compaction: TurnCompaction::default(),
            review: None,
            reported: false,
            changed_files: false,
            answer_text: String::new(),
            step: Step::WaitingForContext,
        }
    }

    /// The earliest deadline the turn waits on.
    pub(super) fn deadline(&self) -> Option<Instant> {
        match &self.step {
            Step::Model { idle_deadline, .. } => Some(*idle_deadline),
            Step::Backoff { until, .. } => Some(*until),
            Step::Tools(tools) => tools.deadline(),
            Step::WaitingForContext => None,
        }
    }
}

impl Session {
    /// Starts a turn for `queued`, or queues it behind the running one.
    pub(super) fn submit(&mut self, now: Instant, queued: Queued, source: TurnSource) {
        if self.turn.is_some() {
            self.emit(Event::UserMessageQueued(UserMessageQueued {
                text: queued.text.clone(),
                position: u32::try_from(self.queue.len() + 1).unwrap_or(u32::MAX),
            }));
            self.queue.push_back(queued);
        } else {
            self.start_turn(now, queued, source);
        }
    }

    /// Adds a turn's or `compact` run's cost; an unknown cost makes the total unknown.
    pub(super) fn add_session_cost(&mut self, cost_usd: Option<f64>) {
        self.session_cost_usd = self.session_cost_usd.zip(cost_usd).map(|(a, b)| a + b);
    }

    /// Starts a turn for `message`.
    pub(super) fn start_turn(&mut self, now: Instant, message: Queued, source: TurnSource) {
        self.turns_started += 1;
        let id = format!("turn_{}", self.turns_started);
        let priced = self.model.as_ref().and_then(|m| m.cost()).is_some();
        let turn = Turn::new(id.clone(), TurnKind::Conversation, priced);
        self.turn = Some(turn.for_review(message.review));
        self.emit_state();
        self.emit(Event::TurnStarted(TurnStarted {
            turn_id: id,
            source,
        }));
        let mut content = vec![Block::Text { text: message.text }];
        if let Some(issue) = self.issue.take() {
            content.insert(
                0,
                Block::Text {
                    text: issue.prompt(),
                },
            );
        }
        content.extend(message.images.into_iter().map(|i| Block::Image {
            media_type: i.media_type,
            data: i.data,
        }));
        // A session file from before this rule may end in an unanswered message.
        self.settle_unanswered("the session ended first");
        self.remember(Message {
            role: Role::User,
            content,
        });
        if let Err(why) = self.usable_model() {
            return self.end_turn(now, TurnEndReason::Error, Some(why));
        }
        if self.context.is_ready() {
            self.send_request(now, 1);
        }
    }

    /// The model to ask, or why there is none that can be used.
    pub(super) fn usable_model(&self) -> Result<ModelRef, String> {
        let Some(model) = self.model.clone() else {
            return Err(format!(
                "no model is configured: {}; {}; or pass --model provider/model",
                Provider::Anthropic.setup_hint(),
                Provider::OpenAi.setup_hint()
            ));
        };
        if self.providers.endpoint(model.provider).is_none() {
            return Err(format!(
                "{}/{} cannot be used: {}",
                model.provider.as_str(),
                model.id,
                model.provider.setup_hint()
            ));
        }
        Ok(model)
    }

    /// The probes finished: a turn that waited for them sends its first request.
    pub(super) fn context_ready(&mut self, now: Instant) {
        if self.turn.as_ref().is_some_and(Turn::waits_for_context) {
            self.send_request(now, 1);
        }
    }

    /// `steer_turn`: the text joins the next request.
    pub(super) fn steer(&mut self, text: String) -> Result<(), &'static str> {
        let steered = self.turn.as_mut().and_then(|turn| turn.steer(text));
        let steered = steered.ok_or("no turn is running")?;
        self.emit(Event::TurnSteered(steered));
        Ok(())
    }

    /// Closes the model's view after a turn that got no answer (see `unanswered.rs`).
    fn settle_unanswered(&mut self, why: &str) {
        let last = self.conversation.messages().last();
        for message in super::unanswered::closing(last, why) {
            self.remember(message);
        }
    }

    /// Runs a due timer of the turn.
    pub(super) fn turn_timeout(&mut self, now: Instant) {
        let Some(turn) = self.turn.as_ref() else {
            return;
        };
        match &turn.step {
            Step::Backoff { attempt, until } if *until <= now => {
                let attempt = *attempt;
                self.send_request(now, attempt);
            }
            Step::Model {
                step,
                idle_deadline,
            } if *idle_deadline <= now => {
                self.port.push(Output::CancelHttp { id: step.http() });
                let seconds = self.timings.model_idle_timeout.as_secs_f64();
                let silence = format!("the model sent nothing for {seconds}s");
                let outcome = step.broke(silence.clone(), silence);
                self.model_outcome(now, outcome);
            }
            Step::Tools(_) => self.tool_timeout(now),
            _ => {}
        }
    }

    /// `interrupt_turn`: stop whatever runs, settle open prompts, end the turn.
    pub(super) fn interrupt(&mut self, now: Instant) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let cleanup = match std::mem::replace(&mut turn.step, Step::WaitingForContext) {
            Step::Model { mut step, .. } => {
                self.show_rest(&mut step);
                self.count_usage(&step);
                let cancel = Output::CancelHttp { id: step.http() };
                self.keep_partial_answer(step.into_assembler());
                vec![cancel]
            }
            Step::Tools(tools) => self.interrupt_tools(*tools),
            Step::Backoff { .. } | Step::WaitingForContext => Vec::new(),
        };
        self.compaction_interrupted();
        self.end_turn(now, TurnEndReason::Interrupted, None);
        // The client hears that the turn ended before io cancels its stream or kills its
        // command: that work is no part of the answer, and a frame queued after an effect
        // waits for the effect to start.
        self.port.extend(cleanup);
    }

    /// Ends the turn: `turn_usage`, `turn_ended`, `state_changed`; then the next queued message.
    pub(super) fn end_turn(&mut self, now: Instant, reason: TurnEndReason, error: Option<String>) {
        if self
            .turn
            .as_ref()
            .is_some_and(|t| t.kind == TurnKind::Compaction)
        {
            return self.end_compaction_run(now);
        }
        let Some(turn) = self.turn.take() else {
            return;
        };
        let why = error.clone().unwrap_or_else(|| match reason {
            TurnEndReason::EndTurn => "it finished without one".to_owned(),
            TurnEndReason::Interrupted => "interrupted".to_owned(),
            TurnEndReason::MaxTokens => "the answer hit the token limit".to_owned(),
            TurnEndReason::Refusal => "the model refused".to_owned(),
            TurnEndReason::Error => "an error".to_owned(),
        });
        self.settle_unanswered(&why);
        self.add_session_cost(turn.cost_usd());
        self.record(Record::TurnEnded {
            turn_id: turn.id.clone(),
            cost_usd: turn.cost_usd(),
        });
        let usage = turn
            .tally
            .frame(self.context_window(), self.session_cost_usd);
        self.emit(Event::TurnUsage(usage));
        self.emit(Event::TurnEnded(TurnEnded {
            turn_id: turn.id,
            reason,
            error,
        }));
        // The record is appended before the frames (io does appends on the spot); making it
        // durable need not hold `turn_ended` back.
        self.sync_store();
        if let Some(task) = &turn.review {
            self.review_turn_ended(now, task, &turn.answer_text, turn.reported, &why);
        }
        if turn.changed_files {
            self.refresh_review();
        }
        self.after_run(now);
    }

    /// The session is free again: say so, then start the next queued message.
    pub(super) fn after_run(&mut self, now: Instant) {
        self.emit_state();
        if let Some(next) = self.queue.pop_front()
            && !self.closed
        {
            self.start_turn(now, next, TurnSource::Queue);
        }
    }

    /// Ends the model step with `error`: the compaction under way fails, or else the turn.
    fn fail_step(&mut self, now: Instant, error: String) {
        if self
            .turn
            .as_ref()
            .is_some_and(|t| t.compaction.is_running())
        {
            self.compaction_failed(now, error);
        } else {
            self.end_turn(now, TurnEndReason::Error, Some(error));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_joins_a_conversation_turn_only_and_is_taken_once() {
        let mut compact = Turn::new(String::new(), TurnKind::Compaction, false);
        assert!(
            compact.steer("faster".into()).is_none(),
            "a compact run takes none"
        );
        let mut turn = Turn::new("turn_3".into(), TurnKind::Conversation, true);
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
        let mut turn = Turn::new("turn_1".into(), TurnKind::Conversation, false);
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
