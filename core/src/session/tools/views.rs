//! What the model and the client are shown of a tool's work: a file read (redacted before any
//! line is cut), search hits and listings with their stop notes, and a call's one-line title.
//! Pure functions of what io returned. (A write's or an edit's diff is `review::unified`'s.)

use serde_json::Value;

use crate::effects::{FileContent, SearchHit};
use crate::protocol::events::ToolStatus;
use crate::redact::Redactor;

use super::shaping::{is_binary, numbered_lines};

/// What `read` shows of a file: redacted before any line is cut. Of a file read only in part,
/// the end that could begin a secret cut off by the read is left out too.
pub fn read_view(
    redactor: &Redactor,
    mut content: FileContent,
    offset: Option<u64>,
    limit: Option<u64>,
) -> (ToolStatus, String) {
    let read = content.bytes.len();
    let partial = content.total_len > read as u64;
    content.bytes = if partial {
        redactor.stream().push(&content.bytes)
    } else {
        redactor.redact_bytes(&content.bytes).into_owned()
    };
    if is_binary(&content.bytes) {
        return (
            ToolStatus::Error,
            format!("binary file ({} bytes): not shown", content.total_len),
        );
    }
    let text = String::from_utf8_lossy(&content.bytes);
    let mut view = numbered_lines(&text, offset, limit);
    if partial {
        view.push_str(&format!(
            "[the file is {} bytes; only the first {read} were read]\n",
            content.total_len,
        ));
    }
    (ToolStatus::Ok, view)
}

/// A one-line summary of a call for `tool_started.title`, redacted before it is cut.
pub fn title(redactor: &Redactor, name: &str, input: &Value) -> String {
    let field = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or("");
    let subject = match name {
        "read" | "write" | "edit" => field("path").to_owned(),
        "bash" => field("command").to_owned(),
        "grep" | "glob" => field("pattern").to_owned(),
        "ask_user" => field("question").to_owned(),
        _ => String::new(),
    };
    let subject: String = redactor.redact(&subject).chars().take(120).collect();
    if subject.is_empty() {
        name.to_owned()
    } else {
        format!("{name} {subject}")
    }
}

/// `path` (relative to a search root) as rules see it: relative to cwd.
pub fn under(root: &str, path: &str) -> String {
    if root == "." {
        path.to_owned()
    } else {
        format!("{root}/{path}")
    }
}

/// What `grep` shows of its hits (at most `max`, said when reached).
pub fn grep_view(result: Result<Vec<SearchHit>, String>, max: usize) -> (ToolStatus, String) {
    match result {
        Err(error) => (ToolStatus::Error, error),
        Ok(hits) if hits.is_empty() => (ToolStatus::Ok, "No matches.".to_owned()),
        Ok(hits) => {
            let mut text: String = hits
                .iter()
                .map(|h| format!("{}:{}:{}\n", h.path, h.line, h.text))
                .collect();
            if hits.len() >= max {
                text.push_str(&format!("[stopped at {max} matches]\n"));
            }
            (ToolStatus::Ok, text)
        }
    }
}

/// What `glob` shows of the paths it found (at most `max`, said when reached).
pub fn glob_view(result: Result<Vec<String>, String>, max: usize) -> (ToolStatus, String) {
    match result {
        Err(error) => (ToolStatus::Error, error),
        Ok(paths) if paths.is_empty() => (ToolStatus::Ok, "No files match.".to_owned()),
        Ok(paths) => {
            let mut text = paths.join("\n");
            if paths.len() >= max {
                text.push_str(&format!("\n[stopped at {max} paths]"));
            }
            (ToolStatus::Ok, text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    const SECRET: &str = "sk-live-9f8e7d6c5b4a";

    quickcheck! {
        /// Wherever the line cut (2,000 characters) or the end of a partial read falls, no
        /// start of the value is shown.
        fn cuts_come_after_redaction(before: u16, read: u16) -> bool {
            let redactor = Redactor::new([SECRET.to_owned()]);
            let line = format!("{}{SECRET} tail\n", "x".repeat(usize::from(before) % 2100));
            let read = usize::from(read) % (line.len() + 1);
            let content = FileContent {
                bytes: line.as_bytes()[..read].to_vec(),
                total_len: line.len() as u64,
                identity: None,
            };
            let (_, shown) = read_view(&redactor, content, None, None);
            !shown.contains("xsk-l") && !shown.starts_with("     1\tsk-l")
        }
    }

    #[test]
    fn searches_say_when_they_found_nothing_and_when_they_stopped() {
        let hit = |n: u64| SearchHit {
            path: "a.rs".into(),
            line: n,
            text: "x".into(),
        };
        assert_eq!(
            grep_view(Ok(vec![]), 2),
            (ToolStatus::Ok, "No matches.".into())
        );
        assert_eq!(
            grep_view(Ok(vec![hit(1), hit(2)]), 2).1,
            "a.rs:1:x\na.rs:2:x\n[stopped at 2 matches]\n"
        );
        assert_eq!(grep_view(Ok(vec![hit(1)]), 2).1, "a.rs:1:x\n");
        assert_eq!(glob_view(Ok(vec![]), 1).1, "No files match.");
        assert_eq!(
            glob_view(Ok(vec!["a".into()]), 1).1,
            "a\n[stopped at 1 paths]"
        );
        assert_eq!(
            glob_view(Err("bad".into()), 1),
            (ToolStatus::Error, "bad".into())
        );
    }
}
