//! What a model is told when a tool's arguments do not parse: a sentence naming the argument
//! and what it must be, read off the tool's own schema (the one the model was offered), never
//! the parser's message, so a model can correct the call it made.

use serde_json::Value;

use super::definitions::schema_of;
use crate::protocol::codec::json_type;

/// Why `input` is not a valid call of `tool`, in a sentence for the model.
pub fn explain(tool: &str, input: &Value) -> String {
    let Some(schema) = schema_of(tool) else {
        return format!("there is no tool named {tool:?}");
    };
    let found = check(&schema, input, "").unwrap_or_else(|| {
        "they do not fit its schema (an argument has a value it cannot take)".to_owned()
    });
    format!("invalid arguments for {tool}: {found}. Call {tool} again with them corrected.")
}

/// The first way `value` breaks `schema`, with `at` naming where it is.
fn check(schema: &Value, value: &Value, at: &str) -> Option<String> {
    let want = schema["type"].as_str().unwrap_or_default();
    if !fits(want, value) {
        let what = if at.is_empty() {
            "the arguments".to_owned()
        } else {
            format!("`{at}`")
        };
        return Some(format!(
            "{what} must be {}, not {}",
            describe(schema),
            json_type(value)
        ));
    }
    if let Some(allowed) = schema["enum"].as_array()
        && !allowed.contains(value)
    {
        return Some(format!("`{at}` must be {}", describe(schema)));
    }
    if let Some(minimum) = schema["minimum"].as_i64()
        && value.as_i64().is_some_and(|n| n < minimum)
    {
        return Some(format!("`{at}` must be {minimum} or more"));
    }
    match value {
        Value::Object(fields) => {
            let required = schema["required"].as_array().into_iter().flatten();
            for name in required.filter_map(Value::as_str) {
                if !fields.contains_key(name) || fields[name].is_null() {
                    let property = &schema["properties"][name];
                    let about = property["description"]
                        .as_str()
                        .map_or_else(|| describe(property), str::to_owned);
                    return Some(format!("`{}` is missing ({about})", join(at, name)));
                }
            }
            let properties = schema["properties"].as_object()?;
            fields.iter().find_map(|(name, field)| {
                let property = properties.get(name)?;
                if field.is_null() {
                    return None;
                }
                check(property, field, &join(at, name))
            })
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| check(&schema["items"], item, &format!("{at}[{i}]"))),
        _ => None,
    }
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_owned()
    } else {
        format!("{at}.{name}")
    }
}

fn fits(want: &str, value: &Value) -> bool {
    match want {
        "string" => value.is_string(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn describe(schema: &Value) -> String {
    if let Some(allowed) = schema["enum"].as_array() {
        let names: Vec<String> = allowed.iter().map(Value::to_string).collect();
        return format!("one of {}", names.join(", "));
    }
    match schema["type"].as_str().unwrap_or_default() {
        "string" => "a string".into(),
        "integer" => match schema["minimum"].as_i64() {
            Some(minimum) => format!("a whole number, {minimum} or more"),
            None => "a whole number".into(),
        },
        "number" => "a number".into(),
        "boolean" => "true or false".into(),
        "array" => "an array".into(),
        "object" => "an object of named arguments".into(),
        _ => "a value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_way_to_get_an_argument_wrong_is_named() {
        for (tool, input, says) in [
            (
                "edit",
                json!({"path": "a"}),
                "`old_text` is missing (a string)",
            ),
            (
                "read",
                json!([]),
                "the arguments must be an object of named arguments, not an array",
            ),
            (
                "read",
                json!({"path": 7}),
                "`path` must be a string, not a number",
            ),
            (
                "read",
                json!({"path": "a", "limit": 0}),
                "`limit` must be 1 or more",
            ),
            (
                "read",
                json!({"path": "a", "limit": "x"}),
                "`limit` must be a whole number, 1 or more, not a string",
            ),
            ("bash", json!({"command": null}), "`command` is missing"),
            (
                "ask_user",
                json!({"question": "q", "options": [{"label": "a"}, {}]}),
                "`options[1].label` is missing",
            ),
            (
                "update_plan",
                json!({"entries": [{"content": "c", "status": "later"}]}),
                "`entries[0].status` must be one of \"pending\", \"in_progress\", \"done\"",
            ),
            (
                "grep",
                json!({"pattern": "x", "glob": 3}),
                "`glob` must be a string, not a number (Only files matching",
            ),
        ] {
            let text = explain(tool, &input);
            assert!(
                text.starts_with(&format!("invalid arguments for {tool}: ")),
                "{text}"
            );
            let says = says.split(" (Only").next().unwrap_or(says);
            assert!(text.contains(says), "{tool} {input}: {text}");
            assert!(!text.contains("invalid type"), "a parser's words: {text}");
        }
    }

    #[test]
    fn a_described_argument_is_described_again() {
        let text = explain("grep", &json!({"glob": "*.rs"}));
        assert!(text.contains("`pattern` is missing (a string)"), "{text}");
        let text = explain("add_finding", &json!({"path": "a"}));
        assert!(
            text.contains("`line` is missing (the line number"),
            "{text}"
        );
    }
}
