//! The sizes a turn's requests keep to, as plain arithmetic over the model, its context window
//! and the conversation's estimates: the output asked for, when a request must compact first,
//! what a summary may take and how much of its transcript fits, how much of the recent
//! conversation compaction keeps, and what the history may take after a refusal.

use crate::model::catalogue::ModelRef;

use crate::session::conversation::Conversation;

/// The most of the recent conversation kept word for word.
const KEEP_TOKENS_MAX: u64 = 20_000;

/// The most tokens a summary may take.
const SUMMARY_MAX_TOKENS: u32 = 8_192;

/// Transcript characters sent when the context window is not known (about 100k tokens).
const TRANSCRIPT_CHARS_UNKNOWN_WINDOW: usize = 400_000;

/// Tokens a summary request takes besides its transcript (system prompt, instructions).
const SUMMARY_OVERHEAD_TOKENS: u64 = 400;

/// The most output tokens asked of a model whose limits are not known: more than that is a
/// small local model rambling until its context is full.
const OUTPUT_TOKENS_UNKNOWN: u32 = 4_096;

/// Output tokens always left room for when the window is known.
pub(super) const OUTPUT_TOKENS_MIN: u32 = 256;

/// The share of the uncounted estimate a request's output cap keeps back for the estimate's
/// error: text denser than its characters per token (code, numbers, another script) and a
/// chat template's own tokens for what it holds. One half: llama.cpp's server counted 1,551
/// tokens where luxe estimated 1,075 (+44%) for a first request of a list of numbers with the
/// tools rendered by a Qwen template (see docs/protocol.md, Compaction).
const ESTIMATE_MARGIN_DIVISOR: u64 = 2;

/// Tokens kept back for each message no provider counted: a chat template's role markers.
const TEMPLATE_TOKENS_PER_MESSAGE: u64 = 8;

/// Tokens kept back for every request: the template's system turn and the answer's opening.
const TEMPLATE_TOKENS: u64 = 32;

/// What the sizes are computed from, borrowed for one decision.
pub(in crate::session) struct Budget<'a> {
    /// The current model, if any.
    pub model: Option<&'a ModelRef>,
    /// The context window: the catalogue's, else what the server said.
    pub window: Option<u32>,
    pub conversation: &'a Conversation,
}

impl Budget<'_> {
    /// The most output tokens to ask of `model` for the next request: its limit (or a size
    /// for a model whose limits are not known), and no more than the window leaves.
    pub(in crate::session) fn max_output(&self, model: &ModelRef) -> u32 {
        let limit = if model.context_window().is_some() {
            model.max_output_tokens()
        } else {
            model.max_output_tokens().min(OUTPUT_TOKENS_UNKNOWN)
        };
        match self.window {
            Some(window) => {
                let left = u64::from(window).saturating_sub(self.prompt_bound());
                let left = u32::try_from(left).unwrap_or(u32::MAX);
                limit.min(left.max(OUTPUT_TOKENS_MIN))
            }
            None => limit,
        }
    }

    /// The most tokens the next request's prompt is taken to need: the estimate, and a margin
    /// for its error on what no provider counted yet, so that the prompt and the output cap fit
    /// the window even when the server counts more than luxe estimated.
    pub(in crate::session) fn prompt_bound(&self) -> u64 {
        let (uncounted, _) = self.conversation.uncounted();
        self.prompt_estimate() + uncounted.div_ceil(ESTIMATE_MARGIN_DIVISOR)
    }

    /// The next request's prompt as estimated, without a margin for the estimate's error: the
    /// conversation's estimate, and the chat template's tokens for the messages no provider
    /// counted and for the request.
    fn prompt_estimate(&self) -> u64 {
        let conversation = self.conversation;
        let (_, messages) = conversation.uncounted();
        conversation.estimated_tokens()
            + TEMPLATE_TOKENS_PER_MESSAGE * messages as u64
            + TEMPLATE_TOKENS
    }

    /// Whether the next request's estimate alone (without the margin for its error) and the
    /// least output ever asked for ([`Self::max_output`]'s floor) pass the window: a request
    /// the provider can only refuse.
    pub(super) fn past_the_window(&self) -> bool {
        self.window.is_some_and(|window| {
            self.prompt_estimate() + u64::from(OUTPUT_TOKENS_MIN) > u64::from(window)
        })
    }

    /// The tokens the history may take so that a request fits the window as estimated: the
    /// window less the system prompt and tools, the chat template's tokens and the least
    /// output. Unlike [`Self::history_budget`] (after a refusal, when the estimate proved
    /// wrong), it keeps all that fits.
    pub(super) fn history_room(&self) -> u64 {
        let conversation = self.conversation;
        self.window.map_or(u64::MAX, |window| {
            u64::from(window)
                .saturating_sub(conversation.overhead_tokens())
                .saturating_sub(TEMPLATE_TOKENS_PER_MESSAGE * conversation.messages().len() as u64)
                .saturating_sub(TEMPLATE_TOKENS)
                .saturating_sub(u64::from(OUTPUT_TOKENS_MIN))
        })
    }

    /// Whether the next request to `model` would come near the context window, leaving too
    /// little room for the answer: it should compact first.
    pub(in crate::session) fn near_the_window(&self, model: &ModelRef) -> bool {
        let Some(window) = self.window else {
            return false;
        };
        let window = u64::from(window);
        let reserve = u64::from(self.max_output(model)).min(window / 8);
        self.prompt_bound() + reserve > window * 9 / 10
    }

    /// The most tokens a summary may take: within the model's output and a quarter of the window.
    pub(super) fn summary_max_tokens(&self) -> u32 {
        let Some(model) = self.model else {
            return SUMMARY_MAX_TOKENS;
        };
        let limit = model
            .max_output_tokens()
            .min(OUTPUT_TOKENS_UNKNOWN)
            .min(SUMMARY_MAX_TOKENS);
        self.window.map_or(limit, |w| limit.min(w / 4))
    }

    /// How many characters of transcript a summary request may carry: what the window leaves
    /// besides the summary and the request's own text.
    pub(super) fn transcript_chars(&self) -> usize {
        self.window
            .map_or(TRANSCRIPT_CHARS_UNKNOWN_WINDOW, |window| {
                let room = u64::from(window)
                    .saturating_sub(u64::from(self.summary_max_tokens()))
                    .saturating_sub(SUMMARY_OVERHEAD_TOKENS);
                // A third kept back, as a request's cap allows for half as much again as the
                // estimate ([`Self::prompt_bound`]): characters per token are an average.
                (room as f64 * self.conversation.chars_per_token() * 2.0 / 3.0) as usize
            })
    }

    /// The tokens the history may take in a turn's request after a refusal: the window less
    /// the system prompt, tools and room for the answer, and at most half the current size (the
    /// window may be unknown, or the estimate off).
    pub(super) fn history_budget(&self) -> u64 {
        let conversation = self.conversation;
        let history = conversation.estimate(conversation.messages());
        let Some(window) = self.window else {
            return history / 2;
        };
        let window = u64::from(window);
        (window * 9 / 10)
            .saturating_sub(conversation.overhead_tokens())
            .saturating_sub(u64::from(OUTPUT_TOKENS_MIN).min(window / 8))
            .min(history / 2)
    }

    /// How much of the recent conversation compaction keeps word for word: a quarter of the
    /// window, and no more than the request after it has room for beside the system prompt and
    /// tools, the summary and the answer (allowing for the estimate's error as a request's cap
    /// does, so that on a small window it fits); a quarter of the conversation when the window
    /// is not known (so that most of it is summarized); at most 20,000 tokens.
    pub(super) fn keep_tokens(&self) -> u64 {
        let keep = match self.window {
            Some(window) => {
                let window = u64::from(window);
                let room = (window * 9 / 10)
                    .saturating_sub(self.conversation.overhead_tokens() * 3 / 2)
                    .saturating_sub(u64::from(self.summary_max_tokens()))
                    .saturating_sub(u64::from(OUTPUT_TOKENS_MIN).min(window / 8));
                (window / 4).min(room * 2 / 3)
            }
            None => self.conversation.estimated_tokens() / 4,
        };
        keep.min(KEEP_TOKENS_MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::conversation::{Block, Message, Role};

    fn conversation(chars: usize) -> Conversation {
        let mut conversation = Conversation::default();
        conversation.push(Message {
            role: Role::User,
            content: vec![Block::Text {
                text: "x".repeat(chars),
            }],
        });
        conversation
    }

    fn local() -> ModelRef {
        ModelRef::parse("openai/smollm").unwrap()
    }

    #[test]
    fn a_local_model_asks_a_capped_output_that_the_window_leaves_room_for() {
        let (small, model) = (conversation(400), local());
        let unknown = Budget {
            model: Some(&model),
            window: None,
            conversation: &small,
        };
        assert_eq!(
            unknown.max_output(&model),
            OUTPUT_TOKENS_UNKNOWN.min(model.max_output_tokens())
        );
        assert!(
            !unknown.near_the_window(&model),
            "no window, nothing is near it"
        );
        let tokens = small.estimated_tokens();
        let window = u32::try_from(tokens).unwrap() + 1_000;
        let known = Budget {
            window: Some(window),
            ..unknown
        };
        // The margin: a quarter of the uncounted estimate, the template's tokens for the one
        // message and the request.
        let margin = tokens.div_ceil(2) + TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS;
        assert_eq!(known.prompt_bound(), tokens + margin);
        let cap = u64::from(known.max_output(&model));
        assert_eq!(cap, 1_000 - margin);
        assert!(
            tokens * 3 / 2 + 8 + cap <= u64::from(window),
            "a server counting half as much again, with its template, still fits"
        );
        let full = Budget {
            window: Some(u32::try_from(tokens).unwrap()),
            ..known
        };
        assert_eq!(
            full.max_output(&model),
            OUTPUT_TOKENS_MIN,
            "room is always left"
        );
        assert!(full.near_the_window(&model));
    }

    #[test]
    fn on_a_small_window_compaction_keeps_only_what_the_next_request_has_room_for() {
        let (mut heavy, model) = (conversation(40_000), local());
        // A system prompt and tools of about 1,100 tokens, as luxe's are.
        heavy.set_overhead(400, 2_500);
        let budget = Budget {
            model: Some(&model),
            window: Some(2_048),
            conversation: &heavy,
        };
        let room = (2_048 * 9 / 10 - heavy.overhead_tokens() * 3 / 2).saturating_sub(512 + 256);
        assert_eq!(budget.keep_tokens(), (512).min(room * 2 / 3));
        assert!(
            budget.keep_tokens() < 512,
            "less than a quarter of the window"
        );
    }

    #[test]
    fn once_the_server_counted_the_margin_covers_only_what_came_after() {
        let (mut counted, model) = (conversation(400), local());
        counted.calibrate(1, 150);
        counted.push(Message {
            role: Role::Assistant,
            content: vec![Block::Text {
                text: "y".repeat(400),
            }],
        });
        let (uncounted, messages) = counted.uncounted();
        assert_eq!((uncounted, messages), (counted.estimated_tokens() - 150, 1));
        let budget = Budget {
            model: Some(&model),
            window: Some(2_048),
            conversation: &counted,
        };
        let margin = uncounted.div_ceil(2) + TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS;
        assert_eq!(budget.prompt_bound(), counted.estimated_tokens() + margin);
    }

    #[test]
    fn past_the_window_reserves_the_least_cap_ever_asked_and_the_room_keeps_what_fits() {
        let model = local();
        // 890 tokens as estimated with the template's: in a 1,024 window the least cap (256,
        // what `max_output` never goes below) does not fit beside them.
        let mut small = conversation(3_400);
        small.set_overhead(0, 0);
        let estimate = small.estimated_tokens() + TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS;
        let window = u32::try_from(estimate).unwrap() + 200;
        let budget = Budget {
            model: Some(&model),
            window: Some(window),
            conversation: &small,
        };
        assert_eq!(u64::from(budget.max_output(&model)), 256);
        assert!(budget.past_the_window(), "{estimate} + 256 > {window}");
        let roomy = Budget {
            window: Some(window + 56),
            ..budget
        };
        assert!(!roomy.past_the_window(), "{estimate} + 256 fit exactly");
        // What the history may take: all that fits beside the overhead, the template and the
        // least cap, more than half the history after a refusal would keep.
        let mut heavy = conversation(40_000);
        heavy.set_overhead(400, 2_500);
        let budget = Budget {
            model: Some(&model),
            window: Some(8_192),
            conversation: &heavy,
        };
        // 8,192 less 1,100 of system prompt and tools (400 + 2,500 × 1.6 characters at four a
        // token), 8 for the one message, 32 for the request and 256 for the answer.
        assert_eq!(budget.history_room(), 6_796);
        assert!(budget.history_room() > budget.history_budget());
        assert!(budget.past_the_window(), "10,000 tokens do not fit 8,192");
    }

    #[test]
    fn a_summary_and_what_compaction_keeps_fit_the_window() {
        let (long, model) = (conversation(400_000), local());
        let budget = Budget {
            model: Some(&model),
            window: Some(2_048),
            conversation: &long,
        };
        assert_eq!(budget.summary_max_tokens(), 512, "a quarter of the window");
        assert_eq!(budget.keep_tokens(), 512);
        let room = 2_048 - 512 - SUMMARY_OVERHEAD_TOKENS;
        let chars = budget.transcript_chars() as f64;
        assert!(chars < room as f64 * long.chars_per_token(), "{chars}");
        assert!(
            budget.history_budget() < 2_048,
            "after a refusal the history fits"
        );
        let unknown = Budget {
            window: None,
            ..budget
        };
        assert_eq!(unknown.transcript_chars(), TRANSCRIPT_CHARS_UNKNOWN_WINDOW);
        assert_eq!(
            unknown.keep_tokens(),
            KEEP_TOKENS_MAX,
            "a quarter, at most 20,000"
        );
        assert_eq!(unknown.history_budget(), long.estimate(long.messages()) / 2);
        let none = Budget {
            model: None,
            ..unknown
        };
        assert_eq!(none.summary_max_tokens(), SUMMARY_MAX_TOKENS);
    }
}
