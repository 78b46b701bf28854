//! The conversation as the screen shows it: one cell per thing that happened (a message, an
//! answer, thinking, a tool call, a notice), each with its rows cached per width, so drawing a
//! frame costs what the visible cells cost, at message 10 as at message 10,000.

use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use crate::text::{fold, visible};

/// The most lines of a running command's output a tool cell shows.
const OUTPUT_TAIL: usize = 5;

/// The most characters of a tool's output kept for showing (its tail).
const OUTPUT_KEEP: usize = 64 * 1024;

/// What one cell is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    /// What the person sent.
    User(String),
    /// The model's answer, as it streams.
    Answer(String),
    /// The model's thinking; folded to one line once its answer or a tool follows.
    Thinking { text: String, folded: bool },
    /// A tool call and how it went.
    Tool(ToolCell),
    /// One line from Luxe: a turn's usage, a retry, a compaction.
    Note(String),
    /// One line saying what went wrong.
    Error(String),
}

/// A tool call as its cell shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolCell {
    /// The call's id, to find it again.
    pub call_id: String,
    /// `read src/main.rs`, `bash cargo test`, `mcp__server__tool …`.
    pub title: String,
    /// The output so far (a running command's), or the diff of a write or an edit.
    pub body: String,
    /// `None` while it runs; then ok, error, denied or interrupted.
    pub ended: Option<String>,
}

/// A cell and its rows at the last width drawn.
#[derive(Debug, Clone)]
struct Cached {
    cell: Cell,
    rows: Option<(u16, Vec<Line<'static>>)>,
}

/// Every cell, oldest first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Transcript {
    cells: Vec<Cached>,
    /// Thinking is shown unfolded (Ctrl+T).
    unfold_thinking: bool,
}

impl Transcript {
    /// Adds a cell at the end.
    pub(crate) fn push(&mut self, cell: Cell) {
        self.fold_open_thinking();
        self.cells.push(Cached { cell, rows: None });
    }

    /// How many cells there are.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    /// The cells, oldest first.
    #[cfg(test)]
    pub(crate) fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter().map(|c| &c.cell)
    }

    /// How many cells hold folded rows (drawing folds only the cells it shows).
    #[cfg(test)]
    pub(crate) fn folded_cells(&self) -> usize {
        self.cells.iter().filter(|c| c.rows.is_some()).count()
    }

    /// Appends a streamed piece of the answer (a new cell if the last is not an answer).
    pub(crate) fn answer_delta(&mut self, delta: &str) {
        match self.cells.last_mut() {
            Some(Cached {
                cell: Cell::Answer(text),
                rows,
            }) => {
                text.push_str(delta);
                *rows = None;
            }
            _ => self.push(Cell::Answer(delta.to_owned())),
        }
    }

    /// Appends a streamed piece of thinking.
    pub(crate) fn thinking_delta(&mut self, delta: &str) {
        match self.cells.last_mut() {
            Some(Cached {
                cell: Cell::Thinking { text, .. },
                rows,
            }) => {
                text.push_str(delta);
                *rows = None;
            }
            _ => self.push(Cell::Thinking {
                text: delta.to_owned(),
                folded: false,
            }),
        }
    }

    /// The tool cell of `call_id`, changed by `change`.
    pub(crate) fn tool(&mut self, call_id: &str, change: impl FnOnce(&mut ToolCell)) {
        let found = self.cells.iter_mut().rev().find_map(|cached| match cached {
            Cached {
                cell: Cell::Tool(tool),
                rows,
            } if tool.call_id == call_id => Some((tool, rows)),
            _ => None,
        });
        if let Some((tool, rows)) = found {
            change(tool);
            if tool.body.len() > OUTPUT_KEEP {
                let mut from = tool.body.len() - OUTPUT_KEEP;
                while !tool.body.is_char_boundary(from) {
                    from += 1;
                }
                tool.body.drain(..from);
            }
            *rows = None;
        }
    }

    /// Shows thinking whole, or folded to a line.
    pub(crate) fn toggle_thinking(&mut self) {
        self.unfold_thinking = !self.unfold_thinking;
        for cached in &mut self.cells {
            if matches!(cached.cell, Cell::Thinking { .. }) {
                cached.rows = None;
            }
        }
    }

    /// The thinking being streamed ends where anything else begins.
    fn fold_open_thinking(&mut self) {
        if let Some(Cached {
            cell: Cell::Thinking { folded, .. },
            rows,
        }) = self.cells.last_mut()
        {
            *folded = true;
            *rows = None;
        }
    }

    /// The last `height + skip` rows at `width`, without the last `skip`: the rows a view
    /// scrolled `skip` rows up from the bottom shows, oldest first. Only the cells those rows
    /// come from are folded (and then kept).
    pub(crate) fn bottom_rows(
        &mut self,
        width: u16,
        height: usize,
        skip: usize,
    ) -> Vec<Line<'static>> {
        let want = height + skip;
        let mut taken: Vec<Line<'static>> = Vec::new();
        let unfold = self.unfold_thinking;
        for cached in self.cells.iter_mut().rev() {
            if taken.len() >= want {
                break;
            }
            let rows = match &cached.rows {
                Some((w, rows)) if *w == width => rows,
                _ => {
                    let rows = rows_of(&cached.cell, width, unfold);
                    &cached.rows.insert((width, rows)).1
                }
            };
            // A blank row between cells.
            taken.push(Line::default());
            taken.extend(rows.iter().rev().cloned());
        }
        taken.truncate(want);
        taken.drain(..skip.min(taken.len()));
        taken.reverse();
        taken
    }

    /// How many rows there are at `width` in all (for how far the view may scroll), counting
    /// only as far as `at_most`.
    pub(crate) fn rows_up_to(&mut self, width: u16, at_most: usize) -> usize {
        let mut count = 0;
        let unfold = self.unfold_thinking;
        for cached in self.cells.iter_mut().rev() {
            if count >= at_most {
                break;
            }
            let rows = match &cached.rows {
                Some((w, rows)) if *w == width => rows,
                _ => {
                    &cached
                        .rows
                        .insert((width, rows_of(&cached.cell, width, unfold)))
                        .1
                }
            };
            count += rows.len() + 1;
        }
        count.min(at_most)
    }
}

/// The rows of `cell` at `width`.
fn rows_of(cell: &Cell, width: u16, unfold_thinking: bool) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    match cell {
        Cell::User(text) => prefixed(text, width, "› ", Style::new().fg(Color::Cyan)),
        Cell::Answer(text) => markdown_rows(text, width),
        Cell::Thinking { text, folded } => {
            let dim = Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC);
            if *folded && !unfold_thinking {
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let line = format!("✻ Thinking: {}", visible(first));
                vec![Line::styled(crate::text::cut(&line, width), dim)]
            } else {
                prefixed(text, width, "✻ ", dim)
            }
        }
        Cell::Tool(tool) => tool_rows(tool, width),
        Cell::Note(text) => prefixed(text, width, "· ", Style::new().add_modifier(Modifier::DIM)),
        Cell::Error(text) => prefixed(text, width, "✗ ", Style::new().fg(Color::Red)),
    }
}

/// `text` folded to `width` with `mark` before its first row and as much space before the
/// others.
fn prefixed(text: &str, width: usize, mark: &str, style: Style) -> Vec<Line<'static>> {
    let indent = crate::text::width(mark);
    let inner = width.saturating_sub(indent).max(1);
    let mut out = Vec::new();
    for line in text.split('\n') {
        for row in fold(&visible(line), inner) {
            let lead = if out.is_empty() {
                mark.to_owned()
            } else {
                " ".repeat(indent)
            };
            out.push(Line::from(vec![
                Span::styled(lead, style),
                Span::styled(row, style),
            ]));
        }
    }
    out
}

/// An answer's rows: Markdown's headings, list items, emphasis markers and fenced code told
/// apart line by line, so what is shown never reflows as the model writes (a line's look
/// depends on that line and on whether a fence is open, never on what comes after).
fn markdown_rows(text: &str, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.split('\n') {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```");
        let style = if fence || in_code {
            Style::new().fg(Color::Yellow)
        } else if trimmed.starts_with('#') {
            Style::new().add_modifier(Modifier::BOLD)
        } else if trimmed.starts_with("> ") {
            Style::new().add_modifier(Modifier::ITALIC)
        } else {
            Style::new()
        };
        let shown = if !in_code && !fence && trimmed.starts_with('#') {
            trimmed.trim_start_matches('#').trim_start().to_owned()
        } else if !in_code && (trimmed.starts_with("- ") || trimmed.starts_with("* ")) {
            let indent = line.len() - trimmed.len();
            format!("{}• {}", " ".repeat(indent), &trimmed[2..])
        } else {
            line.to_owned()
        };
        if fence {
            in_code = !in_code;
        }
        for row in fold(&visible(&shown), width) {
            out.push(Line::styled(row, style));
        }
    }
    out
}

/// A tool cell: its title and state, then the last lines of its output while it runs, or its
/// diff (added lines green, removed red) once a write or an edit ended.
fn tool_rows(tool: &ToolCell, width: usize) -> Vec<Line<'static>> {
    let (mark, mark_style) = match tool.ended.as_deref() {
        None => ("⋯ ", Style::new().fg(Color::Yellow)),
        Some("ok") => ("✓ ", Style::new().fg(Color::Green)),
        Some(_) => ("✗ ", Style::new().fg(Color::Red)),
    };
    let mut out = prefixed(
        &tool.title,
        width,
        mark,
        mark_style.add_modifier(Modifier::BOLD),
    );
    if let Some(ended) = tool.ended.as_deref().filter(|e| *e != "ok") {
        out.push(Line::styled(
            format!("  {ended}"),
            Style::new().fg(Color::Red),
        ));
    }
    let body: Vec<&str> = tool.body.lines().collect();
    let shown = if tool.ended.is_none() {
        &body[body.len().saturating_sub(OUTPUT_TAIL)..]
    } else {
        &body[..body.len().min(40)]
    };
    for line in shown {
        let style = if line.starts_with('+') && !line.starts_with("+++") {
            Style::new().fg(Color::Green)
        } else if line.starts_with('-') && !line.starts_with("---") {
            Style::new().fg(Color::Red)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        };
        for row in fold(&visible(line), width.saturating_sub(2).max(1)) {
            out.push(Line::styled(format!("  {row}"), style));
        }
    }
    if tool.ended.is_some() && body.len() > 40 {
        out.push(Line::styled(
            format!("  … {} more lines", body.len() - 40),
            Style::new().add_modifier(Modifier::DIM),
        ));
    }
    out
}
