//! The newline-delimited json reader of the `filesystem` source, with Flink's
//! `json.*` options. Each line holds one object; only the keys naming columns
//! are kept (as raw spans, unescaped lazily); the last duplicate key wins; text
//! after the object's closing brace is ignored; blank lines are skipped; a line
//! that is not an object is a malformed row (skipped with
//! `json.ignore-parse-errors`, an error otherwise).

use super::files::{line_of_offset, RangeBuffer, Split};
use super::{Raw, Record, SharedInfo, SourceInfo};
use crate::error::{Error, Result};

/// The `json.*` options of a table.
#[derive(Clone, Debug, Default)]
pub struct JsonOptions {
    /// `json.fail-on-missing-field` (Flink rejects it together with ignore-parse-errors).
    pub fail_on_missing_field: bool,
    /// `json.timestamp-format.standard` = `ISO-8601`.
    pub iso8601: bool,
}

/// Kind of a kept value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Missing,
    Null,
    /// String without escapes: span is the content.
    Str,
    /// String with escapes: span into the decoded scratch buffer.
    StrDecoded,
    Number,
    True,
    False,
    Composite,
}

pub struct JsonReader {
    opts: JsonOptions,
    info: SharedInfo,
    input: RangeBuffer,
    values: Vec<(Kind, usize, usize)>,
    scratch: Vec<u8>,
    line: u64,
    first_split: bool,
    split_start: u64,
    pub skipped: u64,
}

impl JsonReader {
    pub fn open(split: &Split, opts: JsonOptions, info: SharedInfo) -> Result<Self> {
        let n = info.columns.len();
        Ok(JsonReader {
            opts,
            info,
            input: RangeBuffer::open(split)?,
            values: vec![(Kind::Missing, 0, 0); n],
            scratch: Vec::new(),
            line: 0,
            first_split: split.first,
            split_start: split.start,
            skipped: 0,
        })
    }

    pub fn bytes_read(&self) -> u64 {
        self.input.bytes_read
    }

    fn location(&self) -> String {
        location(
            &self.input.path,
            self.line,
            self.first_split,
            self.split_start,
        )
    }

    pub fn next_record(&mut self) -> Result<Option<JsonRecord<'_>>> {
        loop {
            if self.input.head_offset() >= self.input.end {
                return Ok(None);
            }
            let (start, end, consumed) = match memchr::memchr(b'\n', self.input.data()) {
                Some(nl) => (self.input.head, self.input.head + nl, nl + 1),
                None => {
                    if self.input.fill()? {
                        continue;
                    }
                    let d = self.input.data().len();
                    if d == 0 {
                        return Ok(None);
                    }
                    (self.input.head, self.input.head + d, d)
                }
            };
            self.input.head += consumed;
            self.line += 1;
            let line = &self.input.buf[start..end];
            if line.iter().all(|c| c.is_ascii_whitespace()) {
                continue;
            }
            for v in self.values.iter_mut() {
                *v = (Kind::Missing, 0, 0);
            }
            self.scratch.clear();
            let ok = parse_object(
                line,
                start,
                &self.info.columns,
                &mut self.values,
                &mut self.scratch,
            );
            if ok.is_none() {
                if self.info.ignore_parse_errors {
                    self.skipped += 1;
                    continue;
                }
                return Err(Error::new(format!(
                    "{}: malformed JSON row",
                    self.location()
                )));
            }
            if self.opts.fail_on_missing_field {
                if let Some(i) = self.values.iter().position(|v| v.0 == Kind::Missing) {
                    return Err(Error::new(format!(
                        "{}: column '{}': field is missing in the JSON row",
                        self.location(),
                        self.info.columns[i]
                    )));
                }
            }
            return Ok(Some(JsonRecord {
                buf: &self.input.buf,
                scratch: &self.scratch,
                values: &self.values,
                info: &self.info,
                iso8601: self.opts.iso8601,
                path: &self.input.path,
                line: self.line,
                first_split: self.first_split,
                split_start: self.split_start,
            }));
        }
    }
}

fn location(path: &std::path::Path, line: u64, first_split: bool, split_start: u64) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let line = if first_split {
        line
    } else {
        line_of_offset(path, split_start) + line - 1
    };
    format!("{name}:{line}")
}

/// Parses `{ "k": v, ... }` at the start of `line` (after whitespace). Spans are
/// absolute (`base` + offset). `None` if malformed.
fn parse_object(
    line: &[u8],
    base: usize,
    columns: &[String],
    values: &mut [(Kind, usize, usize)],
    scratch: &mut Vec<u8>,
) -> Option<()> {
    let mut p = Parser { s: line, i: 0 };
    p.ws();
    p.expect(b'{')?;
    p.ws();
    if p.peek()? == b'}' {
        return Some(());
    }
    loop {
        p.ws();
        let (ks, ke, kesc) = p.string()?;
        p.ws();
        p.expect(b':')?;
        p.ws();
        let key = &line[ks..ke];
        let col = if kesc {
            let mut k = Vec::new();
            unescape(key, &mut k)?;
            columns.iter().position(|c| c.as_bytes() == k.as_slice())
        } else {
            columns.iter().position(|c| c.as_bytes() == key)
        };
        let vstart = p.i;
        let kind = match p.peek()? {
            b'"' => {
                let (s, e, esc) = p.string()?;
                if esc {
                    let from = scratch.len();
                    unescape(&line[s..e], scratch)?;
                    if let Some(c) = col {
                        values[c] = (Kind::StrDecoded, from, scratch.len());
                    }
                } else if let Some(c) = col {
                    values[c] = (Kind::Str, base + s, base + e);
                }
                None
            }
            b'{' | b'[' => {
                p.skip_composite()?;
                Some(Kind::Composite)
            }
            b't' => {
                p.literal(b"true")?;
                Some(Kind::True)
            }
            b'f' => {
                p.literal(b"false")?;
                Some(Kind::False)
            }
            b'n' => {
                p.literal(b"null")?;
                Some(Kind::Null)
            }
            _ => {
                p.number()?;
                Some(Kind::Number)
            }
        };
        if let (Some(k), Some(c)) = (kind, col) {
            values[c] = (k, base + vstart, base + p.i);
        }
        p.ws();
        match p.next()? {
            b',' => continue,
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }
    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }
    fn literal(&mut self, lit: &[u8]) -> Option<()> {
        if self.s[self.i..].starts_with(lit) {
            self.i += lit.len();
            Some(())
        } else {
            None
        }
    }
    /// A string at `i`: returns content span and whether it has escapes.
    fn string(&mut self) -> Option<(usize, usize, bool)> {
        self.expect(b'"')?;
        let start = self.i;
        let mut esc = false;
        loop {
            let rel = memchr::memchr2(b'"', b'\\', &self.s[self.i..])?;
            self.i += rel;
            if self.s[self.i] == b'\\' {
                esc = true;
                self.i += 2;
                continue;
            }
            let end = self.i;
            self.i += 1;
            return Some((start, end, esc));
        }
    }
    /// JSON number grammar (strict: no NaN, no leading '+', no hex).
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let d = self.digits();
        if d == 0 {
            return None;
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        (self.i > start).then_some(())
    }
    fn digits(&mut self) -> usize {
        let s = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - s
    }
    fn skip_composite(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        return Some(());
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
    }
}

/// Decodes JSON string escapes (including `\uXXXX` surrogate pairs) into `out`.
fn unescape(s: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = *s.get(i + 1)?;
        i += 2;
        let ch = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = hex4(s.get(i..i + 4)?)?;
                i += 4;
                if (0xD800..0xDC00).contains(&hi) && s.get(i..i + 2) == Some(b"\\u") {
                    let lo = hex4(s.get(i + 2..i + 6)?)?;
                    i += 6;
                    char::from_u32(
                        0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF),
                    )?
                } else {
                    char::from_u32(hi).unwrap_or('\u{FFFD}')
                }
            }
            _ => return None,
        };
        let mut b = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
    }
    Some(())
}

fn hex4(h: &[u8]) -> Option<u32> {
    std::str::from_utf8(h)
        .ok()
        .and_then(|t| u32::from_str_radix(t, 16).ok())
}

/// A json object or array re-serialized compactly (whitespace outside strings
/// removed), as Flink hands a nested value to a STRING column.
pub fn compact(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut in_str = false;
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < raw.len() {
                out.push(raw[i + 1]);
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One json row: the kept values of the columns.
pub struct JsonRecord<'a> {
    buf: &'a [u8],
    scratch: &'a [u8],
    values: &'a [(Kind, usize, usize)],
    info: &'a SourceInfo,
    iso8601: bool,
    path: &'a std::path::Path,
    line: u64,
    first_split: bool,
    split_start: u64,
}

impl Record for JsonRecord<'_> {
    #[inline]
    fn raw(&self, col: usize) -> Raw<'_> {
        let Some(&(k, s, e)) = self.values.get(col) else {
            return Raw::Missing;
        };
        match k {
            Kind::Missing => Raw::Missing,
            Kind::Null => Raw::Null,
            Kind::Str => Raw::JsonString(&self.buf[s..e]),
            Kind::StrDecoded => Raw::JsonString(&self.scratch[s..e]),
            Kind::Number => Raw::JsonNumber(&self.buf[s..e]),
            Kind::True => Raw::JsonBool(true),
            Kind::False => Raw::JsonBool(false),
            Kind::Composite => Raw::JsonComposite(&self.buf[s..e]),
        }
    }

    fn location(&self) -> String {
        location(self.path, self.line, self.first_split, self.split_start)
    }

    fn info(&self) -> &SourceInfo {
        self.info
    }

    fn json_iso8601(&self) -> bool {
        self.iso8601
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects() {
        let cols: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let mut vals = vec![(Kind::Missing, 0, 0); 3];
        let mut scratch = Vec::new();
        let line = br#" {"a" : "x\ny", "z": {"q": [1, "}"]}, "b": -1.5e3, "c": [1, 2], "a": null} trailing"#;
        assert!(parse_object(line, 0, &cols, &mut vals, &mut scratch).is_some());
        assert_eq!(vals[0].0, Kind::Null);
        assert_eq!(&line[vals[1].1..vals[1].2], b"-1.5e3");
        assert_eq!(compact(&line[vals[2].1..vals[2].2]), "[1,2]");
        for bad in [
            &b"not json"[..],
            b"[1,2]",
            b"{\"a\":NaN}",
            b"{\"a\":1",
            b"{\"a\" 1}",
        ] {
            assert!(
                parse_object(bad, 0, &cols, &mut vals, &mut scratch).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let mut out = Vec::new();
        unescape(br"uni\u00e9\n\/\ud83d\ude00", &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "unié\n/😀");
    }
}
