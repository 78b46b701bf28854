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

use super::model::{HunkLines, LineKind};
use super::source::ReviewTarget;

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
        let mut hash = self.0;
        for &byte in bytes {
            hash ^= u128::from(byte);
            hash = hash.wrapping_mul(PRIME);
        }
        self.0 = hash;
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

    /// The id of the next hunk, which has these lines.
    pub fn lines(&mut self, lines: &HunkLines) -> String {
        let mut hash = ContentHash::default();
        hash.field(self.path);
        for line in lines {
            let kind = match line.kind {
                LineKind::Context => b' ',
                LineKind::Add => b'+',
                LineKind::Del => b'-',
            };
            hash.bytes(&[kind]).bytes(line.text.as_bytes()).bytes(b"\n");
            // A `\` cannot start a line (lines start with a kind), so this marks the end of a
            // line without a newline unambiguously.
            if line.no_newline {
                hash.bytes(b"\\");
            }
        }
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
