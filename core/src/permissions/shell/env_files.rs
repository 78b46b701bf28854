//! `.env` detection in shell words: quote removal is done (see `words`), so what is left is
//! whether a word, after brace expansion and split at `=` and `:`, names a `.env` secrets file
//! or is a glob that could match one, plus a textual check for names inside strings of code.

use super::words::Word;

/// Most words a brace expansion may produce before each group is over-approximated by `*`.
const MAX_BRACE_WORDS: usize = 64;
/// Longest word we brace-expand exactly (the search for groups is quadratic in the worst case);
/// longer words take the `*` over-approximation.
const MAX_BRACE_LEN: usize = 256;

/// The last path component of `path`.
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether a file name (compared case-insensitively, for case-insensitive file systems) is a
/// `.env` secrets file.
fn is_env_name(name: &str) -> bool {
    crate::permissions::is_env_file(&name.to_lowercase())
}

/// Whether a word names a `.env` file: its brace expansions, split at `=` and `:` (so
/// `--file=.env` and `PATH`-like lists count), judged by their last path component, plus the
/// textual check for names inside strings of code.
pub fn names_env(word: &Word, dotglob: bool) -> bool {
    let structured = brace_words(&word.chars).iter().any(|alt| {
        // The whole word too: a `:` may belong to a glob class such as `[[:alpha:]]`.
        std::iter::once(alt.as_slice())
            .chain(alt.split(|&(c, _)| c == '=' || c == ':'))
            .any(|part| {
                let name = match part.iter().rposition(|&(c, _)| c == '/') {
                    Some(slash) => part.get(slash + 1..).unwrap_or_default(),
                    None => part,
                };
                component_names_env(name, dotglob)
            })
    });
    structured || text_names_env(&word.text)
}

/// Splits text at characters that cannot be part of a plain file name in code or prose
/// (`open('.env')`, `cat .env` inside a `bash -c` string, `${x:-.env}`) and checks each
/// piece. Only literal names: `'.e'+'nv'` is beyond it.
pub fn text_names_env(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || "'\"`()<>;,&|{}[]$!*?\\+".contains(c))
        .flat_map(|piece| piece.split(['=', ':']))
        .any(|part| is_env_name(basename(part).trim_start_matches('-')))
}

/// One path component after brace expansion: a glob if it has live glob characters, else a
/// literal name.
///
/// bash's globs match a leading `.` only literally unless `dotglob` is on, so `*.rs` and `*`
/// cannot reach `.env.rs` or `.env`. A glob that starts with `.` counts when it could match
/// any `.env` name; one that does not only when it matches `.env` itself and holds a letter
/// (`*env`, `?nv`: aimed at it, in case something else expands it), so that `ls *` and
/// `cat *.rs` stay allowed. With `dotglob` in sight every glob that could match counts.
fn component_names_env(name: &[(char, bool)], dotglob: bool) -> bool {
    if name
        .iter()
        .any(|&(c, live)| live && matches!(c, '*' | '?' | '['))
    {
        let (exact, any) = glob_may_match_env(name);
        if dotglob || name.first().is_some_and(|&(c, _)| c == '.') {
            any
        } else {
            exact && name.iter().any(|&(c, _)| c.is_alphabetic())
        }
    } else {
        let text: String = name.iter().map(|&(c, _)| c).collect();
        is_env_name(&text)
    }
}

/// Whether a glob could match `.env` itself, and whether it could match any `.env` file
/// name. It runs the glob against the automaton for `.env` optionally followed by `.` and
/// anything (case-insensitively), tracking which of its states are reachable; the
/// `.env.example`/`.env.sample` exceptions are ignored, which only errs towards asking.
fn glob_may_match_env(name: &[(char, bool)]) -> (bool, bool) {
    // State s < 5 needs NEEDED[s] next; state 4 (`.env`) accepts; state 5 (`.env.`…) accepts
    // and absorbs anything.
    const NEEDED: [char; 5] = ['.', 'e', 'n', 'v', '.'];
    let closes = next_close(name);
    let mut live = [true, false, false, false, false, false];
    let mut i = 0;
    while let Some(&(c, active)) = name.get(i) {
        let mut next = [false; 6];
        if active && c == '*' {
            // A run of any characters: every state from the lowest live one on is reachable.
            if let Some(low) = live.iter().position(|&l| l) {
                next.iter_mut().skip(low).for_each(|n| *n = true);
            }
            i += 1;
        } else {
            let class = if active && c == '?' {
                Some((Class::any(), i + 1))
            } else if active && c == '[' {
                parse_class(name, i, &closes)
            } else {
                None
            };
            for (state, _) in live.iter().enumerate().filter(|(_, l)| **l) {
                let fits = match (NEEDED.get(state), &class) {
                    (None, _) => true,
                    (Some(&needed), Some((class, _))) => class.matches(needed),
                    (Some(&needed), None) => c.to_ascii_lowercase() == needed,
                };
                if let (true, Some(slot)) = (fits, next.get_mut((state + 1).min(5))) {
                    *slot = true;
                }
            }
            i = class.map_or(i + 1, |(_, end)| end);
        }
        live = next;
        if !live.contains(&true) {
            return (false, false);
        }
    }
    (live[4], live[4] || live[5])
}

/// A bracket expression `[…]` (or `?`, as the class of everything).
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
    /// Holds a named class such as `[:alpha:]`: treated as matching anything.
    named: bool,
}

impl Class {
    fn any() -> Self {
        Self {
            negated: true,
            ranges: Vec::new(),
            named: false,
        }
    }

    /// Whether the class matches `c` in either case.
    fn matches(&self, c: char) -> bool {
        self.named
            || [c.to_ascii_lowercase(), c.to_ascii_uppercase()]
                .iter()
                .any(|v| self.ranges.iter().any(|&(lo, hi)| lo <= *v && *v <= hi) != self.negated)
    }
}

/// For each index, the first `]` at or after it: keeps bracket parsing linear.
fn next_close(name: &[(char, bool)]) -> Vec<Option<usize>> {
    let mut closes = vec![None; name.len() + 1];
    for (k, &(c, _)) in name.iter().enumerate().rev() {
        let after = closes.get(k + 1).copied().flatten();
        if let Some(slot) = closes.get_mut(k) {
            *slot = if c == ']' { Some(k) } else { after };
        }
    }
    closes
}

/// Parses the bracket expression opening at `open`; returns it and the index after its `]`,
/// or None when there is no closing `]` (then `[` is literal, as in bash).
fn parse_class(
    name: &[(char, bool)],
    open: usize,
    closes: &[Option<usize>],
) -> Option<(Class, usize)> {
    let mut first = open + 1;
    let negated = matches!(name.get(first), Some(&('!' | '^', _)));
    if negated {
        first += 1;
    }
    name.get(first)?;
    // A `]` right after the opener is a member, so the closer is searched from one later.
    let mut end = closes.get(first + 1).copied().flatten()?;
    let mut members = name.get(first..end)?;
    let named = members.windows(2).any(|w| w[0].0 == '[' && w[1].0 == ':');
    if named {
        // The `]` we found ends `[:alpha:]`; the class ends at the next one.
        end = closes.get(end + 1).copied().flatten()?;
        members = name.get(first..end)?;
    }
    let mut ranges = Vec::new();
    let mut k = 0;
    while let Some(&(lo, _)) = members.get(k) {
        if let (Some(&('-', _)), Some(&(hi, _))) = (members.get(k + 1), members.get(k + 2)) {
            ranges.push((lo, hi));
            k += 3;
        } else {
            ranges.push((lo, lo));
            k += 1;
        }
    }
    Some((
        Class {
            negated,
            ranges,
            named,
        },
        end + 1,
    ))
}

type Chars = Vec<(char, bool)>;

/// The words brace expansion makes of `word`: exactly when small, else one word in which every
/// brace group is `*` (which matches whatever the group could have produced, and more).
pub fn brace_words(word: &[(char, bool)]) -> Vec<Chars> {
    if !word.iter().any(|&(c, live)| live && c == '{') {
        return vec![word.to_vec()];
    }
    let exact = (word.len() <= MAX_BRACE_LEN)
        .then(|| expand_exact(word))
        .flatten();
    exact.unwrap_or_else(|| vec![braces_as_stars(word)])
}

fn expand_exact(word: &[(char, bool)]) -> Option<Vec<Chars>> {
    let mut done = Vec::new();
    let mut todo = vec![word.to_vec()];
    while let Some(w) = todo.pop() {
        match first_group(&w)? {
            None => done.push(w),
            Some((open, close, alternatives)) => {
                for alternative in alternatives {
                    let mut next = w.get(..open).unwrap_or_default().to_vec();
                    next.extend(alternative);
                    next.extend_from_slice(w.get(close + 1..).unwrap_or_default());
                    todo.push(next);
                }
            }
        }
        if done.len() + todo.len() > MAX_BRACE_WORDS {
            return None;
        }
    }
    Some(done)
}

/// For each index holding a live `{`, the index of its matching live `}`.
fn brace_pairs(word: &[(char, bool)]) -> Vec<Option<usize>> {
    let mut pairs = vec![None; word.len()];
    let mut stack = Vec::new();
    for (i, &(c, live)) in word.iter().enumerate() {
        if live && c == '{' {
            stack.push(i);
        } else if live
            && c == '}'
            && let Some(slot) = stack.pop().and_then(|open| pairs.get_mut(open))
        {
            *slot = Some(i);
        }
    }
    pairs
}

type Group = (usize, usize, Vec<Chars>);

/// The first brace group that expands (`{a,b}` or `{a..c}`): Some(None) when there is none,
/// None when a sequence is too long to expand.
fn first_group(word: &[(char, bool)]) -> Option<Option<Group>> {
    let pairs = brace_pairs(word);
    for (open, close) in pairs
        .iter()
        .enumerate()
        .filter_map(|(open, close)| close.map(|close| (open, close)))
    {
        let inner = word.get(open + 1..close).unwrap_or_default();
        let alternatives = split_commas(inner);
        if alternatives.len() > 1 {
            return Some(Some((open, close, alternatives)));
        }
        if let Some(items) = sequence(inner) {
            return Some(Some((open, close, items?)));
        }
    }
    Some(None)
}

fn split_commas(inner: &[(char, bool)]) -> Vec<Chars> {
    let mut parts = vec![Vec::new()];
    let mut level = 0usize;
    for &(c, live) in inner {
        match (c, live) {
            ('{', true) => level += 1,
            ('}', true) => level = level.saturating_sub(1),
            (',', true) if level == 0 => {
                parts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(part) = parts.last_mut() {
            part.push((c, live));
        }
    }
    parts
}

/// `{1..5}`, `{a..e}`, `{1..10..2}`: None when not a sequence, Some(None) when too long.
fn sequence(inner: &[(char, bool)]) -> Option<Option<Vec<Chars>>> {
    if inner.iter().any(|&(_, live)| !live) {
        return None;
    }
    let text: String = inner.iter().map(|&(c, _)| c).collect();
    let parts: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, 1i64),
        [from, to, step] => (*from, *to, step.parse::<i64>().ok()?),
        _ => return None,
    };
    let step = i128::from(step).abs().max(1);
    let (lo, hi, chars) = match (from.parse::<i64>(), to.parse::<i64>()) {
        (Ok(a), Ok(b)) => (i128::from(a), i128::from(b), false),
        _ => {
            let (mut a, mut b) = (from.chars(), to.chars());
            match (a.next(), a.next(), b.next(), b.next()) {
                (Some(a), None, Some(b), None) => {
                    (i128::from(u32::from(a)), i128::from(u32::from(b)), true)
                }
                _ => return None,
            }
        }
    };
    let count = (hi - lo).abs() / step + 1;
    if count > MAX_BRACE_WORDS as i128 {
        return Some(None);
    }
    let direction = if hi >= lo { step } else { -step };
    let items = (0..count)
        .map(|n| {
            let value = lo + n * direction;
            if chars {
                u32::try_from(value)
                    .ok()
                    .and_then(char::from_u32)
                    .map(|c| vec![(c, true)])
                    .unwrap_or_default()
            } else {
                value.to_string().chars().map(|c| (c, true)).collect()
            }
        })
        .collect();
    Some(Some(items))
}

fn braces_as_stars(word: &[(char, bool)]) -> Chars {
    let pairs = brace_pairs(word);
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&item) = word.get(i) {
        match pairs.get(i).copied().flatten() {
            Some(close) => {
                out.push(('*', true));
                i = close + 1;
            }
            None => {
                out.push(item);
                i += 1;
            }
        }
    }
    out
}
