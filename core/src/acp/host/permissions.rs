//! Permission prompts through the client: a session's `permission_requested` becomes
//! `session/request_permission` (allow once, always allow the rule, reject), the client's
//! choice goes back to the session as `respond_permission` (a cancelled prompt interrupts the
//! turn too), and a prompt settled otherwise is forgotten.

use std::time::Instant;

use serde_json::{Value, json};

use crate::protocol::actions::{Action, RespondPermission};
use crate::protocol::values::PermissionReply;

use super::super::effects_table::Slot;
use super::super::jsonrpc::{self, RpcError};
use super::{Asked, Host, action};

impl Host {
    /// Asks the client whether a call of the session in `slot` may run (`perm_id`, the tool
    /// call as the client knows it, the rule an `allow_always` adds).
    pub(super) fn ask_permission(
        &mut self,
        slot: Slot,
        perm_id: String,
        tool_call: Value,
        always_rule: &str,
    ) {
        let Some(hosted) = self.sessions.get(&slot) else {
            return;
        };
        self.next_request += 1;
        let id = self.next_request;
        self.asked.insert(id, Asked::Permission { slot, perm_id });
        let params = json!({
            "sessionId": &*hosted.id, "toolCall": tool_call,
            "options": [
                {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "allow_always", "name": format!("Always allow {always_rule}"),
                 "kind": "allow_always"},
                {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
            ],
        });
        let redactor = hosted.redactor.clone();
        self.write(
            jsonrpc::request(id, "session/request_permission", params),
            &redactor,
        );
    }

    /// The client answered prompt `perm_id` of the session in `slot`: anything but an allow
    /// option rejects.
    pub(super) fn permission_answered(
        &mut self,
        now: Instant,
        slot: Slot,
        perm_id: String,
        result: Result<Value, RpcError>,
    ) {
        let outcome = result.ok();
        let outcome = outcome.as_ref().and_then(|r| r.get("outcome"));
        let chosen = outcome
            .filter(|o| o.get("outcome").and_then(Value::as_str) == Some("selected"))
            .and_then(|o| o.get("optionId"))
            .and_then(Value::as_str);
        let cancelled = outcome
            .and_then(|o| o.get("outcome"))
            .and_then(Value::as_str)
            == Some("cancelled");
        let reply = match chosen {
            Some("allow_once") => PermissionReply::Once,
            Some("allow_always") => PermissionReply::Always,
            _ => PermissionReply::Reject,
        };
        let Some(hosted) = self.sessions.get_mut(&slot) else {
            return;
        };
        let respond = Action::RespondPermission(RespondPermission {
            id: perm_id,
            reply,
            message: None,
        });
        hosted.session.handle_incoming(now, action(None, respond));
        if cancelled {
            hosted.cancel_queue = true;
            hosted
                .session
                .handle_incoming(now, action(None, Action::InterruptTurn));
        }
        self.pump(now, slot);
    }

    /// Prompt `settled` of the session in `slot` was settled otherwise: a late answer to it is
    /// dropped.
    pub(super) fn permission_settled(&mut self, slot: Slot, settled: &str) {
        self.asked.retain(|_, a| {
            !matches!(a, Asked::Permission { slot: s, perm_id } if *s == slot && perm_id == settled)
        });
    }
}
