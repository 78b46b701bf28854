//! A review as the protocol sends it: its target, files, hunks with numbered lines, and
//! chapters. The review builder (`crate::guided_review`) makes these; frames carry them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `review` of `guided_review_loaded` and `guided_review_updated`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Review {
    /// `review:` and a hash of the repository root and the target: the same review reloaded
    /// has the same id, so its session comes back.
    pub id: String,
    /// A hash of the whole diff: it changes when any hunk does.
    pub revision_id: String,
    /// What was compared.
    pub target: ReviewTarget,
    /// The changed files, by path.
    pub files: Vec<ReviewFile>,
    /// Every hunk, in file order and then line order.
    pub hunks: Vec<Hunk>,
    /// Reading order: every hunk in exactly one chapter.
    pub chapters: Vec<Chapter>,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewFile {
    /// `file:` and a hash of the path.
    pub id: String,
    /// The path (new side; old side for a deletion).
    pub path: String,
    /// The old path of a rename or copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// How it changed.
    pub status: FileStatus,
    /// Whether either side is binary (then its one hunk has no lines).
    pub binary: bool,
    /// Set for a `.env` file (on either side, as the read tool refuses it): its contents are
    /// withheld, so its one hunk has no lines and says so, and it counts no lines. Left out
    /// when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withheld: bool,
    /// Lines added.
    pub additions: u32,
    /// Lines deleted.
    pub deletions: u32,
    /// Its hunks, in order. A file whose change has no lines (binary, a mode change, an empty
    /// file, a pure rename) has one hunk without lines, so chapters and commits still cover it.
    pub hunk_ids: Vec<String>,
}

/// One hunk: a run of changed lines with up to three lines of context around.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hunk {
    /// `hunk:` and a hash of the file's path and the hunk's lines (not their numbers): it stays
    /// while the text does, wherever other hunks move it.
    pub id: String,
    /// The file it belongs to.
    pub file_id: String,
    /// As in `@@ -old_start,old_lines +new_start,new_lines @@`.
    pub old_start: u32,
    /// Old-side lines covered.
    pub old_lines: u32,
    /// New-side first line.
    pub new_start: u32,
    /// New-side lines covered.
    pub new_lines: u32,
    /// The function-context text git prints after the second `@@` (empty when none); for a
    /// hunk without lines, what changed (`binary file`, `mode 100644 → 100755`, …).
    pub header: String,
    /// Its context, added and deleted lines, in the patch's order; none for a hunk that only notes
    /// a change (`header` says what).
    #[schemars(with = "Vec<HunkLine<'static>>")]
    pub lines: HunkLines,
}

impl Hunk {
    /// A hunk without lines for a file whose change has none (binary, a mode change, an empty
    /// file, a pure rename): `header` says what changed; its id is given later.
    pub fn note(file_id: String, header: String) -> Self {
        Self {
            id: String::new(),
            file_id,
            old_start: 0,
            old_lines: 0,
            new_start: 0,
            new_lines: 0,
            header,
            lines: HunkLines::default(),
        }
    }
}

/// One line of a hunk.
// In memory a view into `HunkLines`, which holds the texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HunkLine<'a> {
    /// Context, added or deleted.
    pub kind: LineKind,
    /// Its number on the old side (context and deletions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_line: Option<u32>,
    /// Its number on the new side (context and additions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_line: Option<u32>,
    /// The text without its `\n` (a `\r` of a CRLF line stays; lossy UTF-8).
    pub text: &'a str,
    /// True for a last line without a newline (git's `\ No newline at end of file`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_newline: bool,
}

/// A hunk's lines, sent as an array of [`HunkLine`]s. Kept as one text with a small record a
/// line rather than a `String` a line: a large review has hundreds of thousands of lines, and
/// this halves their memory and their allocations.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct HunkLines {
    /// Every line's text, one after the other.
    text: String,
    records: Vec<Record>,
}

/// A line but its text: 24 bytes where `HunkLine`'s fields as `Option`s would take 32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    /// Where its text ends in `text` (it starts where the previous line's ends).
    end: usize,
    old_line: u32,
    new_line: u32,
    kind: LineKind,
    has_old: bool,
    has_new: bool,
    no_newline: bool,
}

// What the doc comment says, where `usize` is 8 bytes.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Record>() == 24);

impl Record {
    /// The line, whose text starts at `start` in `text`.
    fn line<'a>(&self, text: &'a str, start: usize) -> HunkLine<'a> {
        HunkLine {
            kind: self.kind,
            old_line: self.has_old.then_some(self.old_line),
            new_line: self.has_new.then_some(self.new_line),
            text: &text[start..self.end],
            no_newline: self.no_newline,
        }
    }
}

impl HunkLines {
    /// No lines, with room for `lines` lines of `text` bytes in all.
    pub fn with_capacity(lines: usize, text: usize) -> Self {
        Self {
            text: String::with_capacity(text),
            records: Vec::with_capacity(lines),
        }
    }

    /// Adds a line at the end.
    pub fn push(&mut self, line: HunkLine<'_>) {
        self.text.push_str(line.text);
        self.records.push(Record {
            end: self.text.len(),
            old_line: line.old_line.unwrap_or_default(),
            new_line: line.new_line.unwrap_or_default(),
            kind: line.kind,
            has_old: line.old_line.is_some(),
            has_new: line.new_line.is_some(),
            no_newline: line.no_newline,
        });
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are none (a hunk that says what changed rather than show it).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Line `index` (from 0), if there is one.
    pub fn get(&self, index: usize) -> Option<HunkLine<'_>> {
        let record = self.records.get(index)?;
        let start = index.checked_sub(1).map_or(0, |i| self.records[i].end);
        Some(record.line(&self.text, start))
    }

    /// The lines, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            text: &self.text,
            records: self.records.iter(),
            start: 0,
        }
    }
}

/// The lines of a [`HunkLines`], in order.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    text: &'a str,
    /// The lines not given out yet.
    records: std::slice::Iter<'a, Record>,
    /// Where the first of them starts.
    start: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = HunkLine<'a>;

    fn next(&mut self) -> Option<HunkLine<'a>> {
        let record = self.records.next()?;
        let line = record.line(self.text, self.start);
        self.start = record.end;
        Some(line)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let record = self.records.next_back()?;
        let start = self.records.as_slice().last().map_or(self.start, |r| r.end);
        Some(record.line(self.text, start))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a HunkLines {
    type Item = HunkLine<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> FromIterator<HunkLine<'a>> for HunkLines {
    fn from_iter<I: IntoIterator<Item = HunkLine<'a>>>(lines: I) -> Self {
        let mut all = Self::default();
        for line in lines {
            all.push(line);
        }
        all
    }
}

impl std::fmt::Debug for HunkLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self).finish()
    }
}

impl Serialize for HunkLines {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self)
    }
}

impl<'de> Deserialize<'de> for HunkLines {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// A [`HunkLine`] that owns its text, as JSON gives it.
        #[derive(Deserialize)]
        struct Owned {
            kind: LineKind,
            #[serde(default)]
            old_line: Option<u32>,
            #[serde(default)]
            new_line: Option<u32>,
            text: String,
            #[serde(default)]
            no_newline: bool,
        }
        let lines = Vec::<Owned>::deserialize(deserializer)?;
        Ok(lines
            .iter()
            .map(|line| HunkLine {
                kind: line.kind,
                old_line: line.old_line,
                new_line: line.new_line,
                text: &line.text,
                no_newline: line.no_newline,
            })
            .collect())
    }
}

/// What a hunk line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// On both sides.
    Context,
    /// Only on the new side.
    Add,
    /// Only on the old side.
    Del,
}

/// A chapter: hunks that are read together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Chapter {
    /// `chapter:` and a hash of its hunk ids.
    pub id: String,
    /// A short title luxe makes from the files' paths, without a model (`Documentation`, or a
    /// directory and its files); a default commit message and a stacked pull request's title
    /// start from it.
    pub title: String,
    /// One line saying what changed.
    pub summary: String,
    /// Its hunks, in reading order.
    pub hunk_ids: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_lines_give_back_what_was_pushed_from_either_end() {
        let line = |kind, old_line, new_line, text, no_newline| HunkLine {
            kind,
            old_line,
            new_line,
            text,
            no_newline,
        };
        let pushed = [
            line(LineKind::Context, Some(1), Some(1), "a", false),
            line(LineKind::Del, Some(2), None, "", false),
            line(LineKind::Add, None, Some(2), "é\r", false),
            line(LineKind::Add, None, Some(0), "last", true),
        ];
        let lines: HunkLines = pushed.into_iter().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines.iter().collect::<Vec<_>>(), pushed);
        assert_eq!(lines.iter().rev().collect::<Vec<_>>(), {
            let mut reversed = pushed;
            reversed.reverse();
            reversed
        });
        assert!((0..4).all(|i| lines.get(i) == Some(pushed[i])));
        assert_eq!(lines.get(4), None);
        let mut both = lines.iter();
        assert_eq!(both.next_back(), Some(pushed[3]));
        assert_eq!(both.next(), Some(pushed[0]));
        assert_eq!(both.next_back(), Some(pushed[2]));
        assert_eq!(both.len(), 1);
        assert_eq!(both.next(), Some(pushed[1]));
        assert_eq!((both.next(), both.next_back()), (None, None));
        assert!(HunkLines::default().is_empty());
    }
}

/// The two sides a review compares, as the client names them (`target` of `load_guided_review`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReviewTarget {
    /// HEAD → the working tree, untracked (not ignored) files included.
    WorkingTree,
    /// HEAD → the index.
    Staged,
    /// The merge-base of HEAD and `base` → HEAD.
    Branch {
        /// The base branch; by default the remote's default branch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<String>,
    },
    /// `git diff from to`: the changes after `from` up to and including `to`.
    Commits {
        /// The older side (any revision git understands).
        from: String,
        /// The newer side.
        to: String,
    },
    /// A pull request, read through gh.
    PullRequest {
        /// The pull request's number in `repository`.
        number: u64,
        /// `owner/name`, when not this repository's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repository: Option<String>,
    },
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// Only on the new side.
    Added,
    /// On both sides, at the same path.
    Modified,
    /// Only on the old side.
    Deleted,
    /// Moved from `old_path` (perhaps changed too).
    Renamed,
    /// Copied from `old_path` (perhaps changed too).
    Copied,
    /// A file became a symlink or the other way round.
    TypeChanged,
}

impl FileStatus {
    /// The status as git's letter for it (`git diff --name-status`).
    pub fn letter(self) -> char {
        match self {
            Self::Added => 'A',
            Self::Modified => 'M',
            Self::Deleted => 'D',
            Self::Renamed => 'R',
            Self::Copied => 'C',
            Self::TypeChanged => 'T',
        }
    }
}
