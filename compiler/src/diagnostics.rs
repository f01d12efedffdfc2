//! Diagnostics are data: what went wrong, where, and what to do about it.
//!
//! Every pass reports into a [`Diagnostics`] list instead of stopping at the
//! first problem, so `stmtc check` shows every error of a job at once. Spans
//! are byte ranges into the job's [`SourceFile`]; rendering (a code frame via
//! codespan-reporting, or JSON for editors) happens only at the edge.

use std::fmt::Write as _;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::term;
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// A byte range in the job file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding about the job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Secondary locations that explain the primary one (`first defined here`).
    pub related: Vec<(Span, String)>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            related: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }
    /// `<what> is not supported by stmtc yet`: a construct stmtc does not
    /// implement, refused where it is written.
    pub fn unsupported(span: Span, what: &str) -> Self {
        Diagnostic::error(span, format!("{what} is not supported by stmtc yet"))
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }
}

/// The diagnostics of one job, in the order they were found.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::error(span, message));
    }
    /// Takes back the last diagnostic (to hand a nested failure to a caller
    /// that reports it again).
    pub(crate) fn take_last(&mut self) -> Option<Diagnostic> {
        self.items.pop()
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// All diagnostics sorted by position (stable: same position keeps report order),
    /// without exact duplicates (a view used twice reports its errors once).
    pub fn into_sorted(self) -> Vec<Diagnostic> {
        let mut items = self.items;
        items.sort_by_key(|d| (d.span.start, d.span.end));
        items.dedup();
        items
    }
}

/// The job file: its name as given on the command line, and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// Whether each line is ASCII: then a column is a byte offset, and
    /// converting a position costs nothing even on a 10 MB one-line file.
    ascii_lines: Vec<bool>,
}

/// A 1-based line and column (in characters), as editors show them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let ascii_lines = line_starts
            .iter()
            .enumerate()
            .map(|(i, &start)| {
                let end = line_starts.get(i + 1).copied().unwrap_or(text.len());
                text.as_bytes()[start..end].is_ascii()
            })
            .collect();
        SourceFile {
            name: name.into(),
            text,
            line_starts,
            ascii_lines,
        }
    }

    /// Byte offset of a 1-based line and character column (sqlparser's `Location`).
    /// Out-of-range positions clamp to the end of the line or file.
    pub fn offset(&self, line: u64, column: u64) -> usize {
        if line == 0 {
            return 0;
        }
        let Some(&start) = self.line_starts.get(line as usize - 1) else {
            return self.text.len();
        };
        let end = self
            .line_starts
            .get(line as usize)
            .map_or(self.text.len(), |&next| next);
        let line_text = &self.text[start..end];
        let chars = column.saturating_sub(1) as usize;
        if self.ascii_lines[line as usize - 1] {
            return start + chars.min(line_text.len());
        }
        start
            + line_text
                .char_indices()
                .nth(chars)
                .map_or(line_text.len(), |(i, _)| i)
    }

    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = if self.ascii_lines[line] {
            offset - start
        } else {
            self.text
                .get(start..offset)
                .map_or(offset - start, |s| s.chars().count())
        } + 1;
        LineCol {
            line: line + 1,
            column,
        }
    }

    pub fn snippet(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }
}

/// Renders diagnostics as `job.sql:12:5: error: ...` followed by a code frame.
///
/// A frame shows only the lines its labels touch. A line longer than
/// [`LONG_LINE`] characters (generated or minified SQL) is cut to windows of
/// [`WINDOW`] characters around each label end, with `…` where text was left
/// out, so the output stays proportional to the number of diagnostics, not to
/// their number times the line length. Locations stay exact.
pub fn render(file: &SourceFile, diagnostics: &[Diagnostic], color: bool) -> String {
    let config = term::Config::default();
    let mut out = String::new();
    for d in diagnostics {
        let at = file.line_col(d.span.start);
        let severity = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(
            out,
            "{}:{}:{}: {severity}: {}",
            file.name, at.line, at.column, d.message
        );
        let spans: Vec<std::ops::Range<usize>> = std::iter::once(d.span)
            .chain(d.related.iter().map(|(span, _)| *span))
            .map(|span| clamp(file, span))
            .collect();
        let frame = Frame::new(file, &spans, &config);
        let mut labels = vec![Label::primary((), frame.range(&spans[0]))];
        labels.extend(
            d.related.iter().zip(&spans[1..]).map(|((_, text), span)| {
                Label::secondary((), frame.range(span)).with_message(text)
            }),
        );
        let mut notes: Vec<String> = d.notes.iter().map(|n| format!("note: {n}")).collect();
        if let Some(help) = &d.help {
            notes.push(format!("help: {help}"));
        }
        let cs = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        }
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes);
        let rendered = if color {
            let mut buffer = Vec::new();
            let mut writer = term::termcolor::Ansi::new(&mut buffer);
            term::emit_to_write_style(&mut writer, &config, &frame, &cs)
                .map(|()| String::from_utf8_lossy(&buffer).into_owned())
        } else {
            term::emit_into_string(&config, &frame, &cs)
        };
        match rendered {
            // The frame repeats the headline, one line per line of the
            // message; keep ours (it carries file:line:col first).
            Ok(text) => {
                let headline = d.message.split('\n').count();
                out.push_str(text.splitn(headline + 1, '\n').nth(headline).unwrap_or(""));
            }
            Err(e) => {
                let _ = writeln!(out, "  (could not render the code frame: {e})");
            }
        }
    }
    out
}

/// Lines longer than this (in characters) are shown in windows.
pub const LONG_LINE: usize = 200;
/// Characters shown on each side of a label's start and end on a long line.
pub const WINDOW: usize = 60;
const ELLIPSIS: &str = "…";

/// The source one code frame needs: the lines its labels touch (long ones
/// cut to windows), in a small text of its own. Line indices are the real
/// ones; byte offsets are into `text`; locations map back to the real file.
/// Building it costs the size of the frame, not of the file.
struct Frame<'a> {
    file: &'a SourceFile,
    text: String,
    /// Sorted by line.
    lines: Vec<FrameLine>,
}

struct FrameLine {
    /// 0-based line index in the real file.
    line: usize,
    /// Byte range of the line (with its line break) in `Frame::text`.
    range: std::ops::Range<usize>,
    /// The kept pieces of the real line, in order.
    pieces: Vec<Piece>,
}

/// `len` bytes at `real` in the file are at `at` in the frame's text.
#[derive(Clone, Copy)]
struct Piece {
    real: usize,
    at: usize,
    len: usize,
}

impl<'a> Frame<'a> {
    /// `spans`: the clamped label ranges (on character boundaries).
    fn new(file: &'a SourceFile, spans: &[std::ops::Range<usize>], config: &term::Config) -> Self {
        let line_of = |offset: usize| file.line_starts.partition_point(|&s| s <= offset) - 1;
        // (line, offset) of every label end: the columns a frame points at.
        let mut points: Vec<(usize, usize)> = Vec::new();
        let mut shown: Vec<usize> = Vec::new();
        for span in spans {
            let (first, last) = (line_of(span.start), line_of(span.end));
            points.push((first, span.start));
            points.push((last, span.end));
            shown.push(first);
            shown.push(last);
            if first != last {
                // The lines codespan shows inside a multi-line label.
                let top = (first + 1..last).take(config.start_context_lines);
                let bottom = last.saturating_sub(config.end_context_lines).max(first + 1)..last;
                shown.extend(top.chain(bottom));
            }
        }
        shown.sort_unstable();
        shown.dedup();
        // codespan prints a single skipped line instead of a `·` break.
        let gaps: Vec<usize> = shown
            .windows(2)
            .filter(|w| w[1] - w[0] == 2)
            .map(|w| w[0] + 1)
            .collect();
        shown.extend(gaps);
        shown.sort_unstable();
        shown.dedup();
        points.sort_unstable();

        let mut frame = Frame {
            file,
            text: String::new(),
            lines: Vec::with_capacity(shown.len()),
        };
        for line in shown {
            let on_line: Vec<usize> = points
                .iter()
                .filter(|(l, _)| *l == line)
                .map(|(_, p)| *p)
                .collect();
            frame.push_line(line, &on_line);
        }
        frame
    }

    fn push_line(&mut self, line: usize, points: &[usize]) {
        let file = self.file;
        let start = file.line_starts[line];
        let end = file
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(file.text.len());
        // The line's text without its line break.
        let content_end = if file.text[start..end].ends_with('\n') {
            end - 1
        } else {
            end
        };
        let at = self.text.len();
        let ascii = file.ascii_lines[line];
        let content = &file.text[start..content_end];
        let long = content.len() > LONG_LINE && (ascii || content.chars().nth(LONG_LINE).is_some());
        let mut pieces = Vec::new();
        if !long {
            self.text.push_str(&file.text[start..end]);
            pieces.push(Piece {
                real: start,
                at,
                len: end - start,
            });
        } else {
            // Windows around each point, merged where they overlap.
            let back = |p: usize| -> usize {
                if ascii {
                    p.saturating_sub(WINDOW).max(start)
                } else {
                    file.text[start..p]
                        .char_indices()
                        .rev()
                        .take(WINDOW)
                        .last()
                        .map_or(p, |(i, _)| start + i)
                }
            };
            let forward = |p: usize| -> usize {
                if ascii {
                    (p + WINDOW).min(content_end)
                } else {
                    file.text[p..content_end]
                        .char_indices()
                        .nth(WINDOW)
                        .map_or(content_end, |(i, _)| p + i)
                }
            };
            let mut windows: Vec<(usize, usize)> = Vec::new();
            let points: Vec<usize> = if points.is_empty() {
                vec![start]
            } else {
                points.iter().map(|&p| p.min(content_end)).collect()
            };
            for p in points {
                let (from, to) = (back(p), forward(p));
                match windows.last_mut() {
                    Some(last) if from <= last.1 => last.1 = last.1.max(to),
                    _ => windows.push((from, to)),
                }
            }
            let mut cursor = start;
            for (from, to) in windows {
                if from > cursor {
                    self.text.push_str(ELLIPSIS);
                }
                pieces.push(Piece {
                    real: from,
                    at: self.text.len(),
                    len: to - from,
                });
                self.text.push_str(&file.text[from..to]);
                cursor = to;
            }
            if cursor < content_end {
                self.text.push_str(ELLIPSIS);
            }
            // The line break, where a label may end.
            pieces.push(Piece {
                real: content_end,
                at: self.text.len(),
                len: end - content_end,
            });
            self.text.push_str(&file.text[content_end..end]);
        }
        self.lines.push(FrameLine {
            line,
            range: at..self.text.len(),
            pieces,
        });
    }

    fn frame_line(&self, line: usize) -> Option<&FrameLine> {
        self.lines
            .binary_search_by_key(&line, |l| l.line)
            .ok()
            .map(|i| &self.lines[i])
    }

    /// A real offset (a label end) in the frame's text.
    fn offset(&self, real: usize) -> usize {
        let line = self.file.line_starts.partition_point(|&s| s <= real) - 1;
        let Some(l) = self.frame_line(line) else {
            return self.text.len();
        };
        l.pieces
            .iter()
            .find(|p| p.real <= real && real <= p.real + p.len)
            .map_or(l.range.start, |p| p.at + (real - p.real))
    }

    fn range(&self, real: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        self.offset(real.start)..self.offset(real.end)
    }

    /// The line of the frame's text holding `offset`.
    fn line_at(&self, offset: usize) -> Option<&FrameLine> {
        let i = self.lines.partition_point(|l| l.range.start <= offset);
        i.checked_sub(1).map(|i| &self.lines[i])
    }

    /// A frame offset back in the real file.
    fn real(&self, offset: usize) -> usize {
        let Some(l) = self.line_at(offset) else {
            return 0;
        };
        let piece = l
            .pieces
            .iter()
            .rev()
            .find(|p| p.at <= offset)
            .or(l.pieces.first());
        piece.map_or(0, |p| p.real + (offset.saturating_sub(p.at)).min(p.len))
    }
}

impl<'f> codespan_reporting::files::Files<'f> for Frame<'_> {
    type FileId = ();
    type Name = &'f str;
    type Source = &'f str;

    fn name(&'f self, (): ()) -> Result<&'f str, codespan_reporting::files::Error> {
        Ok(&self.file.name)
    }

    fn source(&'f self, (): ()) -> Result<&'f str, codespan_reporting::files::Error> {
        Ok(&self.text)
    }

    fn line_index(
        &'f self,
        (): (),
        offset: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self.line_at(offset).map_or(0, |l| l.line))
    }

    fn line_range(
        &'f self,
        (): (),
        line: usize,
    ) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        // Lines outside the frame are never printed.
        Ok(self
            .frame_line(line)
            .map_or(self.text.len()..self.text.len(), |l| l.range.clone()))
    }

    fn column_number(
        &'f self,
        (): (),
        _line: usize,
        offset: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self.file.line_col(self.real(offset)).column)
    }
}

fn clamp(file: &SourceFile, span: Span) -> std::ops::Range<usize> {
    let mut start = span.start.min(file.text.len());
    let mut end = span.end.clamp(start, file.text.len());
    while !file.text.is_char_boundary(start) {
        start -= 1;
    }
    while !file.text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// One diagnostic of [`to_json`], its fields in this order.
struct JsonDiagnostic<'a> {
    file: &'a str,
    severity: Severity,
    message: &'a str,
    start: LineCol,
    end: LineCol,
    notes: &'a [String],
    help: Option<&'a str>,
}

// Written out rather than derived: serde's derive macro would make the
// compiler build `syn` (README.md, "Run the tests").
impl Serialize for JsonDiagnostic<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut item = serializer.serialize_struct("JsonDiagnostic", 7)?;
        item.serialize_field("file", self.file)?;
        item.serialize_field(
            "severity",
            match self.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
        )?;
        item.serialize_field("message", self.message)?;
        item.serialize_field("start", &self.start)?;
        item.serialize_field("end", &self.end)?;
        item.serialize_field("notes", self.notes)?;
        item.serialize_field("help", &self.help)?;
        item.end()
    }
}

impl Serialize for LineCol {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut at = serializer.serialize_struct("LineCol", 2)?;
        at.serialize_field("line", &self.line)?;
        at.serialize_field("column", &self.column)?;
        at.end()
    }
}

/// Diagnostics as a JSON array, for editors and CI.
pub fn to_json(file: &SourceFile, diagnostics: &[Diagnostic]) -> String {
    let items: Vec<JsonDiagnostic<'_>> = diagnostics
        .iter()
        .map(|d| JsonDiagnostic {
            file: &file.name,
            severity: d.severity,
            message: &d.message,
            start: file.line_col(d.span.start),
            end: file.line_col(d.span.end),
            notes: &d.notes,
            help: d.help.as_deref(),
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_else(|e| format!("[] (internal error: {e})"))
}

/// Edit distance, for did-you-mean suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let cost = usize::from(!ca.eq_ignore_ascii_case(&cb));
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate to `name`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let limit = name.chars().count().div_ceil(3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, c)| (d, c.to_string()))
        .map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_line_columns_round_trip() {
        let file = SourceFile::new("job.sql", "SELECT 1;\n  héllo wörld\nlast");
        let off = file.offset(2, 9);
        assert_eq!(&file.text[off..off + 1], "w");
        assert_eq!(file.line_col(off), LineCol { line: 2, column: 9 });
        assert_eq!(file.offset(9, 1), file.text.len());
        assert_eq!(
            file.line_col(file.text.len()),
            LineCol { line: 3, column: 5 }
        );
    }

    /// What codespan prints for the whole file, without windows.
    fn plain_frame(file: &SourceFile, d: &Diagnostic) -> String {
        let files = codespan_reporting::files::SimpleFile::new(file.name.as_str(), &file.text);
        let mut labels = vec![Label::primary((), clamp(file, d.span))];
        labels.extend(
            d.related
                .iter()
                .map(|(s, t)| Label::secondary((), clamp(file, *s)).with_message(t)),
        );
        let cs = CsDiagnostic::error()
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(d.notes.iter().map(|n| format!("note: {n}")).collect());
        let text = term::emit_into_string(&term::Config::default(), &files, &cs).unwrap();
        text.split_once('\n').unwrap().1.to_string()
    }

    #[test]
    fn short_lines_render_as_codespan_does() {
        let text = "CREATE TABLE t (a INT)\n  WITH ('x' = 'y');\n\n-- é\nINSERT INTO s\nSELECT a\nFROM t\nWHERE b\n  AND c;\n";
        let file = SourceFile::new("job.sql", text);
        let at = |s: &str| text.find(s).unwrap();
        let diagnostics = [
            Diagnostic::error(Span::new(at("'x'"), at("'x'") + 3), "one line"),
            Diagnostic::error(Span::new(at("INSERT"), at("AND c") + 5), "many lines")
                .with_related(Span::new(at("a INT"), at("a INT") + 1), "here")
                .with_note("a note"),
            Diagnostic::error(Span::new(at("SELECT"), at("WHERE")), "to a line start"),
            Diagnostic::error(Span::new(text.len(), text.len()), "at the end"),
            Diagnostic::error(Span::new(at("é"), at("é") + 2), "unicode"),
        ];
        for d in &diagnostics {
            let ours = render(&file, std::slice::from_ref(d), false);
            let (head, frame) = ours.split_once('\n').unwrap();
            let at = file.line_col(d.span.start);
            assert_eq!(
                head,
                format!("job.sql:{}:{}: error: {}", at.line, at.column, d.message)
            );
            assert_eq!(frame, plain_frame(&file, d), "{}", d.message);
        }
    }

    #[test]
    fn a_message_of_several_lines_is_written_once() {
        // Flink's "Supported form(s)" messages list one form per line.
        let text = "INSERT INTO s SELECT LISTAGG(o) FROM t;\n";
        let file = SourceFile::new("job.sql", text);
        let start = text.find("LISTAGG").unwrap();
        let d = Diagnostic::error(Span::new(start, start + 10), "first\nsecond\nthird");
        let ours = render(&file, std::slice::from_ref(&d), false);
        assert_eq!(ours.matches("third").count(), 1, "{ours}");
        assert!(
            ours.starts_with("job.sql:1:22: error: first\nsecond\nthird\n  ┌─ job.sql:1:22\n"),
            "{ours}"
        );
    }

    #[test]
    fn long_lines_are_cut_to_windows_around_the_labels() {
        // 5,000 options on one line: each frame shows a window, not 100 KB.
        let options: Vec<String> = (0..5_000).map(|i| format!("'o{i}' = 'é{i}'")).collect();
        let text = format!(
            "CREATE TABLE t (a INT) WITH ({});\nINSERT INTO t SELECT 1;\n",
            options.join(", ")
        );
        let file = SourceFile::new("job.sql", text.as_str());
        let diagnostics: Vec<Diagnostic> = [0, 2_500, 4_999]
            .iter()
            .map(|i| {
                let name = format!("'o{i}'");
                let start = text.find(&format!("{name} =")).unwrap();
                Diagnostic::error(
                    Span::new(start, start + name.len()),
                    format!("unknown option {name}"),
                )
            })
            .collect();
        let out = render(&file, &diagnostics, false);
        assert!(out.len() < 3 * 1_000, "{} bytes", out.len());
        for (k, (d, block)) in diagnostics.iter().zip(out.split("\n\n")).enumerate() {
            let at = file.line_col(d.span.start);
            let lines: Vec<&str> = block.lines().collect();
            assert_eq!(
                lines[0],
                format!("job.sql:1:{}: error: {}", at.column, d.message)
            );
            assert!(
                lines[1].ends_with(&format!("┌─ job.sql:1:{}", at.column)),
                "{block}"
            );
            let source = lines.iter().find(|l| l.starts_with("1 │ ")).unwrap();
            let carets = lines.iter().find(|l| l.contains('^')).unwrap();
            assert!(
                source.chars().count() <= 4 + 2 * WINDOW + 2 * 13 + 2,
                "{source}"
            );
            // The carets sit under the label's characters.
            let col = carets.chars().position(|c| c == '^').unwrap();
            let width = carets.chars().filter(|&c| c == '^').count();
            let under: String = source.chars().skip(col).take(width).collect();
            assert_eq!(under, file.snippet(d.span), "{block}");
            // Cut on the sides where there is more text.
            assert_eq!(
                source.starts_with("1 │ …"),
                at.column > WINDOW + 1,
                "{source}"
            );
            assert_eq!(source.ends_with('…'), k < 2, "{source}");
        }
        // A label longer than two windows keeps its start and end.
        let long = Diagnostic::error(Span::new(30, text.find(";\n").unwrap()), "whole list")
            .with_related(Span::new(text.len() - 2, text.len() - 1), "second line");
        let out = render(&file, &[long], false);
        assert!(out.len() < 1_500, "{out}");
        assert!(out.contains("'o4999' = 'é4999'"), "{out}");
        assert!(out.contains("2 │ INSERT INTO t SELECT 1;"), "{out}");
        assert_eq!(out.matches('…').count(), 1, "{out}");
    }

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("pirce", ["price", "region"]).as_deref(),
            Some("price")
        );
        assert_eq!(did_you_mean("xyz", ["price", "region"]), None);
    }
}
