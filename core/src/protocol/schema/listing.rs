//! `docs/protocol-kinds.txt`: one line per kind and per field of its content, walked from the
//! schema so that no nested field is left out.

use serde_json::{Map, Value};

use super::schema;
use crate::protocol::kinds::{ACTION_KINDS, EVENT_KINDS};

/// One line per kind (`action close`, `event ready`) and per field of its content at any depth,
/// nested fields dotted (`event state_changed model.cost.input`, through arrays as through
/// objects: `event review_session_saved session.findings.thread.body`); every catalogue kind is
/// listed, typed or not.
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
                let fields = fields(content, &defs);
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

/// Every field path of `schema`, sorted, each once.
fn fields(schema: &Value, defs: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    collect(schema, defs, "", &mut Vec::new(), &mut out);
    out.sort();
    out.dedup();
    out
}

/// Adds the fields of `schema` under `prefix` to `out`: its properties and theirs, through
/// `$ref`s, union branches, array items and map values (a map's keys are data, written `*`).
/// `open` holds the definitions being walked, so a recursive type is walked once.
fn collect<'a>(
    schema: &'a Value,
    defs: &'a Map<String, Value>,
    prefix: &str,
    open: &mut Vec<&'a str>,
    out: &mut Vec<String>,
) {
    if let Some(name) = schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
        && let Some(def) = defs.get(name)
        && !open.contains(&name)
    {
        open.push(name);
        collect(def, defs, prefix, open, out);
        open.pop();
    }
    if let Some(props) = schema["properties"].as_object() {
        for (name, sub) in props {
            let path = format!("{prefix}{name}");
            out.push(path.clone());
            collect(sub, defs, &format!("{path}."), open, out);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for sub in schema[key].as_array().into_iter().flatten() {
            collect(sub, defs, prefix, open, out);
        }
    }
    if schema.get("items").is_some() {
        collect(&schema["items"], defs, prefix, open, out);
    }
    if schema["additionalProperties"].is_object() {
        collect(
            &schema["additionalProperties"],
            defs,
            &format!("{prefix}*."),
            open,
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn listing_names_typed_fields_and_untyped_kinds() {
        let lines = kinds_listing();
        for expected in [
            "action steer_turn text",
            "action answer_question reply.answered",
            "action load_guided_review",
            "action load_guided_review target.number",
            "event ready protocol_version",
            "event state_changed model.cost.input",
            "event review_session_saved session.findings.thread.body",
            "event review_session_saved session.findings.anchor.start_line",
            "event guided_review_loaded review.hunks.lines.kind",
            "event restack_failed",
        ] {
            assert!(lines.iter().any(|l| l == expected), "missing {expected}");
        }
    }

    #[test]
    fn walks_every_way_a_field_nests_and_stops_at_a_cycle() {
        let defs = json!({
            "Node": {"type": "object", "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "tags": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Tag"}},
                "either": {"oneOf": [{"$ref": "#/$defs/Tag"}, {"type": "null"}]},
            }},
            "Tag": {"type": "object", "properties": {"label": {"type": "string"}}},
        });
        let defs = defs.as_object().unwrap();
        assert_eq!(
            fields(&json!({"$ref": "#/$defs/Node"}), defs),
            [
                "children",
                "either",
                "either.label",
                "name",
                "tags",
                "tags.*.label",
            ]
        );
    }
}
