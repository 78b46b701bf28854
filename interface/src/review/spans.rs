//! The one place a diff line's look is made: the marker column, the old and new line numbers,
//! the sign, and the text's spans. Syntax colours belong in [`code_spans`], which every line
//! of the review view goes through.

use luxe_core::protocol::review::{HunkLine, LineKind, Review};
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use crate::text::{cut, visible};

/// `line` as one row `width` columns wide: `marker` (one column: the cursor, a marked range),
/// its numbers right-aligned in `digits` columns each (blank on the side it is not on), its
/// sign, and its text cut to what is left.
pub(crate) fn diff_line(
    line: HunkLine<'_>,
    digits: usize,
    marker: char,
    width: usize,
) -> Line<'static> {
    let number = |n: Option<u32>| n.map_or_else(String::new, |n| n.to_string());
    let gutter = format!(
        "{marker}{:>digits$} {:>digits$} ",
        number(line.old_line),
        number(line.new_line)
    );
    let sign = match line.kind {
        LineKind::Add => '+',
        LineKind::Del => '-',
        LineKind::Context => ' ',
    };
    let room = width.saturating_sub(crate::text::width(&gutter));
    let mut text = format!("{sign}{}", visible(line.text));
    if line.no_newline {
        text.push_str("  \\ no newline at end of file");
    }
    let mut spans = vec![Span::styled(
        gutter,
        Style::new().add_modifier(Modifier::DIM),
    )];
    spans.extend(code_spans(&cut(&text, room), line.kind));
    Line::from(spans)
}

/// The spans of a line's sign and text (already made visible and cut to fit): green when
/// added, red when deleted. Syntax colours, once the interface has them, are made here.
fn code_spans(text: &str, kind: LineKind) -> Vec<Span<'static>> {
    let style = match kind {
        LineKind::Add => Style::new().fg(Color::Green),
        LineKind::Del => Style::new().fg(Color::Red),
        LineKind::Context => Style::new(),
    };
    vec![Span::styled(text.to_owned(), style)]
}

/// The widest line number of `review`, in digits (at least 3, so small diffs line up too).
pub(crate) fn digits(review: &Review) -> usize {
    let most = (review.hunks.iter())
        .map(|h| (h.old_start + h.old_lines).max(h.new_start + h.new_lines))
        .max()
        .unwrap_or(0);
    most.to_string().len().max(3)
}
