//! Both sides of a text file split into lines and interned into tokens, the input of the diff.
//!
//! A line keeps its `\n` (as git's records do), so a last line without one differs from the same
//! text with one. Splitting and hashing are one pass, eight bytes at a time. Interning uses our
//! own table with a fixed hash rather than imara-diff's `InternedInput`, whose hasher is seeded
//! per process: the tokens would be the same, but core promises no process randomness at all.
//! Both are kept between files, so a review of thousands of files allocates them once.

use imara_diff::Token;

/// A file's lines and their hashes.
#[derive(Default)]
pub struct Lines<'a> {
    /// The lines, each with its `\n` except perhaps the last.
    pub lines: Vec<&'a [u8]>,
    /// Each line's hash (of its text without the `\n`, and its length).
    hashes: Vec<u64>,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

impl<'a> Lines<'a> {
    /// Replaces the lines with those of `bytes`.
    pub fn read(&mut self, bytes: &'a [u8]) {
        self.lines.clear();
        self.hashes.clear();
        let mut start = 0;
        while start < bytes.len() {
            let mut at = start;
            let mut hash = 0;
            let end = loop {
                let word = word_at(bytes, at);
                let newlines = zero_bytes(word ^ (ONES * u64::from(b'\n')));
                if newlines != 0 {
                    // Bytes before the newline: the low `before` bytes of the word.
                    let before = (newlines.trailing_zeros() / 8) as usize;
                    hash = mix(hash, word & ((1 << (8 * before)) - 1));
                    break at + before + 1;
                }
                hash = mix(hash, word);
                at += 8;
                if at >= bytes.len() {
                    break bytes.len();
                }
            };
            self.lines.push(&bytes[start..end]);
            // The length tells `ab` from `ab\0` (the last word is padded with zeros).
            let hash = mix(hash, (end - start) as u64);
            self.hashes.push(hash ^ (hash >> 29));
            start = end;
        }
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.lines.len()
    }
}

/// Whether two lines are equal, compared a word at a time: lines are short, and a call to
/// `memcmp` for each would cost more than the comparison.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    let word = |chunk: &[u8]| <[u8; 8]>::try_from(chunk).ok();
    let words_equal = x.by_ref().zip(y.by_ref()).all(|(p, q)| word(p) == word(q));
    words_equal && x.remainder().iter().zip(y.remainder()).all(|(p, q)| p == q)
}

/// Eight bytes from `at` (little-endian), zero-padded past the end.
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    match bytes.get(at..at + 8) {
        Some(whole) => word.copy_from_slice(whole),
        None => {
            let rest = &bytes[at..];
            word[..rest.len()].copy_from_slice(rest);
        }
    }
    u64::from_le_bytes(word)
}

/// `0x80` in each byte of `word` that is zero, `0` in the others.
fn zero_bytes(word: u64) -> u64 {
    !(((word & LOW7).wrapping_add(LOW7)) | word | LOW7)
}

/// FxHash's step: fast, and only the table's speed depends on it, never a result.
fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(26) ^ word).wrapping_mul(0xf135_7aea_2e62_a9c5)
}

/// The lines of `bytes`, for tests.
#[cfg(test)]
pub fn split(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Lines::default();
    lines.read(bytes);
    lines.lines
}

/// Gives equal lines equal tokens, numbered from 0 in order of first appearance.
#[derive(Default)]
pub struct Interner<'a> {
    /// Open addressing: 0 for an empty slot, else a token + 1.
    slots: Vec<u32>,
    /// Each token's hash.
    hashes: Vec<u64>,
    /// Each token's text (its first line).
    texts: Vec<&'a [u8]>,
}

impl<'a> Interner<'a> {
    /// Forgets every line and makes room for `lines` lines.
    pub fn reset(&mut self, lines: usize) {
        self.hashes.clear();
        self.texts.clear();
        // At most half full, so that probes stay short.
        let size = (lines * 2).next_power_of_two().max(16);
        self.slots.clear();
        self.slots.resize(size, 0);
    }

    /// Interns `lines` into `tokens`.
    pub fn intern_all(&mut self, lines: &Lines<'a>, tokens: &mut Vec<Token>) {
        tokens.clear();
        let pairs = lines.lines.iter().zip(&lines.hashes);
        tokens.extend(pairs.map(|(&line, &hash)| self.intern(line, hash)));
    }

    /// The token of `line`, whose hash is `hash`.
    fn intern(&mut self, line: &'a [u8], hash: u64) -> Token {
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            match self.slots[at] {
                0 => {
                    let token = self.texts.len() as u32;
                    self.slots[at] = token + 1;
                    self.hashes.push(hash);
                    self.texts.push(line);
                    return Token(token);
                }
                slot => {
                    let token = slot as usize - 1;
                    if self.hashes[token] == hash && same(self.texts[token], line) {
                        return Token(token as u32);
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// How many distinct lines there are.
    pub fn distinct(&self) -> u32 {
        self.texts.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_newline_and_a_last_line_may_lack_one() {
        assert_eq!(split(b""), Vec::<&[u8]>::new());
        assert_eq!(split(b"a\n"), vec![&b"a\n"[..]]);
        assert_eq!(split(b"a\r\nb"), vec![&b"a\r\n"[..], &b"b"[..]]);
        assert_eq!(split(b"\n\n"), vec![&b"\n"[..], &b"\n"[..]]);
    }

    #[test]
    fn lines_of_every_length_around_word_boundaries_split_and_hash_alike() {
        // Lines of lengths across the 8-byte words, the same line at another offset, and a last
        // line without a newline.
        for len in 0..20 {
            let line = "x".repeat(len) + "\n";
            let text = format!("{line}y{line}{line}z{}", line.trim_end());
            let mut lines = Lines::default();
            lines.read(text.as_bytes());
            let expected: Vec<&[u8]> = text.as_bytes().split_inclusive(|&b| b == b'\n').collect();
            assert_eq!(lines.lines, expected);
            assert_eq!(lines.len(), 4);
            assert_eq!(lines.hashes[0], lines.hashes[2]);
            assert_ne!(lines.hashes[0], lines.hashes[1]);
        }
    }

    #[test]
    fn equal_lines_share_a_token_across_sides_and_a_reset_forgets() {
        let text = |bytes| {
            let mut lines = Lines::default();
            lines.read(bytes);
            lines
        };
        let (old, new) = (text(b"a\nb\na"), text(b"b\na\n"));
        let mut interner = Interner::default();
        let (mut old_tokens, mut new_tokens) = (Vec::new(), Vec::new());
        interner.reset(old.len() + new.len());
        interner.intern_all(&old, &mut old_tokens);
        interner.intern_all(&new, &mut new_tokens);
        assert_eq!(old_tokens, [Token(0), Token(1), Token(2)]);
        // `a` without a newline (the old last line) is not `a\n`.
        assert_eq!(new_tokens, [Token(1), Token(0)]);
        assert_eq!(interner.distinct(), 3);
        interner.reset(1);
        interner.intern_all(&new, &mut new_tokens);
        assert_eq!(new_tokens, [Token(0), Token(1)]);
        // Many lines in a small table still find their tokens.
        let many: String = (0..1000).map(|i| format!("{}\n", i % 300)).collect();
        let many = text(many.as_bytes());
        interner.reset(many.len());
        interner.intern_all(&many, &mut new_tokens);
        assert_eq!(interner.distinct(), 300);
        assert!(
            new_tokens
                .iter()
                .enumerate()
                .all(|(i, t)| t.0 as usize == i % 300)
        );
    }
}
