//! The right pane's page: one chapter in reading order — its heading, each file's header,
//! each hunk's header and lines — with every finding placed under what it anchors (a line or
//! a range under its last line, a hunk under its header, a file at its top). Findings whose
//! file is no longer in the diff have a page of their own.

use std::collections::BTreeMap;

use luxe_core::protocol::findings::{Anchor, Side};
use luxe_core::protocol::guided_review::{Hunk, Review};

/// One thing on the page, by its index in the review or the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item {
    /// The chapter's title and summary (the cursor never rests on it).
    Heading,
    /// A file's header: `review.files[_]`.
    File(usize),
    /// A hunk's header: `review.hunks[_]`.
    Hunk(usize),
    /// Line `line` of hunk `hunk`.
    Line {
        /// Its index in `review.hunks`.
        hunk: usize,
        /// Its index among the hunk's lines, from 0.
        line: usize,
    },
    /// Finding `finding` of the session with its thread, under item `under` of the page
    /// (`None` on the page of findings no longer in the diff).
    Finding {
        /// Its index in the session's `findings`.
        finding: usize,
        /// The item it sits under.
        under: Option<usize>,
    },
}

/// Which page is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    /// `review.chapters[_]`.
    Chapter(usize),
    /// The findings whose file is no longer in the diff.
    Elsewhere,
}

/// Where a finding sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Spot {
    /// At a file's top.
    File(usize),
    /// Under a hunk's header.
    Hunk(usize),
    /// Under line `.1` of hunk `.0`.
    Line(usize, usize),
    /// On the page of findings no longer in the diff.
    Elsewhere,
}

/// The review's ids by position, to place anchors without searching.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    files: BTreeMap<String, usize>,
    hunks: BTreeMap<String, usize>,
    /// Each hunk's file as a position in `review.files`, in `review.hunks` order (`usize::MAX` when
    /// its `file_id` names no file).
    hunk_file: Vec<usize>,
    /// Each hunk's chapter (a review puts every hunk in one).
    hunk_chapter: Vec<Option<usize>>,
}

impl Index {
    /// The index of `review`.
    pub(crate) fn new(review: &Review) -> Self {
        let files: BTreeMap<String, usize> = (review.files.iter().enumerate())
            .map(|(at, file)| (file.id.clone(), at))
            .collect();
        let hunks: BTreeMap<String, usize> = (review.hunks.iter().enumerate())
            .map(|(at, hunk)| (hunk.id.clone(), at))
            .collect();
        let hunk_file = (review.hunks.iter())
            .map(|hunk| files.get(&hunk.file_id).copied().unwrap_or(usize::MAX))
            .collect();
        let mut hunk_chapter = vec![None; review.hunks.len()];
        for (chapter, c) in review.chapters.iter().enumerate() {
            for id in &c.hunk_ids {
                if let Some(at) = hunks.get(id) {
                    hunk_chapter[*at] = Some(chapter);
                }
            }
        }
        Self {
            files,
            hunks,
            hunk_file,
            hunk_chapter,
        }
    }

    /// The file of this id.
    pub(crate) fn file(&self, id: &str) -> Option<usize> {
        self.files.get(id).copied()
    }

    /// The hunk of this id.
    pub(crate) fn hunk(&self, id: &str) -> Option<usize> {
        self.hunks.get(id).copied()
    }

    /// Hunk `hunk`'s file.
    pub(crate) fn file_of(&self, hunk: usize) -> usize {
        self.hunk_file[hunk]
    }

    /// Hunk `hunk`'s chapter.
    pub(crate) fn chapter_of(&self, hunk: usize) -> Option<usize> {
        self.hunk_chapter.get(hunk).copied().flatten()
    }

    /// Where a finding anchored at `anchor` sits in `review`: under its line (a range's last),
    /// else under its hunk's header, else at its file's top, else elsewhere.
    pub(crate) fn spot(&self, review: &Review, anchor: &Anchor) -> Spot {
        let (file_id, hunk_id, line) = match anchor {
            Anchor::Line {
                file_id,
                hunk_id,
                side,
                line,
            } => (file_id, Some(hunk_id), Some((*side, *line))),
            Anchor::Range {
                file_id,
                hunk_id,
                side,
                end_line,
                ..
            } => (file_id, Some(hunk_id), Some((*side, *end_line))),
            Anchor::Hunk { file_id, hunk_id } => (file_id, Some(hunk_id), None),
            Anchor::File { file_id } => (file_id, None, None),
        };
        let file = self.file(file_id);
        let hunk = hunk_id
            .and_then(|id| self.hunk(id))
            .filter(|h| Some(self.file_of(*h)) == file);
        match (hunk, line, file) {
            (Some(h), Some((side, number)), _) => line_at(&review.hunks[h], side, number)
                .map_or(Spot::Hunk(h), |at| Spot::Line(h, at)),
            (Some(h), None, _) => Spot::Hunk(h),
            (None, _, Some(f)) => Spot::File(f),
            (None, _, None) => Spot::Elsewhere,
        }
    }
}

/// The position in `hunk` of its line numbered `number` on `side`.
pub(crate) fn line_at(hunk: &Hunk, side: Side, number: u32) -> Option<usize> {
    hunk.lines.iter().position(|line| {
        let on_side = match side {
            Side::Old => line.old_line,
            Side::New => line.new_line,
        };
        on_side == Some(number)
    })
}

/// The page of `section`: `findings` lists, by spot, the session's findings that sit there.
pub(crate) fn page(
    review: &Review,
    index: &Index,
    findings: &BTreeMap<Spot, Vec<usize>>,
    section: Section,
) -> Vec<Item> {
    let mut items = vec![Item::Heading];
    let chapter = match section {
        Section::Chapter(at) => &review.chapters[at],
        Section::Elsewhere => {
            let elsewhere = findings.get(&Spot::Elsewhere).into_iter().flatten();
            items.extend(elsewhere.map(|finding| Item::Finding {
                finding: *finding,
                under: None,
            }));
            return items;
        }
    };
    let mut file = None;
    for id in &chapter.hunk_ids {
        let Some(h) = index.hunk(id) else { continue };
        let f = index.file_of(h);
        // A hunk of no file of the review has nowhere to be shown (luxe never sends one).
        if f >= review.files.len() {
            continue;
        }
        if file != Some(f) {
            file = Some(f);
            push(&mut items, findings, Item::File(f), Spot::File(f));
        }
        push(&mut items, findings, Item::Hunk(h), Spot::Hunk(h));
        for line in 0..review.hunks[h].lines.len() {
            push(
                &mut items,
                findings,
                Item::Line { hunk: h, line },
                Spot::Line(h, line),
            );
        }
    }
    items
}

/// Adds `item` to `items`, then the findings that sit at `spot` under it.
fn push(items: &mut Vec<Item>, findings: &BTreeMap<Spot, Vec<usize>>, item: Item, spot: Spot) {
    items.push(item);
    let under = Some(items.len() - 1);
    for finding in findings.get(&spot).into_iter().flatten() {
        items.push(Item::Finding {
            finding: *finding,
            under,
        });
    }
}
