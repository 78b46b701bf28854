//! The fuzz target's body: a fixed opening, then any lines, every answer checked.

use std::time::Instant;

use serde_json::{Value, json};

use super::{Checked, DIRS};

/// Fuzz body: a fixed opening (initialize, a session), then `data` split on LF, each line a
/// client line, every answer checked; then everything is settled and every request must have
/// had its answer.
pub fn fuzz(now: Instant, data: &[u8]) {
    let mut checked = Checked::new(now);
    checked.request("initialize", json!({"protocolVersion": 1}));
    checked.request("session/new", json!({"cwd": DIRS[0], "mcpServers": []}));
    checked.effect(true);
    let session = checked.created.first().cloned().unwrap_or_default();
    for line in data.split(|b| *b == b'\n') {
        // A line that parses as a request is sent as one under our ids (its method and params
        // kept, the session id filled in), so that its answer can be checked.
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(map)) if map.get("method").is_some_and(Value::is_string) => {
                let method = map["method"].as_str().unwrap_or_default().to_owned();
                let mut params = map.get("params").cloned().unwrap_or(json!({}));
                if !params.is_object() {
                    params = json!({});
                }
                if params.get("sessionId").is_some() {
                    params["sessionId"] = json!(session);
                }
                if map.contains_key("id") {
                    checked.request(&method, params);
                } else {
                    checked.notify(&method, params);
                }
                checked.effect(line.len() % 3 != 0);
            }
            Ok(Value::Object(map)) if map.contains_key("id") => {}
            _ => checked.garbage(line),
        }
        if checked.is_closed() {
            return;
        }
    }
    checked.finish();
}
