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
    /// Whether this thread runs inside `guarded` (its panics are reported
    /// as diagnostics, not printed).
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

pub(crate) fn set_current_span(span: Span) {
    CURRENT.with(|c| c.set(span));
}

/// Parses, binds and type-checks a job file, collecting every error, then
/// plans it and generates its program (not written): what `check` accepts,
/// `compile` compiles.
pub fn check(file: SourceFile) -> Checked {
    on_big_stack(move || pipeline(file, Goal::Check).0)
}

/// How far [`pipeline`] goes, and what it produces at the end.
enum Goal<'a, 't> {
    /// Parse, bind, plan and generate the program without writing it: a
    /// job `check` accepts compiles. The bound statement set is printed.
    Check,
    /// Plan, then print the plan.
    Explain {
        options: &'a ExplainOptions,
        trace: Option<TraceFn<'t>>,
    },
    /// Plan, then generate the job crate.
    Compile {
        runtime: &'a RuntimeLocation,
        package: Option<&'a str>,
        base_dir: Option<&'a std::path::Path>,
    },
}

/// What a [`Goal`] beyond checking produced.
enum Output {
    Plan(String),
    Crate(CompiledJob),
}

/// The compiler, one step after the other: parse -> bind -> lower ->
/// optimize -> explain or codegen. Each step runs `guarded`, so a bug in
/// one becomes a located internal error; the first step that fails (or
/// reports errors) ends the run, and everything found so far is returned.
fn pipeline(file: SourceFile, goal: Goal<'_, '_>) -> (Checked, Option<Output>) {
    set_current_span(Span::new(0, 0));
    let mut diags = Diagnostics::default();
    let bound = guarded(|| {
        let mut diags = Diagnostics::default();
        let script = parser::parse_script(&file, &mut diags);
        let job = binder::bind_script(&file, &script, &mut diags);
        binder::check_streaming(&job, &mut diags);
        (job, diags)
    });
    let job = match bound {
        Ok((job, found)) => {
            diags = found;
            Some(job).filter(|_| !diags.has_errors())
        }
        Err(d) => {
            diags.push(d);
            None
        }
    };
    let mut checked = Checked {
        counts: job
            .as_ref()
            .map(|j| (j.tables.len(), j.views.len(), j.inserts.len())),
        file,
        diagnostics: Vec::new(),
        bound: String::new(),
    };
    let finish = |mut checked: Checked, diags: Diagnostics, output: Option<Output>| {
        if diags.has_errors() {
            // A job refused by a later step (planning, code generation) is
            // not bound either: nothing of it is reported as accepted.
            checked.counts = None;
            checked.bound.clear();
        }
        checked.diagnostics = diags.into_sorted();
        (checked, output)
    };
    let Some(job) = job else {
        return finish(checked, diags, None);
    };
    let (base_dir, mut trace, explain_options, compile_target) = match goal {
        Goal::Check => {
            // Deep trees are printed here, on the big stack.
            checked.bound = ir_print::bound_job(&job);
            (None, None, None, None)
        }
        Goal::Explain { options, trace } => {
            (Some(options.base_dir.as_path()), trace, Some(options), None)
        }
        Goal::Compile {
            runtime,
            package,
            base_dir,
        } => (base_dir, None, None, Some((runtime, package))),
    };
    let file = checked.file.clone();
    let mut trace_plan = |pass: &str, plan: &plan::Plan| {
        if let Some(t) = trace.as_mut() {
            t(
                pass,
                &plan::explain::text(plan, &file, plan::explain::Details::default(), Vec::new()),
            );
        }
    };
    let planned = guarded(|| {
        let mut plan = plan::lower(job, base_dir);
        plan.compact();
        trace_plan("lowering", &plan);
        plan::passes::optimize(plan, &mut trace_plan)
    });
    let plan = match planned {
        Ok(plan) => plan,
        Err(d) => {
            diags.push(d);
            return finish(checked, diags, None);
        }
    };
    let output = guarded(|| match (explain_options, compile_target) {
        (Some(options), _) => Ok(Some(Output::Plan(explain_plan(&plan, &file, options)))),
        (None, Some((runtime, package))) => {
            compile_plan(&plan, &file, runtime, package).map(|mut c| {
                if let Some(base) = base_dir {
                    c.unsized_sources = plan::cost::unsized_sources(&plan, base);
                }
                Some(Output::Crate(c))
            })
        }
        (None, None) => codegen::generate_tokens(&plan, &file)
            .map(|_| None)
            .map_err(|e| located(&plan, e)),
    });
    match output {
        Ok(Ok(output)) => finish(checked, diags, output),
        Ok(Err(d)) | Err(d) => {
            diags.push(d);
            finish(checked, diags, None)
        }
    }
}

/// Runs a compiler pass, turning a panic (a bug in stmtc) into a located
/// internal-error diagnostic instead of a crash.
///
/// The panic is not printed: a hook installed once stays quiet for threads
/// inside `guarded` and prints as before for every other thread (swapping
/// the process-wide hook per call silenced other threads' panics, such as
/// a failing test's, while a compile ran beside them).
fn guarded<T>(pass: impl FnOnce() -> T) -> Result<T, Diagnostic> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let outer = GUARDED.with(|g| g.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(pass));
    GUARDED.with(|g| g.set(outer));
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

/// Runs `first` on this thread and each of `others` on a thread of its
/// own (with the compiler's stack, inside `guarded` as this thread is);
/// returns their results in order. A panic in any is resumed here.
pub(crate) fn in_parallel<A, B: Send>(
    first: impl FnOnce() -> A,
    others: Vec<impl FnOnce() -> B + Send>,
) -> (A, Vec<B>) {
    let guarded = GUARDED.with(Cell::get);
    let span = CURRENT.with(Cell::get);
    std::thread::scope(|scope| {
        let handles: Vec<_> = others
            .into_iter()
            .map(|f| {
                std::thread::Builder::new()
                    .name("stmtc".to_string())
                    .stack_size(COMPILER_STACK)
                    .spawn_scoped(scope, move || {
                        GUARDED.with(|g| g.set(guarded));
                        set_current_span(span);
                        f()
                    })
                    .unwrap_or_else(|e| panic!("cannot start a compiler thread: {e}"))
            })
            .collect();
        let first = first();
        let results = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| panic::resume_unwind(p)))
            .collect();
        (first, results)
    })
}

/// `f` of each item, in order, computed on all cores: each thread takes
/// the next item not taken yet.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads == 1 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(item) = items.get(i) else {
            return;
        };
        let r = f(item);
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    let helpers = (1..threads.min(items.len())).map(|_| work).collect();
    in_parallel(work, helpers);
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item is mapped")
        })
        .collect()
}

/// Checks a job and prints its merged, optimized plan. `trace` receives the
/// plan text after lowering and after each rewrite that changed it.
pub fn explain(
    file: SourceFile,
    options: &ExplainOptions,
    trace: Option<TraceFn<'_>>,
) -> Result<String, Box<Checked>> {
    on_big_stack(
        move || match pipeline(file, Goal::Explain { options, trace }) {
            (_, Some(Output::Plan(text))) => Ok(text),
            (checked, _) => Err(Box::new(checked)),
        },
    )
}

fn explain_plan(plan: &plan::Plan, file: &SourceFile, options: &ExplainOptions) -> String {
    let details = plan::explain::Details {
        changelog: options.changelog,
        cost: options.cost,
    };
    let rows = if options.cost {
        plan::cost::estimate_rows(plan, Some(&options.base_dir))
    } else {
        Vec::new()
    };
    match options.format {
        ExplainFormat::Text => plan::explain::text(plan, file, details, rows),
        ExplainFormat::Json => plan::explain::json(plan, file, details, rows),
        ExplainFormat::Dot => plan::explain::dot(plan, details, rows),
        ExplainFormat::Mermaid => plan::explain::mermaid(plan, details, rows),
    }
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
    /// Filesystem sources (table name, path) whose size could not be read
    /// from the compile's `base_dir`: the planner guessed their rows.
    pub unsized_sources: Vec<(String, String)>,
}

impl CompiledJob {
    /// What to tell the user when the planner could not size some sources
    /// from `base_dir` (the compile's working directory): relative paths
    /// resolve there, as in Flink, and a compile from elsewhere plans with
    /// guessed sizes (the TPC-H set: a plan of 273 nodes instead of 251,
    /// which spills and takes twice as long).
    pub fn sizing_warning(&self, base_dir: Option<&std::path::Path>) -> Option<String> {
        if self.unsized_sources.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .unsized_sources
            .iter()
            .map(|(table, path)| format!("{table} ('{path}')"))
            .collect();
        let here = base_dir.map_or_else(
            || "the working directory".to_string(),
            |d| d.display().to_string(),
        );
        Some(format!(
            "no data found from {here} for {}, so the planner assumed {} rows each; \
             compile in the directory the job will run in (relative paths resolve there, \
             as in Flink) for a plan sized to the data",
            list.join(", "),
            plan::cost::UNKNOWN_SOURCE_ROWS,
        ))
    }
}

/// Checks, plans and generates the job crate for a job file. `base_dir` is
/// where the job's relative source paths resolve (Flink resolves them
/// against the working directory): the planner estimates sources from
/// their sizes there; `None` plans without sizes.
pub fn compile(
    file: SourceFile,
    runtime: &RuntimeLocation,
    package: Option<&str>,
    base_dir: Option<&std::path::Path>,
) -> Result<CompiledJob, Box<Checked>> {
    on_big_stack(move || {
        let goal = Goal::Compile {
            runtime,
            package,
            base_dir,
        };
        match pipeline(file, goal) {
            (_, Some(Output::Crate(job))) => Ok(job),
            (checked, _) => Err(Box::new(checked)),
        }
    })
}

/// A code generation refusal, located at the SQL of the node it concerns.
fn located(plan: &plan::Plan, e: codegen::GenError) -> Diagnostic {
    let span = plan
        .node(e.node)
        .provenance
        .first()
        .copied()
        .unwrap_or_default();
    Diagnostic::error(span, e.message)
}

fn compile_plan(
    plan: &plan::Plan,
    file: &SourceFile,
    runtime: &RuntimeLocation,
    package: Option<&str>,
) -> Result<CompiledJob, Diagnostic> {
    let package = package.map_or_else(|| codegen::package_name(file), str::to_string);
    let runtime = match runtime {
        RuntimeLocation::Vendored => codegen::RuntimeSource::Vendored,
        RuntimeLocation::Path(p) => codegen::RuntimeSource::Path(p.clone()),
    };
    // The plan's texts are printed on another thread while the program is
    // generated (the two only read the plan).
    let details = plan::explain::Details::default();
    let (main, texts) = in_parallel(
        || codegen::generate_main(plan, file),
        vec![|| {
            (
                plan::explain::text(plan, file, details, Vec::new()),
                plan::explain::json(plan, file, details, Vec::new()),
            )
        }],
    );
    let (text, json) = texts.into_iter().next().expect("one result per task");
    let files = codegen::generate_crate(plan, file, &package, &runtime, main, &text, &json)
        .map_err(|e| located(plan, e))?;
    Ok(CompiledJob {
        package: files.package,
        files: files.files,
        unsized_sources: Vec::new(),
    })
}

/// The runtime crate's files, for a runtime folder shared by cached jobs,
/// and a digest of them to name that folder.
pub fn runtime_crate() -> (String, Vec<(std::path::PathBuf, String)>) {
    (codegen::runtime_digest(), codegen::runtime_files())
}
