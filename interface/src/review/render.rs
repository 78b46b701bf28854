//! Drawing the review view, a pure function of its state into a `ratatui` [`Buffer`]: a heading
//! row, the chapters and files on the left, the chapter's page on the right (the cursor's item
//! kept on screen), what is open over them at the bottom, and one row for a notice or the keys.
//! One column before every row marks the cursor (`›`) and a marked range (`┃`), so the screen
//! says where the cursor is without colours too.

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::Line;

use super::ReviewView;
use super::open::{Focus, Open};
use super::outline::Entry;
use super::overlay_rows::overlay_rows;
use super::page::{Item, Section};
use super::spans::LineColours;
use super::target::describe;
use super::thread_rows::finding_rows;
use crate::sheet::Writes;
use crate::text::{cut, fold, visible};

/// The left pane's share of the width, and its bounds; under `TWO_PANES` columns only the
/// focused pane is drawn.
const OUTLINE_MIN: usize = 20;
const OUTLINE_MAX: usize = 40;
const TWO_PANES: usize = 50;

/// Draws `view` over `area` (`busy`: a turn runs; `writes` as `ready` said); where the
/// terminal's cursor goes.
pub(crate) fn draw(
    view: &mut ReviewView,
    area: Rect,
    buf: &mut Buffer,
    busy: bool,
    writes: Writes,
) -> (u16, u16) {
    let mut cursor = (area.x, area.y);
    if area.width == 0 || area.height == 0 {
        return cursor;
    }
    let width = usize::from(area.width);
    let bottom = area.y + area.height - 1;
    put(buf, area.x, bottom, width, status_line(view, width));
    if area.height == 1 {
        return cursor;
    }
    put(buf, area.x, area.y, width, heading_line(view, width, busy));
    buf.set_style(
        Rect::new(area.x, area.y, area.width, 1),
        Style::new().add_modifier(Modifier::REVERSED),
    );
    let body = usize::from(area.height - 2);
    if body == 0 {
        return cursor;
    }
    // What is open over the panes takes up to two thirds of the rows under the heading.
    let (mut over, mut over_cursor) = overlay_rows(view, width, writes);
    let cap = (body * 2 / 3).max(1);
    if over.len() > cap {
        let cut_rows = over.len() - cap;
        over.drain(1..=cut_rows);
        over_cursor = over_cursor.map(|(row, col)| (row.saturating_sub(cut_rows).max(1), col));
    }
    let panes = body - over.len();
    let over_top = area.y + 1 + panes as u16;
    for (i, line) in over.into_iter().enumerate() {
        put(buf, area.x, over_top + i as u16, width, line);
    }
    if let Some((row, col)) = over_cursor {
        cursor = (area.x + col.min(width - 1) as u16, over_top + row as u16);
    }
    let Some(open) = view.open.as_mut() else {
        let what = match &view.loading {
            Some(what) => format!(" Loading the {what}…"),
            None => " No review is open: /review loads one.".to_owned(),
        };
        if panes > 0 {
            put(buf, area.x, area.y + 1, width, Line::raw(cut(&what, width)));
        }
        return cursor;
    };
    if panes == 0 {
        return cursor;
    }
    let rows = Rect::new(area.x, area.y + 1, area.width, panes as u16);
    let page_cursor = draw_panes(open, rows, buf);
    if over_cursor.is_none() {
        cursor = page_cursor;
    }
    cursor
}

/// The two panes (one, when narrow) over `area`; where the cursor's row is.
fn draw_panes(open: &mut Open, area: Rect, buf: &mut Buffer) -> (u16, u16) {
    let width = usize::from(area.width);
    let left = if width >= TWO_PANES {
        (width / 3).clamp(OUTLINE_MIN, OUTLINE_MAX)
    } else if open.focus == Focus::Outline {
        width
    } else {
        0
    };
    let outline_cursor = (left > 0).then(|| {
        draw_outline(
            open,
            Rect::new(area.x, area.y, left as u16, area.height),
            buf,
        )
    });
    let right_x = if left == 0 { 0 } else { left + 1 };
    if right_x >= width {
        return outline_cursor.unwrap_or((area.x, area.y));
    }
    let separator = Style::new().fg(Color::DarkGray);
    for y in area.y..area.y + area.height {
        buf.set_string(area.x + left as u16, y, "│", separator);
    }
    let page = Rect::new(
        area.x + right_x as u16,
        area.y,
        (width - right_x) as u16,
        area.height,
    );
    let page_cursor = draw_page(open, page, buf);
    match (open.focus, outline_cursor) {
        (Focus::Outline, Some(at)) => at,
        _ => page_cursor,
    }
}

/// The chapters and their files, the highlighted row kept on screen; where it is drawn.
fn draw_outline(open: &mut Open, area: Rect, buf: &mut Buffer) -> (u16, u16) {
    let (width, height) = (usize::from(area.width), usize::from(area.height));
    let at = open.outline_at;
    if at < open.outline_top {
        open.outline_top = at;
    } else if at >= open.outline_top + height {
        open.outline_top = at + 1 - height;
    }
    let review = &open.review;
    let mut cursor = (area.x, area.y);
    for (row, i) in (open.outline_top..open.outline.len())
        .take(height)
        .enumerate()
    {
        let y = area.y + row as u16;
        let marker = if i == at { '›' } else { ' ' };
        let (text, style) = match open.outline[i] {
            Entry::Chapter(c) => (
                format!("{marker}{}. {}", c + 1, visible(&review.chapters[c].title)),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Entry::File {
                file,
                additions,
                deletions,
                ..
            } => {
                let f = &review.files[file];
                let counts = if f.withheld {
                    " withheld".to_owned()
                } else {
                    format!(" +{additions} −{deletions}")
                };
                let room = width.saturating_sub(4 + crate::text::width(&counts));
                let path = cut_start(&visible(&f.path), room);
                let style = if f.withheld {
                    Style::new().fg(Color::Yellow)
                } else {
                    Style::new()
                };
                (
                    format!("{marker} {} {path}{counts}", f.status.letter()),
                    style,
                )
            }
            Entry::Elsewhere(n) => (
                format!("{marker}Not in the diff: {n}"),
                Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ),
        };
        put(
            buf,
            area.x,
            y,
            width,
            Line::styled(cut(&text, width), style),
        );
        if i == at {
            cursor = (area.x, y);
            if open.focus == Focus::Outline {
                buf.set_style(
                    Rect::new(area.x, y, area.width, 1),
                    Style::new().add_modifier(Modifier::REVERSED),
                );
            }
        }
    }
    cursor
}

/// The chapter's page from its first item shown, moved so that the cursor's item is on
/// screen whole (or from its top, when it is taller than the pane); where its row is.
fn draw_page(open: &mut Open, area: Rect, buf: &mut Buffer) -> (u16, u16) {
    let (width, height) = (usize::from(area.width), usize::from(area.height));
    let cursor = open.cursor.min(open.items.len().saturating_sub(1));
    if cursor < open.top || cursor <= 1 {
        open.top = 0;
    }
    // Back from the cursor while the items fit: at most a screenful of items is folded.
    let mut first = cursor;
    let mut used = item_height(open, cursor, width);
    while first > open.top {
        let above = item_height(open, first - 1, width);
        if used + above > height {
            break;
        }
        used += above;
        first -= 1;
    }
    open.top = first;
    let mut y = 0;
    let mut at = (area.x, area.y);
    let mut whole = 0;
    let mut colours = LineColours::default();
    for i in open.top..open.items.len() {
        if y >= height {
            break;
        }
        let rows = item_rows(open, i, width, &mut colours);
        if y + rows.len() <= height {
            whole += 1;
        }
        for (n, line) in rows.into_iter().take(height - y).enumerate() {
            let row = area.y + y as u16;
            put(buf, area.x, row, width, line);
            if i == cursor && n == 0 {
                at = (area.x, row);
                if open.focus == Focus::Page {
                    let reversed = Style::new().add_modifier(Modifier::REVERSED);
                    buf.set_style(Rect::new(area.x, row, area.width, 1), reversed);
                }
            }
            y += 1;
        }
    }
    open.items_shown = whole.max(1);
    at
}

/// Whether item `at` is inside the range from the mark to the cursor.
fn marked(open: &Open, at: usize) -> bool {
    open.mark.is_some_and(|mark| {
        let (low, high) = (mark.min(open.cursor), mark.max(open.cursor));
        (low..=high).contains(&at) && matches!(open.items[at], Item::Line { .. })
    })
}

/// How many rows item `at` takes at `width` (a file's, a hunk's or a line's, one: it is cut,
/// not folded).
fn item_height(open: &Open, at: usize, width: usize) -> usize {
    match open.items[at] {
        Item::File(_) | Item::Hunk(_) | Item::Line { .. } => 1,
        Item::Heading | Item::Finding { .. } => {
            item_rows(open, at, width, &mut LineColours::default()).len()
        }
    }
}

/// The rows of item `at`, `width` columns wide; a line's colours from `colours`, which the
/// lines drawn before it left ready.
fn item_rows(
    open: &Open,
    at: usize,
    width: usize,
    colours: &mut LineColours,
) -> Vec<Line<'static>> {
    let review = &open.review;
    let marker = if at == open.cursor {
        '›'
    } else if marked(open, at) {
        '┃'
    } else {
        ' '
    };
    let one = |text: String, style: Style| vec![Line::styled(cut(&text, width), style)];
    match open.items[at] {
        Item::Heading => heading_rows(open, width),
        Item::File(f) => {
            let file = &review.files[f];
            let mut text = format!("{marker}{} {}", file.status.letter(), visible(&file.path));
            if let Some(old) = &file.old_path {
                text.push_str(&format!(" ← {}", visible(old)));
            }
            if file.withheld {
                text.push_str("  withheld");
            } else {
                text.push_str(&format!("  +{} −{}", file.additions, file.deletions));
            }
            one(text, Style::new().add_modifier(Modifier::BOLD))
        }
        Item::Hunk(h) => {
            let hunk = &review.hunks[h];
            if hunk.lines.is_empty() {
                let text = format!("{marker}  {}", visible(&hunk.header));
                return one(text, Style::new().fg(Color::Yellow));
            }
            let text = format!(
                "{marker}@@ -{},{} +{},{} @@ {}",
                hunk.old_start,
                hunk.old_lines,
                hunk.new_start,
                hunk.new_lines,
                visible(&hunk.header)
            );
            one(text.trim_end().to_owned(), Style::new().fg(Color::Cyan))
        }
        Item::Line { hunk, line } => {
            let path = &review.files[open.index.file_of(hunk)].path;
            vec![colours.row(review, (hunk, line), path, open.digits, marker)]
        }
        Item::Finding { finding, .. } => {
            finding_rows(&open.session.findings[finding], marker, width)
        }
    }
}

/// The page's heading: the chapter's number and title, then its summary.
fn heading_rows(open: &Open, width: usize) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let dim = Style::new().add_modifier(Modifier::DIM);
    let (title, about) = match open.section {
        Section::Chapter(c) => {
            let chapter = &open.review.chapters[c];
            let count = open.review.chapters.len();
            (
                format!(" Chapter {} of {count}: {}", c + 1, visible(&chapter.title)),
                visible(&chapter.summary),
            )
        }
        Section::Elsewhere if open.elsewhere() == 0 => (
            " Nothing to review: the diff is empty.".to_owned(),
            String::new(),
        ),
        Section::Elsewhere => (
            " Findings no longer in the diff".to_owned(),
            "Their files have no changes here now; each keeps the line it was made on.".to_owned(),
        ),
    };
    let mut rows = vec![Line::styled(cut(&title, width), bold)];
    if !about.is_empty() {
        for row in fold(&about, width.saturating_sub(1).max(1)) {
            rows.push(Line::styled(format!(" {row}"), dim));
        }
    }
    rows
}

/// The row over the panes: what the review is of, how large, what runs.
fn heading_line(view: &ReviewView, width: usize, busy: bool) -> Line<'static> {
    let mut text = " Review".to_owned();
    if let Some(open) = &view.open {
        let review = &open.review;
        let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
        text.push_str(&format!(
            " · {} · {} · {} · {}",
            describe(&review.target),
            plural(review.chapters.len(), "chapter"),
            plural(review.files.len(), "file"),
            plural(open.session.findings.len(), "finding"),
        ));
    }
    if let Some(what) = &view.loading {
        text.push_str(&format!(" · loading the {what}…"));
    }
    if busy {
        text.push_str(" · the agent is working");
    }
    Line::raw(cut(&visible(&text), width))
}

/// The row under the panes: a notice, else the keys that work where the cursor is.
fn status_line(view: &ReviewView, width: usize) -> Line<'static> {
    if let Some(notice) = &view.notice {
        let (mark, colour) = if notice.refusal {
            ("✗ ", Color::Red)
        } else {
            ("", Color::Green)
        };
        let text = format!("{mark}{}", visible(&notice.text));
        return Line::styled(cut(&text, width), Style::new().fg(colour));
    }
    let keys = match &view.open {
        _ if view.overlay.is_some() => return Line::raw(""),
        None => "",
        Some(open) if open.focus == Focus::Outline => {
            "j/k choose · Enter or Tab: the diff · }/{ chapter"
        }
        Some(open) if open.finding().is_some() => {
            "s send · f fix · r reply · x resolve/reopen · e edit · d delete · c comment"
        }
        Some(open) if open.mark.is_some() => {
            "c comments on the marked lines · j/k extend · Esc drops the mark"
        }
        Some(_) => {
            "c comment · v range · n/p hunk · ]/[ file · }/{ chapter · A agent review · \
             C commit · S stack · P PR review · Tab pane"
        }
    };
    // `q back` always shows: the keys before it that do not fit are left out, last first.
    let mut shown: Vec<&str> = Vec::new();
    for part in keys.split(" · ").filter(|p| !p.is_empty()) {
        let with = shown
            .iter()
            .chain([&part, &"q back"])
            .copied()
            .collect::<Vec<_>>();
        if crate::text::width(&with.join(" · ")) > width {
            break;
        }
        shown.push(part);
    }
    shown.push("q back");
    Line::styled(cut(&shown.join(" · "), width), Style::new().fg(Color::Cyan))
}

/// `text` cut from the start to `width` columns, with `…` when something was cut (a path's
/// end says more than its start).
fn cut_start(text: &str, width: usize) -> String {
    if crate::text::width(text) <= width {
        return text.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in text.chars().rev() {
        let w = crate::text::char_width(c);
        if used + w > width {
            break;
        }
        kept.push(c);
        used += w;
    }
    kept.reverse();
    format!("…{}", kept.into_iter().collect::<String>())
}

/// Draws `line` at row `y` from column `x`, at most `width` columns.
fn put(buf: &mut Buffer, x: u16, y: u16, width: usize, line: Line<'_>) {
    let width = u16::try_from(width).unwrap_or(u16::MAX);
    buf.set_style(Rect::new(x, y, width, 1), line.style);
    buf.set_line(x, y, &line, width);
}
