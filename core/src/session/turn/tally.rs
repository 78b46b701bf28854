//! What one turn (or `compact` run) used: its tokens summed over its model requests, its cost
//! at the model's prices, and how full the context was at its last answer — the numbers
//! `turn_usage` carries.

use crate::model::wire::Usage;
use crate::protocol::events::{ModelCost, TurnUsage};

/// A turn's usage so far.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::session) struct Tally {
    usage: Usage,
    /// `None` once a price was unknown: a cost that leaves some requests out would mislead.
    cost_usd: Option<f64>,
    /// The context the last answer of the conversation filled: its prompt and its output.
    context_tokens: u64,
}

impl Tally {
    /// Nothing used yet; `priced` when the model's prices are known.
    pub(in crate::session) fn new(priced: bool) -> Self {
        Self {
            usage: Usage::default(),
            cost_usd: priced.then_some(0.0),
            context_tokens: 0,
        }
    }

    /// What it cost so far; `None` once a price was unknown.
    pub(in crate::session) fn cost_usd(&self) -> Option<f64> {
        self.cost_usd
    }

    /// Adds one request's `usage` at `prices` (`None`: unknown, so the cost is too). A
    /// summary's request adds to the usage but is no measure of the conversation's context.
    pub(in crate::session) fn add(
        &mut self,
        usage: &Usage,
        prices: Option<&ModelCost>,
        summary: bool,
    ) {
        let total = &mut self.usage;
        total.prompt_tokens += usage.prompt_tokens;
        total.completion_tokens += usage.completion_tokens;
        total.cache_read_tokens += usage.cache_read_tokens;
        total.cache_write_tokens += usage.cache_write_tokens;
        total.reasoning_tokens += usage.reasoning_tokens;
        if !summary {
            self.context_tokens = usage.prompt_tokens
                + usage.cache_read_tokens
                + usage.cache_write_tokens
                + usage.completion_tokens;
        }
        self.cost_usd = match (self.cost_usd, prices) {
            (Some(cost), Some(prices)) => Some(
                cost + (usage.prompt_tokens as f64 * prices.input
                    + usage.completion_tokens as f64 * prices.output
                    + usage.cache_read_tokens as f64 * prices.cache_read
                    + usage.cache_write_tokens as f64 * prices.cache_write)
                    / 1e6,
            ),
            (cost, None) => cost,
            (None, _) => None,
        };
    }

    /// `turn_usage` for this turn, in a window of `context_window` tokens and a session that
    /// cost `session_cost_usd` with it.
    pub(in crate::session) fn frame(
        &self,
        context_window: Option<u32>,
        session_cost_usd: Option<f64>,
    ) -> TurnUsage {
        TurnUsage {
            prompt_tokens: self.usage.prompt_tokens,
            completion_tokens: self.usage.completion_tokens,
            cache_read_tokens: self.usage.cache_read_tokens,
            cache_write_tokens: self.usage.cache_write_tokens,
            reasoning_tokens: self.usage.reasoning_tokens,
            cost_usd: self.cost_usd,
            context_tokens: self.context_tokens,
            context_window,
            session_cost_usd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRICES: ModelCost = ModelCost {
        input: 3.0,
        output: 15.0,
        cache_read: 0.3,
        cache_write: 3.75,
    };

    fn usage(prompt: u64, completion: u64, cache_read: u64) -> Usage {
        Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cache_read_tokens: cache_read,
            ..Usage::default()
        }
    }

    #[test]
    fn requests_add_up_and_the_context_is_the_last_answers() {
        let mut tally = Tally::new(true);
        tally.add(&usage(1_000, 100, 0), Some(&PRICES), false);
        tally.add(&usage(200, 50, 1_000), Some(&PRICES), false);
        let frame = tally.frame(Some(200_000), Some(1.0));
        assert_eq!((frame.prompt_tokens, frame.completion_tokens), (1_200, 150));
        assert_eq!(frame.cache_read_tokens, 1_000);
        assert_eq!(
            frame.context_tokens, 1_250,
            "the last request's prompt and answer"
        );
        assert_eq!(
            (frame.context_window, frame.session_cost_usd),
            (Some(200_000), Some(1.0))
        );
        let expected = (1_200.0 * 3.0 + 150.0 * 15.0 + 1_000.0 * 0.3) / 1e6;
        let cost = tally.cost_usd().unwrap();
        assert!((cost - expected).abs() < 1e-12, "{cost} against {expected}");
    }

    #[test]
    fn a_summary_counts_but_is_no_measure_of_the_context_and_a_model_without_prices_costs_nothing_known()
     {
        let mut tally = Tally::new(true);
        tally.add(&usage(500, 10, 0), Some(&PRICES), false);
        tally.add(&usage(9_000, 300, 0), Some(&PRICES), true);
        let frame = tally.frame(None, None);
        assert_eq!(
            frame.context_tokens, 510,
            "the conversation's, not the summary's"
        );
        assert_eq!(frame.prompt_tokens, 9_500);
        let priced = tally.cost_usd();
        tally.add(&usage(1, 1, 0), None, false);
        assert_eq!(
            tally.cost_usd(),
            priced,
            "a request without prices adds no cost"
        );
        let mut unpriced = Tally::new(false);
        unpriced.add(&usage(1_000, 100, 0), Some(&PRICES), false);
        assert_eq!(
            unpriced.cost_usd(),
            None,
            "unknown from the start, unknown to the end"
        );
    }
}
