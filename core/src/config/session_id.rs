//! The format of a new session's id, from the two things io draws for it: the wall clock and
//! a random number.

/// A session id: the milliseconds since the Unix epoch in 12 hex digits, so ids sort by age
/// (until the year 10889), then 64 random bits in 16, so sessions started in the same
/// millisecond stay apart.
pub fn session_id(unix_ms: u64, random: u64) -> String {
    format!("{unix_ms:012x}-{random:016x}")
}

#[cfg(test)]
mod tests {
    use quickcheck::quickcheck;

    use super::*;

    #[test]
    fn an_id_is_its_time_then_its_random_bits() {
        assert_eq!(
            session_id(0x0193_5a4c_1e20, 0xdead_beef),
            "01935a4c1e20-00000000deadbeef"
        );
    }

    quickcheck! {
        fn ids_sort_by_age(one: (u64, u64), two: (u64, u64)) -> bool {
            // Times up to the 12 digits' end, as every clock reads until the year 10889.
            let ms = |t: u64| t % (1 << 48);
            let (a, b) = (session_id(ms(one.0), one.1), session_id(ms(two.0), two.1));
            ms(one.0) == ms(two.0) || (ms(one.0) < ms(two.0)) == (a < b)
        }
    }
}
