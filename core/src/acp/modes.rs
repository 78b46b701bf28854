//! ACP session modes and config options over Luxe's settings: the permission mode, plan mode,
//! the model and the reasoning effort.

use serde_json::{Value, json};

use crate::model::catalogue::{ModelRef, ProviderAccess};
use crate::protocol::events::StateChanged;
use crate::protocol::values::{Mode, PermissionMode, Thinking};

use super::jsonrpc::RpcError;

/// The modes a session offers: `(id, name, description)`.
const MODES: &[(&str, &str, &str)] = &[
    ("default", "Default", "Asks before edits and commands"),
    (
        "accept-edits",
        "Accept edits",
        "Edits inside the project run; commands ask",
    ),
    ("plan", "Plan", "Only reads and plans; changes nothing"),
    (
        "bypass",
        "Bypass",
        "Nothing asks; deny rules and the .env deny still hold",
    ),
];

/// What a read-only session offers instead: nothing can loosen the start-up rules.
const READ_ONLY_MODES: &[(&str, &str, &str)] = &[
    (
        "read-only",
        "Read-only",
        "Only reads; no edits, no commands that change anything",
    ),
    ("plan", "Plan", "Only reads and plans; changes nothing"),
];

/// The thinking option's values.
const THINKING: &[(Thinking, &str, &str)] = &[
    (Thinking::Off, "off", "Off"),
    (Thinking::Low, "low", "Low"),
    (Thinking::Medium, "medium", "Medium"),
    (Thinking::High, "high", "High"),
];

/// The ACP mode id of a session's settings.
pub(crate) fn mode_id(state: &StateChanged) -> &'static str {
    if state.mode == Mode::Plan {
        "plan"
    } else {
        state.permission_mode.as_str()
    }
}

/// `modes` (a `SessionModeState`).
pub(crate) fn modes(state: &StateChanged) -> Value {
    let offered = if state.permission_mode == PermissionMode::ReadOnly {
        READ_ONLY_MODES
    } else {
        MODES
    };
    let available: Vec<Value> = offered
        .iter()
        .map(|(id, name, description)| json!({"id": id, "name": name, "description": description}))
        .collect();
    json!({"currentModeId": mode_id(state), "availableModes": available})
}

/// What `set_mode` to `id` changes: the permission mode (none for `plan`) and plan mode; an
/// id the session does not offer is refused, so a read-only session stays read-only.
pub(crate) fn parse_mode(
    id: &str,
    state: &StateChanged,
) -> Result<(Option<PermissionMode>, Mode), RpcError> {
    let read_only = state.permission_mode == PermissionMode::ReadOnly;
    let offered = if read_only { READ_ONLY_MODES } else { MODES };
    if !offered.iter().any(|(offered, _, _)| *offered == id) {
        let names: Vec<_> = offered.iter().map(|(id, _, _)| *id).collect();
        return Err(RpcError::invalid_params(format!(
            "session/set_mode: `modeId` {id:?} is not offered by this session (it offers {})",
            names.join(", ")
        )));
    }
    Ok(match id {
        "plan" => (None, Mode::Plan),
        other => (PermissionMode::parse(other), Mode::Build),
    })
}

/// `configOptions`: the model (when there is one to choose) and the reasoning effort.
pub(crate) fn config_options(state: &StateChanged, access: ProviderAccess) -> Value {
    let mut options = Vec::new();
    if let Some(current) = &state.model {
        let mut models: Vec<(String, String)> = ModelRef::catalogue()
            .map(|m| m.info(access))
            .filter(|m| m.available)
            .map(|m| (m.id, m.name))
            .collect();
        if !models.iter().any(|(id, _)| *id == current.id) {
            models.push((current.id.clone(), current.name.clone()));
        }
        let values: Vec<Value> = models
            .into_iter()
            .map(|(id, name)| json!({"value": id, "name": name}))
            .collect();
        options.push(json!({
            "id": "model", "name": "Model", "category": "model", "type": "select",
            "currentValue": current.id, "options": values,
        }));
    }
    let current = THINKING
        .iter()
        .find(|(t, _, _)| *t == state.thinking)
        .map_or("off", |(_, id, _)| *id);
    let values: Vec<Value> = THINKING
        .iter()
        .map(|(_, id, name)| json!({"value": id, "name": name}))
        .collect();
    options.push(json!({
        "id": "thinking", "name": "Thinking", "category": "thought_level", "type": "select",
        "currentValue": current, "options": values,
    }));
    Value::Array(options)
}

/// A `set_config_option` checked against what `config_options` offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfigChange {
    /// `set_model` to this `provider/model`.
    Model(String),
    /// `set_thinking`.
    Thinking(Thinking),
}

/// Reads `configId` = `value` against the options offered now.
pub(crate) fn parse_config(
    config_id: &str,
    value: &Value,
    offered: &Value,
) -> Result<ConfigChange, RpcError> {
    let bad = |what: String| RpcError::invalid_params(format!("session/set_config_option: {what}"));
    let option = offered
        .as_array()
        .and_then(|options| options.iter().find(|o| o["id"] == config_id))
        .ok_or_else(|| {
            bad(format!(
                "`configId` {config_id:?} is not an option of this session"
            ))
        })?;
    let value = value
        .as_str()
        .ok_or_else(|| bad("`value` must be a string".into()))?;
    let known = option["options"]
        .as_array()
        .is_some_and(|values| values.iter().any(|v| v["value"] == value));
    if !known {
        return Err(bad(format!(
            "`value` {value:?} is not a value of {config_id:?}"
        )));
    }
    Ok(match config_id {
        "model" => ConfigChange::Model(value.to_owned()),
        _ => ConfigChange::Thinking(
            THINKING
                .iter()
                .find(|(_, id, _)| *id == value)
                .map_or(Thinking::Off, |(t, _, _)| *t),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(permission_mode: PermissionMode, mode: Mode) -> StateChanged {
        StateChanged {
            model: Some(
                ModelRef::parse("openai/local")
                    .unwrap()
                    .info(ProviderAccess::default()),
            ),
            streaming: false,
            mode,
            thinking: Thinking::Low,
            permission_mode,
            auto_approve: false,
            trust_project: false,
        }
    }

    #[test]
    fn modes_follow_the_settings() {
        let s = state(PermissionMode::AcceptEdits, Mode::Build);
        assert_eq!(modes(&s)["currentModeId"], "accept-edits");
        assert_eq!(modes(&s)["availableModes"].as_array().unwrap().len(), 4);
        assert_eq!(mode_id(&state(PermissionMode::Default, Mode::Plan)), "plan");
        assert_eq!(
            parse_mode("bypass", &s).unwrap(),
            (Some(PermissionMode::Bypass), Mode::Build)
        );
        assert_eq!(parse_mode("plan", &s).unwrap(), (None, Mode::Plan));
        assert!(parse_mode("read-only", &s).is_err());
    }

    #[test]
    fn a_read_only_session_cannot_be_loosened() {
        let s = state(PermissionMode::ReadOnly, Mode::Build);
        assert_eq!(modes(&s)["currentModeId"], "read-only");
        for id in ["default", "accept-edits", "bypass", "yolo"] {
            let err = parse_mode(id, &s).unwrap_err();
            assert!(err.message.contains("read-only, plan"), "{}", err.message);
        }
        assert!(parse_mode("plan", &s).is_ok());
    }

    #[test]
    fn config_options_offer_the_current_model_and_thinking() {
        let s = state(PermissionMode::Default, Mode::Build);
        let options = config_options(&s, ProviderAccess::default());
        assert_eq!(options[0]["currentValue"], "openai/local");
        assert_eq!(options[1]["currentValue"], "low");
        assert_eq!(
            parse_config("thinking", &json!("high"), &options).unwrap(),
            ConfigChange::Thinking(Thinking::High)
        );
        assert_eq!(
            parse_config("model", &json!("openai/local"), &options).unwrap(),
            ConfigChange::Model("openai/local".into())
        );
        assert!(parse_config("model", &json!("anthropic/x"), &options).is_err());
        assert!(parse_config("speed", &json!("x"), &options).is_err());
        assert!(parse_config("thinking", &json!(3), &options).is_err());
    }
}
