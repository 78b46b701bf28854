//! Asking a local server about the model it runs: for `openai/…` models outside the catalogue,
//! once per model, `/v1/models`, `/props` and `/api/show` (see `model::openai::server_info`). The answers
//! come whenever they come: nothing waits for them, and a probe that takes longer than
//! `server_probe_timeout` is given up.

use super::owners::Owner;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use crate::effects::{EffectId, Input, Output};
use crate::model::catalogue::Provider;
use crate::model::openai::server_info::{ServerQuestion, probe_request, read_answer};

use super::Session;

/// The most of an answer kept: `/props` carries the chat template, a few kilobytes.
const ANSWER_MAX: usize = 256 * 1024;

/// Questions to servers about the models outside the catalogue they run, and what the servers
/// said of them (in an answer, or in an error refusing a request as too long), by `provider/id`.
#[derive(Debug, Default)]
pub(super) struct ServerProbes {
    pending: BTreeMap<EffectId, Probe>,
    /// The models asked about already.
    asked: BTreeSet<String>,
    /// The context windows the servers run the models with.
    windows: BTreeMap<String, u32>,
    /// The models whose chat template cannot use tools.
    no_tools: BTreeSet<String>,
}

#[derive(Debug)]
struct Probe {
    question: ServerQuestion,
    /// `provider/id` of the model asked about.
    model: String,
    id: String,
    ok: bool,
    body: Vec<u8>,
    deadline: Instant,
}

impl ServerProbes {
    /// The earliest deadline of a probe in flight.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.pending.values().map(|p| p.deadline).min()
    }

    /// The window a server said it runs `model` with.
    pub(super) fn window(&self, model: &str) -> Option<u32> {
        self.windows.get(model).copied()
    }

    /// Remembers `model`'s window; whether that changed what was known.
    pub(super) fn learn_window(&mut self, model: String, window: u32) -> bool {
        self.windows.insert(model, window) != Some(window)
    }

    /// Whether a server said `model`'s chat template cannot use tools.
    pub(super) fn tools_unsupported(&self, model: &str) -> bool {
        self.no_tools.contains(model)
    }

    /// Remembers that `model` cannot use tools; whether that was news.
    fn learn_no_tools(&mut self, model: String) -> bool {
        self.no_tools.insert(model)
    }
}

impl Session {
    /// Asks the server about the current model, unless the catalogue knows it or it was asked.
    pub(super) fn probe_server(&mut self, now: Instant) {
        let Some(model) = self.model.clone() else {
            return;
        };
        if model.provider != Provider::OpenAi || model.context_window().is_some() {
            return;
        }
        let Some(endpoint) = self.providers.endpoint(model.provider).cloned() else {
            return;
        };
        if !self.probes.asked.insert(model.spec()) {
            return;
        }
        for question in ServerQuestion::ALL {
            let id = self.effect_id(Owner::ServerProbe);
            self.probes.pending.insert(
                id,
                Probe {
                    question,
                    model: model.spec(),
                    id: model.id.clone(),
                    ok: false,
                    body: Vec::new(),
                    deadline: now + self.timings.server_probe_timeout,
                },
            );
            let request = probe_request(&endpoint, question, &model.id);
            self.outputs.push_back(Output::HttpRequest { id, request });
        }
    }

    /// Takes a probe's response.
    pub(super) fn server_probe_effect(&mut self, input: &Input<'_>) {
        let id = match input {
            Input::HttpResponse { id, .. }
            | Input::HttpBody { id, .. }
            | Input::HttpEnded { id }
            | Input::HttpFailed { id, .. } => *id,
            _ => return,
        };
        let Some(probe) = self.probes.pending.get_mut(&id) else {
            return;
        };
        match input {
            Input::HttpResponse { status, .. } => probe.ok = (200..300).contains(status),
            Input::HttpBody { bytes, .. } => {
                let room = ANSWER_MAX.saturating_sub(probe.body.len());
                probe
                    .body
                    .extend_from_slice(&bytes[..room.min(bytes.len())]);
            }
            Input::HttpEnded { .. } => {
                if let Some(probe) = self.probes.pending.remove(&id) {
                    self.server_answered(&probe);
                }
            }
            _ => {
                self.probes.pending.remove(&id);
            }
        }
    }

    /// Gives up the probes past their deadline.
    pub(super) fn server_probe_timeout(&mut self, now: Instant) {
        let late: Vec<EffectId> = self
            .probes
            .pending
            .iter()
            .filter(|(_, p)| p.deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in late {
            self.probes.pending.remove(&id);
            self.outputs.push_back(Output::CancelHttp { id });
        }
    }

    fn server_answered(&mut self, probe: &Probe) {
        if !probe.ok {
            return;
        }
        let facts = read_answer(probe.question, &probe.id, &probe.body);
        if self.model.as_ref().map(|m| m.spec()) != Some(probe.model.clone()) {
            return;
        }
        if let Some(window) = facts.window {
            self.learn_window(window);
        }
        // `state_changed.model.supports_tools:false` tells the client.
        if facts.supports_tools == Some(false) && self.probes.learn_no_tools(probe.model.clone()) {
            self.emit_state();
        }
    }
}
