//! Placeholder redaction, replaced by the full one on branch perm-redact.

use std::borrow::Cow;

/// The secret values of a dotenv file's text.
pub fn secret_values(dotenv: &str) -> Vec<String> {
    dotenv
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(_, v)| v.trim().trim_matches('"').to_owned())
        .filter(|v| v.len() >= 6)
        .collect()
}

/// Replaces every occurrence of any secret with `[redacted]`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// A redactor for `secrets`.
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        Self {
            secrets: secrets.into_iter().collect(),
        }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret replaced.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = Cow::Owned(out.replace(s.as_str(), "[redacted]"));
            }
        }
        out
    }

    /// A redactor for chunked output.
    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor {
            redactor: self.clone(),
            held: String::new(),
        }
    }
}

/// Redacts output that arrives in chunks.
#[derive(Debug, Clone)]
pub struct StreamRedactor {
    redactor: Redactor,
    held: String,
}

impl StreamRedactor {
    /// Redacted text safe to show now.
    pub fn push(&mut self, chunk: &str) -> String {
        self.held.push_str(chunk);
        String::new()
    }

    /// The rest, redacted.
    pub fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        self.redactor.redact(&held).into_owned()
    }
}
