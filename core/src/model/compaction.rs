//! Compaction as pure functions of the conversation: how big it is, where the part kept word for
//! word may start, the older part as a transcript for the model to summarize, and the model's
//! view built from a summary and the kept part. The session compacts with these; the store
//! rebuilds the same view on resume with [`compacted_view`].

use super::conversation::{Block, Message, Role};

/// Put before the summary in the model's view, so the model knows what it is reading.
pub const SUMMARY_PREFIX: &str =
    "[The earlier part of this conversation was compacted to save context. Summary:]\n\n";

/// The system prompt of a summary request.
pub const SUMMARY_SYSTEM: &str = "You summarize a coding session between a user and an AI \
coding agent so that the agent can continue the work from your summary alone.";

/// What the summary must hold; the user's `instructions` are added after it.
const SUMMARY_REQUEST: &str = "Summarize the conversation above for the agent that continues \
it. Keep: the user's goals and requests, in their words where it matters; decisions made and \
why; files read, created and changed, with their paths; commands run and the results that \
matter; errors met and how they were solved; and what remains to do. Keep exact names, paths, \
identifiers and numbers. Write plain text, concisely, without preamble.";

/// A tool result longer than this is cut in the transcript: the summary needs what it said,
/// not all of it.
const TOOL_RESULT_CHARS: usize = 2_000;

/// Tokens counted for an image (providers charge roughly this for a screen-sized one).
const IMAGE_TOKENS: u64 = 1_600;

/// Tokens for `chars` characters of text or JSON: tokenizers average about four characters a
/// token on code and prose, which is all a decision about compacting needs.
pub fn tokens_of_chars(chars: usize) -> u64 {
    u64::try_from(chars).unwrap_or(u64::MAX).div_ceil(4)
}

/// An estimate of the tokens `messages` take in a request.
pub fn estimate_tokens(messages: &[Message]) -> u64 {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .map(|block| match block {
            Block::Text { text } | Block::Thinking { text, .. } => tokens_of_chars(text.len()),
            Block::Image { .. } => IMAGE_TOKENS,
            Block::ToolUse { name, input, .. } => {
                tokens_of_chars(name.len() + input.to_string().len())
            }
            Block::ToolResult {
                content, images, ..
            } => tokens_of_chars(content.len()) + IMAGE_TOKENS * images.len() as u64,
        })
        .sum()
}

/// Whether the view may start at `messages[at]`: at an answer of the model, or at a user message
/// that holds no tool results (whose calls would be left behind in the summary).
fn may_start_at(message: &Message) -> bool {
    match message.role {
        Role::Assistant => true,
        Role::User => !message
            .content
            .iter()
            .any(|b| matches!(b, Block::ToolResult { .. })),
    }
}

/// Where the part kept word for word starts: the earliest place whose tail fits in
/// `keep_tokens`, else the latest place there is, so that something is always summarized and
/// something always kept. `None` when there is no such place (nothing older to summarize).
pub fn cut_point(messages: &[Message], keep_tokens: u64) -> Option<usize> {
    let mut tail = 0u64;
    let mut latest = None;
    let mut fitting = None;
    for at in (1..messages.len()).rev() {
        tail = tail.saturating_add(estimate_tokens(&messages[at..=at]));
        if !may_start_at(&messages[at]) {
            continue;
        }
        latest.get_or_insert(at);
        if tail <= keep_tokens {
            fitting = Some(at);
        }
    }
    fitting.or(latest)
}

/// The summary a compacted view opens with, when `first` is such a view's first message.
pub fn summary_of(first: &Message) -> Option<&str> {
    match first.content.first() {
        Some(Block::Text { text }) if first.role == Role::User => text.strip_prefix(SUMMARY_PREFIX),
        _ => None,
    }
}

/// The model's view after compaction: the summary, then `kept` unchanged. The summary opens the
/// first kept message when that is the user's, so that roles still alternate. A summary that
/// `kept` opens with gives way to the new one: a cut is always past the summary, so it is kept
/// only when the summary itself is what is being dropped.
pub fn compacted_view(summary: &str, kept: &[Message]) -> Vec<Message> {
    let opening = Block::Text {
        text: format!("{SUMMARY_PREFIX}{summary}"),
    };
    let without_old;
    let kept = match kept.split_first() {
        Some((first, rest)) if summary_of(first).is_some() => {
            let mut first = first.clone();
            first.content.remove(0);
            without_old = std::iter::once(first)
                .filter(|m| !m.content.is_empty())
                .chain(rest.iter().cloned())
                .collect::<Vec<_>>();
            &without_old[..]
        }
        _ => kept,
    };
    let mut view = Vec::with_capacity(kept.len() + 1);
    match kept.split_first() {
        Some((first, rest)) if first.role == Role::User => {
            let mut first = first.clone();
            first.content.insert(0, opening);
            view.push(first);
            view.extend_from_slice(rest);
        }
        _ => {
            view.push(Message {
                role: Role::User,
                content: vec![opening],
            });
            view.extend_from_slice(kept);
        }
    }
    view
}

/// The characters `messages` take in a request (an image counts as what its tokens would be
/// at four characters a token), for estimates calibrated by the provider's own counts.
pub fn message_chars(messages: &[Message]) -> usize {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .map(|block| match block {
            Block::Text { text } | Block::Thinking { text, .. } => text.len(),
            Block::Image { .. } => IMAGE_TOKENS as usize * 4,
            Block::ToolUse { name, input, .. } => name.len() + input.to_string().len(),
            Block::ToolResult {
                content, images, ..
            } => content.len() + IMAGE_TOKENS as usize * 4 * images.len(),
        })
        .sum()
}

/// `older` as a plain-text transcript for a summary request: tool calls and results as text,
/// so the request needs no tools.
pub fn transcript(older: &[Message]) -> String {
    let mut transcript = String::new();
    for message in older {
        transcript.push_str(match message.role {
            Role::User => "## User\n",
            Role::Assistant => "## Assistant\n",
        });
        for block in &message.content {
            match block {
                Block::Text { text } => transcript.push_str(text),
                Block::Image { .. } => transcript.push_str("[an image]"),
                Block::Thinking { .. } => continue,
                Block::ToolUse { name, input, .. } => {
                    transcript.push_str(&format!("[tool call: {name} {input}]"));
                }
                Block::ToolResult {
                    content, is_error, ..
                } => {
                    transcript.push_str(if *is_error {
                        "[tool result, failed]\n"
                    } else {
                        "[tool result]\n"
                    });
                    transcript.push_str(head(content, TOOL_RESULT_CHARS));
                    if content.len() > TOOL_RESULT_CHARS {
                        transcript.push_str("\n[… cut]");
                    }
                }
            }
            transcript.push('\n');
        }
        transcript.push('\n');
    }
    transcript
}

/// The one user message of a summary request: the `transcript` of the older part, cut from the
/// front to `max_chars`, and what the summary must hold.
pub fn summary_request(transcript: &str, instructions: Option<&str>, max_chars: usize) -> Message {
    let shortened = transcript.len() > max_chars;
    let transcript = tail(transcript, max_chars);
    let mut text = String::with_capacity(transcript.len() + SUMMARY_REQUEST.len() + 128);
    text.push_str("<conversation>\n");
    if shortened {
        text.push_str("[… the earliest part is left out]\n");
    }
    text.push_str(transcript);
    text.push_str("</conversation>\n\n");
    text.push_str(SUMMARY_REQUEST);
    if let Some(instructions) = instructions.filter(|i| !i.trim().is_empty()) {
        text.push_str("\n\nThe user adds: ");
        text.push_str(instructions);
    }
    Message {
        role: Role::User,
        content: vec![Block::Text { text }],
    }
}

/// At most the first `max` bytes of `text`, cut at a character boundary.
fn head(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// At most the last `max` bytes of `text`, cut at a character boundary.
fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
pub(crate) mod tests;
