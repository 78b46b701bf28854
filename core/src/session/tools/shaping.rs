//! What tools hand back: numbered lines, exact edits, and output capped for the model.

/// Lines a `read` shows when the model sets no limit.
pub const DEFAULT_READ_LINES: u64 = 2000;
/// Characters of one line a `read` shows.
pub const MAX_LINE_CHARS: usize = 2000;

/// Whether bytes look binary (a NUL in the first 8 KiB, as git decides).
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

/// Lines `offset..offset+limit` (from 1) of `text`, numbered like `cat -n`, with a note when
/// more lines follow.
pub fn numbered_lines(text: &str, offset: Option<u64>, limit: Option<u64>) -> String {
    let first = offset.unwrap_or(1).max(1);
    let limit = limit.unwrap_or(DEFAULT_READ_LINES).max(1);
    let mut out = String::new();
    let mut total = 0u64;
    for (i, line) in text.lines().enumerate() {
        total += 1;
        let n = i as u64 + 1;
        if n < first || n >= first.saturating_add(limit) {
            continue;
        }
        let shown: String = line.chars().take(MAX_LINE_CHARS).collect();
        let cut = if shown.len() < line.len() {
            " [line cut]"
        } else {
            ""
        };
        out.push_str(&format!("{n:>6}\t{shown}{cut}\n"));
    }
    let last_shown = first.saturating_add(limit) - 1;
    if total == 0 {
        out.push_str("(empty file)\n");
    } else if first > total {
        out.push_str(&format!(
            "(the file has {total} lines; offset {first} is past the end)\n"
        ));
    } else if last_shown < total {
        out.push_str(&format!(
            "({} more lines; continue with offset {})\n",
            total - last_shown,
            last_shown + 1
        ));
    }
    out
}

/// Replaces `old` with `new` in `content`: exactly one match, or every match with `all`.
/// Returns the new content and the number of replacements.
pub fn apply_edit(
    content: &str,
    old: &str,
    new: &str,
    all: bool,
) -> Result<(String, usize), String> {
    if old.is_empty() {
        return Err("old_text is empty: give the exact text to replace".into());
    }
    if old == new {
        return Err("old_text and new_text are the same: nothing to change".into());
    }
    let count = content.matches(old).count();
    match (count, all) {
        (0, _) => Err(
            "old_text was not found in the file (it must match exactly, whitespace included)"
                .into(),
        ),
        (1, _) | (_, true) => Ok((content.replace(old, new), count)),
        (n, false) => Err(format!(
            "old_text matches {n} places: add surrounding lines to make it unique, or set replace_all"
        )),
    }
}

/// Output collected up to a limit, counting what was cut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CappedOutput {
    kept: Vec<u8>,
    cut: u64,
    limit: usize,
}

impl CappedOutput {
    /// Keeps at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            kept: Vec::new(),
            cut: 0,
            limit,
        }
    }

    /// Adds bytes; what exceeds the limit is counted, not kept.
    pub fn push(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.kept.len());
        let take = room.min(bytes.len());
        self.kept.extend_from_slice(&bytes[..take]);
        self.cut += (bytes.len() - take) as u64;
    }

    /// The text, with a truncation note when anything was cut.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.cut > 0 {
            text.push_str(&format!("\n[output truncated: {} more bytes]", self.cut));
        }
        text
    }
}

/// `text` cut to `limit` bytes (on a character boundary) with a note saying so.
pub fn cap_text(text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[output truncated: {} more bytes]",
        &text[..end],
        text.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_with_offset_and_limit() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(
            numbered_lines(text, None, None),
            "     1\ta\n     2\tb\n     3\tc\n     4\td\n"
        );
        assert_eq!(
            numbered_lines(text, Some(2), Some(2)),
            "     2\tb\n     3\tc\n(1 more lines; continue with offset 4)\n"
        );
        assert!(numbered_lines(text, Some(9), None).contains("past the end"));
        assert_eq!(numbered_lines("", None, None), "(empty file)\n");
    }

    #[test]
    fn edits_need_a_unique_exact_match() {
        assert_eq!(
            apply_edit("a b a", "b", "c", false).unwrap(),
            ("a c a".into(), 1)
        );
        assert!(
            apply_edit("a b a", "a", "c", false)
                .unwrap_err()
                .contains("2 places")
        );
        assert_eq!(
            apply_edit("a b a", "a", "c", true).unwrap(),
            ("c b c".into(), 2)
        );
        assert!(apply_edit("abc", "x", "y", false).is_err());
        assert!(apply_edit("abc", "", "y", false).is_err());
    }

    #[test]
    fn caps_count_what_they_cut() {
        let mut out = CappedOutput::new(4);
        out.push(b"abc");
        out.push(b"defg");
        assert_eq!(out.text(), "abcd\n[output truncated: 3 more bytes]");
        assert_eq!(
            cap_text("héllo".into(), 2),
            "h\n[output truncated: 5 more bytes]"
        );
        assert!(is_binary(b"a\0b"));
        assert!(!is_binary(b"text"));
    }
}
