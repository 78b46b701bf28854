//! Where a simulation's choices come from. One trait, three sources: a seed (`Seeded`, so a run
//! is replayed from a number), a fuzzer's bytes (`Bytes`, so the fuzz targets feed the same
//! simulator), and quickcheck's generator (so the properties that shrink keep working).

use luxe_core::rng::Rng;

/// A source of choices.
pub trait Draw {
    /// The next choice, as a byte: every value as likely as the next for a seed.
    fn byte(&mut self) -> u8;

    /// The next choice, as a number over all of `u64`.
    fn number(&mut self) -> u64;

    /// A few positions at which to cut a byte stream (a response's chunks).
    fn cuts(&mut self) -> Vec<usize> {
        let count = self.below(4);
        (0..count).map(|_| self.below(4096) as usize).collect()
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        self.number().checked_rem(n).unwrap_or(0)
    }

    /// A coin toss.
    fn bool(&mut self) -> bool {
        self.byte().is_multiple_of(2)
    }

    /// One of `items`, which must not be empty.
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Choices from a seed: core's own generator (SplitMix64), the same sequence for the same
/// seed on every machine.
#[derive(Debug, Clone)]
pub struct Seeded(Rng);

impl Seeded {
    /// The choices seed `seed` makes.
    pub fn new(seed: u64) -> Self {
        Self(Rng::new(seed))
    }
}

impl Draw for Seeded {
    fn byte(&mut self) -> u8 {
        self.number().to_le_bytes()[0]
    }

    fn number(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// Choices read from a fuzzer's input; zeros once it is used up.
#[derive(Debug)]
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// The choices `data` makes.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    /// Whether every byte was used.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

impl Draw for Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let Some((first, rest)) = self.data.split_first() else {
            return 0;
        };
        self.data = rest;
        *first
    }

    fn number(&mut self) -> u64 {
        // Two bytes: a fuzzer finds small numbers, which is what the choices use.
        u64::from(u16::from_le_bytes([self.byte(), self.byte()]))
    }
}

impl Draw for quickcheck::Gen {
    fn byte(&mut self) -> u8 {
        quickcheck::Arbitrary::arbitrary(self)
    }

    fn number(&mut self) -> u64 {
        quickcheck::Arbitrary::arbitrary(self)
    }

    fn cuts(&mut self) -> Vec<usize> {
        quickcheck::Arbitrary::arbitrary(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_below_and_bytes_run_out_into_zeros() {
        let mut seeded = Seeded::new(1);
        assert!((0..1000).all(|_| seeded.below(7) < 7));
        assert_eq!(seeded.below(0), 0);
        let mut bytes = Bytes::new(&[5]);
        assert_eq!(bytes.byte(), 5);
        assert!(bytes.is_empty());
        assert_eq!(bytes.byte(), 0);
        assert_eq!(bytes.number(), 0);
    }
}
