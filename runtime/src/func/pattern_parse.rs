//! Parsing text with a date pattern, the two ways Flink 2.3 does it:
//!
//! - [`DatePattern::parse_lenient`] is Java's `SimpleDateFormat` in its default
//!   lenient mode (TO_DATE(s, fmt), UNIX_TIMESTAMP(s, fmt), DATE_FORMAT of a
//!   string): a numeric field takes as many digits as there are (exactly as many
//!   as its letters when another numeric field follows directly), out-of-range
//!   values roll over (`'2024-02-30'` is March 1st, `'32/01/2024'` February
//!   1st, hour 24 the next day), month and day names match in any case, long or
//!   short, and text after the pattern is ignored;
//! - [`DatePattern::parse_java_time`] is `DateTimeFormatter.ofPattern(fmt)` with
//!   the SMART resolver (TO_TIMESTAMP(s, fmt)): two letters mean exactly two
//!   digits, names are case-sensitive, the whole text must match, a day past
//!   the month's end but at most 31 becomes its last day, `24:00` the next
//!   midnight, a weekday must agree with the date; when that fails, Flink
//!   falls back to `java.sql.Timestamp.valueOf` (text with a space) or
//!   `java.sql.Date.valueOf`, which take `yyyy-M-d[ h:m:s[.f]]` and roll over.
//!
//! Fields missing from the pattern default to 1970-01-01 00:00:00.

use super::temporal::{DatePattern, Piece, DAYS, MONTHS};
use crate::value::temporal::days_from_civil;
use crate::value::{Date, Timestamp};

const NUMERIC: &[char] = &['y', 'u', 'd', 'H', 'h', 'k', 'K', 'm', 's', 'S', 'D'];

fn is_numeric(p: Option<&Piece>) -> bool {
    match p {
        Some(Piece::Field('M', n)) => *n < 3,
        Some(Piece::Field(c, _)) => NUMERIC.contains(c),
        _ => false,
    }
}

/// Parsed fields (None = absent).
#[derive(Default)]
struct Fields {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    day_of_year: Option<i64>,
    hour: Option<i64>,
    /// 'h' / 'K' hours (of AM/PM), with `clock` = 'h' semantics (12 is 0).
    ampm_hour: Option<i64>,
    pm: Option<bool>,
    minute: Option<i64>,
    second: Option<i64>,
    nanos: Option<i64>,
    weekday: Option<usize>,
}

/// A name from `names` (or its 3-letter form) at the start of `text`: the
/// index and the length matched.
fn match_name(
    text: &str,
    names: &[&str],
    full: bool,
    short: bool,
    any_case: bool,
) -> Option<(usize, usize)> {
    let starts = |t: &str, n: &str| {
        t.len() >= n.len()
            && t.is_char_boundary(n.len())
            && if any_case {
                t[..n.len()].eq_ignore_ascii_case(n)
            } else {
                &t[..n.len()] == n
            }
    };
    if full {
        if let Some(i) = names.iter().position(|n| starts(text, n)) {
            return Some((i, names[i].len()));
        }
    }
    if short {
        if let Some(i) = names.iter().position(|n| starts(text, &n[..3])) {
            return Some((i, 3));
        }
    }
    None
}

fn digits(b: &[u8], i: usize, max: usize) -> usize {
    b[i..]
        .iter()
        .take(max)
        .take_while(|c| c.is_ascii_digit())
        .count()
}

/// Days since the epoch of year/month/day with Java's lenient rollover.
fn lenient_date(y: i64, m: i64, d: i64) -> Option<i64> {
    let months = y.checked_mul(12)?.checked_add(m - 1)?;
    let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    let y32 = i32::try_from(y).ok()?;
    // `GregorianCalendar`: years before 1582 are Julian, later ones
    // Gregorian; in 1582 a day before the cutover (10-15) is read as Julian.
    let gregorian = days_from_civil(y32, m as u32, 1) as i64 + d - 1;
    let julian = || super::temporal::julian_days(y, m, 1) + d - 1;
    Some(match y {
        ..1582 => julian(),
        1582 if gregorian < i64::from(super::temporal::GREGORIAN_CUTOVER) => julian(),
        _ => gregorian,
    })
}

fn timestamp(days: i64, nanos_of_day: i64) -> Option<Timestamp> {
    let days = i32::try_from(days).ok()?;
    Some(Timestamp::from_date_nanos(Date(days), 0)).map(|t| {
        Timestamp::new(
            t.millis + nanos_of_day.div_euclid(1_000_000),
            nanos_of_day.rem_euclid(1_000_000) as u32,
        )
    })
}

impl DatePattern {
    /// `SimpleDateFormat.parse` (lenient, UTC); see the module doc.
    pub fn parse_lenient(&self, text: &str) -> Option<Timestamp> {
        let b = text.as_bytes();
        let mut i = 0;
        let mut f = Fields::default();
        for (k, p) in self.pieces.iter().enumerate() {
            match p {
                Piece::Lit(l) => {
                    if !text[i..].starts_with(l.as_str()) {
                        return None;
                    }
                    i += l.len();
                }
                Piece::Field('M', n) if *n >= 3 => {
                    let (m, len) = match_name(&text[i..], &MONTHS, true, true, true)?;
                    f.month = Some(m as i64 + 1);
                    i += len;
                }
                Piece::Field('E', _) => {
                    let (_, len) = match_name(&text[i..], &DAYS, true, true, true)?;
                    i += len;
                }
                Piece::Field('a', _) => {
                    let (ix, len) = match_name(&text[i..], &["AM", "PM"], true, false, true)?;
                    f.pm = Some(ix == 1);
                    i += len;
                }
                Piece::Field(c, n) if *c == 'M' || NUMERIC.contains(c) => {
                    let max = if is_numeric(self.pieces.get(k + 1)) {
                        *n
                    } else {
                        usize::MAX
                    };
                    let len = digits(b, i, max);
                    if len == 0 {
                        return None;
                    }
                    let v: i64 = text[i..i + len].parse().ok()?;
                    match c {
                        'y' | 'u' if *n <= 2 && len == 2 => {
                            // Two-digit years fall within 80 years before and 20 after now.
                            f.year = Some(if v + 1900 > 1946 { 1900 + v } else { 2000 + v })
                        }
                        'y' | 'u' => f.year = Some(v),
                        'M' => f.month = Some(v),
                        'd' => f.day = Some(v),
                        'D' => f.day_of_year = Some(v),
                        'H' => f.hour = Some(v),
                        'k' => f.hour = Some(if v == 24 { 0 } else { v }),
                        'h' => f.ampm_hour = Some(if v == 12 { 0 } else { v }),
                        'K' => f.ampm_hour = Some(v),
                        'm' => f.minute = Some(v),
                        's' => f.second = Some(v),
                        // SimpleDateFormat's S is a number of milliseconds.
                        _ => f.nanos = Some(v * 1_000_000),
                    }
                    i += len;
                }
                Piece::Field(..) => return None,
            }
        }
        if i == 0 {
            // `DateFormat.parse(String)` throws when nothing was read.
            return None;
        }
        let year = f.year.unwrap_or(1970);
        let days = match (f.day_of_year, f.month, f.day) {
            (Some(doy), None, None) => lenient_date(year, 1, doy)?,
            _ => lenient_date(year, f.month.unwrap_or(1), f.day.unwrap_or(1))?,
        };
        let hour = match (f.hour, f.ampm_hour) {
            (Some(h), _) => h,
            (None, Some(h)) => h + if f.pm == Some(true) { 12 } else { 0 },
            (None, None) => {
                if f.pm == Some(true) {
                    12
                } else {
                    0
                }
            }
        };
        let nanos = ((hour * 60 + f.minute.unwrap_or(0)) * 60 + f.second.unwrap_or(0))
            .checked_mul(1_000_000_000)?
            .checked_add(f.nanos.unwrap_or(0))?;
        timestamp(days, nanos)
    }

    /// `DateTimeFormatter.ofPattern(fmt)` (SMART) with Flink's fallback; see
    /// the module doc.
    pub fn parse_java_time(&self, text: &str) -> Option<Timestamp> {
        self.java_time(text)
            .or_else(|| sql_value_of(text.trim_matches(|c: char| c <= ' ')))
    }

    fn java_time(&self, text: &str) -> Option<Timestamp> {
        let b = text.as_bytes();
        let mut i = 0;
        let mut f = Fields::default();
        for (k, p) in self.pieces.iter().enumerate() {
            match p {
                Piece::Lit(l) => {
                    if !text[i..].starts_with(l.as_str()) {
                        return None;
                    }
                    i += l.len();
                }
                Piece::Field('M', n) if *n >= 3 => {
                    let (m, len) = match_name(&text[i..], &MONTHS, *n >= 4, *n == 3, false)?;
                    f.month = Some(m as i64 + 1);
                    i += len;
                }
                Piece::Field('E', n) => {
                    let (d, len) = match_name(&text[i..], &DAYS, *n >= 4, *n <= 3, false)?;
                    f.weekday = Some(d);
                    i += len;
                }
                Piece::Field('a', _) => {
                    let (ix, len) = match_name(&text[i..], &["AM", "PM"], true, false, false)?;
                    f.pm = Some(ix == 1);
                    i += len;
                }
                Piece::Field('S', n) => {
                    let len = digits(b, i, *n);
                    if len != *n || *n > 9 {
                        return None;
                    }
                    let v: i64 = text[i..i + len].parse().ok()?;
                    f.nanos = Some(v * 10i64.pow(9 - *n as u32));
                    i += len;
                }
                Piece::Field(c, n) if *c == 'M' || NUMERIC.contains(c) => {
                    // Fixed widths after this field, when they follow it directly.
                    let mut reserved = 0;
                    let mut j = k + 1;
                    while let Some(Piece::Field(c2, n2)) = self.pieces.get(j) {
                        if !is_numeric(self.pieces.get(j)) && *c2 != 'S' {
                            break;
                        }
                        reserved += n2;
                        j += 1;
                    }
                    let available = digits(b, i, usize::MAX);
                    let (min, max) = match (c, n) {
                        ('y' | 'u', 2) => (2, 2),
                        ('y' | 'u', 1) => (1, 19),
                        ('y' | 'u', n) => (*n, 19.max(*n)),
                        (_, 1) => (1, 19),
                        (_, n) => (*n, *n),
                    };
                    let len = available.saturating_sub(reserved).min(max);
                    if len < min {
                        return None;
                    }
                    let v: i64 = text[i..i + len].parse().ok()?;
                    match c {
                        'y' | 'u' if *n == 2 => f.year = Some(2000 + v),
                        'y' | 'u' => f.year = Some(v),
                        'M' => f.month = Some(v),
                        'd' => f.day = Some(v),
                        'D' => f.day_of_year = Some(v),
                        'H' => f.hour = Some(v),
                        'k' => f.hour = Some(if v == 24 { 0 } else { v }),
                        'h' => {
                            if !(1..=12).contains(&v) {
                                return None;
                            }
                            f.ampm_hour = Some(v % 12)
                        }
                        'K' => f.ampm_hour = Some(v),
                        'm' => f.minute = Some(v),
                        _ => f.second = Some(v),
                    }
                    i += len;
                }
                Piece::Field(..) => return None,
            }
        }
        if i != b.len() {
            return None;
        }
        let year = f.year.unwrap_or(1970);
        let days = match (f.day_of_year, f.month, f.day) {
            (Some(doy), None, None) => {
                let leap = crate::value::temporal::is_leap_year(i32::try_from(year).ok()?);
                if !(1..=if leap { 366 } else { 365 }).contains(&doy) {
                    return None;
                }
                lenient_date(year, 1, doy)?
            }
            _ => {
                let (m, d) = (f.month.unwrap_or(1), f.day.unwrap_or(1));
                if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
                    return None;
                }
                let last =
                    crate::value::temporal::days_in_month(i32::try_from(year).ok()?, m as u32);
                lenient_date(year, m, d.min(last as i64))?
            }
        };
        if let Some(w) = f.weekday {
            // DAYS starts on Monday; 1970-01-01 was a Thursday.
            if (days + 3).rem_euclid(7) as usize != w {
                return None;
            }
        }
        let hour = match (f.hour, f.ampm_hour, f.pm) {
            (Some(h), _, _) => h,
            (None, Some(h), Some(pm)) => h + if pm { 12 } else { 0 },
            // A clock hour without AM/PM is not resolved: Flink defaults to 0.
            _ => 0,
        };
        let (mi, s, ns) = (
            f.minute.unwrap_or(0),
            f.second.unwrap_or(0),
            f.nanos.unwrap_or(0),
        );
        if mi > 59 || s > 59 || hour > 24 || (hour == 24 && (mi, s, ns) != (0, 0, 0)) {
            return None;
        }
        timestamp(days, ((hour * 60 + mi) * 60 + s) * 1_000_000_000 + ns)
    }
}

/// `java.sql.Timestamp.valueOf` (text with a space) or `java.sql.Date.valueOf`:
/// `yyyy-M-d` (year 4 digits, month 1 to 12, day 1 to 31, each 1 or 2
/// digits) and `h:m:s[.f]`, rolled over leniently.
fn sql_value_of(s: &str) -> Option<Timestamp> {
    let (date, time) = match s.split_once(' ') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let ok = |p: &str, lo: usize, hi: usize| {
        (lo..=hi).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit())
    };
    if parts.next().is_some() || !ok(y, 4, 4) || !ok(m, 1, 2) || !ok(d, 1, 2) {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = lenient_date(y, m, d)?;
    let nanos = match time {
        None => 0,
        Some(t) => {
            let (hms, frac) = t.split_once('.').map_or((t, ""), |(a, b)| (a, b));
            let mut f = hms.split(':');
            let (h, mi, sec) = (f.next()?, f.next()?, f.next()?);
            let num = |p: &str| -> Option<i64> {
                if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                p.parse().ok()
            };
            if f.next().is_some() || frac.len() > 9 || !frac.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let frac_nanos = if frac.is_empty() {
                0
            } else {
                frac.parse::<i64>().ok()? * 10i64.pow(9 - frac.len() as u32)
            };
            ((num(h)? * 60 + num(mi)?) * 60 + num(sec)?) * 1_000_000_000 + frac_nanos
        }
    };
    timestamp(days, nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(t: Option<Timestamp>) -> String {
        t.map_or("NULL".into(), |t| {
            let mut o = Vec::new();
            t.write_sql(&mut o);
            String::from_utf8(o).unwrap()
        })
    }

    // Values from the function probe (Flink 2.3).
    #[test]
    fn simple_date_format_is_lenient() {
        let p = |pat: &str, s: &str| show(DatePattern::new(pat).parse_lenient(s));
        assert_eq!(p("dd/MM/yyyy", "30/02/2024"), "2024-03-01 00:00:00");
        assert_eq!(p("d/M/yyyy", "5/1/2024"), "2024-01-05 00:00:00");
        assert_eq!(p("dd MMM yyyy", "05 Jan 2024"), "2024-01-05 00:00:00");
        assert_eq!(
            p("EEE MMM dd yyyy", "Fri Jan 05 2024"),
            "2024-01-05 00:00:00"
        );
        assert_eq!(p("MMMM d, yyyy", "January 5, 2024"), "2024-01-05 00:00:00");
        assert_eq!(
            p("yyyy-MM-dd HH:mm:ss", "2024-01-05 24:00:00"),
            "2024-01-06 00:00:00"
        );
        assert_eq!(p("yyyyMMddHHmmss", "20240105103000"), "2024-01-05 10:30:00");
        assert_eq!(p("yy-MM-dd", "24-01-05"), "2024-01-05 00:00:00");
        assert_eq!(p("HH:mm:ss", "12:60:00"), "1970-01-01 13:00:00");
        assert_eq!(p("yyyy-DDD", "2024-366"), "2024-12-31 00:00:00");
        assert_eq!(
            p("yyyy-MM-dd", "2024-01-05 10:00:00"),
            "2024-01-05 00:00:00"
        );
        assert_eq!(p("yyyy-MM-dd HH:mm:ss", "2024-01-05"), "NULL");
        assert_eq!(p("", ""), "NULL");
        assert_eq!(
            p("yyyy/MM/dd h:m:s a", "2024/01/05 3:4:5 PM"),
            "2024-01-05 15:04:05"
        );
    }

    #[test]
    fn date_time_formatter_is_smart() {
        let p = |pat: &str, s: &str| show(DatePattern::new(pat).parse_java_time(s));
        assert_eq!(p("dd/MM/yyyy", "30/02/2024"), "2024-02-29 00:00:00");
        assert_eq!(p("dd/MM/yyyy", "32/01/2024"), "NULL");
        assert_eq!(p("yyyyMMddHHmmss", "20240105103000"), "2024-01-05 10:30:00");
        assert_eq!(
            p("MMM d yyyy hh:mm a", "Jan 5 2024 10:00 PM"),
            "2024-01-05 22:00:00"
        );
        assert_eq!(
            p("EEEE, MMMM d, yyyy", "Friday, January 5, 2024"),
            "2024-01-05 00:00:00"
        );
        assert_eq!(p("HH:mm:ss", "12:60:00"), "NULL");
        assert_eq!(p("yyyy-MM-dd", "2024-1-5"), "2024-01-05 00:00:00");
        assert_eq!(
            p("yyyy-MM-dd", "2024-01-05 10:00:00"),
            "2024-01-05 10:00:00"
        );
        assert_eq!(
            p("yyyy-MM-dd HH:mm:ss", "2024-01-05"),
            "2024-01-05 00:00:00"
        );
        assert_eq!(p("", ""), "1970-01-01 00:00:00");
        assert_eq!(p("H:mm", "1:02"), "1970-01-01 01:02:00");
    }
}
