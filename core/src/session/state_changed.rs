//! What `state_changed` says (the model as the server runs it, the modes, whether a turn holds
//! the session) and where the session learns what changes it: a server's word on a model. The
//! session says it, never a machine it lends to: the turns ask for it in their `Then`.

use std::time::Instant;

use crate::config::Providers;
use crate::model::catalogue::ModelRef;
use crate::protocol::events::{Event, ModelInfo, StateChanged};
use crate::protocol::values::{Mode, PermissionMode, Thinking};
use crate::session::server_probe::ServerProbes;

/// The settings and facts `state_changed` is made of, borrowed for one frame.
pub(super) struct StateView<'a, At = Instant> {
    pub(super) model: Option<&'a ModelRef>,
    pub(super) providers: &'a Providers,
    /// What servers said of the models outside the catalogue.
    pub(super) probes: &'a ServerProbes<At>,
    pub(super) mode: Mode,
    pub(super) thinking: Thinking,
    pub(super) permission_mode: PermissionMode,
    pub(super) auto_approve: bool,
    pub(super) trust_project: bool,
}

impl<At: Copy + Ord> StateView<'_, At> {
    /// The frame; `streaming` while a turn or `compact` run holds the session.
    pub(super) fn frame(&self, streaming: bool) -> Event {
        Event::StateChanged(StateChanged {
            model: self.model_info(),
            streaming,
            mode: self.mode,
            thinking: self.thinking,
            permission_mode: self.permission_mode,
            auto_approve: self.auto_approve,
            trust_project: self.trust_project,
        })
    }

    /// The current model as `state_changed` shows it, with what the server said of it.
    fn model_info(&self) -> Option<ModelInfo> {
        let model = self.model?;
        let mut info = model.info(self.providers.access());
        info.context_window = self.probes.context_window(model);
        if self.probes.tools_unsupported(&info.id) {
            info.supports_tools = Some(false);
        }
        Some(info)
    }
}
