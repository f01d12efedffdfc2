//! DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ values, their text forms, and
//! civil-calendar arithmetic (proleptic Gregorian, years 0001-9999 as Flink).
//!
//! Representations follow Flink's internal ones so that results match:
//! - [`Date`]: days since 1970-01-01 (`int` in Flink);
//! - [`Time`]: milliseconds of the day — Flink stores TIME(p) as `int` millis, so
//!   a TIME(6) value loses its micros exactly as in Flink;
//! - [`Timestamp`]: epoch millis plus nanos within the milli (`TimestampData`);
//!   a TIMESTAMP_LTZ uses the same representation as an instant, rendered in the
//!   session time zone ([`SessionZone`], UTC by default).

use std::num::NonZeroU32;

/// Days since 1970-01-01.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub i32);

/// Milliseconds since midnight, `0..86_400_000`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub i32);

/// A date-time without zone (TIMESTAMP) or an instant (TIMESTAMP_LTZ).
/// Field order makes the derived ordering chronological.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Milliseconds since 1970-01-01 00:00:00.
    pub millis: i64,
    /// Nanoseconds within the millisecond (`0..1_000_000`) plus one: never
    /// zero, so an `Option<Timestamp>` is as small as a `Timestamp` (16
    /// bytes, not 24) in rows and in MIN/MAX accumulators. Order-preserving.
    sub_milli: NonZeroU32,
}

impl Timestamp {
    /// `nanos` within the millisecond, `0..1_000_000`.
    #[inline]
    pub const fn new(millis: i64, nanos: u32) -> Timestamp {
        Timestamp {
            millis,
            sub_milli: NonZeroU32::MIN.saturating_add(nanos),
        }
    }

    /// Nanoseconds within the millisecond, `0..1_000_000`.
    #[inline]
    pub const fn nanos(self) -> u32 {
        self.sub_milli.get() - 1
    }
}

impl Timestamp {
    /// The milliseconds and the never-zero sub-millisecond part, for
    /// accumulators that pack several timestamps (ordered as the value).
    #[inline]
    pub(crate) fn packed(self) -> (i64, u32) {
        (self.millis, self.sub_milli.get())
    }

    /// The value of [`Timestamp::packed`]'s parts; `None` for a zero part.
    #[inline]
    pub(crate) fn unpacked(millis: i64, sub: u32) -> Option<Timestamp> {
        NonZeroU32::new(sub).map(|sub_milli| Timestamp { millis, sub_milli })
    }
}

impl Default for Timestamp {
    fn default() -> Self {
        Timestamp::new(0, 0)
    }
}

impl std::fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timestamp")
            .field("millis", &self.millis)
            .field("nanos", &self.nanos())
            .finish()
    }
}

pub const MILLIS_PER_DAY: i64 = 86_400_000;

/// The session time zone used to render and parse TIMESTAMP_LTZ values.
/// Only fixed offsets are supported (no tz database): `UTC` (Flink's default
/// when `table.local-time-zone` is UTC), `+08:00`, `GMT-5` and the like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionZone {
    pub offset_seconds: i32,
}

impl SessionZone {
    pub const UTC: SessionZone = SessionZone { offset_seconds: 0 };

    /// Parses `UTC`, `Z`, `GMT`, `+08:00`, `-0530`, `UTC+8`, `GMT-05:00`.
    pub fn parse(s: &str) -> Option<SessionZone> {
        let s = s.trim();
        let rest = s
            .strip_prefix("UTC")
            .or_else(|| s.strip_prefix("GMT"))
            .unwrap_or(s);
        if rest.is_empty() || rest == "Z" {
            return Some(SessionZone::UTC);
        }
        let (sign, body) = match rest.as_bytes()[0] {
            b'+' => (1, &rest[1..]),
            b'-' => (-1, &rest[1..]),
            _ => return None,
        };
        let (h, m) = match body.split_once(':') {
            Some((h, m)) => (h.parse::<i32>().ok()?, m.parse::<i32>().ok()?),
            None if body.len() == 4 => (body[..2].parse().ok()?, body[2..].parse().ok()?),
            None => (body.parse().ok()?, 0),
        };
        if h > 18 || m > 59 {
            return None;
        }
        Some(SessionZone {
            offset_seconds: sign * (h * 3600 + m * 60),
        })
    }

    /// The wall-clock TIMESTAMP of an instant in this zone.
    pub fn to_local(self, instant: Timestamp) -> Timestamp {
        Timestamp::new(
            instant.millis + self.offset_seconds as i64 * 1000,
            instant.nanos(),
        )
    }

    /// The instant of a wall-clock TIMESTAMP in this zone.
    pub fn to_instant(self, local: Timestamp) -> Timestamp {
        Timestamp::new(
            local.millis - self.offset_seconds as i64 * 1000,
            local.nanos(),
        )
    }
}

/// Days since the epoch of a proleptic Gregorian date.
#[inline]
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    // Neri and Schneider's rata die (see `civil_from_days`), exact in
    // 32 bits for these years; Hinnant's algorithm for the rest.
    const SHIFT: u32 = 82;
    const K: u32 = 719_468 + 146_097 * SHIFT;
    const L: u32 = 400 * SHIFT;
    if !(-30_000..=1_000_000).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return days_from_civil_hinnant(y, m, d);
    }
    let january_or_february = m <= 2;
    let year = (y + L as i32) as u32 - u32::from(january_or_february);
    let month = if january_or_february { m + 12 } else { m };
    let century = year / 100;
    let year_days = 1461 * year / 4 - century + century / 4;
    let month_days = (979 * month - 2919) / 32;
    (year_days + month_days + d - 1) as i32 - K as i32
}

/// [`days_from_civil`] by Howard Hinnant's algorithm, for any date.
fn days_from_civil_hinnant(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y } as i64;
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) as i32
}

/// `(year, month, day)` of days since the epoch.
#[inline]
pub fn civil_from_days(z: i32) -> (i32, u32, u32) {
    // Neri and Schneider's Euclidean affine functions ("Euclidean affine
    // functions and their application to calendar algorithms", 2022): a few
    // multiplications instead of Hinnant's divisions. Exact while the
    // shifted day count keeps `4 * n + 3` within 32 bits.
    const SHIFT: u32 = 82;
    const K: u32 = 719_468 + 146_097 * SHIFT;
    const L: u32 = 400 * SHIFT;
    if !(-(K as i32)..(1 << 30) - K as i32).contains(&z) {
        return civil_from_days_hinnant(z);
    }
    let n = (z + K as i32) as u32;
    let n1 = 4 * n + 3;
    let century = n1 / 146_097;
    let n_c = n1 % 146_097 / 4;
    let n2 = 4 * n_c + 3;
    let p2 = 2_939_745u64 * u64::from(n2);
    let z_year = (p2 >> 32) as u32;
    let n_y = (p2 as u32) / 2_939_745 / 4;
    let year = 100 * century + z_year;
    let n3 = 2141 * n_y + 197_913;
    let (month, day) = (n3 >> 16, (n3 & 0xffff) / 2141);
    let january_or_february = n_y >= 306;
    (
        (year as i32 - L as i32) + i32::from(january_or_february),
        if january_or_february {
            month - 12
        } else {
            month
        },
        day + 1,
    )
}

/// [`civil_from_days`] by Howard Hinnant's algorithm, for any day.
fn civil_from_days_hinnant(z: i32) -> (i32, u32, u32) {
    let z = z as i64 + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    ((if m <= 2 { y + 1 } else { y }) as i32, m, d)
}

pub fn is_leap_year(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if is_leap_year(y) {
                29
            } else {
                28
            }
        }
    }
}

impl Date {
    #[inline]
    pub fn from_ymd(y: i32, m: u32, d: u32) -> Option<Date> {
        // The month's length from a table; the leap-year test only for
        // February the 29th.
        const DAYS: [u32; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        if !(1..=12).contains(&m)
            || d == 0
            || (d > DAYS[m as usize] && !(m == 2 && d == 29 && is_leap_year(y)))
        {
            return None;
        }
        Some(Date(days_from_civil(y, m, d)))
    }

    pub fn ymd(self) -> (i32, u32, u32) {
        civil_from_days(self.0)
    }

    /// ISO-8601 `yyyy-MM-dd` (Java's `ISO_LOCAL_DATE`; the year needs 4 digits).
    pub fn parse_iso(text: &[u8]) -> Option<Date> {
        let (d, rest) = parse_date_prefix(text)?;
        rest.is_empty().then_some(d)
    }

    /// The lenient form CAST(string AS DATE) accepts: surrounding spaces,
    /// 1-2 digit month and day (`2024-1-5`).
    pub fn parse_lenient(text: &[u8]) -> Option<Date> {
        let t = trim_ascii(text);
        let mut parts = t.splitn(3, |&c| c == b'-');
        let y = parse_uint(parts.next()?, 1, 4)? as i32;
        let m = parse_uint(parts.next()?, 1, 2)? as u32;
        let d = parse_uint(parts.next()?, 1, 2)? as u32;
        Date::from_ymd(y, m, d)
    }

    /// `yyyy-MM-dd`.
    #[inline]
    pub fn write(self, out: &mut Vec<u8>) {
        let (y, m, d) = self.ymd();
        if (0..10000).contains(&y) {
            out.extend_from_slice(&iso_text(y as u32, m, d));
            return;
        }
        write_year(out, y);
        out.push(b'-');
        out.extend_from_slice(&two_digits(m));
        out.push(b'-');
        out.extend_from_slice(&two_digits(d));
    }
}

impl Time {
    pub fn from_hms_milli(h: u32, m: u32, s: u32, ms: u32) -> Time {
        Time((h * 3_600_000 + m * 60_000 + s * 1000 + ms) as i32)
    }

    /// Java `ISO_LOCAL_TIME`: `HH:mm[:ss[.f{1,9}]]`; the fraction is truncated to
    /// millis (Flink's TIME representation).
    pub fn parse_iso(text: &[u8]) -> Option<Time> {
        let (nanos, rest) = parse_time_prefix(text, false)?;
        rest.is_empty().then_some(Time((nanos / 1_000_000) as i32))
    }

    /// Flink's SQL time format `HH:mm:ss[.f{0,9}]` (csv/json TIME fields).
    pub fn parse_sql(text: &[u8]) -> Option<Time> {
        let (nanos, rest) = parse_time_prefix(text, true)?;
        rest.is_empty().then_some(Time((nanos / 1_000_000) as i32))
    }

    /// The time of day this value stands for, in nanoseconds: a negative
    /// value (CAST of a timestamp before 1970, as Flink computes it) counts
    /// back from midnight.
    fn nano_of_day(self) -> i64 {
        (self.0 as i64).rem_euclid(MILLIS_PER_DAY) * 1_000_000
    }

    /// `HH:mm:ss` plus the fraction without trailing zeros (Flink's SQL format).
    pub fn write_sql(self, out: &mut Vec<u8>) {
        write_time_of_day(out, self.nano_of_day(), true, FractionStyle::Trimmed);
    }

    /// `HH:mm:ss` with exactly `precision` fraction digits (CAST(t AS STRING)).
    pub fn write_with_precision(self, out: &mut Vec<u8>, precision: u8) {
        write_time_of_day(
            out,
            self.nano_of_day(),
            true,
            FractionStyle::Fixed(precision),
        );
    }

    /// `java.time.LocalTime.toString()` (print sink): seconds omitted when zero.
    pub fn write_java(self, out: &mut Vec<u8>) {
        write_time_of_day(out, self.nano_of_day(), false, FractionStyle::Java);
    }
}

/// How the fractional second is rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FractionStyle {
    /// Up to 9 digits, trailing zeros dropped, no '.' when zero (Flink's formats).
    Trimmed,
    /// Exactly n digits (CAST to STRING of TIMESTAMP(n)); none when n = 0.
    Fixed(u8),
    /// Java `LocalTime.toString`: 3, 6 or 9 digits, none when zero.
    Java,
}

impl Timestamp {
    pub fn from_millis(millis: i64) -> Timestamp {
        Timestamp::new(millis, 0)
    }

    /// From a date and nanoseconds of the day.
    pub fn from_date_nanos(date: Date, nano_of_day: i64) -> Timestamp {
        let millis = date.0 as i64 * MILLIS_PER_DAY + nano_of_day / 1_000_000;
        Timestamp::new(millis, (nano_of_day % 1_000_000) as u32)
    }

    pub fn date(self) -> Date {
        Date(self.millis.div_euclid(MILLIS_PER_DAY) as i32)
    }

    /// Nanoseconds since midnight.
    pub fn nano_of_day(self) -> i64 {
        self.millis.rem_euclid(MILLIS_PER_DAY) * 1_000_000 + self.nanos() as i64
    }

    pub fn time(self) -> Time {
        Time(self.millis.rem_euclid(MILLIS_PER_DAY) as i32)
    }

    /// Truncates the fraction to `precision` digits (0..=9), as CAST to TIMESTAMP(p).
    pub fn truncate(self, precision: u8) -> Timestamp {
        if precision >= 9 {
            return self;
        }
        if precision >= 3 {
            let unit = 10u32.pow(9 - precision as u32);
            return Timestamp::new(self.millis, self.nanos() / unit * unit);
        }
        let unit = 10i64.pow(3 - precision as u32);
        Timestamp::new(self.millis.div_euclid(unit) * unit, 0)
    }

    /// Flink's SQL timestamp format: `yyyy-MM-dd HH:mm:ss[.f{0,9}]` (seconds required).
    pub fn parse_sql(text: &[u8]) -> Option<Timestamp> {
        Self::parse_with(text, b' ', true)
    }

    /// [`Timestamp::parse_sql`] for the one layout csv files almost always
    /// have, `yyyy-MM-dd HH:mm:ss[.f{0,9}]` with every field at its place,
    /// in straight-line code; `None` for any other text (which the general
    /// parser then reads or refuses).
    #[inline]
    pub fn parse_sql_fixed(t: &[u8]) -> Option<Timestamp> {
        if t.len() < 19 || t.len() > 29 {
            return None;
        }
        // Three words, `yyyy-MM-`, `dd HH:mm` and `HH:mm:ss`, each XORed
        // with its layout: a digit becomes its value, a separator in place
        // zero. Every byte must then be at most 9 (`x + 6` keeps bit 4
        // clear, `x` has no high bit) and every separator zero.
        let word = |at: usize, layout: &[u8; 8]| {
            let bytes: [u8; 8] = t[at..at + 8].try_into().expect("19 bytes at least");
            u64::from_le_bytes(bytes) ^ u64::from_le_bytes(*layout)
        };
        let (a, b, c) = (
            word(0, b"0000-00-"),
            word(8, b"00 00:00"),
            word(11, b"00:00:00"),
        );
        const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
        const SIX: u64 = 0x0606_0606_0606_0606;
        let not_digits = ((a.wrapping_add(SIX) | a) & HIGH)
            | ((b.wrapping_add(SIX) | b) & HIGH)
            | ((c.wrapping_add(SIX) | c) & HIGH);
        // Bytes 4 and 7 of `a`; 2 and 5 of `b` and of `c`.
        const SEPARATORS_A: u64 = 0xFF00_00FF_0000_0000;
        const SEPARATORS_BC: u64 = 0x0000_FF00_00FF_0000;
        if not_digits | (a & SEPARATORS_A) | ((b | c) & SEPARATORS_BC) != 0 {
            return None;
        }
        // Byte i of `pairs(w)` is the two-digit number of bytes i and i + 1
        // (at most 99: no carry; separators are zero here).
        let pairs = |w: u64| w * 10 + (w >> 8);
        let byte = |w: u64, i: u32| (w >> (8 * i)) as u32 & 0xFF;
        let (pa, pb) = (pairs(a), pairs(b));
        let y = byte(pa, 0) * 100 + byte(pa, 2);
        let (m, d) = (byte(pa, 5), byte(pb, 0));
        let (h, mi, s) = (byte(pb, 3), byte(pb, 6), byte(pairs(c), 6));
        if h > 23 || mi > 59 || s > 59 {
            return None;
        }
        // Milliseconds and the nanoseconds below them.
        let (millis, sub_milli) = if t.len() == 23 {
            // Milliseconds, `.SSS`, checked as one word as above.
            let bytes: [u8; 4] = t[19..23].try_into().expect("23 bytes");
            let w = u32::from_le_bytes(bytes) ^ u32::from_le_bytes(*b".000");
            if ((w.wrapping_add(0x0606_0606) | w) & 0xF0F0_F0F0) | (w & 0xFF) != 0 {
                return None;
            }
            let digit = |i: u32| (w >> (8 * i)) & 0xFF;
            (digit(1) * 100 + digit(2) * 10 + digit(3), 0)
        } else {
            let frac = Self::fraction_nanos(t)?;
            (frac / 1_000_000, frac % 1_000_000)
        };
        let date = Date::from_ymd(y as i32, m, d)?;
        let millis = i64::from(date.0) * MILLIS_PER_DAY
            + i64::from(h * 3600 + mi * 60 + s) * 1000
            + i64::from(millis);
        Some(Timestamp::new(millis, sub_milli))
    }

    /// The nanoseconds of `[.f{0,9}]` after the 19 bytes of
    /// [`Timestamp::parse_sql_fixed`]'s layout (0 without a fraction).
    #[inline]
    fn fraction_nanos(t: &[u8]) -> Option<u32> {
        let mut frac = 0u32;
        if t.len() > 19 {
            // A '.' and up to 9 digits (none is accepted, as in the general parser).
            if t[19] != b'.' {
                return None;
            }
            let digits = &t[20..];
            for &c in digits {
                let v = c.wrapping_sub(b'0');
                if v > 9 {
                    return None;
                }
                frac = frac * 10 + u32::from(v);
            }
            frac *= 10u32.pow(9 - digits.len() as u32);
        }
        Some(frac)
    }

    /// ISO-8601 local date-time: `yyyy-MM-ddTHH:mm[:ss[.f{1,9}]]`.
    pub fn parse_iso(text: &[u8]) -> Option<Timestamp> {
        Self::parse_with(text, b'T', false)
    }

    /// CAST(string AS TIMESTAMP): `yyyy-MM-dd[ HH:mm[:ss[.f]]]` or with `T`,
    /// spaces trimmed, 1-2 digit month/day/hour accepted (as Flink's `DateTimeUtils`).
    pub fn parse_lenient(text: &[u8]) -> Option<Timestamp> {
        let t = trim_ascii(text);
        let split = t.iter().position(|&c| c == b' ' || c == b'T');
        let (d, rest) = match split {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let date = Date::parse_lenient(d)?;
        let nanos = match rest {
            None => 0,
            Some(r) => parse_lenient_time(trim_ascii(r))?,
        };
        Some(Timestamp::from_date_nanos(date, nanos))
    }

    fn parse_with(text: &[u8], sep: u8, seconds_required: bool) -> Option<Timestamp> {
        let (date, rest) = parse_date_prefix(text)?;
        let rest = rest.strip_prefix(&[sep])?;
        let (nanos, rest) = parse_time_prefix(rest, seconds_required)?;
        rest.is_empty()
            .then(|| Timestamp::from_date_nanos(date, nanos))
    }

    /// Writes `yyyy-MM-dd<sep>HH:mm:ss` + fraction per `style`.
    pub fn write(self, out: &mut Vec<u8>, sep: u8, style: FractionStyle) {
        self.date().write(out);
        out.push(sep);
        write_time_of_day(out, self.nano_of_day(), true, style);
    }

    /// [`Timestamp::write_sql`] between two `quote`s (a csv field), for
    /// years 0 to 9999 (the caller checks): built in one stack buffer and
    /// appended with one fixed-size store, where the general path makes
    /// five appends of variable length (each a `memcpy` call).
    #[inline]
    pub fn write_sql_quoted(self, out: &mut Vec<u8>, quote: u8) {
        let (y, m, d) = self.date().ymd();
        debug_assert!((0..10000).contains(&y));
        let mut buf = [0u8; 32];
        buf[0] = quote;
        buf[1..11].copy_from_slice(&iso_text(y as u32, m, d));
        buf[11] = b' ';
        let mut time = [0u8; 18];
        let len = time_of_day_into(&mut time, self.nano_of_day(), true, FractionStyle::Trimmed);
        buf[12..30].copy_from_slice(&time);
        buf[12 + len] = quote;
        append_fixed(out, &buf, 13 + len);
    }

    /// Flink's csv/json SQL format: `2024-01-05 03:48:29.252`.
    pub fn write_sql(self, out: &mut Vec<u8>) {
        self.write(out, b' ', FractionStyle::Trimmed);
    }

    /// `java.time.LocalDateTime.toString()` (print sink): `2024-01-05T08:01:29.363`,
    /// seconds omitted when seconds and fraction are zero.
    pub fn write_java(self, out: &mut Vec<u8>) {
        self.date().write(out);
        out.push(b'T');
        write_time_of_day(out, self.nano_of_day(), false, FractionStyle::Java);
    }

    /// `java.time.Instant.toString()`: always with seconds, fraction in 3/6/9 digits, `Z`.
    pub fn write_instant_java(self, out: &mut Vec<u8>) {
        self.date().write(out);
        out.push(b'T');
        write_time_of_day(out, self.nano_of_day(), true, FractionStyle::Java);
        out.push(b'Z');
    }
}

fn trim_ascii(t: &[u8]) -> &[u8] {
    t.trim_ascii()
}

fn parse_uint(t: &[u8], min_len: usize, max_len: usize) -> Option<u64> {
    if t.len() < min_len || t.len() > max_len {
        return None;
    }
    let mut v = 0u64;
    for &c in t {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u64;
    }
    Some(v)
}

/// `yyyy-MM-dd` at the start of `t`; returns the rest.
fn parse_date_prefix(t: &[u8]) -> Option<(Date, &[u8])> {
    if t.len() < 10 || t[4] != b'-' || t[7] != b'-' {
        return None;
    }
    let y = parse_uint(&t[0..4], 4, 4)? as i32;
    let m = parse_uint(&t[5..7], 2, 2)? as u32;
    let d = parse_uint(&t[8..10], 2, 2)? as u32;
    Some((Date::from_ymd(y, m, d)?, &t[10..]))
}

/// `HH:mm[:ss[.f{1,9}]]` at the start of `t` as nanos of day; with
/// `seconds_required`, `HH:mm:ss[.f{0,9}]` (a bare '.' is accepted, as Java's
/// `appendFraction(0, 9, true)` does).
fn parse_time_prefix(t: &[u8], seconds_required: bool) -> Option<(i64, &[u8])> {
    if t.len() < 5 || t[2] != b':' {
        return None;
    }
    let h = parse_uint(&t[0..2], 2, 2)? as i64;
    let m = parse_uint(&t[3..5], 2, 2)? as i64;
    if h > 23 || m > 59 {
        return None;
    }
    let mut rest = &t[5..];
    let mut s = 0i64;
    let mut frac = 0i64;
    if rest.first() == Some(&b':') {
        if rest.len() < 3 {
            return None;
        }
        s = parse_uint(&rest[1..3], 2, 2)? as i64;
        if s > 59 {
            return None;
        }
        rest = &rest[3..];
        if rest.first() == Some(&b'.') {
            let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if digits > 9 || (digits == 0 && !seconds_required) {
                return None;
            }
            for i in 0..9 {
                frac = frac * 10
                    + if i < digits {
                        (rest[1 + i] - b'0') as i64
                    } else {
                        0
                    };
            }
            rest = &rest[1 + digits..];
        }
    } else if seconds_required {
        return None;
    }
    Some(((h * 3600 + m * 60 + s) * 1_000_000_000 + frac, rest))
}

/// Lenient `H:m[:s[.f]]` for CAST.
fn parse_lenient_time(t: &[u8]) -> Option<i64> {
    let (hms, frac) = match t.iter().position(|&c| c == b'.') {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let mut parts = hms.split(|&c| c == b':');
    let h = parse_uint(parts.next()?, 1, 2)? as i64;
    let m = match parts.next() {
        Some(p) => parse_uint(p, 1, 2)? as i64,
        None => 0,
    };
    let s = match parts.next() {
        Some(p) => parse_uint(p, 1, 2)? as i64,
        None => 0,
    };
    if parts.next().is_some() || h > 23 || m > 59 || s > 59 {
        return None;
    }
    let mut nanos = 0i64;
    if let Some(f) = frac {
        if f.is_empty() || f.len() > 9 || !f.iter().all(u8::is_ascii_digit) {
            return None;
        }
        for i in 0..9 {
            nanos = nanos * 10 + f.get(i).map_or(0, |c| (c - b'0') as i64);
        }
    }
    Some((h * 3600 + m * 60 + s) * 1_000_000_000 + nanos)
}

fn write_year(out: &mut Vec<u8>, y: i32) {
    if (0..10000).contains(&y) {
        let y = y as u32;
        out.extend_from_slice(&[
            b'0' + (y / 1000) as u8,
            b'0' + (y / 100 % 10) as u8,
            b'0' + (y / 10 % 10) as u8,
            b'0' + (y % 10) as u8,
        ]);
    } else {
        // Out of Flink's range; Java prints a sign and all digits.
        if y > 0 {
            out.push(b'+');
        }
        let mut b = itoa::Buffer::new();
        out.extend_from_slice(b.format(y).as_bytes());
    }
}

#[inline]
fn two_digits(v: u32) -> [u8; 2] {
    [b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]
}

/// `HH:mm[:ss]` + fraction for nanos of day, built in a local buffer and
/// appended at once.
#[inline]
fn write_time_of_day(
    out: &mut Vec<u8>,
    nano_of_day: i64,
    always_seconds: bool,
    style: FractionStyle,
) {
    let mut buf = [0u8; 18];
    let len = time_of_day_into(&mut buf, nano_of_day, always_seconds, style);
    out.extend_from_slice(&buf[..len]);
}

/// `yyyy-MM-dd` of a year from 0 to 9999.
#[inline]
fn iso_text(y: u32, m: u32, d: u32) -> [u8; 10] {
    let [y0, y1] = two_digits(y / 100);
    let [y2, y3] = two_digits(y % 100);
    let [m0, m1] = two_digits(m);
    let [d0, d1] = two_digits(d);
    [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1]
}

/// The first `len` bytes of `buf` appended to `out` by one 32-byte store
/// into its spare capacity (a constant-size copy, no `memcpy` call).
#[inline]
fn append_fixed(out: &mut Vec<u8>, buf: &[u8; 32], len: usize) {
    assert!(len <= buf.len());
    out.reserve(buf.len());
    // SAFETY: `reserve` made room for 32 more bytes, so the copy stays in
    // the allocation; of them the first `len` (at most 32) are now
    // initialised, which is all `set_len` exposes.
    unsafe {
        let end = out.as_mut_ptr().add(out.len());
        std::ptr::copy_nonoverlapping(buf.as_ptr(), end, buf.len());
        out.set_len(out.len() + len);
    }
}

/// [`write_time_of_day`]'s text in `buf`; returns its length.
#[inline]
fn time_of_day_into(
    buf: &mut [u8; 18],
    nano_of_day: i64,
    always_seconds: bool,
    style: FractionStyle,
) -> usize {
    let secs = nano_of_day / 1_000_000_000;
    let frac = (nano_of_day % 1_000_000_000) as u32;
    // `HH:mm:ss.fffffffff`
    let [h0, h1] = two_digits((secs / 3600) as u32);
    let [m0, m1] = two_digits((secs / 60 % 60) as u32);
    buf[..5].copy_from_slice(&[h0, h1, b':', m0, m1]);
    let mut len = 5;
    let s = (secs % 60) as u32;
    if always_seconds || s != 0 || frac != 0 {
        let [s0, s1] = two_digits(s);
        buf[5..8].copy_from_slice(&[b':', s0, s1]);
        len = 8;
    }
    let digits = match style {
        FractionStyle::Trimmed => {
            if frac == 0 {
                0
            } else if frac % 1_000_000 == 0 {
                // Millisecond values, the common case: 1 to 3 digits.
                let ms = frac / 1_000_000;
                if ms % 100 == 0 {
                    1
                } else if ms % 10 == 0 {
                    2
                } else {
                    3
                }
            } else {
                let mut n = 9;
                let mut f = frac;
                while f % 10 == 0 {
                    f /= 10;
                    n -= 1;
                }
                n
            }
        }
        FractionStyle::Fixed(p) => p.min(9) as u32,
        FractionStyle::Java => {
            if frac == 0 {
                0
            } else if frac % 1_000_000 == 0 {
                3
            } else if frac % 1000 == 0 {
                6
            } else {
                9
            }
        }
    };
    if digits > 0 {
        buf[len] = b'.';
        // The first three digits by themselves (all there is of millis).
        let ms = frac / 1_000_000;
        buf[len + 1..len + 4].copy_from_slice(&[
            b'0' + (ms / 100) as u8,
            b'0' + (ms / 10 % 10) as u8,
            b'0' + (ms % 10) as u8,
        ]);
        if digits > 3 {
            let mut f = frac % 1_000_000;
            for i in (3..9).rev() {
                buf[len + 1 + i] = b'0' + (f % 10) as u8;
                f /= 10;
            }
        }
        len += 1 + digits as usize;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-store quoted write gives the general path's text between
    /// quotes, for every fraction length, at the year range's ends and in
    /// the middle of a buffer.
    #[test]
    fn quoted_sql_timestamp_matches_the_general_write() {
        let mut rng = crate::util::SplitMix64::new(7);
        let first = Date::from_ymd(0, 1, 1).expect("a date").0 as i64 * MILLIS_PER_DAY;
        let last =
            (Date::from_ymd(9999, 12, 31).expect("a date").0 as i64 + 1) * MILLIS_PER_DAY - 1;
        let mut cases = vec![Timestamp::new(first, 0), Timestamp::new(last, 999_999)];
        for i in 0..100_000 {
            let millis = rng.range_i64(first, last);
            let millis = match i % 4 {
                0 => millis - millis % 1000,
                1 => millis - millis % 10,
                _ => millis,
            };
            let nanos = if i % 3 == 0 {
                (rng.next() % 1_000_000) as u32
            } else {
                0
            };
            cases.push(Timestamp::new(millis, nanos));
        }
        let (mut got, mut want) = (b"prefix,".to_vec(), b"prefix,".to_vec());
        for ts in cases {
            got.truncate(7);
            want.truncate(7);
            ts.write_sql_quoted(&mut got, b'"');
            want.push(b'"');
            ts.write_sql(&mut want);
            want.push(b'"');
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want)
            );
        }
    }

    #[test]
    fn timestamp_niche_keeps_option_small_and_order() {
        assert_eq!(std::mem::size_of::<Option<Timestamp>>(), 16);
        let a = Timestamp::new(-1, 999_999);
        let b = Timestamp::new(0, 0);
        let c = Timestamp::new(0, 1);
        assert!(a < b && b < c);
        assert_eq!(
            (a.nanos(), b.nanos(), Timestamp::default()),
            (999_999, 0, b)
        );
    }

    /// `from_ymd`'s month table accepts exactly the days `days_in_month`
    /// allows, leap years (and their century rules) included.
    #[test]
    fn from_ymd_accepts_the_days_of_each_month() {
        for y in (-500..2500).chain([-30_001, 1_000_001]) {
            for m in 0..14 {
                for d in 0..34 {
                    let valid = (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m);
                    let got = Date::from_ymd(y, m, d);
                    assert_eq!(got.is_some(), valid, "{y}-{m}-{d}");
                    if valid {
                        assert_eq!(got.map(|d| d.ymd()), Some((y, m, d)));
                    }
                }
            }
        }
    }

    fn s(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// The fast civil conversion agrees with Hinnant's on every day of
    /// years 0..=9999 and well beyond, up to both ends of its range.
    #[test]
    fn civil_from_days_agrees_with_hinnant() {
        let far = (-12_699_422..-12_000_000).chain(1_060_000_000..1_061_042_401);
        for z in (-3_000_000..6_000_000)
            .chain(far)
            .chain([i32::MIN, i32::MAX, -12_699_423])
        {
            assert_eq!(civil_from_days(z), civil_from_days_hinnant(z), "{z}");
        }
    }

    /// The fast rata die agrees with Hinnant's on every date of years
    /// -2000..12000, days 1..=31 of every month (overflowing days included),
    /// and at the ends of its range.
    #[test]
    fn days_from_civil_agrees_with_hinnant() {
        let years = (-2000..12_000).chain([-30_001, -30_000, 999_999, 1_000_000, 1_000_001]);
        for y in years {
            for m in 0..=13 {
                for d in 0..=32 {
                    assert_eq!(
                        days_from_civil(y, m, d),
                        days_from_civil_hinnant(y, m, d),
                        "{y}-{m}-{d}"
                    );
                }
            }
        }
    }

    /// The old writer of `HH:mm[:ss]` and fractions, push by push.
    fn time_of_day_reference(
        out: &mut Vec<u8>,
        nano_of_day: i64,
        always_seconds: bool,
        style: FractionStyle,
    ) {
        let push2 = |out: &mut Vec<u8>, v: u32| {
            out.extend_from_slice(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8])
        };
        let secs = nano_of_day / 1_000_000_000;
        let frac = (nano_of_day % 1_000_000_000) as u32;
        push2(out, (secs / 3600) as u32);
        out.push(b':');
        push2(out, (secs / 60 % 60) as u32);
        let s = (secs % 60) as u32;
        if always_seconds || s != 0 || frac != 0 {
            out.push(b':');
            push2(out, s);
        }
        let digits = match style {
            FractionStyle::Trimmed if frac == 0 => 0,
            FractionStyle::Trimmed => {
                let (mut n, mut f) = (9, frac);
                while f % 10 == 0 {
                    f /= 10;
                    n -= 1;
                }
                n
            }
            FractionStyle::Fixed(p) => p.min(9) as u32,
            FractionStyle::Java if frac == 0 => 0,
            FractionStyle::Java if frac % 1_000_000 == 0 => 3,
            FractionStyle::Java if frac % 1000 == 0 => 6,
            FractionStyle::Java => 9,
        };
        if digits > 0 {
            out.push(b'.');
            let mut div = 100_000_000;
            for _ in 0..digits {
                out.push(b'0' + (frac / div % 10) as u8);
                div /= 10;
            }
        }
    }

    #[test]
    fn time_of_day_writes_like_the_reference() {
        let mut rng = crate::util::SplitMix64::new(0x9E37_79B9_7F4A_7C15u64);
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for i in 0..400_000u64 {
            let seed = rng.next();
            let day_nanos = 86_400 * 1_000_000_000i64;
            // Whole seconds, millis, micros and nanos, all equally often.
            let unit = [1_000_000_000, 1_000_000, 1000, 1][(i % 4) as usize];
            let nanos = (seed as i64).rem_euclid(day_nanos) / unit * unit;
            let style = [
                FractionStyle::Trimmed,
                FractionStyle::Java,
                FractionStyle::Fixed((seed >> 60) as u8),
            ][(i / 4 % 3) as usize];
            let always = seed & 1 == 0;
            got.clear();
            want.clear();
            write_time_of_day(&mut got, nanos, always, style);
            time_of_day_reference(&mut want, nanos, always, style);
            assert_eq!(got, want, "{nanos} {style:?} {always}");
        }
    }

    #[test]
    fn civil_round_trip() {
        for d in [-719_162, -1, 0, 1, 19_727, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(Date::from_ymd(1, 1, 1), Some(Date(-719_162)));
        assert_eq!(Date::from_ymd(2023, 2, 29), None);
        let mut d = -719_162;
        while d < 2_932_897 {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(Date::from_ymd(y, m, dd), Some(Date(d)));
            d += 97;
        }
    }

    /// The fixed-layout parser reads the canonical layout and agrees with
    /// the general one on every text it accepts, mutated texts included.
    #[test]
    fn fixed_layout_parse_agrees_with_the_general_parser() {
        let mut rng = crate::util::SplitMix64::new(0x2545_F491_4F6C_DD1Du64);
        let mut next = || rng.next();
        let junk = b"0123456789 -:.T+x\t";
        let mut accepted = 0;
        for round in 0..300_000 {
            let mut text = format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
                next() % 10_000,
                next() % 14,
                next() % 33,
                next() % 25,
                next() % 61,
                next() % 61
            )
            .into_bytes();
            let frac = (next() % 12) as usize;
            if frac > 0 {
                text.push(b'.');
                text.extend((1..frac).map(|_| b'0' + (next() % 10) as u8));
            }
            if round % 2 == 0 {
                for _ in 0..=next() % 2 {
                    let at = (next() as usize) % (text.len() + 1);
                    let c = junk[(next() as usize) % junk.len()];
                    match next() % 3 {
                        0 if at < text.len() => text[at] = c,
                        1 => text.insert(at, c),
                        _ if at < text.len() => {
                            text.remove(at);
                        }
                        _ => {}
                    }
                }
            }
            let fixed = Timestamp::parse_sql_fixed(&text);
            if let Some(v) = fixed {
                accepted += 1;
                assert_eq!(Timestamp::parse_sql(&text), Some(v), "{text:?}");
            } else if round % 2 == 1 && frac <= 10 {
                // Unmutated text with valid fields must take the fast path.
                assert_eq!(
                    Timestamp::parse_sql(&text),
                    None,
                    "{:?}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
        assert!(accepted > 50_000, "{accepted}");
    }

    #[test]
    fn parse_and_write() {
        let ts = Timestamp::parse_sql(b"2024-01-06 05:16:24.240").unwrap();
        assert_eq!(s(|o| ts.write_sql(o)), "2024-01-06 05:16:24.24");
        assert_eq!(s(|o| ts.write_java(o)), "2024-01-06T05:16:24.240");
        let ts = Timestamp::parse_sql(b"2024-01-06 05:16:00").unwrap();
        assert_eq!(s(|o| ts.write_java(o)), "2024-01-06T05:16");
        assert_eq!(s(|o| ts.write_instant_java(o)), "2024-01-06T05:16:00Z");
        assert!(Timestamp::parse_sql(b"2024-01-06 05:16").is_none());
        assert!(Timestamp::parse_sql(b"2024-01-06T05:16:00").is_none());
        assert!(Timestamp::parse_iso(b"2024-01-06T05:16").is_some());
        let ts = Timestamp::parse_sql(b"0001-01-01 00:00:00.000000001").unwrap();
        assert_eq!(s(|o| ts.write_sql(o)), "0001-01-01 00:00:00.000000001");
        assert_eq!(
            s(|o| ts.write(o, b' ', FractionStyle::Fixed(3))),
            "0001-01-01 00:00:00.000"
        );
        let ts = Timestamp::parse_lenient(b" 2024-1-6 5:16 ").unwrap();
        assert_eq!(s(|o| ts.write_sql(o)), "2024-01-06 05:16:00");
        assert_eq!(Time::parse_iso(b"12:34").map(|t| t.0), Some(45_240_000));
        assert_eq!(s(|o| Time(45_240_000).write_java(o)), "12:34");
        assert_eq!(s(|o| Time(45_240_123).write_sql(o)), "12:34:00.123");
        assert_eq!(Date::parse_iso(b"2024-1-05"), None);
        let t = Timestamp::parse_sql(b"1969-12-31 23:59:59.999999").unwrap();
        assert_eq!(t.millis, -1);
        assert_eq!(s(|o| t.truncate(3).write_sql(o)), "1969-12-31 23:59:59.999");
        assert_eq!(s(|o| t.truncate(0).write_sql(o)), "1969-12-31 23:59:59");
    }

    #[test]
    fn zones() {
        assert_eq!(SessionZone::parse("UTC"), Some(SessionZone::UTC));
        assert_eq!(
            SessionZone::parse("+08:00").unwrap().offset_seconds,
            8 * 3600
        );
        assert_eq!(
            SessionZone::parse("GMT-0530").unwrap().offset_seconds,
            -(5 * 3600 + 1800)
        );
        assert_eq!(SessionZone::parse("Europe/Paris"), None);
    }
}
