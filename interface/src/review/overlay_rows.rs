//! What is open over the review's panes, drawn as rows: the composer of a comment, reply,
//! fix or edit (with the severity picker), the question before a deletion, the chapters'
//! commit messages, and the pull request review's preview with its verdict picker and body.

use luxe_core::protocol::findings::Severity;
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use super::ReviewView;
use super::overlay::{Overlay, VERDICTS};
use super::thread_rows::severity_word;
use crate::composer::Composer;
use crate::render::composer_rows;
use crate::sheet::Writes;
use crate::text::{cut, visible};

/// What is open over the panes, as rows (`writes` as `ready` said), and where its cursor is
/// among them.
pub(crate) fn overlay_rows(
    view: &ReviewView,
    width: usize,
    writes: Writes,
) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    let Some(overlay) = &view.overlay else {
        return (Vec::new(), None);
    };
    let keys = |text: &str| Line::styled(cut(text, width), Style::new().fg(Color::Cyan));
    let mut rows = Vec::new();
    let mut cursor = None;
    let mut text_rows = |rows: &mut Vec<Line<'static>>, text: &Composer| {
        let (lines, (row, col)) = composer_rows(text.shown(), text.cursor(), width);
        cursor = Some((rows.len() + row, col));
        rows.extend(lines.into_iter().map(Line::raw));
    };
    match overlay {
        Overlay::Write(writing) => {
            rows.push(rule(&writing.title(), width));
            if let Some(severity) = writing.severity {
                let all = Severity::NAMED.map(|(_, s)| s);
                rows.push(choices("severity:", &all, severity, severity_word, width));
            }
            text_rows(&mut rows, &writing.text);
            rows.push(keys(writing.keys()));
        }
        Overlay::Delete(id) => {
            rows.push(rule(&format!("Delete {id} and its thread?"), width));
            rows.push(keys("y deletes · any other key keeps it"));
        }
        Overlay::Commit(commits) => {
            let n = commits.messages.len();
            let how = if commits.stack {
                "each on a branch of its own, stacked"
            } else {
                "on the current branch"
            };
            let plural = if n == 1 { "" } else { "s" };
            rows.push(rule(
                &format!("Commit {n} chapter{plural}, one commit each, {how}"),
                width,
            ));
            for (i, (_, title, text)) in commits.messages.iter().enumerate() {
                if i == commits.at {
                    let head = format!("{}. {} — its message:", i + 1, visible(title));
                    rows.push(Line::styled(
                        cut(&head, width),
                        Style::new().add_modifier(Modifier::BOLD),
                    ));
                    text_rows(&mut rows, text);
                } else {
                    let first = text.shown().lines().next().unwrap_or_default();
                    let line = format!("{}. {}", i + 1, visible(first));
                    rows.push(Line::styled(
                        cut(&line, width),
                        Style::new().add_modifier(Modifier::DIM),
                    ));
                }
            }
            rows.push(keys(
                "Tab: the next message · Shift+Enter: a new line · Enter commits · Esc cancels",
            ));
        }
        Overlay::Post(post) => {
            let preview = &post.preview;
            let (n, skipped) = (preview.comments.len(), preview.skipped.len());
            let plural = if n == 1 { "" } else { "s" };
            rows.push(rule(
                &format!("Pull request review: {n} inline comment{plural}, {skipped} skipped"),
                width,
            ));
            for comment in &preview.comments {
                let side = if comment.side == "LEFT" { " (old)" } else { "" };
                let lines = match comment.start_line {
                    Some(start) => format!("{start}–{}", comment.line),
                    None => comment.line.to_string(),
                };
                let first = comment.body.lines().next().unwrap_or_default();
                let text = format!("  {}:{lines}{side}: {first}", comment.path);
                rows.push(Line::raw(cut(&visible(&text), width)));
            }
            for skip in &preview.skipped {
                let text = format!("  skipped {}: {}", skip.comment_id, skip.reason);
                rows.push(Line::styled(
                    cut(&visible(&text), width),
                    Style::new().add_modifier(Modifier::DIM),
                ));
            }
            let verdicts = VERDICTS.map(|(v, _)| v);
            let word = |v| {
                VERDICTS
                    .iter()
                    .find(|(w, _)| *w == v)
                    .map_or("", |(_, word)| word)
            };
            let suggested = format!("(suggested: {})", word(preview.suggested_verdict));
            let mut verdict = choices("verdict:", &verdicts, post.verdict, word, width);
            verdict.spans.push(Span::styled(
                format!("  {suggested}"),
                Style::new().add_modifier(Modifier::DIM),
            ));
            rows.push(verdict);
            rows.push(Line::raw("the review's text (optional):"));
            text_rows(&mut rows, &post.body);
            if let Some(off) = writes.off().filter(|_| !post.posting) {
                let off = format!("Enter cannot post: {off}");
                rows.push(Line::styled(
                    cut(&off, width),
                    Style::new().fg(Color::Yellow),
                ));
            }
            rows.push(keys(match writes.off() {
                _ if post.posting => "posting…",
                None => "Tab: the verdict · Enter posts · Esc closes",
                Some(_) => "Tab: the verdict · Esc closes",
            }));
        }
    }
    (rows, cursor)
}

/// A rule across the width with `title` in it.
fn rule(title: &str, width: usize) -> Line<'static> {
    let text = format!("── {} {}", visible(title), "─".repeat(width));
    Line::styled(
        cut(&text, width).replace('…', "─"),
        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
    )
}

/// `label` then each of `all` in words, `picked` bracketed and reversed.
fn choices<T: PartialEq + Copy>(
    label: &str,
    all: &[T],
    picked: T,
    word: impl Fn(T) -> &'static str,
    width: usize,
) -> Line<'static> {
    let mut spans = vec![Span::raw(label.to_owned())];
    for choice in all {
        if *choice == picked {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                format!("[{}]", word(*choice)),
                Style::new().add_modifier(Modifier::REVERSED),
            ));
        } else {
            spans.push(Span::raw(format!("  {} ", word(*choice))));
        }
    }
    let line = Line::from(spans);
    if line.width() > width {
        // Too narrow for every choice: the picked one alone.
        return Line::raw(cut(
            &format!("{label} [{}] (Tab: another)", word(picked)),
            width,
        ));
    }
    line
}
