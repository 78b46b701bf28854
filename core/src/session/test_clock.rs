//! A clock unit tests keep themselves: the machines that keep deadlines are generic over their
//! time type, and core never reads the real clock, not even in tests.

use std::ops::Add;
use std::time::Duration;

/// Milliseconds on a clock the test keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Ms(pub(super) u128);

impl Add<Duration> for Ms {
    type Output = Ms;
    fn add(self, d: Duration) -> Ms {
        Ms(self.0 + d.as_millis())
    }
}
