//! Timestamps: a time with a zone becomes RFC 3339 UTC; a time without one keeps its
//! wall-clock value and gets no invented zone.

/// A parsed timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp {
    /// Days since 1970-01-01 of the wall-clock date (UTC when `utc`).
    days: i64,
    /// Seconds since midnight.
    seconds: u32,
    /// Nanoseconds, with the number of fraction digits written.
    nanos: u32,
    fraction_digits: u8,
    /// Whether the time is known in UTC (it had a zone, converted).
    pub utc: bool,
}

impl Timestamp {
    /// Parses `YYYY-MM-DD[T| ]HH:MM:SS[.fraction][Z|±HH:MM|±HHMM|±HH]`.
    pub fn parse(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        if b.len() < 19 || !matches!(b[10], b'T' | b't' | b' ') {
            return None;
        }
        let num = |range: std::ops::Range<usize>| number(b.get(range)?);
        if b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 60
        {
            return None;
        }
        let mut rest = &text[19..];
        let (mut nanos, mut fraction_digits) = (0u32, 0u8);
        if let Some(frac) = rest.strip_prefix('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 9 {
                return None;
            }
            let value: u32 = frac[..digits].parse().ok()?;
            nanos = value * 10u32.pow(9 - u32::try_from(digits).ok()?);
            fraction_digits = u8::try_from(digits).ok()?;
            rest = &frac[digits..];
        }
        let offset_minutes = match rest {
            "" => None,
            "Z" | "z" => Some(0),
            _ => Some(parse_offset(rest)?),
        };
        let mut days = days_from_civil(year, month, day);
        let mut secs = hour * 3600 + minute * 60 + second;
        if let Some(offset) = offset_minutes {
            secs -= offset * 60;
            days += secs.div_euclid(86_400);
            secs = secs.rem_euclid(86_400);
        }
        Some(Self {
            days,
            seconds: u32::try_from(secs).ok()?,
            nanos,
            fraction_digits,
            utc: offset_minutes.is_some(),
        })
    }

    /// RFC 3339: `YYYY-MM-DDTHH:MM:SS[.fraction]Z` when in UTC, without `Z` otherwise.
    pub fn to_rfc3339(&self) -> String {
        let (year, month, day) = civil_from_days(self.days);
        let Some(year) = u32::try_from(year).ok().filter(|&y| y <= 9999) else {
            // A year of other than four digits, shifted there by a zone: as `format!`
            // pads it.
            let mut out = format!("{}T{}", self.date(), self.time());
            self.push_fraction(&mut out);
            if self.utc {
                out.push('Z');
            }
            return out;
        };
        // Digit by digit: run for the timestamp of every record a conversion reads,
        // `format!` took about 2 % of it.
        let mut out = String::with_capacity(31);
        let s = self.seconds;
        let parts = [
            (year, 4, '-'),
            (u32::try_from(month).unwrap_or_default(), 2, '-'),
            (u32::try_from(day).unwrap_or_default(), 2, 'T'),
            (s / 3600, 2, ':'),
            (s / 60 % 60, 2, ':'),
        ];
        for (value, width, after) in parts {
            push_digits(&mut out, value, width);
            out.push(after);
        }
        push_digits(&mut out, s % 60, 2);
        if self.fraction_digits > 0 {
            out.push('.');
            let digits = u32::from(self.fraction_digits);
            push_digits(&mut out, self.nanos / 10u32.pow(9 - digits), digits);
        }
        if self.utc {
            out.push('Z');
        }
        out
    }

    /// `YYYY-MM-DD HH:MM:SS` (GSO's form: no fraction, no zone).
    pub fn to_space_separated(&self) -> String {
        format!("{} {}", self.date(), self.time())
    }

    fn date(&self) -> String {
        let (y, m, d) = civil_from_days(self.days);
        format!("{y:04}-{m:02}-{d:02}")
    }

    fn time(&self) -> String {
        let s = self.seconds;
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }

    fn push_fraction(&self, out: &mut String) {
        if self.fraction_digits > 0 {
            let digits = format!("{:09}", self.nanos);
            out.push('.');
            out.push_str(&digits[..usize::from(self.fraction_digits)]);
        }
    }
}

/// Appends the last `width` decimal digits of `value`, zero-padded.
fn push_digits(out: &mut String, value: u32, width: u32) {
    for place in (0..width).rev() {
        let digit = value / 10u32.pow(place) % 10;
        out.push(char::from_digit(digit, 10).expect("a digit"));
    }
}

/// Normalises a timestamp for the canonical record: with a zone, RFC 3339 UTC; without,
/// the same wall-clock time in RFC 3339 form without a zone. A text that is not a
/// timestamp is returned unchanged with `None`.
pub fn normalize(text: &str) -> (String, Option<Timestamp>) {
    match Timestamp::parse(text) {
        Some(ts) => (ts.to_rfc3339(), Some(ts)),
        None => (text.to_owned(), None),
    }
}

/// The number `digits` writes, when it is one or more ASCII digits and fits an `i64`:
/// what `str::parse` reads of such a run, digit by digit without its handling of signs
/// (every record of a conversion has a timestamp, of a few fixed-width fields).
fn number(digits: &[u8]) -> Option<i64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0i64, |n, &c| {
        let digit = c.is_ascii_digit().then(|| i64::from(c - b'0'))?;
        n.checked_mul(10)?.checked_add(digit)
    })
}

fn parse_offset(text: &str) -> Option<i64> {
    let sign = match text.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = text[1..].chars().filter(|&c| c != ':').collect();
    if digits.len() != 2 && digits.len() != 4 || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let hours: i64 = digits[..2].parse().ok()?;
    let minutes: i64 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    (hours <= 23 && minutes <= 59).then_some(sign * (hours * 60 + minutes))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date (year, month, day) of a count of days since 1970-01-01
/// (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3339 as `format!` writes it: the reference for the digit-by-digit writer.
    fn rfc3339_formatted(ts: &Timestamp) -> String {
        let mut out = format!("{}T{}", ts.date(), ts.time());
        ts.push_fraction(&mut out);
        if ts.utc {
            out.push('Z');
        }
        out
    }

    proptest::proptest! {
        /// A timestamp's fields are read as `str::parse` reads a run of ASCII digits, and
        /// refused where it is anything else (a sign, a space, a byte beyond ASCII, an
        /// empty field) or too large for an `i64`.
        #[test]
        fn fields_are_read_as_parse_reads_digits(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["0", "7", "9", "99999", "+", "-", " ", "a", "é", "\u{661}"]),
                0..6,
            )
        ) {
            let field = parts.concat();
            let reference = if !field.is_empty() && field.bytes().all(|c| c.is_ascii_digit()) {
                field.parse::<i64>().ok()
            } else {
                None
            };
            proptest::prop_assert_eq!(number(field.as_bytes()), reference);
        }

        /// Every date from before year 0 to past 9999, every second of a day (a leap
        /// second too), every fraction and its digits, in UTC or not.
        #[test]
        fn rfc3339_is_written_as_format_writes_it(
            days in -800_000i64..3_000_000,
            seconds in 0u32..86_401,
            nanos in 0u32..1_000_000_000,
            fraction_digits in 0u8..10,
            utc in proptest::bool::ANY,
        ) {
            let ts = Timestamp { days, seconds, nanos, fraction_digits, utc };
            proptest::prop_assert_eq!(ts.to_rfc3339(), rfc3339_formatted(&ts));
        }
    }

    #[test]
    fn rfc3339_at_the_edges_of_four_digit_years() {
        for text in [
            "0000-01-01T00:30:00+01:00",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:60.123456789-01:00",
            "9999-12-31T23:59:59.5Z",
            "1970-01-01 00:00:00.000",
        ] {
            let ts = Timestamp::parse(text).expect("a timestamp");
            assert_eq!(ts.to_rfc3339(), rfc3339_formatted(&ts), "{text}");
        }
        let parsed = Timestamp::parse("0000-01-01T00:30:00+01:00").expect("a timestamp");
        assert_eq!(parsed.to_rfc3339(), "-001-12-31T23:30:00Z");
    }

    #[test]
    fn utc_stays_as_it_is() {
        assert_eq!(normalize("2022-03-03T15:14:54Z").0, "2022-03-03T15:14:54Z");
    }

    #[test]
    fn offsets_become_utc_across_day_and_year_boundaries() {
        assert_eq!(
            normalize("2024-01-01T01:30:00+02:00").0,
            "2023-12-31T23:30:00Z"
        );
        assert_eq!(
            normalize("2024-02-28T22:00:00-0300").0,
            "2024-02-29T01:00:00Z"
        );
        assert_eq!(
            normalize("2023-02-28T22:00:00-03").0,
            "2023-03-01T01:00:00Z"
        );
        assert_eq!(
            normalize("2021-06-01 12:00:00.250+05:30").0,
            "2021-06-01T06:30:00.250Z"
        );
    }

    #[test]
    fn naive_times_keep_their_wall_clock_and_get_no_zone() {
        let (gso, ts) = normalize("2023-11-02 14:05:09");
        assert_eq!(gso, "2023-11-02T14:05:09");
        assert_eq!(ts.unwrap().to_space_separated(), "2023-11-02 14:05:09");
        assert_eq!(
            normalize("2025-03-21T08:23:31.701599").0,
            "2025-03-21T08:23:31.701599"
        );
    }

    #[test]
    fn non_timestamps_are_kept_verbatim() {
        for text in [
            "yesterday",
            "2023-13-01T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2023-01-01T00:00:00+2",
            "2023-01-01",
        ] {
            assert_eq!(normalize(text), (text.to_owned(), None), "{text}");
        }
    }

    #[test]
    fn civil_conversion_round_trips() {
        for days in [-719_468, -1, 0, 1, 11_016, 19_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }
}
