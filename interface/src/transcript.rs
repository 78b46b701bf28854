//! The conversation as the screen shows it: one cell per thing that happened (a message, an
//! answer, thinking, a tool call, a notice), each with its rows cached per width, so drawing a
//! frame costs what the visible cells cost, at message 10 as at message 10,000.

use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use crate::diff_rows::{diff_rows, is_diff};
use crate::markdown::Stream;
use crate::text::{fold, visible};

/// The most lines of a running command's output a tool cell shows.
const OUTPUT_TAIL: usize = 5;

/// The most lines of an ended tool's output or diff a tool cell shows (the rest are counted).
const OUTPUT_HEAD: usize = 40;

/// The most characters of a tool's output kept for showing (its tail).
const OUTPUT_KEEP: usize = 64 * 1024;

/// What one cell of the transcript shows: a message, an answer, thinking, a tool call, or a line
/// from luxe.
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
    rows: Rows,
}

/// A cell's rows, kept until the cell changes or the width does.
#[derive(Debug, Clone)]
enum Rows {
    /// Not folded yet, or the cell changed since.
    Stale,
    /// The rows at a width.
    Folded(u16, Vec<Line<'static>>),
    /// An answer's rows as it streams: when it grows, only its new lines are rendered.
    Streamed {
        stream: Stream,
        /// Whether the rows show the answer as it is now.
        current: bool,
    },
}

impl Cached {
    fn new(cell: Cell) -> Self {
        Self {
            cell,
            rows: Rows::Stale,
        }
    }

    /// The cell's rows at `width`, folded only if they are not kept already.
    fn rows(&mut self, width: u16, unfold_thinking: bool) -> &[Line<'static>] {
        let kept = match &self.rows {
            Rows::Folded(w, _) => *w == width,
            Rows::Streamed { stream, current } => {
                *current && stream.width() == usize::from(width.max(1))
            }
            Rows::Stale => false,
        };
        if !kept {
            let before = std::mem::replace(&mut self.rows, Rows::Stale);
            self.rows = rows_of(&self.cell, width, unfold_thinking, before);
        }
        match &self.rows {
            Rows::Folded(_, rows) => rows,
            Rows::Streamed { stream, .. } => stream.rows(),
            Rows::Stale => &[],
        }
    }
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
        self.cells.push(Cached::new(cell));
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
        self.cells
            .iter()
            .filter(|c| !matches!(c.rows, Rows::Stale))
            .count()
    }

    /// Appends a streamed piece of the answer (a new cell if the last is not an answer).
    pub(crate) fn answer_delta(&mut self, delta: &str) {
        match self.cells.last_mut() {
            Some(Cached {
                cell: Cell::Answer(text),
                rows,
            }) => {
                text.push_str(delta);
                // The lines it completed are rendered when the rows are next asked for.
                if let Rows::Streamed { current, .. } = rows {
                    *current = false;
                }
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
                *rows = Rows::Stale;
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
            *rows = Rows::Stale;
        }
    }

    /// Shows thinking whole, or folded to a line.
    pub(crate) fn toggle_thinking(&mut self) {
        self.unfold_thinking = !self.unfold_thinking;
        for cached in &mut self.cells {
            if matches!(cached.cell, Cell::Thinking { .. }) {
                cached.rows = Rows::Stale;
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
            *rows = Rows::Stale;
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
            let rows = cached.rows(width, unfold);
            // A blank row between cells.
            taken.push(Line::default());
            // Only the rows that will show are copied: a long answer has a thousand.
            let needed = want.saturating_sub(taken.len());
            taken.extend(rows.iter().rev().take(needed).cloned());
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
            count += cached.rows(width, unfold).len() + 1;
        }
        count.min(at_most)
    }
}

/// The rows of `cell` at `width`. An answer's are streamed: the rows its completed lines had
/// `before` at this width are kept, and only what it wrote since is rendered.
fn rows_of(cell: &Cell, folded_to: u16, unfold_thinking: bool, before: Rows) -> Rows {
    let width = usize::from(folded_to.max(1));
    let rows = match cell {
        Cell::User(text) => prefixed(text, width, "› ", Style::new().fg(Color::Cyan)),
        Cell::Answer(text) => {
            let mut stream = match before {
                Rows::Streamed { stream, .. } if stream.width() == width => stream,
                _ => Stream::new(width),
            };
            stream.update(text);
            return Rows::Streamed {
                stream,
                current: true,
            };
        }
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
    };
    Rows::Folded(folded_to, rows)
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

/// A tool cell: its title and state, then the last lines of its output while it runs, its
/// first lines once it ended, or its diff (numbered, coloured: see [`diff_rows`]) once a write
/// or an edit ended.
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
    if tool.ended.is_some() && is_diff(&tool.body) {
        out.extend(diff_rows(&tool.body, width, OUTPUT_HEAD));
        return out;
    }
    let body: Vec<&str> = tool.body.lines().collect();
    let shown = if tool.ended.is_none() {
        &body[body.len().saturating_sub(OUTPUT_TAIL)..]
    } else {
        &body[..body.len().min(OUTPUT_HEAD)]
    };
    let dim = Style::new().add_modifier(Modifier::DIM);
    for line in shown {
        for row in fold(&visible(line), width.saturating_sub(2).max(1)) {
            out.push(Line::styled(format!("  {row}"), dim));
        }
    }
    if tool.ended.is_some() && body.len() > OUTPUT_HEAD {
        out.push(Line::styled(
            format!("  … {} more lines", body.len() - OUTPUT_HEAD),
            dim,
        ));
    }
    out
}
