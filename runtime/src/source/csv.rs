//! The csv reader of the `filesystem` source, with Flink's `csv.*` options and
//! Jackson's parsing rules as Flink 2.3 applies them (see FLINK-NOTES.md):
//! quotes open only at a field's start and are doubled inside; the escape char
//! takes the next char literally (inside and outside quotes); quoted fields may
//! span lines; CRLF line ends are accepted; with `csv.allow-comments`, lines
//! starting with `#` and blank lines are skipped; without it, a blank line is a
//! record with one empty field.
//!
//! Unquoted records are handed out zero-copy (field spans into the read
//! buffer); only records with quotes or escapes are decoded into a scratch buffer.

use super::csv_split::{split_line, LineSplit};
use super::files::{line_of_offset, RangeBuffer, Split};
use super::{Raw, Record, SharedInfo, SourceInfo};
use crate::error::{Error, Result};

/// The `csv.*` options of a table.
#[derive(Clone, Debug)]
pub struct CsvOptions {
    pub field_delimiter: u8,
    /// `None` with `csv.disable-quote-character` = true.
    pub quote: Option<u8>,
    pub allow_comments: bool,
    pub escape: Option<u8>,
    pub null_literal: Option<Vec<u8>>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            field_delimiter: b',',
            quote: Some(b'"'),
            allow_comments: false,
            escape: None,
            null_literal: None,
        }
    }
}

impl CsvOptions {
    /// The boundary rule for splitting files read with these options.
    pub fn boundary(&self) -> super::files::Boundary {
        super::files::Boundary {
            quote: self.quote,
            escape: self.escape,
        }
    }
}

/// Reads the records of one split.
pub struct CsvReader {
    opts: CsvOptions,
    info: SharedInfo,
    input: RangeBuffer,
    /// Field spans of the current record: into the input buffer (`decoded` false)
    /// or into `scratch`.
    spans: Vec<(usize, usize)>,
    decoded: bool,
    /// The record just decoded at end of file ended inside quotes.
    unterminated: bool,
    scratch: Vec<u8>,
    /// Line of the current record, relative to the split start (1-based).
    line: u64,
    /// Line to use for the next record.
    next_line: u64,
    first_split: bool,
    split_start: u64,
    /// The split's end was guessed: the last record must end exactly there.
    end_guessed: bool,
    /// Rows skipped because they were malformed (with ignore-parse-errors).
    pub skipped: u64,
    done: bool,
    /// The quote and escape chars for [`split_line`] (`\n` for an absent
    /// one), or `None` when the delimiter rules the fast split out.
    split_specials: Option<[u8; 2]>,
}

/// The specials argument of [`split_line`] for these options, if it applies.
fn split_specials(opts: &CsvOptions) -> Option<[u8; 2]> {
    let specials = [opts.quote.unwrap_or(b'\n'), opts.escape.unwrap_or(b'\n')];
    let d = opts.field_delimiter;
    (d != b'\n' && d != b'\r' && !specials.contains(&d)).then_some(specials)
}

impl CsvReader {
    pub fn open(split: &Split, opts: CsvOptions, info: SharedInfo) -> Result<Self> {
        let opts_for_split = opts.clone();
        Ok(CsvReader {
            opts,
            info,
            input: RangeBuffer::open(split)?,
            spans: Vec::with_capacity(32),
            decoded: false,
            unterminated: false,
            scratch: Vec::new(),
            line: 0,
            next_line: 1,
            first_split: split.first,
            split_start: split.start,
            end_guessed: split.end_guessed,
            skipped: 0,
            done: false,
            split_specials: split_specials(&opts_for_split),
        })
    }

    /// Bytes read from the file so far (progress reporting).
    pub fn bytes_read(&self) -> u64 {
        self.input.bytes_read
    }

    /// The next record, or `None` at the end of the split.
    ///
    /// Inlined into the scan loop, so the record's fields are built where
    /// they are read: returned from the out-of-line parse through memory,
    /// the record was copied back in pieces of other widths, and the copy
    /// stalled on store forwarding.
    #[inline(always)]
    pub fn next_record(&mut self) -> Result<Option<CsvRecord<'_>>> {
        if !self.advance()? {
            return Ok(None);
        }
        let buf: &[u8] = if self.decoded {
            &self.scratch
        } else {
            &self.input.buf
        };
        Ok(Some(CsvRecord {
            buf,
            spans: &self.spans,
            reader_info: &self.info,
            null_literal: self.opts.null_literal.as_deref(),
            path: &self.input.path,
            line: self.line,
            first_split: self.first_split,
            split_start: self.split_start,
        }))
    }

    /// Parses the next record into `spans`; `false` at the end of the split.
    fn advance(&mut self) -> Result<bool> {
        loop {
            if self.done {
                return Ok(false);
            }
            if self.input.head_offset() >= self.input.end {
                self.done = true;
                if self.end_guessed && self.input.head_offset() != self.input.end {
                    // The next split started inside this split's last record.
                    return Err(Error::guessed_split(&self.input.path, self.input.end));
                }
                return Ok(false);
            }
            if self.input.data().is_empty() && !self.input.fill()? {
                self.done = true;
                return Ok(false);
            }
            // Parse one record; on "need more data" refill and retry from its start.
            match self.parse_record()? {
                Parsed::NeedMore => {
                    if !self.input.fill()? {
                        // Final record without a trailing newline.
                        match self.parse_record_at_eof()? {
                            Parsed::Record => {}
                            Parsed::Skip => continue,
                            Parsed::NeedMore => {
                                self.done = true;
                                return Ok(false);
                            }
                        }
                    } else {
                        continue;
                    }
                }
                Parsed::Skip => continue,
                Parsed::Record => {}
            }
            if std::mem::take(&mut self.unterminated) {
                // A quote opened in the last record is never closed: Jackson
                // fails ("Missing closing quote"); so do we, or skip the row.
                if self.info.ignore_parse_errors {
                    self.skipped += 1;
                    continue;
                }
                return Err(Error::new(format!(
                    "{}: a quoted field is not closed before the end of the file",
                    self.location()
                )));
            }
            let ncols = self.info.columns.len();
            let n = self.spans.len();
            let blank = n == 1 && self.spans[0].0 == self.spans[0].1;
            if n > ncols || (blank && ncols > 1) {
                if self.info.ignore_parse_errors && !(blank && ncols > 1) {
                    self.skipped += 1;
                    continue;
                }
                if !self.info.ignore_parse_errors {
                    return Err(Error::new(format!(
                        "{}: expected {} fields but found {}",
                        self.location(),
                        ncols,
                        n
                    )));
                }
            }
            return Ok(true);
        }
    }

    fn location(&self) -> String {
        format_location(
            &self.input.path,
            self.line,
            self.first_split,
            self.split_start,
        )
    }

    /// Parses the record at the buffer head. Consumes it on success.
    fn parse_record(&mut self) -> Result<Parsed> {
        let data = self.input.data();
        let head = self.input.head;
        // Comments and blank lines.
        if self.opts.allow_comments {
            match data.first() {
                Some(b'#') | Some(b'\n') | Some(b'\r') => {
                    let Some(nl) = memchr::memchr(b'\n', data) else {
                        return Ok(Parsed::NeedMore);
                    };
                    if data[0] == b'#' || data[..nl].iter().all(|&c| c == b'\r') {
                        self.input.head += nl + 1;
                        self.next_line += 1;
                        return Ok(Parsed::Skip);
                    }
                }
                _ => {}
            }
        }
        if let Some(specials) = self.split_specials {
            match split_line(
                data,
                head,
                self.opts.field_delimiter,
                specials,
                &mut self.spans,
            ) {
                LineSplit::Line(nl) => {
                    self.decoded = false;
                    self.input.head += nl + 1;
                    self.line = self.next_line;
                    self.next_line += 1;
                    return Ok(Parsed::Record);
                }
                LineSplit::NeedMore => return Ok(Parsed::NeedMore),
                LineSplit::Special => return self.parse_decoded(),
            }
        }
        let Some(nl) = memchr::memchr(b'\n', data) else {
            return Ok(Parsed::NeedMore);
        };
        let line = &data[..nl];
        let special = match (self.opts.quote, self.opts.escape) {
            (Some(q), Some(e)) => memchr::memchr2(q, e, line).is_some(),
            (Some(q), None) => memchr::memchr(q, line).is_some(),
            (None, Some(e)) => memchr::memchr(e, line).is_some(),
            (None, None) => false,
        };
        if !special {
            // Fast path: split the line at delimiters, spans into the buffer.
            let content = if line.last() == Some(&b'\r') {
                &line[..nl - 1]
            } else {
                line
            };
            self.spans.clear();
            let mut start = 0;
            for i in memchr::memchr_iter(self.opts.field_delimiter, content) {
                self.spans.push((head + start, head + i));
                start = i + 1;
            }
            self.spans.push((head + start, head + content.len()));
            self.decoded = false;
            self.input.head += nl + 1;
            self.line = self.next_line;
            self.next_line += 1;
            return Ok(Parsed::Record);
        }
        self.parse_decoded()
    }

    /// The record at the buffer head through the decoding slow path.
    fn parse_decoded(&mut self) -> Result<Parsed> {
        match self.decode(false) {
            Some((consumed, newlines)) => {
                self.input.head += consumed;
                self.line = self.next_line;
                self.next_line += newlines;
                Ok(Parsed::Record)
            }
            None => Ok(Parsed::NeedMore),
        }
    }

    /// At end of file: the rest of the buffer is the last record (no newline).
    fn parse_record_at_eof(&mut self) -> Result<Parsed> {
        if self.input.data().is_empty() {
            return Ok(Parsed::NeedMore);
        }
        if self.opts.allow_comments {
            let d = self.input.data();
            if d[0] == b'#' || d.iter().all(|&c| c == b'\r') {
                self.input.head = self.input.tail;
                return Ok(Parsed::Skip);
            }
        }
        match self.decode(true) {
            Some((consumed, _)) => {
                self.input.head += consumed;
                self.line = self.next_line;
                self.next_line += 1;
                Ok(Parsed::Record)
            }
            None => Ok(Parsed::NeedMore),
        }
    }

    /// Slow path: decodes one record into `scratch`. Returns bytes consumed and
    /// lines spanned, or `None` if the record continues past the buffered data
    /// (unless `at_eof`, where an unterminated record ends at the data's end).
    fn decode(&mut self, at_eof: bool) -> Option<(usize, u64)> {
        let data = &self.input.buf[self.input.head..self.input.tail];
        let delim = self.opts.field_delimiter;
        let quote = self.opts.quote;
        let esc = self.opts.escape;
        self.scratch.clear();
        self.spans.clear();
        let mut i = 0;
        let mut newlines = 1u64;
        let mut field_start = 0usize;
        let mut in_quotes = false;
        let mut at_field_start = true;
        loop {
            if i >= data.len() {
                if !at_eof {
                    return None;
                }
                self.unterminated = in_quotes;
                let mut end = self.scratch.len();
                if !in_quotes && end > field_start && self.scratch[end - 1] == b'\r' {
                    end -= 1;
                    self.scratch.truncate(end);
                }
                self.spans.push((field_start, end));
                self.decoded = true;
                return Some((i, newlines));
            }
            let c = data[i];
            if let Some(e) = esc {
                if c == e {
                    if i + 1 >= data.len() {
                        if !at_eof {
                            return None;
                        }
                        i += 1;
                        continue;
                    }
                    self.scratch.push(data[i + 1]);
                    if data[i + 1] == b'\n' {
                        newlines += 1;
                    }
                    i += 2;
                    at_field_start = false;
                    continue;
                }
            }
            if in_quotes {
                if Some(c) == quote {
                    if i + 1 < data.len() && Some(data[i + 1]) == quote {
                        self.scratch.push(c);
                        i += 2;
                        continue;
                    }
                    if i + 1 >= data.len() && !at_eof {
                        return None;
                    }
                    in_quotes = false;
                    i += 1;
                    continue;
                }
                if c == b'\n' {
                    newlines += 1;
                }
                self.scratch.push(c);
                i += 1;
                continue;
            }
            if at_field_start && Some(c) == quote {
                in_quotes = true;
                at_field_start = false;
                i += 1;
                continue;
            }
            if c == delim {
                self.spans.push((field_start, self.scratch.len()));
                field_start = self.scratch.len();
                at_field_start = true;
                i += 1;
                continue;
            }
            if c == b'\n' {
                let mut end = self.scratch.len();
                if end > field_start && self.scratch[end - 1] == b'\r' {
                    end -= 1;
                    self.scratch.truncate(end);
                }
                self.spans.push((field_start, end));
                self.decoded = true;
                return Some((i + 1, newlines));
            }
            self.scratch.push(c);
            at_field_start = false;
            i += 1;
        }
    }
}

enum Parsed {
    Record,
    Skip,
    NeedMore,
}

fn format_location(
    path: &std::path::Path,
    line: u64,
    first_split: bool,
    split_start: u64,
) -> String {
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

/// One csv record: field spans into a buffer owned by the reader.
pub struct CsvRecord<'a> {
    buf: &'a [u8],
    spans: &'a [(usize, usize)],
    reader_info: &'a SourceInfo,
    null_literal: Option<&'a [u8]>,
    path: &'a std::path::Path,
    line: u64,
    first_split: bool,
    split_start: u64,
}

impl CsvRecord<'_> {
    /// Number of fields in the record.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The field's bytes (after unquoting), or `None` past the record's end.
    #[inline(always)]
    pub fn field(&self, col: usize) -> Option<&[u8]> {
        self.spans.get(col).map(|&(s, e)| &self.buf[s..e])
    }

    /// 1-based line of the record in its file.
    pub fn line(&self) -> u64 {
        self.line
    }
}

impl Record for CsvRecord<'_> {
    #[inline]
    fn raw(&self, col: usize) -> Raw<'_> {
        match self.field(col) {
            None => Raw::Missing,
            Some(f) if Some(f) == self.null_literal => Raw::Null,
            Some(f) => Raw::CsvText(f),
        }
    }

    fn location(&self) -> String {
        format_location(self.path, self.line, self.first_split, self.split_start)
    }

    fn info(&self) -> &SourceInfo {
        self.reader_info
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn an_unclosed_quote_fails_or_is_skipped() {
        let dir = std::env::temp_dir().join(format!("stmtc-csv-unclosed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("u.csv");
        let text = b"1,ok\n2,\"never closed\n3,x\n";
        std::fs::write(&p, text).unwrap();
        let split = Split {
            path: p.clone(),
            file_index: 0,
            start: 0,
            end: text.len() as u64,
            first: true,
            end_guessed: false,
        };
        for ignore in [false, true] {
            let info = Arc::new(SourceInfo {
                columns: vec!["a".into(), "b".into()],
                ignore_parse_errors: ignore,
            });
            let mut r = CsvReader::open(&split, CsvOptions::default(), info).unwrap();
            assert!(r.next_record().unwrap().is_some());
            match r.next_record() {
                Err(e) => {
                    assert!(!ignore);
                    assert!(
                        e.message().ends_with(
                            "u.csv:2: a quoted field is not closed before the end of the file"
                        ),
                        "{}",
                        e.message()
                    );
                }
                Ok(rec) => {
                    assert!(ignore && rec.is_none());
                    assert_eq!(r.skipped, 1);
                }
            }
        }
    }

    /// Ranges cut at guessed line breaks read the same records as one
    /// exact range, or the range before a wrong guess says so.
    #[test]
    fn a_guessed_cut_inside_a_quoted_field_is_found_by_the_range_before_it() {
        use crate::source::files::{plan_splits_guessing, plan_splits_with_min};
        let dir = std::env::temp_dir().join(format!("stmtc-csv-guess-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("g.csv");
        let info = Arc::new(SourceInfo {
            columns: vec!["a".into(), "b".into()],
            ignore_parse_errors: false,
        });
        let read = |splits: &[Split]| -> Result<Vec<String>> {
            let mut out = Vec::new();
            for split in splits {
                let mut r = CsvReader::open(split, CsvOptions::default(), info.clone())?;
                while let Some(rec) = r.next_record()? {
                    out.push(format!("{:?}|{:?}", rec.str(0)?, rec.str(1)?));
                }
            }
            Ok(out)
        };
        let b = CsvOptions::default().boundary();
        // The cut (byte 15 of 30) falls inside the quoted field: the line
        // break after it is not a record boundary.
        let wrong = b"1,one\n2,\"two\nlines\nof it\"\n";
        // The cut falls between records.
        let right = b"1,one\n2,two\n3,three\n4,four\n";
        for (text, guessed_right) in [(&wrong[..], false), (&right[..], true)] {
            std::fs::write(&p, text).unwrap();
            let files = [p.clone()];
            let exact = read(&plan_splits_with_min(&files, 2, b, 1).unwrap()).unwrap();
            let guessed = plan_splits_guessing(&files, 2, b, 1).unwrap();
            assert_eq!(guessed.len(), 2);
            assert!(guessed[0].end_guessed && !guessed[1].end_guessed);
            match read(&guessed) {
                Ok(rows) => {
                    assert!(guessed_right);
                    assert_eq!(rows, exact);
                }
                Err(e) => {
                    assert!(!guessed_right && e.is_guessed_split(), "{}", e.message());
                    assert!(
                        e.message().contains("inside a quoted field"),
                        "{}",
                        e.message()
                    );
                }
            }
            // Without quoting every line break ends a record: nothing is guessed.
            let plain = plan_splits_guessing(
                &files,
                2,
                crate::source::files::Boundary {
                    quote: None,
                    escape: None,
                },
                1,
            )
            .unwrap();
            assert!(plain.iter().all(|s| !s.end_guessed));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Reads `text` as one csv file and returns the fields of every record.
    pub(crate) fn read_all(
        text: &[u8],
        opts: CsvOptions,
        ncols: usize,
    ) -> Vec<Vec<Option<String>>> {
        let dir = std::env::temp_dir().join(format!(
            "stmtc-csv-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.csv");
        std::fs::write(&p, text).unwrap();
        let split = Split {
            path: p.clone(),
            file_index: 0,
            start: 0,
            end: text.len() as u64,
            first: true,
            end_guessed: false,
        };
        let info = Arc::new(SourceInfo {
            columns: (0..ncols).map(|i| format!("c{i}")).collect(),
            ignore_parse_errors: true,
        });
        let mut r = CsvReader::open(&split, opts, info).unwrap();
        let mut out = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            out.push(
                (0..ncols)
                    .map(|i| rec.str(i).unwrap().map(|s| s.into_owned()))
                    .collect(),
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
        out
    }

    fn s(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn quoting_escaping_and_lines() {
        let rows = read_all(
            b"a,\"x,\"\"y\"\"\"\r\nb,\"multi\nline\"\nc,x\\,y\nd",
            CsvOptions::default(),
            2,
        );
        assert_eq!(rows[0], vec![s("a"), s("x,\"y\"")]);
        assert_eq!(rows[1], vec![s("b"), s("multi\nline")]);
        assert_eq!(rows.len(), 3, "c has 3 fields and is skipped: {rows:?}");
        assert_eq!(rows[2], vec![s("d"), None]);
        let opts = CsvOptions {
            field_delimiter: b';',
            quote: Some(b'\''),
            allow_comments: true,
            escape: Some(b'\\'),
            null_literal: Some(b"NA".to_vec()),
        };
        let rows = read_all(b"a;'x;y'\n#c;z\n\nb;x\\;y\ne;NA\nd;'e\\'s'", opts, 2);
        assert_eq!(
            rows,
            vec![
                vec![s("a"), s("x;y")],
                vec![s("b"), s("x;y")],
                vec![s("e"), None],
                vec![s("d"), s("e's")]
            ]
        );
        let noq = CsvOptions {
            quote: None,
            ..CsvOptions::default()
        };
        let rows = read_all(b"\"e\",\"a\n", noq, 2);
        assert_eq!(rows, vec![vec![s("\"e\""), s("\"a")]]);
    }
}
