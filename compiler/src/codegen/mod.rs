//! Code generation: the optimized plan becomes the `main.rs` of a job crate.
//!
//! The generated program is typed glue over the runtime, never an interpreter:
//! one row struct per plan node (`R3 { c0: Option<i64>, ... }`), one push
//! function per plan edge (`push_5_0` feeds input 0 of node #5) that computes
//! the node and calls its consumers' push functions, and one task per
//! pipeline source: a scan, a VALUES list, or a breaker's output (aggregate
//! results, sorted rows, outer-join leftovers). A scan task reads its file once
//! and pushes every row into all consumers of the scan, so each source is read
//! once whatever the number of INSERTs that use it. Tasks run in an order
//! where every join's build side is complete before its probe side runs.
//!
//! SQL names and literals only ever appear in generated code as string
//! literals (quote escapes them); Rust identifiers come from plan ids.

mod aggregate;
mod calc;
pub(crate) mod expr;
mod format;
mod join;
mod live;
mod over;
mod passthrough;
mod pretty;
mod project;
mod rows;
mod run;
mod scan;
mod schedule;
mod sink;
mod sink_enforce;
mod sort;
mod source_text;

use std::collections::BTreeSet;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::diagnostics::SourceFile;
use crate::ir::ConnectorKind;
use crate::plan::{NodeId, NodeKind, Plan};
use crate::types::TypeKind;
use expr::Statics;
use rows::is_copy;

pub(crate) use project::{
    generate_crate, package_name, runtime_digest, runtime_files, RuntimeSource,
};

/// An error while generating: the construct that code generation does not support.
pub(crate) type GenResult<T> = Result<T, String>;

/// One pipeline source, run in order by the generated `run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    Scan(NodeId),
    Values(NodeId),
    AggregateResults(NodeId),
    SortedRows(NodeId),
    /// Build rows of a RIGHT/FULL join that no probe row matched.
    UnmatchedBuildRows(NodeId),
    /// The spooled probe rows of a join, replayed once its build is complete.
    SpoolReplay(NodeId),
    /// A join whose build went to disk (grace hash join): its partitions
    /// joined one by one once every probe row has arrived; a no-op for a
    /// build that stayed in memory.
    PartitionedJoin(NodeId),
}

/// Where a join probe finds its build rows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ProbeFrom {
    /// The complete build table `b.jN` (probe rows go to its partitions
    /// instead once it is partitioned).
    Built,
    /// One partition's table `t` of a partitioned build, marks in `m`.
    Partition,
}

impl Task {
    fn node(self) -> NodeId {
        match self {
            Task::Scan(n)
            | Task::Values(n)
            | Task::AggregateResults(n)
            | Task::SortedRows(n)
            | Task::UnmatchedBuildRows(n)
            | Task::SpoolReplay(n)
            | Task::PartitionedJoin(n) => n,
        }
    }
}

struct Gen<'a> {
    plan: &'a Plan,
    /// The node being generated, to locate an error.
    current: NodeId,
    descriptions: Vec<String>,
    consumers: Vec<Vec<(NodeId, usize)>>,
    statics: Statics,
    /// Filesystem sink tables, in order of first INSERT: index = staging slot.
    fs_tables: Vec<crate::ir::TableId>,
    /// Optional runtime features the generated code uses.
    features: Vec<&'static str>,
    /// Joins whose probe rows are spooled and replayed (`schedule`).
    spooled: BTreeSet<NodeId>,
    /// `job.sql:12:5` of each node's first provenance span, for run-time errors.
    locations: Vec<String>,
    /// `live[n][c]`: some consumer reads column `c` of node `n` (`live.rs`);
    /// row structs hold only live columns.
    live: Vec<Vec<bool>>,
    /// Calcs whose rows are their input's (`passthrough.rs`).
    pass_through: passthrough::PassThrough,
    /// Columns that are a csv scan's fields, untouched (`source_text.rs`).
    source_text: source_text::SourceText,
    /// Pushes that take the scan's current record (`source_text.rs`).
    wants_record: Vec<bool>,
}

fn lit_str(s: &str) -> Literal {
    Literal::string(s)
}

fn row_ident(n: NodeId) -> Ident {
    format_ident!("R{}", n.0)
}

fn col_ident(i: usize) -> Ident {
    format_ident!("c{}", i)
}

fn push_ident(n: NodeId, input: usize) -> Ident {
    format_ident!("push_{}_{}", n.0, input)
}

/// Whether generated code mentions the identifier `name` (a parameter it
/// reads): parameters the body does not use are named `_`.
/// Nested `fn` items are skipped: their parameters are their own.
fn mentions(tokens: &TokenStream, name: &str) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let mut in_fn = false;
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(i) if i == "fn" => in_fn = true,
            TokenTree::Group(g) if in_fn => {
                in_fn = g.delimiter() != Delimiter::Brace;
            }
            _ if in_fn => {}
            TokenTree::Ident(i) if i == name => return true,
            TokenTree::Group(g) if mentions(&g.stream(), name) => return true,
            _ => {}
        }
    }
    false
}

/// `fn name(a: &R, b: &R) -> Ordering { body }`, a comparator of two rows
/// (a parameter the body does not read is `_`).
fn row_cmp_fn(name: &str, r: &Ident, body: &TokenStream) -> TokenStream {
    let name = format_ident!("{}", name);
    let (a, b) = (param(body, "a"), param(body, "b"));
    quote!(fn #name(#a: &#r, #b: &#r) -> std::cmp::Ordering #body)
}

/// `name` if `body` uses it, else `_` (an unused parameter).
fn param(body: &TokenStream, name: &str) -> TokenStream {
    if mentions(body, name) {
        let i = format_ident!("{}", name);
        quote!(#i)
    } else {
        quote!(_)
    }
}

fn doc(text: &str) -> TokenStream {
    let text = format!(" {text}");
    quote!(#[doc = #text])
}

/// `rt::value::DecimalType::new(p, s)` for a DECIMAL type.
fn decimal_type(kind: TypeKind) -> TokenStream {
    match kind {
        TypeKind::Decimal { precision, scale } => {
            let (p, s) = (
                Literal::u8_unsuffixed(precision),
                Literal::u8_unsuffixed(scale),
            );
            quote!(rt::value::DecimalType::new(#p, #s))
        }
        _ => quote!(rt::value::DecimalType::new(38, 0)),
    }
}

/// Each level of an expression becomes a `match` nested in the previous
/// one, so the generated code grows with the square of the depth: 1,000
/// levels of `a + a + ...` make a 13 MB `main.rs`, 10,000 a 1.5 GB one that
/// rustc cannot build. Deeper expressions are refused, located.
pub(crate) const MAX_EXPR_DEPTH: usize = 1_000;

/// The `SET` key of the memory budget for spools.
pub(crate) const MEMORY_BUDGET_KEY: &str = "stmtc.memory-budget";

/// An unsupported construct, with the plan node it was met in.
pub(crate) struct GenError {
    pub node: NodeId,
    pub message: String,
}

/// Generates `main.rs` for the plan, and the runtime features it needs
/// (`format.rs`: formatted on all cores, while it is generated).
pub(crate) fn generate_main(
    plan: &Plan,
    file: &SourceFile,
) -> Result<(String, Vec<&'static str>), GenError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let internal = |e: String| GenError {
        node: NodeId(0),
        message: format!("internal: generated code does not print: {e}"),
    };
    let source = if threads == 1 {
        let (head, body, features) = generate(plan, file, format::Body::new(None))?;
        (
            format::unparse(body.finish(head)).map_err(internal)?,
            features,
        )
    } else {
        let shared = format::Shared::default();
        let (generated, _) = crate::in_parallel(
            || {
                let _close = shared.closer();
                let generated = generate(plan, file, format::Body::new(Some(&shared)));
                let features = generated.map(|(head, body, features)| {
                    body.finish(head);
                    features
                });
                shared.close();
                shared.work(false);
                features
            },
            (1..threads).map(|_| || shared.work(true)).collect(),
        );
        let features = generated?;
        (shared.printed().map_err(internal)?, features)
    };
    let (source, features) = source;
    let header = format!(
        "// @generated by stmtc {} from {}. Do not edit: change the job file and recompile.\n\n",
        env!("CARGO_PKG_VERSION"),
        file.name
    );
    Ok((header + &source, features))
}

/// Generates the program's tokens without formatting them: what `check`
/// runs, so that every construct code generation refuses is refused by
/// `check` too (a job `check` accepts compiles).
pub(crate) fn generate_tokens(
    plan: &Plan,
    file: &SourceFile,
) -> Result<(Vec<TokenStream>, Vec<&'static str>), GenError> {
    let (head, body, features) = generate(plan, file, format::Body::new(None))?;
    Ok((body.finish(head), features))
}

/// The program's head, its body (sent on as it was made: `Gen::program`),
/// and the runtime features it uses.
type Generated<'a> = (Vec<TokenStream>, format::Body<'a>, Vec<&'static str>);

fn generate<'a>(
    plan: &Plan,
    file: &SourceFile,
    mut body: format::Body<'a>,
) -> Result<Generated<'a>, GenError> {
    let mut consumers = vec![Vec::new(); plan.nodes.len()];
    for (i, node) in plan.nodes.iter().enumerate() {
        for (k, input) in node.kind.inputs().iter().enumerate() {
            consumers[input.index()].push((NodeId(i as u32), k));
        }
    }
    let mut fs_tables = Vec::new();
    for sink in &plan.sinks {
        if let NodeKind::Sink { table, .. } = plan.node(*sink).kind {
            if matches!(
                plan.job.table(table).connector.kind,
                ConnectorKind::Filesystem { .. }
            ) && !fs_tables.contains(&table)
            {
                fs_tables.push(table);
            }
        }
    }
    for (i, node) in plan.nodes.iter().enumerate() {
        let deepest = node.kind.exprs().into_iter().map(crate::ir::depth).max();
        if let Some(levels) = deepest.filter(|&d| d > MAX_EXPR_DEPTH) {
            return Err(GenError {
                node: NodeId(i as u32),
                message: format!(
                    "an expression nested {levels} levels deep; code generation supports at most {MAX_EXPR_DEPTH}"
                ),
            });
        }
    }
    let live = live::live_columns(plan, &consumers);
    let pass_through = passthrough::pass_through_calcs(plan, &consumers);
    let source_text = source_text::source_text(plan);
    let wants_record = source_text::wants_record(plan, &source_text, &consumers);
    let mut gen = Gen {
        plan,
        live,
        pass_through,
        source_text,
        wants_record,
        current: NodeId(0),
        descriptions: crate::plan::explain::descriptions(plan, file),
        consumers,
        statics: Statics::new(),
        fs_tables,
        features: Vec::new(),
        spooled: BTreeSet::new(),
        locations: plan
            .nodes
            .iter()
            .map(|node| match node.provenance.first() {
                Some(s) => {
                    let at = file.line_col(s.start);
                    format!("{}:{}:{}", file.name, at.line, at.column)
                }
                None => file.name.clone(),
            })
            .collect(),
    };
    let head = gen.program(&mut body).map_err(|message| GenError {
        node: gen.current,
        message,
    })?;
    Ok((head, body, gen.features))
}

/// The pieces of the generated `State` and `Built` structs that each
/// operator contributes (its `<op>_state` adds them).
#[derive(Default)]
struct StateParts {
    /// `State` fields, with their initializers in `State::new` and the
    /// steps of `State::absorb` that fold a finished thread's state in.
    fields: Vec<TokenStream>,
    inits: Vec<TokenStream>,
    absorbs: Vec<TokenStream>,
    /// `Built` fields: join tables whose build side is complete.
    built: Vec<TokenStream>,
    /// Items beside the structs (aggregates' accumulator structs).
    items: Vec<TokenStream>,
    /// Steps of `State::drain`: rows that wait in a group table's queue
    /// (`GroupTable::push`) go into their groups.
    drains: Vec<TokenStream>,
}

impl StateParts {
    fn add(&mut self, field: TokenStream, init: TokenStream, absorb: TokenStream) {
        self.fields.push(field);
        self.inits.push(init);
        self.absorbs.push(absorb);
    }
}

impl Gen<'_> {
    fn node_doc(&self, n: NodeId) -> TokenStream {
        doc(&self.descriptions[n.index()])
    }

    /// The program in pieces, each one or more whole items: its head (the
    /// file's inner attributes first) is returned, its body (row structs,
    /// push functions, tasks, statics) goes to `body` as it is made. The
    /// file is head, body.
    fn program(&mut self, body: &mut format::Body<'_>) -> GenResult<Vec<TokenStream>> {
        let plan = self.plan;
        let tasks = self.schedule()?;
        for row in self.row_structs()? {
            body.push(row);
        }
        for spill in self.spill_impls() {
            body.push(spill);
        }
        for (i, node) in plan.nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            for k in 0..node.kind.inputs().len() {
                body.push(self.push_fn(n, k)?);
            }
            if self.spooled.contains(&n) {
                body.push(self.replayed_probe_fn(n)?);
            }
            if matches!(node.kind, NodeKind::Join { .. }) {
                body.push(self.partition_fns(n)?);
            }
            if matches!(node.kind, NodeKind::Aggregate { .. }) {
                body.push(self.aggregate_add_fn(n)?);
            }
        }
        for piece in self.state_struct()? {
            body.push_head(piece);
        }
        for (i, t) in tasks.iter().enumerate() {
            body.push(self.task_fn(i, *t)?);
        }
        let run = self.run_fn(&tasks)?;
        // What `--profile` calls each pipeline: its operator, cut short.
        let pipelines = tasks.iter().map(|t| {
            let what = match t {
                Task::Scan(_) | Task::Values(_) => "read",
                Task::AggregateResults(_) => "groups out",
                Task::SortedRows(_) => "sorted rows out",
                Task::UnmatchedBuildRows(_) => "unmatched build rows",
                Task::SpoolReplay(_) => "spooled probe rows",
                Task::PartitionedJoin(_) => "partitions from disk",
            };
            format!("{what}: {}", self.short_description(t.node()))
        });
        let pipelines = quote! {
            #[doc = " Each pipeline's operator, for `--profile`."]
            const PIPELINES: &[&str] = &[#(#pipelines),*];
        };
        let tables = self.tables_decl();
        let budget = self.memory_budget()?;
        self.features = self.statics.features();
        let statics = std::mem::take(&mut self.statics).into_items();
        // The runtime traits whose methods the program calls: sink rows
        // (`f.field`) and file records (`rec.i64`).
        let writes = plan.nodes.iter().any(|node| {
            matches!(node.kind, NodeKind::Sink { table, .. }
            if !matches!(plan.job.table(table).connector.kind, ConnectorKind::Blackhole))
        });
        // (A scan whose columns no one reads calls no getter.)
        let reads = plan.nodes.iter().enumerate().any(|(i, node)| {
            matches!(node.kind, NodeKind::Scan { table, .. }
            if matches!(plan.job.table(table).connector.kind, ConnectorKind::Filesystem { .. }))
                && self.live[i].contains(&true)
        });
        let mut traits = Vec::new();
        if writes {
            traits.push(quote!(
                use rt::sink::format::RowFormat as _;
            ));
        }
        if reads {
            traits.push(quote!(
                use rt::source::Record as _;
            ));
        }
        let traits = quote!(#(#traits)*);
        let header = quote! {
            //! The job program: see plan.txt for the plan it implements.
            use stmtc_runtime as rt;
            #traits

            #[doc = " The plan this binary implements (`--explain` prints it)."]
            const PLAN: &str = include_str!("../plan.txt");

            #tables

            #budget

            #pipelines

            fn main() -> std::process::ExitCode {
                rt::job::main(PLAN, TABLES, MEMORY_BUDGET, PIPELINES, run)
            }
        };
        for item in statics {
            body.push(item);
        }
        Ok(vec![header, run])
    }

    /// Calls to every consumer of `n` with the row in `row`.
    fn emit(&self, n: NodeId, row: TokenStream) -> TokenStream {
        let calls = self.consumers[n.index()].iter().map(|&(c, k)| {
            let f = push_ident(c, k);
            let rec = self.record_arg(n, c);
            quote!(#f(st, b, &#row #rec)?;)
        });
        quote!(#(#calls)*)
    }

    /// [`Gen::emit`] of a row already borrowed (`row`).
    fn emit_ref(&self, n: NodeId, row: TokenStream) -> TokenStream {
        let calls = self.consumers[n.index()].iter().map(|&(c, k)| {
            let f = push_ident(c, k);
            let rec = self.record_arg(n, c);
            quote!(#f(st, b, #row #rec)?;)
        });
        quote!(#(#calls)*)
    }

    /// The scan's record as the last argument of `n`'s push into `c`, where
    /// `c` takes it: the scan's own `rec` (borrowed), or the one `n`'s push
    /// was given.
    fn record_arg(&self, n: NodeId, c: NodeId) -> TokenStream {
        if !self.wants_record[c.index()] {
            return quote!();
        }
        match self.plan.node(n).kind {
            NodeKind::Scan { .. } => quote!(, &rec),
            _ => quote!(, rec),
        }
    }

    /// `push_N_K`: one row into input `K` of node `N`, computed by the
    /// node's operator (its `<op>_push`).
    fn push_fn(&mut self, n: NodeId, k: usize) -> GenResult<TokenStream> {
        self.current = n;
        let plan = self.plan;
        let node = plan.node(n);
        let input = node.kind.inputs()[k];
        let in_row = self.row_of(input);
        let name = push_ident(n, k);
        let d = self.node_doc(n);
        let body = match &node.kind {
            NodeKind::Calc {
                projections,
                filter,
                ..
            } => self.calc_push(n, projections, filter.as_ref())?,
            NodeKind::Sink { table, .. } => self.sink_write(n, *table, &plan.node(input).schema)?,
            NodeKind::Aggregate { group, .. } => {
                self.aggregate_update(n, group, &plan.node(input).schema)
            }
            NodeKind::Sort { .. } => self.sort_push(n),
            NodeKind::Over { .. } => self.over_push(n)?,
            NodeKind::Union { .. } => self.union_push(n),
            NodeKind::Window {
                window,
                time_column,
                ..
            } => self.window_push(n, *window, *time_column)?,
            NodeKind::Join { .. } => self.join_push(n, k)?,
            NodeKind::Scan { .. } | NodeKind::Values { .. } => {
                unreachable!("sources have no inputs")
            }
        };
        let (b, row) = (param(&body, "b"), param(&body, "row"));
        let rec = if self.wants_record[n.index()] {
            let rec = param(&body, "rec");
            quote!(, #rec: &rt::source::csv::CsvRecord<'_>)
        } else {
            quote!()
        };
        Ok(quote! {
            #d
            #[inline]
            fn #name(st: &mut State, #b: &Built, #row: &#in_row #rec) -> rt::Result<()> {
                #body
                Ok(())
            }
        })
    }

    /// `State` (what the tasks write: sinks, hash tables, buffers) and
    /// `Built` (complete join tables), from every operator's parts.
    /// `State`, its methods and `Built`, as items formatted apart (the
    /// methods are the program's largest items).
    fn state_struct(&self) -> GenResult<Vec<TokenStream>> {
        let mut parts = StateParts::default();
        for (i, node) in self.plan.nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            match &node.kind {
                NodeKind::Sink { table, .. } => self.sink_state(n, *table, &mut parts)?,
                NodeKind::Aggregate {
                    group,
                    aggregates,
                    input,
                } => self.aggregate_state(n, group, aggregates, *input, &mut parts)?,
                NodeKind::Sort { .. } => self.sort_state(n, &mut parts),
                NodeKind::Over { .. } => self.over_state(n, &mut parts)?,
                NodeKind::Join { .. } => self.join_state(n, &mut parts)?,
                _ => {}
            }
        }
        let StateParts {
            fields,
            inits,
            absorbs,
            built,
            items,
            drains,
        } = parts;
        let init = quote!(#(#inits)*);
        // Each operator's fold is a step of its own (they touch disjoint
        // fields), run on the job's threads: merging one large table no
        // longer waits for the merge of another.
        // A lone fold runs inline. The steps are an array (not `vec!`) so
        // the emitted code stays formatted: rustfmt leaves macros alone.
        let steps = if absorbs.len() <= 1 {
            quote!(#(#absorbs)*)
        } else {
            let count = absorbs.len();
            quote! {
                let steps: [rt::ops::parallel::Step<'_>; #count] = [
                    #(Box::new(|| -> rt::Result<()> { #absorbs Ok(()) })),*
                ];
                rt::ops::parallel::run_steps(ctx.threads, steps)?;
            }
        };
        let absorb = if drains.is_empty() {
            steps
        } else {
            quote!(self.drain()?; o.drain()?; #steps)
        };
        let [ctx, staging, b, thread, pipeline] =
            ["ctx", "staging", "b", "thread", "pipeline"].map(|p| param(&init, p));
        let (absorb_ctx, o) = (param(&absorb, "ctx"), param(&absorb, "o"));
        // Threads' states are folded after a parallel scan and a partitioned
        // join; a job of VALUES lists alone has neither.
        let parallel = self
            .plan
            .nodes
            .iter()
            .any(|node| matches!(node.kind, NodeKind::Scan { .. } | NodeKind::Join { .. }));
        let o = if drains.is_empty() {
            quote!(#o)
        } else {
            quote!(mut #o)
        };
        let drain_fn = if drains.is_empty() {
            quote!()
        } else {
            quote! {
                #[doc = " Updates the rows that wait for their group's slot to load"]
                #[doc = " (`GroupTable::push`): at the end of every pipeline, and"]
                #[doc = " before threads' tables merge."]
                fn drain(&mut self) -> rt::Result<()> {
                    #(#drains)*
                    Ok(())
                }
            }
        };
        let absorb_fn = if parallel {
            quote! {
                #[doc = " Folds the state of a finished thread into this one: partial"]
                #[doc = " aggregates, sort buffers and build tables merge; its part files close."]
                fn absorb(&mut self, #absorb_ctx: &rt::job::Context, #o: State) -> rt::Result<()> {
                    #absorb
                    Ok(())
                }
            }
        } else {
            quote!()
        };
        let mut out = vec![
            quote! {
                #[doc = " Operator state written while the job runs: sinks, hash tables, buffers."]
                struct State { #(#fields),* }
            },
            quote! {
                impl State {
                    #[doc = " The state of one thread of pipeline `pipeline` (it names the part files)."]
                    fn new(#ctx: &rt::job::Context, #staging: &rt::sink::commit::Job, #b: &Built, #thread: usize, #pipeline: usize) -> rt::Result<State> {
                        Ok(State { #(#inits),* })
                    }
                }
            },
        ];
        for method in [absorb_fn, drain_fn] {
            if !method.is_empty() {
                out.push(quote!(impl State { #method }));
            }
        }
        out.push(quote! {
            #[doc = " Join hash tables whose build side is complete: probed, never written."]
            #[derive(Default)]
            struct Built { #(#built),* }

            #(#items)*
        });
        Ok(out)
    }

    /// `task_N`: pipeline `N` of the schedule, run by its source's operator.
    fn task_fn(&mut self, index: usize, task: Task) -> GenResult<TokenStream> {
        let plan = self.plan;
        let name = format_ident!("task_{}", index);
        let n = task.node();
        self.current = n;
        let node = plan.node(n);
        let d = doc(&format!(
            "Pipeline {index}: {}",
            self.descriptions[n.index()]
        ));
        let emit = self.emit(n, quote!(row));
        let body = match (&task, &node.kind) {
            (
                Task::Scan(_),
                NodeKind::Scan {
                    table,
                    columns,
                    filter,
                },
            ) => self.scan_task(n, index, *table, columns, filter.as_ref())?,
            (Task::Values(_), NodeKind::Values { rows }) => self.values_task(n, rows, emit)?,
            (
                Task::AggregateResults(_),
                NodeKind::Aggregate {
                    group,
                    aggregates,
                    input,
                },
            ) => self.aggregate_results_task(n, group, aggregates, *input, emit, index)?,
            (Task::SortedRows(_), NodeKind::Sort { offset, .. }) => {
                self.sorted_rows_task(n, *offset, emit)
            }
            (Task::SortedRows(_), NodeKind::Over { .. }) => self.over_task(n, emit)?,
            (Task::UnmatchedBuildRows(_), NodeKind::Join { .. }) => {
                self.unmatched_rows_task(n, emit)
            }
            (Task::PartitionedJoin(_), NodeKind::Join { .. }) => {
                self.partitioned_join_task(n, index)?
            }
            (Task::SpoolReplay(_), NodeKind::Join { .. }) => self.spool_replay_task(n, index),
            _ => return Err("internal: task does not match its node".to_string()),
        };
        let (ctx, b, staging) = (
            param(&body, "ctx"),
            param(&body, "b"),
            param(&body, "staging"),
        );
        // Rows a group table deferred go in before the next pipeline reads it.
        let drain = if self.any_deferred_updates() {
            quote!(st.drain()?;)
        } else {
            quote!()
        };
        Ok(quote! {
            #d
            fn #name(#ctx: &rt::job::Context, st: &mut State, #b: &Built, #staging: &rt::sink::commit::Job) -> rt::Result<()> {
                #body
                #drain
                Ok(())
            }
        })
    }
}

impl Gen<'_> {
    /// A node's description cut to 90 characters (`--profile`'s names).
    fn short_description(&self, n: NodeId) -> String {
        let text = &self.descriptions[n.index()];
        match text.char_indices().nth(90) {
            Some((at, _)) => format!("{}...", &text[..at]),
            None => text.clone(),
        }
    }

    /// `.labelled("...")`: what `--profile`'s memory report calls the state
    /// `what` of node `n`.
    pub(super) fn memory_label(&self, n: NodeId, what: &str) -> TokenStream {
        let label = format!("{what}: {}", self.short_description(n));
        quote!(.labelled(#label))
    }
}
