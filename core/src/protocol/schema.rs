//! The JSON Schema of every typed frame, generated from the Rust types, and the flat listing of
//! kinds and fields that `docs/protocol-kinds.txt` keeps (a list that may only grow).

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::actions::Action;
use super::events::Event;
use super::kinds::{ACTION_KINDS, EVENT_KINDS};

/// The schema of protocol v2's typed frames: `$defs.Action` (client → luxe) and `$defs.Event`
/// (luxe → client).
pub fn schema() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let action = generator.subschema_for::<Action>();
    let event = generator.subschema_for::<Event>();
    let defs = generator.take_definitions(true);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Luxe RPC protocol v2",
        "description": "One frame per line. Generated from luxe-core's types; kinds the protocol defines but this build does not type yet are listed in protocol-kinds.txt.",
        "oneOf": [action, event],
        "$defs": defs,
    })
}

/// One line per kind (`action close`, `event ready`) and per field of its content, nested fields
/// dotted (`event state_changed model.cost.input`); every catalogue kind is listed, typed or not.
pub fn kinds_listing() -> Vec<String> {
    let schema = schema();
    let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
    let mut lines = Vec::new();
    for (side, def, catalogue) in [
        ("action", "Action", ACTION_KINDS),
        ("event", "Event", EVENT_KINDS),
    ] {
        let variants = variant_contents(&defs, def);
        for kind in catalogue {
            lines.push(format!("{side} {kind}"));
            if let Some(content) = variants.get(*kind) {
                let mut fields = Vec::new();
                collect_fields(content, &defs, "", 0, &mut fields);
                fields.sort();
                fields.dedup();
                lines.extend(fields.into_iter().map(|f| format!("{side} {kind} {f}")));
            }
        }
    }
    lines
}

/// Each variant's `content` schema by kind (variants without payload have none).
fn variant_contents(defs: &Map<String, Value>, def: &str) -> Map<String, Value> {
    let mut out = Map::new();
    let variants = defs
        .get(def)
        .and_then(|d| d.get("oneOf"))
        .and_then(Value::as_array);
    for variant in variants.into_iter().flatten() {
        let props = &variant["properties"];
        if let Some(kind) = props["kind"]["const"].as_str() {
            out.insert(kind.to_owned(), props["content"].clone());
        }
    }
    out
}

fn collect_fields(
    schema: &Value,
    defs: &Map<String, Value>,
    prefix: &str,
    depth: usize,
    out: &mut Vec<String>,
) {
    // Deep enough for every frame; a bound keeps recursive types from looping.
    if depth > 8 {
        return;
    }
    if let Some(target) = schema["$ref"].as_str()
        && let Some(def) = target.strip_prefix("#/$defs/").and_then(|n| defs.get(n))
    {
        collect_fields(def, defs, prefix, depth + 1, out);
    }
    if let Some(props) = schema["properties"].as_object() {
        for (name, sub) in props {
            let path = format!("{prefix}{name}");
            out.push(path.clone());
            collect_fields(sub, defs, &format!("{path}."), depth + 1, out);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for sub in schema[key].as_array().into_iter().flatten() {
            collect_fields(sub, defs, prefix, depth + 1, out);
        }
    }
    if schema.get("items").is_some() {
        collect_fields(&schema["items"], defs, prefix, depth + 1, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_names_typed_fields_and_untyped_kinds() {
        let lines = kinds_listing();
        for expected in [
            "action steer_turn text",
            "action answer_question reply.answered",
            "action load_guided_review",
            "event ready protocol_version",
            "event state_changed model.cost.input",
            "event restack_failed",
        ] {
            assert!(lines.iter().any(|l| l == expected), "missing {expected}");
        }
    }
}
