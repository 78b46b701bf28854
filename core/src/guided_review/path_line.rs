//! Findings placed the way models name places, by a file's path and a line number: the review's
//! file for the path, the hunk that shows the line, and from them the anchor a finding keeps. A
//! place the review does not show is refused with the lines of that file it does show, so the
//! model can choose again.

use std::fmt;

use crate::protocol::findings::{Anchor, Side};
use crate::protocol::guided_review::{Hunk, HunkLine, Review, ReviewFile};

/// Files named in full when a path is not in the review; the rest are counted.
const FILES_NAMED: usize = 20;

/// Lines of a review's file, as the agent names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place<'a> {
    /// The file's path as the review shows it (relative to the repository root): its path, or
    /// its old path for a rename or copy.
    pub path: &'a str,
    /// Which side's numbering the lines use.
    pub side: Side,
    /// The line, or the first of a range (see `end_line`), numbered on `side`.
    pub line: u32,
    /// The last line of a range, both ends included; `None` for one line.
    pub end_line: Option<u32>,
}

/// Why a place is not in the review. Shown to the model (and in the reviewer's note) as a
/// sentence fragment: `{err}; …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotShown {
    /// No file of the review has this path or old path.
    NoFile {
        /// The path asked for.
        path: String,
        /// The review's paths.
        files: Vec<String>,
    },
    /// The file is in the review but these lines are not all shown.
    Lines {
        /// The place asked for.
        place: OwnedPlace,
        /// What the review shows of the file.
        shown: Shown,
    },
    /// Both ends are shown, but in different hunks: a range lies within one.
    AcrossHunks {
        /// The place asked for.
        place: OwnedPlace,
        /// What the review shows of the file.
        shown: Shown,
    },
}

/// A [`Place`] that owns its path, kept in a [`NotShown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedPlace {
    /// As in [`Place`].
    pub path: String,
    /// As in [`Place`].
    pub side: Side,
    /// As in [`Place`].
    pub line: u32,
    /// As in [`Place`].
    pub end_line: Option<u32>,
}

/// The line ranges of one file that a review shows, per side, in order (one per hunk).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shown {
    /// New-side ranges (context and added lines), both ends included.
    pub new: Vec<(u32, u32)>,
    /// Old-side ranges (context and deleted lines), both ends included.
    pub old: Vec<(u32, u32)>,
}

/// The anchor of `place` in `review`, or why the review does not show it. `place.end_line`
/// must not be before `place.line` (the caller says so in its own words).
pub fn anchor_at(review: &Review, place: &Place<'_>) -> Result<Anchor, NotShown> {
    let Some(file) = file_named(review, place.path) else {
        return Err(NotShown::NoFile {
            path: place.path.to_owned(),
            files: review.files.iter().map(|f| f.path.clone()).collect(),
        });
    };
    let hunks = || review.hunks.iter().filter(|h| h.file_id == file.id);
    let showing = |line: u32| hunks().find(|h| shows(h, place.side, line));
    let end = place.end_line.unwrap_or(place.line);
    let owned = || OwnedPlace {
        path: place.path.to_owned(),
        side: place.side,
        line: place.line,
        end_line: place.end_line,
    };
    let (Some(first), Some(last)) = (showing(place.line), showing(end)) else {
        return Err(NotShown::Lines {
            place: owned(),
            shown: shown(hunks()),
        });
    };
    if first.id != last.id {
        return Err(NotShown::AcrossHunks {
            place: owned(),
            shown: shown(hunks()),
        });
    }
    let (file_id, hunk_id) = (file.id.clone(), first.id.clone());
    Ok(if end == place.line {
        Anchor::Line {
            file_id,
            hunk_id,
            side: place.side,
            line: place.line,
        }
    } else {
        Anchor::Range {
            file_id,
            hunk_id,
            side: place.side,
            start_line: place.line,
            end_line: end,
        }
    })
}

/// The review's file at `path`: the file whose path it is, else the rename or copy whose old
/// path it is.
fn file_named<'r>(review: &'r Review, path: &str) -> Option<&'r ReviewFile> {
    let files = || review.files.iter();
    files()
        .find(|f| f.path == path)
        .or_else(|| files().find(|f| f.old_path.as_deref() == Some(path)))
}

/// `given` as the review names paths (relative to the repository root `root`): an absolute
/// path inside the root loses the root; a relative one is taken as the review shows paths, or,
/// when that names no file and the working directory `cwd` is below the root, relative to `cwd`.
pub fn review_path(review: &Review, root: &str, cwd: &str, given: &str) -> String {
    let inside = |path: &str| {
        path.strip_prefix(root.trim_end_matches('/'))
            .and_then(|rest| rest.strip_prefix('/'))
            .map(str::to_owned)
    };
    let plain = |path: &str| {
        let mut path = path;
        while let Some(rest) = path.strip_prefix("./") {
            path = rest;
        }
        path.to_owned()
    };
    if given.starts_with('/') {
        return inside(given).map_or_else(|| given.to_owned(), |p| plain(&p));
    }
    let as_shown = plain(given);
    if file_named(review, &as_shown).is_some() {
        return as_shown;
    }
    match inside(cwd) {
        Some(below) => {
            let from_cwd = format!("{below}/{as_shown}");
            if file_named(review, &from_cwd).is_some() {
                from_cwd
            } else {
                as_shown
            }
        }
        None => as_shown,
    }
}

/// Whether `hunk` shows line `line` on `side`.
fn shows(hunk: &Hunk, side: Side, line: u32) -> bool {
    hunk.lines.iter().any(|l| {
        let number = match side {
            Side::Old => l.old_line,
            Side::New => l.new_line,
        };
        number == Some(line)
    })
}

/// The ranges `hunks` show on each side. A hunk's lines on one side are consecutive, so its
/// first and last numbers bound them.
fn shown<'h>(hunks: impl Iterator<Item = &'h Hunk>) -> Shown {
    let mut out = Shown::default();
    for hunk in hunks {
        let range = |number: fn(HunkLine<'_>) -> Option<u32>| {
            let mut numbers = hunk.lines.iter().filter_map(number);
            let first = numbers.next()?;
            Some((first, numbers.next_back().unwrap_or(first)))
        };
        out.new.extend(range(|l| l.new_line));
        out.old.extend(range(|l| l.old_line));
    }
    out
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Old => "old",
        Side::New => "new",
    }
}

impl fmt::Display for OwnedPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Place {
            path: &self.path,
            side: self.side,
            line: self.line,
            end_line: self.end_line,
        }
        .fmt(f)
    }
}

/// `src/a.rs new line 3`, `src/a.rs old lines 3–5`.
impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = side_name(self.side);
        match self.end_line {
            Some(end) if end != self.line => {
                write!(f, "{} {side} lines {}–{end}", self.path, self.line)
            }
            _ => write!(f, "{} {side} line {}", self.path, self.line),
        }
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |ranges: &[(u32, u32)], name: &str| {
            if ranges.is_empty() {
                return format!("no {name} lines");
            }
            let list: Vec<String> = ranges
                .iter()
                .map(|&(a, b)| {
                    if a == b {
                        a.to_string()
                    } else {
                        format!("{a}–{b}")
                    }
                })
                .collect();
            let noun = if list.len() == 1 && ranges[0].0 == ranges[0].1 {
                "line"
            } else {
                "lines"
            };
            format!("{name} {noun} {}", list.join(", "))
        };
        write!(
            f,
            "{} and {}",
            side(&self.new, "new"),
            side(&self.old, "old")
        )
    }
}

impl fmt::Display for NotShown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoFile { path, files } => {
                write!(f, "the review has no file {path}; its files are ")?;
                let named: Vec<&str> = files.iter().take(FILES_NAMED).map(String::as_str).collect();
                write!(f, "{}", named.join(", "))?;
                if files.len() > FILES_NAMED {
                    write!(f, " and {} more", files.len() - FILES_NAMED)?;
                }
                Ok(())
            }
            Self::Lines { place, shown } if shown.new.is_empty() && shown.old.is_empty() => {
                write!(
                    f,
                    "{place} is not shown in the review: it shows no lines of {}, whose change has none (a binary file, a mode change, an empty file or a pure rename)",
                    place.path
                )
            }
            Self::Lines { place, shown } => {
                let verb = if place.end_line.is_some_and(|e| e != place.line) {
                    "are not all"
                } else {
                    "is not"
                };
                write!(
                    f,
                    "{place} {verb} shown in the review, which shows {shown} of {}",
                    place.path
                )
            }
            Self::AcrossHunks { place, shown } => write!(
                f,
                "{place} run across separate hunks, and a range must lie within one; the review shows {shown} of {}",
                place.path
            ),
        }
    }
}

#[cfg(test)]
mod tests;
