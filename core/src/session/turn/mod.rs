//! The conversation and its turns, as one machine ([`Turns`]): the model's view of the
//! conversation, the running turn (`running.rs`), the messages queued behind it, the turns
//! counted and the session's cost. A turn makes model requests with retries (`requests.rs`),
//! streams their events, compacts when the window fills (`compaction/`), hands tool calls to
//! the tool-run machine, and ends when the model ends its answer, fails, or the client
//! interrupts. What it needs of the session's other rooms comes back as a [`Then`]; what it
//! borrows of the session for one call is a [`TurnDesk`] (`desk.rs`, with `turn_desk!`, which
//! lends it), and a method that only writes takes the desk's [`Journal`] (or its outbox) alone;
//! following the `Then` is the session's routing (`routes/turn.rs`).

mod compaction;
mod desk;
mod requests;
mod running;
mod tally;
#[cfg(test)]
mod tests;

pub(super) use desk::{Journal, Prompt, Settings, TurnDesk};
pub(super) use desk::{journal, turn_desk};
pub(super) use requests::encode_call;
pub(super) use running::Turn;

use std::collections::VecDeque;
use std::ops::Add;
use std::time::{Duration, Instant};

use crate::config::Timings;
use crate::config::prepare::IssueContext;
use crate::effects::Output;
use crate::model::catalogue::ModelRef;
use crate::model::conversation::{Block, Message, Role};
use crate::protocol::actions::{Compact, Image};
use crate::protocol::events::{
    Event, TurnEnded, TurnStarted, TurnSteered, UserMessageQueued, UserMessageWithdrawn,
};
use crate::protocol::values::{CompactionTrigger, TurnEndReason, TurnSource};
use crate::rng::Rng;
use crate::store::{Record, Writer};

use super::conversation::Conversation;
use super::guided_review::turns::ReviewTask;
use super::outbox::Outbox;
use super::tool_run::{Answered, CallIds, ToolStep};
use compaction::Overflow;
use running::{Step, TurnKind};

/// A message waiting for the running turn to end.
#[derive(Debug, Clone)]
pub(super) struct Queued {
    pub(super) text: String,
    pub(super) images: Vec<Image>,
    /// Set for a review turn: what it does on the review.
    pub(super) review: Option<ReviewTask>,
}

/// What the turns need of the session's other rooms after a call.
#[derive(Debug)]
#[must_use]
pub(super) enum Then {
    /// Nothing more: the turn waits for io, the model or the user.
    Nothing,
    /// A turn or `compact` run took the session: the session says `state_changed`, then hands
    /// the [`Resume`] back to [`Turns::resume`].
    StateChanged(Resume),
    /// A provider refusing a request as too long said the window the model runs with: the
    /// session learns it (saying `state_changed` if that is news), then hands the [`Resume`]
    /// back to [`Turns::resume`].
    WindowSaid(u32, Resume),
    /// The answer's tool calls are to run (the tool-run machine).
    RunTools,
    /// A conversation turn ended: the review hears of it, then [`Turns::after_run`].
    Ended(Ended),
    /// A `compact` run ended: the session is free again ([`Turns::after_run`]).
    Free,
}

/// Where the turns go on once the session did what a [`Then`] asked; the session only carries
/// it back.
#[derive(Debug)]
pub(super) enum Resume {
    /// The turn that took the session opens with this message.
    Open {
        text: String,
        images: Vec<Image>,
        source: TurnSource,
    },
    /// The `compact` run that took the session starts its summary.
    Compact(Compact),
    /// The refused request is compacted, cut or given up.
    Overflowed(Overflow),
}

/// A conversation turn that ended, as the review needs to hear of it.
#[derive(Debug)]
pub(super) struct Ended {
    /// What a review turn did on the review.
    pub(super) review: Option<ReviewTask>,
    /// The latest answer's text, for the review thread.
    pub(super) answer: String,
    /// Whether a fix turn called `report`.
    pub(super) reported: bool,
    /// Why it ended without an answer, in words, if it did.
    pub(super) why: String,
    /// Whether a tool changed files (the open review is refreshed).
    pub(super) changed_files: bool,
}

/// The conversation and its turns.
#[derive(Debug)]
pub(super) struct Turns<At = Instant> {
    /// The conversation as the model sees it, and its size.
    conversation: Conversation,
    /// The running turn or `compact` run.
    running: Option<Turn<At>>,
    queue: VecDeque<Queued>,
    /// Turns started so far (restored ones included): the next turn's number follows.
    started: u64,
    /// The session's cost so far; `None` once a run's prices were unknown.
    cost_usd: Option<f64>,
    /// `--issue`'s issue, until the first turn takes it.
    issue: Option<IssueContext>,
    /// The waits a turn keeps (a silent model, the back-off, the server's window), fixed at
    /// start.
    timings: Timings,
    /// Draws the back-off's jitter, so that clients retrying together spread out.
    rng: Rng,
    /// The numbers behind tool call and prompt ids, running on across the turns.
    call_ids: CallIds,
}

impl<At: Copy + Ord + Add<Duration, Output = At>> Turns<At> {
    /// No turn yet; `issue` joins the first turn's message; the turns wait by `timings` and
    /// draw their back-off from `rng`.
    pub(super) fn new(issue: Option<IssueContext>, timings: Timings, rng: Rng) -> Self {
        Self {
            conversation: Conversation::default(),
            running: None,
            queue: VecDeque::new(),
            started: 0,
            cost_usd: Some(0.0),
            issue,
            timings,
            rng,
            call_ids: CallIds::default(),
        }
    }

    /// A resumed session's view of its conversation, turns and cost.
    pub(super) fn restore(&mut self, view: Vec<Message>, turns: u64, cost_usd: Option<f64>) {
        self.conversation.restore(view);
        self.started = turns;
        self.cost_usd = cost_usd;
    }

    /// Whether a turn or `compact` run holds the session.
    pub(super) fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The turn or `compact` run that holds the session, if any.
    pub(super) fn running(&self) -> Option<&Turn<At>> {
        self.running.as_ref()
    }

    /// The running turn, to note what a review tool did.
    pub(super) fn running_mut(&mut self) -> Option<&mut Turn<At>> {
        self.running.as_mut()
    }

    /// The running answer's tool calls.
    pub(super) fn tools_mut(&mut self) -> Option<&mut ToolStep<At>> {
        self.running.as_mut()?.tools_mut()
    }

    /// The running answer's tool calls, with the numbers their call and prompt ids take.
    pub(super) fn tools_and_ids(&mut self) -> Option<(&mut ToolStep<At>, &mut CallIds)> {
        let step = self.running.as_mut()?.tools_mut()?;
        Some((step, &mut self.call_ids))
    }

    /// The running answer's tool calls, taken out (an interrupt).
    pub(super) fn take_tools(&mut self) -> Option<ToolStep<At>> {
        self.running.as_mut()?.take_tools()
    }

    /// The earliest deadline the running turn waits on.
    pub(super) fn deadline(&self) -> Option<At> {
        self.running.as_ref().and_then(Turn::deadline)
    }

    /// The model's view of the conversation.
    #[cfg(test)]
    pub(super) fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// Starts a turn for `queued`, or queues it behind the running one.
    pub(super) fn submit(
        &mut self,
        outbox: &mut Outbox,
        model: Option<&ModelRef>,
        queued: Queued,
        source: TurnSource,
    ) -> Then {
        if self.running.is_some() {
            outbox.emit(Event::UserMessageQueued(UserMessageQueued {
                text: queued.text.clone(),
                position: u32::try_from(self.queue.len() + 1).unwrap_or(u32::MAX),
            }));
            self.queue.push_back(queued);
            Then::Nothing
        } else {
            self.start_turn(model, queued, source)
        }
    }

    /// Takes back the last message a client queued (never a review's turn): what it said and
    /// the place it had.
    pub(super) fn withdraw_queued(&mut self) -> Option<UserMessageWithdrawn> {
        let at = self.queue.iter().rposition(|q| q.review.is_none())?;
        let queued = self.queue.remove(at)?;
        Some(UserMessageWithdrawn {
            text: queued.text,
            position: u32::try_from(at + 1).unwrap_or(u32::MAX),
        })
    }

    /// Adds a turn's or `compact` run's cost; an unknown cost makes the total unknown.
    fn add_cost(&mut self, cost_usd: Option<f64>) {
        self.cost_usd = self.cost_usd.zip(cost_usd).map(|(a, b)| a + b);
    }

    /// Starts a turn for `message` on `model`: it takes the session, and opens once the
    /// session said so.
    fn start_turn(
        &mut self,
        model: Option<&ModelRef>,
        message: Queued,
        source: TurnSource,
    ) -> Then {
        self.started += 1;
        let id = format!("turn_{}", self.started);
        let priced = model.and_then(|m| m.cost()).is_some();
        let turn = Turn::new(id, TurnKind::Conversation, priced);
        self.running = Some(turn.for_review(message.review));
        Then::StateChanged(Resume::Open {
            text: message.text,
            images: message.images,
            source,
        })
    }

    /// Goes on where a [`Then`] stopped, once the session did what it asked.
    pub(super) fn resume(&mut self, desk: &mut TurnDesk<'_>, now: At, resume: Resume) -> Then {
        match resume {
            Resume::Open {
                text,
                images,
                source,
            } => self.open(desk, now, text, images, source),
            Resume::Compact(request) => self
                .begin_compaction(
                    desk,
                    now,
                    CompactionTrigger::Request,
                    Some(request.request_id),
                    request.instructions,
                )
                .unwrap_or(Then::Nothing),
            Resume::Overflowed(overflow) => self.overflowed(desk, now, overflow),
        }
    }

    /// Opens the turn that took the session with the client's (or the review's) message and
    /// sends its first request when its context is ready.
    fn open(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        text: String,
        images: Vec<Image>,
        source: TurnSource,
    ) -> Then {
        let Some(turn) = &self.running else {
            return Then::Nothing;
        };
        desk.journal.outbox.emit(Event::TurnStarted(TurnStarted {
            turn_id: turn.id().to_owned(),
            source,
        }));
        let mut content = vec![Block::Text { text }];
        if let Some(issue) = self.issue.take() {
            content.insert(
                0,
                Block::Text {
                    text: issue.prompt(),
                },
            );
        }
        content.extend(images.into_iter().map(|i| Block::Image {
            media_type: i.media_type,
            data: i.data,
        }));
        // A session file from before this rule may end in an unanswered message.
        self.settle_unanswered(&mut desk.journal, "the session ended first");
        let by = match source {
            TurnSource::Review => Writer::Luxe,
            TurnSource::User | TurnSource::Queue => Writer::Person,
        };
        let opening = Message {
            role: Role::User,
            content,
        };
        self.remember_by(&mut desk.journal, opening, Some(by));
        if let Err(why) = desk.usable_model() {
            return self.end_turn(
                desk.context_window(),
                &mut desk.journal,
                TurnEndReason::Error,
                Some(why),
            );
        }
        self.context_ready(desk, now)
    }

    /// A turn that waits for its context sends its first request once the start-up probes
    /// ended and the server's word on the model's window came (or was given up, or the turn
    /// waited `window_wait` for it): a request to a model of unknown size would be sized
    /// blind, and a server that refuses an oversized request costs the turn a refusal.
    pub(super) fn context_ready(&mut self, desk: &mut TurnDesk<'_>, now: At) -> Then {
        let Some(turn) = self.running.as_mut().filter(|t| t.waits_for_context()) else {
            return Then::Nothing;
        };
        if !desk.prompt.context.is_ready() {
            return Then::Nothing;
        }
        // A zero wait (`LUXE_WINDOW_WAIT_MS=0`) sends at once.
        let asking = !self.timings.window_wait.is_zero()
            && desk.context_window().is_none()
            && desk.model().is_some_and(|m| desk.probes.asking(&m.spec()));
        if asking && !turn.window_wait_over(now) {
            turn.wait_for_window(now + self.timings.window_wait);
            return Then::Nothing;
        }
        self.send_request(desk, now, 1)
    }

    /// `steer_turn`: the text joins the next request; its frame.
    pub(super) fn steer(&mut self, text: String) -> Result<TurnSteered, &'static str> {
        let steered = self.running.as_mut().and_then(|turn| turn.steer(text));
        steered.ok_or("no turn is running")
    }

    /// Adds `message` to the conversation and the session file.
    fn remember(&mut self, journal: &mut Journal<'_>, message: Message) {
        self.remember_by(journal, message, None);
    }

    /// Adds `message`, which opens a turn written `by` someone, to the conversation and the
    /// session file (a session is named after a person's opening message).
    fn remember_by(&mut self, journal: &mut Journal<'_>, message: Message, by: Option<Writer>) {
        journal.record(&Record::Message {
            message: message.clone(),
            by,
        });
        self.conversation.push(message);
    }

    /// Closes the model's view after a turn that got no answer (see `unanswered.rs`).
    fn settle_unanswered(&mut self, journal: &mut Journal<'_>, why: &str) {
        let last = self.conversation.messages().last();
        for message in super::unanswered::closing(last, why) {
            self.remember(journal, message);
        }
    }

    /// The results of an answer's calls join the conversation.
    pub(super) fn keep_results(&mut self, journal: &mut Journal<'_>, answered: Answered) {
        if answered.changed_files
            && let Some(turn) = self.running.as_mut()
        {
            turn.note_changed_files();
        }
        self.remember(
            journal,
            Message {
                role: Role::User,
                content: answered.results,
            },
        );
    }

    /// Every call of the answer has its result: they go back to the model.
    pub(super) fn tools_answered(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        answered: Answered,
    ) -> Then {
        self.keep_results(&mut desk.journal, answered);
        self.send_request(desk, now, 1)
    }

    /// Runs a due timer of the turn: the next attempt after a back-off, or a model request
    /// given up for silence. A command's deadline is the tool-run machine's own.
    pub(super) fn handle_timeout(&mut self, desk: &mut TurnDesk<'_>, now: At) -> Then {
        let Some(turn) = self.running.as_ref() else {
            return Then::Nothing;
        };
        match turn.step() {
            Step::WaitingForContext { .. } if turn.window_wait_over(now) => {
                self.context_ready(desk, now)
            }
            Step::Backoff { attempt, until } if *until <= now => {
                let attempt = *attempt;
                self.send_request(desk, now, attempt)
            }
            Step::Model {
                step,
                idle_deadline,
            } if *idle_deadline <= now => {
                desk.journal
                    .outbox
                    .push(Output::CancelHttp { id: step.http() });
                let seconds = self.timings.model_idle_timeout.as_secs_f64();
                let silence = format!("the model sent nothing for {seconds}s");
                let outcome = step.broke(silence.clone(), silence);
                self.model_outcome(desk, now, outcome)
            }
            _ => Then::Nothing,
        }
    }

    /// `interrupt_turn`, once the tool calls (if any) were taken out and stopped: stops the
    /// model request, ends the compaction under way, ends the turn. Also returns what io
    /// must undo after the client heard that the turn ended: that work is no part of the
    /// answer, and a frame queued after an effect waits for the effect to start.
    pub(super) fn interrupt(
        &mut self,
        window: Option<u32>,
        journal: &mut Journal<'_>,
    ) -> (Then, Vec<Output>) {
        let Some(turn) = self.running.as_mut() else {
            return (Then::Nothing, Vec::new());
        };
        let cleanup = match turn.take_step() {
            Step::Model { mut step, .. } => {
                show_rest(journal.outbox, &mut step);
                self.count_usage(journal.settings.model, &step);
                let cancel = Output::CancelHttp { id: step.http() };
                self.keep_partial_answer(journal, step.into_assembler());
                vec![cancel]
            }
            Step::Tools(_) | Step::Backoff { .. } | Step::WaitingForContext { .. } => Vec::new(),
        };
        self.compaction_interrupted(journal.outbox);
        let then = self.end_turn(window, journal, TurnEndReason::Interrupted, None);
        (then, cleanup)
    }

    /// Ends the turn: `turn_usage`, `turn_ended`; what the review must hear comes back.
    /// A `compact` run ends as one.
    fn end_turn(
        &mut self,
        window: Option<u32>,
        journal: &mut Journal<'_>,
        reason: TurnEndReason,
        error: Option<String>,
    ) -> Then {
        if self
            .running
            .as_ref()
            .is_some_and(|t| t.kind() == TurnKind::Compaction)
        {
            return self.end_compaction_run(journal);
        }
        let Some(turn) = self.running.take() else {
            return Then::Nothing;
        };
        let why = error.clone().unwrap_or_else(|| match reason {
            TurnEndReason::EndTurn => "it finished without one".to_owned(),
            TurnEndReason::Interrupted => "interrupted".to_owned(),
            TurnEndReason::MaxTokens => "the answer hit the token limit".to_owned(),
            TurnEndReason::Refusal => "the model refused".to_owned(),
            TurnEndReason::Error => "an error".to_owned(),
        });
        self.settle_unanswered(journal, &why);
        let turn = turn.finish();
        let cost_usd = turn.tally.cost_usd();
        self.add_cost(cost_usd);
        journal.record(&Record::TurnEnded {
            turn_id: turn.id.clone(),
            cost_usd,
        });
        let usage = turn.tally.frame(window, self.cost_usd);
        journal.outbox.emit(Event::TurnUsage(usage));
        journal.outbox.emit(Event::TurnEnded(TurnEnded {
            turn_id: turn.id,
            reason,
            error,
        }));
        // The record is appended before the frames (io does appends on the spot); making it
        // durable need not hold `turn_ended` back.
        journal.sync();
        Then::Ended(Ended {
            review: turn.review,
            answer: turn.answer_text,
            reported: turn.reported,
            why,
            changed_files: turn.changed_files,
        })
    }

    /// The session is free again (and said so): the next queued message starts on `model`,
    /// unless the session is `closed`.
    pub(super) fn after_run(&mut self, model: Option<&ModelRef>, closed: bool) -> Then {
        if let Some(next) = self.queue.pop_front()
            && !closed
        {
            return self.start_turn(model, next, TurnSource::Queue);
        }
        Then::Nothing
    }

    /// Ends the model step with `error`: the compaction under way fails, or else the turn.
    fn fail_step(&mut self, desk: &mut TurnDesk<'_>, now: At, error: String) -> Then {
        if self
            .running
            .as_ref()
            .is_some_and(|t| t.compaction().is_running())
        {
            self.compaction_failed(desk, now, error)
        } else {
            self.end_turn(
                desk.context_window(),
                &mut desk.journal,
                TurnEndReason::Error,
                Some(error),
            )
        }
    }
}

/// Shows what `step` still holds back of its last block: its stream is over.
fn show_rest(outbox: &mut Outbox, step: &mut super::model_step::ModelStep) {
    if let Some(frame) = step.rest() {
        outbox.emit(frame);
    }
}
