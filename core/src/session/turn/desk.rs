//! What the turns borrow of the session for one call ([`TurnDesk`]), in parts that a turn's
//! methods take one at a time: the [`Journal`] they write through (the outbox, the session
//! file, and the [`Settings`] its header names), where requests go (the providers and what
//! servers said of their models, both shared with `state_changed`), and the [`Prompt`]'s facts
//! a request is built from. What only the turns use they own instead (the conversation, the
//! waits, the back-off's random numbers); what only `state_changed` says is the session's.
//! A method that can send a model request (a turn's next step, a retry, a compaction that goes
//! on to the turn's request) needs every part and takes the desk; one that only ends a turn,
//! records, shows or starts a step takes its parts (`end_turn` and `interrupt` the journal and
//! the window, `start_model_step` the outbox and a deadline).
//! The session lends them with `turn_desk!` and `journal!`, so the borrow is of those fields
//! alone and the turns machine stays free.

use crate::config::Providers;
use crate::mcp::Mcp;
use crate::model::catalogue::{ModelRef, Provider};
use crate::model::conversation::ToolSpec;
use crate::protocol::values::{Mode, Thinking};
use crate::redact::Redactor;
use crate::session::outbox::Outbox;
use crate::session::project_context::ProjectContext;
use crate::session::server_probe::ServerProbes;
use crate::session::store::{Store, settings_record};
use crate::store::Record;

/// The session's parts a turn works with, lent for one call; a method that needs less takes
/// only its part.
pub(in crate::session) struct TurnDesk<'a> {
    pub(in crate::session) journal: Journal<'a>,
    pub(in crate::session) providers: &'a Providers,
    /// What servers said of the models outside the catalogue.
    pub(in crate::session) probes: &'a ServerProbes,
    pub(in crate::session) prompt: Prompt<'a>,
}

/// The settings in force, which requests use and the session file's header names.
#[derive(Clone, Copy)]
pub(in crate::session) struct Settings<'a> {
    pub(in crate::session) model: Option<&'a ModelRef>,
    pub(in crate::session) mode: Mode,
    pub(in crate::session) thinking: Thinking,
}

/// Where a turn's frames, effects and records go.
pub(in crate::session) struct Journal<'a> {
    pub(in crate::session) outbox: &'a mut Outbox,
    pub(in crate::session) store: &'a mut Store,
    pub(in crate::session) settings: Settings<'a>,
}

/// What a request is made of besides the conversation and the settings: the system prompt's
/// facts, what must not show, and the tools offered.
pub(in crate::session) struct Prompt<'a> {
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

impl Journal<'_> {
    /// Appends `record` to the session file (its header first, with the settings in force).
    pub(in crate::session) fn record(&mut self, record: &Record) {
        let Settings {
            model,
            mode,
            thinking,
        } = self.settings;
        (self.store).record(self.outbox, record, || {
            settings_record(model, mode, thinking)
        });
    }

    /// Makes what the session file holds durable.
    pub(in crate::session) fn sync(&mut self) {
        self.store.sync(self.outbox);
    }
}

impl<'a> TurnDesk<'a> {
    /// The current model.
    pub(in crate::session) fn model(&self) -> Option<&'a ModelRef> {
        self.journal.settings.model
    }

    /// The model to ask, or why there is none that can be used.
    pub(in crate::session) fn usable_model(&self) -> Result<ModelRef, String> {
        let Some(model) = self.model().cloned() else {
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
        self.probes.context_window(self.model()?)
    }
}

impl Prompt<'_> {
    /// The MCP servers' tools a request offers: all in build mode, the read-only ones in plan
    /// mode.
    pub(in crate::session) fn mcp_tool_specs(&self, mode: Mode) -> Vec<ToolSpec> {
        self.mcp
            .tools()
            .filter(|t| mode == Mode::Build || t.read_only)
            .map(|t| ToolSpec {
                name: t.name.clone().into(),
                description: t.description.clone().into(),
                input_schema: t.input_schema.clone(),
            })
            .collect()
    }
}

/// Where a turn's writes go in `$session` ([`Journal`]): a macro so that the borrow is of
/// those fields alone.
macro_rules! journal {
    ($session:expr) => {
        $crate::session::turn::Journal {
            outbox: &mut $session.outbox,
            store: &mut $session.store,
            settings: $crate::session::turn::Settings {
                model: $session.model.as_ref(),
                mode: $session.mode,
                thinking: $session.thinking,
            },
        }
    };
}
pub(in crate::session) use journal;

/// What a turn borrows of `$session` ([`TurnDesk`]): a macro so that the borrow is of
/// those fields alone, and the turns machine (and the tool calls it holds) stays free.
macro_rules! turn_desk {
    ($session:expr) => {
        $crate::session::turn::TurnDesk {
            journal: $crate::session::turn::journal!($session),
            providers: &$session.facts.providers,
            probes: &$session.probes,
            prompt: $crate::session::turn::Prompt {
                cwd: &$session.facts.cwd,
                platform: &$session.facts.platform,
                today: &$session.facts.today,
                context: &$session.context,
                redactor: &$session.redactor,
                questions: $session.facts.questions,
                mcp: &$session.mcp,
            },
        }
    };
}
pub(in crate::session) use turn_desk;
