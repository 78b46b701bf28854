//! The conversation as the model sees it, and what it takes of the model's context: the
//! messages (after compaction, a summary and the rest), the provider's last count of them, the
//! characters per token that count shows, and what every request adds besides (the system
//! prompt and the tools). It decides nothing about when to compact: compaction asks it where a
//! cut may go and what a part would cost, and the session records to the store what changed.

use crate::model::compaction::{compacted_view, cut_point, message_chars, summary_of};
use crate::model::conversation::{Block, Message, Role};

/// Characters per token before the provider has counted any request: what tokenizers average
/// on prose and code. Lists, numbers and JSON take fewer (measured: 2.1–2.6).
const CHARS_PER_TOKEN_DEFAULT: f64 = 4.0;

/// How many characters of prose one character of JSON (the tools' definitions) counts for:
/// JSON takes 2.1–2.6 characters a token where prose takes about 4.
const JSON_WEIGHT: f64 = 1.6;

/// The model's view of the conversation and its size in tokens.
#[derive(Debug)]
pub(super) struct Conversation {
    messages: Vec<Message>,
    /// The provider's prompt tokens for the first `.0` messages, when it said.
    known_tokens: Option<(usize, u64)>,
    /// The characters the system prompt and tools add to a request, the tools' JSON weighted
    /// as prose ([`JSON_WEIGHT`]).
    overhead_chars: usize,
    /// Characters per token in this conversation, from the provider's last count.
    chars_per_token: f64,
}

impl Default for Conversation {
    fn default() -> Self {
        Self {
            messages: Vec::new(),
            known_tokens: None,
            overhead_chars: 0,
            chars_per_token: CHARS_PER_TOKEN_DEFAULT,
        }
    }
}

impl Conversation {
    /// The messages a request carries.
    pub(super) fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Adds a message at the end.
    pub(super) fn push(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// Adds `blocks` to the last message when it is the user's (so that roles keep
    /// alternating); `false`, changing nothing, when it is not.
    pub(super) fn extend_last_user(&mut self, blocks: &[Block]) -> bool {
        match self.messages.last_mut() {
            Some(last) if last.role == Role::User => {
                last.content.extend_from_slice(blocks);
                true
            }
            _ => false,
        }
    }

    /// Takes a restored session's view; no count is known for it yet.
    pub(super) fn restore(&mut self, view: Vec<Message>) {
        self.messages = view;
        self.known_tokens = None;
    }

    /// The size of what the next request adds besides the messages: `prose` characters (the
    /// system prompt) and `json` characters (the tools' definitions).
    pub(super) fn set_overhead(&mut self, prose: usize, json: usize) {
        self.overhead_chars = prose + (json as f64 * JSON_WEIGHT).ceil() as usize;
    }

    /// Characters per token in this conversation (the provider's last count shows it).
    pub(super) fn chars_per_token(&self) -> f64 {
        self.chars_per_token
    }

    /// The tokens the system prompt and the tools take, estimated.
    pub(super) fn overhead_tokens(&self) -> u64 {
        self.tokens_for_chars(self.overhead_chars)
    }

    /// The provider counted `prompt` tokens for the request that carried the first `len`
    /// messages: later estimates start from that count, at the characters per token it shows.
    pub(super) fn calibrate(&mut self, len: usize, prompt: u64) {
        if prompt == 0 || len > self.messages.len() {
            return;
        }
        let chars = message_chars(&self.messages[..len]) + self.overhead_chars;
        self.chars_per_token = (chars as f64 / prompt as f64).clamp(1.0, 8.0);
        self.known_tokens = Some((len, prompt));
    }

    /// The tokens a request with the whole view takes: the provider's count for what it last
    /// saw, plus an estimate of what came after; an estimate of everything without a count.
    pub(super) fn estimated_tokens(&self) -> u64 {
        match self.known_tokens {
            Some((len, tokens)) if len <= self.messages.len() => {
                tokens + self.estimate(&self.messages[len..])
            }
            _ => self.estimate(&self.messages) + self.overhead_tokens(),
        }
    }

    /// How many of [`Self::estimated_tokens`] are not the provider's count: the messages after
    /// its last count (all of them and the overhead before any), and how many messages that is.
    pub(super) fn uncounted(&self) -> (u64, usize) {
        match self.known_tokens {
            Some((len, _)) if len <= self.messages.len() => (
                self.estimate(&self.messages[len..]),
                self.messages.len() - len,
            ),
            _ => (self.estimated_tokens(), self.messages.len()),
        }
    }

    /// The tokens the first `len` messages take, estimated.
    pub(super) fn estimate_first(&self, len: usize) -> u64 {
        self.estimate(&self.messages[..len.min(self.messages.len())])
    }

    /// An estimate of the tokens `messages` take, at the calibrated characters per token.
    pub(super) fn estimate(&self, messages: &[Message]) -> u64 {
        self.tokens_for_chars(message_chars(messages))
    }

    /// Tokens for `chars` characters, at the calibrated characters per token.
    pub(super) fn tokens_for_chars(&self, chars: usize) -> u64 {
        (chars as f64 / self.chars_per_token).ceil() as u64
    }

    /// Where a view keeping about `tokens` of the latest conversation word for word may start
    /// (see [`cut_point`]); `None` when nothing older can go.
    pub(super) fn cut_keeping(&self, tokens: u64) -> Option<usize> {
        // `cut_point` counts four characters a token; `tokens` are calibrated ones.
        cut_point(
            &self.messages,
            (tokens as f64 * self.chars_per_token / 4.0) as u64,
        )
    }

    /// Where dropping older messages (for `note`) may cut so that about `tokens` remain; with
    /// no older message left, the summary the view opens with may go. `None` when no cut would
    /// make the view smaller.
    pub(super) fn drop_cut(&self, tokens: u64, note: &str) -> Option<usize> {
        let cut = self
            .cut_keeping(tokens)
            .or_else(|| summary_of(self.messages.first()?).map(|_| 0))?;
        let after = compacted_view(note, &self.messages[cut..]);
        (message_chars(&after) < message_chars(&self.messages)).then_some(cut)
    }

    /// Replaces the messages before `cut` with `summary`; how many messages were kept.
    pub(super) fn replace_older(&mut self, cut: usize, summary: &str) -> usize {
        let kept = self.messages.split_off(cut.min(self.messages.len()));
        self.messages = compacted_view(summary, &kept);
        self.known_tokens = None;
        kept.len()
    }
}

#[cfg(test)]
mod tests;
