//! The JSON Schema of every typed frame, generated from the Rust types in a form tools take as it
//! is (validators in strict mode, type generators), and the flat listing of kinds and fields that
//! `docs/protocol-kinds.txt` keeps (a list that may only grow).

mod branches;
mod listing;

use schemars::generate::SchemaSettings;
use schemars::json_schema;
use schemars::transform::{RemoveRefSiblings, RestrictFormats, Transform};
use serde_json::Value;

use super::actions::Action;
use super::events::Event;

pub use listing::kinds_listing;

/// The schema of protocol v2's typed frames: `$defs.Action` (client → luxe) and `$defs.Event`
/// (luxe → client), every shape they carry named in `$defs`, in standard draft 2020-12 keywords
/// and formats only.
pub fn schema() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let action = generator.subschema_for::<Action>();
    let event = generator.subschema_for::<Event>();
    let mut defs = generator.take_definitions(true);
    branches::share_properties(&mut defs);
    branches::name_branches(&mut defs, &["Action", "Event"]);
    let mut document = json_schema!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Luxe RPC protocol v2",
        "description": "One frame per line. Generated from luxe-core's types; kinds the protocol defines but this build does not type yet are listed in protocol-kinds.txt.",
        "oneOf": [action, event],
        "$defs": defs,
    });
    // `uint32`, `uint64` and `double` are schemars' own formats, not the draft's, and a strict
    // validator refuses a schema with a format it does not know (ajv: `unknown format "uint64"`).
    // `minimum: 0` stays, and says unsigned in the draft's words.
    RestrictFormats::default().transform(&mut document);
    // A description beside a `$ref` makes the reference a new shape to type generators
    // (json-schema-to-typescript inlines `Severity` and writes a twin `Review1`); under `allOf`
    // the field keeps both its description and the shape's name.
    RemoveRefSiblings::default().transform(&mut document);
    document.to_value()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every schema object in `value`, with its path, `$defs` roots included.
    fn schemas<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
        match value {
            Value::Object(map) => {
                out.push((path.clone(), value));
                for (key, sub) in map {
                    schemas(sub, format!("{path}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, sub) in items.iter().enumerate() {
                    schemas(sub, format!("{path}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn only_standard_formats() {
        let schema = schema();
        let mut all = Vec::new();
        schemas(&schema, String::new(), &mut all);
        let odd: Vec<_> = all
            .iter()
            .filter(|(_, s)| s.get("format").is_some_and(|f| f.is_string()))
            .map(|(path, s)| format!("{path}: {}", s["format"]))
            .collect();
        assert!(odd.is_empty(), "formats outside draft 2020-12: {odd:#?}");
    }

    #[test]
    fn no_description_beside_a_ref() {
        let schema = schema();
        let mut all = Vec::new();
        schemas(&schema, String::new(), &mut all);
        let beside: Vec<&String> = all
            .iter()
            .filter(|(_, s)| s.get("$ref").is_some() && s.as_object().is_some_and(|o| o.len() > 1))
            .map(|(path, _)| path)
            .collect();
        assert!(beside.is_empty(), "a $ref with siblings: {beside:#?}");
    }

    #[test]
    fn every_object_shape_is_a_definition() {
        let schema = schema();
        let mut inline = Vec::new();
        for (name, def) in schema["$defs"].as_object().unwrap() {
            // The frame unions' branches are `{kind, content}` envelopes around named contents.
            if name == "Action" || name == "Event" {
                continue;
            }
            let mut all = Vec::new();
            schemas(def, format!("$defs/{name}"), &mut all);
            // The first is the definition itself; a `properties` map is not a schema.
            let nested = all.iter().skip(1).filter(|(path, s)| {
                !path.ends_with("/properties") && s.get("properties").is_some_and(Value::is_object)
            });
            inline.extend(nested.map(|(path, _)| path.clone()));
        }
        assert!(
            inline.is_empty(),
            "shapes without a name (give the variant a tag or a single field): {inline:#?}"
        );
    }

    #[test]
    fn anchors_are_named_by_kind() {
        let schema = schema();
        let anchor = &schema["$defs"]["Anchor"]["oneOf"];
        let refs: Vec<&str> = anchor
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["$ref"].as_str())
            .collect();
        assert_eq!(
            refs,
            [
                "#/$defs/AnchorLine",
                "#/$defs/AnchorRange",
                "#/$defs/AnchorHunk",
                "#/$defs/AnchorFile"
            ]
        );
        assert_eq!(
            schema["$defs"]["AnchorLine"]["properties"]["kind"]["const"],
            "line"
        );
    }
}
