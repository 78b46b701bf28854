//! The one place a diff line's look is made: the marker column, the old and new line numbers,
//! the sign, and the text in its colours — red for a deleted line, green under the syntax
//! colours of the file's language for an added one, the syntax colours alone for context (as a
//! tool call's diff shows them).

use luxe_core::protocol::guided_review::{Hunk, LineKind, Review};
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use crate::highlight::{Highlighter, Kind, Lang, spans_over};
use crate::text::visible;

/// How many lines above the first one a frame draws a hunk's colours are worked out from, so
/// that a comment or a string opened there colours the lines under it, while a frame's cost
/// stays bounded however long the hunk.
const WARM_UP: usize = 200;

/// The colours of the lines one frame draws: one highlighter carried down a hunk's added and
/// context lines (the new side's text), as the frame goes down the page.
#[derive(Debug)]
pub(crate) struct LineColours {
    /// The hunk (by index) and its line the highlighter is ready for.
    next: Option<(usize, usize)>,
    highlighter: Highlighter,
}

impl Default for LineColours {
    fn default() -> Self {
        Self {
            next: None,
            highlighter: Highlighter::new(None),
        }
    }
}

impl LineColours {
    /// Line `at` of hunk `h` (`review.hunks[h]`, of the file at `path`) as one row: `marker`
    /// (one column: the cursor, a marked range), its numbers right-aligned in `digits` columns
    /// each (blank on the side it is not on), its sign and its text (cut where the row ends).
    pub(crate) fn row(
        &mut self,
        review: &Review,
        (h, at): (usize, usize),
        path: &str,
        digits: usize,
        marker: char,
    ) -> Line<'static> {
        let hunk = &review.hunks[h];
        let Some(line) = hunk.lines.get(at) else {
            return Line::raw(marker.to_string());
        };
        if self.next != Some((h, at)) {
            self.warm_up(hunk, at, path);
        }
        self.next = Some((h, at + 1));
        let number = |n: Option<u32>| n.map_or_else(String::new, |n| n.to_string());
        let gutter = format!(
            "{marker}{:>digits$} {:>digits$} ",
            number(line.old_line),
            number(line.new_line)
        );
        let (sign, base) = match line.kind {
            LineKind::Add => ('+', Style::new().fg(Color::Green)),
            LineKind::Del => ('-', Style::new().fg(Color::Red)),
            LineKind::Context => (' ', Style::new()),
        };
        let text = visible(line.text);
        let pieces = match line.kind {
            // The old side's text would need a highlighter of its own: red says enough.
            LineKind::Del => vec![(Kind::Plain, text.as_str())],
            LineKind::Add | LineKind::Context => self.highlighter.line(&text),
        };
        let dim = Style::new().add_modifier(Modifier::DIM);
        let mut spans = vec![
            Span::styled(gutter, dim),
            Span::styled(sign.to_string(), base),
        ];
        spans.extend(spans_over(pieces, base));
        if line.no_newline {
            spans.push(Span::styled("  \\ no newline at end of file", dim));
        }
        Line::from(spans)
    }

    /// A fresh highlighter for `path`'s language, run over the new side's lines of `hunk`
    /// above line `at` (at most [`WARM_UP`] of them).
    fn warm_up(&mut self, hunk: &Hunk, at: usize, path: &str) {
        self.highlighter = Highlighter::new(Lang::from_path(path));
        let before = hunk.lines.iter().take(at).skip(at.saturating_sub(WARM_UP));
        for line in before.filter(|l| l.kind != LineKind::Del) {
            self.highlighter.line(&visible(line.text));
        }
    }
}

/// The widest line number of `review`, in digits (at least 3, so small diffs line up too).
pub(crate) fn digits(review: &Review) -> usize {
    let most = (review.hunks.iter())
        .map(|h| (h.old_start + h.old_lines).max(h.new_start + h.new_lines))
        .max()
        .unwrap_or(0);
    most.to_string().len().max(3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixture::hunk;

    /// A Rust hunk whose added lines open a block comment on one line and close it on the next.
    fn review() -> Review {
        let lines = [
            (LineKind::Del, "fn old() {}"),
            (LineKind::Add, "/* opened"),
            (LineKind::Add, "   closed */ fn new() {}"),
        ];
        let mut review = (*crate::review::fixture::review()).clone();
        review.hunks = vec![hunk("hunk:c", "file:src/lib.rs", (1, 1), "", &lines)];
        review
    }

    /// The style of the first span of `row` whose text holds `text`.
    fn style_of(row: &Line<'_>, text: &str) -> Style {
        let span = row.spans.iter().find(|s| s.content.contains(text));
        span.map(|s| s.style)
            .unwrap_or_else(|| panic!("no {text:?} in {row:?}"))
    }

    #[test]
    fn added_lines_take_the_language_s_colours_over_green_and_carry_a_comment_down() {
        let review = review();
        let row =
            |colours: &mut LineColours, at| colours.row(&review, (0, at), "src/lib.rs", 3, ' ');
        let mut down = LineColours::default();
        let deleted = row(&mut down, 0);
        assert_eq!(
            style_of(&deleted, "fn old"),
            Style::new().fg(Color::Red),
            "no colours on the old side"
        );
        row(&mut down, 1);
        let closed = row(&mut down, 2);
        let green = Style::new().fg(Color::Green);
        assert_eq!(
            style_of(&closed, "closed */"),
            green.patch(Kind::Comment.style())
        );
        assert_eq!(style_of(&closed, "fn"), green.patch(Kind::Keyword.style()));
        // Drawn first (the page scrolled to it), the line above is worked out all the same.
        assert_eq!(row(&mut LineColours::default(), 2), closed);
        assert_eq!(closed.to_string(), "       2 +   closed */ fn new() {}");
    }
}
