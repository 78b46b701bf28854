//! The left pane: the chapters in reading order, each followed by its files with the lines the
//! chapter adds and deletes in each (and, added by the open review, the page of findings no
//! longer in the diff when there are any).

use std::collections::BTreeMap;

use luxe_core::protocol::guided_review::{LineKind, Review};

use super::page::Index;

/// One row of the left pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `review.chapters[_]`.
    Chapter(usize),
    /// A file of a chapter.
    File {
        /// Its index in `review.chapters`.
        chapter: usize,
        /// `review.files[_]`.
        file: usize,
        /// Lines the chapter's hunks of the file add.
        additions: u32,
        /// Lines they delete.
        deletions: u32,
    },
    /// The page of this many findings whose file is no longer in the diff.
    Elsewhere(usize),
}

/// The chapters of `review` and their files.
pub(crate) fn outline(review: &Review, index: &Index) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (chapter, c) in review.chapters.iter().enumerate() {
        entries.push(Entry::Chapter(chapter));
        // Where each file's entry is, for a file whose hunks the chapter does not hold together.
        let mut rows = BTreeMap::new();
        for id in &c.hunk_ids {
            let Some(h) = index.hunk(id) else { continue };
            let file = index.file_of(h);
            if file >= review.files.len() {
                continue;
            }
            let row = *rows.entry(file).or_insert_with(|| {
                entries.push(Entry::File {
                    chapter,
                    file,
                    additions: 0,
                    deletions: 0,
                });
                entries.len() - 1
            });
            if let Entry::File {
                additions,
                deletions,
                ..
            } = &mut entries[row]
            {
                for line in &review.hunks[h].lines {
                    match line.kind {
                        LineKind::Add => *additions += 1,
                        LineKind::Del => *deletions += 1,
                        LineKind::Context => {}
                    }
                }
            }
        }
    }
    entries
}
