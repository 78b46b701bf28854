//! The session's routing for `state_changed`: the session says it (never a machine it lends
//! to), from its own settings and what servers said of their models.

use crate::model::catalogue::ModelRef;
use crate::session::Session;
use crate::session::server_probe::Said;
use crate::session::state_changed::StateView;

impl Session {
    /// Sends `state_changed`.
    pub(in crate::session) fn emit_state(&mut self) {
        let view = StateView {
            model: self.model.as_ref(),
            providers: &self.facts.providers,
            probes: &self.probes,
            mode: self.mode,
            thinking: self.thinking,
            permission_mode: self.gate.mode(),
            auto_approve: self.auto_approve,
            trust_project: self.facts.trust_project,
        };
        let frame = view.frame(self.turns.is_running());
        self.emit(frame);
    }

    /// Takes what a server said of a model, if it is still the current one: its window, and
    /// whether its template can use tools (`state_changed.model.supports_tools:false` tells
    /// the client).
    pub(in crate::session) fn server_said(&mut self, said: Said) {
        if self.model.as_ref().map(ModelRef::spec) != Some(said.model.clone()) {
            return;
        }
        if let Some(window) = said.facts.window {
            self.learn_window(window);
        }
        if said.facts.supports_tools == Some(false) && self.probes.learn_no_tools(said.model) {
            self.emit_state();
        }
    }

    /// Remembers the window the server runs the current model with.
    pub(in crate::session) fn learn_window(&mut self, window: u32) {
        let Some(model) = &self.model else {
            return;
        };
        if model.context_window().is_some() {
            return;
        }
        if self.probes.learn_window(model.spec(), window) {
            self.emit_state();
        }
    }
}
