//! `tools/list`, page by page, until the listing is complete and the server ready; a tool
//! without a name or a valid schema is left out with a note.

use std::time::Instant;

use serde_json::{Value, json};

use super::{Purpose, Server, Status, Tool};
use crate::mcp::{Io, McpEvent, McpSettings};

/// The most `tools/list` pages one listing may take: a server that pages for ever is broken.
const MAX_PAGES: usize = 100;

impl Server {
    /// Asks for a page of tools.
    pub(super) fn list(
        &mut self,
        now: Instant,
        cursor: Option<String>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let (_, cursors) = self.listing.get_or_insert_with(Default::default);
        cursors.extend(cursor);
        self.request(now, Purpose::ListTools, "tools/list", params, settings, io);
    }

    /// A page of `tools/list`: the next is asked for, or the listing is complete.
    pub(super) fn page(
        &mut self,
        now: Instant,
        result: &Value,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        let (mut tools, cursors) = self.listing.take().unwrap_or_default();
        let Some(listed) = result.get("tools").and_then(Value::as_array) else {
            let why = "its tools/list answer has no tools array".to_owned();
            return self.fail(now, why, settings, io);
        };
        let mut notes = if cursors.is_empty() {
            Vec::new()
        } else {
            std::mem::take(&mut self.notes)
        };
        for tool in listed {
            match parse_tool(tool) {
                Ok(tool) => tools.push(tool),
                Err(note) => notes.push(note),
            }
        }
        self.notes = notes;
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) if cursors.iter().any(|c| c == next) || cursors.len() >= MAX_PAGES => {
                let why = "its tools/list pages never end".to_owned();
                self.fail(now, why, settings, io)
            }
            Some(next) => {
                self.listing = Some((tools, cursors));
                self.list(now, Some(next.to_owned()), settings, io);
                Vec::new()
            }
            None => self.listed(now, tools, settings, io),
        }
    }

    /// A listing is complete: the server is ready, queued calls go out.
    pub(super) fn listed(
        &mut self,
        now: Instant,
        tools: Vec<Tool>,
        settings: &McpSettings,
        io: &mut Io<'_>,
    ) -> Vec<McpEvent> {
        self.tools = tools;
        self.status = Status::Ready;
        self.failures = 0;
        self.retry_at = None;
        let mut events = vec![McpEvent::ServersChanged];
        for (call, tool, args) in std::mem::take(&mut self.queued) {
            events.extend(self.call(now, call, &tool, args, settings, io));
        }
        if std::mem::take(&mut self.relist) {
            self.list(now, None, settings, io);
        }
        events
    }
}

/// A listed tool, or why it is left out (the model cannot be offered a tool without a valid
/// schema: the provider would refuse the whole request).
fn parse_tool(tool: &Value) -> Result<Tool, String> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty());
    let Some(name) = name else {
        return Err("left out a tool without a name".to_owned());
    };
    let schema = tool
        .get("inputSchema")
        .filter(|s| s.is_object() && s.get("type").and_then(Value::as_str) == Some("object"));
    let Some(schema) = schema else {
        return Err(format!(
            "left out the tool {name:?}: its inputSchema is not a JSON Schema object of type \"object\""
        ));
    };
    Ok(Tool {
        name: name.to_owned(),
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        input_schema: schema.clone(),
        read_only: tool
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool)
            == Some(true),
    })
}
