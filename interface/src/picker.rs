//! A list to choose one thing from, shown above the composer: the models `list_models` gave
//! (`/model`) or this directory's sessions `list_sessions` gave (`/sessions`). Up and Down move,
//! typing narrows the list, Enter takes the highlighted entry, Esc closes it.

/// What taking an entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Switch to this model (`set_model`).
    Model(String),
    /// Resume this stored session in place of the current one.
    Session(String),
}

/// One entry: what it shows and what taking it does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The line shown (and matched against what is typed).
    pub label: String,
    /// Why it cannot be taken now (a model whose provider is not configured), shown beside it.
    pub unavailable: Option<String>,
    /// What taking it does.
    pub pick: Pick,
}

/// The open list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Picker {
    /// What the list is of, shown above it.
    pub title: String,
    entries: Vec<Entry>,
    /// What was typed to narrow it.
    pub filter: String,
    /// Which of the entries matching `filter` is highlighted.
    selected: usize,
}

impl Picker {
    /// A list titled `title` of `entries`, the first highlighted.
    pub(crate) fn new(title: impl Into<String>, entries: Vec<Entry>) -> Self {
        Self {
            title: title.into(),
            entries,
            filter: String::new(),
            selected: 0,
        }
    }

    /// The entries whose label holds what was typed (ignoring case), in their order.
    pub(crate) fn matching(&self) -> Vec<&Entry> {
        let filter = self.filter.to_lowercase();
        self.entries
            .iter()
            .filter(|e| e.label.to_lowercase().contains(&filter))
            .collect()
    }

    /// Which of [`Picker::matching`] is highlighted (0 when none match).
    pub(crate) fn selected(&self) -> usize {
        self.selected.min(self.matching().len().saturating_sub(1))
    }

    /// Moves the highlight by `by` entries, stopping at either end.
    pub(crate) fn step(&mut self, by: isize) {
        let last = self.matching().len().saturating_sub(1);
        self.selected = self.selected().saturating_add_signed(by).min(last);
    }

    /// Narrows the list by one more typed character.
    pub(crate) fn type_char(&mut self, c: char) {
        self.filter.push(c);
        self.selected = 0;
    }

    /// Takes back the last typed character.
    pub(crate) fn backspace(&mut self) {
        self.filter.pop();
        self.selected = 0;
    }

    /// The highlighted entry, if any matches.
    pub(crate) fn current(&self) -> Option<&Entry> {
        self.matching().get(self.selected()).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    fn models(ids: &[&str]) -> Picker {
        let entries = ids
            .iter()
            .map(|id| Entry {
                label: (*id).to_owned(),
                unavailable: None,
                pick: Pick::Model((*id).to_owned()),
            })
            .collect();
        Picker::new("models", entries)
    }

    #[test]
    fn typing_narrows_and_the_highlight_stays_on_a_match() {
        let mut picker = models(&["anthropic/claude", "openai/gpt-4o", "openai/o3"]);
        picker.step(2);
        assert_eq!(
            picker.current().map(|e| &e.pick),
            Some(&Pick::Model("openai/o3".into()))
        );
        for c in "gpt".chars() {
            picker.type_char(c);
        }
        assert_eq!(picker.matching().len(), 1);
        assert_eq!(
            picker.current().map(|e| &e.pick),
            Some(&Pick::Model("openai/gpt-4o".into()))
        );
        picker.type_char('z');
        assert_eq!(picker.current(), None);
        picker.backspace();
        assert!(picker.current().is_some());
    }

    quickcheck! {
        fn the_highlight_is_always_a_shown_entry(moves: Vec<(i8, Option<char>)>) -> bool {
            let mut picker = models(&["a", "ab", "abc", "b"]);
            moves.into_iter().all(|(by, typed)| {
                match typed {
                    Some('\u{8}') => picker.backspace(),
                    Some(c) => picker.type_char(c),
                    None => picker.step(isize::from(by)),
                }
                let shown = picker.matching().len();
                (shown == 0 && picker.current().is_none()) || picker.selected() < shown
            })
        }
    }
}
