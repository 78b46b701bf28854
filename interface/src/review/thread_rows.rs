//! A finding as the page shows it: a box under what it anchors, its first row its severity
//! and status (`draft`, `open`, `resolved`; `pending` while the agent works, `outdated`), then
//! its thread entry by entry with who wrote it, what it is, and a report's `fixed` or `not
//! fixed`.

use luxe_core::protocol::findings::{Author, Finding, FindingStatus, ReportStatus, Severity};
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use crate::text::{fold, visible};

/// A finding and its thread, in a box under what it anchors.
pub(crate) fn finding_rows(finding: &Finding, marker: char, width: usize) -> Vec<Line<'static>> {
    let colour = severity_colour(finding.severity);
    let bar = "  ┃ ".to_owned();
    let inner = width.saturating_sub(1 + crate::text::width(&bar)).max(1);
    let mut head = format!(
        "◆ {} · {}",
        severity_word(finding.severity),
        status_word(finding.status)
    );
    if finding.pending {
        head.push_str(" · pending: the agent is working");
    }
    if finding.outdated {
        head.push_str(" · outdated");
    }
    let mut texts: Vec<(String, Style)> =
        vec![(head, Style::new().fg(colour).add_modifier(Modifier::BOLD))];
    if let Some(was) = finding.line_text.as_ref().filter(|_| finding.outdated) {
        let dim = Style::new().add_modifier(Modifier::DIM);
        texts.push((format!("was on: {was}"), dim));
    }
    for entry in &finding.thread {
        let mut label = format!("{} · {}", author_word(entry.author), entry.kind.words());
        match entry.status {
            Some(ReportStatus::Fixed) => label.push_str(" · fixed"),
            Some(ReportStatus::NotFixed) => label.push_str(" · not fixed"),
            None => {}
        }
        let style = match entry.author {
            Author::Reviewer => Style::new(),
            Author::Agent => Style::new().fg(Color::Magenta),
            Author::System => Style::new().add_modifier(Modifier::DIM),
        };
        texts.push((format!("{label}: {}", entry.body), style));
    }
    let dim_all = finding.outdated || finding.status == FindingStatus::Resolved;
    let mut rows = Vec::new();
    for (text, mut style) in texts {
        if dim_all {
            style = style.add_modifier(Modifier::DIM);
        }
        for line in text.split('\n') {
            for row in fold(&visible(line), inner) {
                let lead = if rows.is_empty() { marker } else { ' ' };
                rows.push(Line::from(vec![
                    Span::raw(lead.to_string()),
                    Span::styled(bar.clone(), Style::new().fg(colour)),
                    Span::styled(row, style),
                ]));
            }
        }
    }
    rows
}

/// A severity's protocol name.
pub(crate) fn severity_word(severity: Severity) -> &'static str {
    (Severity::NAMED.iter())
        .find(|(_, s)| *s == severity)
        .map_or("", |(name, _)| name)
}

/// The colour a severity's box is drawn in.
fn severity_colour(severity: Severity) -> Color {
    match severity {
        Severity::Issue => Color::Red,
        Severity::Question => Color::Cyan,
        Severity::Suggestion => Color::Yellow,
        Severity::Nitpick => Color::Gray,
        Severity::Praise => Color::Green,
    }
}

/// A finding's status in words.
fn status_word(status: FindingStatus) -> &'static str {
    match status {
        FindingStatus::Draft => "draft",
        FindingStatus::Open => "open",
        FindingStatus::Resolved => "resolved",
    }
}

/// Who wrote a thread entry, in words.
fn author_word(author: Author) -> &'static str {
    match author {
        Author::Reviewer => "reviewer",
        Author::Agent => "agent",
        Author::System => "system",
    }
}
