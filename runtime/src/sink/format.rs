//! Row formats of the sinks — csv, json and print — written byte-for-byte as
//! Flink 2.3 writes them (samples in `tests/flink_samples/output_formats`).
//!
//! Generated code writes a row as a sequence of typed calls on a [`RowFormat`]
//! (statically dispatched; the format is a generic parameter):
//!
//! ```
//! use stmtc_runtime::sink::format::{CsvFormat, RowFormat, Field};
//! use stmtc_runtime::value::{Decimal, DecimalType};
//! let mut f = CsvFormat::default();
//! let mut out = Vec::new();
//! f.begin_row(&mut out);
//! f.field(&mut out, &Some(7i32));
//! f.field(&mut out, &Some("with space"));
//! f.field(&mut out, &Field::Decimal(Decimal(35180), DecimalType::new(10, 2)));
//! f.field(&mut out, &None::<i64>);
//! f.end_row(&mut out);
//! assert_eq!(out, b"7,\"with space\",351.8,\n");
//! ```

use crate::text::append::append_short;
use crate::text::{base64, canonical, number};
use crate::value::{Date, Decimal, DecimalType, FractionStyle, Str, Time, Timestamp};

/// A value as the formats see it. Generated code usually passes plain Rust
/// values through [`SinkValue`]; `Field` is the common currency.
#[derive(Clone, Copy, Debug)]
pub enum Field<'a> {
    Null,
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Decimal(Decimal, DecimalType),
    Str(&'a str),
    Bytes(&'a [u8]),
    Date(Date),
    Time(Time),
    Timestamp(Timestamp),
    /// A TIMESTAMP_LTZ instant (rendered in UTC, as Flink's formats do).
    TimestampLtz(Timestamp),
}

/// Anything that can be written as one sink field.
pub trait SinkValue {
    fn as_field(&self) -> Field<'_>;
}

macro_rules! sink_value {
    ($t:ty, $v:ident => $e:expr) => {
        impl SinkValue for $t {
            #[inline]
            fn as_field(&self) -> Field<'_> {
                let $v = self;
                $e
            }
        }
    };
}
sink_value!(bool, v => Field::Bool(*v));
sink_value!(i8, v => Field::I8(*v));
sink_value!(i16, v => Field::I16(*v));
sink_value!(i32, v => Field::I32(*v));
sink_value!(i64, v => Field::I64(*v));
sink_value!(f32, v => Field::F32(*v));
sink_value!(f64, v => Field::F64(*v));
sink_value!(str, v => Field::Str(v));
sink_value!(&str, v => Field::Str(v));
sink_value!(String, v => Field::Str(v));
sink_value!(Str, v => Field::Str(v));
sink_value!(Date, v => Field::Date(*v));
sink_value!(Time, v => Field::Time(*v));
sink_value!(Timestamp, v => Field::Timestamp(*v));
sink_value!(Field<'_>, v => *v);

impl<T: SinkValue> SinkValue for Option<T> {
    #[inline]
    fn as_field(&self) -> Field<'_> {
        match self {
            Some(v) => v.as_field(),
            None => Field::Null,
        }
    }
}

/// A sink row format. `begin_row`, one `field` per column in schema order, `end_row`.
pub trait RowFormat {
    fn begin_row(&mut self, out: &mut Vec<u8>);
    fn field<V: SinkValue + ?Sized>(&mut self, out: &mut Vec<u8>, v: &V);
    fn end_row(&mut self, out: &mut Vec<u8>);
}

/// Options of Flink's `csv` format that affect writing.
#[derive(Clone, Debug)]
pub struct CsvFormat {
    pub field_delimiter: u8,
    /// `None` with `csv.disable-quote-character`.
    pub quote: Option<u8>,
    pub escape: Option<u8>,
    /// `csv.null-literal`; NULL is an empty field without it.
    pub null_literal: Option<String>,
    col: usize,
    /// Per byte: [`UNSAFE`] when it forces quotes, [`NON_ASCII`] when it
    /// is part of a multi-byte char (the UTF-16 length needs counting),
    /// [`DOUBLED`] when it is doubled inside quotes.
    byte_class: [u8; 256],
    /// Reused buffer for values rendered before quoting (no per-field allocation).
    scratch: Vec<u8>,
    /// Digits, `-`, `:` and `.` are plain text here (none forces quotes or
    /// is doubled): the quoting of a DATE or TIMESTAMP of years 0000-9999,
    /// whose text is made of those and one space, follows from the space
    /// alone.
    plain_temporal: bool,
}

impl Default for CsvFormat {
    fn default() -> Self {
        CsvFormat::new(b',', Some(b'"'), None, None)
    }
}

/// Days and milliseconds since the epoch of the years 0000-9999, whose
/// text has four year digits and no sign.
const YEARS_0000_9999_DAYS: std::ops::Range<i32> = -719_528..2_932_897;
const YEARS_0000_9999_MILLIS: std::ops::Range<i64> =
    YEARS_0000_9999_DAYS.start as i64 * 86_400_000..YEARS_0000_9999_DAYS.end as i64 * 86_400_000;

/// Jackson quotes every string longer than this many UTF-16 units without looking.
const MAX_QUOTE_CHECK: usize = 24;

/// Byte classes of [`CsvFormat`]'s quoting check.
const UNSAFE: u8 = 1;
const NON_ASCII: u8 = 2;
/// The quote or escape char, written twice inside quotes.
const DOUBLED: u8 = 4;

impl CsvFormat {
    pub fn new(
        field_delimiter: u8,
        quote: Option<u8>,
        escape: Option<u8>,
        null_literal: Option<String>,
    ) -> Self {
        // Jackson's "loose" quoting check: any char below max(separator, quote, '\n') + 1.
        let min_safe = field_delimiter.max(quote.unwrap_or(0)).max(b'\n') + 1;
        let special = escape.unwrap_or(b'\\');
        let mut byte_class = [0u8; 256];
        for (c, class) in (0u8..=255).zip(byte_class.iter_mut()) {
            if c < min_safe || c == special || (escape.is_none() && Some(c) == quote) {
                *class |= UNSAFE;
            }
            if c >= 0x80 {
                *class |= NON_ASCII;
            }
            if Some(c) == quote.or(Some(b'"')) || Some(c) == escape {
                *class |= DOUBLED;
            }
        }
        let plain_temporal = b"0123456789-:."
            .iter()
            .all(|&c| byte_class[c as usize] == 0);
        CsvFormat {
            field_delimiter,
            quote,
            escape,
            null_literal,
            col: 0,
            byte_class,
            scratch: Vec::new(),
            plain_temporal,
        }
    }

    /// Jackson's rule, in one pass: quote text longer than 24 UTF-16 units,
    /// or holding a char below `min_safe`, the quote char, or the escape char
    /// (the backslash when there is none).
    #[inline]
    fn needs_quotes(&self, s: &[u8], classes: u8) -> bool {
        if self.quote.is_none() {
            return false;
        }
        if classes & UNSAFE != 0 {
            return true;
        }
        if classes & NON_ASCII == 0 {
            return s.len() > MAX_QUOTE_CHECK;
        }
        // UTF-16 length: continuation bytes add nothing, 4-byte sequences two.
        let units: usize = s
            .iter()
            .map(|&c| usize::from(c & 0xC0 != 0x80) + usize::from(c >= 0xF0))
            .sum();
        units > MAX_QUOTE_CHECK
    }

    fn write_text(&self, out: &mut Vec<u8>, s: &[u8]) {
        // The classes of all bytes at once, for both decisions below.
        let classes = s
            .iter()
            .fold(0u8, |acc, &c| acc | self.byte_class[c as usize]);
        if !self.needs_quotes(s, classes) {
            append_short(out, s);
            return;
        }
        let q = self.quote.unwrap_or(b'"');
        out.push(q);
        if classes & DOUBLED != 0 {
            for &c in s {
                if c == q || Some(c) == self.escape {
                    // Quotes are doubled; the escape char escapes itself.
                    out.push(c);
                }
                out.push(c);
            }
        } else {
            out.extend_from_slice(s);
        }
        out.push(q);
    }
}

impl CsvFormat {
    /// A TIMESTAMP, quoted when Jackson's rule says so (with the default
    /// options always: the space before the time forces quotes).
    #[inline(never)]
    fn write_timestamp(&mut self, out: &mut Vec<u8>, ts: Timestamp) {
        let space = self.byte_class[b' ' as usize];
        let render = |o: &mut Vec<u8>| ts.write(o, b' ', FractionStyle::Trimmed);
        if self.plain_temporal
            && YEARS_0000_9999_MILLIS.contains(&ts.millis)
            && space & (UNSAFE | DOUBLED) == UNSAFE
        {
            // The space forces quotes and nothing inside is doubled.
            if let Some(q) = self.quote {
                ts.write_sql_quoted(out, q);
                return;
            }
        }
        self.write_rendered(out, space & UNSAFE != 0, render);
    }

    /// A DATE: `yyyy-MM-dd` needs no quotes when its chars are plain.
    #[inline]
    fn write_date(&mut self, out: &mut Vec<u8>, d: Date) {
        if self.plain_temporal && YEARS_0000_9999_DAYS.contains(&d.0) {
            d.write(out);
        } else {
            self.write_rendered(out, false, |o| d.write(o));
        }
    }

    /// A value rendered by `render` straight into `out`, then quoted as
    /// [`CsvFormat::write_text`] would quote its text: the same decision on
    /// the same bytes, without a copy through a scratch buffer in the common
    /// cases. `quoted_guess` opens the quote before rendering (removed again
    /// when the text needs none).
    #[inline]
    fn write_rendered(
        &mut self,
        out: &mut Vec<u8>,
        quoted_guess: bool,
        render: impl FnOnce(&mut Vec<u8>),
    ) {
        let q = self.quote.unwrap_or(b'"');
        let start = out.len();
        let text = start + usize::from(quoted_guess);
        if quoted_guess {
            out.push(q);
        }
        render(out);
        let s = &out[text..];
        let classes = s
            .iter()
            .fold(0u8, |acc, &c| acc | self.byte_class[c as usize]);
        let quote = self.needs_quotes(s, classes);
        if classes & DOUBLED != 0 && quote {
            // Quote or escape chars inside: doubled by write_text.
            let mut buf = std::mem::take(&mut self.scratch);
            buf.clear();
            buf.extend_from_slice(&out[text..]);
            out.truncate(start);
            self.write_text(out, &buf);
            self.scratch = buf;
        } else if quote {
            if !quoted_guess {
                out.insert(start, q);
            }
            out.push(q);
        } else if quoted_guess {
            out.remove(start);
        }
    }
}

/// Columns passed through untouched from a csv source: the field's bytes
/// are copied when they are exactly what the value formats as
/// ([`crate::text::canonical`]), else the value is formatted as by
/// [`RowFormat::field`]. `text` must be the csv field `v` was read from.
impl CsvFormat {
    #[inline(always)]
    fn delimit(&mut self, out: &mut Vec<u8>) {
        if self.col > 0 {
            out.push(self.field_delimiter);
        }
        self.col += 1;
    }

    /// An integer column (TINYINT..BIGINT).
    #[inline(always)]
    pub fn int_text<V: SinkValue>(
        &mut self,
        out: &mut Vec<u8>,
        v: &Option<V>,
        text: Option<&[u8]>,
    ) {
        match (v, text) {
            (Some(_), Some(t)) if canonical::int_is_canonical(t) => {
                self.delimit(out);
                append_short(out, t);
            }
            _ => self.field(out, v),
        }
    }

    /// A DOUBLE column.
    #[inline(always)]
    pub fn double_text(&mut self, out: &mut Vec<u8>, v: &Option<f64>, text: Option<&[u8]>) {
        match (v, text) {
            (Some(_), Some(t)) if canonical::double_is_java(t) => {
                self.delimit(out);
                if t.len() <= 16 {
                    append_short(out, t);
                } else {
                    out.extend_from_slice(t);
                }
            }
            _ => self.field(out, v),
        }
    }

    /// A TIMESTAMP column, quoted (the space forces quotes).
    #[inline(always)]
    pub fn timestamp_text(
        &mut self,
        out: &mut Vec<u8>,
        v: &Option<Timestamp>,
        text: Option<&[u8]>,
    ) {
        let space = self.byte_class[b' ' as usize];
        match (v, text, self.quote) {
            (Some(_), Some(t), Some(q))
                if self.plain_temporal
                    && space & (UNSAFE | DOUBLED) == UNSAFE
                    && canonical::timestamp_is_flink_csv(t) =>
            {
                self.delimit(out);
                out.push(q);
                out.extend_from_slice(t);
                out.push(q);
            }
            _ => self.field(out, v),
        }
    }
}

impl RowFormat for CsvFormat {
    #[inline]
    fn begin_row(&mut self, _out: &mut Vec<u8>) {
        self.col = 0;
    }

    /// Inlined into each generated call, where `as_field` of the column's
    /// Rust type leaves one arm of the match (and a NULL arm): a typed write
    /// per column, without a dispatch on the value's kind per field.
    #[inline(always)]
    fn field<V: SinkValue + ?Sized>(&mut self, out: &mut Vec<u8>, v: &V) {
        self.delimit(out);
        match v.as_field() {
            Field::Null => {
                if let Some(n) = &self.null_literal {
                    out.extend_from_slice(n.as_bytes());
                }
            }
            Field::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            Field::I8(v) => number::write_int(out, v),
            Field::I16(v) => number::write_int(out, v),
            Field::I32(v) => number::write_int(out, v),
            Field::I64(v) => number::write_int(out, v),
            Field::F32(v) => number::write_f32(out, v),
            Field::F64(v) => number::write_f64(out, v),
            Field::Decimal(d, t) => t.write_stripped(d, out),
            Field::Str(s) => self.write_text(out, s.as_bytes()),
            // Temporal values and bytes are strings to Jackson: same quoting rules.
            Field::Timestamp(ts) => self.write_timestamp(out, ts),
            Field::Date(d) => self.write_date(out, d),
            other => self.write_rendered(out, false, |o| write_text_value(o, other, b' ')),
        }
    }

    #[inline]
    fn end_row(&mut self, out: &mut Vec<u8>) {
        out.push(b'\n');
    }
}

/// Text of temporal and binary values in Flink's csv/json SQL formats.
fn write_text_value(out: &mut Vec<u8>, f: Field<'_>, ts_sep: u8) {
    match f {
        Field::Date(d) => d.write(out),
        Field::Time(t) => t.write_sql(out),
        Field::Timestamp(ts) => ts.write(out, ts_sep, FractionStyle::Trimmed),
        Field::TimestampLtz(ts) => {
            ts.write(out, ts_sep, FractionStyle::Trimmed);
            out.push(b'Z');
        }
        Field::Bytes(b) => base64::encode(out, b),
        _ => {}
    }
}

/// Options of Flink's `json` format that affect writing.
#[derive(Clone, Debug)]
pub struct JsonFormat {
    /// Column names, already escaped and quoted with the trailing ':' (`"price":`).
    keys: Vec<Vec<u8>>,
    /// `json.timestamp-format.standard` = `ISO-8601` (else `SQL`).
    pub iso8601: bool,
    /// `json.encode.decimal-as-plain-number`.
    pub decimal_plain: bool,
    /// `json.encode.ignore-null-fields`.
    pub ignore_null_fields: bool,
    col: usize,
    wrote: usize,
}

impl JsonFormat {
    pub fn new<S: AsRef<str>>(columns: &[S]) -> Self {
        let keys = columns
            .iter()
            .map(|c| {
                let mut k = Vec::new();
                write_json_string(&mut k, c.as_ref().as_bytes());
                k.push(b':');
                k
            })
            .collect();
        JsonFormat {
            keys,
            iso8601: false,
            decimal_plain: false,
            ignore_null_fields: false,
            col: 0,
            wrote: 0,
        }
    }
}

/// Appends a JSON string literal with Jackson's escaping (`\"`, `\\`, `\n`, `\t`,
/// `\r`, `\b`, `\f`, other control chars as `\u00XX`; non-ASCII kept raw).
pub fn write_json_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    let mut start = 0;
    for (i, &c) in s.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\t' => b"\\t",
            b'\r' => b"\\r",
            0x08 => b"\\b",
            0x0C => b"\\f",
            0..=0x1F => b"",
            _ => continue,
        };
        out.extend_from_slice(&s[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(c >> 4) as usize],
                HEX[(c & 15) as usize],
            ]);
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
    out.push(b'"');
}

impl RowFormat for JsonFormat {
    #[inline]
    fn begin_row(&mut self, out: &mut Vec<u8>) {
        self.col = 0;
        self.wrote = 0;
        out.push(b'{');
    }

    fn field<V: SinkValue + ?Sized>(&mut self, out: &mut Vec<u8>, v: &V) {
        let col = self.col;
        self.col += 1;
        let f = v.as_field();
        if matches!(f, Field::Null) && self.ignore_null_fields {
            return;
        }
        if self.wrote > 0 {
            out.push(b',');
        }
        self.wrote += 1;
        if let Some(k) = self.keys.get(col) {
            out.extend_from_slice(k);
        }
        match f {
            Field::Null => out.extend_from_slice(b"null"),
            Field::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            Field::I8(v) => number::write_int(out, v),
            Field::I16(v) => number::write_int(out, v),
            Field::I32(v) => number::write_int(out, v),
            Field::I64(v) => number::write_int(out, v),
            // Jackson quotes non-finite numbers (QUOTE_NON_NUMERIC_NUMBERS).
            Field::F32(v) if !v.is_finite() => {
                out.push(b'"');
                number::write_f32(out, v);
                out.push(b'"');
            }
            Field::F64(v) if !v.is_finite() => {
                out.push(b'"');
                number::write_f64(out, v);
                out.push(b'"');
            }
            Field::F32(v) => number::write_f32(out, v),
            Field::F64(v) => number::write_f64(out, v),
            Field::Decimal(d, t) => {
                if self.decimal_plain {
                    t.write_plain(d, out)
                } else {
                    t.write_stripped(d, out)
                }
            }
            Field::Str(s) => write_json_string(out, s.as_bytes()),
            other => {
                out.push(b'"');
                write_text_value(out, other, if self.iso8601 { b'T' } else { b' ' });
                out.push(b'"');
            }
        }
    }

    #[inline]
    fn end_row(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"}\n");
    }
}

/// Flink's print connector: `+I[1, EU, 793.04, 2024-01-05T08:01:29.363]`, values
/// as their Java `toString()`, prefixed `<identifier>> ` when set.
#[derive(Clone, Debug, Default)]
pub struct PrintFormat {
    prefix: Vec<u8>,
    col: usize,
}

impl PrintFormat {
    pub fn new(identifier: Option<&str>) -> Self {
        let prefix = match identifier {
            Some(id) if !id.is_empty() => format!("{id}> ").into_bytes(),
            _ => Vec::new(),
        };
        PrintFormat { prefix, col: 0 }
    }
}

impl RowFormat for PrintFormat {
    #[inline]
    fn begin_row(&mut self, out: &mut Vec<u8>) {
        self.col = 0;
        out.extend_from_slice(&self.prefix);
        out.extend_from_slice(b"+I[");
    }

    fn field<V: SinkValue + ?Sized>(&mut self, out: &mut Vec<u8>, v: &V) {
        if self.col > 0 {
            out.extend_from_slice(b", ");
        }
        self.col += 1;
        write_java_string(out, v.as_field());
    }

    #[inline]
    fn end_row(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"]\n");
    }
}

/// The Java `toString()` of a value's external type (what `Row.toString` prints).
pub fn write_java_string(out: &mut Vec<u8>, f: Field<'_>) {
    match f {
        Field::Null => out.extend_from_slice(b"null"),
        Field::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        Field::I8(v) => number::write_int(out, v),
        Field::I16(v) => number::write_int(out, v),
        Field::I32(v) => number::write_int(out, v),
        Field::I64(v) => number::write_int(out, v),
        Field::F32(v) => number::write_f32(out, v),
        Field::F64(v) => number::write_f64(out, v),
        Field::Decimal(d, t) => t.write_java(d, out),
        Field::Str(s) => out.extend_from_slice(s.as_bytes()),
        Field::Bytes(b) => {
            // byte[] prints as Arrays.toString: signed values.
            out.push(b'[');
            for (i, &x) in b.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                number::write_int(out, x as i8);
            }
            out.push(b']');
        }
        Field::Date(d) => d.write(out),
        Field::Time(t) => t.write_java(out),
        Field::Timestamp(ts) => ts.write_java(out),
        Field::TimestampLtz(ts) => ts.write_instant_java(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(f: &mut CsvFormat, s: &str) -> String {
        let mut out = Vec::new();
        f.begin_row(&mut out);
        f.field(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn csv_quoting_rules() {
        let mut f = CsvFormat::default();
        assert_eq!(csv(&mut f, "plain"), "plain");
        assert_eq!(csv(&mut f, "a b"), "\"a b\"");
        assert_eq!(csv(&mut f, "a\"b"), "\"a\"\"b\"");
        assert_eq!(csv(&mut f, "back\\slash"), "\"back\\slash\"");
        assert_eq!(
            csv(&mut f, "abcdefghijklmnopqrstuvwx"),
            "abcdefghijklmnopqrstuvwx"
        );
        assert_eq!(
            csv(&mut f, "abcdefghijklmnopqrstuvwxy"),
            "\"abcdefghijklmnopqrstuvwxy\""
        );
        assert_eq!(csv(&mut f, ""), "");
        let mut f = CsvFormat::new(b';', Some(b'\''), Some(b'\\'), Some("NULL".into()));
        assert_eq!(csv(&mut f, "back\\slash"), "'back\\\\slash'");
        assert_eq!(csv(&mut f, "2024"), "'2024'");
        let mut f = CsvFormat::new(b'|', None, None, None);
        assert_eq!(csv(&mut f, "a\nb \""), "a\nb \"");
    }

    /// Temporal values rendered in place are quoted exactly as their text
    /// would be: every option combination, including quote and escape
    /// chars that occur in the text (doubled) and separators that force or
    /// drop quotes.
    #[test]
    fn temporal_fields_quote_as_their_text() {
        let values = [
            Field::Timestamp(Timestamp::new(1_704_441_689_363, 0)),
            Field::Timestamp(Timestamp::new(1_704_441_600_000, 0)),
            Field::Timestamp(Timestamp::new(1_704_441_689_363, 123_456)),
            Field::Timestamp(Timestamp::new(-62_135_596_800_001, 0)),
            Field::TimestampLtz(Timestamp::new(1_704_441_689_000, 0)),
            Field::Date(Date(19_727)),
            Field::Date(Date(-800_000)),
            Field::Date(Date(YEARS_0000_9999_DAYS.start)),
            Field::Date(Date(YEARS_0000_9999_DAYS.start - 1)),
            Field::Date(Date(YEARS_0000_9999_DAYS.end - 1)),
            Field::Date(Date(YEARS_0000_9999_DAYS.end)),
            Field::Timestamp(Timestamp::new(YEARS_0000_9999_MILLIS.start, 0)),
            Field::Timestamp(Timestamp::new(YEARS_0000_9999_MILLIS.start - 1, 0)),
            Field::Timestamp(Timestamp::new(YEARS_0000_9999_MILLIS.end - 1, 999_999)),
            Field::Timestamp(Timestamp::new(YEARS_0000_9999_MILLIS.end, 0)),
            Field::Time(Time(29_000)),
            Field::Bytes(b"\xff\x00 ab"),
        ];
        let formats = [
            CsvFormat::default(),
            CsvFormat::new(b';', Some(b'\''), Some(b'\\'), None),
            CsvFormat::new(b'|', None, None, None),
            CsvFormat::new(b' ', Some(b'"'), None, None),
            CsvFormat::new(b',', Some(b'0'), None, None),
            CsvFormat::new(b',', Some(b'"'), Some(b'-'), None),
            CsvFormat::new(b'\t', Some(b':'), Some(b'2'), None),
            // A space that forces no quotes (only the length rule does),
            // and one that is the escape char (doubled).
            CsvFormat::new(1, None, None, None),
            CsvFormat::new(b'\t', Some(2), None, None),
            CsvFormat::new(b',', Some(b'"'), Some(b' '), None),
        ];
        for mut f in formats {
            for v in values {
                let mut text = Vec::new();
                write_text_value(&mut text, v, b' ');
                let mut want = b"x,".to_vec();
                f.write_text(&mut want, &text);
                let mut got = b"x,".to_vec();
                f.begin_row(&mut got);
                f.field(&mut got, &v);
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{v:?} with {:?}",
                    (f.field_delimiter, f.quote, f.escape)
                );
            }
        }
    }

    #[test]
    fn json_escapes() {
        let mut out = Vec::new();
        write_json_string(&mut out, "a\"\\\n\u{1}\u{1f}/ü".as_bytes());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"\\\n\u0001\u001F/ü""#
        );
    }
}
