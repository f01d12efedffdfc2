//! Sources: the `filesystem` connector's csv and json readers, and `datagen`.
//!
//! A reader yields records; generated code turns a record into its typed row
//! struct through the [`Record`] getters, which apply Flink's conversion rules
//! for the format (trimming, leniency, overflow → NULL) and, on bad data, either
//! produce an error naming file, line, column and type, or — with
//! `*.ignore-parse-errors` — a NULL field, as Flink does (the row is kept).
//!
//! ```text
//! fn parse_orders<R: Record>(r: &R) -> Result<Orders> {
//!     Ok(Orders { id: r.i64(0)?, price: r.decimal(3, DecimalType::new(10, 2))?, name: r.str(1)?.map(String::from) })
//! }
//! ```

pub mod csv;
mod csv_split;
pub mod datagen;
pub mod files;
pub mod json;

use crate::error::{Error, Result};
use crate::text::{base64, number};
use crate::value::{Date, Decimal, DecimalType, Str, Time, Timestamp};
use std::fmt::Display;
use std::sync::Arc;

/// One field of a record, before conversion to its column type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Raw<'a> {
    /// The column is absent from the record (short csv row, missing json key).
    Missing,
    /// An explicit NULL (json `null`, csv field equal to `csv.null-literal`).
    Null,
    /// A csv field (unquoted and unescaped).
    CsvText(&'a [u8]),
    /// A json string (unescaped).
    JsonString(&'a [u8]),
    /// A json number token, as written.
    JsonNumber(&'a [u8]),
    JsonBool(bool),
    /// A json object or array, raw text.
    JsonComposite(&'a [u8]),
}

impl Raw<'_> {
    /// The text shown in error messages.
    fn display_text(&self) -> String {
        match self {
            Raw::Missing | Raw::Null => String::new(),
            Raw::CsvText(t) | Raw::JsonString(t) | Raw::JsonNumber(t) | Raw::JsonComposite(t) => {
                String::from_utf8_lossy(t).into_owned()
            }
            Raw::JsonBool(b) => b.to_string(),
        }
    }
}

/// What a source needs to name a location in an error message.
#[derive(Debug)]
pub struct SourceInfo {
    /// Column names in schema order (the physical columns the reader produces).
    pub columns: Vec<String>,
    /// `*.ignore-parse-errors`: bad fields become NULL, malformed rows are skipped.
    pub ignore_parse_errors: bool,
}

/// A record of a source, with typed getters that follow Flink's conversion rules.
pub trait Record {
    /// The raw field of column `col` (schema order).
    fn raw(&self, col: usize) -> Raw<'_>;
    /// `file:line` of this record, for error messages.
    fn location(&self) -> String;
    fn info(&self) -> &SourceInfo;

    /// A conversion failure: NULL with ignore-parse-errors, else a located error.
    #[cold]
    fn bad_field<T>(&self, col: usize, ty: &dyn Display) -> Result<Option<T>> {
        if self.info().ignore_parse_errors {
            return Ok(None);
        }
        let name = self.info().columns.get(col).map_or("?", String::as_str);
        Err(Error::new(format!(
            "{}: column '{}': cannot parse '{}' as {}",
            self.location(),
            name,
            self.raw(col).display_text(),
            ty
        )))
    }

    fn bool(&self, col: usize) -> Result<Option<bool>> {
        match self.raw(col) {
            Raw::Missing | Raw::Null => Ok(None),
            Raw::JsonBool(b) => Ok(Some(b)),
            // Boolean.parseBoolean(text.trim()): anything but "true" is FALSE, even "".
            Raw::CsvText(t) | Raw::JsonString(t) | Raw::JsonNumber(t) => {
                Ok(Some(number::java_trim(t).eq_ignore_ascii_case(b"true")))
            }
            Raw::JsonComposite(_) => self.bad_field(col, &"BOOLEAN"),
        }
    }

    #[inline(always)]
    fn i8(&self, col: usize) -> Result<Option<i8>> {
        self.integer(col, "TINYINT", i8::MIN as i64, i8::MAX as i64)
            .map(|o| o.map(|v| v as i8))
    }
    #[inline(always)]
    fn i16(&self, col: usize) -> Result<Option<i16>> {
        self.integer(col, "SMALLINT", i16::MIN as i64, i16::MAX as i64)
            .map(|o| o.map(|v| v as i16))
    }
    #[inline(always)]
    fn i32(&self, col: usize) -> Result<Option<i32>> {
        self.integer(col, "INT", i32::MIN as i64, i32::MAX as i64)
            .map(|o| o.map(|v| v as i32))
    }
    #[inline(always)]
    fn i64(&self, col: usize) -> Result<Option<i64>> {
        self.integer(col, "BIGINT", i64::MIN, i64::MAX)
    }

    /// Integers: text is trimmed and parsed strictly (`1.5`, `1e2` fail); a json
    /// number with a fraction is truncated (Jackson's `getIntValue`).
    #[inline(always)]
    fn integer(&self, col: usize, ty: &'static str, min: i64, max: i64) -> Result<Option<i64>> {
        // The common case inline: csv digits with nothing to trim (text that
        // needs trimming fails here and is trimmed by the general path).
        if let Raw::CsvText(t) = self.raw(col) {
            if let Some(v) = number::parse_int_range(t, min, max) {
                return Ok(Some(v));
            }
        }
        self.integer_general(col, ty, min, max)
    }

    /// [`Record::integer`] for every kind of raw field and for errors.
    #[inline(never)]
    fn integer_general(
        &self,
        col: usize,
        ty: &'static str,
        min: i64,
        max: i64,
    ) -> Result<Option<i64>> {
        let parsed = match self.raw(col) {
            Raw::Missing | Raw::Null => return Ok(None),
            Raw::CsvText(t) | Raw::JsonString(t) => {
                number::parse_int_range(number::java_trim(t), min, max)
            }
            Raw::JsonNumber(t) => match number::parse_int_range(t, min, max) {
                Some(v) => Some(v),
                None => number::parse_f64(t).and_then(|f| {
                    let v = f.trunc();
                    (v >= min as f64 && v <= max as f64).then_some(v as i64)
                }),
            },
            Raw::JsonBool(_) | Raw::JsonComposite(_) => None,
        };
        match parsed {
            Some(v) => Ok(Some(v)),
            None => self.bad_field(col, &ty),
        }
    }

    #[inline(always)]
    fn f64(&self, col: usize) -> Result<Option<f64>> {
        if let Raw::CsvText(t) = self.raw(col) {
            if let Some(v) = number::parse_f64(t) {
                return Ok(Some(v));
            }
        }
        self.f64_general(col)
    }

    /// [`Record::f64`] for every kind of raw field and for errors.
    #[inline(never)]
    fn f64_general(&self, col: usize) -> Result<Option<f64>> {
        match self.raw(col) {
            Raw::Missing | Raw::Null => Ok(None),
            Raw::CsvText(t) | Raw::JsonString(t) | Raw::JsonNumber(t) => match number::parse_f64(t)
            {
                Some(v) => Ok(Some(v)),
                None => self.bad_field(col, &"DOUBLE"),
            },
            _ => self.bad_field(col, &"DOUBLE"),
        }
    }

    fn f32(&self, col: usize) -> Result<Option<f32>> {
        match self.raw(col) {
            Raw::Missing | Raw::Null => Ok(None),
            Raw::CsvText(t) | Raw::JsonString(t) | Raw::JsonNumber(t) => match number::parse_f32(t)
            {
                Some(v) => Ok(Some(v)),
                None => self.bad_field(col, &"FLOAT"),
            },
            _ => self.bad_field(col, &"FLOAT"),
        }
    }

    /// DECIMAL: `new BigDecimal(text)` (no trimming in csv), HALF_UP to the scale,
    /// NULL when the value overflows the precision.
    fn decimal(&self, col: usize, ty: DecimalType) -> Result<Option<Decimal>> {
        let text = match self.raw(col) {
            Raw::Missing | Raw::Null => return Ok(None),
            Raw::CsvText(t) | Raw::JsonNumber(t) => t,
            Raw::JsonString(t) => number::java_trim(t),
            _ => return self.bad_field(col, &ty),
        };
        match ty.parse(text) {
            Ok(v) => Ok(v),
            Err(_) => self.bad_field(col, &ty),
        }
    }

    /// STRING/VARCHAR/CHAR, borrowed from the record. Json numbers, booleans and
    /// composites read as their text (composites compacted, as Jackson re-serializes).
    #[inline(always)]
    fn str(&self, col: usize) -> Result<Option<std::borrow::Cow<'_, str>>> {
        if let Raw::CsvText(t) = self.raw(col) {
            if t.is_ascii() {
                // SAFETY: ASCII bytes are valid UTF-8.
                return Ok(Some(std::borrow::Cow::Borrowed(unsafe {
                    std::str::from_utf8_unchecked(t)
                })));
            }
        }
        self.str_general(col)
    }

    /// STRING/VARCHAR/CHAR as a row's value: short ASCII csv text straight
    /// into an inline [`Str`], without the `Cow` of [`Record::str`] (whose
    /// conversion the compiler called out of line for every field of every
    /// row: ~5% of TPC-H's samples).
    #[inline(always)]
    fn string(&self, col: usize) -> Result<Option<Str>> {
        if let Raw::CsvText(t) = self.raw(col) {
            if let Some(s) = Str::from_short_ascii(t) {
                return Ok(Some(s));
            }
        }
        self.string_general(col)
    }

    /// [`Record::string`] for every other field.
    #[inline(never)]
    fn string_general(&self, col: usize) -> Result<Option<Str>> {
        Ok(self.str(col)?.map(Str::from))
    }

    /// [`Record::str`] for every kind of raw field and for errors.
    #[inline(never)]
    fn str_general(&self, col: usize) -> Result<Option<std::borrow::Cow<'_, str>>> {
        let bytes = match self.raw(col) {
            Raw::Missing | Raw::Null => return Ok(None),
            Raw::CsvText(t) | Raw::JsonString(t) | Raw::JsonNumber(t) => t,
            Raw::JsonBool(b) => {
                return Ok(Some(std::borrow::Cow::Borrowed(if b {
                    "true"
                } else {
                    "false"
                })))
            }
            Raw::JsonComposite(t) => {
                return Ok(Some(std::borrow::Cow::Owned(json::compact(t))));
            }
        };
        if bytes.is_ascii() {
            // SAFETY: ASCII bytes are valid UTF-8. (The common case; checking
            // it word by word is cheaper than the full UTF-8 validation.)
            return Ok(Some(std::borrow::Cow::Borrowed(unsafe {
                std::str::from_utf8_unchecked(bytes)
            })));
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(Some(std::borrow::Cow::Borrowed(s))),
            Err(_) => self.bad_field(col, &"STRING (invalid UTF-8)"),
        }
    }

    /// BYTES: base64 text.
    fn bytes(&self, col: usize) -> Result<Option<Vec<u8>>> {
        match self.raw(col) {
            Raw::Missing | Raw::Null => Ok(None),
            Raw::CsvText(t) | Raw::JsonString(t) => match base64::decode(t) {
                Some(b) => Ok(Some(b)),
                None => self.bad_field(col, &"BYTES"),
            },
            _ => self.bad_field(col, &"BYTES"),
        }
    }

    /// DATE: csv as `java.sql.Date.valueOf` (`2024-1-5` accepted, day overflow
    /// rolls into the next month); json strictly `yyyy-MM-dd`.
    #[inline(always)]
    fn date(&self, col: usize) -> Result<Option<Date>> {
        if let Raw::CsvText(t) = self.raw(col) {
            if let Some(d) = parse_plain_date(t) {
                return Ok(Some(d));
            }
        }
        self.date_general(col)
    }

    /// [`Record::date`] for every kind of raw field and for errors.
    #[inline(never)]
    fn date_general(&self, col: usize) -> Result<Option<Date>> {
        let parsed = match self.raw(col) {
            Raw::Missing | Raw::Null => return Ok(None),
            // (`date` tried the plain `yyyy-mm-dd` form already.)
            Raw::CsvText(t) => parse_sql_date_general(t),
            Raw::JsonString(t) => Date::parse_iso(t),
            _ => None,
        };
        match parsed {
            Some(d) => Ok(Some(d)),
            None => self.bad_field(col, &"DATE"),
        }
    }

    /// TIME: `HH:mm[:ss[.fffffffff]]`, kept to millis (Flink's TIME).
    fn time(&self, col: usize, precision: u8) -> Result<Option<Time>> {
        let parsed = match self.raw(col) {
            Raw::Missing | Raw::Null => return Ok(None),
            Raw::CsvText(t) | Raw::JsonString(t) => Time::parse_iso(t),
            _ => None,
        };
        match parsed {
            Some(v) => Ok(Some(v)),
            None => self.bad_field(col, &format_args!("TIME({precision})")),
        }
    }

    /// TIMESTAMP(p): `yyyy-MM-dd HH:mm:ss[.f]` (csv trims; json per
    /// `json.timestamp-format.standard`). The fraction is kept whole, not cut to
    /// `p`, exactly as Flink reads it.
    #[inline]
    fn timestamp(&self, col: usize, precision: u8) -> Result<Option<Timestamp>> {
        if let Raw::CsvText(t) = self.raw(col) {
            if let Some(v) = Timestamp::parse_sql_fixed(t) {
                return Ok(Some(v));
            }
        }
        self.timestamp_general(col, precision)
    }

    /// [`Record::timestamp`] for every kind of raw field and for errors.
    #[inline(never)]
    fn timestamp_general(&self, col: usize, precision: u8) -> Result<Option<Timestamp>> {
        let parsed = match self.raw(col) {
            Raw::Missing | Raw::Null => return Ok(None),
            Raw::CsvText(t) => Timestamp::parse_sql(number::java_trim(t)),
            Raw::JsonString(t) => {
                if self.json_iso8601() {
                    Timestamp::parse_iso(t)
                } else {
                    Timestamp::parse_sql(t)
                }
            }
            _ => None,
        };
        match parsed {
            Some(v) => Ok(Some(v)),
            None => self.bad_field(col, &format_args!("TIMESTAMP({precision})")),
        }
    }

    /// TIMESTAMP_LTZ(p): like TIMESTAMP with a mandatory trailing `Z` (UTC).
    fn timestamp_ltz(&self, col: usize, precision: u8) -> Result<Option<Timestamp>> {
        let parsed = match self.raw(col) {
            Raw::Missing | Raw::Null => return Ok(None),
            Raw::CsvText(t) => number::java_trim(t)
                .strip_suffix(b"Z")
                .and_then(Timestamp::parse_sql),
            Raw::JsonString(t) => t.strip_suffix(b"Z").and_then(|t| {
                if self.json_iso8601() {
                    Timestamp::parse_iso(t)
                } else {
                    Timestamp::parse_sql(t)
                }
            }),
            _ => None,
        };
        match parsed {
            Some(v) => Ok(Some(v)),
            None => self.bad_field(col, &format_args!("TIMESTAMP_LTZ({precision})")),
        }
    }

    /// Whether json timestamps use ISO-8601 (`T`) instead of SQL (` `) layout.
    fn json_iso8601(&self) -> bool {
        false
    }
}

/// `java.sql.Date.valueOf`: `yyyy-[m]m-[d]d`, month 1-12, day 1-31, and a day past
/// the month's end rolls over (`2023-02-29` is 2023-03-01), as the JDK does.
pub fn parse_sql_date_value_of(t: &[u8]) -> Option<Date> {
    if let Some(d) = parse_plain_date(t) {
        return Some(d);
    }
    parse_sql_date_general(t)
}

/// The common `yyyy-mm-dd` shape of [`parse_sql_date_value_of`], without the
/// split and the month-length check: the same day the general path computes
/// from the 1st. `None` for every other text, valid or not.
#[inline(always)]
fn parse_plain_date(t: &[u8]) -> Option<Date> {
    if let &[y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = t {
        let digit = |c: u8| c.wrapping_sub(b'0');
        let all = [y0, y1, y2, y3, m0, m1, d0, d1];
        if all.iter().all(|&c| digit(c) < 10) {
            let y = i32::from(digit(y0)) * 1000
                + i32::from(digit(y1)) * 100
                + i32::from(digit(y2)) * 10
                + i32::from(digit(y3));
            let m = u32::from(digit(m0)) * 10 + u32::from(digit(m1));
            let d = u32::from(digit(d0)) * 10 + u32::from(digit(d1));
            if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
                return None;
            }
            return Some(Date(
                crate::value::temporal::days_from_civil(y, m, 1) + d as i32 - 1,
            ));
        }
    }
    None
}

#[inline(never)]
fn parse_sql_date_general(t: &[u8]) -> Option<Date> {
    let mut parts = t.splitn(3, |&c| c == b'-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &[u8], lo: usize, hi: usize| -> Option<u32> {
        if s.len() < lo || s.len() > hi || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(s.iter().fold(0u32, |a, &c| a * 10 + (c - b'0') as u32))
    };
    let y = digits(y, 4, 4)? as i32;
    let m = digits(m, 1, 2)?;
    let d = digits(d, 1, 2)?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let first = Date::from_ymd(y, m, 1)?;
    Some(Date(first.0 + d as i32 - 1))
}

/// Shared state of one scan: schema and options. Cheap to clone into threads.
pub type SharedInfo = Arc<SourceInfo>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_date_value_of() {
        assert_eq!(
            parse_sql_date_value_of(b"2024-1-5"),
            Date::from_ymd(2024, 1, 5)
        );
        assert_eq!(
            parse_sql_date_value_of(b"2023-02-29"),
            Date::from_ymd(2023, 3, 1)
        );
        assert_eq!(parse_sql_date_value_of(b" 2024-01-05"), None);
        assert_eq!(parse_sql_date_value_of(b"2024-13-01"), None);
        assert_eq!(parse_sql_date_value_of(b"+2024-01-05"), None);
    }

    /// The `yyyy-mm-dd` fast path gives what the general path gives, for
    /// every month and day field 00..=39 of a few years (rollover included).
    #[test]
    fn sql_date_value_of_fast_path() {
        for y in [0, 1, 1600, 1900, 1970, 1992, 1998, 2000, 2023, 2024, 9999] {
            for m in 0..40 {
                for d in 0..40u32 {
                    let text = format!("{y:04}-{m:02}-{d:02}");
                    let general = (|| {
                        if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
                            return None;
                        }
                        let first = Date::from_ymd(y, m, 1)?;
                        Some(Date(first.0 + d as i32 - 1))
                    })();
                    assert_eq!(parse_sql_date_value_of(text.as_bytes()), general, "{text}");
                    assert_eq!(parse_sql_date_general(text.as_bytes()), general, "{text}");
                }
            }
        }
    }
}
