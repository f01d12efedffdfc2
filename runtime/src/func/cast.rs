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

/// CAST(string AS DECIMAL(p, s)): `Ok(None)` on overflow (NULL), error on bad syntax.
pub fn str_to_decimal(s: &str, t: DecimalType) -> Result<Option<Decimal>, CastError> {
    t.parse(number::java_trim(s.as_bytes()))
        .map_err(|_| err(s, &t.to_string()))
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

pub fn timestamp_to_time(ts: Timestamp) -> Time {
    ts.time()
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
