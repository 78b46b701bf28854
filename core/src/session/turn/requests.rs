//! A turn's model requests: building each request from the conversation, the stream's events
//! as frames, how an answer ends (tool calls, the end of the turn, a retry after a failure),
//! and the usage and cost it adds. One request itself is `model_step.rs`'s machine.

use std::ops::Add;
use std::time::Duration;

use crate::effects::HttpRequest;
use crate::effects::{EffectId, Input, Output};
use crate::model::anthropic::{self, AnthropicStream};
use crate::model::assembler::MessageAssembler;
use crate::model::catalogue::{ModelRef, Provider};
use crate::model::conversation::ToolSpec;
use crate::model::conversation::{Block, Message, Role};
use crate::model::openai::{self, OpenAiStream};
use crate::model::wire::{Endpoint, ModelCall, ModelEvent, StopReason, StreamDecoder, Usage};
use crate::protocol::events::{Event, ModelRetrying};
use crate::protocol::values::{CompactionTrigger, TurnEndReason};
use crate::session::guided_review::turns::ReviewTask;
use crate::session::model_step::{ModelStep, Outcome, Sent, retry_delay};
use crate::session::outbox::Outbox;
use crate::session::owners::Owner;
use crate::session::tools::definitions::tools_for;
use crate::store::Record;

use super::compaction::Overflow;
use super::{Journal, Resume, Then, TurnDesk, Turns, show_rest};

impl<At: Copy + Ord + Add<Duration, Output = At>> Turns<At> {
    /// Sends the next model request (attempt `attempt` of this step).
    pub(super) fn send_request(&mut self, desk: &mut TurnDesk<'_>, now: At, attempt: u32) -> Then {
        let (Some(model), Some(turn)) = (desk.model().cloned(), self.running.as_mut()) else {
            return Then::Nothing;
        };
        if turn.compaction().is_running() {
            return self.send_summary_request(desk, now, attempt, &model);
        }
        let steering = turn.take_steering();
        if !steering.is_empty() {
            let blocks = steering.into_iter().map(|text| Block::Text { text });
            let blocks: Vec<Block> = blocks.collect();
            if self.conversation.extend_last_user(&blocks) {
                desk.journal.record(&Record::Append { blocks });
            } else {
                self.remember(
                    &mut desk.journal,
                    Message {
                        role: Role::User,
                        content: blocks,
                    },
                );
            }
        }
        let Some(endpoint) = desk.providers.endpoint(model.provider) else {
            return Then::Nothing;
        };
        let system = crate::session::system_prompt::system_prompt(
            desk.prompt.cwd,
            desk.prompt.platform,
            desk.prompt.today,
            desk.prompt.context.git(),
            desk.prompt.context.agents_md(),
        );
        // AGENTS.md is the project's text like any file a tool reads: the same redaction.
        let system = desk.prompt.redactor.redact(&system).into_owned();
        let extra = self
            .running
            .as_ref()
            .and_then(|t| t.review())
            .map_or(&[][..], ReviewTask::tools);
        // A chat template that cannot use tools drops them: offering none says so honestly
        // and keeps the request's estimate true.
        let tools = if desk.probes.tools_unsupported(&model.spec()) {
            Vec::new()
        } else {
            let mut tools = tools_for(desk.journal.settings.mode, extra);
            if !desk.prompt.questions {
                tools.retain(|t| t.name != "ask_user");
            }
            tools.extend(desk.prompt.mcp_tool_specs(desk.journal.settings.mode));
            tools
        };
        // What the request adds besides the messages, for the checks below and its cap.
        self.conversation
            .set_overhead(system.len(), tools_chars(&tools));
        if self.compaction_due(&model, desk.context_window())
            && let Some(then) =
                self.begin_compaction(desk, now, CompactionTrigger::ContextWindow, None, None)
        {
            return then;
        }
        let window = desk.context_window();
        self.drop_what_cannot_fit(&mut desk.journal, &model, window);
        let call = ModelCall {
            model: &model.id,
            system: &system,
            messages: self.conversation.messages(),
            tools: &tools,
            max_tokens: self
                .budget(desk.model(), desk.context_window())
                .max_output(&model),
            thinking: desk.journal.settings.thinking,
        };
        let encoded = encode_call(model.provider, endpoint, &call);
        let idle = now + self.timings.model_idle_timeout;
        self.start_model_step(desk.journal.outbox, idle, attempt, model.provider, encoded);
        Then::Nothing
    }

    /// Sends `request` as this turn's model step, its answer read by `decoder` and given up
    /// at `idle_deadline` unless heard from.
    pub(super) fn start_model_step(
        &mut self,
        outbox: &mut Outbox,
        idle_deadline: At,
        attempt: u32,
        provider: Provider,
        (request, decoder): (HttpRequest, Box<dyn StreamDecoder>),
    ) {
        let http = outbox.effect_id(Owner::Model);
        let sent = Sent {
            http,
            attempt,
            provider,
            history_len: self.conversation.messages().len(),
            estimated_prompt: self.conversation.estimated_tokens(),
        };
        if let Some(turn) = self.running.as_mut() {
            turn.await_model(ModelStep::new(sent, decoder), idle_deadline);
        }
        outbox.push(Output::HttpRequest { id: http, request });
    }

    /// The model step waiting on `id`, which just heard from it at `now`.
    fn model_step(&mut self, now: At, id: EffectId) -> Option<&mut ModelStep> {
        let idle = now + self.timings.model_idle_timeout;
        self.running.as_mut()?.model_step(id, idle)
    }

    /// An HTTP input of the model request under way: a response, bytes of the stream, its
    /// end or its failure. Inputs of a request given up are dropped.
    pub(in crate::session) fn handle_http(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        input: Input<'_>,
    ) -> Then {
        match input {
            Input::HttpResponse {
                id,
                status,
                retry_after,
            } => {
                if let Some(step) = self.model_step(now, id) {
                    step.response(status, retry_after);
                }
                Then::Nothing
            }
            Input::HttpBody { id, bytes } => {
                let Some(step) = self.model_step(now, id) else {
                    return Then::Nothing;
                };
                let events = step.body(bytes);
                self.model_events(desk, now, events)
            }
            Input::HttpEnded { id } => {
                let Some(step) = self.model_step(now, id) else {
                    return Then::Nothing;
                };
                match step.ended() {
                    Ok(events) => self.model_events(desk, now, events),
                    Err(outcome) => self.model_outcome(desk, now, outcome),
                }
            }
            Input::HttpFailed { id, error } => {
                let Some(step) = self.model_step(now, id) else {
                    return Then::Nothing;
                };
                let outcome = step.broke(
                    format!("network error: {error}"),
                    format!("the model stream broke off: {error}"),
                );
                self.model_outcome(desk, now, outcome)
            }
            _ => Then::Nothing,
        }
    }

    /// Shows decoded events to the client and folds them into the answer.
    fn model_events(&mut self, desk: &mut TurnDesk<'_>, now: At, events: Vec<ModelEvent>) -> Then {
        for event in events {
            let Some(turn) = self.running.as_mut() else {
                return Then::Nothing;
            };
            // A summary is for the model's view, not a reply to show.
            let show = (!turn.compaction().is_running()).then_some(desk.prompt.redactor);
            let Some(step) = turn.model_step_mut() else {
                return Then::Nothing;
            };
            match step.event(event, show) {
                Ok(frames) => {
                    for frame in frames.into_iter().flatten() {
                        desk.journal.outbox.emit(frame);
                    }
                }
                Err(outcome) => {
                    let http = step.http();
                    desk.journal.outbox.push(Output::CancelHttp { id: http });
                    return self.model_outcome(desk, now, outcome);
                }
            }
        }
        Then::Nothing
    }

    /// The model request ended with `outcome`.
    pub(super) fn model_outcome(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        outcome: Outcome,
    ) -> Then {
        let Some(turn) = self.running.as_mut() else {
            return Then::Nothing;
        };
        let Some(mut step) = turn.take_model_step() else {
            return Then::Nothing;
        };
        show_rest(desk.journal.outbox, &mut step);
        let summary = turn.compaction().is_running();
        let reported = step.assembler().usage();
        self.count_usage(desk.model(), &step);
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
            } => self.retry_or_fail(desk, now, attempt, reason, retry_after),
            Outcome::Fail(error) if summary => self.compaction_failed(desk, now, error),
            Outcome::Fail(error) => {
                self.keep_partial_answer(&mut desk.journal, assembler);
                self.end_turn(
                    desk.context_window(),
                    &mut desk.journal,
                    TurnEndReason::Error,
                    Some(error),
                )
            }
            Outcome::Overflow(reason, facts) => {
                let overflow = Overflow {
                    attempt,
                    reason,
                    prompt_tokens: facts.prompt_tokens,
                    history_len,
                };
                match facts.window {
                    Some(window) => Then::WindowSaid(window, Resume::Overflowed(overflow)),
                    None => self.overflowed(desk, now, overflow),
                }
            }
            Outcome::Finished(_) if summary => match assembler.finish() {
                Ok(message) => self.compaction_done(desk, now, &message),
                Err(error) => {
                    self.compaction_failed(desk, now, format!("unusable summary: {error}"))
                }
            },
            Outcome::Finished(StopReason::MaxTokens) if assembler.clone().finish().is_err() => {
                // Cut by the token limit in the middle of a tool call: the call cannot run.
                self.keep_partial_answer(&mut desk.journal, assembler);
                self.end_turn(
                    desk.context_window(),
                    &mut desk.journal,
                    TurnEndReason::MaxTokens,
                    None,
                )
            }
            Outcome::Finished(stop) => match assembler.finish() {
                Err(error) => self.end_turn(
                    desk.context_window(),
                    &mut desk.journal,
                    TurnEndReason::Error,
                    Some(format!("the model's answer could not be used: {error}")),
                ),
                Ok(message) => self.answer_finished(desk, now, message, stop),
            },
        }
    }

    /// An answer arrived whole: run its tool calls, or end the turn.
    fn answer_finished(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        message: Message,
        stop: StopReason,
    ) -> Then {
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
        if let Some(turn) = self.running.as_mut() {
            turn.note_answer(text);
        }
        if !message.content.is_empty() {
            self.remember(&mut desk.journal, message);
        }
        if !calls.is_empty() {
            if let Some(turn) = self.running.as_mut() {
                turn.run_tools(calls);
            }
            return Then::RunTools;
        }
        let steered = self.running.as_ref().is_some_and(|t| t.is_steered());
        match stop {
            StopReason::MaxTokens => self.end_turn(
                desk.context_window(),
                &mut desk.journal,
                TurnEndReason::MaxTokens,
                None,
            ),
            StopReason::Refusal => self.end_turn(
                desk.context_window(),
                &mut desk.journal,
                TurnEndReason::Refusal,
                None,
            ),
            _ if steered => self.send_request(desk, now, 1),
            _ => self.end_turn(
                desk.context_window(),
                &mut desk.journal,
                TurnEndReason::EndTurn,
                None,
            ),
        }
    }

    /// Adds a model step's tokens and cost to the turn: the provider's counts, or, when the
    /// stream ended without them (interrupted, broken), estimates of what was sent and streamed.
    pub(super) fn count_usage(&mut self, model: Option<&ModelRef>, step: &ModelStep) {
        let assembler = step.assembler();
        let mut usage = assembler.usage();
        if usage == Usage::default() && assembler.has_output() {
            usage.prompt_tokens = step.estimated_prompt();
            usage.completion_tokens = self
                .conversation
                .tokens_for_chars(assembler.streamed_chars());
        }
        let prices = model.and_then(|m| m.cost());
        if let Some(turn) = self.running.as_mut() {
            turn.add_usage(&usage, prices.as_ref());
        }
    }

    /// Keeps what the client already saw of an answer that did not finish, without tool calls
    /// (they have no results).
    pub(super) fn keep_partial_answer(
        &mut self,
        journal: &mut Journal<'_>,
        assembler: MessageAssembler,
    ) {
        let message = assembler.text_so_far();
        if !message.content.is_empty() {
            self.remember(journal, message);
        }
    }

    fn retry_or_fail(
        &mut self,
        desk: &mut TurnDesk<'_>,
        now: At,
        attempt: u32,
        reason: String,
        retry_after: Option<String>,
    ) -> Then {
        if attempt >= self.timings.max_attempts {
            let error = format!("the model request failed after {attempt} attempts: {reason}");
            return self.fail_step(desk, now, error);
        }
        let delay = retry_delay(
            attempt,
            retry_after.as_deref(),
            self.timings.retry_base,
            self.timings.retry_max,
            &mut self.rng,
        );
        if let Some(turn) = self.running.as_mut() {
            turn.back_off(attempt + 1, now + delay);
        }
        desk.journal
            .outbox
            .emit(Event::ModelRetrying(ModelRetrying {
                attempt: attempt + 1,
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                reason,
            }));
        Then::Nothing
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
