//! CAST and TRY_CAST. Every cast returns `Result<T, CastError>`: CAST turns the
//! error into a job failure (with the row's context added by the caller),
//! TRY_CAST into NULL (`.ok()`). Casts that cannot fail return `T` directly.
//!
//! Rules (Flink 2.3):
//! - string → integer: trimmed, digits with an optional (dropped) fraction of
//!   digits, overflow is an error;
//! - string → DECIMAL: trimmed, HALF_UP to the scale, overflow is NULL;
//! - string → BOOLEAN: `true/t/yes/y/1` and `false/f/no/n/0`, case-insensitive;
//! - string → DATE/TIMESTAMP: lenient (`2024-1-5`, surrounding spaces), but
//!   the `T` separator is rejected by CAST;
//! - fractional → integer: truncation toward zero; out-of-range doubles
//!   saturate as Java's `(long)` cast; integer narrowing wraps;
//! - numbers → string: Java's `toString` (`1.0E7`), DECIMAL keeps its scale
//!   (`12.50`), TIMESTAMP(p) shows exactly p fraction digits.

use crate::text::number;
use crate::value::{Date, Decimal, DecimalType, FractionStyle, Time, Timestamp};
use std::fmt;

/// A failed cast: the value and the target type, for the error message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CastError {
    pub value: String,
    pub target: String,
}

impl fmt::Display for CastError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot cast '{}' to {}", self.value, self.target)
    }
}

fn err(value: &str, target: &str) -> CastError {
    CastError {
        value: value.to_string(),
        target: target.to_string(),
    }
}

/// CAST(string AS TINYINT/SMALLINT/INT/BIGINT) within `[min, max]`. As
/// Flink's `BinaryStringDataUtil.toLong`, a fraction of digits is accepted
/// and dropped (`'3.99'` → 3, `'-3.99'` → -3); exponents are not (`'1e3'` fails).
pub fn str_to_int(s: &str, min: i64, max: i64, target: &str) -> Result<i64, CastError> {
    let t = number::java_trim(s.as_bytes());
    let int = match t.iter().position(|&c| c == b'.') {
        Some(dot) if t[dot + 1..].iter().all(u8::is_ascii_digit) => &t[..dot],
        Some(_) => return Err(err(s, target)),
        None => t,
    };
    let v = match int {
        // `'.5'`, `'-.5'` → 0.
        b"" | b"-" | b"+" if int.len() < t.len() => Some(0),
        _ => number::parse_int_range(int, min, max),
    };
    v.filter(|v| (min..=max).contains(v))
        .ok_or_else(|| err(s, target))
}

pub fn str_to_i32(s: &str) -> Result<i32, CastError> {
    str_to_int(s, i32::MIN as i64, i32::MAX as i64, "INT").map(|v| v as i32)
}

pub fn str_to_i64(s: &str) -> Result<i64, CastError> {
    str_to_int(s, i64::MIN, i64::MAX, "BIGINT")
}

pub fn str_to_f64(s: &str) -> Result<f64, CastError> {
    number::parse_f64(s.as_bytes()).ok_or_else(|| err(s, "DOUBLE"))
}

pub fn str_to_f32(s: &str) -> Result<f32, CastError> {
    number::parse_f32(s.as_bytes()).ok_or_else(|| err(s, "FLOAT"))
}

/// CAST(string AS DECIMAL(p, s)): `Ok(None)` on overflow (NULL), error on bad
/// syntax. As Flink's `BinaryStringDataUtil.toDecimal`: spaces, tabs and
/// newlines around the number are ignored; for a precision up to 18 and text
/// of at most 18 bytes Flink's own scanner reads it, which stops at the first
/// character that is not part of the number and skips that one character
/// unchecked, so `'x'` is 0, `'12x'` is 12 and `'1.5%'` is 1.5 (`'abc'` is not
/// a number: the characters after the skipped one must be blanks). Other
/// text goes to `new BigDecimal`, which takes only a complete number.
pub fn str_to_decimal(s: &str, t: DecimalType) -> Result<Option<Decimal>, CastError> {
    let bytes = s.as_bytes();
    let bad = || err(s, &t.to_string());
    if t.precision <= 18 && bytes.len() <= 18 {
        return flink_short_decimal(bytes, t).ok_or_else(bad);
    }
    let blank = |c: &u8| matches!(c, b' ' | b'\n' | b'\t');
    let start = bytes.iter().position(|c| !blank(c)).unwrap_or(0);
    let end = bytes
        .iter()
        .rposition(|c| !blank(c))
        .map_or(bytes.len(), |i| i + 1);
    t.parse(&bytes[start..end]).map_err(|_| bad())
}

/// Flink's scanner for short decimals (`toDecimalFromBytes`): `None` for
/// text that is not a number, `Some(None)` on overflow.
fn flink_short_decimal(bytes: &[u8], t: DecimalType) -> Option<Option<Decimal>> {
    let blank = |c: u8| matches!(c, b' ' | b'\n' | b'\t');
    let mut i = bytes.iter().position(|&c| !blank(c))?;
    let mut b = bytes[i];
    let negative = b == b'-';
    if negative || b == b'+' {
        i += 1;
        if i == bytes.len() {
            return None;
        }
    }
    let (mut significand, mut digits, mut point) = (0i64, 0i32, None);
    while i < bytes.len() {
        b = bytes[i];
        i += 1;
        if b.is_ascii_digit() {
            significand = significand * 10 + i64::from(b - b'0');
            digits += 1;
        } else if b == b'.' {
            if point.is_some() {
                return None;
            }
            point = Some(digits);
        } else {
            // Consumed without a look: Flink's quirk.
            break;
        }
    }
    let point = point.unwrap_or(digits);
    if negative {
        significand = -significand;
    }
    let mut exponent = 0i32;
    if (b == b'e' || b == b'E') && i < bytes.len() {
        b = bytes[i];
        let exponent_negative = b == b'-';
        if exponent_negative || b == b'+' {
            i += 1;
            if i == bytes.len() {
                return None;
            }
        }
        while i < bytes.len() {
            b = bytes[i];
            i += 1;
            if b.is_ascii_digit() {
                if exponent < 40 {
                    exponent = exponent * 10 + i32::from(b - b'0');
                }
            } else {
                break;
            }
        }
        if exponent_negative {
            exponent = -exponent;
        }
    }
    exponent -= digits - point;
    if !bytes[i..].iter().all(|&c| blank(c)) {
        return None;
    }
    let change = exponent + i32::from(t.scale);
    if digits + change > i32::from(t.precision) {
        return Some(None);
    }
    let unscaled = if change >= 0 {
        significand * 10i64.pow(change as u32)
    } else if -change > 18 {
        0
    } else {
        // HALF_UP (away from zero on a tie).
        let unit = 10i64.pow((-change) as u32);
        let half = if negative { -unit / 2 } else { unit / 2 };
        (significand + half) / unit
    };
    Some(Some(Decimal(i128::from(unscaled))))
}

/// Not trimmed: Flink fails `CAST('  TRUE ' AS BOOLEAN)`.
pub fn str_to_bool(s: &str) -> Result<bool, CastError> {
    let l = s.to_ascii_lowercase();
    match l.as_str() {
        "true" | "t" | "yes" | "y" | "1" => Ok(true),
        "false" | "f" | "no" | "n" | "0" => Ok(false),
        _ => Err(err(s, "BOOLEAN")),
    }
}

/// CAST(string AS DATE): Flink's `DateTimeUtils.parseDate` (see
/// [`super::datetime_parse::parse_date`]): `'2024-1-5'`, `' 2024-01-05 '`,
/// `'2024'` (January 1st) and `'2024-02-29 10:11:12'` (the time ignored) are
/// dates; `'2024-02-30'` and `'2024-01-05T10:00'` are not.
pub fn str_to_date(s: &str) -> Result<Date, CastError> {
    match super::datetime_parse::parse_date(s) {
        super::datetime_parse::DateParse::Date(d) => Ok(d),
        _ => Err(err(s, "DATE")),
    }
}

/// CAST(string AS TIME): Flink's `DateTimeUtils.parseTime` (no range checks:
/// `'24:00:00'` is a whole day of milliseconds).
pub fn str_to_time(s: &str) -> Result<Time, CastError> {
    super::datetime_parse::parse_time(s).ok_or_else(|| err(s, "TIME"))
}

/// CAST(string AS TIMESTAMP(p)): Flink's `DateTimeUtils.parseTimestampData`
/// (java.time, SMART resolver; see [`super::datetime_parse::parse_timestamp`]).
pub fn str_to_timestamp(s: &str, precision: u8) -> Result<Timestamp, CastError> {
    super::datetime_parse::parse_timestamp(s, precision)
        .ok_or_else(|| err(s, &format!("TIMESTAMP({precision})")))
}

/// DOUBLE/FLOAT → integer: truncation, saturating like Java's `(long)` cast,
/// then wrapping to narrower types like Java's `(int)` of a long.
pub fn f64_to_i64(v: f64) -> i64 {
    v as i64
}

pub fn f64_to_i32(v: f64) -> i32 {
    // Java (int) of a double saturates at the int range.
    v as i32
}

/// Integer narrowing (BIGINT → INT etc.) wraps, as Java's primitive casts.
pub fn narrow_i8(v: i64) -> i8 {
    v as i8
}
pub fn narrow_i16(v: i64) -> i16 {
    v as i16
}
pub fn narrow_i32(v: i64) -> i32 {
    v as i32
}

/// BOOLEAN → number: 1 or 0.
pub fn bool_to_int(b: bool) -> i32 {
    b as i32
}

/// Numbers and temporal values → STRING.
pub fn i64_to_string(v: i64) -> String {
    let mut b = itoa::Buffer::new();
    b.format(v).to_string()
}

pub fn f64_to_string(v: f64) -> String {
    let mut out = Vec::with_capacity(24);
    number::write_f64(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

pub fn f32_to_string(v: f32) -> String {
    let mut out = Vec::with_capacity(24);
    number::write_f32(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

pub fn decimal_to_string(v: Decimal, t: DecimalType) -> String {
    t.to_plain_string(v)
}

pub fn bool_to_string(b: bool) -> String {
    if b { "TRUE" } else { "FALSE" }.to_string()
}

pub fn date_to_string(d: Date) -> String {
    let mut out = Vec::with_capacity(10);
    d.write(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// TIME(p) → STRING: `HH:mm:ss`, and for p > 0 the millis with trailing zeros
/// dropped but at least one digit (`12:34:56.0`, `12:34:56.7`), as Flink prints.
pub fn time_to_string(t: Time, precision: u8) -> String {
    let mut out = Vec::with_capacity(18);
    t.write_with_precision(&mut out, 0);
    if precision > 0 {
        let ms = t.0.rem_euclid(1000);
        let mut digits = format!("{ms:03}");
        while digits.len() > 1 && digits.ends_with('0') {
            digits.pop();
        }
        out.push(b'.');
        out.extend_from_slice(digits.as_bytes());
    }
    String::from_utf8(out).unwrap_or_default()
}

/// TIMESTAMP(p) → STRING: `yyyy-MM-dd HH:mm:ss` with exactly p fraction digits.
pub fn timestamp_to_string(ts: Timestamp, precision: u8) -> String {
    let mut out = Vec::with_capacity(29);
    ts.write(&mut out, b' ', FractionStyle::Fixed(precision));
    String::from_utf8(out).unwrap_or_default()
}

/// DECIMAL → DECIMAL / integer → DECIMAL / DOUBLE → DECIMAL: NULL on overflow.
pub fn int_to_decimal(v: i64, t: DecimalType) -> Option<Decimal> {
    t.from_i64(v)
}

/// DATE → TIMESTAMP (midnight) and TIMESTAMP → DATE / TIME.
pub fn date_to_timestamp(d: Date) -> Timestamp {
    Timestamp::from_date_nanos(d, 0)
}

pub fn timestamp_to_date(ts: Timestamp) -> Date {
    super::temporal::flink_date(ts)
}

/// CAST(ts AS TIME(p)) as Flink computes it: the milliseconds since the
/// epoch modulo a day with Java's `%` (negative before 1970), cut toward zero
/// to p digits. A negative time prints as the time of day it stands for
/// (`1969-12-31 12:34:56.789` is `12:34:57` at TIME(0): the cut went toward
/// the next day), and HOUR and friends give negative fields, as in Flink.
pub fn timestamp_to_time(ts: Timestamp, precision: u8) -> Time {
    let millis = ts.millis % crate::value::temporal::MILLIS_PER_DAY;
    let unit = 10i64.pow(3u32.saturating_sub(u32::from(precision)));
    Time((millis / unit * unit) as i32)
}

/// BYTES → STRING decodes UTF-8 (invalid sequences become U+FFFD).
pub fn bytes_to_string(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts() {
        assert_eq!(str_to_i32(" 12 "), Ok(12));
        assert!(str_to_i32("abc").is_err());
        assert!(str_to_i32("2147483648").is_err());
        assert_eq!(
            str_to_decimal("1.555", DecimalType::new(5, 2)),
            Ok(Some(Decimal(156)))
        );
        assert_eq!(str_to_decimal("12345.6", DecimalType::new(4, 1)), Ok(None));
        // CAST(ts AS TIME(p)) before 1970 (Flink 2.3): Java's %, cut toward zero.
        let ts = |s: &str| Timestamp::parse_lenient(s.as_bytes()).unwrap();
        let time = |s: &str, p: u8| {
            let mut out = Vec::new();
            timestamp_to_time(ts(s), p).write_with_precision(&mut out, p);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(time("1969-12-31 23:59:59.999", 0), "00:00:00");
        assert_eq!(time("1969-12-31 23:59:59.999", 3), "23:59:59.999");
        assert_eq!(time("1969-12-31 12:34:56.789", 0), "12:34:57");
        assert_eq!(time("1969-12-31 00:00:00.001", 0), "00:00:01");
        assert_eq!(time("2024-01-05 08:01:29.363", 0), "08:01:29");
        // Flink's short-decimal scanner (observed in the function probe: 'x' is 0.00).
        let t52 = DecimalType::new(5, 2);
        assert_eq!(str_to_decimal("x", t52), Ok(Some(Decimal(0))));
        assert_eq!(str_to_decimal("12x", t52), Ok(Some(Decimal(1200))));
        assert_eq!(str_to_decimal(" -1.555 ", t52), Ok(Some(Decimal(-156))));
        assert_eq!(str_to_decimal("1e2", t52), Ok(Some(Decimal(10000))));
        assert!(str_to_decimal("abc", t52).is_err());
        assert!(str_to_decimal("", t52).is_err());
        assert!(str_to_decimal("😀", t52).is_err());
        assert!(str_to_decimal("1.2.3", t52).is_err());
        assert_eq!(str_to_bool("TRUE"), Ok(true));
        // From docs/flink-observed/runtime-probe-results.md and fixtures/expressions.
        assert!(str_to_bool("  TRUE ").is_err());
        assert_eq!(str_to_i32("3.99"), Ok(3));
        assert_eq!(str_to_i32("-3.99"), Ok(-3));
        assert_eq!(str_to_i32("3.5"), Ok(3));
        assert_eq!(str_to_i32("+5"), Ok(5));
        assert_eq!(str_to_i32("-0"), Ok(0));
        assert_eq!(str_to_i32("007"), Ok(7));
        assert!(str_to_i32("1e3").is_err());
        assert!(str_to_i32("0x10").is_err());
        assert!(str_to_i32("1.5x").is_err());
        assert_eq!(
            str_to_date("2024-02-29 10:11:12"),
            Ok(Date::from_ymd(2024, 2, 29).unwrap())
        );
        assert!(str_to_date("2024-04-31").is_err());
        let smart = |s: &str| str_to_timestamp(s, 3).map(|t| timestamp_to_string(t, 3));
        assert_eq!(
            smart("2024-04-31").as_deref(),
            Ok("2024-04-30 00:00:00.000")
        );
        assert_eq!(
            smart("2024-02-30 00:00:00").as_deref(),
            Ok("2024-02-29 00:00:00.000")
        );
        assert!(smart("2024-13-01").is_err());
        assert!(smart("2024-01-32").is_err());
        assert!(str_to_bool("maybe").is_err());
        assert_eq!(f64_to_i32(-2.7), -2);
        assert_eq!(f64_to_i64(1e20), i64::MAX);
        assert_eq!(narrow_i8(300), 44);
        assert_eq!(f64_to_string(1e6), "1000000.0");
        assert_eq!(
            decimal_to_string(Decimal(1250), DecimalType::new(4, 2)),
            "12.50"
        );
        let ts = Timestamp::parse_sql(b"2024-01-05 10:00:00.120").unwrap();
        assert_eq!(timestamp_to_string(ts, 3), "2024-01-05 10:00:00.120");
        assert_eq!(timestamp_to_string(ts, 0), "2024-01-05 10:00:00");
        assert!(str_to_timestamp("2024-01-05T10:00", 3).is_err());
        assert_eq!(
            str_to_date(" 2024-1-5 "),
            Ok(Date::from_ymd(2024, 1, 5).unwrap())
        );
        // From tests/flink_samples/input_parsing (CAST of TIME(3) values).
        assert_eq!(time_to_string(Time(45_296_000), 3), "12:34:56.0");
        assert_eq!(time_to_string(Time(45_296_700), 3), "12:34:56.7");
        assert_eq!(time_to_string(Time(36_000_000), 0), "10:00:00");
    }
}
