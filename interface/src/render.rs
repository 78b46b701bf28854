//! Drawing, a pure function of the interface's state into a `ratatui` [`Buffer`]: the
//! transcript at the top, a prompt waiting for the person (a permission, a question) or the
//! slash list above the composer, the composer, and one status line at the bottom (the dock).

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::Line;

use crate::machine::{Interface, Parts};
use crate::picker::Picker;
use crate::sheet::Sheet;
use crate::slash;
use crate::text::{cut, fold, visible};
use crate::view::Dock;

/// The most rows the composer takes.
const COMPOSER_MAX_ROWS: usize = 8;

/// What `/help` shows: the keys (the contract) and the commands.
pub(crate) const HELP: &str = "Keys: Enter sends (steers a running turn) · Shift+Enter, Alt+Enter or Ctrl+J: a new line · \
Tab queues while a turn runs; Backspace on an empty composer takes the last queued back · Esc or Ctrl+C interrupts · \
Up/Down: earlier inputs · @ completes a path · Ctrl+U clears · PageUp/PageDown or the wheel scroll, End follows · \
Ctrl+T unfolds thinking · Ctrl+Z suspends · Ctrl+C twice or Ctrl+D quits.\n\
Prompts: y once · a always · n or Esc rejects. Questions: a digit picks, Enter answers, typing answers freely.\n\
Commands: /help /model [id] /mode build|plan /thinking off|low|medium|high /auto-approve on|off /compact [hint] \
/review [working-tree|staged|branch [BASE]|commits A..B|pr N] /sessions /new /quit";

/// Draws `interface` over `area` of `buf`, and notes where the cursor goes.
pub(crate) fn screen(interface: &mut Interface, area: Rect, buf: &mut Buffer) {
    buf.reset();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let parts = interface.parts();
    let width = usize::from(area.width);
    let bottom = area.y + area.height - 1;
    draw_line(
        buf,
        area.x,
        bottom,
        area.width,
        &dock_line(&parts.view.dock, width),
    );
    if area.height == 1 {
        return;
    }
    if parts.review.is_shown() {
        return full_screen_review(interface, area, buf);
    }
    if let Some(sheet) = parts.sheet {
        let at = sheet_screen(
            sheet,
            &parts,
            Rect {
                height: area.height - 1,
                ..area
            },
            buf,
        );
        interface.set_cursor(at);
        return;
    }
    // The composer: its rows, under a separator when there is room for one.
    let mut rows = composer_rows(parts.composer.shown(), parts.composer.cursor(), width);
    let (cursor_row, cursor_col) = rows.1;
    let rows_shown = rows.0.len().min(COMPOSER_MAX_ROWS);
    let first = cursor_row.saturating_sub(rows_shown - 1);
    rows.0 = rows.0.split_off(first);
    rows.0.truncate(rows_shown);
    let room = usize::from(area.height - 1);
    let composer_height = rows_shown.min(room);
    let composer_top = bottom - composer_height as u16;
    for (i, row) in rows.0.iter().take(composer_height).enumerate() {
        let style = Style::new();
        buf.set_stringn(area.x, composer_top + i as u16, row, width, style);
    }
    let mut top_free = composer_top;
    if room > composer_height {
        top_free -= 1;
        draw_line(buf, area.x, top_free, area.width, &separator(&parts, width));
    }
    // What waits above the composer: a prompt, a question, or the slash list.
    let above = overlay(&parts, width);
    let free = usize::from(top_free - area.y);
    let above_rows = above.len().min(free.saturating_sub(1).max(free / 2));
    let above_top = top_free - above_rows as u16;
    for (i, line) in above.iter().take(above_rows).enumerate() {
        draw_line(buf, area.x, above_top + i as u16, area.width, line);
    }
    // The transcript fills the rest, its newest rows at the bottom.
    let height = usize::from(above_top - area.y);
    let shown = parts
        .view
        .transcript
        .bottom_rows(area.width, height, parts.scroll);
    let start = above_top - shown.len() as u16;
    for (i, line) in shown.iter().enumerate() {
        draw_line(buf, area.x, start + i as u16, area.width, line);
    }
    let cursor = (
        area.x + (cursor_col.min(width.saturating_sub(1))) as u16,
        composer_top + (cursor_row - first).min(composer_height.saturating_sub(1)) as u16,
    );
    interface.set_cursor(cursor);
}

/// The review view over everything but the dock, with a permission prompt or a question
/// (a review turn's) above the dock when one waits.
fn full_screen_review(interface: &mut Interface, area: Rect, buf: &mut Buffer) {
    let parts = interface.parts();
    let width = usize::from(area.width);
    let waiting = !parts.view.permissions.is_empty() || parts.view.question.is_some();
    let above = if waiting {
        overlay(&parts, width)
    } else {
        Vec::new()
    };
    let room = usize::from(area.height - 1);
    let above_rows = above.len().min(room / 2);
    let review_rows = (room - above_rows) as u16;
    for (i, line) in above.iter().take(above_rows).enumerate() {
        let y = area.y + review_rows + i as u16;
        draw_line(buf, area.x, y, area.width, line);
    }
    let busy = parts.view.dock.streaming;
    let review_area = Rect::new(area.x, area.y, area.width, review_rows);
    let writes = parts.view.writes;
    let cursor = crate::review::render::draw(parts.review, review_area, buf, busy, writes);
    interface.set_cursor(cursor);
}

/// The composer's text folded to `width` (a prompt mark before the first row) and the row and
/// column of the cursor among those rows.
pub(crate) fn composer_rows(
    text: &str,
    cursor: usize,
    width: usize,
) -> (Vec<String>, (usize, usize)) {
    let inner = width.saturating_sub(2).max(1);
    let mut rows = Vec::new();
    let mut at = (0, 2);
    let mut offset = 0;
    for line in text.split('\n') {
        let folded = fold(&visible(line), inner);
        let line_end = offset + line.len();
        if (offset..=line_end).contains(&cursor) {
            // The cursor's column in this line, counted in display width.
            let before = visible(&line[..cursor - offset]);
            let col = crate::text::width(&before);
            let (row, col) = (col / inner, col % inner);
            at = (
                rows.len() + row.min(folded.len().saturating_sub(1) + 1),
                col + 2,
            );
        }
        for row in folded {
            let mark = if rows.is_empty() { "› " } else { "  " };
            rows.push(format!("{mark}{row}"));
        }
        offset = line_end + 1;
    }
    let last = rows.len().saturating_sub(1);
    if at.0 > last {
        rows.push("  ".into());
    }
    (rows, at)
}

/// The line over the composer: whether a turn runs, queued messages, a hint.
fn separator(parts: &Parts<'_>, width: usize) -> Line<'static> {
    let mut label = String::new();
    if parts.view.dock.streaming {
        label.push_str(" working · Esc interrupts · Enter steers · Tab queues ");
    }
    if !parts.view.queued.is_empty() {
        label.push_str(&format!(" {} queued ", parts.view.queued.len()));
    }
    if parts.scroll > 0 {
        label.push_str(" scrolled · End follows ");
    }
    if let Some(hint) = parts.hint {
        label.push_str(&format!(" {hint} "));
    }
    let text = format!("──{label}{}", "─".repeat(width));
    Line::styled(
        cut(&text, width).replace('…', "─"),
        Style::new().fg(Color::DarkGray),
    )
}

/// The rows drawn just above the composer.
fn overlay(parts: &Parts<'_>, width: usize) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut out = Vec::new();
    if let Some(asked) = parts.view.permissions.front() {
        let waiting = parts.view.permissions.len();
        let head = format!(
            "Allow {}?{}",
            asked.tool,
            if waiting > 1 {
                format!(" (1 of {waiting})")
            } else {
                String::new()
            }
        );
        out.push(Line::styled(cut(&head, width), bold.fg(Color::Yellow)));
        for line in asked.detail.lines().take(12) {
            for row in fold(&visible(line), width.saturating_sub(2).max(1)) {
                out.push(Line::raw(format!("  {row}")));
            }
        }
        // The change as the session will make it, numbered as in the file.
        if let Some(diff) = &asked.diff {
            out.extend(crate::diff_rows::diff_rows(
                diff,
                width,
                PERMISSION_DIFF_LINES,
            ));
        }
        let keys = format!(
            "[y] once   [a] always ({})   [n] no",
            visible(&asked.always_rule)
        );
        out.push(Line::styled(
            cut(&keys, width),
            Style::new().fg(Color::Cyan),
        ));
        return out;
    }
    if let Some(question) = &parts.view.question {
        for row in fold(&visible(&question.question), width) {
            out.push(Line::styled(row, bold));
        }
        for (i, option) in question.options.iter().enumerate() {
            let picked = match (question.multiple, parts.view.picked.contains(&i)) {
                (false, _) => "",
                (true, true) => "[x] ",
                (true, false) => "[ ] ",
            };
            let mut text = format!("{}. {picked}{}", i + 1, visible(&option.label));
            if let Some(description) = &option.description {
                text.push_str(&format!(" — {}", visible(description)));
            }
            let style = if i == parts.view.question_at && parts.composer.is_empty() {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            out.push(Line::styled(cut(&text, width), style));
        }
        let keys = if question.multiple {
            "a digit or Space toggles · Enter answers · typing answers freely · Esc dismisses"
        } else {
            "a digit or Enter answers · typing answers freely · Esc dismisses"
        };
        out.push(Line::styled(cut(keys, width), Style::new().fg(Color::Cyan)));
        return out;
    }
    if let Some(picker) = &parts.view.picker {
        return picker_rows(picker, width);
    }
    if let Some(mention) = parts.mention {
        let first = mention.selected.saturating_sub(PICKER_ROWS - 1);
        for (i, path) in mention
            .paths
            .iter()
            .enumerate()
            .skip(first)
            .take(PICKER_ROWS)
        {
            let style = if i == mention.selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            out.push(Line::styled(
                cut(&visible(&format!("@{path}")), width),
                style,
            ));
        }
        let keys = "Tab or Enter takes · Up/Down choose · Esc closes";
        out.push(Line::styled(cut(keys, width), Style::new().fg(Color::Cyan)));
        return out;
    }
    if let Some(selected) = parts.slash {
        let matching = slash::matching(parts.composer.shown());
        let selected = selected.min(matching.len().saturating_sub(1));
        for (i, (name, about)) in matching.iter().enumerate() {
            let style = if i == selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            out.push(Line::styled(
                cut(&format!("{name:<14} {about}"), width),
                style,
            ));
        }
        if matching.is_empty() {
            out.push(Line::styled(
                cut("no such command: /help lists them", width),
                Style::new().fg(Color::Red),
            ));
        }
        return out;
    }
    let dim = Style::new().add_modifier(Modifier::DIM);
    for text in &parts.view.queued {
        let first = text.lines().next().unwrap_or_default();
        out.push(Line::styled(
            cut(&visible(&format!("queued: {first}")), width),
            dim,
        ));
    }
    if !parts.view.queued.is_empty() && parts.composer.is_empty() {
        let keys = "Backspace takes the last queued message back";
        out.push(Line::styled(cut(keys, width), Style::new().fg(Color::Cyan)));
    }
    out
}

/// A sheet over everything but the dock: its title, its rows (the first that fit), its status
/// and its keys. Returns where the cursor rests (the end of the keys' row).
fn sheet_screen(sheet: &Sheet, parts: &Parts<'_>, area: Rect, buf: &mut Buffer) -> (u16, u16) {
    let width = usize::from(area.width);
    let writes = parts.view.writes;
    let title = Line::styled(
        cut(&format!(" {} ", sheet.title()), width),
        Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED),
    );
    let mut footer = Vec::new();
    if let Some(status) = sheet.status() {
        footer.push(crate::sheet::status_line(status, width));
    }
    let hints = cut(&sheet.hints(writes), width);
    let hints_width = crate::text::width(&hints);
    footer.push(Line::styled(hints, Style::new().fg(Color::Cyan)));
    let height = usize::from(area.height);
    // On a very short terminal the keys stay, then the status, then the title and the body.
    while footer.len() > height {
        footer.remove(0);
    }
    let mut rows = vec![title];
    let body_room = height.saturating_sub(1 + footer.len());
    rows.extend(
        sheet
            .rows(parts.view.dock.workspace.as_ref(), width)
            .into_iter()
            .take(body_room),
    );
    // The footer keeps the bottom rows; on a very short terminal it wins over the body.
    let top_rows = height.saturating_sub(footer.len()).min(rows.len());
    for (i, line) in rows.iter().take(top_rows).enumerate() {
        draw_line(buf, area.x, area.y + i as u16, area.width, line);
    }
    let footer_top = area.y + area.height.saturating_sub(footer.len() as u16);
    for (i, line) in footer.iter().enumerate() {
        draw_line(buf, area.x, footer_top + i as u16, area.width, line);
    }
    let last = area.y + area.height - 1;
    (
        area.x + (hints_width.min(width.saturating_sub(1))) as u16,
        last,
    )
}

/// The most lines of a write's or an edit's change a permission prompt shows.
const PERMISSION_DIFF_LINES: usize = 12;

/// The most entries a list shows at once.
const PICKER_ROWS: usize = 10;

/// A list to choose from: its title, what was typed, and a window of its entries around the
/// highlighted one.
fn picker_rows(picker: &Picker, width: usize) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut out = vec![Line::styled(cut(&visible(&picker.title), width), bold)];
    if !picker.filter.is_empty() {
        let typed = format!("  matching {:?}", picker.filter);
        out.push(Line::styled(
            cut(&visible(&typed), width),
            Style::new().fg(Color::Cyan),
        ));
    }
    let matching = picker.matching();
    let selected = picker.selected();
    let first = selected.saturating_sub(PICKER_ROWS - 1);
    for (i, entry) in matching.iter().enumerate().skip(first).take(PICKER_ROWS) {
        let mut text = format!("{} {}", if i == selected { "›" } else { " " }, entry.label);
        if let Some(why) = &entry.unavailable {
            text.push_str(&format!("  ({why})"));
        }
        let mut style = Style::new();
        if i == selected {
            style = style.add_modifier(Modifier::REVERSED);
        }
        if entry.unavailable.is_some() {
            style = style.add_modifier(Modifier::DIM);
        }
        out.push(Line::styled(cut(&visible(&text), width), style));
    }
    if matching.is_empty() {
        out.push(Line::styled(
            cut("  nothing matches", width),
            Style::new().fg(Color::Red),
        ));
    } else if matching.len() > PICKER_ROWS {
        let more = format!("  {} of {}", selected + 1, matching.len());
        out.push(Line::styled(
            cut(&more, width),
            Style::new().add_modifier(Modifier::DIM),
        ));
    }
    out
}

/// The dock, fitted to `width` by leaving out its least important parts first.
pub(crate) fn dock_line(dock: &Dock, width: usize) -> Line<'static> {
    // (how long it stays, text): the lower the number, the longer it stays.
    let mut parts: Vec<(u8, String)> = Vec::new();
    let place = dock.cwd.rsplit('/').find(|p| !p.is_empty()).unwrap_or("/");
    parts.push((6, place.to_owned()));
    if let Some(workspace) = &dock.workspace {
        if let Some(branch) = &workspace.branch {
            let mut text = branch.clone();
            if workspace.dirty {
                text.push('*');
            }
            if workspace.ahead > 0 {
                text.push_str(&format!(" ↑{}", workspace.ahead));
            }
            if workspace.behind > 0 {
                text.push_str(&format!(" ↓{}", workspace.behind));
            }
            parts.push((2, text));
        }
        if let Some(pr) = &workspace.pull_request {
            let count = |bucket: &str| pr.checks.iter().filter(|c| c.bucket == bucket).count();
            let mut text = format!("#{}", pr.number);
            for (bucket, mark) in [("pass", "✓"), ("fail", "✗"), ("pending", "…")] {
                let n = count(bucket);
                if n > 0 {
                    text.push_str(&format!(" {mark}{n}"));
                }
            }
            if let Some(decision) = &pr.review_decision {
                text.push_str(&format!(" {}", decision.to_lowercase().replace('_', " ")));
            }
            parts.push((3, text));
        }
    }
    parts.push((
        1,
        dock.model.clone().unwrap_or_else(|| "no model".to_owned()),
    ));
    if !dock.mode.is_empty() {
        parts.push((4, dock.mode.clone()));
    }
    if let Some(window) = dock.context_window.filter(|w| *w > 0) {
        let share = dock.context_tokens.saturating_mul(100) / u64::from(window);
        parts.push((5, format!("{share}% context")));
    }
    if let Some(cost) = dock.cost_usd {
        parts.push((7, format!("${cost:.2}")));
    }
    let joined = |parts: &[(u8, String)]| {
        parts
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join(" · ")
    };
    while parts.len() > 1 && crate::text::width(&joined(&parts)) > width {
        if let Some(at) = (0..parts.len()).max_by_key(|i| parts[*i].0) {
            parts.remove(at);
        }
    }
    let text = cut(&visible(&joined(&parts)), width);
    Line::styled(text, Style::new().add_modifier(Modifier::REVERSED))
}

/// Draws `line` at row `y` from column `x`, at most `max` columns, the rest of the row cleared.
fn draw_line(buf: &mut Buffer, x: u16, y: u16, max: u16, line: &Line<'_>) {
    let area = Rect::new(x, y, max, 1);
    buf.set_style(area, line.style);
    buf.set_line(x, y, line, max);
}
