//! The open review as the view holds it: the review and its session, the page of the chapter
//! shown, the cursor on it and in the left pane, how the cursor moves, and how it keeps its
//! place (the same finding, hunk line, hunk or file) when the review is read again or the
//! session changes.

use std::collections::BTreeMap;
use std::sync::Arc;

use luxe_core::protocol::findings::{Finding, ReviewSession};
use luxe_core::protocol::guided_review::Review;

use super::outline::{Entry, outline};
use super::page::{Index, Item, Section, Spot, page};
use super::spans::digits;

/// Which pane the keys move in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Focus {
    /// The chapters and files on the left.
    Outline,
    /// The chapter's page on the right.
    Page,
}

/// What the cursor is on, by id, so it can be found again in a review read anew.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Finding(String),
    /// A hunk's line by its position: a hunk's id hashes its lines, so the same id has the
    /// same lines in the same order.
    Line(String, usize),
    Hunk(String),
    File(String),
}

/// The open review and where the person is in it.
#[derive(Debug, Clone)]
pub(crate) struct Open {
    /// The review as last loaded or read again.
    pub review: Arc<Review>,
    /// Its findings, as last saved.
    pub session: ReviewSession,
    /// The review's ids by position.
    pub index: Index,
    /// The session's findings by where they sit.
    spots: BTreeMap<Spot, Vec<usize>>,
    /// The left pane's rows.
    pub outline: Vec<Entry>,
    /// The page shown.
    pub section: Section,
    /// The page's rows, top to bottom.
    pub items: Vec<Item>,
    /// The item the cursor is on: never the heading while the page has anything else.
    pub cursor: usize,
    /// The first item drawn (drawing moves it to keep the cursor on screen).
    pub top: usize,
    /// The line `v` marked, the other end of a range.
    pub mark: Option<usize>,
    /// Which pane the keys move in.
    pub focus: Focus,
    /// The left pane's highlighted row.
    pub outline_at: usize,
    /// The left pane's first row drawn.
    pub outline_top: usize,
    /// How many items the last drawing showed whole (PageUp and PageDown move by it).
    pub items_shown: usize,
    /// How many digits the widest line number has: the line numbers' columns.
    pub digits: usize,
}

impl Open {
    /// `review` opened on its first chapter, the page focused, the cursor on the first hunk.
    pub(crate) fn new(review: Arc<Review>) -> Self {
        let session = ReviewSession {
            id: review.id.clone(),
            revision: 0,
            findings: Vec::new(),
            notes: Vec::new(),
        };
        let index = Index::new(&review);
        let digits = digits(&review);
        let mut open = Self {
            outline: outline(&review, &index),
            review,
            session,
            index,
            spots: BTreeMap::new(),
            section: Section::Elsewhere,
            items: Vec::new(),
            cursor: 0,
            top: 0,
            mark: None,
            focus: Focus::Page,
            outline_at: 0,
            outline_top: 0,
            items_shown: 1,
            digits,
        };
        open.place_findings();
        let first = open
            .sections()
            .first()
            .copied()
            .unwrap_or(Section::Elsewhere);
        open.show(first);
        open
    }

    /// The pages in order: the chapters, then the findings no longer in the diff (if any).
    pub(crate) fn sections(&self) -> Vec<Section> {
        let mut sections: Vec<Section> = (0..self.review.chapters.len())
            .map(Section::Chapter)
            .collect();
        if self.elsewhere() > 0 {
            sections.push(Section::Elsewhere);
        }
        sections
    }

    /// How many findings are no longer in the diff.
    pub(crate) fn elsewhere(&self) -> usize {
        self.spots.get(&Spot::Elsewhere).map_or(0, Vec::len)
    }

    /// Shows `section`, the cursor on its first hunk (or its first item).
    pub(crate) fn show(&mut self, section: Section) {
        self.section = section;
        self.items = page(&self.review, &self.index, &self.spots, section);
        self.cursor = self.first_of(|item| matches!(item, Item::Hunk(_)));
        self.top = 0;
        self.mark = None;
        self.sync_outline();
    }

    /// The first item `wanted`, else the first after the heading, else the heading.
    fn first_of(&self, wanted: impl Fn(&Item) -> bool) -> usize {
        (self.items.iter().position(wanted)).unwrap_or(usize::from(self.items.len() > 1))
    }

    /// The finding the cursor is on.
    pub(crate) fn finding(&self) -> Option<&Finding> {
        match self.items.get(self.cursor)? {
            Item::Finding { finding, .. } => self.session.findings.get(*finding),
            _ => None,
        }
    }

    /// The file item `at` belongs to.
    pub(crate) fn file_of_item(&self, at: usize) -> Option<usize> {
        match *self.items.get(at)? {
            Item::File(file) => Some(file),
            Item::Hunk(hunk) | Item::Line { hunk, .. } => Some(self.index.file_of(hunk)),
            Item::Finding { under, .. } => self.file_of_item(under?),
            Item::Heading => None,
        }
    }

    /// The hunk item `at` belongs to.
    pub(crate) fn hunk_of_item(&self, at: usize) -> Option<usize> {
        match *self.items.get(at)? {
            Item::Hunk(hunk) | Item::Line { hunk, .. } => Some(hunk),
            Item::Finding { under, .. } => self.hunk_of_item(under?),
            Item::File(_) | Item::Heading => None,
        }
    }

    /// The line item `at` is, or sits under: `(hunk, line)`.
    pub(crate) fn line_of_item(&self, at: usize) -> Option<(usize, usize)> {
        match *self.items.get(at)? {
            Item::Line { hunk, line } => Some((hunk, line)),
            Item::Finding { under, .. } => self.line_of_item(under?),
            _ => None,
        }
    }

    /// Moves the cursor `by` items, staying on the page.
    pub(crate) fn move_by(&mut self, by: isize) {
        let last = self.items.len().saturating_sub(1);
        let first = usize::from(last > 0);
        self.cursor = self.cursor.saturating_add_signed(by).clamp(first, last);
        self.moved();
    }

    /// To the page's first item (the heading shows again) or its last.
    pub(crate) fn edge(&mut self, bottom: bool) {
        if bottom {
            self.cursor = self.items.len().saturating_sub(1);
        } else {
            self.cursor = usize::from(self.items.len() > 1);
            self.top = 0;
        }
        self.moved();
    }

    /// To the next (or previous) item `wanted` on the page, else to the first (or last) one
    /// of the next (or previous) chapter that has one.
    pub(crate) fn jump(&mut self, forward: bool, wanted: fn(&Item) -> bool) {
        let here = if forward {
            (self.cursor + 1..self.items.len()).find(|at| wanted(&self.items[*at]))
        } else {
            (1..self.cursor).rev().find(|at| wanted(&self.items[*at]))
        };
        if let Some(at) = here {
            self.cursor = at;
            return self.moved();
        }
        let Section::Chapter(mut chapter) = self.section else {
            return;
        };
        loop {
            chapter = match (forward, chapter.checked_sub(1)) {
                (true, _) if chapter + 1 < self.review.chapters.len() => chapter + 1,
                (false, Some(before)) => before,
                _ => return,
            };
            let items = page(
                &self.review,
                &self.index,
                &self.spots,
                Section::Chapter(chapter),
            );
            let found = if forward {
                items.iter().position(wanted)
            } else {
                items.iter().rposition(wanted)
            };
            if let Some(at) = found {
                self.show(Section::Chapter(chapter));
                self.cursor = at;
                return self.moved();
            }
        }
    }

    /// To the next (or previous) page.
    pub(crate) fn next_section(&mut self, forward: bool) {
        let sections = self.sections();
        let here = sections.iter().position(|s| *s == self.section);
        let next = match (here, forward) {
            (Some(at), true) => sections.get(at + 1),
            (Some(at), false) => at.checked_sub(1).and_then(|at| sections.get(at)),
            (None, _) => sections.first(),
        };
        if let Some(next) = next.copied() {
            self.show(next);
        }
    }

    /// Moves the left pane's highlight `by` rows; the page follows it.
    pub(crate) fn outline_by(&mut self, by: isize) {
        let last = self.outline.len().saturating_sub(1);
        let at = self.outline_at.saturating_add_signed(by).min(last);
        self.select(at);
    }

    /// Highlights row `at` of the left pane and shows its chapter (at its file).
    pub(crate) fn select(&mut self, at: usize) {
        let Some(entry) = self.outline.get(at).copied() else {
            return;
        };
        match entry {
            Entry::Chapter(chapter) => self.show(Section::Chapter(chapter)),
            Entry::File { chapter, file, .. } => {
                if self.section != Section::Chapter(chapter) {
                    self.show(Section::Chapter(chapter));
                }
                if let Some(header) = (self.items.iter()).position(|i| *i == Item::File(file)) {
                    self.cursor = header;
                }
            }
            Entry::Elsewhere(_) => self.show(Section::Elsewhere),
        }
        self.outline_at = at;
    }

    /// After the cursor moved: a mark outside the cursor's hunk is dropped, and the left pane
    /// highlights where the cursor is.
    fn moved(&mut self) {
        if self
            .mark
            .is_some_and(|m| self.hunk_of_item(m) != self.hunk_of_item(self.cursor))
        {
            self.mark = None;
        }
        self.sync_outline();
    }

    /// Highlights the left pane's row of the cursor's file (or its chapter).
    fn sync_outline(&mut self) {
        let file = self.file_of_item(self.cursor);
        let found = self
            .outline
            .iter()
            .position(|entry| match (self.section, entry) {
                (
                    Section::Chapter(c),
                    Entry::File {
                        chapter, file: f, ..
                    },
                ) => *chapter == c && Some(*f) == file,
                (Section::Elsewhere, Entry::Elsewhere(_)) => true,
                _ => false,
            });
        let chapter = || {
            (self.outline.iter()).position(|e| matches!((self.section, e), (Section::Chapter(c), Entry::Chapter(d)) if c == *d))
        };
        if let Some(at) = found.or_else(chapter) {
            self.outline_at = at;
        }
    }

    /// The session's findings placed anew, and the left pane's last row for those no longer
    /// in the diff.
    fn place_findings(&mut self) {
        self.spots.clear();
        for (at, finding) in self.session.findings.iter().enumerate() {
            let spot = self.index.spot(&self.review, &finding.anchor);
            self.spots.entry(spot).or_default().push(at);
        }
        if let Some(Entry::Elsewhere(_)) = self.outline.last() {
            self.outline.pop();
        }
        if self.elsewhere() > 0 {
            self.outline.push(Entry::Elsewhere(self.elsewhere()));
        }
    }

    /// The session as saved now; the cursor stays where it was.
    pub(crate) fn replace_session(&mut self, session: ReviewSession) {
        if session.id != self.review.id {
            return;
        }
        let places = self.places(self.cursor);
        self.session = session;
        self.place_findings();
        self.restore(&places);
    }

    /// The review as read again; the cursor stays on what it was on, if that is still there.
    pub(crate) fn replace_review(&mut self, review: Arc<Review>) {
        if review.id != self.review.id {
            return;
        }
        let places = self.places(self.cursor);
        self.review = review;
        self.index = Index::new(&self.review);
        self.digits = digits(&self.review);
        self.outline = outline(&self.review, &self.index);
        self.place_findings();
        self.restore(&places);
    }

    /// What item `at` is, by id, the most precise first.
    fn places(&self, at: usize) -> Vec<Place> {
        let Some(item) = self.items.get(at) else {
            return Vec::new();
        };
        let review = &self.review;
        let hunk = |h: usize| {
            let file = &review.files[self.index.file_of(h)].id;
            [
                Place::Hunk(review.hunks[h].id.clone()),
                Place::File(file.clone()),
            ]
        };
        match *item {
            Item::Heading => Vec::new(),
            Item::File(f) => vec![Place::File(review.files[f].id.clone())],
            Item::Hunk(h) => hunk(h).to_vec(),
            Item::Line { hunk: h, line } => {
                let mut places = vec![Place::Line(review.hunks[h].id.clone(), line)];
                places.extend(hunk(h));
                places
            }
            Item::Finding { finding, under } => {
                let mut places = vec![Place::Finding(self.session.findings[finding].id.clone())];
                places.extend(under.map(|u| self.places(u)).unwrap_or_default());
                places
            }
        }
    }

    /// Shows the page that holds the first of `places` that is still there, the cursor on
    /// it; else the chapter at the same position, the cursor on its first hunk.
    fn restore(&mut self, places: &[Place]) {
        let chapters = self.review.chapters.len();
        let section = match (places.iter().find_map(|p| self.section_of(p)), self.section) {
            (Some(section), _) => section,
            (None, Section::Chapter(c)) if c < chapters => Section::Chapter(c),
            _ if chapters > 0 => Section::Chapter(chapters - 1),
            _ => Section::Elsewhere,
        };
        let (top, focus) = (self.top, self.focus);
        self.show(section);
        self.focus = focus;
        let found = places
            .iter()
            .find_map(|place| (self.items.iter()).position(|item| self.is_at(item, place)));
        if let Some(at) = found {
            self.cursor = at;
            self.top = top.min(at);
        }
        self.moved();
    }

    /// The page `place` is on, if it is still in the review.
    fn section_of(&self, place: &Place) -> Option<Section> {
        let hunk = match place {
            Place::Finding(id) => {
                let finding = self.session.findings.iter().find(|f| f.id == *id)?;
                match self.index.spot(&self.review, &finding.anchor) {
                    Spot::Line(hunk, _) | Spot::Hunk(hunk) => hunk,
                    Spot::File(file) => {
                        self.index.hunk(self.review.files[file].hunk_ids.first()?)?
                    }
                    Spot::Elsewhere => return Some(Section::Elsewhere),
                }
            }
            Place::Line(id, _) | Place::Hunk(id) => self.index.hunk(id)?,
            Place::File(id) => {
                let file = self.index.file(id)?;
                self.index.hunk(self.review.files[file].hunk_ids.first()?)?
            }
        };
        self.index.chapter_of(hunk).map(Section::Chapter)
    }

    /// Whether `item` is what `place` names.
    fn is_at(&self, item: &Item, place: &Place) -> bool {
        let review = &self.review;
        match (item, place) {
            (Item::Finding { finding, .. }, Place::Finding(id)) => {
                self.session.findings[*finding].id == *id
            }
            (Item::Line { hunk, line }, Place::Line(id, at)) => {
                review.hunks[*hunk].id == *id && line == at
            }
            (Item::Hunk(hunk), Place::Hunk(id)) => review.hunks[*hunk].id == *id,
            (Item::File(file), Place::File(id)) => review.files[*file].id == *id,
            _ => false,
        }
    }
}
