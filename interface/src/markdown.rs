//! The model's answer as Markdown, rendered one line at a time into rows folded to a width.
//!
//! The rule that lets an answer stream without anything on screen moving: a line's rows depend
//! only on that line and on the state the lines before it left (an open code fence and its
//! language's lexer state, an open table and its columns), never on what comes after. So the
//! rows of every completed line are final the moment its newline arrives; only the unfinished
//! last line (and the bottom border of a table still open) is drawn anew as the text grows.
//! What follows from the rule: a table's columns are fixed by its header row (the room is
//! shared equally among the header's cells, since the rows below are not known yet), a
//! `---` under a paragraph is a rule rather than a setext heading, and emphasis never spans
//! lines.
//!
//! Every line passes through [`visible`] first, so no control character reaches a cell, and
//! folding goes by display width ([`crate::text::fold`]), so wide characters stay whole.

use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use crate::highlight::{Highlighter, Lang};
use crate::text::width as columns;
use crate::text::{fold, visible};

/// An answer's rows as it streams: the rows of its completed lines (kept, never redrawn) and
/// the rows of its unfinished end (drawn anew each time the text grows).
#[derive(Debug, Clone)]
pub(crate) struct Stream {
    /// The state after the completed lines.
    markdown: Markdown,
    /// Bytes of the text whose lines (or pieces of a long line) are rendered and kept.
    read: usize,
    /// Whether `read` is inside a line longer than [`LONG_LINE`] whose first pieces are kept.
    midline: bool,
    /// How many of `rows` are the completed lines' (the rest are the unfinished end's).
    committed: usize,
    rows: Vec<Line<'static>>,
}

impl Stream {
    /// A stream folded to `width` columns, with nothing read yet.
    pub(crate) fn new(width: usize) -> Self {
        Self {
            markdown: Markdown::new(width),
            read: 0,
            midline: false,
            committed: 0,
            rows: Vec::new(),
        }
    }

    /// The width the rows are folded to.
    pub(crate) fn width(&self) -> usize {
        self.markdown.width
    }

    /// Brings the rows up to `text`, which is the text given before with more appended: only
    /// the lines completed since are rendered (and then kept), and the unfinished end anew.
    pub(crate) fn update(&mut self, text: &str) {
        if text.len() < self.read || !text.is_char_boundary(self.read) {
            // Not the text given before, grown: start over rather than misread it.
            *self = Self::new(self.markdown.width);
        }
        self.rows.truncate(self.committed);
        while let Some(end) = text[self.read..].find('\n') {
            let line_end = self.read + end;
            self.keep_pieces(text, line_end);
            self.keep(&text[self.read..line_end]);
            self.midline = false;
            self.read = line_end + 1;
        }
        // A line that goes on without a newline is kept a piece at a time, so a frame never
        // renders more than a piece of it again.
        self.keep_pieces(text, text.len());
        self.committed = self.rows.len();
        let tail = &text[self.read..];
        if self.midline {
            self.markdown.rest_of_line(tail, &mut self.rows);
        } else {
            self.markdown.tail(tail, &mut self.rows);
        }
    }

    /// Keeps the rows of `text[read..until]` a [`LONG_LINE`] piece at a time while more than
    /// a piece is left (piece ends fall on the same bytes however the text arrived).
    fn keep_pieces(&mut self, text: &str, until: usize) {
        while until - self.read > LONG_LINE {
            let mut end = self.read + LONG_LINE;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.keep(&text[self.read..end]);
            self.midline = true;
            self.read = end;
        }
    }

    /// Keeps the rows of one line, or of the piece of a long one that starts at `read`: the
    /// line's start has its Markdown look, a piece after it is plain text.
    fn keep(&mut self, piece: &str) {
        if self.midline {
            self.markdown.rest_of_line(piece, &mut self.rows);
        } else {
            self.markdown.line(piece, &mut self.rows);
        }
    }

    /// Every row: the completed lines', then the unfinished end's.
    pub(crate) fn rows(&self) -> &[Line<'static>] {
        &self.rows
    }

    /// How many of the rows are the completed lines' (final: they never change).
    #[cfg(test)]
    pub(crate) fn committed(&self) -> usize {
        self.committed
    }
}

/// A line longer than this many bytes is rendered and kept a piece at a time (the pieces after
/// the first as plain text), so streaming a million characters without a newline costs each
/// frame one piece, not the whole line.
const LONG_LINE: usize = 4 * 1024;

/// The state one line leaves for the next, and the width everything is folded to.
#[derive(Debug, Clone)]
struct Markdown {
    width: usize,
    /// The code fence open, if any.
    fence: Option<Fence>,
    /// The table open, if any.
    table: Option<Table>,
}

/// An open code fence: what closes it and how its lines are coloured.
#[derive(Debug, Clone)]
struct Fence {
    /// `` ` `` or `~`.
    mark: char,
    /// How many marks opened it (a closing fence has at least as many).
    len: usize,
    highlighter: Highlighter,
}

/// The widest a table's column is drawn: a table of few columns on a wide screen is not
/// stretched across it.
const COLUMN_MOST: usize = 40;

/// An open table, its columns fixed by its header row.
#[derive(Debug, Clone)]
struct Table {
    /// Each column's width; empty when the screen is too narrow for a grid (the cells are then
    /// written one after another, `│` between them).
    widths: Vec<usize>,
    /// Each column's alignment, from the delimiter row (left until it arrives).
    aligns: Vec<Align>,
    /// The delimiter row (`|---|:--:|`) has been drawn.
    delimited: bool,
}

/// How a table cell sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Center,
    Right,
}

impl Markdown {
    fn new(width: usize) -> Self {
        Self {
            width: width.max(1),
            fence: None,
            table: None,
        }
    }

    /// Appends the rows of one completed line (without its LF) to `out`, and keeps what it
    /// leaves open.
    fn line(&mut self, raw: &str, out: &mut Vec<Line<'static>>) {
        let line = visible(raw);
        let trimmed = line.trim_start();
        if let Some(fence) = &mut self.fence {
            if closes(fence, trimmed) {
                out.push(self.fence_row(&line));
                self.fence = None;
            } else {
                let spans: Vec<Span<'static>> = fence
                    .highlighter
                    .line(&line)
                    .into_iter()
                    .map(|(kind, text)| Span::styled(text.to_owned(), kind.style()))
                    .collect();
                out.extend(fold_spans(&spans, self.width, &Lead::none(), false));
            }
            return;
        }
        if is_table_row(trimmed) {
            match &mut self.table {
                Some(table) => table.row(trimmed, self.width, out),
                None => self.table = Some(Table::header(trimmed, self.width, out)),
            }
            return;
        }
        if let Some(table) = self.table.take() {
            out.extend(table.border(['└', '┴', '┘']));
        }
        if let Some((mark, len, info)) = opening_fence(trimmed) {
            out.push(self.fence_row(&line));
            self.fence = Some(Fence {
                mark,
                len,
                highlighter: Highlighter::new(Lang::from_fence(info)),
            });
            return;
        }
        block(&line, self.width, Lead::none(), out);
    }

    /// Appends the rows of a piece of a long line after its first: plain text, folded (its
    /// Markdown look was decided by the line's start).
    fn rest_of_line(&self, piece: &str, out: &mut Vec<Line<'static>>) {
        out.extend(fold(&visible(piece), self.width).into_iter().map(Line::raw));
    }

    /// A fence's line as shown: dimmed, cut to the width rather than folded.
    fn fence_row(&self, line: &str) -> Line<'static> {
        Line::from(Span::styled(crate::text::cut(line, self.width), dim()))
    }

    /// Appends the rows the unfinished end `partial` shows now, as if it were a completed
    /// line, and a table's bottom border if one is still open; the state is not changed.
    fn tail(&self, partial: &str, out: &mut Vec<Line<'static>>) {
        let mut after = self.clone();
        if !partial.is_empty() {
            after.line(partial, out);
        }
        if let Some(table) = &after.table {
            out.extend(table.border(['└', '┴', '┘']));
        }
    }
}

/// Dimmed: fences, rules, borders, markers that say what a line is.
fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

/// `` ``` `` or `~~~` (three or more) with an info string: the mark, how many, the info.
fn opening_fence(trimmed: &str) -> Option<(char, usize, &str)> {
    let mark = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = trimmed.len() - trimmed.trim_start_matches(mark).len();
    let info = trimmed[len..].trim();
    // A backtick fence's info string has no backtick (that would be inline code).
    (len >= 3 && !(mark == '`' && info.contains('`'))).then_some((mark, len, info))
}

/// Whether `trimmed` closes `fence`: the same mark, at least as many, nothing after.
fn closes(fence: &Fence, trimmed: &str) -> bool {
    let len = trimmed.len() - trimmed.trim_start_matches(fence.mark).len();
    len >= fence.len && trimmed[len..].trim().is_empty()
}

/// A table row begins with `|`.
fn is_table_row(trimmed: &str) -> bool {
    trimmed.starts_with('|')
}

/// A row's cells: split at the `|`s no backslash escapes, the outer ones dropped.
fn cells(trimmed: &str) -> Vec<&str> {
    let inner = trimmed.strip_prefix('|').unwrap_or(trimmed);
    let inner = match inner.strip_suffix('|') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => inner,
    };
    let mut cells = Vec::new();
    let mut from = 0;
    let mut escaped = false;
    for (at, c) in inner.char_indices() {
        match c {
            '\\' => escaped = !escaped,
            '|' if !escaped => {
                cells.push(inner[from..at].trim());
                from = at + 1;
            }
            _ => escaped = false,
        }
    }
    cells.push(inner[from..].trim());
    cells
}

/// A delimiter row's alignments (`---`, `:--`, `--:`, `:-:`), if `cells` are one.
fn delimiters(cells: &[&str]) -> Option<Vec<Align>> {
    cells
        .iter()
        .map(|cell| {
            let dashes = cell.trim_start_matches(':').trim_end_matches(':');
            if dashes.is_empty() || !dashes.chars().all(|c| c == '-') {
                return None;
            }
            Some(match (cell.starts_with(':'), cell.ends_with(':')) {
                (true, true) => Align::Center,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

impl Table {
    /// A table whose header is `trimmed`: its columns share the width equally, each at most
    /// [`COLUMN_MOST`] wide (what the rows below hold is not known yet, and a row once shown
    /// never moves). Draws the top border and the header, its cells centred (the alignments
    /// come in the row after it).
    fn header(trimmed: &str, width: usize, out: &mut Vec<Line<'static>>) -> Self {
        let cells = cells(trimmed);
        let count = cells.len();
        // Each column takes its width and ` │ ` around it; the row one `│` more.
        let room = width.saturating_sub(3 * count + 1);
        let share = room / count;
        let widths = if share >= 3 {
            let extra = room - share * count;
            (0..count)
                .map(|i| (share + usize::from(i < extra)).min(COLUMN_MOST))
                .collect()
        } else {
            Vec::new()
        };
        let table = Self {
            widths,
            aligns: vec![Align::Left; count],
            delimited: false,
        };
        out.extend(table.border(['┌', '┬', '┐']));
        table.cells_row(
            &cells,
            &vec![Align::Center; count],
            Style::new().add_modifier(Modifier::BOLD),
            width,
            out,
        );
        table
    }

    /// Draws a row after the header: the delimiter row as a rule (and its alignments kept),
    /// any other as cells.
    fn row(&mut self, trimmed: &str, width: usize, out: &mut Vec<Line<'static>>) {
        let cells = cells(trimmed);
        if !self.delimited
            && let Some(aligns) = delimiters(&cells)
        {
            self.delimited = true;
            for (kept, align) in self.aligns.iter_mut().zip(aligns) {
                *kept = align;
            }
            out.push(
                self.border(['├', '┼', '┤'])
                    .unwrap_or_else(|| Line::from(Span::styled("─".repeat(width), dim()))),
            );
            return;
        }
        self.cells_row(&cells, &self.aligns, Style::new(), width, out);
    }

    /// A border: `ends[0]`, each column's `─`, `ends[1]` between columns, `ends[2]`.
    /// None when the table has no grid (too narrow a screen).
    fn border(&self, ends: [char; 3]) -> Option<Line<'static>> {
        if self.widths.is_empty() {
            return None;
        }
        let columns: Vec<String> = self.widths.iter().map(|w| "─".repeat(w + 2)).collect();
        let row = format!(
            "{}{}{}",
            ends[0],
            columns.join(&ends[1].to_string()),
            ends[2]
        );
        Some(Line::from(Span::styled(row, dim())))
    }

    /// One row of cells, each folded to its column (the row as tall as its tallest cell), or
    /// written one after another when the screen has no room for a grid. A row with more cells
    /// than the header puts the rest into its last column.
    fn cells_row(
        &self,
        cells: &[&str],
        aligns: &[Align],
        base: Style,
        width: usize,
        out: &mut Vec<Line<'static>>,
    ) {
        let count = self.aligns.len();
        let mut shown: Vec<String> = cells.iter().take(count).map(|c| (*c).to_owned()).collect();
        if cells.len() > count {
            shown[count - 1] = cells[count - 1..].join(" | ");
        }
        if self.widths.is_empty() {
            let mut spans = Vec::new();
            for (i, cell) in shown.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(" │ ", dim()));
                }
                inline(cell, base, &mut spans);
            }
            out.extend(fold_spans(&spans, width, &Lead::none(), true));
            return;
        }
        let folded: Vec<Vec<Line<'static>>> = self
            .widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut spans = Vec::new();
                inline(shown.get(i).map_or("", String::as_str), base, &mut spans);
                fold_spans(&spans, *w, &Lead::none(), true)
            })
            .collect();
        let height = folded.iter().map(Vec::len).max().unwrap_or(1);
        for r in 0..height {
            let mut spans = vec![Span::styled("│ ", dim())];
            for (i, column) in folded.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(" │ ", dim()));
                }
                let cell = column.get(r).cloned().unwrap_or_default();
                let free = self.widths[i].saturating_sub(spans_width(&cell.spans));
                let before = match aligns[i] {
                    Align::Left => 0,
                    Align::Center => free / 2,
                    Align::Right => free,
                };
                spans.push(Span::raw(" ".repeat(before)));
                spans.extend(cell.spans);
                spans.push(Span::raw(" ".repeat(free - before)));
            }
            spans.push(Span::styled(" │", dim()));
            out.push(Line::from(spans));
        }
    }
}

/// What goes before a block's rows: `first` before its first row, `rest` before the others
/// (a list item's marker, then as much space; a quote's bars on every row; a diff line's
/// numbers, then blank columns).
#[derive(Debug, Clone, Default)]
pub(crate) struct Lead {
    first: Vec<Span<'static>>,
    rest: Vec<Span<'static>>,
}

impl Lead {
    /// Nothing before the rows.
    pub(crate) fn none() -> Self {
        Self::default()
    }

    /// This lead, then `first` before the first row and `rest` before the others.
    pub(crate) fn then(mut self, first: Span<'static>, rest: Span<'static>) -> Self {
        self.first.push(first);
        self.rest.push(rest);
        self
    }

    /// The same lead before every row.
    fn both(self, span: Span<'static>) -> Self {
        self.then(span.clone(), span)
    }
}

/// Appends the rows of a line outside fences and tables: a blank, a rule, a heading, a quote,
/// a list item or a paragraph's line.
fn block(line: &str, width: usize, lead: Lead, out: &mut Vec<Line<'static>>) {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if trimmed.is_empty() {
        out.push(Line::from(fit(&lead.first, width)));
    } else if is_rule(trimmed) {
        let mut spans = fit(&lead.first, width);
        let room = width.saturating_sub(spans_width(&spans));
        spans.push(Span::styled("─".repeat(room), dim()));
        out.push(Line::from(spans));
    } else if let Some((level, text)) = heading(trimmed) {
        let marks = format!("{} ", "#".repeat(level));
        let pad = " ".repeat(columns(indent) + marks.len());
        let lead = lead.then(
            Span::styled(format!("{indent}{marks}"), dim()),
            Span::raw(pad),
        );
        let mut style = Style::new().add_modifier(Modifier::BOLD);
        if level == 1 {
            style = style.add_modifier(Modifier::UNDERLINED);
        } else if level >= 3 {
            style = style.add_modifier(Modifier::ITALIC);
        }
        let mut spans = Vec::new();
        inline(text, style, &mut spans);
        out.extend(fold_spans(&spans, width, &lead, true));
    } else if let Some(rest) = trimmed.strip_prefix('>') {
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let bar = Span::styled(format!("{indent}│ "), dim());
        block(rest, width, lead.both(bar), out);
    } else if let Some((marker, text)) = list_item(trimmed, columns(indent)) {
        let pad = " ".repeat(columns(indent) + columns(&marker));
        let lead = lead.then(Span::raw(format!("{indent}{marker}")), Span::raw(pad));
        let mut spans = Vec::new();
        inline(text, Style::new(), &mut spans);
        out.extend(fold_spans(&spans, width, &lead, true));
    } else {
        // A paragraph's line; indented, its folded rows keep the indent.
        let lead = lead.then(
            Span::raw(indent.to_owned()),
            Span::raw(" ".repeat(columns(indent))),
        );
        let mut spans = Vec::new();
        inline(trimmed, Style::new(), &mut spans);
        out.extend(fold_spans(&spans, width, &lead, true));
    }
}

/// `***`, `---`, `___` (three or more, spaces between allowed, nothing else).
fn is_rule(trimmed: &str) -> bool {
    let Some(mark) = trimmed
        .chars()
        .next()
        .filter(|c| matches!(c, '*' | '-' | '_'))
    else {
        return false;
    };
    trimmed.chars().all(|c| c == mark || c == ' ') && trimmed.matches(mark).count() >= 3
}

/// `# text` to `###### text`: the level and the text.
fn heading(trimmed: &str) -> Option<(usize, &str)> {
    let level = trimmed.len() - trimmed.trim_start_matches('#').len();
    let text = &trimmed[level..];
    ((1..=6).contains(&level) && (text.is_empty() || text.starts_with(' ')))
        .then(|| (level, text.trim()))
}

/// A list item's marker as shown (`• `, `◦ `, `▪ ` by depth; `3. ` as written; a task's box)
/// and its text.
fn list_item(trimmed: &str, indent: usize) -> Option<(String, &str)> {
    let (marker, text) = if let Some(text) = ["- ", "* ", "+ "]
        .iter()
        .find_map(|mark| trimmed.strip_prefix(mark))
    {
        let bullet = ["•", "◦", "▪"][(indent / 2) % 3];
        (format!("{bullet} "), text)
    } else {
        let digits = trimmed.len()
            - trimmed
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        let after = &trimmed[digits..];
        let text = after
            .strip_prefix(". ")
            .or_else(|| after.strip_prefix(") "))?;
        if !(1..=9).contains(&digits) {
            return None;
        }
        (format!("{} ", &trimmed[..digits + 1]), text)
    };
    let text = text.trim_start();
    Some(
        match ["[ ] ", "[x] ", "[X] "]
            .iter()
            .position(|task| text.starts_with(task))
        {
            Some(0) => (format!("{marker}☐ "), &text[4..]),
            Some(_) => (format!("{marker}☑ "), &text[4..]),
            None => (marker, text),
        },
    )
}

/// An inline construct found at some point of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inline<'a> {
    /// `` `code` ``: its backticks and the code between them.
    Code { ticks: &'a str, code: &'a str },
    /// Emphasis, strong or struck text: what is inside and how it looks.
    Styled { inside: &'a str, look: Modifier },
    /// `[label](url)` or `![alt](url)`; an autolink `<url>` has no label.
    Link { label: &'a str, url: &'a str },
}

/// Appends `text`'s inline Markdown as spans over `base`: `code`, **strong**, *emphasis* and
/// _emphasis_, ~~strike~~, [links](url), <autolinks>, backslash escapes. A mark that closes
/// nothing on its line is shown as it is.
fn inline(text: &str, base: Style, out: &mut Vec<Span<'static>>) {
    let mut plain = String::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let c = rest.chars().next().unwrap_or(' ');
        // A backslash before punctuation shows the punctuation as it is.
        if c == '\\'
            && let Some(escaped) = rest[1..].chars().next().filter(char::is_ascii_punctuation)
        {
            plain.push(escaped);
            at += 2;
            continue;
        }
        let found = match c {
            '`' => code_span(rest),
            '*' | '_' | '~' => emphasis(text, at),
            '[' | '!' => link(rest),
            '<' => autolink(rest),
            _ => None,
        };
        let Some((found, len)) = found else {
            // The whole run of a mark, so `**` that closes nothing is not retried as `*`.
            let run = rest.len() - rest.trim_start_matches(c).len();
            let len = if matches!(c, '*' | '_' | '~' | '`') {
                run
            } else {
                c.len_utf8()
            };
            plain.push_str(&rest[..len]);
            at += len;
            continue;
        };
        at += len;
        if !plain.is_empty() {
            out.push(Span::styled(std::mem::take(&mut plain), base));
        }
        let dim = base.add_modifier(Modifier::DIM);
        let underlined = base.fg(Color::Blue).add_modifier(Modifier::UNDERLINED);
        match found {
            // The backticks stay, dimmed: without colour they still set the code apart.
            Inline::Code { ticks, code } => out.extend([
                Span::styled(ticks.to_owned(), dim),
                Span::styled(code.to_owned(), base.fg(Color::Cyan)),
                Span::styled(ticks.to_owned(), dim),
            ]),
            Inline::Styled { inside, look } => inline(inside, base.add_modifier(look), out),
            Inline::Link { label, url } if label.is_empty() || label == url => {
                out.push(Span::styled(url.to_owned(), underlined));
            }
            Inline::Link { label, url } => {
                inline(label, underlined, out);
                if !url.is_empty() {
                    out.push(Span::styled(format!(" ({url})"), dim));
                }
            }
        }
    }
    if !plain.is_empty() {
        out.push(Span::styled(plain, base));
    }
}

/// `` `code` `` at the start of `rest` (the same number of backticks closes it), and how much
/// it takes.
fn code_span(rest: &str) -> Option<(Inline<'_>, usize)> {
    let ticks = rest.len() - rest.trim_start_matches('`').len();
    let mut from = ticks;
    let close = loop {
        let found = from + rest[from..].find('`')?;
        let run = rest[found..].len() - rest[found..].trim_start_matches('`').len();
        if run == ticks {
            break found;
        }
        from = found + run;
    };
    let code = Inline::Code {
        ticks: &rest[..ticks],
        code: &rest[ticks..close],
    };
    Some((code, close + ticks))
}

/// `*x*`, `_x_`, `**x**`, `__x__`, `***x***`, `~~x~~` at byte `at` of `text`, and how much it
/// takes. An opening must be followed by something other than a space and a closing preceded
/// by one; `_` must not be inside a word (`snake_case` stays as it is).
fn emphasis(text: &str, at: usize) -> Option<(Inline<'_>, usize)> {
    let rest = &text[at..];
    let mark = rest.chars().next()?;
    let run = rest.len() - rest.trim_start_matches(mark).len();
    let look = match (mark, run) {
        ('~', 2) => Modifier::CROSSED_OUT,
        ('*' | '_', 1) => Modifier::ITALIC,
        ('*' | '_', 2) => Modifier::BOLD,
        ('*' | '_', 3) => Modifier::BOLD | Modifier::ITALIC,
        _ => return None,
    };
    let word_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    if rest[run..].starts_with(char::is_whitespace)
        || rest.len() == run
        || (mark == '_' && word_char(text[..at].chars().next_back()))
    {
        return None;
    }
    // The next run of exactly as many marks that can close.
    let mut from = run;
    let close = loop {
        let found = from + rest[from..].find(mark)?;
        let len = rest[found..].len() - rest[found..].trim_start_matches(mark).len();
        let before = rest[..found].chars().next_back();
        let after = rest[found + len..].chars().next();
        let escaped = before == Some('\\');
        let inside_a_word = mark == '_' && word_char(after);
        if len == run && !escaped && !before.is_some_and(char::is_whitespace) && !inside_a_word {
            break found;
        }
        from = found + len;
    };
    let styled = Inline::Styled {
        inside: &rest[run..close],
        look,
    };
    Some((styled, close + run))
}

/// `[text](url)` (or an image, `![alt](url)`) at the start of `rest`, and how much it takes.
fn link(rest: &str) -> Option<(Inline<'_>, usize)> {
    let open = usize::from(rest.starts_with('!'));
    if !rest[open..].starts_with('[') {
        return None;
    }
    let label_end = open + closing(&rest[open..], '[', ']')?;
    let after = &rest[label_end + 1..];
    if !after.starts_with('(') {
        return None;
    }
    let target_end = closing(after, '(', ')')?;
    let link = Inline::Link {
        label: &rest[open + 1..label_end],
        // The address, without a title (`(url "title")`).
        url: after[1..target_end].split_whitespace().next().unwrap_or(""),
    };
    Some((link, label_end + 1 + target_end + 1))
}

/// Where the bracket that `text`'s first character opens closes (nesting counted, escapes
/// skipped).
fn closing(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            _ if c == open => depth += 1,
            _ if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// `<https://…>` or `<mailto:…>` at the start of `rest`, and how much it takes.
fn autolink(rest: &str) -> Option<(Inline<'_>, usize)> {
    let end = rest.find('>')?;
    let url = &rest[1..end];
    let scheme = ["http://", "https://", "mailto:"]
        .iter()
        .any(|s| url.starts_with(s));
    if !scheme || url.contains(char::is_whitespace) {
        return None;
    }
    Some((Inline::Link { label: "", url }, end + 1))
}

/// `spans` without the spaces they end with (where a row of prose was broken).
fn trim_end(spans: &mut Vec<Span<'static>>) {
    while let Some(span) = spans.last_mut() {
        let kept = span.content.trim_end_matches(' ').len();
        if kept > 0 {
            span.content.to_mut().truncate(kept);
            return;
        }
        spans.pop();
    }
}

/// The display width of spans.
fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| columns(&s.content)).sum()
}

/// `spans` cut to leave at least two columns of `width` free (room for a wide character) (a lead deeper than the screen is
/// wide loses its end rather than pushing the text off the screen).
fn fit(spans: &[Span<'static>], width: usize) -> Vec<Span<'static>> {
    let room = width.saturating_sub(2);
    if spans_width(spans) <= room {
        return spans.to_vec();
    }
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        let mut kept = String::new();
        for c in span.content.chars() {
            let w = crate::text::char_width(c);
            if used + w > room {
                break;
            }
            kept.push(c);
            used += w;
        }
        out.push(Span::styled(kept, span.style));
        if used >= room {
            break;
        }
    }
    out
}

/// `spans` folded to `width` columns with `lead` before the rows (its `first` before the first
/// row, its `rest` before the others). Folding goes by [`fold`]: after the last space that
/// fits, else wherever the width runs out; each span keeps its style across a fold. In prose
/// (`prose`), the spaces a row was broken at are dropped (code keeps every space).
pub(crate) fn fold_spans(
    spans: &[Span<'static>],
    width: usize,
    lead: &Lead,
    prose: bool,
) -> Vec<Line<'static>> {
    let first = fit(&lead.first, width);
    let rest = fit(&lead.rest, width);
    let room = width
        .saturating_sub(spans_width(&first).max(spans_width(&rest)))
        .max(1);
    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
    let mut out = Vec::new();
    // Where the next row begins: a span and a byte inside it.
    let (mut span, mut offset) = (0, 0);
    let rows = fold(&text, room);
    let last = rows.len() - 1;
    for (n, row) in rows.into_iter().enumerate() {
        let mut left = row.len();
        let mut line = if n == 0 { first.clone() } else { rest.clone() };
        let mut skip = usize::from(n > 0 && prose && row.starts_with(' '));
        while left > 0 {
            let content = &spans[span].content;
            let take = (content.len() - offset).min(left);
            let piece = &content[offset + skip.min(take)..offset + take];
            if !piece.is_empty() {
                line.push(Span::styled(piece.to_owned(), spans[span].style));
            }
            skip = skip.saturating_sub(take);
            left -= take;
            offset += take;
            if offset == content.len() {
                span += 1;
                offset = 0;
            }
        }
        if prose && n < last {
            trim_end(&mut line);
        }
        // A row that was only the space it was broken at.
        if n > 0 && prose && row.trim().is_empty() && !row.is_empty() {
            continue;
        }
        out.push(Line::from(line));
    }
    out
}

/// What tests of drawn rows look at.
#[cfg(test)]
pub(crate) mod shown {
    use ratatui_core::style::Style;
    use ratatui_core::text::Line;

    /// Each row's text.
    pub(crate) fn texts(rows: &[Line<'_>]) -> Vec<String> {
        rows.iter().map(ToString::to_string).collect()
    }

    /// The style of the first span of `rows` whose text is `text`.
    pub(crate) fn style_of(rows: &[Line<'_>], text: &str) -> Style {
        rows.iter()
            .flat_map(|row| &row.spans)
            .find(|span| span.content == text)
            .map(|span| span.style)
            .unwrap_or_else(|| panic!("no span {text:?} in {:?}", texts(rows)))
    }
}

#[cfg(test)]
mod tests {
    use super::shown::{style_of, texts};
    use super::*;
    use quickcheck::{Arbitrary, Gen, quickcheck};

    /// The rows of a whole `text` at `width`.
    fn rows(text: &str, width: usize) -> Vec<Line<'static>> {
        let mut stream = Stream::new(width);
        stream.update(text);
        stream.rows().to_vec()
    }

    fn has(style: Style, modifier: Modifier) -> bool {
        style.add_modifier.contains(modifier)
    }

    #[test]
    fn a_line_without_end_is_kept_a_piece_at_a_time_and_streams_as_it_renders_whole() {
        let text = format!(
            "**start** {}é{}",
            "y".repeat(3 * LONG_LINE),
            "z".repeat(LONG_LINE)
        );
        let mut whole = Stream::new(80);
        whole.update(&text);
        let mut streamed = Stream::new(80);
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + 997).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            streamed.update(&text[..end]);
            // What a frame renders again is the unfinished piece only.
            let open = streamed.rows().len() - streamed.committed();
            assert!(open <= LONG_LINE / 80 + 2, "{open} rows rendered again");
            at = end;
        }
        assert_eq!(streamed.rows(), whole.rows());
        let start = whole.rows()[0].spans.iter().find(|s| s.content == "start");
        assert!(
            start.is_some_and(|s| has(s.style, Modifier::BOLD)),
            "the line's start keeps its look: {:?}",
            whole.rows()[0]
        );
        let shown: String = (whole.rows().iter())
            .flat_map(|row| row.spans.iter().map(|s| s.content.to_string()))
            .collect();
        assert_eq!(
            shown.replace(' ', ""),
            text.replace(['*', ' '], ""),
            "every character shown"
        );
    }

    #[test]
    fn headings_are_bold_with_their_level_shown() {
        let shown = rows("# One\n## Two\n#### Four *x*\n#nope", 40);
        assert_eq!(texts(&shown), ["# One", "## Two", "#### Four x", "#nope"]);
        assert!(has(style_of(&shown, "# "), Modifier::DIM));
        let one = style_of(&shown, "One");
        assert!(has(one, Modifier::BOLD) && has(one, Modifier::UNDERLINED));
        let two = style_of(&shown, "Two");
        assert!(has(two, Modifier::BOLD) && !has(two, Modifier::UNDERLINED));
        let x = style_of(&shown, "x");
        assert!(has(x, Modifier::BOLD) && has(x, Modifier::ITALIC));
        assert_eq!(style_of(&shown, "#nope"), Style::new());
    }

    #[test]
    fn list_items_hang_their_folded_rows_under_the_text() {
        let shown = rows(
            "- one two three four\n  - nested\n    * deeper\n3. third item here\n- [ ] todo\n- [x] done",
            14,
        );
        assert_eq!(
            texts(&shown),
            [
                "• one two",
                "  three four",
                "  ◦ nested",
                "    ▪ deeper",
                "3. third item",
                "   here",
                "• ☐ todo",
                "• ☑ done",
            ]
        );
    }

    #[test]
    fn block_quotes_carry_their_bar_on_every_row() {
        let shown = rows("> quoted words here\n> > - inner", 12);
        assert_eq!(texts(&shown), ["│ quoted", "│ words here", "│ │ • inner"]);
        assert!(has(style_of(&shown, "│ "), Modifier::DIM));
    }

    #[test]
    fn inline_marks_become_styles() {
        let shown = rows(
            "a `code` **bold** *it* _it2_ ~~gone~~ snake_case_name 2 * 3 **open",
            100,
        );
        assert_eq!(
            texts(&shown),
            ["a `code` bold it it2 gone snake_case_name 2 * 3 **open"]
        );
        assert_eq!(style_of(&shown, "code").fg, Some(Color::Cyan));
        assert!(has(style_of(&shown, "`"), Modifier::DIM));
        assert!(has(style_of(&shown, "bold"), Modifier::BOLD));
        assert!(has(style_of(&shown, "it"), Modifier::ITALIC));
        assert!(has(style_of(&shown, "it2"), Modifier::ITALIC));
        assert!(has(style_of(&shown, "gone"), Modifier::CROSSED_OUT));
        let words = shown[0].spans.last().expect("a span");
        assert_eq!(words.content, " snake_case_name 2 * 3 **open");
        assert_eq!(words.style, Style::new());
    }

    #[test]
    fn emphasis_nests_and_escapes_stay_literal() {
        let shown = rows(r"**bold *both* bold** \*not\* `a*b*`", 80);
        assert_eq!(texts(&shown), ["bold both bold *not* `a*b*`"]);
        let both = style_of(&shown, "both");
        assert!(has(both, Modifier::BOLD) && has(both, Modifier::ITALIC));
        assert_eq!(style_of(&shown, "a*b*").fg, Some(Color::Cyan));
    }

    #[test]
    fn links_show_their_text_underlined_and_their_address_dimmed() {
        let shown = rows(
            "see [the **docs**](https://x.dev/a \"t\") or <https://y.dev> or [https://z](https://z) or [broken](",
            200,
        );
        assert_eq!(
            texts(&shown),
            ["see the docs (https://x.dev/a) or https://y.dev or https://z or [broken]("]
        );
        assert!(has(style_of(&shown, "the "), Modifier::UNDERLINED));
        let docs = style_of(&shown, "docs");
        assert!(has(docs, Modifier::UNDERLINED) && has(docs, Modifier::BOLD));
        assert!(has(style_of(&shown, " (https://x.dev/a)"), Modifier::DIM));
        assert!(has(style_of(&shown, "https://y.dev"), Modifier::UNDERLINED));
    }

    #[test]
    fn rules_span_the_width() {
        let shown = rows("---\n* * *\n> ___", 6);
        assert_eq!(texts(&shown), ["──────", "──────", "│ ────"]);
    }

    #[test]
    fn tables_draw_each_row_in_columns_fixed_by_the_header() {
        let table = "| Name | Value | N |\n|:-----|:-----:|--:|\n| a | middle | 7 |\n| long cell text | x | 12 |\n| extra | y | 1 | more |\n\nafter";
        let shown = rows(table, 40);
        assert_eq!(
            texts(&shown),
            [
                "┌────────────┬────────────┬────────────┐",
                "│    Name    │   Value    │     N      │",
                "├────────────┼────────────┼────────────┤",
                "│ a          │   middle   │          7 │",
                "│ long cell  │     x      │         12 │",
                "│ text       │            │            │",
                "│ extra      │     y      │   1 | more │",
                "└────────────┴────────────┴────────────┘",
                "",
                "after",
            ]
        );
        assert!(has(style_of(&shown, "Name"), Modifier::BOLD));
        assert!(!has(style_of(&shown, "a"), Modifier::BOLD));
    }

    #[test]
    fn a_table_still_open_is_closed_below_its_last_row_without_reflowing_it() {
        let mut stream = Stream::new(20);
        stream.update("| a | b |\n");
        let before = texts(stream.rows());
        assert_eq!(
            before,
            [
                "┌─────────┬────────┐",
                "│    a    │   b    │",
                "└─────────┴────────┘"
            ]
        );
        stream.update("| a | b |\n| c | d |\n");
        let after = texts(stream.rows());
        assert_eq!(after[..2], before[..2]);
        assert_eq!(after[2], "│ c       │ d      │");
        assert_eq!(after[3], before[2]);
    }

    #[test]
    fn a_table_on_a_narrow_screen_writes_its_cells_in_a_row() {
        let shown = rows(
            "| one | two | three | four |\n|---|---|---|---|\n| 1 | 2 | 3 | 4 |",
            16,
        );
        assert_eq!(
            texts(&shown),
            [
                "one │ two │",
                "three │ four",
                "────────────────",
                "1 │ 2 │ 3 │ 4"
            ]
        );
    }

    #[test]
    fn fenced_code_is_coloured_by_its_language_and_carries_its_state() {
        let shown = rows(
            "```rust\nfn main() { /* a\n``` still comment */ }\n```\n~~~~\n```\n~~~~\nafter",
            40,
        );
        assert_eq!(
            texts(&shown),
            [
                "```rust",
                "fn main() { /* a",
                "``` still comment */ }",
                "```",
                "~~~~",
                "```",
                "~~~~",
                "after",
            ]
        );
        assert!(has(style_of(&shown, "```rust"), Modifier::DIM));
        assert_eq!(style_of(&shown, "fn").fg, Some(Color::Magenta));
        assert!(has(style_of(&shown, "``` still comment */"), Modifier::DIM));
        assert_eq!(style_of(&shown, "```").add_modifier, Modifier::DIM);
        assert_eq!(style_of(&shown, "after"), Style::new());
    }

    #[test]
    fn code_in_an_unknown_language_is_plain_and_folds_keeping_its_spaces() {
        let shown = rows("```text\nfn    x y\n```", 6);
        assert_eq!(texts(&shown), ["```te…", "fn    ", "x y", "```"]);
        assert_eq!(style_of(&shown, "fn    "), Style::new());
    }

    #[test]
    fn wide_characters_fold_whole_and_controls_become_pictures() {
        let shown = rows("- 日本語のテキスト\n\u{1b}[31mred\u{7}", 10);
        assert_eq!(
            texts(&shown),
            ["• 日本語の", "  テキスト", "\u{241b}[31mred\u{2407}"]
        );
        assert!(shown.iter().all(|row| row.width() <= 10));
    }

    /// An answer written from Markdown's pieces, so that random text hits every construct.
    #[derive(Debug, Clone)]
    struct Answer(String);

    impl Arbitrary for Answer {
        fn arbitrary(g: &mut Gen) -> Self {
            let pieces = [
                "# ",
                "## ",
                "- ",
                "  - ",
                "1. ",
                "> ",
                "```rust\n",
                "```\n",
                "~~~\n",
                "| a | b |\n",
                "|---|:-:|\n",
                "| long cell words | 日本語 |\n",
                "**",
                "*",
                "_",
                "~~",
                "`",
                "[x](u)",
                "<https://a.b>",
                "---\n",
                "\n",
                "\n\n",
                "日本語",
                "\t",
                "\u{1b}[2J",
                "\r",
                "word ",
                "fn ",
                "/* ",
                " */",
                "\"",
                "'",
                "\\",
                "- [ ] ",
                "  ",
                "|",
            ];
            let len = usize::arbitrary(g) % 60;
            let mut text = String::new();
            for _ in 0..len {
                if bool::arbitrary(g) {
                    text.push_str(g.choose(&pieces).expect("pieces"));
                } else {
                    text.push(char::arbitrary(g));
                }
            }
            Self(text)
        }

        fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
            Box::new(self.0.shrink().map(Self))
        }
    }

    quickcheck! {
        /// Streamed in any chunks, an answer's rows at every step are the rows of the text so
        /// far drawn whole, and the rows of its completed lines are already the final rows:
        /// nothing shown ever reflows. No control character reaches a cell, and no row is wider
        /// than the screen (two columns at least: a wide character's).
        fn streaming_in_chunks_never_reflows_a_completed_line(
            answer: Answer,
            cuts: Vec<u8>,
            width: u8
        ) -> bool {
            let text = answer.0;
            let width = usize::from(width % 60) + 2;
            let whole = rows(&text, width);
            let mut stream = Stream::new(width);
            let mut at = 0;
            let mut cuts = cuts.into_iter();
            loop {
                let step = usize::from(cuts.next().unwrap_or(u8::MAX) % 16) + 1;
                at = (at + step).min(text.len());
                while !text.is_char_boundary(at) {
                    at += 1;
                }
                stream.update(&text[..at]);
                let shown = stream.rows();
                let committed = stream.committed();
                if shown != rows(&text[..at], width).as_slice()
                    || shown[..committed] != whole[..committed]
                    || shown.iter().flat_map(|row| &row.spans).any(|span| {
                        span.content.chars().any(char::is_control)
                    })
                    || shown.iter().any(|row| spans_width(&row.spans) > width)
                {
                    return false;
                }
                if at == text.len() {
                    return shown == whole.as_slice();
                }
            }
        }
    }
}
