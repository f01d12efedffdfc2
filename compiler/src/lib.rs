//! stmtc: compiles an Apache Flink SQL statement set into a native Rust program.
//!
//! The pipeline, one pass per module:
//! `parser` (job file -> statements) -> `binder` (catalog, names, types ->
//! bound statement set, `ir`) -> `plan::lower` (one DAG, shared subtrees
//! merged) -> `plan::passes::optimize` (rewrites) -> `plan::explain`.
//! [`check`] runs the first two, [`explain`] all of them. The public API is
//! these entry points and the diagnostics they return; the IR stays
//! crate-private.

pub mod diagnostics;

mod binder;
mod codegen;
mod functions;
mod ir;
mod ir_print;
mod parser;
mod plan;
mod types;
mod typing;

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};

use diagnostics::{Diagnostic, Diagnostics, SourceFile, Span};

/// The outcome of checking a job file: its diagnostics and, when it bound,
/// the bound statement set.
pub struct Checked {
    pub file: SourceFile,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The bound job, kept only inside the compiler (`explain`, `compile`):
    /// its trees can be deep, so they are printed and dropped on the
    /// compiler's big stack, never on the caller's.
    job: Option<ir::BoundJob>,
    /// (tables, views, inserts) of the bound job.
    counts: Option<(usize, usize, usize)>,
    bound: String,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == diagnostics::Severity::Error)
    }

    /// `N tables, M views, K inserts`.
    pub fn summary(&self) -> String {
        let Some((tables, views, inserts)) = self.counts else {
            return "nothing bound".to_string();
        };
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        format!(
            "{}, {}, {}",
            plural(tables, "table"),
            plural(views, "view"),
            plural(inserts, "insert")
        )
    }

    /// The bound statement set as text (tables, views, each INSERT's tree).
    pub fn bound_text(&self) -> String {
        self.bound.clone()
    }

    /// Diagnostics rendered as `file:line:col: error: ...` with code frames.
    pub fn render_diagnostics(&self, color: bool) -> String {
        diagnostics::render(&self.file, &self.diagnostics, color)
    }

    pub fn diagnostics_json(&self) -> String {
        diagnostics::to_json(&self.file, &self.diagnostics)
    }
}

thread_local! {
    /// The statement being processed, so an internal error can say where.
    static CURRENT: Cell<Span> = const { Cell::new(Span::new(0, 0)) };
}

pub(crate) fn set_current_span(span: Span) {
    CURRENT.with(|c| c.set(span));
}

/// Parses, binds and type-checks a job file, collecting every error.
pub fn check(file: SourceFile) -> Checked {
    on_big_stack(move || {
        let mut checked = check_here(file);
        if let Some(job) = checked.job.take() {
            checked.bound = ir_print::bound_job(&job);
            drop(job); // deep trees are dropped here, on the big stack
        }
        checked
    })
}

fn check_here(file: SourceFile) -> Checked {
    let mut diags = Diagnostics::default();
    set_current_span(Span::new(0, 0));
    let result = guarded(|| {
        let mut diags = Diagnostics::default();
        let script = parser::parse_script(&file, &mut diags);
        let job = binder::bind_script(&file, &script, &mut diags);
        (job, diags)
    });
    let job = match result {
        Ok((job, found)) => {
            diags = found;
            Some(job)
        }
        Err(d) => {
            diags.push(d);
            None
        }
    };
    let job = if diags.has_errors() { None } else { job };
    let counts = job
        .as_ref()
        .map(|j| (j.tables.len(), j.views.len(), j.inserts.len()));
    Checked {
        file,
        diagnostics: diags.into_sorted(),
        job,
        counts,
        bound: String::new(),
    }
}

/// Runs a compiler pass, turning a panic (a bug in stmtc) into a located
/// internal-error diagnostic instead of a crash.
fn guarded<T>(pass: impl FnOnce() -> T) -> Result<T, Diagnostic> {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(pass));
    panic::set_hook(previous);
    result.map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Diagnostic::error(
            CURRENT.with(Cell::get),
            format!("internal error in stmtc while processing this statement: {what}"),
        )
        .with_note("this is a bug in stmtc, not in the job; please report it with the job file")
    })
}

/// Output formats of [`explain`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainFormat {
    Text,
    Json,
    Dot,
    Mermaid,
}

/// What [`explain`] prints.
#[derive(Clone, Debug)]
pub struct ExplainOptions {
    pub format: ExplainFormat,
    /// Per-node changelog mode (`[I]`: insert-only, as every batch node is).
    pub changelog: bool,
    /// Per-node estimated row counts.
    pub cost: bool,
    /// Where relative source paths resolve (for size-based estimates).
    pub base_dir: std::path::PathBuf,
}

/// Receives a pass name and the plan text after it.
pub type TraceFn<'a> = &'a mut (dyn FnMut(&str, &str) + Send);

/// Stack for the compiler passes: they recurse over expression trees, and a
/// job may hold a chain of 10,000 `+` or UNION ALL (reserved, not committed).
const COMPILER_STACK: usize = 1 << 30;

/// Runs a compiler entry point on a thread with a large stack, so deep (but
/// valid) SQL is compiled instead of overflowing the caller's stack.
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("stmtc".to_string())
            .stack_size(COMPILER_STACK)
            .spawn_scoped(scope, f)
        {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|payload| panic::resume_unwind(payload)),
            Err(e) => panic!("cannot start the compiler thread: {e}"),
        }
    })
}

/// Checks a job and prints its merged, optimized plan. `trace` receives the
/// plan text after lowering and after each rewrite that changed it.
pub fn explain(
    file: SourceFile,
    options: &ExplainOptions,
    trace: Option<TraceFn<'_>>,
) -> Result<String, Box<Checked>> {
    on_big_stack(move || explain_here(file, options, trace))
}

fn explain_here(
    file: SourceFile,
    options: &ExplainOptions,
    trace: Option<TraceFn<'_>>,
) -> Result<String, Box<Checked>> {
    let mut checked = Box::new(check_here(file));
    let Some(job) = checked.job.take() else {
        return Err(checked);
    };
    let file = checked.file.clone();
    let details = plan::explain::Details {
        changelog: options.changelog,
        cost: options.cost,
    };
    let result = guarded(|| {
        let mut plan = plan::lower(job);
        let mut noop = |_: &str, _: &str| {};
        let trace: &mut dyn FnMut(&str, &str) = match trace {
            Some(t) => t,
            None => &mut noop,
        };
        plan.compact();
        trace(
            "lowering",
            &plan::explain::text(&plan, &file, plan::explain::Details::default(), Vec::new()),
        );
        let plan = plan::passes::optimize(plan, &mut |pass, p| {
            trace(
                pass,
                &plan::explain::text(p, &file, plan::explain::Details::default(), Vec::new()),
            )
        });
        let rows = if options.cost {
            plan::cost::estimate_rows(&plan, &options.base_dir)
        } else {
            Vec::new()
        };
        match options.format {
            ExplainFormat::Text => plan::explain::text(&plan, &file, details, rows),
            ExplainFormat::Json => plan::explain::json(&plan, &file, details, rows),
            ExplainFormat::Dot => plan::explain::dot(&plan, details, rows),
            ExplainFormat::Mermaid => plan::explain::mermaid(&plan, details, rows),
        }
    });
    result.map_err(|d| {
        checked.diagnostics.push(d);
        checked
    })
}

/// Where a compiled job crate finds the runtime crate.
#[derive(Clone, Debug)]
pub enum RuntimeLocation {
    /// Copied into the crate (`runtime/`): the crate builds anywhere.
    Vendored,
    /// A path (as written into `Cargo.toml`) to a runtime folder shared by several jobs.
    Path(String),
}

/// A compiled job: the crate's files, relative to its root.
pub struct CompiledJob {
    pub package: String,
    pub files: Vec<(std::path::PathBuf, String)>,
}

/// Checks, plans and generates the job crate for a job file.
pub fn compile(
    file: SourceFile,
    runtime: &RuntimeLocation,
    package: Option<&str>,
) -> Result<CompiledJob, Box<Checked>> {
    on_big_stack(move || compile_here(file, runtime, package))
}

fn compile_here(
    file: SourceFile,
    runtime: &RuntimeLocation,
    package: Option<&str>,
) -> Result<CompiledJob, Box<Checked>> {
    let mut checked = Box::new(check_here(file));
    let Some(job) = checked.job.take() else {
        return Err(checked);
    };
    let file = checked.file.clone();
    let package = package.map_or_else(|| codegen::package_name(&file), str::to_string);
    let runtime = match runtime {
        RuntimeLocation::Vendored => codegen::RuntimeSource::Vendored,
        RuntimeLocation::Path(p) => codegen::RuntimeSource::Path(p.clone()),
    };
    let result = guarded(|| {
        let mut plan = plan::lower(job);
        plan.compact();
        let plan = plan::passes::optimize(plan, &mut |_, _| {});
        let details = plan::explain::Details::default();
        let text = plan::explain::text(&plan, &file, details, Vec::new());
        let json = plan::explain::json(&plan, &file, details, Vec::new());
        codegen::generate_crate(&plan, &file, &package, &runtime, &text, &json).map_err(|e| {
            let span = plan
                .node(e.node)
                .provenance
                .first()
                .copied()
                .unwrap_or_default();
            Diagnostic::error(span, e.message)
        })
    });
    match result {
        Ok(Ok(files)) => Ok(CompiledJob {
            package: files.package,
            files: files.files,
        }),
        Ok(Err(d)) | Err(d) => {
            checked.diagnostics.push(d);
            Err(checked)
        }
    }
}

/// The runtime crate's files, for a runtime folder shared by cached jobs,
/// and a digest of them to name that folder.
pub fn runtime_crate() -> (String, Vec<(std::path::PathBuf, String)>) {
    (codegen::runtime_digest(), codegen::runtime_files())
}
