//! The oracle every robustness case must satisfy, and the case mix.
//!
//! Compiled into the `stmtc-fuzz` crate and, through `#[path]`, into
//! the test suite (`compiler/tests/suite/main.rs`, which also declares `mod generator`).
#![allow(dead_code)]

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

use stmtc::diagnostics::{Severity, SourceFile};

/// How every diagnostic of a caught panic in stmtc begins.
pub const INTERNAL_ERROR: &str = "internal error in stmtc";

/// What a case did, when it broke no rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `check` accepted it, `explain` printed a plan in every format, and
    /// `compile` generated a crate whose `main.rs` parses: a job `check`
    /// accepts compiles (`check` runs code generation too).
    Accepted,
    /// `check` rejected it with located errors.
    Rejected,
}

/// A broken rule.
#[derive(Clone, Debug)]
pub struct Finding {
    /// A short stable key for grouping (no positions, no names from the input).
    pub kind: String,
    /// The details: the diagnostic, the span, the panic message.
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

fn finding(kind: impl Into<String>, detail: impl Into<String>) -> Finding {
    Finding {
        kind: kind.into(),
        detail: detail.into(),
    }
}

/// The message of an internal error without the parts that vary between
/// inputs, for grouping findings: `internal error ...: index out of bounds:
/// the len is 3 but the index is 7` -> `internal error ...: index out of
/// bounds: the len is # but the index is #`.
pub fn signature(message: &str) -> String {
    let mut out = String::new();
    let mut in_digits = false;
    for c in message.chars().take(200) {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

fn base_dir() -> PathBuf {
    // An empty directory: cost estimates look up source paths relative to it.
    let dir = std::env::temp_dir().join("stmtc-fuzz-empty");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Runs check (and, when accepted, explain in every format and compile) on
/// `text` and checks every rule.
pub fn run_case(text: &str) -> Result<Outcome, Finding> {
    run_case_with(text, true)
}

/// [`run_case`] with one `explain` (text, with every detail) instead of one
/// per format, without rendering the diagnostics in color and without
/// `compile`: for big inputs.
pub fn run_case_light(text: &str) -> Result<Outcome, Finding> {
    run_case_with(text, false)
}

fn run_case_with(text: &str, thorough: bool) -> Result<Outcome, Finding> {
    let file = SourceFile::new("fuzz.sql", text);
    let checked = stmtc::check(file.clone());
    let len = text.len();
    for d in &checked.diagnostics {
        // The exact prefix of stmtc's caught panics (lib.rs, `guarded`): a
        // user string echoed in a message may contain "internal error".
        if d.message.starts_with(INTERNAL_ERROR) {
            return Err(finding(
                format!("internal error (check): {}", signature(&d.message)),
                format!("{} at {}..{}", d.message, d.span.start, d.span.end),
            ));
        }
        let spans = std::iter::once(&d.span).chain(d.related.iter().map(|(s, _)| s));
        for s in spans {
            if s.start > s.end || s.end > len {
                return Err(finding(
                    "span outside the file",
                    format!(
                        "{}..{} in a file of {len} bytes: {}",
                        s.start, s.end, d.message
                    ),
                ));
            }
            if !text.is_char_boundary(s.start) || !text.is_char_boundary(s.end) {
                return Err(finding(
                    "span not on a character boundary",
                    format!("{}..{}: {}", s.start, s.end, d.message),
                ));
            }
        }
        if d.message.trim().is_empty() {
            return Err(finding(
                "empty diagnostic message",
                format!("at {}..{}", d.span.start, d.span.end),
            ));
        }
    }
    let bound = checked.summary() != "nothing bound";
    if !bound && !checked.has_errors() {
        return Err(finding(
            "rejected without an error",
            format!("diagnostics: {:?}", checked.diagnostics),
        ));
    }
    if bound && checked.has_errors() {
        return Err(finding(
            "bound despite errors",
            checked.render_diagnostics(false),
        ));
    }
    // Rendering must not panic either (it is outside stmtc's guard).
    let rendered = panic::catch_unwind(AssertUnwindSafe(|| {
        let text = checked.render_diagnostics(false);
        if thorough {
            let _ = checked.render_diagnostics(true);
        }
        let json = checked.diagnostics_json();
        let _ = checked.bound_text();
        (text, json)
    }));
    let (rendered_text, json) = match rendered {
        Ok(r) => r,
        Err(p) => return Err(finding("rendering panicked", panic_message(&*p))),
    };
    if rendered_text.contains("could not render the code frame") {
        return Err(finding("code frame not rendered", rendered_text));
    }
    if !json.trim_start().starts_with('[') {
        return Err(finding("diagnostics JSON is not a list", json));
    }
    if checked.has_errors() {
        return Ok(Outcome::Rejected);
    }
    let formats = [
        stmtc::ExplainFormat::Text,
        stmtc::ExplainFormat::Json,
        stmtc::ExplainFormat::Dot,
        stmtc::ExplainFormat::Mermaid,
    ];
    let formats = if thorough {
        &formats[..]
    } else {
        &formats[..1]
    };
    for (i, &format) in formats.iter().enumerate() {
        let options = stmtc::ExplainOptions {
            format,
            changelog: i % 2 == 0,
            cost: i < 2,
            base_dir: base_dir(),
        };
        let mut passes = 0usize;
        let mut trace = |_: &str, plan: &str| passes += plan.len().min(1);
        let trace: Option<stmtc::TraceFn<'_>> = if i == 0 { Some(&mut trace) } else { None };
        match stmtc::explain(file.clone(), &options, trace) {
            Ok(plan) => {
                if format == stmtc::ExplainFormat::Json && !plan.trim_start().starts_with('{') {
                    return Err(finding("explain JSON is not an object", plan));
                }
            }
            Err(c) => {
                let first = c
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == Severity::Error)
                    .map(|d| d.message.clone())
                    .unwrap_or_default();
                let kind = if first.starts_with(INTERNAL_ERROR) {
                    format!("internal error (explain): {}", signature(&first))
                } else {
                    "explain rejected a job check accepted".to_string()
                };
                return Err(finding(kind, c.render_diagnostics(false)));
            }
        }
    }
    if thorough {
        compile_case(&file)?;
    }
    Ok(Outcome::Accepted)
}

/// Stack for parsing generated code: `syn` recurses once per nesting level
/// of the job's expressions (reserved, not committed; as stmtc's own).
const SYN_STACK: usize = 1 << 30;

/// Runs `compile` on a job `check` accepted: a crate whose `src/main.rs` is
/// valid Rust. Any refusal breaks "check ok => compile ok"; its kind says
/// whether it was at least located.
fn compile_case(file: &SourceFile) -> Result<(), Finding> {
    let len = file.text.len();
    // A runtime path instead of the vendored runtime: the job's own files only.
    let runtime = stmtc::RuntimeLocation::Path("../runtime".to_string());
    match stmtc::compile(file.clone(), &runtime, Some("fuzz_job"), None) {
        Ok(compiled) => {
            let Some((_, main_rs)) = compiled
                .files
                .into_iter()
                .find(|(p, _)| p == std::path::Path::new("src/main.rs"))
            else {
                return Err(finding("compile wrote no src/main.rs", String::new()));
            };
            let parsed = std::thread::Builder::new()
                .stack_size(SYN_STACK)
                .spawn(move || {
                    syn::parse_file(&main_rs)
                        .map(drop)
                        .map_err(|e| (e, main_rs))
                })
                .map_err(|e| finding("cannot start the syn thread", e.to_string()))?
                .join();
            match parsed {
                Ok(Ok(())) => Ok(()),
                Ok(Err((e, main_rs))) => Err(finding(
                    format!(
                        "generated main.rs does not parse: {}",
                        signature(&e.to_string())
                    ),
                    format!("{e} (main.rs of {} lines)", main_rs.lines().count()),
                )),
                Err(p) => Err(finding("syn panicked", panic_message(&*p))),
            }
        }
        Err(c) => {
            let errors: Vec<_> = c
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            if errors.is_empty() {
                return Err(finding(
                    "compile failed without an error",
                    c.render_diagnostics(false),
                ));
            }
            for d in &errors {
                // Codegen reports its own bugs (a template that does not
                // render) as `internal: ...`.
                if d.message.starts_with(INTERNAL_ERROR) || d.message.starts_with("internal") {
                    return Err(finding(
                        format!("internal error (compile): {}", signature(&d.message)),
                        c.render_diagnostics(false),
                    ));
                }
                if d.span.end > len || d.span.start > d.span.end || d.span == Default::default() {
                    return Err(finding(
                        "compile error without a location",
                        format!("{}..{}: {}", d.span.start, d.span.end, d.message),
                    ));
                }
            }
            Err(finding(
                "compile refused a job check accepted",
                c.render_diagnostics(false),
            ))
        }
    }
}

pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// The fixture jobs (`<root>/*/job.sql`), the seeds of mutation.
pub fn fixture_jobs(root: &std::path::Path) -> Vec<(String, String)> {
    let mut jobs = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let p = e.path().join("job.sql");
            if let Ok(text) = std::fs::read_to_string(&p) {
                jobs.push((e.file_name().to_string_lossy().into_owned(), text));
            }
        }
    }
    jobs.sort();
    jobs
}

/// One generated case from a random source: a whole generated job (clean or
/// hostile), a mutated fixture or generated job, or a small resource shape.
///
/// Resource shapes get sizes up to `resource_max` (the 10 MB file up to
/// 70 times that many bytes).
pub fn any_case(rng: &mut crate::generator::Rng, fixtures: &[&str], resource_max: usize) -> String {
    use crate::generator::*;
    match rng.below(20) {
        0..=5 => job(rng, 0),
        6..=9 => {
            let chaos = rng.range(2, 30) as u32;
            job(rng, chaos)
        }
        10..=15 if !fixtures.is_empty() => {
            let seed = *rng.pick(fixtures);
            mutate(rng, seed, fixtures)
        }
        16..=18 => {
            let chaos = rng.range(0, 10) as u32;
            let base = job(rng, chaos);
            mutate(rng, &base, fixtures)
        }
        _ => {
            let shape = *rng.pick(SHAPES);
            let n = if shape == Shape::BigFile {
                rng.small(70 * resource_max)
            } else {
                rng.small(resource_max)
            };
            resource(shape, n)
        }
    }
}
