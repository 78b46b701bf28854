//! Names for the object branches of unions. schemars writes an enum's struct variants inline in
//! its `oneOf`, so a client generated from the schema would have no type for, say, an anchor of
//! kind `line`; each such branch moves to `$defs` as `<Union><Tag>` (`AnchorLine`,
//! `QuestionReplyAnswered`) and the union refers to it.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// Moves the object branches of each definition's root `oneOf` or `anyOf` into `defs`, named for
/// the union and the branch's tag: its string `const` property (`kind`), else its only required
/// field. `skip` names unions left as they are. A branch with no tag, or whose name is taken,
/// stays inline (the schema's tests then fail and name it).
pub(super) fn name_branches(defs: &mut Map<String, Value>, skip: &[&str]) {
    let taken: BTreeSet<String> = defs.keys().cloned().collect();
    let mut named = Map::new();
    for (union, def) in defs.iter_mut() {
        if skip.contains(&union.as_str()) {
            continue;
        }
        for key in ["oneOf", "anyOf"] {
            let Some(branches) = def.get_mut(key).and_then(Value::as_array_mut) else {
                continue;
            };
            for branch in branches {
                if !branch.get("properties").is_some_and(Value::is_object) {
                    continue;
                }
                let Some(tag) = tag(branch) else { continue };
                let name = format!("{union}{}", pascal(&tag));
                if taken.contains(&name) || named.contains_key(&name) {
                    continue;
                }
                let shape = std::mem::replace(branch, json!({ "$ref": format!("#/$defs/{name}") }));
                named.insert(name, shape);
            }
        }
    }
    defs.extend(named);
}

/// Moves the fields a union states beside its branches (a struct with a flattened tagged enum:
/// `edit_review`'s `request_id` and `review_id` beside its `edit` variants) into each branch,
/// so the union is branches only: a type generator makes a union of whole shapes of it instead
/// of a twin type for the shared part (json-schema-to-typescript's `EditReview1`).
pub(super) fn share_properties(defs: &mut Map<String, Value>) {
    for def in defs.values_mut() {
        let Some(def) = def.as_object_mut() else {
            continue;
        };
        let all_objects = def
            .get("oneOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                branches
                    .iter()
                    .all(|b| b.get("properties").is_some_and(Value::is_object))
            });
        if !all_objects || !def.contains_key("properties") {
            continue;
        }
        let shared = def.remove("properties").unwrap_or_default();
        let required = def.remove("required").unwrap_or_default();
        let Some(branches) = def.get_mut("oneOf").and_then(Value::as_array_mut) else {
            continue;
        };
        for branch in branches {
            let mut properties = shared.as_object().cloned().unwrap_or_default();
            if let Some(own) = branch["properties"].as_object() {
                properties.extend(own.clone());
            }
            branch["properties"] = Value::Object(properties);
            let mut needed: Vec<Value> = required.as_array().cloned().unwrap_or_default();
            needed.extend(branch["required"].as_array().cloned().unwrap_or_default());
            branch["required"] = Value::Array(needed);
        }
    }
}

/// What tells the branch from its siblings: the value of its string `const` property, else the
/// name of its only required field (`{"answered": […]}`).
fn tag(branch: &Value) -> Option<String> {
    let props = branch["properties"].as_object()?;
    let constant = props.values().find_map(|p| p["const"].as_str());
    if let Some(constant) = constant {
        return Some(constant.to_owned());
    }
    match branch["required"].as_array().map(Vec::as_slice) {
        Some([only]) => only.as_str().map(str::to_owned),
        _ => None,
    }
}

/// `pull_request` → `PullRequest`.
fn pascal(tag: &str) -> String {
    tag.split(['_', '-', ' '])
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_move_to_named_definitions() {
        let mut defs = json!({
            "Reply": {"oneOf": [
                {"type": "object", "properties": {"answered": {"type": "array"}}, "required": ["answered"]},
                {"type": "object", "properties": {"kind": {"const": "pull_request"}, "n": {}}, "required": ["kind", "n"]},
                {"const": "dismissed", "type": "string"},
            ]},
            "Event": {"oneOf": [{"type": "object", "properties": {"kind": {"const": "ready"}}}]},
        });
        let defs = defs.as_object_mut().unwrap();
        name_branches(defs, &["Event"]);
        assert_eq!(
            defs["Reply"]["oneOf"],
            json!([
                {"$ref": "#/$defs/ReplyAnswered"},
                {"$ref": "#/$defs/ReplyPullRequest"},
                {"const": "dismissed", "type": "string"},
            ])
        );
        assert_eq!(defs["ReplyAnswered"]["required"], json!(["answered"]));
        assert_eq!(defs["ReplyPullRequest"]["properties"]["n"], json!({}));
        assert!(defs["Event"]["oneOf"][0]["properties"].is_object());
    }

    #[test]
    fn a_branch_without_a_tag_stays_inline() {
        let mut defs = json!({
            "Pair": {"anyOf": [{"type": "object", "properties": {"a": {}, "b": {}}}]},
        });
        let defs = defs.as_object_mut().unwrap();
        name_branches(defs, &[]);
        assert_eq!(defs.len(), 1);
        assert!(defs["Pair"]["anyOf"][0]["properties"].is_object());
    }

    #[test]
    fn a_taken_name_stays_inline() {
        let mut defs = json!({
            "Anchor": {"oneOf": [{"type": "object", "properties": {"kind": {"const": "line"}}}]},
            "AnchorLine": {"type": "string"},
        });
        let defs = defs.as_object_mut().unwrap();
        name_branches(defs, &[]);
        assert_eq!(defs["AnchorLine"], json!({"type": "string"}));
        assert!(defs["Anchor"]["oneOf"][0]["properties"].is_object());
    }
}
