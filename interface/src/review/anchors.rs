//! Where a comment goes: the protocol's anchor for what the cursor is on (a file's header, a
//! hunk's header, a line, or the lines from the `v` mark to the cursor), and those words for a
//! person (`src/lib.rs:13`).

use luxe_core::protocol::findings::{Anchor, Side};
use luxe_core::protocol::guided_review::{HunkLine, LineKind};

use super::open::Open;
use super::page::Item;

/// The anchor of item `at`: a finding's is that of what it sits under; the heading and the
/// findings no longer in the diff have none.
pub(crate) fn anchor_of(open: &Open, at: usize) -> Option<Anchor> {
    let review = &open.review;
    match *open.items.get(at)? {
        Item::Heading => None,
        Item::File(file) => Some(Anchor::File {
            file_id: review.files[file].id.clone(),
        }),
        Item::Hunk(hunk) => {
            let hunk = &review.hunks[hunk];
            Some(Anchor::Hunk {
                file_id: hunk.file_id.clone(),
                hunk_id: hunk.id.clone(),
            })
        }
        Item::Line { hunk, line } => {
            let hunk = &review.hunks[hunk];
            let (side, line) = side_of(hunk.lines.get(line)?)?;
            Some(Anchor::Line {
                file_id: hunk.file_id.clone(),
                hunk_id: hunk.id.clone(),
                side,
                line,
            })
        }
        Item::Finding { under, .. } => anchor_of(open, under?),
    }
}

/// The anchor of the lines from the `v` mark to the cursor (one hunk: the mark is dropped when
/// the cursor leaves it), named on the new side when any of them has a new number, else on
/// the old; a single line is a line anchor. `None` without a mark on a line.
pub(crate) fn range_of(open: &Open) -> Option<Anchor> {
    let (hunk, marked) = open.line_of_item(open.mark?)?;
    let here = match open.line_of_item(open.cursor) {
        Some((h, line)) if h == hunk => line,
        _ => marked,
    };
    let (first, last) = (marked.min(here), marked.max(here));
    let h = &open.review.hunks[hunk];
    let lines: Vec<HunkLine<'_>> = h.lines.iter().skip(first).take(last - first + 1).collect();
    let (side, numbers): (Side, Vec<u32>) = if lines.iter().any(|l| l.new_line.is_some()) {
        (Side::New, lines.iter().filter_map(|l| l.new_line).collect())
    } else {
        (Side::Old, lines.iter().filter_map(|l| l.old_line).collect())
    };
    let (start_line, end_line) = (*numbers.first()?, *numbers.last()?);
    let (file_id, hunk_id) = (h.file_id.clone(), h.id.clone());
    Some(if start_line == end_line {
        Anchor::Line {
            file_id,
            hunk_id,
            side,
            line: start_line,
        }
    } else {
        Anchor::Range {
            file_id,
            hunk_id,
            side,
            start_line,
            end_line,
        }
    })
}

/// Whether `anchor` is in the open review as it is now (a comment written while the review was
/// read again may point at lines that are gone), by the session's own check.
pub(crate) fn in_review(open: &Open, anchor: &Anchor) -> bool {
    luxe_core::guided_review::findings::check_anchor(anchor, &open.review).is_ok()
}

/// The side and number a comment on `line` names: an added or context line by its new number,
/// a deleted line by its old.
fn side_of(line: HunkLine<'_>) -> Option<(Side, u32)> {
    match line.kind {
        LineKind::Del => Some((Side::Old, line.old_line?)),
        LineKind::Add | LineKind::Context => Some((Side::New, line.new_line?)),
    }
}

/// `anchor` for a person: the file's path, and its line or lines (`old` ones marked).
pub(crate) fn describe(open: &Open, anchor: &Anchor) -> String {
    let path = |file_id: &str| {
        (open.index.file(file_id))
            .map_or("a file no longer in the diff", |f| {
                open.review.files[f].path.as_str()
            })
            .to_owned()
    };
    let side = |side: &Side| match side {
        Side::Old => " (old)",
        Side::New => "",
    };
    match anchor {
        Anchor::File { file_id } => path(file_id),
        Anchor::Hunk { file_id, .. } => format!("a hunk of {}", path(file_id)),
        Anchor::Line {
            file_id,
            side: s,
            line,
            ..
        } => format!("{}:{line}{}", path(file_id), side(s)),
        Anchor::Range {
            file_id,
            side: s,
            start_line,
            end_line,
            ..
        } => format!("{}:{start_line}–{end_line}{}", path(file_id), side(s)),
    }
}
