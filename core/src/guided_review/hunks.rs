//! A text file's change as git prints it with `git diff -U3`: git's preparation of the lines
//! ([`super::discard`]), Myers' line diff (imara-diff), git's slider post-processing
//! ([`super::compact`]), changes grouped into hunks with three lines of context, git's numbering
//! and function context ([`super::funcname`]).
//!
//! imara-diff 0.2.0's Myers search departs from xdiff's in two places (its middle-snake search
//! takes every difference of lengths as even, and it prunes again lines that xdiff keeps), so on
//! some inputs it picks another diff of the same size than git; `tests/tests/review_vs_git.rs`
//! measures how often.

use imara_diff::{Algorithm, Diff, Token};

use super::discard::Prepared;
use super::funcname::FuncLines;
use super::lines::{Interner, Lines};
use super::slide::{Change, Side, changes, compact};
use crate::protocol::guided_review::{Hunk, HunkLine, HunkLines, LineKind};

/// Context lines around a change (git's default `-U3`).
const CONTEXT: u32 = 3;

/// A file's hunks and its line counts.
pub struct TextChange {
    /// The hunks, in line order (none when both sides are equal).
    pub hunks: Vec<Hunk>,
    /// Lines added.
    pub additions: u32,
    /// Lines deleted.
    pub deletions: u32,
}

/// Diffs text files, keeping its buffers from one file to the next (`'a`: the files' bytes).
#[derive(Default)]
pub struct Differ<'a> {
    old_lines: Lines<'a>,
    new_lines: Lines<'a>,
    interner: Interner<'a>,
    old_tokens: Vec<Token>,
    new_tokens: Vec<Token>,
    prepared: Prepared,
    diff: Diff,
}

impl<'a> Differ<'a> {
    /// Diffs two text sides into hunks of the file `file_id`, without their ids (hashed for
    /// the whole review at once, see [`super::ids::lines_hashes`]).
    pub fn change(&mut self, old: &'a [u8], new: &'a [u8], file_id: &str) -> TextChange {
        let changes = self.line_changes(old, new);
        let sides = Sides {
            old: &self.old_lines.lines,
            new: &self.new_lines.lines,
        };
        let mut funcs = FuncLines::new(&self.old_lines.lines);
        // xdiff's `xdl_get_hunk`: changes at most 2 × context unchanged lines apart share a
        // hunk, since their contexts would overlap or touch.
        let hunks = changes
            .chunk_by(|a, b| b.old.start - a.old.end <= 2 * CONTEXT)
            .map(|group| sides.hunk(group, file_id, &mut funcs))
            .collect();
        TextChange {
            hunks,
            additions: changes.iter().map(|c| c.new.len() as u32).sum(),
            deletions: changes.iter().map(|c| c.old.len() as u32).sum(),
        }
    }

    /// The changed runs of lines, where git puts them.
    fn line_changes(&mut self, old: &'a [u8], new: &'a [u8]) -> Vec<Change> {
        self.old_lines.read(old);
        self.new_lines.read(new);
        let interner = &mut self.interner;
        interner.reset(self.old_lines.len() + self.new_lines.len());
        interner.intern_all(&self.old_lines, &mut self.old_tokens);
        interner.intern_all(&self.new_lines, &mut self.new_tokens);
        let distinct = interner.distinct();
        let prepared = &mut self.prepared;
        prepared.prepare(&self.old_tokens, &self.new_tokens, distinct);
        let (kept_old, kept_new) = (&mut prepared.old, &mut prepared.new);
        let diff = &mut self.diff;
        diff.compute_with(
            Algorithm::Myers,
            &kept_old.tokens,
            &kept_new.tokens,
            distinct,
        );
        kept_old.mark(|k| diff.is_removed(k));
        kept_new.mark(|k| diff.is_added(k));
        let mut old_side = Side {
            tokens: &self.old_tokens,
            lines: &self.old_lines.lines,
            changed: &mut kept_old.changed,
        };
        let mut new_side = Side {
            tokens: &self.new_tokens,
            lines: &self.new_lines.lines,
            changed: &mut kept_new.changed,
        };
        compact(&mut old_side, &mut new_side);
        changes(&old_side, &new_side)
    }
}

/// Both sides' lines.
struct Sides<'a> {
    old: &'a [&'a [u8]],
    new: &'a [&'a [u8]],
}

impl Sides<'_> {
    /// One hunk: a group of nearby changes with their context.
    fn hunk(&self, group: &[Change], file_id: &str, funcs: &mut FuncLines) -> Hunk {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let old_from = first.old.start.saturating_sub(CONTEXT);
        let new_from = first.new.start.saturating_sub(CONTEXT);
        // Trailing context: as much as both sides have, up to three lines.
        let trailing = CONTEXT
            .min(self.old.len() as u32 - last.old.end)
            .min(self.new.len() as u32 - last.new.end);
        let (old_to, new_to) = (last.old.end + trailing, last.new.end + trailing);

        // Room for exactly the lines, and for their text with its newlines (a few bytes more
        // than it needs, never less unless invalid UTF-8 is replaced).
        let bytes = |lines: &[&[u8]]| lines.iter().map(|l| l.len()).sum::<usize>();
        let added: usize = group
            .iter()
            .map(|c| bytes(&self.new[c.new.start as usize..c.new.end as usize]))
            .sum();
        let mut lines = HunkLines::with_capacity(
            (old_to - old_from + new_to - new_from) as usize,
            bytes(&self.old[old_from as usize..old_to as usize]) + added,
        );
        let (mut old, mut new) = (old_from, new_from);
        for change in group {
            while old < change.old.start {
                self.context(&mut lines, old, new);
                (old, new) = (old + 1, new + 1);
            }
            for o in change.old.clone() {
                push(
                    &mut lines,
                    LineKind::Del,
                    self.old[o as usize],
                    Some(o),
                    None,
                );
            }
            for n in change.new.clone() {
                push(
                    &mut lines,
                    LineKind::Add,
                    self.new[n as usize],
                    None,
                    Some(n),
                );
            }
            (old, new) = (change.old.end, change.new.end);
        }
        while old < old_to {
            self.context(&mut lines, old, new);
            (old, new) = (old + 1, new + 1);
        }

        let (old_lines, new_lines) = (old_to - old_from, new_to - new_from);
        Hunk {
            id: String::new(),
            file_id: file_id.to_owned(),
            old_start: git_start(old_from, old_lines),
            old_lines,
            new_start: git_start(new_from, new_lines),
            new_lines,
            header: funcs.above(old_from as usize),
            lines,
        }
    }

    /// Adds a context line: the old side's text (both sides are equal).
    fn context(&self, lines: &mut HunkLines, old: u32, new: u32) {
        let text = self.old[old as usize];
        push(lines, LineKind::Context, text, Some(old), Some(new));
    }
}

/// Adds a hunk line from its bytes and 0-based line indexes.
fn push(lines: &mut HunkLines, kind: LineKind, bytes: &[u8], old: Option<u32>, new: Option<u32>) {
    let (text, no_newline) = match bytes.strip_suffix(b"\n") {
        Some(text) => (text, false),
        None => (bytes, true),
    };
    let mut line = |text: &str| {
        lines.push(HunkLine {
            kind,
            old_line: old.map(|o| o + 1),
            new_line: new.map(|n| n + 1),
            text,
            no_newline,
        });
    };
    // `from_utf8` checks ASCII a word at a time; the lossy path is for the rare rest.
    match std::str::from_utf8(text) {
        Ok(text) => line(text),
        Err(_) => line(&String::from_utf8_lossy(text)),
    }
}

/// Git prints a side's first line 1-based, or, when the side covers no line, the line before
/// (`-0,0` for an added file).
fn git_start(from: u32, lines: u32) -> u32 {
    if lines == 0 { from } else { from + 1 }
}
