//! What the turns borrow of the session for one call ([`TurnDesk`]): the outbox and the store
//! they write through, the random numbers for back-off, the server probes' answers, and the
//! settings and facts a request is built from; never what only `state_changed` says. The session lends it with `turn_desk!`, so the
//! borrow is of those fields alone and the turns machine stays free.

use crate::config::{Providers, Timings};
use crate::mcp::Mcp;
use crate::model::catalogue::{ModelRef, Provider};
use crate::model::conversation::ToolSpec;
use crate::protocol::values::{Mode, Thinking};
use crate::redact::Redactor;
use crate::rng::Rng;
use crate::session::outbox::Outbox;
use crate::session::project_context::ProjectContext;
use crate::session::server_probe::ServerProbes;
use crate::session::store::{Store, settings_record};
use crate::store::Record;

/// The session's parts a turn works with, lent for one call.
pub(in crate::session) struct TurnDesk<'a> {
    pub(in crate::session) outbox: &'a mut Outbox,
    pub(in crate::session) store: &'a mut Store,
    pub(in crate::session) rng: &'a mut Rng,
    /// What servers said of the models outside the catalogue.
    pub(in crate::session) probes: &'a ServerProbes,
    pub(in crate::session) model: Option<&'a ModelRef>,
    pub(in crate::session) mode: Mode,
    pub(in crate::session) thinking: Thinking,
    pub(in crate::session) providers: &'a Providers,
    pub(in crate::session) timings: &'a Timings,
    pub(in crate::session) cwd: &'a str,
    pub(in crate::session) platform: &'a str,
    pub(in crate::session) today: &'a str,
    pub(in crate::session) context: &'a ProjectContext,
    pub(in crate::session) redactor: &'a Redactor,
    /// Whether `ask_user` is offered: someone can answer it.
    pub(in crate::session) questions: bool,
    /// The MCP servers, whose tools join every request.
    pub(in crate::session) mcp: &'a Mcp,
}

impl TurnDesk<'_> {
    /// Appends `record` to the session file (its header first, with the settings in force).
    pub(in crate::session) fn record(&mut self, record: &Record) {
        let (model, mode, thinking) = (self.model, self.mode, self.thinking);
        (self.store).record(self.outbox, record, || {
            settings_record(model, mode, thinking)
        });
    }

    /// Makes what the session file holds durable.
    pub(in crate::session) fn sync_store(&mut self) {
        self.store.sync(self.outbox);
    }

    /// The model to ask, or why there is none that can be used.
    pub(in crate::session) fn usable_model(&self) -> Result<ModelRef, String> {
        let Some(model) = self.model.cloned() else {
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

    /// The context window: the catalogue's, else what the server said.
    pub(in crate::session) fn context_window(&self) -> Option<u32> {
        self.probes.context_window(self.model?)
    }

    /// The MCP servers' tools a request offers: all in build mode, the read-only ones in plan
    /// mode.
    pub(in crate::session) fn mcp_tool_specs(&self) -> Vec<ToolSpec> {
        self.mcp
            .tools()
            .filter(|t| self.mode == Mode::Build || t.read_only)
            .map(|t| ToolSpec {
                name: t.name.clone().into(),
                description: t.description.clone().into(),
                input_schema: t.input_schema.clone(),
            })
            .collect()
    }
}

/// What a turn borrows of `$session` ([`TurnDesk`]): a macro so that the borrow is of
/// those fields alone, and the turns machine (and the tool calls it holds) stays free.
macro_rules! turn_desk {
    ($session:expr) => {
        $crate::session::turn::TurnDesk {
            outbox: &mut $session.outbox,
            store: &mut $session.store,
            rng: &mut $session.rng,
            probes: &$session.probes,
            model: $session.model.as_ref(),
            mode: $session.mode,
            thinking: $session.thinking,
            providers: &$session.facts.providers,
            timings: &$session.facts.timings,
            cwd: &$session.facts.cwd,
            platform: &$session.facts.platform,
            today: &$session.facts.today,
            context: &$session.context,
            redactor: &$session.redactor,
            questions: $session.facts.questions,
            mcp: &$session.mcp,
        }
    };
}
pub(in crate::session) use turn_desk;
