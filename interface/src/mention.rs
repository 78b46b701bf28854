//! `@` completion: while the word at the cursor starts with `@`, the session is asked for the
//! paths that hold what follows (`complete_path`), and the best are offered above the composer.
//! Up and Down choose, Tab or Enter puts the chosen path in place of the word, Esc puts the
//! list away until the word changes.

/// The `@` word being completed and what the session offered for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mention {
    /// Where the word's `@` is in the composer.
    pub start: usize,
    /// What follows the `@`, as asked.
    pub prefix: String,
    /// The `complete_path` request that asked for it.
    pub request_id: String,
    /// The paths offered, best first (empty until the answer comes).
    pub paths: Vec<String>,
    /// Which path is highlighted.
    pub selected: usize,
    /// Esc put the list away for this word.
    pub dismissed: bool,
}

impl Mention {
    /// A word just asked about.
    pub(crate) fn asked(start: usize, prefix: &str, request_id: String) -> Self {
        Self {
            start,
            prefix: prefix.to_owned(),
            request_id,
            paths: Vec::new(),
            selected: 0,
            dismissed: false,
        }
    }

    /// Whether the list is on screen (and takes Up, Down, Tab, Enter and Esc).
    pub(crate) fn is_offered(&self) -> bool {
        !self.dismissed && !self.paths.is_empty()
    }

    /// The session's answer, if it is for this word as asked.
    pub(crate) fn answered(&mut self, request_id: &str, paths: &[String]) {
        if request_id == self.request_id {
            self.paths = paths.to_vec();
            self.selected = 0;
        }
    }

    /// Moves the highlight by `by`, stopping at either end.
    pub(crate) fn step(&mut self, by: isize) {
        let last = self.paths.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(by).min(last);
    }

    /// What replaces the word when a path is taken: `@path` and a space.
    pub(crate) fn chosen(&self) -> Option<String> {
        self.paths
            .get(self.selected)
            .map(|path| format!("@{path} "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_answer_to_this_word_is_offered_and_the_highlight_stays_in_it() {
        let mut mention = Mention::asked(0, "ma", "ui_2".into());
        assert!(!mention.is_offered());
        mention.answered("ui_1", &["old.rs".into()]);
        assert!(!mention.is_offered(), "an answer to an earlier word");
        mention.answered("ui_2", &["main.rs".into(), "src/main.rs".into()]);
        mention.step(5);
        assert_eq!(mention.chosen().as_deref(), Some("@src/main.rs "));
        mention.step(-9);
        assert_eq!(mention.chosen().as_deref(), Some("@main.rs "));
        mention.dismissed = true;
        assert!(!mention.is_offered());
    }
}
