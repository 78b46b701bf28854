//! Asking a local server about the model it runs: for `openai/…` models outside the catalogue,
//! once per model, `/v1/models`, `/props` and `/api/show` (see `model::openai::server_info`). The answers
//! come whenever they come: only a turn's first request waits for them (at most
//! `window_wait`, so that it fits the window), and a probe that takes longer than
//! `server_probe_timeout` is given up.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use super::outbox::Outbox;
use super::owners::Owner;
use crate::config::Providers;
use crate::effects::{EffectId, Input, Output};
use crate::model::catalogue::{ModelRef, Provider};
use crate::model::openai::server_info::{ServerFacts, ServerQuestion, probe_request, read_answer};

/// The most of an answer kept: `/props` carries the chat template, a few kilobytes.
const ANSWER_MAX: usize = 256 * 1024;

/// Questions to servers about the models outside the catalogue they run, and what the servers
/// said of them (in an answer, or in an error refusing a request as too long), by `provider/id`.
/// Time is whatever the caller measures deadlines in (`Instant` in a session), so the machine
/// is driven without a clock.
#[derive(Debug)]
pub(super) struct ServerProbes<At = Instant> {
    pending: BTreeMap<EffectId, Probe<At>>,
    /// The models asked about already.
    asked: BTreeSet<String>,
    /// The context windows the servers run the models with.
    windows: BTreeMap<String, u32>,
    /// The models whose chat template cannot use tools.
    no_tools: BTreeSet<String>,
}

impl<At> Default for ServerProbes<At> {
    fn default() -> Self {
        Self {
            pending: BTreeMap::new(),
            asked: BTreeSet::new(),
            windows: BTreeMap::new(),
            no_tools: BTreeSet::new(),
        }
    }
}

#[derive(Debug)]
struct Probe<At> {
    question: ServerQuestion,
    /// `provider/id` of the model asked about.
    model: String,
    id: String,
    ok: bool,
    body: Vec<u8>,
    deadline: At,
}

impl<At: Copy + Ord> ServerProbes<At> {
    /// The earliest deadline of a probe in flight.
    pub(super) fn deadline(&self) -> Option<At> {
        self.pending.values().map(|p| p.deadline).min()
    }

    /// Whether a question about `model` (`provider/id`) is under way.
    pub(super) fn asking(&self, model: &str) -> bool {
        self.pending.values().any(|p| p.model == model)
    }

    /// The window a server said it runs `model` with.
    pub(super) fn window(&self, model: &str) -> Option<u32> {
        self.windows.get(model).copied()
    }

    /// `model`'s context window: the catalogue's, else what its server said.
    pub(super) fn context_window(&self, model: &ModelRef) -> Option<u32> {
        model
            .context_window()
            .or_else(|| self.window(&model.spec()))
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
    pub(super) fn learn_no_tools(&mut self, model: String) -> bool {
        self.no_tools.insert(model)
    }

    /// Asks `model`'s server about it, unless the catalogue knows it, it is not an
    /// OpenAI-compatible server's, or it was asked before; each question is given up after
    /// `deadline`.
    pub(super) fn ask(
        &mut self,
        outbox: &mut Outbox,
        model: &ModelRef,
        providers: &Providers,
        deadline: At,
    ) {
        if model.provider != Provider::OpenAi || model.context_window().is_some() {
            return;
        }
        let Some(endpoint) = providers.endpoint(model.provider) else {
            return;
        };
        if !self.asked.insert(model.spec()) {
            return;
        }
        for question in ServerQuestion::ALL {
            let request = probe_request(endpoint, question, &model.id);
            let id = outbox.issue(Owner::ServerProbe, |id| Output::HttpRequest { id, request });
            let probe = Probe {
                question,
                model: model.spec(),
                id: model.id.clone(),
                ok: false,
                body: Vec::new(),
                deadline,
            };
            self.pending.insert(id, probe);
        }
    }

    /// Takes a probe's response; what the server said once its answer is whole and was a
    /// success.
    pub(super) fn handle(&mut self, input: &Input<'_>) -> Option<Said> {
        let id = match input {
            Input::HttpResponse { id, .. }
            | Input::HttpBody { id, .. }
            | Input::HttpEnded { id }
            | Input::HttpFailed { id, .. } => *id,
            _ => return None,
        };
        let probe = self.pending.get_mut(&id)?;
        match input {
            Input::HttpResponse { status, .. } => probe.ok = (200..300).contains(status),
            Input::HttpBody { bytes, .. } => {
                let room = ANSWER_MAX.saturating_sub(probe.body.len());
                probe
                    .body
                    .extend_from_slice(&bytes[..room.min(bytes.len())]);
            }
            Input::HttpEnded { .. } => {
                let probe = self.pending.remove(&id)?;
                return probe.ok.then(|| Said {
                    facts: read_answer(probe.question, &probe.id, &probe.body),
                    model: probe.model,
                });
            }
            _ => {
                self.pending.remove(&id);
            }
        }
        None
    }

    /// Gives up the probes past their deadline, cancelling their requests.
    pub(super) fn handle_timeout(&mut self, outbox: &mut Outbox, now: At) {
        let late: Vec<EffectId> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in late {
            self.pending.remove(&id);
            outbox.push(Output::CancelHttp { id });
        }
    }
}

/// What a server said of a model in a successful answer.
#[derive(Debug)]
pub(super) struct Said {
    /// `provider/id` of the model asked about.
    pub(super) model: String,
    pub(super) facts: ServerFacts,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProviderVars;

    fn local_server() -> Providers {
        Providers::from_vars(&ProviderVars {
            openai_base_url: Some("http://127.0.0.1:8080/v1".to_owned()),
            ..ProviderVars::default()
        })
    }

    fn requests(outbox: &mut Outbox) -> Vec<(EffectId, String)> {
        std::iter::from_fn(|| outbox.pop())
            .filter_map(|output| match output {
                Output::HttpRequest { id, request } => Some((id, request.url)),
                _ => None,
            })
            .collect()
    }

    fn answer(
        probes: &mut ServerProbes<u64>,
        id: EffectId,
        status: u16,
        body: &[u8],
    ) -> Option<Said> {
        let inputs = [
            Input::HttpResponse {
                id,
                status,
                retry_after: None,
            },
            Input::HttpBody { id, bytes: body },
            Input::HttpEnded { id },
        ];
        inputs
            .iter()
            .filter_map(|input| probes.handle(input))
            .last()
    }

    #[test]
    fn a_local_model_is_asked_once_and_a_whole_success_says_what_it_said() {
        let (mut probes, mut outbox, now) = (ServerProbes::default(), Outbox::default(), 1_000_u64);
        let model = ModelRef::parse("openai/smollm").unwrap();
        let timeout = 5_000;
        probes.ask(&mut outbox, &model, &local_server(), now + timeout);
        let asked = requests(&mut outbox);
        assert_eq!(asked.len(), ServerQuestion::ALL.len());
        assert!(
            asked
                .iter()
                .all(|(_, url)| url.starts_with("http://127.0.0.1:8080"))
        );
        probes.ask(&mut outbox, &model, &local_server(), now + timeout);
        assert!(requests(&mut outbox).is_empty(), "asked twice");
        assert_eq!(probes.deadline(), Some(now + timeout));

        let props = asked
            .iter()
            .find(|(_, url)| url.ends_with("/props"))
            .unwrap()
            .0;
        let said = answer(&mut probes, props, 200, br#"{"n_ctx": 2048}"#).unwrap();
        assert_eq!(
            (said.model.as_str(), said.facts.window),
            ("openai/smollm", Some(2048))
        );
        let models = asked
            .iter()
            .find(|(_, url)| url.ends_with("/models"))
            .unwrap()
            .0;
        assert!(answer(&mut probes, models, 500, br#"{"n_ctx": 2048}"#).is_none());
        assert!(
            answer(&mut probes, props, 200, b"{}").is_none(),
            "answered after its end"
        );
    }

    #[test]
    fn catalogue_and_anthropic_models_are_not_asked_and_late_probes_are_cancelled() {
        let (mut probes, mut outbox, now) = (ServerProbes::default(), Outbox::default(), 1_000_u64);
        let timeout = 5_000;
        for known in ["anthropic/claude-sonnet-4-5", "openai/gpt-5"] {
            let model = ModelRef::parse(known).unwrap();
            probes.ask(&mut outbox, &model, &local_server(), now + timeout);
            assert!(requests(&mut outbox).is_empty(), "{known} was asked about");
        }
        let model = ModelRef::parse("openai/qwen").unwrap();
        probes.ask(&mut outbox, &model, &local_server(), now + timeout);
        let asked = requests(&mut outbox);
        probes.handle_timeout(&mut outbox, now + timeout - 1);
        assert!(outbox.pop().is_none(), "cancelled before its deadline");
        probes.handle_timeout(&mut outbox, now + timeout);
        let cancelled: Vec<_> = std::iter::from_fn(|| outbox.pop()).collect();
        assert_eq!(cancelled.len(), asked.len());
        assert!(
            cancelled
                .iter()
                .all(|o| matches!(o, Output::CancelHttp { .. }))
        );
        assert_eq!(probes.deadline(), None);
        assert!(answer(&mut probes, asked[0].0, 200, br#"{"n_ctx": 1}"#).is_none());
    }
}
