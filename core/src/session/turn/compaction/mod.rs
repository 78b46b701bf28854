//! Compaction in the session: the model summarizes the older conversation, and the summary
//! replaces it in the model's view (the store keeps every message). It runs on `compact`, before
//! a turn's request that would come near the context window, and when the provider refuses a
//! turn's request as too long. A summary that does not shrink the conversation, or a summary
//! request that cannot fit, gives way to dropping the oldest turns (with a note to the model),
//! so that an overflow always recovers or says why.

use std::ops::Add;
use std::time::Duration;

use crate::model::catalogue::ModelRef;
use crate::model::compaction::{SUMMARY_SYSTEM, compacted_view, summary_request, transcript};
use crate::model::conversation::Message;
use crate::model::wire::ModelCall;
use crate::protocol::actions::Compact;
use crate::protocol::events::{CompactionEnded, CompactionStarted, Event};
use crate::protocol::values::{CompactionTrigger, Thinking, TurnEndReason};
use crate::store::Record;

mod budget;

pub(super) use budget::Budget;

use super::running::{Turn, TurnKind};
use super::{Journal, Resume, Then, TurnDesk, Turns, encode_call};
use crate::session::outbox::Outbox;

/// A transcript is not cut below this when the summary request itself is too long; past it,
/// the oldest turns are dropped instead.
const TRANSCRIPT_CHARS_MIN: usize = 2_000;

/// How many times a turn drops older turns after a refusal as too long before it gives up.
const DROPS_PER_TURN: u8 = 4;

/// What the model reads in place of the turns dropped to fit its context window.
pub(super) const DROPPED_NOTE: &str = "Earlier turns of this conversation were dropped without a summary \
to fit the model's context window; ask the user if something from them is needed.";

/// Compaction's part of one turn: the compaction under way, and what the turn tried already.
#[derive(Debug, Default)]
pub(super) struct TurnCompaction {
    pending: Option<PendingCompaction>,
    /// Whether this turn compacted (or tried to) already: once per turn is enough.
    compacted: bool,
    /// How often this turn dropped older turns after a refusal as too long.
    drops: u8,
}

impl TurnCompaction {
    /// Whether a compaction is under way.
    pub(super) fn is_running(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether the turn compacted (or tried to) already.
    pub(super) fn compacted(&self) -> bool {
        self.compacted
    }

    fn begin(&mut self, pending: PendingCompaction) {
        self.compacted = true;
        self.pending = Some(pending);
    }

    fn pending(&self) -> Option<&PendingCompaction> {
        self.pending.as_ref()
    }

    fn pending_mut(&mut self) -> Option<&mut PendingCompaction> {
        self.pending.as_mut()
    }

    fn take(&mut self) -> Option<PendingCompaction> {
        self.pending.take()
    }

    /// Counts a drop of older turns, if the turn may drop again.
    fn may_drop(&mut self) -> bool {
        let may = self.drops < DROPS_PER_TURN;
        if may {
            self.drops += 1;
        }
        may
    }
}

/// A request the provider refused as too long, as the turn goes on from it (what it said of
/// the window is the session's to learn first).
#[derive(Debug)]
pub(in crate::session) struct Overflow {
    pub(super) attempt: u32,
    /// The provider's words.
    pub(super) reason: String,
    /// The tokens the refused request had, if the provider said.
    pub(super) prompt_tokens: Option<u64>,
    /// The conversation's length when the request was sent.
    pub(super) history_len: usize,
}

/// A compaction under way.
#[derive(Debug)]
pub(super) struct PendingCompaction {
    request_id: Option<String>,
    turn_id: Option<String>,
    trigger: CompactionTrigger,
    /// The history before this index is summarized; from it on it is kept.
    cut: usize,
    tokens_before: u64,
    instructions: Option<String>,
    /// The transcript's size in the summary request; cut when the provider refuses it.
    transcript_chars: usize,
}

impl<At: Copy + Ord + Add<Duration, Output = At>> Turns<At> {
    /// `compact`: summarize now, unless a turn runs or there is nothing older to summarize.
    pub(in crate::session) fn compact(
        &mut self,
        desk: &TurnDesk<'_>,
        request: Compact,
    ) -> Result<Then, String> {
        if let Some(turn) = &self.running {
            return Err(match turn.kind() {
                TurnKind::Conversation => "a turn is running; compact after it ends".into(),
                TurnKind::Compaction => "a compaction is already running".into(),
            });
        }
        let model = desk.usable_model()?;
        if self
            .conversation
            .cut_keeping(
                self.budget(desk.model(), desk.context_window())
                    .keep_tokens(),
            )
            .is_none()
        {
            return Err("nothing to compact yet: the conversation has no older part".into());
        }
        let priced = model.cost().is_some();
        self.running = Some(Turn::new(String::new(), TurnKind::Compaction, priced));
        Ok(Then::StateChanged(Resume::Compact(request)))
    }

    /// Starts compacting in the running turn; `None` when there is nothing older to
    /// summarize.
    pub(super) fn begin_compaction(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        trigger: CompactionTrigger,
        request_id: Option<String>,
        instructions: Option<String>,
    ) -> Option<Then> {
        let budget = self.budget(desk.model(), desk.context_window());
        let cut = self.conversation.cut_keeping(budget.keep_tokens())?;
        let transcript_chars = budget.transcript_chars();
        let tokens_before = self.conversation.estimated_tokens();
        let turn = self.running.as_mut()?;
        let turn_id = (turn.kind() == TurnKind::Conversation).then(|| turn.id().to_owned());
        turn.compaction_mut().begin(PendingCompaction {
            request_id: request_id.clone(),
            turn_id: turn_id.clone(),
            trigger,
            cut,
            tokens_before,
            instructions,
            transcript_chars,
        });
        desk.journal
            .outbox
            .emit(Event::CompactionStarted(CompactionStarted {
                request_id,
                turn_id,
                trigger,
                tokens_before,
            }));
        Some(self.send_request(desk, now, 1))
    }

    /// Asks the model for a summary of the history before the cut.
    pub(super) fn send_summary_request(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        attempt: u32,
        model: &ModelRef,
    ) -> Then {
        let max_tokens = self
            .budget(desk.model(), desk.context_window())
            .summary_max_tokens();
        let Some(endpoint) = desk.providers.endpoint(model.provider) else {
            return Then::Nothing;
        };
        let Some(pending) = self
            .running
            .as_mut()
            .and_then(|t| t.compaction_mut().pending_mut())
        else {
            return Then::Nothing;
        };
        let messages = self.conversation.messages();
        let transcript = transcript(&messages[..pending.cut.min(messages.len())]);
        // What was sent, so that a retry after a refusal always sends less.
        pending.transcript_chars = pending.transcript_chars.min(transcript.len());
        let message = summary_request(
            &transcript,
            pending.instructions.as_deref(),
            pending.transcript_chars,
        );
        let call = ModelCall {
            model: &model.id,
            system: SUMMARY_SYSTEM,
            messages: std::slice::from_ref(&message),
            tools: &[],
            max_tokens,
            thinking: Thinking::Off,
        };
        let encoded = encode_call(model.provider, endpoint, &call);
        let idle = now + self.timings.model_idle_timeout;
        self.start_model_step(desk.journal.outbox, idle, attempt, model.provider, encoded);
        Then::Nothing
    }

    /// The provider refused a request as too long; what it said of the window and the
    /// request's size is learned first. A summary request is sent again with less of the
    /// transcript, down to a minimum, then the oldest turns are dropped instead. A turn's
    /// request compacts once, then drops older turns, each time sent again; it fails only when
    /// nothing older is left to drop.
    pub(super) fn overflowed(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        overflow: Overflow,
    ) -> Then {
        let Overflow {
            attempt,
            reason,
            prompt_tokens,
            history_len,
        } = overflow;
        let Some(turn) = self.running.as_mut() else {
            return Then::Nothing;
        };
        if let Some(pending) = turn.compaction_mut().pending_mut() {
            if pending.transcript_chars > TRANSCRIPT_CHARS_MIN {
                pending.transcript_chars = (pending.transcript_chars / 4).max(TRANSCRIPT_CHARS_MIN);
                return self.send_request(desk, now, attempt);
            }
            return self.compact_by_dropping(desk, now);
        }
        if let Some(prompt) = prompt_tokens {
            self.conversation.calibrate(history_len, prompt);
        }
        if !self
            .running
            .as_ref()
            .is_some_and(|t| t.compaction().compacted())
            && let Some(then) =
                self.begin_compaction(desk, now, CompactionTrigger::Overflow, None, None)
        {
            return then;
        }
        let Some(turn) = self.running.as_mut() else {
            return Then::Nothing;
        };
        let dropped_enough = !turn.compaction_mut().may_drop();
        if !dropped_enough {
            let budget = self
                .budget(desk.model(), desk.context_window())
                .history_budget();
            if self.drop_oldest(&mut desk.journal, budget) {
                return self.send_request(desk, now, attempt);
            }
        }
        let error = if dropped_enough {
            format!(
                "the conversation is still too long for the model's context window after older \
                 turns were dropped {DROPS_PER_TURN} times: {reason}"
            )
        } else {
            format!(
                "the conversation is too long for the model's context window and nothing older \
                 is left to compact or drop (the last message alone is too long): {reason}"
            )
        };
        self.end_turn(
            desk.context_window(),
            &mut desk.journal,
            TurnEndReason::Error,
            Some(error),
        )
    }

    /// A turn that compacted already (or tried to) and whose next request its estimate still
    /// puts past the window (a summary and the latest message too long together) drops the
    /// oldest turns first, no more than it needs to fit, instead of sending a request the
    /// provider can only refuse. It counts as one of the turn's drops only when something
    /// was dropped.
    pub(super) fn drop_what_cannot_fit(
        &mut self,
        journal: &mut Journal<'_>,
        model: &ModelRef,
        window: Option<u32>,
    ) {
        let budget = self.budget(Some(model), window);
        if !budget.past_the_window() {
            return;
        }
        let Some(cut) = self
            .conversation
            .drop_cut(budget.history_room(), DROPPED_NOTE)
        else {
            return;
        };
        let Some(turn) = self.running.as_mut() else {
            return;
        };
        let compaction = turn.compaction_mut();
        if compaction.compacted() && !compaction.is_running() && compaction.may_drop() {
            self.replace_older(journal, cut, DROPPED_NOTE, None);
        }
    }

    /// Summarizing cannot fit or did not shrink the conversation: the part it was to replace
    /// is dropped, with a note to the model.
    fn compact_by_dropping(&mut self, desk: &mut TurnDesk<'_>, now: At) -> Then {
        self.compacted(desk, now, DROPPED_NOTE, None)
    }

    /// The compaction under way ends with `summary` in place of the history before its cut.
    fn compacted(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        summary: &str,
        cost_usd: Option<f64>,
    ) -> Then {
        let Some(pending) = self.take_pending() else {
            return Then::Nothing;
        };
        self.replace_older(&mut desk.journal, pending.cut, summary, cost_usd);
        let tokens_after = self.conversation.estimated_tokens();
        self.compaction_ended(desk, now, pending, tokens_after, None)
    }

    /// The compaction under way, taken out: it ends.
    fn take_pending(&mut self) -> Option<PendingCompaction> {
        self.running.as_mut()?.compaction_mut().take()
    }

    /// Drops the oldest turns so that the rest fits `budget` tokens (or, when nothing fits,
    /// all but the latest place a view may start); with no older turn left, drops the summary
    /// the view opens with. `false` when there is nothing to drop.
    fn drop_oldest(&mut self, journal: &mut Journal<'_>, budget: u64) -> bool {
        let Some(cut) = self.conversation.drop_cut(budget, DROPPED_NOTE) else {
            return false;
        };
        self.replace_older(journal, cut, DROPPED_NOTE, None);
        true
    }

    /// Replaces the history before `cut` with `summary` in the model's view, and records it.
    fn replace_older(
        &mut self,
        journal: &mut Journal<'_>,
        cut: usize,
        summary: &str,
        cost_usd: Option<f64>,
    ) {
        let kept = self.conversation.replace_older(cut, summary);
        journal.record(&Record::Compacted {
            summary: summary.to_owned(),
            kept,
            cost_usd,
        });
    }

    /// The summary arrived: it replaces the history before the cut.
    pub(super) fn compaction_done(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        answer: &Message,
    ) -> Then {
        let summary = answer.text();
        let summary = summary.trim();
        if summary.is_empty() {
            return self.compaction_failed(desk, now, "the model's summary was empty".into());
        }
        let Some(turn) = self.running.as_ref() else {
            return Then::Nothing;
        };
        let Some(pending) = turn.compaction().pending() else {
            return Then::Nothing;
        };
        let replaced = self.conversation.estimate_first(pending.cut);
        let summary_tokens = self.conversation.estimate(&compacted_view(summary, &[]));
        if summary_tokens >= replaced {
            // A summary no shorter than what it replaces would grow the request it should shrink.
            return self.compact_by_dropping(desk, now);
        }
        // A `compact` run's cost is its own; automatic compaction's is its turn's.
        let cost_usd = match pending.trigger {
            CompactionTrigger::Request => turn.cost_usd(),
            _ => None,
        };
        self.compacted(desk, now, summary, cost_usd)
    }

    /// The summary could not be had: the conversation stays as it was.
    pub(super) fn compaction_failed(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        error: String,
    ) -> Then {
        let Some(pending) = self.take_pending() else {
            return Then::Nothing;
        };
        let tokens = pending.tokens_before;
        self.compaction_ended(desk, now, pending, tokens, Some(error))
    }

    /// `interrupt_turn` stopped a compaction under way.
    pub(super) fn compaction_interrupted(&mut self, outbox: &mut Outbox) {
        if let Some(pending) = self.take_pending() {
            outbox.emit(Event::CompactionEnded(CompactionEnded {
                request_id: pending.request_id,
                turn_id: pending.turn_id,
                tokens_before: pending.tokens_before,
                tokens_after: pending.tokens_before,
                error: Some("interrupted".into()),
            }));
        }
    }

    /// Says how compaction ended, then goes on: a `compact` run ends, a turn sends its request
    /// (or, refused as too long and not compacted, ends).
    fn compaction_ended(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        pending: PendingCompaction,
        tokens_after: u64,
        error: Option<String>,
    ) -> Then {
        let failed = error.clone();
        desk.journal
            .outbox
            .emit(Event::CompactionEnded(CompactionEnded {
                request_id: pending.request_id,
                turn_id: pending.turn_id,
                tokens_before: pending.tokens_before,
                tokens_after,
                error,
            }));
        match (pending.trigger, failed) {
            (CompactionTrigger::Request, _) => self.end_compaction_run(&mut desk.journal),
            (CompactionTrigger::Overflow, Some(error)) => self.end_turn(
                desk.context_window(),
                &mut desk.journal,
                TurnEndReason::Error,
                Some(format!(
                    "the conversation is too long for the model's context window and compacting it failed: {error}"
                )),
            ),
            _ => self.send_request(desk, now, 1),
        }
    }

    /// Ends a `compact` run: its cost joins the session's, and the session is free again.
    pub(super) fn end_compaction_run(&mut self, journal: &mut Journal<'_>) -> Then {
        let Some(run) = self.running.take() else {
            return Then::Nothing;
        };
        self.add_cost(run.cost_usd());
        journal.sync();
        Then::Free
    }

    /// What the sizes of the next request are computed from.
    pub(super) fn budget<'a>(
        &'a self,
        model: Option<&'a ModelRef>,
        window: Option<u32>,
    ) -> Budget<'a> {
        Budget {
            model,
            window,
            conversation: &self.conversation,
        }
    }

    /// Whether the next request of a turn should compact first: it would come near the
    /// context window, and the turn has not compacted yet.
    pub(super) fn compaction_due(&self, model: &ModelRef, window: Option<u32>) -> bool {
        let compacted = self
            .running
            .as_ref()
            .is_none_or(|t| t.compaction().compacted());
        !compacted && self.budget(Some(model), window).near_the_window(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_compacts_once_and_drops_older_turns_at_most_four_times() {
        let mut part = TurnCompaction::default();
        assert!(!part.is_running() && !part.compacted());
        part.begin(PendingCompaction {
            request_id: None,
            turn_id: Some("t".into()),
            trigger: CompactionTrigger::Overflow,
            cut: 2,
            tokens_before: 100,
            instructions: None,
            transcript_chars: 1_000,
        });
        assert!(part.is_running() && part.compacted());
        assert_eq!(part.pending().map(|p| p.cut), Some(2));
        assert!(part.take().is_some());
        assert!(
            !part.is_running() && part.compacted(),
            "compacted stays: once a turn"
        );
        let drops = std::iter::repeat_with(|| part.may_drop())
            .take(6)
            .collect::<Vec<_>>();
        assert_eq!(drops, [true, true, true, true, false, false]);
    }
}
