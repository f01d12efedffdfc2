//! Flink 2.3's parsers of date and time text, reproduced rule for rule
//! (`org.apache.flink.table.utils.DateTimeUtils`):
//!
//! - [`parse_date`] — `parseDate(String)`, behind CAST(s AS DATE) and
//!   TO_DATE(s): text after the first space (at position > 0) is ignored; the
//!   rest splits at the first two `-`; each part, Java-trimmed, must be ASCII
//!   digits; a missing month or day is 1 (`'2024'` is 2024-01-01, `'2024-5'`
//!   2024-05-01); the year is 0..=9999, the day at most the month's length.
//!   A part of more digits than an `int` holds throws in Flink
//!   (`NumberFormatException`): [`DateParse::Overflow`].
//! - [`parse_time`] — CAST(s AS TIME): `h:m[:s[.f]]` with 1- or 2-digit fields
//!   in range (observed: `'24:00:00'` and `'25:00:00'` are NULL for TRY_CAST).
//! - [`parse_timestamp`] — `parseTimestampData(String, precision)`, behind
//!   CAST(s AS TIMESTAMP(p)) and TO_TIMESTAMP(s): java.time's
//!   `yyyy-[MM][M]-[dd][d][ [HH][H]:[mm][m]:[ss][s][.fffffffff]]` with the SMART
//!   resolver: 1- or 2-digit fields, the whole text consumed (no spaces
//!   around it, no `T`), a day past the month's end but at most 31 moved to the
//!   month's last day, `24:00:00` (exactly) the next day's midnight, the
//!   fraction truncated to p digits.

use crate::value::temporal::days_in_month;
use crate::value::{Date, Time, Timestamp};

/// The outcome of [`parse_date`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateParse {
    Date(Date),
    /// Not a date: CAST fails, TRY_CAST and TO_DATE give NULL.
    Invalid,
    /// A numeric part beyond `int`: Flink throws `NumberFormatException`.
    Overflow,
}

/// Java's `String.trim()`: strips chars <= U+0020 from both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Flink's `isInteger` + `Integer.parseInt`: non-empty ASCII digits.
fn int_part(s: &str) -> Result<Option<i32>, ()> {
    let t = java_trim(s);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    t.parse::<i32>().map(Some).map_err(|_| ())
}

/// `DateTimeUtils.parseDate(String)`; see the module doc.
pub fn parse_date(text: &str) -> DateParse {
    let s = match text.find(' ') {
        Some(ws) if ws > 0 => &text[..ws],
        _ => text,
    };
    let part = |p: &str| int_part(p);
    let parsed = (|| -> Result<Option<(i32, i32, i32)>, ()> {
        let Some(h1) = s.find('-') else {
            return Ok(part(s)?.map(|y| (y, 1, 1)));
        };
        let Some(y) = part(&s[..h1])? else {
            return Ok(None);
        };
        let rest = &s[h1 + 1..];
        let Some(h2) = rest.find('-') else {
            return Ok(part(rest)?.map(|m| (y, m, 1)));
        };
        let Some(m) = part(&rest[..h2])? else {
            return Ok(None);
        };
        Ok(part(&rest[h2 + 1..])?.map(|d| (y, m, d)))
    })();
    match parsed {
        Err(()) => DateParse::Overflow,
        Ok(None) => DateParse::Invalid,
        Ok(Some((y, m, d))) => {
            if !(0..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 {
                return DateParse::Invalid;
            }
            match Date::from_ymd(y, m as u32, d as u32) {
                Some(date) => DateParse::Date(date),
                None => DateParse::Invalid,
            }
        }
    }
}

/// CAST(s AS TIME), as observed on Flink 2.3: `h:m[:s[.f]]`, each of hour,
/// minute and second one or two digits and in range (`'24:00:00'` and
/// `'12:60:00'` are not times), the fraction cut to milliseconds, nothing
/// around it. `None` when Flink gives NULL.
pub fn parse_time(v: &str) -> Option<Time> {
    let mut c = Cursor {
        b: v.as_bytes(),
        i: 0,
    };
    let h = c.digits(1, 2)?;
    if !c.literal(b':') {
        return None;
    }
    let m = c.digits(1, 2)?;
    let (mut s, mut ms) = (0, 0);
    if c.literal(b':') {
        s = c.digits(1, 2)?;
        if c.literal(b'.') {
            let start = c.i;
            while c.i < c.b.len() && c.b[c.i].is_ascii_digit() {
                c.i += 1;
            }
            for (k, d) in c.b[start..c.i].iter().take(3).enumerate() {
                ms += (d - b'0') as u32 * 10u32.pow(2 - k as u32);
            }
        }
    }
    if c.i != c.b.len() || h > 23 || m > 59 || s > 59 {
        return None;
    }
    Some(Time::from_hms_milli(h, m, s, ms))
}

/// A cursor over ASCII text for the java.time-style parser.
struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    /// A run of 1 to `max` digits (java.time's `[XX][X]`: two digits, else one).
    fn digits(&mut self, min: usize, max: usize) -> Option<u32> {
        let start = self.i;
        while self.i < self.b.len() && self.i - start < max && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i - start < min {
            self.i = start;
            return None;
        }
        std::str::from_utf8(&self.b[start..self.i])
            .ok()?
            .parse()
            .ok()
    }

    fn literal(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
}

/// `DateTimeUtils.parseTimestampData(String, precision)`; see the module doc.
pub fn parse_timestamp(text: &str, precision: u8) -> Option<Timestamp> {
    let mut c = Cursor {
        b: text.as_bytes(),
        i: 0,
    };
    // yyyy: at least 4 digits (more would be a year beyond 9999).
    let year = c.digits(4, 4)?;
    if c.b.get(c.i).is_some_and(u8::is_ascii_digit) || !c.literal(b'-') {
        return None;
    }
    let month = c.digits(1, 2)?;
    if !c.literal(b'-') {
        return None;
    }
    let day = c.digits(1, 2)?;
    let mut time = (0u32, 0u32, 0u32, 0u32);
    if c.i < c.b.len() {
        // The optional time section: all of it, or the text is not a timestamp.
        if !c.literal(b' ') {
            return None;
        }
        let h = c.digits(1, 2)?;
        if !c.literal(b':') {
            return None;
        }
        let m = c.digits(1, 2)?;
        if !c.literal(b':') {
            return None;
        }
        let s = c.digits(1, 2)?;
        let mut nanos = 0u32;
        if c.literal(b'.') {
            let start = c.i;
            while c.i < c.b.len() && c.i - start < 9 && c.b[c.i].is_ascii_digit() {
                c.i += 1;
            }
            let digits = &c.b[start..c.i];
            for (k, d) in digits.iter().enumerate() {
                nanos += (d - b'0') as u32 * 10u32.pow(8 - k as u32);
            }
        }
        time = (h, m, s, nanos);
    }
    if c.i != c.b.len() {
        return None;
    }
    // SMART resolution (year-of-era 1..; year 0 is not a year of the era).
    let (h, mi, s, nanos) = time;
    if year == 0 || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    if mi > 59 || s > 59 || h > 24 || (h == 24 && (mi, s, nanos) != (0, 0, 0)) {
        return None;
    }
    let day = day.min(days_in_month(year as i32, month));
    let date = Date::from_ymd(year as i32, month, day)?;
    let nanos = match precision {
        0 => 0,
        p if p < 9 => nanos / 10u32.pow(9 - p as u32) * 10u32.pow(9 - p as u32),
        _ => nanos,
    };
    let nano_of_day = ((h as i64 * 60 + mi as i64) * 60 + s as i64) * 1_000_000_000 + nanos as i64;
    // 24:00:00 is a whole day of nanos: the next midnight.
    Some(Timestamp::from_date_nanos(date, nano_of_day))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> String {
        match parse_date(s) {
            DateParse::Date(d) => {
                let (y, m, d) = d.ymd();
                format!("{y:04}-{m:02}-{d:02}")
            }
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn dates_as_flink_parses_them() {
        assert_eq!(date("2024-01-05"), "2024-01-05");
        assert_eq!(date("2024-1-5"), "2024-01-05");
        assert_eq!(date(" 2024-01-05 "), "2024-01-05");
        assert_eq!(date("2024"), "2024-01-01");
        assert_eq!(date("2024-05"), "2024-05-01");
        assert_eq!(date("2024-01-05 24:00:00"), "2024-01-05");
        assert_eq!(date("2024-02-30"), "Invalid");
        assert_eq!(date("2024-13-01"), "Invalid");
        assert_eq!(date("2024-01-05T10:00:00"), "Invalid");
        assert_eq!(date("+2024-01-05"), "Invalid");
        assert_eq!(date("20240105103000"), "Overflow");
        assert_eq!(date(""), "Invalid");
    }

    #[test]
    fn times_as_flink_parses_them() {
        let t = |s: &str| parse_time(s).map(|t| t.0);
        assert_eq!(t("10:11:12"), Some(36_672_000));
        assert_eq!(t("1:2:3"), Some(3_723_000));
        assert_eq!(t("1:02"), Some(3_720_000));
        assert_eq!(t("24:00:00"), None);
        assert_eq!(t("12:60:00"), None);
        assert_eq!(t("12:34:56.789"), Some(45_296_789));
        assert_eq!(t("2024-01-05"), None);
        assert_eq!(t("abc"), None);
    }

    #[test]
    fn timestamps_as_flink_parses_them() {
        let ts = |s: &str| {
            parse_timestamp(s, 3).map(|t| {
                let mut o = Vec::new();
                t.write_sql(&mut o);
                String::from_utf8(o).unwrap()
            })
        };
        assert_eq!(ts("2024-01-05").as_deref(), Some("2024-01-05 00:00:00"));
        assert_eq!(ts("2024-1-5 1:2:3").as_deref(), Some("2024-01-05 01:02:03"));
        assert_eq!(
            ts("2024-01-05 24:00:00").as_deref(),
            Some("2024-01-06 00:00:00")
        );
        assert_eq!(ts("2024-04-31").as_deref(), Some("2024-04-30 00:00:00"));
        assert_eq!(ts("2024-01-05 10:00"), None);
        assert_eq!(ts("2024-01-05T10:00:00"), None);
        assert_eq!(ts(" 2024-01-05"), None);
        assert_eq!(ts("2024-01-32"), None);
        assert_eq!(ts("2024-01-05 24:00:01"), None);
    }
}
