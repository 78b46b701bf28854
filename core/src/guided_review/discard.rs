//! Git's preparation for Myers (xdiff's `xdl_trim_ends` and `xdl_cleanup_records`): lines that
//! cannot match, and frequent lines in the middle of such runs, are marked changed up front and
//! left out of the search.
//!
//! imara-diff prepares its input too, but counts matches only between the common prefix and
//! suffix, uses a smaller frequency limit and weighs the runs differently, so it reaches other
//! (equally short) diffs than git. Doing git's preparation here and giving imara-diff only the
//! kept lines leaves its own preparation little to do: it still drops a kept line whose matches
//! were all discarded, one of the two places where it can differ from git (see [`super::hunks`]).

use imara_diff::Token;

/// xdiff's `XDL_MAX_EQLIMIT`: a line more frequent than this always counts as frequent.
const MAX_EQLIMIT: usize = 1024;
/// xdiff's `XDL_SIMSCAN_WINDOW`: how far the run around a frequent line is scanned.
const SIMSCAN_WINDOW: usize = 100;
/// xdiff's `XDL_KPDIS_RUN`.
const KPDIS_RUN: usize = 4;

/// Both sides after preparation, with the buffers kept from one file to the next.
#[derive(Default)]
pub struct Prepared {
    /// The old file's side: the lines kept for Myers, and every line's mark.
    pub old: Kept,
    /// The new file's side, as for `old`.
    pub new: Kept,
    in_old: Vec<u32>,
    in_new: Vec<u32>,
    matches: Vec<Matches>,
}

/// One side after preparation.
#[derive(Default)]
pub struct Kept {
    /// The kept lines' tokens, what Myers compares.
    pub tokens: Vec<Token>,
    /// Each kept line's index in the file.
    index: Vec<u32>,
    /// Every line's mark: changed or not (discarded lines are changed already).
    pub changed: Vec<bool>,
}

impl Kept {
    /// Marks the kept lines as Myers found them (`is_changed(k)` for the `k`-th kept line).
    pub fn mark(&mut self, is_changed: impl Fn(u32) -> bool) {
        for (k, &line) in self.index.iter().enumerate() {
            self.changed[line as usize] = is_changed(k as u32);
        }
    }
}

/// How often a line of one side occurs on the other.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Matches {
    None,
    Some,
    Many,
}

impl Prepared {
    /// Prepares both sides (token ids below `distinct`) as git does.
    pub fn prepare(&mut self, old: &[Token], new: &[Token], distinct: u32) {
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let suffix = old[prefix..]
            .iter()
            .rev()
            .zip(new[prefix..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        count(old, distinct, &mut self.in_old);
        count(new, distinct, &mut self.in_new);
        let old_range = prefix..old.len() - suffix;
        let new_range = prefix..new.len() - suffix;
        keep(
            old,
            &self.in_new,
            old_range,
            &mut self.matches,
            &mut self.old,
        );
        keep(
            new,
            &self.in_old,
            new_range,
            &mut self.matches,
            &mut self.new,
        );
    }
}

/// How often each token occurs in `tokens`.
fn count(tokens: &[Token], distinct: u32, counts: &mut Vec<u32>) {
    counts.clear();
    counts.resize(distinct as usize, 0);
    for token in tokens {
        counts[token.0 as usize] += 1;
    }
}

/// Classifies and keeps the lines of `range` in `tokens`, with `other` the other side's counts.
fn keep(
    tokens: &[Token],
    other: &[u32],
    range: std::ops::Range<usize>,
    matches: &mut Vec<Matches>,
    kept: &mut Kept,
) {
    let limit = bogosqrt(tokens.len()).min(MAX_EQLIMIT);
    matches.clear();
    matches.extend(tokens[range.clone()].iter().map(|token| {
        match other[token.0 as usize] as usize {
            0 => Matches::None,
            n if n >= limit => Matches::Many,
            _ => Matches::Some,
        }
    }));
    kept.tokens.clear();
    kept.index.clear();
    kept.changed.clear();
    kept.changed.resize(tokens.len(), false);
    for (at, &m) in matches.iter().enumerate() {
        let line = range.start + at;
        if m == Matches::Some || (m == Matches::Many && !amid_unmatched(matches, at)) {
            kept.tokens.push(tokens[line]);
            kept.index.push(line as u32);
        } else {
            kept.changed[line] = true;
        }
    }
}

/// xdiff's `xdl_clean_mmatch`: whether the frequent line at `at` sits in a run of unmatched and
/// frequent lines that is mostly unmatched (then it is discarded with them).
fn amid_unmatched(matches: &[Matches], at: usize) -> bool {
    let from = at.saturating_sub(SIMSCAN_WINDOW);
    let to = (at + SIMSCAN_WINDOW).min(matches.len() - 1);
    // The line itself counts as frequent once on each side, as in xdiff.
    let run = |lines: &mut dyn Iterator<Item = &Matches>| {
        let (mut unmatched, mut frequent) = (0, 1);
        for m in lines {
            match m {
                Matches::None => unmatched += 1,
                Matches::Many => frequent += 1,
                Matches::Some => break,
            }
        }
        (unmatched, frequent)
    };
    let (unmatched_before, frequent_before) = run(&mut matches[from..at].iter().rev());
    if unmatched_before == 0 {
        return false;
    }
    let (unmatched_after, frequent_after) = run(&mut matches[at + 1..=to].iter());
    if unmatched_after == 0 {
        return false;
    }
    let (unmatched, frequent) = (
        unmatched_before + unmatched_after,
        frequent_before + frequent_after,
    );
    frequent * KPDIS_RUN < unmatched + frequent
}

/// xdiff's `xdl_bogosqrt`: a power of two near the square root (rounded up in bits).
fn bogosqrt(mut n: usize) -> usize {
    let mut root = 1;
    while n > 0 {
        root <<= 1;
        n >>= 2;
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(ids: &[u32]) -> Vec<Token> {
        ids.iter().map(|&i| Token(i)).collect()
    }

    #[test]
    fn bogosqrt_matches_xdiff() {
        let roots: Vec<usize> = [0, 1, 3, 4, 15, 16, 17, 64, 65_536]
            .into_iter()
            .map(bogosqrt)
            .collect();
        assert_eq!(roots, [1, 2, 2, 4, 4, 8, 8, 16, 512]);
    }

    #[test]
    fn lines_without_a_match_are_changed_up_front_and_the_ends_are_left_alone() {
        // a b X c a  →  a b Y c a: `X` and `Y` cannot match; the equal ends are trimmed.
        let mut prepared = Prepared::default();
        prepared.prepare(&tokens(&[0, 1, 2, 3, 0]), &tokens(&[0, 1, 4, 3, 0]), 5);
        assert_eq!(prepared.old.tokens, Vec::<Token>::new());
        assert_eq!(prepared.old.changed, [false, false, true, false, false]);
        assert_eq!(prepared.new.changed, [false, false, true, false, false]);
    }

    #[test]
    fn a_frequent_line_inside_unmatched_lines_goes_with_them() {
        // Sixteen lines of `0` make it frequent (the limit is 8 for 26 lines); the `0` among
        // unmatched lines goes with them, the runs of `0` around are trimmed as equal ends.
        let mut old_ids = vec![0; 16];
        old_ids.push(9);
        let mut new_ids = vec![0; 16];
        new_ids.splice(8..8, [1, 2, 3, 4, 0, 5, 6, 7, 8]);
        new_ids.push(9);
        let mut prepared = Prepared::default();
        prepared.prepare(&tokens(&old_ids), &tokens(&new_ids), 10);
        let new = &prepared.new;
        assert!(new.changed[12], "the lone `0` among 1..8 is discarded");
        assert!(!new.changed[7] && !new.changed[17]);
        assert!(new.tokens.is_empty());
    }
}
