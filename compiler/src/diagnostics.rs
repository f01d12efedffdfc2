//! Diagnostics are data: what went wrong, where, and what to do about it.
//!
//! Every pass reports into a [`Diagnostics`] list instead of stopping at the
//! first problem, so `stmtc check` shows every error of a job at once. Spans
//! are byte ranges into the job's [`SourceFile`]; rendering (a code frame via
//! codespan-reporting, or JSON for editors) happens only at the edge.

use std::fmt::Write as _;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;
use serde::Serialize;

/// A byte range in the job file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
pub fn render(file: &SourceFile, diagnostics: &[Diagnostic], color: bool) -> String {
    let files = SimpleFile::new(file.name.as_str(), file.text.as_str());
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
        let mut labels = vec![Label::primary((), clamp(file, d.span))];
        labels.extend(
            d.related
                .iter()
                .map(|(span, text)| Label::secondary((), clamp(file, *span)).with_message(text)),
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
            term::emit_to_write_style(&mut writer, &config, &files, &cs)
                .map(|()| String::from_utf8_lossy(&buffer).into_owned())
        } else {
            term::emit_into_string(&config, &files, &cs)
        };
        match rendered {
            // The frame repeats the headline; keep ours (it carries file:line:col first).
            Ok(text) => out.push_str(text.split_once('\n').map_or("", |(_, rest)| rest)),
            Err(e) => {
                let _ = writeln!(out, "  (could not render the code frame: {e})");
            }
        }
    }
    out
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

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    file: &'a str,
    severity: Severity,
    message: &'a str,
    start: LineCol,
    end: LineCol,
    notes: &'a [String],
    help: Option<&'a str>,
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

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("pirce", ["price", "region"]).as_deref(),
            Some("price")
        );
        assert_eq!(did_you_mean("xyz", ["price", "region"]), None);
    }
}
