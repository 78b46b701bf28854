//! The arguments of the review tools, `add_finding` and `report` (design §5), read one field
//! at a time so that a model that gets one wrong is told in a sentence which one and what it
//! should be, never a parser's message.

use serde_json::{Map, Value};

use crate::protocol::findings::{ReportStatus, Severity, Side};

/// What each argument is: the tool schemas describe them with these, and the sentence that
/// names a bad one says it again.
pub mod about {
    /// `add_finding.path`.
    pub const PATH: &str = "the file's path, as the review shows it";
    /// `add_finding.line`.
    pub const LINE: &str = "the line number in the file, as the review shows it";
    /// `add_finding.side`.
    pub const SIDE: &str = "\"new\" (the default) for an added or unchanged line, numbered as after the change; \"old\" for a deleted line, numbered as before it";
    /// `add_finding.end_line`.
    pub const END_LINE: &str = "the last line of a range that starts at `line`, on the same side and in the same hunk; leave it out for one line";
    /// `add_finding.severity`.
    pub const SEVERITY: &str =
        "how much it matters: question, suggestion, issue, nitpick or praise";
    /// `add_finding.body`.
    pub const BODY: &str = "the finding, for the reviewer";
    /// `report.comment_id`.
    pub const COMMENT_ID: &str = "the id of the comment this turn works on, as the prompt gives it";
    /// `report.status`.
    pub const STATUS: &str =
        "\"fixed\" when you changed the code as asked, \"not_fixed\" when you did not";
    /// `report.summary`.
    pub const SUMMARY: &str = "what you changed, or why you did not, for the reviewer";
}

/// `add_finding`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddFinding {
    /// The file, as the model named it.
    pub path: String,
    /// The line, or the first of a range, numbered on `side` as the review shows it (from 1).
    pub line: u32,
    /// Which side's numbering the lines use.
    pub side: Side,
    /// The last line of a range; never before `line`.
    pub end_line: Option<u32>,
    /// How much it matters.
    pub severity: Severity,
    /// The finding's text for the reviewer, as the model wrote it.
    pub body: String,
}

/// `report`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The id of the comment whose fix this turn reports on, as the prompt gave it.
    pub comment_id: String,
    /// Fixed or not.
    pub status: ReportStatus,
    /// What was done, or why not.
    pub summary: String,
}

/// `add_finding.side`'s values.
pub const SIDES: [(&str, Side); 2] = [("old", Side::Old), ("new", Side::New)];
/// `report.status`'s values.
pub const STATUSES: [(&str, ReportStatus); 2] = [
    ("fixed", ReportStatus::Fixed),
    ("not_fixed", ReportStatus::NotFixed),
];

impl AddFinding {
    /// Reads `add_finding`'s arguments; the error is what the model is told.
    pub fn parse(input: &Value) -> Result<Self, String> {
        let args = Fields::of("add_finding", input)?;
        let path = args.text("path", about::PATH)?;
        let line = args.line("line", about::LINE)?;
        let end_line = args.optional_line("end_line", about::END_LINE)?;
        if let Some(end) = end_line.filter(|&end| end < line) {
            return Err(format!(
                "add_finding's `end_line` ({end}) is before `line` ({line}): give the last line of the range, or leave `end_line` out for one line."
            ));
        }
        Ok(Self {
            path,
            line,
            side: args.optional_choice("side", &SIDES)?.unwrap_or(Side::New),
            end_line,
            severity: args.choice("severity", about::SEVERITY, &Severity::NAMED)?,
            body: args.text("body", about::BODY)?,
        })
    }
}

impl Report {
    /// Reads `report`'s arguments; the error is what the model is told.
    pub fn parse(input: &Value) -> Result<Self, String> {
        let args = Fields::of("report", input)?;
        Ok(Self {
            comment_id: args.text("comment_id", about::COMMENT_ID)?,
            status: args.choice("status", about::STATUS, &STATUSES)?,
            summary: args.text("summary", about::SUMMARY)?,
        })
    }
}

/// The names of a table of values, for a schema's `enum`.
pub fn names<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
    table.iter().map(|&(name, _)| name).collect()
}

/// `names` as a list for a sentence: `"a", "b" or "c"`.
pub fn one_of<T>(names: &[(&str, T)]) -> String {
    let quoted: Vec<String> = names.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// A tool's arguments, read by name.
struct Fields<'a> {
    tool: &'static str,
    args: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn of(tool: &'static str, input: &'a Value) -> Result<Self, String> {
        match input {
            Value::Object(args) => Ok(Self { tool, args }),
            other => Err(format!(
                "{tool} takes its arguments as a JSON object, not {}.",
                shown(other)
            )),
        }
    }

    /// The field, `None` when absent or null.
    fn get(&self, name: &str) -> Option<&'a Value> {
        self.args.get(name).filter(|v| !v.is_null())
    }

    fn needs(&self, name: &str, about: &str) -> String {
        format!("{} needs `{name}`: {about}.", self.tool)
    }

    /// `about` in brackets, when given: a choice's names say enough.
    fn must(&self, name: &str, be: &str, about: Option<&str>, given: &Value) -> String {
        let about = about.map(|a| format!(" ({a})")).unwrap_or_default();
        format!(
            "{}'s `{name}` must be {be}{about}, not {}.",
            self.tool,
            shown(given)
        )
    }

    /// A string that is not blank.
    fn text(&self, name: &str, about: &str) -> Result<String, String> {
        match self.get(name) {
            None => Err(self.needs(name, about)),
            Some(Value::String(text)) if text.trim().is_empty() => Err(format!(
                "{} needs a `{name}` that is not blank: {about}.",
                self.tool
            )),
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(self.must(name, "text", Some(about), other)),
        }
    }

    fn line(&self, name: &str, about: &str) -> Result<u32, String> {
        self.optional_line(name, about)?
            .ok_or_else(|| self.needs(name, about))
    }

    /// A line number: a whole number from 1.
    fn optional_line(&self, name: &str, about: &str) -> Result<Option<u32>, String> {
        let Some(given) = self.get(name) else {
            return Ok(None);
        };
        given
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n >= 1)
            .map(Some)
            .ok_or_else(|| self.must(name, "a whole number from 1 up", Some(about), given))
    }

    fn choice<T: Copy>(&self, name: &str, about: &str, names: &[(&str, T)]) -> Result<T, String> {
        self.optional_choice(name, names)?
            .ok_or_else(|| self.needs(name, about))
    }

    /// The value in `names` that argument `name` names; `None` when it is absent, an error listing
    /// the choices when it names none of them.
    fn optional_choice<T: Copy>(
        &self,
        name: &str,
        names: &[(&str, T)],
    ) -> Result<Option<T>, String> {
        let Some(given) = self.get(name) else {
            return Ok(None);
        };
        names
            .iter()
            .find(|(n, _)| given.as_str() == Some(n))
            .map(|&(_, value)| Some(value))
            .ok_or_else(|| self.must(name, &one_of(names), None, given))
    }
}

/// A value as the model wrote it, cut short.
fn shown(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        text.chars().take(MAX).collect::<String>() + "…"
    }
}

#[cfg(test)]
mod tests;
