//! The arguments of each tool, parsed from the model's JSON.

use serde::Deserialize;
use serde_json::Value;

use crate::protocol::events::{PlanEntry, QuestionOption};

/// A tool call whose arguments parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolArgs {
    /// `read`: a text file's lines, numbered; a window of them with `offset` and `limit`.
    Read {
        /// The file, relative to the working directory or absolute.
        path: String,
        /// First line, from 1.
        offset: Option<u64>,
        /// Number of lines.
        limit: Option<u64>,
    },
    /// `write`: create or overwrite a file with `content`.
    Write {
        /// The file, relative to the working directory or absolute.
        path: String,
        /// The file's whole new content: it replaces whatever is there.
        content: String,
    },
    /// `edit`: replace exact text in a file.
    Edit {
        /// The file, relative to the working directory or absolute.
        path: String,
        /// The exact text to replace.
        old_text: String,
        /// What replaces it.
        new_text: String,
        /// Replace every occurrence instead of exactly one.
        replace_all: bool,
    },
    /// `bash`: a shell command, run with bash in the working directory.
    Bash {
        /// The command line, as the model wrote it; it is parsed for the permission decision before
        /// it runs.
        command: String,
        /// The timeout in milliseconds, when the model set one; else the configured `bash_timeout`.
        timeout_ms: Option<u64>,
    },
    /// `grep`: search file contents with a regular expression, honouring .gitignore.
    Grep {
        /// A regular expression.
        pattern: String,
        /// Where to search; cwd when absent.
        path: Option<String>,
        /// Only files matching this glob.
        glob: Option<String>,
        /// Ignore case.
        case_insensitive: bool,
    },
    /// `glob`: list the files whose path matches a glob, honouring .gitignore.
    Glob {
        /// The glob the paths must match, e.g. `**/*.rs`.
        pattern: String,
        /// Where to list; cwd when absent.
        path: Option<String>,
    },
    /// `ask_user`: a question for the user, with options to choose from.
    AskUser {
        /// The question's text, as the model wrote it.
        question: String,
        /// The choices to offer the user, in the model's order.
        options: Vec<QuestionOption>,
        /// Whether several may be chosen.
        multiple: bool,
    },
    /// `update_plan`: the task's plan as steps with their status.
    UpdatePlan {
        /// The whole plan.
        entries: Vec<PlanEntry>,
    },
    /// A tool of an MCP server; its arguments are the server's to check.
    Mcp {
        /// The model's name for it, `mcp__<server>__<tool>`.
        name: String,
        /// The MCP server's name, as configured under `mcpServers`.
        server: String,
        /// The server's name for it.
        tool: String,
        /// The arguments as the model wrote them.
        input: Value,
    },
}

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    offset: Option<u64>,
    limit: Option<u64>,
}

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

#[derive(Deserialize)]
struct EditArgs {
    path: String,
    old_text: String,
    new_text: String,
    #[serde(default)]
    replace_all: bool,
}

#[derive(Deserialize)]
struct BashArgs {
    command: String,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(default)]
    case_insensitive: bool,
}

#[derive(Deserialize)]
struct GlobArgs {
    pattern: String,
    path: Option<String>,
}

#[derive(Deserialize)]
struct AskArgs {
    question: String,
    options: Vec<QuestionOption>,
    #[serde(default)]
    multiple: bool,
}

#[derive(Deserialize)]
struct PlanArgs {
    entries: Vec<PlanEntry>,
}

impl ToolArgs {
    /// The path the call works on, if it works on one (`grep` and `glob` default to cwd).
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::Read { path, .. } | Self::Write { path, .. } | Self::Edit { path, .. } => {
                Some(path)
            }
            Self::Grep { path, .. } | Self::Glob { path, .. } => {
                Some(path.as_deref().unwrap_or("."))
            }
            Self::Bash { .. }
            | Self::AskUser { .. }
            | Self::UpdatePlan { .. }
            | Self::Mcp { .. } => None,
        }
    }

    /// Replaces the path with the one io resolved (symlinks followed), so the call works on
    /// exactly the file the permission decision was about.
    pub fn set_path(&mut self, resolved: String) {
        match self {
            Self::Read { path, .. } | Self::Write { path, .. } | Self::Edit { path, .. } => {
                *path = resolved;
            }
            Self::Grep { path, .. } | Self::Glob { path, .. } => *path = Some(resolved),
            Self::Bash { .. }
            | Self::AskUser { .. }
            | Self::UpdatePlan { .. }
            | Self::Mcp { .. } => {}
        }
    }

    /// Parses the arguments of tool `name`; the error is what the model is told.
    pub fn parse(name: &str, input: &Value) -> Result<Self, String> {
        fn de<T: serde::de::DeserializeOwned>(name: &str, input: &Value) -> Result<T, String> {
            T::deserialize(input).map_err(|_| super::arg_errors::explain(name, input))
        }
        Ok(match name {
            "read" => {
                let a: ReadArgs = de(name, input)?;
                Self::Read {
                    path: a.path,
                    offset: a.offset,
                    limit: a.limit,
                }
            }
            "write" => {
                let a: WriteArgs = de(name, input)?;
                Self::Write {
                    path: a.path,
                    content: a.content,
                }
            }
            "edit" => {
                let a: EditArgs = de(name, input)?;
                Self::Edit {
                    path: a.path,
                    old_text: a.old_text,
                    new_text: a.new_text,
                    replace_all: a.replace_all,
                }
            }
            "bash" => {
                let a: BashArgs = de(name, input)?;
                Self::Bash {
                    command: a.command,
                    timeout_ms: a.timeout_ms,
                }
            }
            "grep" => {
                let a: GrepArgs = de(name, input)?;
                Self::Grep {
                    pattern: a.pattern,
                    path: a.path,
                    glob: a.glob,
                    case_insensitive: a.case_insensitive,
                }
            }
            "glob" => {
                let a: GlobArgs = de(name, input)?;
                Self::Glob {
                    pattern: a.pattern,
                    path: a.path,
                }
            }
            "ask_user" => {
                let a: AskArgs = de(name, input)?;
                Self::AskUser {
                    question: a.question,
                    options: a.options,
                    multiple: a.multiple,
                }
            }
            "update_plan" => Self::UpdatePlan {
                entries: de::<PlanArgs>(name, input)?.entries,
            },
            other => return Err(format!("there is no tool named {other:?}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_each_tool_and_explains_bad_arguments() {
        assert_eq!(
            ToolArgs::parse("read", &json!({"path": "a.rs", "limit": 5})).unwrap(),
            ToolArgs::Read {
                path: "a.rs".into(),
                offset: None,
                limit: Some(5)
            }
        );
        let err = ToolArgs::parse("edit", &json!({"path": "a"})).unwrap_err();
        assert_eq!(
            err,
            "invalid arguments for edit: `old_text` is missing (a string). Call edit again with them corrected."
        );
        assert!(ToolArgs::parse("fly", &json!({})).is_err());
        assert!(matches!(
            ToolArgs::parse(
                "ask_user",
                &json!({"question": "q", "options": [{"label": "a"}]})
            ),
            Ok(ToolArgs::AskUser {
                multiple: false,
                ..
            })
        ));
    }
}
