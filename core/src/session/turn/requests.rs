//! A turn's model requests: building each request from the conversation, the stream's events
//! as frames, how an answer ends (tool calls, the end of the turn, a retry after a failure),
//! and the usage and cost it adds. One request itself is `model_step.rs`'s machine.

use crate::session::owners::Owner;
use std::time::Instant;

use crate::effects::{EffectId, Output};
use crate::model::anthropic::{self, AnthropicStream};
use crate::model::assembler::MessageAssembler;
use crate::model::catalogue::Provider;
use crate::model::conversation::ToolSpec;
use crate::model::conversation::{Block, Message, Role};
use crate::model::openai::{self, OpenAiStream};
use crate::model::wire::{
    Endpoint, HttpRequest, ModelCall, ModelEvent, StopReason, StreamDecoder, Usage,
};
use crate::protocol::events::{Event, ModelRetrying};
use crate::protocol::values::{CompactionTrigger, TurnEndReason};

use super::Turn;
use crate::session::Session;
use crate::session::model_step::{ModelStep, Outcome, Sent, retry_delay};
use crate::session::review_turns::ReviewTask;
use crate::session::tools::definitions::tools_for;
use crate::store::Record;

impl Session {
    /// Sends the next model request (attempt `attempt` of this step).
    pub(in crate::session) fn send_request(&mut self, now: Instant, attempt: u32) {
        let (Some(model), Some(turn)) = (self.model.clone(), self.turn.as_mut()) else {
            return;
        };
        if turn.compaction.is_running() {
            return self.send_summary_request(now, attempt, &model);
        }
        let steering = turn.take_steering();
        if !steering.is_empty() {
            let blocks = steering.into_iter().map(|text| Block::Text { text });
            let blocks: Vec<Block> = blocks.collect();
            if self.conversation.extend_last_user(&blocks) {
                self.record(Record::Append { blocks });
            } else {
                self.remember(Message {
                    role: Role::User,
                    content: blocks,
                });
            }
        }
        if self.compaction_due(&model)
            && self.begin_compaction(now, CompactionTrigger::ContextWindow, None, None)
        {
            return;
        }
        let Some(endpoint) = self.providers.endpoint(model.provider) else {
            return;
        };
        let system = crate::session::system_prompt::system_prompt(
            &self.cwd,
            &self.platform,
            &self.today,
            self.context.git(),
            self.context.agents_md(),
        );
        // AGENTS.md is the project's text like any file a tool reads: the same redaction.
        let system = self.redactor.redact(&system).into_owned();
        let extra = self
            .turn
            .as_ref()
            .and_then(|t| t.review.as_ref())
            .map_or(&[][..], ReviewTask::tools);
        // A chat template that cannot use tools drops them: offering none says so honestly
        // and keeps the request's estimate true.
        let tools = match &self.model {
            Some(m) if self.probes.tools_unsupported(&m.spec()) => Vec::new(),
            _ => {
                let mut tools = tools_for(self.mode, extra);
                if !self.questions {
                    tools.retain(|t| t.name != "ask_user");
                }
                tools.extend(self.mcp_tool_specs());
                tools
            }
        };
        self.conversation
            .set_overhead(system.len() + tools_chars(&tools));
        let call = ModelCall {
            model: &model.id,
            system: &system,
            messages: self.conversation.messages(),
            tools: &tools,
            max_tokens: self.budget().max_output(&model),
            thinking: self.thinking,
        };
        let (request, decoder) = encode_call(model.provider, endpoint, &call);
        self.start_model_step(now, attempt, model.provider, request, decoder);
    }

    /// Sends `request` as this turn's model step.
    pub(in crate::session) fn start_model_step(
        &mut self,
        now: Instant,
        attempt: u32,
        provider: Provider,
        request: HttpRequest,
        decoder: Box<dyn StreamDecoder>,
    ) {
        let http = self.effect_id(Owner::Model);
        let history_len = self.conversation.messages().len();
        let estimated_prompt = self.estimated_tokens();
        let sent = Sent {
            http,
            attempt,
            provider,
            history_len,
            estimated_prompt,
        };
        let idle_deadline = now + self.timings.model_idle_timeout;
        if let Some(turn) = self.turn.as_mut() {
            turn.await_model(ModelStep::new(sent, decoder), idle_deadline);
        }
        self.port.push(Output::HttpRequest { id: http, request });
    }

    /// The model step waiting on `id`, which just heard from it at `now`.
    fn model_step(&mut self, now: Instant, id: EffectId) -> Option<&mut ModelStep> {
        let idle = now + self.timings.model_idle_timeout;
        self.turn.as_mut()?.model_step(id, idle)
    }

    pub(in crate::session) fn http_response(
        &mut self,
        now: Instant,
        id: EffectId,
        status: u16,
        retry_after: Option<String>,
    ) {
        if let Some(step) = self.model_step(now, id) {
            step.response(status, retry_after);
        }
    }

    pub(in crate::session) fn http_body(&mut self, now: Instant, id: EffectId, bytes: &[u8]) {
        let Some(step) = self.model_step(now, id) else {
            return;
        };
        let events = step.body(bytes);
        self.model_events(now, events);
    }

    pub(in crate::session) fn http_ended(&mut self, now: Instant, id: EffectId) {
        let Some(step) = self.model_step(now, id) else {
            return;
        };
        match step.ended() {
            Ok(events) => self.model_events(now, events),
            Err(outcome) => self.model_outcome(now, outcome),
        }
    }

    pub(in crate::session) fn http_failed(&mut self, now: Instant, id: EffectId, error: String) {
        let Some(step) = self.model_step(now, id) else {
            return;
        };
        let outcome = step.broke(
            format!("network error: {error}"),
            format!("the model stream broke off: {error}"),
        );
        self.model_outcome(now, outcome);
    }

    /// Shows decoded events to the client and folds them into the answer.
    fn model_events(&mut self, now: Instant, events: Vec<ModelEvent>) {
        for event in events {
            let Some(turn) = self.turn.as_mut() else {
                return;
            };
            // A summary is for the model's view, not a reply to show.
            let show = (!turn.compaction.is_running()).then_some(&self.redactor);
            let Some(step) = turn.model_step_mut() else {
                return;
            };
            match step.event(event, show) {
                Ok(frames) => {
                    for frame in frames.into_iter().flatten() {
                        self.emit(frame);
                    }
                }
                Err(outcome) => {
                    let http = step.http();
                    self.port.push(Output::CancelHttp { id: http });
                    return self.model_outcome(now, outcome);
                }
            }
        }
    }

    /// Shows what `step` still holds back of its last block: its stream is over.
    pub(super) fn show_rest(&mut self, step: &mut ModelStep) {
        if let Some(frame) = step.rest() {
            self.emit(frame);
        }
    }

    pub(super) fn model_outcome(&mut self, now: Instant, outcome: Outcome) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let Some(mut step) = turn.take_model_step() else {
            return;
        };
        self.show_rest(&mut step);
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let summary = turn.compaction.is_running();
        let reported = step.assembler().usage();
        self.count_usage(&step);
        let prompt =
            reported.prompt_tokens + reported.cache_read_tokens + reported.cache_write_tokens;
        if !summary && prompt > 0 {
            self.conversation.calibrate(step.history_len(), prompt);
        }
        let (attempt, history_len) = (step.attempt(), step.history_len());
        let assembler = step.into_assembler();
        match outcome {
            Outcome::Retry {
                reason,
                retry_after,
            } => self.retry_or_fail(now, attempt, reason, retry_after),
            Outcome::Fail(error) if summary => self.compaction_failed(now, error),
            Outcome::Fail(error) => {
                self.keep_partial_answer(assembler);
                self.end_turn(now, TurnEndReason::Error, Some(error));
            }
            Outcome::Overflow(reason, facts) => {
                self.overflowed(now, attempt, reason, facts, history_len);
            }
            Outcome::Finished(_) if summary => match assembler.finish() {
                Ok(message) => self.compaction_done(now, &message),
                Err(error) => self.compaction_failed(now, format!("unusable summary: {error}")),
            },
            Outcome::Finished(StopReason::MaxTokens) if assembler.clone().finish().is_err() => {
                // Cut by the token limit in the middle of a tool call: the call cannot run.
                self.keep_partial_answer(assembler);
                self.end_turn(now, TurnEndReason::MaxTokens, None);
            }
            Outcome::Finished(stop) => match assembler.finish() {
                Err(error) => self.end_turn(
                    now,
                    TurnEndReason::Error,
                    Some(format!("the model's answer could not be used: {error}")),
                ),
                Ok(message) => self.answer_finished(now, message, stop),
            },
        }
    }

    /// An answer arrived whole: run its tool calls, or end the turn.
    fn answer_finished(&mut self, now: Instant, message: Message, stop: StopReason) {
        let calls: Vec<_> = message
            .content
            .iter()
            .filter_map(|b| match b {
                Block::ToolUse { id, name, input } => {
                    Some((id.clone(), name.clone(), input.clone()))
                }
                _ => None,
            })
            .collect();
        let text = message.text();
        if let Some(turn) = self.turn.as_mut() {
            turn.note_answer(text);
        }
        if !message.content.is_empty() {
            self.remember(message);
        }
        if !calls.is_empty() {
            if let Some(turn) = self.turn.as_mut() {
                turn.run_tools(calls);
            }
            return self.run_next_tool(now);
        }
        let steered = self.turn.as_ref().is_some_and(Turn::is_steered);
        match stop {
            StopReason::MaxTokens => self.end_turn(now, TurnEndReason::MaxTokens, None),
            StopReason::Refusal => self.end_turn(now, TurnEndReason::Refusal, None),
            _ if steered => self.send_request(now, 1),
            _ => self.end_turn(now, TurnEndReason::EndTurn, None),
        }
    }

    /// Adds a model step's tokens and cost to the turn: the provider's counts, or, when the
    /// stream ended without them (interrupted, broken), estimates of what was sent and streamed.
    pub(super) fn count_usage(&mut self, step: &ModelStep) {
        let assembler = step.assembler();
        let mut usage = assembler.usage();
        if usage == Usage::default() && assembler.has_output() {
            usage.prompt_tokens = step.estimated_prompt();
            usage.completion_tokens = self
                .conversation
                .tokens_for_chars(assembler.streamed_chars());
        }
        let prices = self.model.as_ref().and_then(|m| m.cost());
        if let Some(turn) = self.turn.as_mut() {
            let summary = turn.compaction.is_running();
            turn.tally.add(&usage, prices.as_ref(), summary);
        }
    }

    /// Keeps what the client already saw of an answer that did not finish, without tool calls
    /// (they have no results).
    pub(super) fn keep_partial_answer(&mut self, assembler: MessageAssembler) {
        let message = assembler.text_so_far();
        if !message.content.is_empty() {
            self.remember(message);
        }
    }

    fn retry_or_fail(
        &mut self,
        now: Instant,
        attempt: u32,
        reason: String,
        retry_after: Option<String>,
    ) {
        if attempt >= self.timings.max_attempts {
            let error = format!("the model request failed after {attempt} attempts: {reason}");
            return self.fail_step(now, error);
        }
        let delay = retry_delay(
            attempt,
            retry_after.as_deref(),
            self.timings.retry_base,
            self.timings.retry_max,
            &mut self.rng,
        );
        if let Some(turn) = self.turn.as_mut() {
            turn.back_off(attempt + 1, now + delay);
        }
        self.emit(Event::ModelRetrying(ModelRetrying {
            attempt: attempt + 1,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            reason,
        }));
    }
}

/// The HTTP request and stream decoder for `call` in `provider`'s format.
pub(in crate::session) fn encode_call(
    provider: Provider,
    endpoint: &Endpoint,
    call: &ModelCall<'_>,
) -> (HttpRequest, Box<dyn StreamDecoder>) {
    match provider {
        Provider::Anthropic => (
            anthropic::build_request(endpoint, call),
            Box::new(AnthropicStream::default()),
        ),
        Provider::OpenAi => (
            openai::build_request(endpoint, call),
            Box::new(OpenAiStream::default()),
        ),
    }
}

/// The characters tool definitions add to a request, for estimates.
fn tools_chars(tools: &[ToolSpec]) -> usize {
    tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len())
        .sum()
}
