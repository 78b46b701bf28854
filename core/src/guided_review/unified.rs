//! A change as unified diff text, the form tool frames carry (`tool_finished.diff`,
//! `permission_requested.diff`) and `git apply` reads: git's hunks (`Differ`) under
//! `--- a/path` and `+++ b/path`, and that text applied back to either side ([`apply`]), which
//! is how ACP's editors get a write's old text from a prompt's diff.
//!
//! It costs what `git diff` costs: on a file of 100,000 lines (2.9 MB, release build), 35 ms
//! for an edit of one line and 0.6 s for a write that reorders every line (Myers' search gives
//! up on a minimal diff where it would take quadratic time).
//!
//! Hunk headers always carry both counts (`@@ -3,1 +3,1 @@`, where git writes `@@ -3 +3 @@`)
//! and no function context, so a client reads the numbers with one pattern; a last line
//! without a newline is followed by git's `\ No newline at end of file`.

use std::fmt::Write;

use super::hunks::Differ;
use crate::protocol::guided_review::{Hunk, LineKind};

/// The marker git writes after a line that has no newline at the end of the file.
const NO_NEWLINE: &str = "\\ No newline at end of file";

/// The change from `old` (`None`: the file did not exist) to `new` of the file shown as
/// `path`: its hunks as `git diff -U3` finds them, with the real line numbers of both sides.
/// A created file's old side is `/dev/null` and its one hunk `@@ -0,0 +1,N @@`; equal sides
/// give the two header lines and no hunk.
pub fn file_diff(path: &str, old: Option<&str>, new: &str) -> String {
    let mut differ = Differ::default();
    let change = differ.change(old.unwrap_or("").as_bytes(), new.as_bytes(), "");
    let mut diff = match old {
        Some(_) => format!("--- a/{path}\n+++ b/{path}\n"),
        None => format!("--- /dev/null\n+++ b/{path}\n"),
    };
    for hunk in &change.hunks {
        write_hunk(&mut diff, hunk);
    }
    diff
}

/// Appends `hunk` to `out`: its `@@ -a,b +c,d @@` line, then its lines.
pub fn write_hunk(out: &mut String, hunk: &Hunk) {
    // Writing to a `String` cannot fail.
    let _ = writeln!(
        out,
        "@@ -{},{} +{},{} @@",
        hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
    );
    for line in &hunk.lines {
        let sign = match line.kind {
            LineKind::Context => ' ',
            LineKind::Add => '+',
            LineKind::Del => '-',
        };
        let _ = writeln!(out, "{sign}{}", line.text);
        if line.no_newline {
            out.push_str(NO_NEWLINE);
            out.push('\n');
        }
    }
}

/// Which way [`apply`] reads a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the old text to the new.
    Forward,
    /// From the new text back to the old.
    Backward,
}

/// `text`, one side of `diff` (the old one going [`Direction::Forward`]), turned into the other
/// side: the lines between hunks are taken from `text` where the headers place them, each
/// hunk's lines of the other side from the diff. A hunk's lines of `text`'s side are counted,
/// not compared, so a diff whose lines were redacted still places its hunks. `None` when the
/// headers do not fit `text` or their counts do not fit their lines.
pub fn apply(diff: &str, text: &str, direction: Direction) -> Option<String> {
    let source: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    // Lines of `source` copied or passed over so far.
    let mut at = 0usize;
    let mut hunk: Option<Counts> = None;
    // Whether the last hunk line went to `out` (a `\` marker then takes its newline away).
    let mut last_written = false;
    // Split at `\n` only: a `\r` before it is part of the line (a CRLF file's).
    for line in diff.split_inclusive('\n') {
        let line = line.strip_suffix('\n').unwrap_or(line);
        if let Some(header) = line.strip_prefix("@@ -") {
            if hunk.is_some_and(|h| !h.done()) {
                return None;
            }
            let counts = Counts::parse(header, direction)?;
            let first = counts.first_line();
            if first < at || first > source.len() {
                return None;
            }
            out.extend(source[at..first].iter().copied());
            at = first;
            hunk = Some(counts);
            last_written = false;
            continue;
        }
        let Some(counts) = hunk.as_mut() else {
            // The `---` and `+++` lines, or anything else before the first hunk.
            continue;
        };
        let (ours, theirs) = match direction {
            Direction::Forward => ('-', '+'),
            Direction::Backward => ('+', '-'),
        };
        let mut chars = line.chars();
        let (in_source, in_target) = match chars.next() {
            Some(' ') => (true, true),
            Some(c) if c == ours => (true, false),
            Some(c) if c == theirs => (false, true),
            Some('\\') => {
                if last_written && out.ends_with('\n') {
                    out.pop();
                }
                continue;
            }
            // What follows the last hunk (nothing Luxe writes).
            _ => continue,
        };
        if in_source {
            counts.source = counts.source.checked_sub(1)?;
            at += 1;
            if at > source.len() {
                return None;
            }
        }
        if in_target {
            counts.target = counts.target.checked_sub(1)?;
            out.push_str(chars.as_str());
            out.push('\n');
        }
        last_written = in_target;
    }
    if hunk.is_some_and(|h| !h.done()) {
        return None;
    }
    out.extend(source[at..].iter().copied());
    Some(out)
}

/// What a hunk header says of the side `apply` reads from (`source`) and the side it makes
/// (`target`): where the source side starts, and how many lines of each are still to come.
#[derive(Debug, Clone, Copy)]
struct Counts {
    source_start: usize,
    source: usize,
    target: usize,
}

impl Counts {
    /// `header` is what follows `@@ -`: `a,b +c,d @@…` (a missing count is 1, as git writes it).
    fn parse(header: &str, direction: Direction) -> Option<Self> {
        let (ranges, _) = header.split_once(" @@")?;
        let (old, new) = ranges.split_once(" +")?;
        let range = |text: &str| -> Option<(usize, usize)> {
            match text.split_once(',') {
                Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
                None => Some((text.parse().ok()?, 1)),
            }
        };
        let (old, new) = (range(old)?, range(new)?);
        let (source, target) = match direction {
            Direction::Forward => (old, new),
            Direction::Backward => (new, old),
        };
        Some(Self {
            source_start: source.0,
            source: source.1,
            target: target.1,
        })
    }

    /// The index of the hunk's first source line: a side without lines names the line before
    /// it (`-0,0` for a created file).
    fn first_line(&self) -> usize {
        if self.source == 0 {
            self.source_start
        } else {
            self.source_start.saturating_sub(1)
        }
    }

    /// Whether every line the header counts came.
    fn done(&self) -> bool {
        self.source == 0 && self.target == 0
    }
}

#[cfg(test)]
mod tests;
