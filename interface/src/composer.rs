//! The composer: the text being written, its cursor, and the earlier inputs Up and Down walk.

/// A paste longer than this many lines shows as `[pasted N lines]` (and is sent whole).
const PASTE_SHOWN_LINES: usize = 1_000;

/// A paste longer than this many bytes shows as a placeholder too, however few its lines: the
/// composer is folded on every frame, and a 10 MB line would cost each frame its length.
const PASTE_SHOWN_BYTES: usize = 64 * 1024;

/// The text being written.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Composer {
    text: String,
    /// A byte offset into `text`, on a character boundary.
    cursor: usize,
    /// Earlier inputs, oldest first.
    history: Vec<String>,
    /// Which earlier input is shown (an index into `history`), while walking it.
    walking: Option<usize>,
    /// What was being written before the walk began.
    draft: String,
    /// An input just added to `history`, not yet taken to be kept across runs.
    fresh: Option<String>,
    /// Large pastes, kept whole and shown as a placeholder: (placeholder, text).
    pastes: Vec<(String, String)>,
}

impl Composer {
    /// The text as shown (a large paste as its placeholder).
    pub(crate) fn shown(&self) -> &str {
        &self.text
    }

    /// The cursor's byte offset in [`Composer::shown`].
    pub(crate) fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether nothing is written.
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Inserts `c` at the cursor.
    pub(crate) fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
        self.walking = None;
    }

    /// Inserts pasted text as it is (a very long paste as a placeholder).
    pub(crate) fn paste(&mut self, pasted: &str) {
        let pasted = pasted.replace("\r\n", "\n").replace('\r', "\n");
        let lines = pasted.lines().count();
        let shown = if lines > PASTE_SHOWN_LINES || pasted.len() > PASTE_SHOWN_BYTES {
            let placeholder = if lines > PASTE_SHOWN_LINES {
                format!("[pasted {lines} lines]")
            } else {
                format!("[pasted {} KB]", pasted.len().div_ceil(1024))
            };
            self.pastes.push((placeholder.clone(), pasted));
            placeholder
        } else {
            pasted
        };
        self.text.insert_str(self.cursor, &shown);
        self.cursor += shown.len();
        self.walking = None;
    }

    /// Deletes the character before the cursor.
    pub(crate) fn backspace(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
            self.text.remove(self.cursor);
        }
    }

    /// Deletes the character at the cursor.
    pub(crate) fn delete(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    /// Moves the cursor one character left.
    pub(crate) fn left(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
        }
    }

    /// Moves the cursor one character right.
    pub(crate) fn right(&mut self) {
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    /// Moves the cursor to the start of its line.
    pub(crate) fn home(&mut self) {
        self.cursor = self.text[..self.cursor].rfind('\n').map_or(0, |at| at + 1);
    }

    /// Moves the cursor to the end of its line.
    pub(crate) fn end(&mut self) {
        self.cursor += self.text[self.cursor..]
            .find('\n')
            .unwrap_or(self.text.len() - self.cursor);
    }

    /// Up: to the line above, or on the first line to the earlier input.
    pub(crate) fn up(&mut self) {
        match self.text[..self.cursor].rfind('\n') {
            Some(at) => self.cursor = self.text[..at].rfind('\n').map_or(0, |b| b + 1),
            None => {
                let at = match self.walking {
                    Some(0) => return,
                    Some(at) => at - 1,
                    None if self.history.is_empty() => return,
                    None => {
                        self.draft = std::mem::take(&mut self.text);
                        self.history.len() - 1
                    }
                };
                self.walking = Some(at);
                self.text = self.history[at].clone();
                self.cursor = self.text.len();
            }
        }
    }

    /// Down: to the line below, or on the last line to the later input (then the draft).
    pub(crate) fn down(&mut self) {
        match self.text[self.cursor..].find('\n') {
            Some(at) => {
                let next = self.cursor + at + 1;
                self.cursor = self.text[next..]
                    .find('\n')
                    .map_or(self.text.len(), |end| next + end);
            }
            None => {
                let Some(at) = self.walking else {
                    return;
                };
                if at + 1 < self.history.len() {
                    self.walking = Some(at + 1);
                    self.text = self.history[at + 1].clone();
                } else {
                    self.walking = None;
                    self.text = std::mem::take(&mut self.draft);
                }
                self.cursor = self.text.len();
            }
        }
    }

    /// Empties the composer (Ctrl+U).
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.walking = None;
        self.pastes.clear();
    }

    /// Takes what was written, whole (placeholders replaced by their pastes), into the
    /// history, and empties the composer.
    pub(crate) fn take(&mut self) -> String {
        let shown = std::mem::take(&mut self.text);
        let mut whole = shown.clone();
        for (placeholder, pasted) in self.pastes.drain(..) {
            whole = whole.replacen(&placeholder, &pasted, 1);
        }
        if !shown.trim().is_empty() && self.history.last() != Some(&shown) {
            self.fresh = Some(shown.clone());
            self.history.push(shown);
        }
        self.cursor = 0;
        self.walking = None;
        whole
    }

    /// The `@` word the cursor ends, if any: where its `@` is, and what follows it up to the
    /// cursor (`@src/ma|` gives the `@`'s offset and `src/ma`).
    pub(crate) fn at_word(&self) -> Option<(usize, &str)> {
        let before = &self.text[..self.cursor];
        let start = before.rfind(char::is_whitespace).map_or(0, |at| {
            at + before[at..].chars().next().map_or(1, char::len_utf8)
        });
        before[start..].strip_prefix('@').map(|word| (start, word))
    }

    /// Replaces the text from byte `start` to the cursor with `with`, the cursor after it.
    pub(crate) fn replace_to_cursor(&mut self, start: usize, with: &str) {
        let start = start.min(self.cursor);
        self.text.replace_range(start..self.cursor, with);
        self.cursor = start + with.len();
        self.walking = None;
    }

    /// Starts the history with inputs from earlier runs, oldest first.
    pub(crate) fn with_history(mut self, earlier: Vec<String>) -> Self {
        self.history = earlier;
        self
    }

    /// The input last added to the history, once (to be kept across runs).
    pub(crate) fn take_fresh(&mut self) -> Option<String> {
        self.fresh.take()
    }

    /// Takes what is written, as shown, leaving the composer empty and the history as it was.
    pub(crate) fn take_draft(&mut self) -> String {
        self.cursor = 0;
        self.walking = None;
        std::mem::take(&mut self.text)
    }

    /// Replaces the text (a completion), with the cursor at its end.
    pub(crate) fn set(&mut self, text: String) {
        self.cursor = text.len();
        self.text = text;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str) -> Composer {
        let mut c = Composer::default();
        text.chars().for_each(|ch| c.insert(ch));
        c
    }

    #[test]
    fn up_and_down_walk_earlier_inputs_from_the_first_and_last_lines() {
        let mut c = typed("one");
        c.take();
        c.paste("two\nlines");
        c.take();
        c.insert('x');
        c.up();
        assert_eq!(c.shown(), "two\nlines", "the latest first");
        c.up();
        assert_eq!(
            c.shown(),
            "two\nlines",
            "on its last line Up moves within it"
        );
        c.up();
        assert_eq!(c.shown(), "one");
        c.down();
        assert_eq!(c.shown(), "two\nlines");
        c.down();
        c.down();
        assert_eq!(c.shown(), "x", "back to the draft");
    }

    #[test]
    fn a_huge_paste_shows_as_a_placeholder_and_is_sent_whole() {
        let mut c = Composer::default();
        let pasted = "l\n".repeat(1_500);
        c.paste(&pasted);
        assert_eq!(c.shown(), "[pasted 1500 lines]");
        assert_eq!(c.take(), pasted.replace("\r\n", "\n"));
    }

    #[test]
    fn the_at_word_is_the_one_the_cursor_ends_and_replacing_it_keeps_the_rest() {
        let mut c = typed("look at @src/ma");
        assert_eq!(c.at_word(), Some((8, "src/ma")));
        c.replace_to_cursor(8, "@src/main.rs ");
        assert_eq!(c.shown(), "look at @src/main.rs ");
        assert_eq!(c.at_word(), None, "a space ends the word");
        let mut c = typed("é\u{3000}@x");
        assert_eq!(c.at_word().map(|(_, w)| w), Some("x"));
        c.home();
        assert_eq!(c.at_word(), None);
        assert_eq!(
            typed("mail@host").at_word(),
            None,
            "only a word that starts with @"
        );
    }

    #[test]
    fn a_huge_paste_of_few_lines_shows_as_its_size_and_is_sent_whole() {
        let mut c = typed("see: ");
        let pasted = "x".repeat(10_000_000);
        c.paste(&pasted);
        assert_eq!(c.shown(), "see: [pasted 9766 KB]");
        assert_eq!(c.take(), format!("see: {pasted}"));
    }

    #[test]
    fn editing_keeps_the_cursor_on_character_boundaries() {
        let mut c = typed("héllo");
        c.left();
        c.left();
        c.left();
        c.backspace();
        assert_eq!(c.shown(), "hllo");
        c.home();
        c.delete();
        c.end();
        c.insert('!');
        assert_eq!((c.shown(), c.cursor()), ("llo!", 4));
    }
}
