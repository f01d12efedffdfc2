//! Temporal functions: EXTRACT, FLOOR/CEIL(ts TO unit), interval arithmetic,
//! DATE_FORMAT / TO_DATE / TO_TIMESTAMP with Java `SimpleDateFormat` patterns,
//! CURRENT_TIMESTAMP.

use crate::value::temporal::{days_in_month, MILLIS_PER_DAY};
use crate::value::{Date, Time, Timestamp};

/// Units of EXTRACT and FLOOR/CEIL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    DayOfYear,
    /// Day of week, Sunday = 1 ... Saturday = 7 (SQL standard, as Flink).
    DayOfWeek,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
}

/// ISO-8601 week number of a date.
fn iso_week(d: Date) -> i64 {
    let (y, _, _) = d.ymd();
    // Monday-based weekday, 0 = Monday.
    let wd = |x: i32| (x as i64 + 3).rem_euclid(7);
    let thursday = d.0 as i64 - wd(d.0) + 3;
    let (ty, _, _) = Date(thursday as i32).ymd();
    let jan1 = Date::from_ymd(ty, 1, 1).map_or(0, |j| j.0 as i64);
    let _ = y;
    (thursday - jan1) / 7 + 1
}

/// The date of a timestamp as Flink's `convertExtract`, `timestampFloor` and
/// TIMESTAMP → DATE casts compute it: epoch milliseconds divided by a day
/// *toward zero*, so a time of day before 1970 counts from the next day
/// (observed: `CAST(TIMESTAMP '1969-12-31 23:59:59.999' AS DATE)` is 1970-01-01).
pub fn flink_date(ts: Timestamp) -> Date {
    Date((ts.millis / MILLIS_PER_DAY) as i32)
}

/// EXTRACT(unit FROM ts), as Flink's `DateTimeUtils.convertExtract`: Java's
/// truncating `/` and `%` on the epoch milliseconds, which for times of day
/// before 1970 gives Flink's answers (`HOUR(TIMESTAMP '1969-12-31 23:59:59.999')`
/// is 0, `EXTRACT(MILLISECOND ...)` -1); from 1970 on, the calendar's.
#[inline]
pub fn extract(unit: Unit, ts: Timestamp) -> i64 {
    let ms = ts.millis;
    let sub_milli = ts.nanos() as i64;
    match unit {
        Unit::Year
        | Unit::Quarter
        | Unit::Month
        | Unit::Week
        | Unit::Day
        | Unit::DayOfYear
        | Unit::DayOfWeek => extract_date_part(unit, flink_date(ts)),
        Unit::Hour => ms % MILLIS_PER_DAY / 3_600_000,
        Unit::Minute => ms % 3_600_000 / 60_000,
        Unit::Second => ms % 60_000 / 1000,
        // Flink returns the fraction of the second only (13:04:05.123 → 123).
        Unit::Millisecond => ms % 1000,
        Unit::Microsecond => ms % 1000 * 1000 + sub_milli / 1000,
        Unit::Nanosecond => ms % 1000 * 1_000_000 + sub_milli,
    }
}

/// The calendar units of [`extract`], from the day (the time units need no
/// calendar conversion).
fn extract_date_part(unit: Unit, d: Date) -> i64 {
    let (y, m, day) = d.ymd();
    match unit {
        Unit::Year => y as i64,
        Unit::Quarter => ((m - 1) / 3 + 1) as i64,
        Unit::Month => m as i64,
        Unit::Week => iso_week(d),
        Unit::Day => day as i64,
        Unit::DayOfYear => (d.0 - Date::from_ymd(y, 1, 1).map_or(d.0, |j| j.0)) as i64 + 1,
        // DAYOFWEEK, the one calendar unit left.
        _ => (d.0 as i64 + 4).rem_euclid(7) + 1,
    }
}

/// EXTRACT from a DATE.
pub fn extract_date(unit: Unit, d: Date) -> i64 {
    extract(unit, Timestamp::from_millis(d.0 as i64 * MILLIS_PER_DAY))
}

/// EXTRACT from a TIME.
pub fn extract_time(unit: Unit, t: Time) -> i64 {
    extract(unit, Timestamp::from_millis(t.0 as i64))
}

/// FLOOR(ts TO unit).
pub fn floor(ts: Timestamp, unit: Unit) -> Timestamp {
    // Flink's `timestampFloor` takes the day toward zero for YEAR ... WEEK.
    let d = match unit {
        Unit::Year | Unit::Quarter | Unit::Month | Unit::Week => flink_date(ts),
        _ => ts.date(),
    };
    // Calcite's `julianDateFloor` reads days before 1582-10-15 in the Julian
    // calendar but maps the result back with the Gregorian formula, so those
    // floors land up to a few days off the proleptic answer (FLOOR of
    // 0001-01-01, a Monday, TO WEEK is 0001-01-02): stmtc does the same.
    let (y, m, day) = calcite_floor_ymd(d);
    let day_start = |date: Date| Timestamp::from_millis(date.0 as i64 * MILLIS_PER_DAY);
    let trunc = |unit_ms: i64| Timestamp::from_millis(ts.millis.div_euclid(unit_ms) * unit_ms);
    match unit {
        Unit::Year => day_start(gregorian_formula(y, 1, 1)),
        Unit::Quarter => day_start(gregorian_formula(y, (m - 1) / 3 * 3 + 1, 1)),
        Unit::Month => day_start(gregorian_formula(y, m, 1)),
        // Weeks start on Sunday (Calcite's FLOOR TO WEEK).
        Unit::Week => day_start(Date(
            gregorian_formula(y, m, day).0 - (d.0 + 4).rem_euclid(7),
        )),
        Unit::Day | Unit::DayOfYear | Unit::DayOfWeek => day_start(d),
        Unit::Hour => trunc(3_600_000),
        Unit::Minute => trunc(60_000),
        Unit::Second => trunc(1000),
        Unit::Millisecond => Timestamp::from_millis(ts.millis),
        Unit::Microsecond => ts.truncate(6),
        Unit::Nanosecond => ts,
    }
}

/// Julian day number of 1970-01-01.
const EPOCH_JULIAN: i64 = 2_440_588;

/// Year, month and day of `d` as Calcite's `julianDateFloor` decomposes it
/// (Meeus' algorithm): Gregorian from 1582-10-15 on, Julian before.
fn calcite_floor_ymd(d: Date) -> (i32, u32, u32) {
    let julian = d.0 as i64 + EPOCH_JULIAN;
    if julian > 2_299_160 {
        let (y, m, day) = d.ymd();
        return (y, m, day);
    }
    julian_ymd(d)
}

/// The first day of the Gregorian calendar in Java's `GregorianCalendar`
/// (and so `SimpleDateFormat`): 1582-10-15, after Julian 1582-10-04.
pub(crate) const GREGORIAN_CUTOVER: i32 = -141_427;

/// Year, month and day of `d` in the Julian calendar.
pub(crate) fn julian_ymd(d: Date) -> (i32, u32, u32) {
    let c = d.0 as i64 + EPOCH_JULIAN + 32_082;
    let dd = (4 * c + 3) / 1461;
    let e = c - 1461 * dd / 4;
    let m = (5 * e + 2) / 153;
    let day = e - (153 * m + 2) / 5 + 1;
    let month = m + 3 - 12 * (m / 10);
    let year = dd - 4800 + m / 10;
    (year as i32, month as u32, day as u32)
}

/// The day of a Julian-calendar year, month and day.
pub(crate) fn julian_days(year: i64, month: i64, day: i64) -> i64 {
    let a = (14 - month) / 12;
    let y = year + 4800 - a;
    let m = month + 12 * a - 3;
    day + (153 * m + 2) / 5 + 365 * y + y / 4 - 32_083 - EPOCH_JULIAN
}

/// Calcite's `ymdToUnixDate`: the Gregorian day-number formula applied to
/// any year, month and day (a Julian 0100-02-29 too).
fn gregorian_formula(year: i32, month: u32, day: u32) -> Date {
    let (year, month, day) = (year as i64, month as i64, day as i64);
    let a = (14 - month) / 12;
    let y = year + 4800 - a;
    let m = month + 12 * a - 3;
    let julian = day + (153 * m + 2) / 5 + 365 * y + y / 4 - y / 100 + y / 400 - 32_045;
    Date((julian - EPOCH_JULIAN) as i32)
}

/// CEIL(ts TO unit): the floor, plus one unit unless already on a boundary.
/// YEAR, QUARTER, MONTH and WEEK are Calcite's `julianDateFloor(.., false)`
/// of the day (toward zero, as in [`floor`]), which ignores the time of day:
/// a timestamp within the first day of a unit ceils to that day's midnight
/// (`CEIL(TIMESTAMP '2024-01-07 10:00:00' TO WEEK)`, a Sunday, is 2024-01-07).
pub fn ceil(ts: Timestamp, unit: Unit) -> Timestamp {
    if matches!(unit, Unit::Year | Unit::Quarter | Unit::Month | Unit::Week) {
        let d = flink_date(ts);
        let (y, m, day) = calcite_floor_ymd(d);
        let date = match unit {
            Unit::Year if m > 1 || day > 1 => gregorian_formula(y + 1, 1, 1),
            Unit::Year => gregorian_formula(y, 1, 1),
            // Calcite's test is the year's (`month > 1 || day > 1`), not
            // the quarter's: CEIL of 2024-04-01 00:00:00 TO QUARTER is 2024-07-01.
            Unit::Quarter => {
                let q = (m - 1) / 3 + u32::from(m > 1 || day > 1);
                gregorian_formula(y, q * 3 + 1, 1)
            }
            // Month 13 is January of the next year in the formula.
            Unit::Month => gregorian_formula(y, if day > 1 { m + 1 } else { m }, 1),
            _ => {
                let dow = (d.0 + 4).rem_euclid(7);
                let offset = if dow > 0 { dow - 7 } else { dow };
                Date(gregorian_formula(y, m, day).0 - offset)
            }
        };
        return Timestamp::from_millis(date.0 as i64 * MILLIS_PER_DAY);
    }
    let f = floor(ts, unit);
    if f == ts {
        return f;
    }
    match unit {
        Unit::Year | Unit::Quarter | Unit::Month | Unit::Week => f,
        Unit::Day | Unit::DayOfYear | Unit::DayOfWeek => add_millis(f, MILLIS_PER_DAY),
        Unit::Hour => add_millis(f, 3_600_000),
        Unit::Minute => add_millis(f, 60_000),
        Unit::Second => add_millis(f, 1000),
        Unit::Millisecond => add_millis(f, 1),
        Unit::Microsecond => Timestamp::new(f.millis, f.nanos() + 1000),
        Unit::Nanosecond => f,
    }
}

/// `ts + INTERVAL n MONTH` (YEAR TO MONTH intervals): the day is clamped to the
/// target month's length (`2024-01-31 + 1 month` is `2024-02-29`).
pub fn add_months(ts: Timestamp, months: i32) -> Timestamp {
    let (y, m, d) = ts.date().ymd();
    let total = y as i64 * 12 + (m as i64 - 1) + months as i64;
    let ny = total.div_euclid(12) as i32;
    let nm = (total.rem_euclid(12) + 1) as u32;
    let nd = d.min(days_in_month(ny, nm));
    let date = Date::from_ymd(ny, nm, nd).unwrap_or(ts.date());
    Timestamp::from_date_nanos(date, ts.nano_of_day())
}

/// `date + INTERVAL n MONTH`.
pub fn add_months_date(d: Date, months: i32) -> Date {
    add_months(Timestamp::from_millis(d.0 as i64 * MILLIS_PER_DAY), months).date()
}

/// `ts + INTERVAL ... DAY TO SECOND` (an interval in milliseconds, as Flink).
pub fn add_millis(ts: Timestamp, millis: i64) -> Timestamp {
    Timestamp::new(ts.millis + millis, ts.nanos())
}

/// `date + INTERVAL ... DAY` (whole days; the time part of the interval is dropped).
pub fn add_days(d: Date, millis: i64) -> Date {
    Date(d.0 + millis.div_euclid(MILLIS_PER_DAY) as i32)
}

/// TIMESTAMPDIFF(unit, a, b) = b - a in whole units.
pub fn timestamp_diff(unit: Unit, a: Timestamp, b: Timestamp) -> i64 {
    let ms = b.millis - a.millis;
    match unit {
        Unit::Year | Unit::Quarter | Unit::Month => {
            let diff = subtract_months(b, a) as i64;
            match unit {
                Unit::Year => diff / 12,
                Unit::Quarter => diff / 3,
                _ => diff,
            }
        }
        Unit::Week => ms / (7 * MILLIS_PER_DAY),
        Unit::Day | Unit::DayOfYear | Unit::DayOfWeek => ms / MILLIS_PER_DAY,
        Unit::Hour => ms / 3_600_000,
        Unit::Minute => ms / 60_000,
        Unit::Second => ms / 1000,
        Unit::Millisecond => ms,
        Unit::Microsecond => ms * 1000,
        Unit::Nanosecond => ms * 1_000_000,
    }
}

/// Whole months from `t1` to `t0`, exactly as Flink (Calcite's
/// `DateTimeUtils.subtractMonths`): days first, then one month less when the
/// day matches but the time of day of `t0` is earlier — so from
/// `2000-02-29 12:00` to `2000-02-29 00:00` is -1 month, as Flink says.
fn subtract_months(t0: Timestamp, t1: Timestamp) -> i32 {
    let (d0, d1) = (t0.date(), t1.date());
    let mut x = subtract_months_dates(d0.0, d1.0);
    let d2 = add_months_date(d1, x);
    if d2 == d0 && t0.nano_of_day() < t1.nano_of_day() {
        x -= 1;
    }
    x
}

fn subtract_months_dates(date0: i32, date1: i32) -> i32 {
    if date0 < date1 {
        return -subtract_months_dates(date1, date0);
    }
    // Start with an estimate, then step until the next month passes date0.
    let mut m = (date0 - date1) / 31;
    loop {
        let date2 = add_months_date(Date(date1), m).0;
        if date2 >= date0 {
            return m;
        }
        let date3 = add_months_date(Date(date1), m + 1).0;
        if date3 > date0 {
            return m;
        }
        m += 1;
    }
}

/// CURRENT_TIMESTAMP / NOW() as an instant (TIMESTAMP_LTZ(3)).
pub fn current_timestamp() -> Timestamp {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    Timestamp::from_millis(ms)
}

pub(crate) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub(crate) const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// A pattern element of a `SimpleDateFormat` pattern.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Piece {
    Lit(String),
    Field(char, usize),
}

/// A compiled `SimpleDateFormat` pattern (compile once per query).
#[derive(Clone, Debug)]
pub struct DatePattern {
    pub(crate) pieces: Vec<Piece>,
}

impl DatePattern {
    /// Letters `G y M d H h k K m s S E a D w u z` are fields; text in single
    /// quotes is literal, `''` is a quote.
    pub fn new(pattern: &str) -> DatePattern {
        let mut pieces = Vec::new();
        let chars: Vec<char> = pattern.chars().collect();
        let mut i = 0;
        let mut lit = String::new();
        while i < chars.len() {
            let c = chars[i];
            if c == '\'' {
                if chars.get(i + 1) == Some(&'\'') {
                    lit.push('\'');
                    i += 2;
                    continue;
                }
                i += 1;
                while i < chars.len() {
                    if chars[i] == '\'' {
                        if chars.get(i + 1) == Some(&'\'') {
                            lit.push('\'');
                            i += 2;
                            continue;
                        }
                        i += 1;
                        break;
                    }
                    lit.push(chars[i]);
                    i += 1;
                }
                continue;
            }
            if c.is_ascii_alphabetic() {
                let mut n = 1;
                while chars.get(i + n) == Some(&c) {
                    n += 1;
                }
                if !lit.is_empty() {
                    pieces.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                pieces.push(Piece::Field(c, n));
                i += n;
                continue;
            }
            lit.push(c);
            i += 1;
        }
        if !lit.is_empty() {
            pieces.push(Piece::Lit(lit));
        }
        DatePattern { pieces }
    }

    /// DATE_FORMAT(ts, pattern), with `java.time.format.DateTimeFormatter`
    /// letter meanings (Flink 2.3: `u` is the year, `S..S` the second's fraction).
    pub fn format(&self, ts: Timestamp) -> String {
        let d = ts.date();
        let day_of_year = extract_date(Unit::DayOfYear, d);
        self.format_fields(ts, d.ymd(), day_of_year)
    }

    /// As [`format`](Self::format), but as `SimpleDateFormat` counts days:
    /// in the Julian calendar before 1582-10-15 (FROM_UNIXTIME).
    pub fn format_hybrid(&self, ts: Timestamp) -> String {
        let d = ts.date();
        if d.0 >= GREGORIAN_CUTOVER {
            return self.format(ts);
        }
        let (y, m, day) = julian_ymd(d);
        let day_of_year = d.0 as i64 - julian_days(y as i64, 1, 1) + 1;
        self.format_fields(ts, (y, m, day), day_of_year)
    }

    fn format_fields(
        &self,
        ts: Timestamp,
        (y, m, day): (i32, u32, u32),
        day_of_year: i64,
    ) -> String {
        let mut out = String::new();
        let d = ts.date();
        let nod = ts.nano_of_day();
        let h = (nod / 3_600_000_000_000) as u32;
        let pad = |out: &mut String, v: i64, n: usize| {
            let s = v.to_string();
            for _ in s.len()..n {
                out.push('0');
            }
            out.push_str(&s);
        };
        for p in &self.pieces {
            match p {
                Piece::Lit(s) => out.push_str(s),
                Piece::Field(c, n) => {
                    let n = *n;
                    match c {
                        // java.time's DateTimeFormatter (what Flink uses): 'u' is the year.
                        'y' | 'Y' | 'u' => {
                            if n == 2 {
                                pad(&mut out, (y % 100) as i64, 2)
                            } else {
                                pad(&mut out, y as i64, n)
                            }
                        }
                        'M' | 'L' => match n {
                            1 | 2 => pad(&mut out, m as i64, n),
                            3 => out.push_str(&MONTHS[m as usize - 1][..3]),
                            _ => out.push_str(MONTHS[m as usize - 1]),
                        },
                        'd' => pad(&mut out, day as i64, n),
                        'H' => pad(&mut out, h as i64, n),
                        'k' => pad(&mut out, if h == 0 { 24 } else { h as i64 }, n),
                        'K' => pad(&mut out, (h % 12) as i64, n),
                        'h' => pad(&mut out, if h % 12 == 0 { 12 } else { (h % 12) as i64 }, n),
                        'm' => pad(&mut out, nod / 60_000_000_000 % 60, n),
                        's' => pad(&mut out, nod / 1_000_000_000 % 60, n),
                        // DateTimeFormatter's S is the fraction of the second, n digits.
                        'S' => {
                            let frac = nod % 1_000_000_000;
                            let digits = n.min(9);
                            pad(&mut out, frac / 10i64.pow(9 - digits as u32), digits);
                        }
                        'E' => {
                            let wd = (d.0 as i64 + 3).rem_euclid(7) as usize;
                            if n >= 4 {
                                out.push_str(DAYS[wd]);
                            } else {
                                out.push_str(&DAYS[wd][..3]);
                            }
                        }
                        'a' => out.push_str(if h < 12 { "AM" } else { "PM" }),
                        'D' => pad(&mut out, day_of_year, n),
                        'w' => pad(&mut out, week_of_year_us(d), n),
                        'G' => out.push_str("AD"),
                        'z' | 'Z' | 'X' => out.push_str(if *c == 'z' { "UTC" } else { "+0000" }),
                        other => out.push(*other),
                    }
                }
            }
        }
        out
    }

    /// Parses text with this pattern (TO_DATE / TO_TIMESTAMP with a format):
    /// numeric fields only (y M d H h m s S a); `None` if the text does not fit.
    pub fn parse(&self, text: &str) -> Option<Timestamp> {
        let b = text.as_bytes();
        let mut i = 0;
        let (mut y, mut mo, mut d, mut h, mut mi, mut s, mut ms) =
            (1970i64, 1i64, 1i64, 0i64, 0i64, 0i64, 0i64);
        let mut pm = None;
        for (k, p) in self.pieces.iter().enumerate() {
            match p {
                Piece::Lit(l) => {
                    if !text[i..].starts_with(l.as_str()) {
                        return None;
                    }
                    i += l.len();
                }
                Piece::Field('a', _) => {
                    let rest = &text[i..];
                    if rest.starts_with("AM") || rest.starts_with("am") {
                        pm = Some(false);
                    } else if rest.starts_with("PM") || rest.starts_with("pm") {
                        pm = Some(true);
                    } else {
                        return None;
                    }
                    i += 2;
                }
                Piece::Field(c, n) => {
                    // Adjacent numeric fields take exactly n digits; otherwise greedy.
                    let next_is_field = matches!(self.pieces.get(k + 1), Some(Piece::Field(..)));
                    let max = if next_is_field { *n } else { 10 };
                    let start = i;
                    while i < b.len() && i - start < max && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    if i == start {
                        return None;
                    }
                    let v: i64 = text[start..i].parse().ok()?;
                    match c {
                        'y' => {
                            y = if *n == 2 && i - start == 2 {
                                2000 + v
                            } else {
                                v
                            }
                        }
                        'M' => mo = v,
                        'd' => d = v,
                        'H' | 'h' | 'k' | 'K' => h = v,
                        'm' => mi = v,
                        's' => s = v,
                        'S' => ms = v,
                        _ => return None,
                    }
                }
            }
        }
        if i != b.len() {
            return None;
        }
        if let Some(p) = pm {
            h = h % 12 + if p { 12 } else { 0 };
        }
        if h > 23 || mi > 59 || s > 59 {
            return None;
        }
        let date = Date::from_ymd(y as i32, mo as u32, d as u32)?;
        Some(Timestamp::from_date_nanos(
            date,
            ((h * 60 + mi) * 60 + s) * 1_000_000_000 + ms * 1_000_000,
        ))
    }
}

/// Week of year as `SimpleDateFormat` computes it in the US locale (weeks
/// start Sunday; week 1 contains January 1st).
fn week_of_year_us(d: Date) -> i64 {
    let (y, _, _) = d.ymd();
    let jan1 = Date::from_ymd(y, 1, 1).map_or(d.0, |j| j.0);
    let jan1_wd = (jan1 as i64 + 4).rem_euclid(7); // 0 = Sunday
    let next_jan1 = Date::from_ymd(y + 1, 1, 1).map_or(i32::MAX, |j| j.0);
    let next_wd = (next_jan1 as i64 + 4).rem_euclid(7);
    // The days of the last week that contain next Jan 1st belong to week 1.
    if d.0 as i64 >= next_jan1 as i64 - next_wd {
        return 1;
    }
    (d.0 as i64 - jan1 as i64 + jan1_wd) / 7 + 1
}

/// TO_DATE(s) (Flink's `parseDate`, as CAST) or with a pattern (Java's
/// lenient `SimpleDateFormat`; see `pattern_parse`). When the text does not fit
/// the pattern, Flink's `parseDate(s, fmt)` goes on with `Long.MIN_VALUE`
/// milliseconds and yields the date 5471-09-27, not NULL; so does stmtc.
pub fn to_date(s: &str, pattern: Option<&DatePattern>) -> Option<Date> {
    match pattern {
        None => match super::datetime_parse::parse_date(s) {
            super::datetime_parse::DateParse::Date(d) => Some(d),
            _ => None,
        },
        Some(p) => Some(p.parse_lenient(s).map_or_else(
            || Date::from_ymd(5471, 9, 27).unwrap_or_default(),
            Timestamp::date,
        )),
    }
}

/// TO_DATE(s) without a pattern as Flink runs it: NULL when the text is not a
/// date, and a job failure when a part has more digits than an `int` holds
/// (Flink's `NumberFormatException`, e.g. `TO_DATE('20240105103000')`).
pub fn to_date_or_fail(s: &str) -> Result<Option<Date>, String> {
    match super::datetime_parse::parse_date(s) {
        super::datetime_parse::DateParse::Date(d) => Ok(Some(d)),
        super::datetime_parse::DateParse::Invalid => Ok(None),
        super::datetime_parse::DateParse::Overflow => Err(format!(
            "TO_DATE('{s}'): java.lang.NumberFormatException: a part of the date is out of the int range"
        )),
    }
}

/// TO_TIMESTAMP(s) (Flink's `parseTimestampData`, as CAST) or with a pattern
/// (java.time's `DateTimeFormatter`, SMART, then Flink's fallback to
/// `Timestamp.valueOf` / `Date.valueOf`; see `pattern_parse`); TIMESTAMP(3).
pub fn to_timestamp(s: &str, pattern: Option<&DatePattern>) -> Option<Timestamp> {
    match pattern {
        None => super::datetime_parse::parse_timestamp(s, 3),
        Some(p) => p.parse_java_time(s).map(|t| t.truncate(3)),
    }
}

/// UNIX_TIMESTAMP(s[, fmt]): seconds since the epoch of `s` read as
/// [`date_format_input`] does (`yyyy-MM-dd HH:mm:ss` when no pattern is
/// given; the session time zone is UTC), cut toward zero as Java's `/`;
/// text that does not fit gives `Long.MIN_VALUE`, not NULL, as in Flink's
/// `DateTimeUtils.unixTimestamp`.
pub fn unix_timestamp(s: &str, pattern: Option<&DatePattern>) -> i64 {
    let parsed = match pattern {
        Some(p) => p.parse_lenient(s),
        None => date_format_input(s),
    };
    parsed.map_or(i64::MIN, |ts| ts.millis / 1000)
}

/// FROM_UNIXTIME(seconds[, fmt]): the instant `seconds` (× 1000 in Java's
/// wrapping `long` arithmetic) formatted with `fmt` (default
/// `yyyy-MM-dd HH:mm:ss`) in the session time zone, UTC, as
/// `SimpleDateFormat` does: days before 1582-10-15 in the Julian calendar.
pub fn from_unixtime(seconds: i64, pattern: Option<&DatePattern>) -> String {
    static DEFAULT: std::sync::LazyLock<DatePattern> =
        std::sync::LazyLock::new(|| DatePattern::new("yyyy-MM-dd HH:mm:ss"));
    let ts = Timestamp::from_millis(seconds.wrapping_mul(1000));
    pattern.unwrap_or(&DEFAULT).format_hybrid(ts)
}

/// The text argument of DATE_FORMAT(string, fmt): Flink reads it with a
/// lenient `SimpleDateFormat("yyyy-MM-dd HH:mm:ss")` (`'2024-01-05 24:00:00'`
/// is the next midnight, trailing text is ignored, a date alone is NULL).
pub fn date_format_input(s: &str) -> Option<Timestamp> {
    static PATTERN: std::sync::LazyLock<DatePattern> =
        std::sync::LazyLock::new(|| DatePattern::new("yyyy-MM-dd HH:mm:ss"));
    PATTERN.parse_lenient(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        Timestamp::parse_lenient(s.as_bytes()).unwrap()
    }
    fn show(t: Timestamp) -> String {
        let mut o = Vec::new();
        t.write_sql(&mut o);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn extract_floor_ceil() {
        let t = ts("2024-01-05 13:04:05.123");
        assert_eq!(extract(Unit::Year, t), 2024);
        assert_eq!(extract(Unit::DayOfWeek, t), 6, "a Friday");
        assert_eq!(extract(Unit::Week, t), 1);
        assert_eq!(extract(Unit::Hour, t), 13);
        assert_eq!(extract(Unit::Millisecond, t), 123);
        assert_eq!(
            extract_date(Unit::DayOfYear, Date::from_ymd(2024, 12, 31).unwrap()),
            366
        );
        let t = ts("2024-05-17 10:23:45.5");
        assert_eq!(show(floor(t, Unit::Hour)), "2024-05-17 10:00:00");
        assert_eq!(show(floor(t, Unit::Quarter)), "2024-04-01 00:00:00");
        assert_eq!(show(floor(t, Unit::Week)), "2024-05-12 00:00:00");
        assert_eq!(show(ceil(t, Unit::Day)), "2024-05-18 00:00:00");
        assert_eq!(
            show(ceil(ts("2024-05-17 00:00:00"), Unit::Day)),
            "2024-05-17 00:00:00"
        );
        // Calcite's julianDateFloor, as Flink 2.3 gave it: Julian-calendar
        // days before 1582-10-15, the time of day ignored by CEIL.
        let week = |s: &str, up: bool| {
            let t = ts(s);
            show(if up {
                ceil(t, Unit::Week)
            } else {
                floor(t, Unit::Week)
            })
        };
        assert_eq!(week("0001-01-01 00:00:00", false), "0001-01-02 00:00:00");
        assert_eq!(week("0001-01-01 00:00:00", true), "0001-01-09 00:00:00");
        assert_eq!(week("1582-10-14 00:00:00", false), "1582-09-30 00:00:00");
        assert_eq!(week("1582-10-15 00:00:00", true), "1582-10-17 00:00:00");
        assert_eq!(week("1000-06-15 12:00:00", false), "1000-06-09 00:00:00");
        assert_eq!(week("1000-06-15 12:00:00", true), "1000-06-16 00:00:00");
        assert_eq!(week("1969-12-31 23:59:59.999", true), "1970-01-04 00:00:00");
        assert_eq!(week("2024-01-07 10:00:00", true), "2024-01-07 00:00:00");
        assert_eq!(week("2024-01-08 00:00:01", true), "2024-01-14 00:00:00");
        // SimpleDateFormat's Julian calendar before 1582-10-15, as Flink 2.3
        // gave UNIX_TIMESTAMP(s) and FROM_UNIXTIME of it.
        for (text, seconds) in [
            ("0001-01-01 00:00:00", -62135769600),
            ("1000-06-15 12:00:00", -30595406400),
            ("1582-10-04 00:00:00", -12219379200),
            ("1582-10-14 00:00:00", -12218515200),
            ("1582-10-15 00:00:00", -12219292800),
            ("1969-12-31 12:34:56", -41104),
        ] {
            assert_eq!(unix_timestamp(text, None), seconds, "{text}");
        }
        assert_eq!(from_unixtime(-62135769600, None), "0001-01-01 00:00:00");
        assert_eq!(from_unixtime(-12218515200, None), "1582-10-24 00:00:00");
        assert_eq!(from_unixtime(-12219379200, None), "1582-10-04 00:00:00");
        assert_eq!(from_unixtime(-30595406400, None), "1000-06-15 12:00:00");
        assert_eq!(from_unixtime(-1, None), "1969-12-31 23:59:59");
        let up = |s: &str, unit: Unit| show(ceil(ts(s), unit));
        assert_eq!(
            up("2024-01-01 10:00:00", Unit::Month),
            "2024-01-01 00:00:00"
        );
        assert_eq!(
            up("2024-12-15 00:00:00", Unit::Month),
            "2025-01-01 00:00:00"
        );
        assert_eq!(
            up("1000-03-03 00:00:00", Unit::Month),
            "1000-03-01 00:00:00"
        );
        assert_eq!(
            up("2024-01-01 10:00:00", Unit::Quarter),
            "2024-01-01 00:00:00"
        );
        assert_eq!(
            up("2024-04-01 00:00:00", Unit::Quarter),
            "2024-07-01 00:00:00"
        );
        assert_eq!(
            up("2024-12-15 00:00:00", Unit::Quarter),
            "2025-01-01 00:00:00"
        );
        assert_eq!(
            up("1000-03-03 00:00:00", Unit::Quarter),
            "1000-04-01 00:00:00"
        );
        assert_eq!(up("2024-04-01 00:00:00", Unit::Year), "2025-01-01 00:00:00");
        assert_eq!(up("2024-01-01 10:00:00", Unit::Year), "2024-01-01 00:00:00");
        assert_eq!(
            show(floor(ts("1000-03-03 00:00:00"), Unit::Month)),
            "1000-02-01 00:00:00"
        );
        assert_eq!(
            show(add_months(ts("2024-01-31 10:00:00"), 1)),
            "2024-02-29 10:00:00"
        );
        assert_eq!(
            show(add_months(ts("2024-02-29 00:00:00"), 12)),
            "2025-02-28 00:00:00"
        );
        assert_eq!(
            timestamp_diff(Unit::Day, ts("2024-01-01"), ts("2024-03-01 12:00:00")),
            60
        );
        // From codegen/expr/testdata/probe and docs/flink-observed (Flink 2.3).
        let months = |a: &str, b: &str| timestamp_diff(Unit::Month, ts(a), ts(b));
        assert_eq!(months("2024-01-31", "2024-02-29"), 1);
        assert_eq!(months("2000-02-29 12:00:00.5", "2000-02-29"), -1);
        assert_eq!(months("2023-12-31 23:59:59.999", "2024-02-29"), 1);
        assert_eq!(months("2024-01-05 08:01:29.363", "2024-01-31"), 0);
        assert_eq!(
            timestamp_diff(Unit::Year, ts("2024-01-31"), ts("2000-06-01")),
            -23
        );
        assert_eq!(
            timestamp_diff(
                Unit::Quarter,
                ts("2024-01-05 08:01:29.363"),
                ts("2023-01-01")
            ),
            -4
        );
    }

    #[test]
    fn patterns() {
        let t = ts("2024-01-05 15:48:29.252");
        assert_eq!(
            DatePattern::new("yyyy-MM-dd HH:mm:ss.SSS").format(t),
            "2024-01-05 15:48:29.252"
        );
        assert_eq!(
            DatePattern::new("EEE MMM d hh a").format(t),
            "Fri Jan 5 03 PM"
        );
        assert_eq!(
            DatePattern::new("yyyyMMdd'T'HHmmss").format(t),
            "20240105T154829"
        );
        // Values from tests/flink_samples/functions/results.tsv.
        assert_eq!(
            DatePattern::new("yy D w u").format(ts("2024-01-05 03:48:29.252")),
            "24 5 1 2024"
        );
        assert_eq!(
            DatePattern::new("EEEE MMMM dd hh a").format(t),
            "Friday January 05 03 PM"
        );
        let p = DatePattern::new("dd/MM/yyyy");
        assert_eq!(to_date("05/01/2024", Some(&p)), Date::from_ymd(2024, 1, 5));
        assert_eq!(
            DatePattern::new("yyyyMMdd")
                .parse("20240105")
                .map(|t| t.date()),
            Date::from_ymd(2024, 1, 5)
        );
    }
}

/// Windows `[start, end)` (epoch millis) of a TUMBLE of `size` (and `offset`)
/// that contain `ts`: exactly one.
pub fn tumble_windows(ts: i64, size: i64, offset: i64) -> impl Iterator<Item = (i64, i64)> {
    let start = window_start(ts, size, offset);
    std::iter::once((start, start + size))
}

/// Windows of a HOP (slide, size) that contain `ts`, latest start first as
/// Flink assigns them.
pub fn hop_windows(
    ts: i64,
    slide: i64,
    size: i64,
    offset: i64,
) -> impl Iterator<Item = (i64, i64)> {
    let last = window_start(ts, slide, offset);
    (0..size / slide.max(1))
        .map(move |k| last - k * slide)
        .filter(move |start| *start + size > ts)
        .map(move |start| (start, start + size))
}

/// Windows of a CUMULATE (step, max size) that contain `ts`: every window of
/// the enclosing size window whose end is after `ts`.
pub fn cumulate_windows(
    ts: i64,
    step: i64,
    size: i64,
    offset: i64,
) -> impl Iterator<Item = (i64, i64)> {
    let start = window_start(ts, size, offset);
    (1..=size / step.max(1))
        .map(move |k| (start, start + k * step))
        .filter(move |(_, end)| *end > ts)
}

/// Flink's `TimeWindow.getWindowStartWithOffset`.
fn window_start(ts: i64, size: i64, offset: i64) -> i64 {
    let size = size.max(1);
    let rem = (ts - offset).rem_euclid(size);
    ts - rem
}

#[cfg(test)]
mod window_tests {
    use super::*;

    #[test]
    fn assigns_windows_like_flink() {
        let h = 3_600_000;
        assert_eq!(
            tumble_windows(h + 5, h, 0).collect::<Vec<_>>(),
            vec![(h, 2 * h)]
        );
        assert_eq!(
            hop_windows(h + 5, h / 2, h, 0).collect::<Vec<_>>(),
            vec![(h, 2 * h), (h / 2, h + h / 2)]
        );
        assert_eq!(
            cumulate_windows(h / 4 + 1, h / 4, h, 0).collect::<Vec<_>>(),
            vec![(0, h / 2), (0, 3 * h / 4), (0, h)]
        );
        assert_eq!(
            tumble_windows(-1, 10, 0).collect::<Vec<_>>(),
            vec![(-10, 0)]
        );
    }
}
