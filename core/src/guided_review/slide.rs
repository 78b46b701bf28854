//! Git's post-processing of a line diff (xdiff's `xdl_change_compact`, with the indent heuristic
//! git enables by default), so that ambiguous changes land where git puts them.
//!
//! A run of changed lines can often slide: deleting the second of two equal lines or the first
//! is the same change. Git slides each run up and down as far as it goes, merging with runs it
//! meets; then it lines the run up with a change on the other side if it can (one modification
//! instead of a deletion and an addition), or else picks the position whose boundaries score best
//! by indentation and blank lines. Old side first, then new, as git does. imara-diff has its own
//! port, but it processes the sides in the other order and scores ends of file differently, which
//! moves some hunks away from git's.

use std::ops::Range;

use imara_diff::Token;

/// One side of the diff: its lines and which of them changed.
pub struct Side<'a> {
    /// The lines as tokens, to compare them.
    pub tokens: &'a [Token],
    /// The lines' bytes, to measure their indentation.
    pub lines: &'a [&'a [u8]],
    /// `changed[i]`: line `i` is deleted (old side) or added (new side).
    pub changed: &'a mut [bool],
}

/// A change: old lines replaced by new lines (either range may be empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The deleted old lines.
    pub old: Range<u32>,
    /// The added new lines.
    pub new: Range<u32>,
}

/// Slides both sides' changes to git's positions.
pub fn compact(old: &mut Side, new: &mut Side) {
    compact_side(old, new);
    compact_side(new, old);
}

/// The changes, in order, from both sides' marks.
pub fn changes(old: &Side, new: &Side) -> Vec<Change> {
    let (n1, n2) = (old.changed.len(), new.changed.len());
    let (mut i, mut j) = (0, 0);
    let mut changes = Vec::new();
    while i < n1 || j < n2 {
        let (from_i, from_j) = (i, j);
        while i < n1 && old.changed[i] {
            i += 1;
        }
        while j < n2 && new.changed[j] {
            j += 1;
        }
        if (i, j) != (from_i, from_j) {
            changes.push(Change {
                old: from_i as u32..i as u32,
                new: from_j as u32..j as u32,
            });
        }
        // Past the unchanged line the two sides share.
        (i, j) = (i + 1, j + 1);
    }
    changes
}

/// A maximal run of changed lines `start..end` on one side; runs on both sides correspond one to
/// one (an empty run sits between two unchanged lines).
#[derive(Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
}

impl Group {
    fn first(side: &Side) -> Self {
        let mut group = Group { start: 0, end: 0 };
        group.extend_down(side);
        group
    }

    fn is_empty(&self) -> bool {
        self.start == self.end
    }

    fn extend_down(&mut self, side: &Side) {
        while self.end < side.changed.len() && side.changed[self.end] {
            self.end += 1;
        }
    }

    fn extend_up(&mut self, side: &Side) {
        while self.start > 0 && side.changed[self.start - 1] {
            self.start -= 1;
        }
    }

    /// Moves to the next group; false at the end.
    fn next(&mut self, side: &Side) -> bool {
        if self.end == side.changed.len() {
            return false;
        }
        self.start = self.end + 1;
        self.end = self.start;
        self.extend_down(side);
        true
    }

    /// Moves to the previous group; false at the start.
    fn previous(&mut self, side: &Side) -> bool {
        if self.start == 0 {
            return false;
        }
        self.end = self.start - 1;
        self.start = self.end;
        self.extend_up(side);
        true
    }

    /// Slides the group down one line (merging with a group it meets), if the line below equals
    /// its first line.
    fn slide_down(&mut self, side: &mut Side) -> bool {
        if self.end < side.tokens.len() && side.tokens[self.start] == side.tokens[self.end] {
            side.changed[self.start] = false;
            side.changed[self.end] = true;
            self.start += 1;
            self.end += 1;
            self.extend_down(side);
            true
        } else {
            false
        }
    }

    /// Slides the group up one line (merging with a group it meets), if the line above equals its
    /// last line.
    fn slide_up(&mut self, side: &mut Side) -> bool {
        if self.start > 0 && side.tokens[self.start - 1] == side.tokens[self.end - 1] {
            self.start -= 1;
            self.end -= 1;
            side.changed[self.start] = true;
            side.changed[self.end] = false;
            self.extend_up(side);
            true
        } else {
            false
        }
    }
}

/// `xdl_change_compact` for `side`, with `other` kept in step.
fn compact_side(side: &mut Side, other: &Side) {
    let mut g = Group::first(side);
    let mut go = Group::first(other);
    loop {
        if !g.is_empty() {
            slide_group(side, other, &mut g, &mut go);
        }
        if !g.next(side) {
            break;
        }
        let synced = go.next(other);
        debug_assert!(synced, "group sync broken moving to next group");
    }
}

fn slide_group(side: &mut Side, other: &Side, g: &mut Group, go: &mut Group) {
    let up = |g: &mut Group, go: &mut Group, side: &mut Side| {
        let slid = g.slide_up(side);
        if slid {
            let synced = go.previous(other);
            debug_assert!(synced, "group sync broken sliding up");
        }
        slid
    };
    let (mut earliest_end, mut end_matching_other);
    loop {
        let size = g.end - g.start;
        while up(g, go, side) {}
        earliest_end = g.end;
        end_matching_other = (!go.is_empty()).then_some(g.end);
        while g.slide_down(side) {
            let synced = go.next(other);
            debug_assert!(synced, "group sync broken sliding down");
            if !go.is_empty() {
                end_matching_other = Some(g.end);
            }
        }
        if size == g.end - g.start {
            break;
        }
    }
    // The group now sits as low as it goes; what follows only slides it back up.
    if g.end == earliest_end {
        return;
    }
    if end_matching_other.is_some() {
        // Line up with the last change on the other side it can align with.
        while go.is_empty() {
            let slid = up(g, go, side);
            debug_assert!(slid, "match disappeared");
        }
    } else {
        let best = best_shift(side, g, earliest_end);
        while g.end > best {
            let slid = up(g, go, side);
            debug_assert!(slid, "best shift unreached");
        }
    }
}

/// The indent heuristic: the end position (from `earliest_end` to the group's lowest end, at
/// most 100 positions) whose two boundaries score best; ties go to the lower position.
fn best_shift(side: &Side, g: &Group, earliest_end: usize) -> usize {
    const MAX_SLIDING: usize = 100;
    let size = g.end - g.start;
    let from = earliest_end
        .max((g.end - size).saturating_sub(1))
        .max(g.end.saturating_sub(MAX_SLIDING));
    let mut best: Option<(usize, Score)> = None;
    for shift in from..=g.end {
        let score = Split::at(side, shift)
            .score()
            .plus(Split::at(side, shift - size).score());
        if best.is_none_or(|(_, best)| score.cmp_to(best) <= 0) {
            best = Some((shift, score));
        }
    }
    best.map_or(g.end, |(shift, _)| shift)
}

const MAX_INDENT: i32 = 200;
const MAX_BLANKS: i32 = 20;
const START_OF_FILE_PENALTY: i32 = 1;
const END_OF_FILE_PENALTY: i32 = 21;
const TOTAL_BLANK_WEIGHT: i32 = -30;
const POST_BLANK_WEIGHT: i32 = 6;
const RELATIVE_INDENT_PENALTY: i32 = -4;
const RELATIVE_INDENT_WITH_BLANK_PENALTY: i32 = 10;
const RELATIVE_OUTDENT_PENALTY: i32 = 24;
const RELATIVE_OUTDENT_WITH_BLANK_PENALTY: i32 = 17;
const RELATIVE_DEDENT_PENALTY: i32 = 23;
const RELATIVE_DEDENT_WITH_BLANK_PENALTY: i32 = 17;
const INDENT_WEIGHT: i32 = 60;

/// Git's indentation of a line: spaces count 1, tabs go to the next multiple of 8, `\n` and `\r`
/// are skipped, anything else ends it; `None` for a line of only whitespace. Capped at 200.
fn indent(line: &[u8]) -> Option<i32> {
    let mut indent = 0;
    for &b in line {
        match b {
            b' ' => indent += 1,
            b'\t' => indent += 8 - indent % 8,
            b'\n' | b'\r' => {}
            _ => return Some(indent),
        }
        if indent >= MAX_INDENT {
            return Some(MAX_INDENT);
        }
    }
    None
}

/// Walking away from a split: the blank lines passed and the indent of the first other line (`-1`
/// when there is none; after 20 blank lines git stops and takes 0).
fn nearest_text(indents: impl Iterator<Item = i32>) -> (i32, i32) {
    let mut blank = 0;
    for indent in indents {
        if indent != -1 {
            return (blank, indent);
        }
        blank += 1;
        if blank == MAX_BLANKS {
            return (blank, 0);
        }
    }
    (blank, -1)
}

/// What git measures around a split before line `at` (`measure_split`).
struct Split {
    end_of_file: bool,
    /// The indent of the line after the split (`-1` when blank or at the end).
    indent: i32,
    pre_blank: i32,
    pre_indent: i32,
    post_blank: i32,
    post_indent: i32,
}

impl Split {
    fn at(side: &Side, at: usize) -> Self {
        let indent_of = |i: usize| indent(side.lines[i]).unwrap_or(-1);
        let n = side.tokens.len();
        let (pre_blank, pre_indent) = nearest_text((0..at).rev().map(indent_of));
        let (post_blank, post_indent) = nearest_text((at + 1..n).map(indent_of));
        Split {
            end_of_file: at >= n,
            indent: if at >= n { -1 } else { indent_of(at) },
            pre_blank,
            pre_indent,
            post_blank,
            post_indent,
        }
    }

    /// `score_add_split`.
    fn score(&self) -> Score {
        let mut penalty = 0;
        if self.pre_indent == -1 && self.pre_blank == 0 {
            penalty += START_OF_FILE_PENALTY;
        }
        if self.end_of_file {
            penalty += END_OF_FILE_PENALTY;
        }
        let post_blank = if self.indent == -1 {
            1 + self.post_blank
        } else {
            0
        };
        let total_blank = self.pre_blank + post_blank;
        penalty += TOTAL_BLANK_WEIGHT * total_blank + POST_BLANK_WEIGHT * post_blank;
        let indent = if self.indent != -1 {
            self.indent
        } else {
            self.post_indent
        };
        let any_blanks = total_blank != 0;
        let pick = |with_blank, without| if any_blanks { with_blank } else { without };
        if indent != -1 && self.pre_indent != -1 {
            if indent > self.pre_indent {
                penalty += pick(RELATIVE_INDENT_WITH_BLANK_PENALTY, RELATIVE_INDENT_PENALTY);
            } else if indent < self.pre_indent {
                penalty += if self.post_indent != -1 && self.post_indent > indent {
                    // The next line is indented more: this line likely opens a block.
                    pick(
                        RELATIVE_OUTDENT_WITH_BLANK_PENALTY,
                        RELATIVE_OUTDENT_PENALTY,
                    )
                } else {
                    // Likely the end of a block.
                    pick(RELATIVE_DEDENT_WITH_BLANK_PENALTY, RELATIVE_DEDENT_PENALTY)
                };
            }
        }
        Score {
            effective_indent: indent,
            penalty,
        }
    }
}

#[derive(Clone, Copy)]
struct Score {
    effective_indent: i32,
    penalty: i32,
}

impl Score {
    fn plus(self, other: Score) -> Score {
        Score {
            effective_indent: self.effective_indent + other.effective_indent,
            penalty: self.penalty + other.penalty,
        }
    }

    /// `score_cmp`: negative when `self` is better.
    fn cmp_to(self, other: Score) -> i32 {
        let indents = (self.effective_indent - other.effective_indent).signum();
        INDENT_WEIGHT * indents + (self.penalty - other.penalty)
    }
}
