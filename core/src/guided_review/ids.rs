//! Stable content ids: a 128-bit FNV-1a hash rendered as 32 hex digits.
//!
//! The ids are stored in review sessions and quoted by clients, so they must be the same on every
//! run and every machine: no `std::hash` (its hashers are seeded per process) and no dependence on
//! platform word size or endianness. FNV-1a is specified byte by byte, which gives exactly that.
//!
//! Every id hashes fields that are separated so that no two inputs share an encoding: paths and
//! other strings end with a NUL (git paths cannot hold one), line texts end with `\n` (they cannot
//! hold one either).

use std::collections::BTreeMap;

use crate::protocol::guided_review::{HunkLines, LineKind, ReviewTarget};

const OFFSET_BASIS: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

/// A 128-bit FNV-1a hash, fed piece by piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentHash(u128);

impl Default for ContentHash {
    fn default() -> Self {
        Self(OFFSET_BASIS)
    }
}

impl ContentHash {
    /// Feeds raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.0 = bytes.iter().fold(self.0, |hash, &byte| step(hash, byte));
        self
    }

    /// Feeds a string field and its NUL terminator.
    pub fn field(&mut self, text: &str) -> &mut Self {
        self.bytes(text.as_bytes()).bytes(&[0])
    }

    /// Feeds a number as 8 little-endian bytes.
    pub fn number(&mut self, n: u64) -> &mut Self {
        self.bytes(&n.to_le_bytes())
    }

    /// The hash as 32 lowercase hex digits.
    pub fn hex(&self) -> String {
        self.id("")
    }

    /// `prefix` and the hash as 32 lowercase hex digits (by hand: formatting a `u128` through
    /// `fmt` costs more than the hash of a short hunk).
    pub fn id(&self, prefix: &str) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut id = String::with_capacity(prefix.len() + 32);
        id.push_str(prefix);
        for shift in (0..32).rev() {
            id.push(char::from(DIGITS[(self.0 >> (shift * 4)) as usize & 15]));
        }
        id
    }
}

/// FNV-1a's step: one byte in.
fn step(hash: u128, byte: u8) -> u128 {
    (hash ^ u128::from(byte)).wrapping_mul(PRIME)
}

/// `file:` and a hash of the path.
pub fn file_id(path: &str) -> String {
    ContentHash::default().field(path).id("file:")
}

/// Hunk ids for one file: `hunk:` and a hash of the path and the hunk's lines (kinds and texts,
/// not numbers). The `n`-th repeat of the same content in the file (counted from 0) hashes `n`
/// too, so that identical hunks keep distinct ids that do not depend on anything else.
pub struct HunkIds<'a> {
    path: &'a str,
    seen: BTreeMap<u128, u32>,
}

impl<'a> HunkIds<'a> {
    /// Ids for the hunks of the file at `path`, to be asked for in order.
    pub fn new(path: &'a str) -> Self {
        Self {
            path,
            seen: BTreeMap::new(),
        }
    }

    /// The id of the next hunk, whose path and lines hash to `hash` (see [`lines_hashes`]).
    pub fn lines(&mut self, hash: ContentHash) -> String {
        self.disambiguated(hash)
    }

    /// The id of a hunk without lines, which says `note` (a binary file, a mode change…).
    pub fn note(&mut self, note: &str) -> String {
        let mut hash = ContentHash::default();
        hash.field(self.path).bytes(b"@").field(note);
        self.disambiguated(hash)
    }

    fn disambiguated(&mut self, mut hash: ContentHash) -> String {
        let repeats = self.seen.entry(hash.0).or_insert(0);
        if *repeats > 0 {
            hash.bytes(b"#").number(u64::from(*repeats));
        }
        *repeats += 1;
        hash.id("hunk:")
    }
}

/// Hashes interleaved: FNV-1a's steps each wait for the one before, so a single hash leaves the
/// multiplier mostly idle, while independent ones fill it.
const LANES: usize = 4;

/// The hash of each hunk's path and lines, for [`HunkIds::lines`], `hunks` giving the path of
/// its file and its lines. A large review hashes hundreds of thousands of lines, so hunks are
/// hashed `LANES` at a time.
pub fn lines_hashes<'h>(
    hunks: impl IntoIterator<Item = (&'h str, &'h HunkLines)>,
) -> Vec<ContentHash> {
    let mut hunks = hunks.into_iter();
    let mut hashes = Vec::new();
    let mut lanes: [Lane; LANES] = Default::default();
    loop {
        for lane in lanes.iter_mut().filter(|lane| lane.hunk.is_none()) {
            let Some((path, lines)) = hunks.next() else {
                break;
            };
            lane.start(hashes.len(), path, lines);
            hashes.push(ContentHash::default());
        }
        let busy = lanes.iter().filter(|lane| lane.hunk.is_some()).count();
        if busy == 0 {
            return hashes;
        }
        if busy == LANES {
            interleave(&mut lanes);
        } else {
            // The last few, with no hunk left to pair them with.
            for lane in lanes.iter_mut().filter(|lane| lane.hunk.is_some()) {
                lane.hash.bytes(&lane.bytes[lane.at..]);
                lane.at = lane.bytes.len();
            }
        }
        for lane in &mut lanes {
            if lane.at == lane.bytes.len()
                && let Some(hunk) = lane.hunk.take()
            {
                hashes[hunk] = lane.hash;
            }
        }
    }
}

/// One hunk being hashed.
#[derive(Default)]
struct Lane {
    /// Its index, while it is hashed.
    hunk: Option<usize>,
    hash: ContentHash,
    /// What is hashed after the path; `..at` is done.
    bytes: Vec<u8>,
    at: usize,
}

impl Lane {
    fn start(&mut self, hunk: usize, path: &str, lines: &HunkLines) {
        self.hunk = Some(hunk);
        self.hash = ContentHash::default();
        self.hash.field(path);
        self.bytes.clear();
        for line in lines {
            let kind = match line.kind {
                LineKind::Context => b' ',
                LineKind::Add => b'+',
                LineKind::Del => b'-',
            };
            self.bytes.push(kind);
            self.bytes.extend_from_slice(line.text.as_bytes());
            self.bytes.push(b'\n');
            // A `\` cannot start a line (lines start with a kind), so this marks the end of a
            // line without a newline unambiguously.
            if line.no_newline {
                self.bytes.push(b'\\');
            }
        }
        self.at = 0;
    }
}

/// Hashes every lane as far as the shortest one goes, a byte of each in turn.
fn interleave(lanes: &mut [Lane; LANES]) {
    let n = lanes
        .iter()
        .map(|l| l.bytes.len() - l.at)
        .min()
        .unwrap_or(0);
    let mut hashes = lanes.each_ref().map(|lane| lane.hash.0);
    let bytes = lanes
        .each_ref()
        .map(|lane| &lane.bytes[lane.at..lane.at + n]);
    for i in 0..n {
        for (hash, bytes) in hashes.iter_mut().zip(&bytes) {
            *hash = step(*hash, bytes[i]);
        }
    }
    for (lane, hash) in lanes.iter_mut().zip(hashes) {
        lane.hash = ContentHash(hash);
        lane.at += n;
    }
}

/// `review:` and a hash of the repository root and the target.
pub fn review_id(root: &str, target: &ReviewTarget) -> String {
    // Serializing a plain enum of strings and numbers cannot fail; the fallback keeps ids total.
    let target = serde_json::to_string(target).unwrap_or_default();
    ContentHash::default()
        .field(root)
        .field(&target)
        .id("review:")
}

/// `chapter:` and a hash of its hunk ids.
pub fn chapter_id(hunk_ids: &[String]) -> String {
    let mut hash = ContentHash::default();
    for id in hunk_ids {
        hash.field(id);
    }
    hash.id("chapter:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_128_matches_the_reference_vectors() {
        assert_eq!(
            ContentHash::default().hex(),
            "6c62272e07bb014262b821756295c58d"
        );
        assert_eq!(
            ContentHash::default().bytes(b"a").hex(),
            "d228cb696f1a8caf78912b704e4a8964"
        );
        assert_eq!(
            ContentHash::default().bytes(b"foobar").hex(),
            "343e1662793c64bf6f0d3597ba446f18"
        );
    }

    #[test]
    fn fields_do_not_run_into_each_other() {
        let ab_c = ContentHash::default().field("ab").field("c").hex();
        let a_bc = ContentHash::default().field("a").field("bc").hex();
        assert_ne!(ab_c, a_bc);
    }

    #[test]
    fn ids_have_their_prefix_and_32_hex_digits() {
        let id = file_id("core/src/lib.rs");
        assert!(id.starts_with("file:"));
        assert_eq!(id.len(), "file:".len() + 32);
        assert_eq!(id, file_id("core/src/lib.rs"));
        assert_ne!(id, file_id("core/src/main.rs"));
        assert!(chapter_id(std::slice::from_ref(&id)).starts_with("chapter:"));
        assert!(review_id("/r", &ReviewTarget::Staged).starts_with("review:"));
        assert_ne!(
            review_id("/r", &ReviewTarget::Staged),
            review_id("/r", &ReviewTarget::WorkingTree)
        );
    }
}
