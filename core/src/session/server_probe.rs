//! Asking a local server about the model it runs: for `openai/…` models outside the catalogue,
//! once per model, `/v1/models`, `/props` and `/api/show` (see `model::openai::server_info`). The answers
//! come whenever they come: nothing waits for them, and a probe that takes longer than
//! `server_probe_timeout` is given up.

use super::owners::Owner;
use std::collections::BTreeMap;
use std::time::Instant;

use crate::effects::{EffectId, Input, Output};
use crate::model::catalogue::Provider;
use crate::model::openai::server_info::{ServerQuestion, probe_request, read_answer};

use super::Session;

/// The most of an answer kept: `/props` carries the chat template, a few kilobytes.
const ANSWER_MAX: usize = 256 * 1024;

/// The probes in flight.
#[derive(Debug, Default)]
pub(super) struct ServerProbes {
    pending: BTreeMap<EffectId, Probe>,
    /// The models asked about already, by `provider/id`.
    asked: std::collections::BTreeSet<String>,
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
        if facts.supports_tools == Some(false) && self.tools_unsupported.insert(probe.model.clone())
        {
            self.emit_state();
        }
    }
}
