//! The session's mode and options as the client sees them: its `session/set_mode` and
//! `session/set_config_option` carried out quietly (their answer says what changed), and a
//! `current_mode_update` or `config_option_update` for a change it did not ask for.

use std::time::Instant;

use serde_json::{Value, json};

use crate::protocol::actions::{Action, SetMode, SetModel, SetThinking};
use crate::protocol::events::StateChanged;

use super::super::effects_table::Slot;
use super::super::jsonrpc::{RpcError, code};
use super::super::messages::Params;
use super::super::modes::{self, ConfigChange};
use super::{Host, Hosted, action};

impl Host {
    pub(super) fn set_mode(&mut self, now: Instant, p: &Params<'_>) -> Result<Value, RpcError> {
        let slot = self.hosted(p)?;
        let mode_id = p.string("modeId")?;
        let (hosted, state) = self.with_state(slot)?;
        let (permission_mode, mode) = modes::parse_mode(mode_id, &state)?;
        if let Some(permission_mode) = permission_mode
            && permission_mode != state.permission_mode
        {
            hosted
                .session
                .set_permission_mode(permission_mode)
                .map_err(RpcError::invalid_params)?;
        }
        if mode != state.mode {
            hosted
                .session
                .handle_incoming(now, action(None, Action::SetMode(SetMode { mode })));
        }
        self.quietly(now, slot);
        Ok(json!({}))
    }

    pub(super) fn set_config_option(
        &mut self,
        now: Instant,
        p: &Params<'_>,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let slot = self.hosted(p)?;
        let config_id = p.string("configId")?;
        let value = params.get("value").cloned().unwrap_or(Value::Null);
        let access = self.access;
        let (hosted, state) = self.with_state(slot)?;
        let offered = modes::config_options(&state, access);
        let change = match modes::parse_config(config_id, &value, &offered)? {
            ConfigChange::Model(model) => Action::SetModel(SetModel { model }),
            ConfigChange::Thinking(thinking) => Action::SetThinking(SetThinking { thinking }),
        };
        hosted.session.handle_incoming(now, action(None, change));
        self.quietly(now, slot);
        let hosted = self
            .sessions
            .get(&slot)
            .ok_or_else(|| RpcError::unknown_session(""))?;
        Ok(json!({"configOptions": hosted.announced.1}))
    }

    /// The session in `slot` and its settings now, which the client's change starts from.
    fn with_state(&mut self, slot: Slot) -> Result<(&mut Hosted, StateChanged), RpcError> {
        let hosted = self
            .sessions
            .get_mut(&slot)
            .ok_or_else(|| RpcError::unknown_session(""))?;
        let state = hosted
            .state
            .clone()
            .ok_or_else(|| RpcError::new(code::INTERNAL_ERROR, "the session has no state yet"))?;
        Ok((hosted, state))
    }

    /// Pumps a session after the client's own change, which its answer reports.
    fn quietly(&mut self, now: Instant, slot: Slot) {
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            hosted.quiet = true;
        }
        self.pump(now, slot);
        if let Some(hosted) = self.sessions.get_mut(&slot) {
            hosted.quiet = false;
        }
    }

    /// The session in `slot` has new settings: the client hears of a mode or options it did
    /// not set itself (the first state, and the client's own change, are only recorded).
    pub(super) fn state_changed(&mut self, slot: Slot, state: StateChanged) {
        let mode = modes::mode_id(&state).to_owned();
        let options = modes::config_options(&state, self.access);
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let first = hosted.state.is_none();
        hosted.state = Some(state);
        if first || hosted.quiet {
            hosted.announced = (mode, options);
            return;
        }
        let mode_changed = hosted.announced.0 != mode;
        let options_changed = hosted.announced.1 != options;
        hosted.announced = (mode.clone(), options.clone());
        if mode_changed {
            self.update(
                slot,
                json!({"sessionUpdate": "current_mode_update", "currentModeId": mode}),
            );
        }
        if options_changed {
            self.update(
                slot,
                json!({"sessionUpdate": "config_option_update", "configOptions": options}),
            );
        }
    }
}
