//! A write's or an edit's unified diff as its tool cell shows it: each line with its old and
//! new line numbers in a gutter (when a hunk header, `@@ -a,b +c,d @@`, says where it is;
//! without one a line is unnumbered), a `+` or `-` mark, additions green, removals red, context
//! plain, and the code coloured by the language of the file's path.

use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use crate::highlight::{Highlighter, Kind, Lang, spans_over};
use crate::markdown::{Lead, fold_spans};
use crate::text::visible;

/// Whether a tool's text is a unified diff (what `write` and `edit` report), by its first
/// line.
pub(crate) fn is_diff(body: &str) -> bool {
    let first = body.lines().next().unwrap_or("");
    first.starts_with("--- ") || first.starts_with("diff --git ") || hunk_header(first).is_some()
}

/// One piece of a parsed diff.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part<'a> {
    /// A file begins: its path.
    File(&'a str),
    /// A hunk begins at these lines; the text after its header (often the enclosing function).
    Hunk {
        old: usize,
        new: usize,
        section: &'a str,
    },
    /// A line of the file: its mark (`+`, `-` or ` `), its text, and its numbers when known.
    Line {
        mark: char,
        text: &'a str,
        old: Option<usize>,
        new: Option<usize>,
    },
    /// `\ No newline at end of file`.
    Note(&'a str),
}

/// Where a hunk begins and how many lines it spans on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HunkHeader<'a> {
    old: usize,
    old_len: usize,
    new: usize,
    new_len: usize,
    section: &'a str,
}

/// `@@ -a,b +c,d @@ section` (a count left out is 1).
fn hunk_header(line: &str) -> Option<HunkHeader<'_>> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, section) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let ((old, old_len), (new, new_len)) = (range(old)?, range(new)?);
    Some(HunkHeader {
        old,
        old_len,
        new,
        new_len,
        section: section.trim(),
    })
}

/// Lines git writes about a file before its hunks, that the cell does not show.
const FILE_HEADERS: [&str; 10] = [
    "diff ",
    "index ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "rename from",
    "rename to",
    "Binary files",
];

/// The diff's pieces, in order.
fn parse(diff: &str) -> Vec<Part<'_>> {
    let lines: Vec<&str> = diff.lines().collect();
    let mut parts = Vec::new();
    // The next line numbers, while a hunk's counts say lines remain.
    let mut next: Option<(usize, usize)> = None;
    let mut left = (0, 0);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        // A hunk's lines each begin with a mark, so `@@` always begins a hunk.
        if let Some(header) = hunk_header(line) {
            parts.push(Part::Hunk {
                old: header.old,
                new: header.new,
                section: header.section,
            });
            next = Some((header.old, header.new));
            left = (header.old_len, header.new_len);
            continue;
        }
        let in_hunk = next.is_some() && (left.0 > 0 || left.1 > 0);
        if !in_hunk {
            // Between hunks (or with no hunk header at all): a file's headers may come.
            if let (Some(old), Some(new)) = (line.strip_prefix("--- "), lines.get(i))
                && let Some(new) = new.strip_prefix("+++ ")
            {
                i += 1;
                parts.push(Part::File(file_path(old, new)));
                next = None;
                continue;
            }
            if FILE_HEADERS.iter().any(|h| line.starts_with(h)) {
                continue;
            }
            // Past a hunk's counted lines, numbers are no longer known.
            next = None;
        }
        let (mark, text) = match line.chars().next() {
            Some(mark @ ('+' | '-' | ' ')) => (mark, &line[1..]),
            Some('\\') => {
                parts.push(Part::Note(line));
                continue;
            }
            // An empty context line (some tools drop its space), or a stray line.
            _ => (' ', line),
        };
        let (old, new) = match next.as_mut() {
            Some((old, new)) => {
                let numbers = ((mark != '+').then_some(*old), (mark != '-').then_some(*new));
                if mark != '+' {
                    *old += 1;
                    left.0 = left.0.saturating_sub(1);
                }
                if mark != '-' {
                    *new += 1;
                    left.1 = left.1.saturating_sub(1);
                }
                numbers
            }
            None => (None, None),
        };
        parts.push(Part::Line {
            mark,
            text,
            old,
            new,
        });
    }
    parts
}

/// A file's path from its `---` and `+++` lines: the new one, or the old one for a deletion,
/// without git's `a/` and `b/`.
fn file_path<'a>(old: &'a str, new: &'a str) -> &'a str {
    let side = |path: &'a str, prefix: &str| -> &'a str {
        let path = path.split('\t').next().unwrap_or(path);
        path.strip_prefix(prefix).unwrap_or(path)
    };
    if new.starts_with("/dev/null") {
        side(old, "a/")
    } else {
        side(new, "b/")
    }
}

/// The rows of `diff` at `width`, its first `most` lines shown and the rest counted
/// (`… N more lines`).
pub(crate) fn diff_rows(diff: &str, width: usize, most: usize) -> Vec<Line<'static>> {
    let parts = parse(diff);
    let files = parts.iter().filter(|p| matches!(p, Part::File(_))).count();
    let widest = parts
        .iter()
        .filter_map(|part| match part {
            Part::Line { old, new, .. } => old.max(new).map(|n| n.to_string().len()),
            _ => None,
        })
        .max();
    let dim = Style::new().add_modifier(Modifier::DIM);
    let mut out = Vec::new();
    let mut highlighter = Highlighter::new(None);
    let mut shown = 0;
    let mut hidden = 0;
    for part in &parts {
        if shown >= most {
            hidden += usize::from(matches!(part, Part::Line { .. } | Part::Note(_)));
            continue;
        }
        match *part {
            Part::File(path) => {
                highlighter = Highlighter::new(Lang::from_path(path));
                if files > 1 {
                    let path = crate::text::cut(&visible(path), width.saturating_sub(2));
                    out.push(Line::from(Span::styled(
                        format!("  {path}"),
                        dim.add_modifier(Modifier::BOLD),
                    )));
                }
            }
            Part::Hunk { old, new, section } => {
                // What the lines before left open is not known here.
                highlighter.reset();
                if old > 1 || new > 1 {
                    let gutter = widest.map_or(1, |w| 2 * w + 1);
                    let row = format!("  {:>gutter$} {}", "⋮", visible(section));
                    out.push(Line::from(Span::styled(crate::text::cut(&row, width), dim)));
                }
            }
            Part::Note(text) => {
                shown += 1;
                let row = crate::text::cut(&format!("  {}", visible(text)), width);
                out.push(Line::from(Span::styled(row, dim)));
            }
            Part::Line {
                mark,
                text,
                old,
                new,
            } => {
                shown += 1;
                let text = visible(text);
                let (base, code) = match mark {
                    '+' => (Style::new().fg(Color::Green), highlighter.line(&text)),
                    '-' => (
                        Style::new().fg(Color::Red),
                        vec![(Kind::Plain, text.as_str())],
                    ),
                    _ => (Style::new(), highlighter.line(&text)),
                };
                let spans = spans_over(code, base);
                let lead = gutter(widest, old, new, mark, base);
                out.extend(fold_spans(&spans, width, &lead, false));
            }
        }
    }
    if hidden > 0 {
        out.push(Line::from(Span::styled(
            format!("  … {hidden} more lines"),
            dim,
        )));
    }
    out
}

/// What goes before a diff line: two spaces, its old and new numbers (each `widest` wide, when
/// the diff has numbers; blank when this line has none on that side), and its mark; blank
/// columns as wide before the rows it folds onto.
fn gutter(
    widest: Option<usize>,
    old: Option<usize>,
    new: Option<usize>,
    mark: char,
    base: Style,
) -> Lead {
    let numbers = match widest {
        Some(w) => {
            let side = |n: Option<usize>| n.map_or_else(|| " ".repeat(w), |n| format!("{n:>w$}"));
            format!("  {} {} ", side(old), side(new))
        }
        None => "  ".to_owned(),
    };
    let blank = " ".repeat(numbers.len() + 2);
    Lead::none()
        .then(
            Span::styled(numbers, Style::new().add_modifier(Modifier::DIM)),
            Span::raw(blank),
        )
        .then(
            Span::styled(format!("{mark} "), base.add_modifier(Modifier::BOLD)),
            Span::raw(""),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::shown::{style_of, texts};

    const EDIT: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -8,3 +8,4 @@ impl Frob {\n fn a() {}\n-fn b() {}\n+fn b() { 1 }\n+// new\n fn d() {}\n@@ -120,2 +121,2 @@\n-let x = 1;\n+let x = 2;\n tail\n";

    #[test]
    fn hunk_headers_number_each_line_on_its_side() {
        let rows = diff_rows(EDIT, 80, 40);
        assert_eq!(
            texts(&rows),
            [
                "        ⋮ impl Frob {",
                "    8   8   fn a() {}",
                "    9     - fn b() {}",
                "        9 + fn b() { 1 }",
                "       10 + // new",
                "   10  11   fn d() {}",
                "        ⋮ ",
                "  120     - let x = 1;",
                "      121 + let x = 2;",
                "  121 122   tail",
            ]
        );
    }

    #[test]
    fn additions_are_green_removals_red_and_the_code_coloured_by_its_path() {
        let rows = diff_rows(EDIT, 80, 40);
        assert_eq!(style_of(&rows, "+ ").fg, Some(Color::Green));
        assert_eq!(style_of(&rows, "- ").fg, Some(Color::Red));
        // An added line: its keyword coloured, the rest green; a removed line red throughout.
        let added = &rows[3];
        assert_eq!(added.spans[2].content, "fn");
        assert_eq!(added.spans[2].style.fg, Some(Color::Magenta));
        assert_eq!(added.spans[3].style.fg, Some(Color::Green));
        assert_eq!(style_of(&rows, "fn b() {}").fg, Some(Color::Red));
        assert!(
            style_of(&rows, "// new")
                .add_modifier
                .contains(Modifier::DIM)
        );
        // Context: plain, its keyword coloured.
        assert_eq!(rows[1].spans[2].style.fg, Some(Color::Magenta));
        assert_eq!(rows[1].spans[3].style, Style::new());
        // The numbers are dim.
        assert!(
            style_of(&rows, "    8   8 ")
                .add_modifier
                .contains(Modifier::DIM)
        );
    }

    #[test]
    fn without_a_hunk_header_lines_are_unnumbered() {
        let diff = "--- a/x.py\n+++ b/x.py\n-old()\n--- a sql comment\n+def new(): pass\n";
        assert_eq!(
            texts(&diff_rows(diff, 80, 40)),
            ["  - old()", "  - -- a sql comment", "  + def new(): pass"]
        );
    }

    #[test]
    fn a_created_file_starts_at_line_one_without_a_separator() {
        let diff = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+def one():\n+    pass\n\\ No newline at end of file\n";
        let rows = diff_rows(diff, 80, 40);
        assert_eq!(
            texts(&rows),
            [
                "    1 + def one():",
                "    2 +     pass",
                "  \\ No newline at end of file"
            ]
        );
        assert_eq!(style_of(&rows, "def").fg, Some(Color::Magenta));
    }

    #[test]
    fn a_no_newline_marker_inside_a_hunk_keeps_the_numbers() {
        let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
        assert_eq!(
            texts(&diff_rows(diff, 80, 40)),
            [
                "  1 1   a",
                "  2   - b",
                "  \\ No newline at end of file",
                "    2 + c",
                "  \\ No newline at end of file"
            ]
        );
    }

    #[test]
    fn a_long_line_folds_under_its_text_and_a_long_diff_is_cut() {
        let diff = "--- a/a\n+++ b/a\n@@ -1,1 +1,1 @@\n-aaaa bbbb cccc\n+x\n";
        assert_eq!(
            texts(&diff_rows(diff, 14, 40)),
            [
                "  1   - aaaa ",
                "        bbbb ",
                "        cccc",
                "    1 + x"
            ]
        );
        let long: String = (0..50).map(|n| format!("+line {n}\n")).collect();
        let rows = diff_rows(&format!("--- a/a\n+++ b/a\n{long}"), 80, 40);
        assert_eq!(rows.len(), 41);
        assert_eq!(rows[39].to_string(), "  + line 39");
        assert_eq!(rows[40].to_string(), "  … 10 more lines");
    }

    #[test]
    fn several_files_are_named_and_each_coloured_by_its_own_path() {
        let diff = "diff --git a/a.rs b/a.rs\nindex 1..2\n--- a/a.rs\n+++ b/a.rs\n@@ -1 +1 @@\n-x\n+fn\ndiff --git a/b.py b/b.py\n--- a/b.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-def\n";
        let rows = diff_rows(diff, 80, 40);
        assert_eq!(
            texts(&rows),
            ["  a.rs", "  1   - x", "    1 + fn", "  b.py", "  1   - def"]
        );
        assert_eq!(rows[2].spans[2].style.fg, Some(Color::Magenta));
    }

    #[test]
    fn diffs_are_told_from_other_output() {
        assert!(is_diff(EDIT));
        assert!(is_diff("diff --git a/x b/x\n"));
        assert!(is_diff("@@ -1 +1 @@\n-a\n+b\n"));
        assert!(!is_diff("- a list\n+ not a diff\n"));
        assert!(!is_diff("Edited src/lib.rs"));
    }

    #[test]
    fn control_characters_in_a_diff_are_shown_as_pictures() {
        let rows = diff_rows("--- a/x\n+++ b/x\n+\u{1b}[2J\tboom\n", 80, 40);
        assert_eq!(texts(&rows), ["  + \u{241b}[2J    boom"]);
    }
}
