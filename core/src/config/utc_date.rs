//! The date a session tells the model it is (`today` in the system prompt), from the wall
//! clock io read: the calendar is arithmetic, not IO.

/// Milliseconds in a day.
const DAY_MS: u64 = 86_400_000;

/// The UTC date of the instant `unix_ms` milliseconds after the Unix epoch, as `YYYY-MM-DD`.
pub fn utc_date(unix_ms: u64) -> String {
    let days = i64::try_from(unix_ms / DAY_MS).unwrap_or(0);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use quickcheck::quickcheck;

    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_421), (2025, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn a_date_is_the_utc_day_of_its_instant() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(DAY_MS - 1), "1970-01-01");
        assert_eq!(utc_date(20_421 * DAY_MS + 1), "2025-11-29");
    }

    quickcheck! {
        fn each_day_is_a_valid_date_after_the_one_before(day: u32) -> bool {
            // Days until the year 9999, while the year keeps its four digits.
            let day = u64::from(day % 2_900_000);
            let (today, tomorrow) = (utc_date(day * DAY_MS), utc_date((day + 1) * DAY_MS));
            let month: u32 = today[5..7].parse().unwrap_or(0);
            let date: u32 = today[8..10].parse().unwrap_or(0);
            today < tomorrow && (1..=12).contains(&month) && (1..=31).contains(&date)
        }
    }
}
