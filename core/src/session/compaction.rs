//! Compaction in the session: the model summarizes the older conversation, and the summary
//! replaces it in the model's view (the store keeps every message). It runs on `compact`, before
//! a turn's request that would come near the context window, and once when the provider refuses
//! a turn's request as too long.

use std::time::Instant;

use crate::model::catalogue::ModelRef;
use crate::model::compaction::{
    SUMMARY_SYSTEM, compacted_view, cut_point, estimate_tokens, summary_request, tokens_of_chars,
};
use crate::model::conversation::Message;
use crate::model::wire::ModelCall;
use crate::protocol::actions::Compact;
use crate::protocol::events::{CompactionEnded, CompactionStarted, Event};
use crate::protocol::values::{CompactionTrigger, Thinking, TurnEndReason};
use crate::store::Record;

use super::Session;
use super::turn::{Turn, TurnKind, encode_call};

/// The most of the recent conversation kept word for word.
const KEEP_TOKENS_MAX: u64 = 20_000;

/// The most tokens a summary may take.
const SUMMARY_MAX_TOKENS: u32 = 8_192;

/// Transcript characters sent when the context window is not known (about 100k tokens).
const TRANSCRIPT_CHARS_UNKNOWN_WINDOW: usize = 400_000;

/// A transcript is not cut below this when the summary request itself is too long.
const TRANSCRIPT_CHARS_MIN: usize = 8_000;

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

impl Session {
    /// `compact`: summarize now, unless a turn runs or there is nothing older to summarize.
    pub(super) fn compact(&mut self, now: Instant, request: Compact) -> Result<(), String> {
        if let Some(turn) = &self.turn {
            return Err(match turn.kind {
                TurnKind::Conversation => "a turn is running; compact after it ends".into(),
                TurnKind::Compaction => "a compaction is already running".into(),
            });
        }
        let model = self.usable_model()?;
        if cut_point(&self.history, self.keep_tokens()).is_none() {
            return Err("nothing to compact yet: the conversation has no older part".into());
        }
        let cost = model.cost().map(|_| 0.0);
        self.turn = Some(Turn::new(String::new(), TurnKind::Compaction, cost));
        self.emit_state();
        self.begin_compaction(
            now,
            CompactionTrigger::Request,
            Some(request.request_id),
            request.instructions,
        );
        Ok(())
    }

    /// Starts compacting in the running turn; `false` when there is nothing older to summarize.
    pub(super) fn begin_compaction(
        &mut self,
        now: Instant,
        trigger: CompactionTrigger,
        request_id: Option<String>,
        instructions: Option<String>,
    ) -> bool {
        let Some(cut) = cut_point(&self.history, self.keep_tokens()) else {
            return false;
        };
        let tokens_before = self.estimated_tokens();
        let transcript_chars = self
            .model
            .as_ref()
            .and_then(ModelRef::context_window)
            // Half the window, at about four characters a token.
            .map_or(TRANSCRIPT_CHARS_UNKNOWN_WINDOW, |w| w as usize * 2);
        let Some(turn) = self.turn.as_mut() else {
            return false;
        };
        let turn_id = (turn.kind == TurnKind::Conversation).then(|| turn.id.clone());
        turn.compacted = true;
        turn.compaction = Some(PendingCompaction {
            request_id: request_id.clone(),
            turn_id: turn_id.clone(),
            trigger,
            cut,
            tokens_before,
            instructions,
            transcript_chars,
        });
        self.emit(Event::CompactionStarted(CompactionStarted {
            request_id,
            turn_id,
            trigger,
            tokens_before,
        }));
        self.send_request(now, 1);
        true
    }

    /// Asks the model for a summary of the history before the cut.
    pub(super) fn send_summary_request(&mut self, now: Instant, attempt: u32, model: &ModelRef) {
        let Some(pending) = self.turn.as_ref().and_then(|t| t.compaction.as_ref()) else {
            return;
        };
        let Some(endpoint) = self.providers.endpoint(model.provider) else {
            return;
        };
        let message = summary_request(
            &self.history[..pending.cut],
            pending.instructions.as_deref(),
            pending.transcript_chars,
        );
        let call = ModelCall {
            model: &model.id,
            system: SUMMARY_SYSTEM,
            messages: std::slice::from_ref(&message),
            tools: &[],
            max_tokens: model.max_output_tokens().min(SUMMARY_MAX_TOKENS),
            thinking: Thinking::Off,
        };
        let (request, decoder) = encode_call(model.provider, endpoint, &call);
        self.start_model_step(now, attempt, model.provider, request, decoder);
    }

    /// The provider refused a request as too long. A summary request is sent again with less
    /// of the transcript; a turn's request compacts once and is sent again.
    pub(super) fn overflowed(&mut self, now: Instant, attempt: u32, reason: String) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if let Some(pending) = turn.compaction.as_mut() {
            pending.transcript_chars /= 4;
            if pending.transcript_chars >= TRANSCRIPT_CHARS_MIN {
                return self.send_request(now, attempt);
            }
            return self
                .compaction_failed(now, format!("the summary request was too long: {reason}"));
        }
        if !turn.compacted && self.begin_compaction(now, CompactionTrigger::Overflow, None, None) {
            return;
        }
        let compacted = self.turn.as_ref().is_some_and(|t| t.compacted);
        let error = if compacted {
            format!(
                "the conversation is too long for the model's context window even after compaction: {reason}"
            )
        } else {
            format!(
                "the conversation is too long for the model's context window and has no older part to compact: {reason}"
            )
        };
        self.end_turn(now, TurnEndReason::Error, Some(error));
    }

    /// The summary arrived: it replaces the history before the cut.
    pub(super) fn compaction_done(&mut self, now: Instant, answer: &Message) {
        let summary = answer.text();
        let summary = summary.trim();
        if summary.is_empty() {
            return self.compaction_failed(now, "the model's summary was empty".into());
        }
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let Some(pending) = turn.compaction.take() else {
            return;
        };
        // A `compact` run's cost is its own; automatic compaction's is its turn's.
        let cost_usd = match pending.trigger {
            CompactionTrigger::Request => turn.cost_usd,
            _ => None,
        };
        let kept = self.history.split_off(pending.cut.min(self.history.len()));
        self.history = compacted_view(summary, &kept);
        self.known_tokens = None;
        self.record(Record::Compacted {
            summary: summary.to_owned(),
            kept: kept.len(),
            cost_usd,
        });
        let tokens_after = self.estimated_tokens();
        self.compaction_ended(now, pending, tokens_after, None);
    }

    /// The summary could not be had: the conversation stays as it was.
    pub(super) fn compaction_failed(&mut self, now: Instant, error: String) {
        let Some(pending) = self.turn.as_mut().and_then(|t| t.compaction.take()) else {
            return;
        };
        let tokens = pending.tokens_before;
        self.compaction_ended(now, pending, tokens, Some(error));
    }

    /// `interrupt_turn` stopped a compaction under way.
    pub(super) fn compaction_interrupted(&mut self) {
        if let Some(pending) = self.turn.as_mut().and_then(|t| t.compaction.take()) {
            self.emit(Event::CompactionEnded(CompactionEnded {
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
        now: Instant,
        pending: PendingCompaction,
        tokens_after: u64,
        error: Option<String>,
    ) {
        let failed = error.clone();
        self.emit(Event::CompactionEnded(CompactionEnded {
            request_id: pending.request_id,
            turn_id: pending.turn_id,
            tokens_before: pending.tokens_before,
            tokens_after,
            error,
        }));
        match (pending.trigger, failed) {
            (CompactionTrigger::Request, _) => self.end_compaction_run(now),
            (CompactionTrigger::Overflow, Some(error)) => self.end_turn(
                now,
                TurnEndReason::Error,
                Some(format!(
                    "the conversation is too long for the model's context window and compacting it failed: {error}"
                )),
            ),
            _ => self.send_request(now, 1),
        }
    }

    /// Ends a `compact` run: its cost joins the session's, and the session is free again.
    pub(super) fn end_compaction_run(&mut self, now: Instant) {
        let Some(run) = self.turn.take() else {
            return;
        };
        self.session_cost_usd += run.cost_usd.unwrap_or(0.0);
        self.sync_store();
        self.after_run(now);
    }

    /// Whether the next request of a turn should compact first: it would come near the
    /// context window, leaving too little room for the answer.
    pub(super) fn compaction_due(&self, model: &ModelRef) -> bool {
        let (Some(window), Some(turn)) = (model.context_window(), self.turn.as_ref()) else {
            return false;
        };
        let window = u64::from(window);
        let reserve = u64::from(model.max_output_tokens()).min(window / 8);
        !turn.compacted && self.estimated_tokens() + reserve > window * 9 / 10
    }

    /// The tokens the model's view takes: the provider's count for what it last saw, plus an
    /// estimate of what came after; an estimate of everything when there is no count.
    pub(super) fn estimated_tokens(&self) -> u64 {
        match self.known_tokens {
            Some((len, tokens)) if len <= self.history.len() => {
                tokens + estimate_tokens(&self.history[len..])
            }
            _ => estimate_tokens(&self.history) + tokens_of_chars(self.overhead_chars),
        }
    }

    /// How much of the recent conversation compaction keeps word for word.
    fn keep_tokens(&self) -> u64 {
        self.model
            .as_ref()
            .and_then(ModelRef::context_window)
            .map_or(KEEP_TOKENS_MAX, |w| (u64::from(w) / 4).min(KEEP_TOKENS_MAX))
    }
}
