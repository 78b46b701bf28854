//! What names a stored session: the text of the first turn a person opened, never a prompt
//! Luxe composed (a guided review's comment or fix request). Files written before Luxe recorded
//! who opened each turn are named, as they were then, by their first user message.

use super::Writer;
use crate::model::conversation::{Block, Message, Role};

/// The session's name, as its message records go by.
#[derive(Debug, Default)]
pub(super) struct Title {
    /// The first person's opening text.
    person: Option<String>,
    /// Whether any record said who wrote it: then only a person's text names the session.
    writers_recorded: bool,
    /// The first user message's first text (`""` without one), for files without writers.
    first_user: Option<String>,
}

impl Title {
    /// Takes the next message record: `message`, opened by `by` when it opened a turn.
    pub(super) fn note(&mut self, message: &Message, by: Option<Writer>) {
        match by {
            Some(Writer::Person) => {
                self.writers_recorded = true;
                if self.person.is_none() {
                    // An issue's text may precede what the person typed, which comes last.
                    self.person = texts(message).next_back().map(str::to_owned);
                }
            }
            Some(Writer::Luxe) => self.writers_recorded = true,
            None if message.role == Role::User && self.first_user.is_none() => {
                self.first_user = Some(texts(message).next().unwrap_or_default().to_owned());
            }
            None => {}
        }
    }

    /// The name, whole (a listing redacts and cuts it); empty when no person opened a turn.
    pub(super) fn text(self) -> String {
        let name = if self.writers_recorded {
            self.person
        } else {
            self.first_user
        };
        name.unwrap_or_default()
    }
}

/// The text blocks of `message`, in order.
fn texts(message: &Message) -> impl DoubleEndedIterator<Item = &str> {
    message.content.iter().filter_map(|block| match block {
        Block::Text { text } => Some(text.as_str()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(texts: &[&str]) -> Message {
        Message {
            role: Role::User,
            content: texts
                .iter()
                .map(|t| Block::Text {
                    text: (*t).to_owned(),
                })
                .collect(),
        }
    }

    fn named(records: &[(Message, Option<Writer>)]) -> String {
        let mut title = Title::default();
        for (message, by) in records {
            title.note(message, *by);
        }
        title.text()
    }

    #[test]
    fn a_person_names_the_session_never_a_prompt_luxe_composed() {
        let review = (
            user(&["This is a guided code review. …"]),
            Some(Writer::Luxe),
        );
        let typed = (
            user(&["Issue #12: Frobs crash", "fix it"]),
            Some(Writer::Person),
        );
        let later = (user(&["and then?"]), Some(Writer::Person));
        assert_eq!(named(&[review.clone(), typed.clone(), later]), "fix it");
        assert_eq!(named(&[review]), "", "only Luxe's words: no name");
        let old = (user(&["from an older file"]), None);
        assert_eq!(
            named(&[old.clone(), typed]),
            "fix it",
            "a writer recorded wins"
        );
        assert_eq!(named(&[old]), "from an older file");
        assert_eq!(named(&[]), "");
    }
}
