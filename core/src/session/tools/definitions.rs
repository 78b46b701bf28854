//! The tools the model is offered: names, descriptions and argument schemas (design §5; the names
//! and argument names are part of the protocol, since front ends show `tool_started.input`).

use serde_json::json;

use super::review_args::{SIDES, STATUSES, about, names};
use crate::model::conversation::ToolSpec;
use crate::protocol::findings::Severity;
use crate::protocol::values::Mode;

/// The tools offered in `mode` (`plan` gets only those that cannot change anything), with the
/// review tools named in `extra` (a review turn's).
pub fn tools_for(mode: Mode, extra: &[&str]) -> Vec<ToolSpec> {
    let mut tools: Vec<ToolSpec> = match mode {
        Mode::Build => all_tools(),
        Mode::Plan => all_tools()
            .into_iter()
            .filter(|t| PLAN_TOOLS.contains(&t.name.as_ref()))
            .collect(),
    };
    tools.extend(
        review_tools()
            .into_iter()
            .filter(|t| extra.contains(&t.name.as_ref())),
    );
    tools
}

/// The argument schema `tool` is offered with, whichever turn offers it.
pub fn schema_of(tool: &str) -> Option<serde_json::Value> {
    all_tools()
        .into_iter()
        .chain(review_tools())
        .find(|t| t.name == tool)
        .map(|t| t.input_schema)
}

/// The tools only review turns get; they change the review session, nothing on disk.
pub const REVIEW_TOOLS: &[&str] = &["report", "add_finding"];

fn review_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "report".into(),
            description: "Report on the review comment this turn works on: whether you fixed it, and what you changed or why you did not. Call it once, when done.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "comment_id": {"type": "string", "description": about::COMMENT_ID},
                    "status": {"type": "string", "enum": names(&STATUSES), "description": about::STATUS},
                    "summary": {"type": "string", "description": about::SUMMARY}
                },
                "required": ["comment_id", "status", "summary"]
            }),
        },
        ToolSpec {
            name: "add_finding".into(),
            description: "Add a review finding on a line (or a range of lines) of the diff you were shown, by the file's path and the line's number.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": about::PATH},
                    "line": {"type": "integer", "minimum": 1, "description": about::LINE},
                    "side": {"type": "string", "enum": names(&SIDES), "description": about::SIDE},
                    "end_line": {"type": "integer", "minimum": 1, "description": about::END_LINE},
                    "severity": {"type": "string", "enum": names(&Severity::NAMED), "description": about::SEVERITY},
                    "body": {"type": "string", "description": about::BODY}
                },
                "required": ["path", "line", "severity", "body"]
            }),
        },
    ]
}

/// The tools `plan` mode offers.
pub const PLAN_TOOLS: &[&str] = &["read", "grep", "glob", "ask_user", "update_plan"];

fn all_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "read".into(),
            description: "Read a text file. Lines come numbered. Use offset (first line, from 1) and limit (number of lines) for large files.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path relative to the working directory, or absolute."},
                    "offset": {"type": "integer", "minimum": 1},
                    "limit": {"type": "integer", "minimum": 1}
                },
                "required": ["path"]
            }),
        },
        ToolSpec {
            name: "write".into(),
            description: "Create or overwrite a file with the given content.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"}
                },
                "required": ["path", "content"]
            }),
        },
        ToolSpec {
            name: "edit".into(),
            description: "Replace exact text in a file. old_text must match exactly once unless replace_all is true.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old_text": {"type": "string"},
                    "new_text": {"type": "string"},
                    "replace_all": {"type": "boolean"}
                },
                "required": ["path", "old_text", "new_text"]
            }),
        },
        ToolSpec {
            name: "bash".into(),
            description: "Run a shell command with bash in the working directory. Output is capped.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "timeout_ms": {"type": "integer", "minimum": 1}
                },
                "required": ["command"]
            }),
        },
        ToolSpec {
            name: "grep".into(),
            description: "Search file contents with a regular expression; honours .gitignore.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string"},
                    "glob": {"type": "string", "description": "Only files matching this glob, e.g. **/*.rs"},
                    "case_insensitive": {"type": "boolean"}
                },
                "required": ["pattern"]
            }),
        },
        ToolSpec {
            name: "glob".into(),
            description: "List files whose path matches a glob such as **/*.rs; honours .gitignore.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string"}
                },
                "required": ["pattern"]
            }),
        },
        ToolSpec {
            name: "ask_user".into(),
            description: "Ask the user a question with options to choose from.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "question": {"type": "string"},
                    "options": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "label": {"type": "string"},
                                "description": {"type": "string"}
                            },
                            "required": ["label"]
                        }
                    },
                    "multiple": {"type": "boolean"}
                },
                "required": ["question", "options"]
            }),
        },
        ToolSpec {
            name: "update_plan".into(),
            description: "Record the plan for this task as a list of steps with their status.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "entries": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {"type": "string"},
                                "status": {"type": "string", "enum": ["pending", "in_progress", "done"]}
                            },
                            "required": ["content", "status"]
                        }
                    }
                },
                "required": ["entries"]
            }),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_offers_only_read_only_tools() {
        let plan = tools_for(Mode::Plan, &[]);
        let names: Vec<_> = plan.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, PLAN_TOOLS);
        assert_eq!(tools_for(Mode::Build, &[]).len(), 8);
    }

    #[test]
    fn review_tools_take_the_design_s_arguments() {
        let tools = tools_for(Mode::Build, REVIEW_TOOLS);
        let schema = |name: &str| {
            let tool = tools.iter().find(|t| t.name == name).unwrap();
            let mut properties: Vec<String> = tool.input_schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            properties.sort();
            (properties, tool.input_schema["required"].clone())
        };
        assert_eq!(
            schema("add_finding"),
            (
                ["body", "end_line", "line", "path", "severity", "side"]
                    .map(String::from)
                    .to_vec(),
                json!(["path", "line", "severity", "body"])
            )
        );
        assert_eq!(
            schema("report"),
            (
                ["comment_id", "status", "summary"]
                    .map(String::from)
                    .to_vec(),
                json!(["comment_id", "status", "summary"])
            )
        );
        let report = tools.iter().find(|t| t.name == "report").unwrap();
        assert_eq!(
            report.input_schema["properties"]["status"]["enum"],
            json!(["fixed", "not_fixed"])
        );
    }
}
