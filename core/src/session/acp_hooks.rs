//! What `luxe --acp`'s host needs of a session beyond actions: its id and redaction gate (the
//! host writes JSON-RPC messages for it through the same gate), and the permission mode, which
//! ACP's modes change and `--rpc` only sets at start.

use crate::permissions::redact::Redactor;
use crate::protocol::values::PermissionMode;

use super::Session;

impl Session {
    /// The session's id, as `ready` and the session file carry it.
    pub fn id(&self) -> &str {
        &self.session_id
    }

    /// The redaction gate every frame of this session passes: its `.env` values and the
    /// providers' keys.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Switches the permission mode (ACP's `session/set_mode`) and sends `state_changed`. A
    /// read-only session cannot be switched out of read-only, nor a session into it: start-up
    /// decided that.
    pub fn set_permission_mode(&mut self, mode: PermissionMode) -> Result<(), String> {
        self.gate.switch_mode(mode)?;
        self.emit_state();
        Ok(())
    }
}
