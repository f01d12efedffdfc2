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

pub(crate) mod expr;
mod over;
mod project;
mod schedule;
mod sink_enforce;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::diagnostics::SourceFile;
use crate::functions::AggregateFunction;
use crate::ir::{AggregateCall, ConnectorKind, Field, Format, JoinKind, SortKey, WindowKind};
use crate::plan::{NodeId, NodeKind, Plan};
use crate::types::{DataType, TypeKind};
use expr::{value_type, Statics};

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

/// Generates `main.rs` for the plan, and the runtime features it needs.
pub(crate) fn generate_main(
    plan: &Plan,
    file: &SourceFile,
) -> Result<(String, Vec<&'static str>), GenError> {
    let (tokens, features) = generate_tokens(plan, file)?;
    let syntax: syn::File = syn::parse2(tokens).map_err(|e| GenError {
        node: NodeId(0),
        message: format!("internal: generated code does not parse: {e}"),
    })?;
    let header = format!(
        "// @generated by stmtc {} from {}. Do not edit: change the job file and recompile.\n\n",
        env!("CARGO_PKG_VERSION"),
        file.name
    );
    Ok((header + &prettyplease::unparse(&syntax), features))
}

/// Generates the program's tokens without formatting them: what `check`
/// runs, so that every construct code generation refuses is refused by
/// `check` too (a job `check` accepts compiles).
pub(crate) fn generate_tokens(
    plan: &Plan,
    file: &SourceFile,
) -> Result<(TokenStream, Vec<&'static str>), GenError> {
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
    let mut gen = Gen {
        plan,
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
    let tokens = gen.program().map_err(|message| GenError {
        node: gen.current,
        message,
    })?;
    Ok((tokens, gen.features))
}

impl Gen<'_> {
    fn node_doc(&self, n: NodeId) -> TokenStream {
        doc(&self.descriptions[n.index()])
    }

    fn program(&mut self) -> GenResult<TokenStream> {
        let plan = self.plan;
        let tasks = self.schedule()?;
        let mut rows = self.row_structs()?;
        rows.extend(self.spill_impls());
        let mut pushes = Vec::new();
        for (i, node) in plan.nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            for k in 0..node.kind.inputs().len() {
                pushes.push(self.push_fn(n, k)?);
            }
            if self.spooled.contains(&n) {
                pushes.push(self.replayed_probe_fn(n)?);
            }
            if matches!(node.kind, NodeKind::Join { .. }) {
                pushes.push(self.partition_fns(n)?);
            }
            if matches!(node.kind, NodeKind::Aggregate { .. }) {
                pushes.push(self.aggregate_add_fn(n)?);
            }
        }
        let state = self.state_struct()?;
        let task_fns = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| self.task_fn(i, *t))
            .collect::<GenResult<Vec<_>>>()?;
        let run = self.run_fn(&tasks)?;
        let tables = self.tables_decl();
        let budget = self.memory_budget()?;
        self.features = self.statics.features();
        let statics = std::mem::take(&mut self.statics).into_items();
        Ok(quote! {
            #![allow(clippy::all, unused_parens, unused_variables, unused_mut, non_snake_case, dead_code, unused_imports, unused_assignments)]
            //! The job program: see plan.txt for the plan it implements.
            use stmtc_runtime as rt;
            use rt::sink::format::RowFormat as _;
            use rt::source::Record as _;

            #[doc = " The plan this binary implements (`--explain` prints it)."]
            const PLAN: &str = include_str!("../plan.txt");

            #tables

            #budget

            fn main() -> std::process::ExitCode {
                rt::job::main(PLAN, TABLES, MEMORY_BUDGET, run)
            }

            #run
            #state
            #(#rows)*
            #(#pushes)*
            #(#task_fns)*
            #(#statics)*
        })
    }

    /// `MEMORY_BUDGET`: `SET 'stmtc.memory-budget'`, or `None` for the
    /// runtime's default (`--memory-budget` overrides either at run time).
    fn memory_budget(&self) -> GenResult<TokenStream> {
        let set = self
            .plan
            .job
            .settings
            .iter()
            .rev()
            .find(|(k, _)| k == MEMORY_BUDGET_KEY);
        let value = match set {
            None => quote!(None),
            Some((_, v)) => {
                let bytes = crate::binder::parse_memory_size(v)
                    .ok_or_else(|| format!("invalid '{MEMORY_BUDGET_KEY}' = '{v}'"))?;
                let lit = Literal::u64_unsuffixed(bytes);
                quote!(Some(#lit))
            }
        };
        Ok(quote! {
            #[doc = " Bytes the job's spools, joins and aggregates may hold in memory (`SET 'stmtc.memory-budget'`)."]
            const MEMORY_BUDGET: Option<u64> = #value;
        })
    }

    /// The tables of the job with their options (the run-time overrides apply to these).
    fn tables_decl(&self) -> TokenStream {
        let plan = self.plan;
        let mut reads = BTreeSet::new();
        let mut writes = BTreeSet::new();
        for node in &plan.nodes {
            match node.kind {
                NodeKind::Scan { table, .. } => {
                    reads.insert(table);
                }
                NodeKind::Sink { table, .. } => {
                    writes.insert(table);
                }
                _ => {}
            }
        }
        let decls = plan.job.tables.iter().map(|t| {
            let name = lit_str(&t.name);
            let options = t.connector.options.iter().map(|(k, v)| {
                let (k, v) = (lit_str(k), lit_str(v));
                quote!((#k, #v))
            });
            let (r, w) = (reads.contains(&t.id), writes.contains(&t.id));
            quote!(rt::job::TableDecl { name: #name, options: &[#(#options),*], reads: #r, writes: #w })
        });
        quote! {
            #[doc = " Every table of the job, in the order of the job file, with its `WITH` options."]
            static TABLES: &[rt::job::TableDecl] = &[#(#decls),*];
        }
    }

    /// `impl Spill` for the row types that spools hold (written to and read
    /// back from spill files column by column).
    fn spill_impls(&self) -> Vec<TokenStream> {
        let mut rows = BTreeSet::new();
        // Spooled probe rows, and both sides of every join (a build may
        // partition to disk, and its probe rows with it).
        for node in &self.plan.nodes {
            match node.kind {
                NodeKind::Join { left, right, .. } => {
                    rows.insert(left);
                    rows.insert(right);
                }
                // The rows of groups beyond the budget spill too.
                NodeKind::Aggregate { input, .. } => {
                    rows.insert(input);
                }
                _ => {}
            }
        }
        rows.into_iter()
            .map(|n| {
                let name = row_ident(n);
                let cols: Vec<Ident> = (0..self.plan.node(n).schema.len()).map(col_ident).collect();
                quote! {
                    impl rt::ops::spool::Spill for #name {
                        fn write(&self, out: &mut Vec<u8>) {
                            #(self.#cols.write(out);)*
                        }
                        fn read(input: &mut &[u8]) -> rt::Result<Self> {
                            Ok(#name { #(#cols: rt::ops::spool::Spill::read(input)?),* })
                        }
                        fn heap_bytes(&self) -> usize {
                            0 #(+ self.#cols.heap_bytes())*
                        }
                    }
                }
            })
            .collect()
    }

    fn row_structs(&self) -> GenResult<Vec<TokenStream>> {
        let mut out = Vec::new();
        for (i, node) in self.plan.nodes.iter().enumerate() {
            if matches!(node.kind, NodeKind::Sink { .. }) {
                continue;
            }
            let n = NodeId(i as u32);
            let name = row_ident(n);
            let fields = node.schema.iter().enumerate().map(|(c, f)| {
                let ident = col_ident(c);
                let ty = value_type(&f.ty);
                let d = doc(&format!("`{}` {}", f.name.replace('`', "'"), f.ty));
                quote!(#d #ident: Option<#ty>)
            });
            let d = self.node_doc(n);
            out.push(quote! {
                #d
                #[derive(Clone, Debug, Default)]
                struct #name { #(#fields),* }
            });
        }
        Ok(out)
    }

    /// Calls to every consumer of `n` with the row in `row`.
    fn emit(&self, n: NodeId, row: TokenStream) -> TokenStream {
        let calls = self.consumers[n.index()].iter().map(|&(c, k)| {
            let f = push_ident(c, k);
            quote!(#f(st, b, &#row)?;)
        });
        quote!(#(#calls)*)
    }

    fn push_fn(&mut self, n: NodeId, k: usize) -> GenResult<TokenStream> {
        self.current = n;
        let plan = self.plan;
        let node = plan.node(n);
        let input = node.kind.inputs()[k];
        let in_row = row_ident(input);
        let name = push_ident(n, k);
        let d = self.node_doc(n);
        let body = match &node.kind {
            NodeKind::Calc {
                projections,
                filter,
                ..
            } => {
                let column = |i: usize| {
                    let c = col_ident(i);
                    quote!(row.#c)
                };
                let check = match filter {
                    Some(f) => {
                        let e = expr::expr(f, &column, &mut self.statics)?;
                        quote!(if !rt::value::logic::is_true(#e) { return Ok(()); })
                    }
                    None => quote!(),
                };
                let out_row = row_ident(n);
                let fields = projections
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let c = col_ident(i);
                        let e = expr::expr(p, &column, &mut self.statics)?;
                        Ok(quote!(#c: #e))
                    })
                    .collect::<GenResult<Vec<_>>>()?;
                let emit = self.emit(n, quote!(out));
                quote! {
                    #check
                    let out = #out_row { #(#fields),* };
                    #emit
                }
            }
            NodeKind::Sink { table, .. } => self.sink_write(n, *table, &plan.node(input).schema)?,
            NodeKind::Aggregate { group, .. } => {
                self.aggregate_update(n, group, &plan.node(input).schema)
            }
            NodeKind::Sort { .. } => {
                let s = format_ident!("s{}", n.0);
                quote!(st.#s.push(row.clone());)
            }
            NodeKind::Over { .. } => self.over_push(n)?,
            NodeKind::Union { .. } => {
                let out_row = row_ident(n);
                let fields = (0..node.schema.len()).map(|i| {
                    let c = col_ident(i);
                    quote!(#c: row.#c.clone())
                });
                let emit = self.emit(n, quote!(out));
                quote! {
                    let out = #out_row { #(#fields),* };
                    #emit
                }
            }
            NodeKind::Window {
                window,
                time_column,
                ..
            } => self.window_push(n, *window, *time_column)?,
            NodeKind::Join {
                right, right_keys, ..
            } => {
                if k == 1 {
                    self.join_build(n, right_keys, &plan.node(*right).schema)?
                } else if self.spooled.contains(&n) {
                    // Replayed by its own pipeline once the build is complete.
                    let q = format_ident!("q{}", n.0);
                    quote!(st.#q.push(row.clone())?;)
                } else {
                    self.join_probe(n, ProbeFrom::Built)?
                }
            }
            NodeKind::Scan { .. } | NodeKind::Values { .. } => {
                unreachable!("sources have no inputs")
            }
        };
        Ok(quote! {
            #d
            #[inline]
            fn #name(st: &mut State, b: &Built, row: &#in_row) -> rt::Result<()> {
                #body
                Ok(())
            }
        })
    }

    /// `probe_N`: the probe of a spooled join, called for each replayed row.
    fn replayed_probe_fn(&mut self, n: NodeId) -> GenResult<TokenStream> {
        self.current = n;
        let NodeKind::Join { left, .. } = &self.plan.node(n).kind else {
            return Err("internal: only joins are spooled".to_string());
        };
        let body = self.join_probe(n, ProbeFrom::Built)?;
        let name = format_ident!("probe_{}", n.0);
        let in_row = row_ident(*left);
        let d = self.node_doc(n);
        Ok(quote! {
            #d
            fn #name(st: &mut State, b: &Built, row: &#in_row) -> rt::Result<()> {
                #body
                Ok(())
            }
        })
    }

    /// A RIGHT/FULL join's output row for build row `r` that nothing matched.
    fn unmatched_build_row(&self, n: NodeId) -> TokenStream {
        let NodeKind::Join { left, right, .. } = self.plan.node(n).kind else {
            unreachable!("only joins have unmatched build rows")
        };
        let left_arity = self.plan.node(left).schema.len();
        let right_arity = self.plan.node(right).schema.len();
        let out_row = row_ident(n);
        let l = (0..left_arity).map(|i| {
            let c = col_ident(i);
            quote!(#c: None)
        });
        let r = (0..right_arity).map(|i| {
            let c = col_ident(left_arity + i);
            let rc = col_ident(i);
            quote!(#c: r.#rc.clone())
        });
        quote!(#out_row { #(#l,)* #(#r,)* })
    }

    /// `partition_probe_N` (and `partition_unmatched_N` for RIGHT/FULL
    /// joins): the probe of one partition of a partitioned build.
    fn partition_fns(&mut self, n: NodeId) -> GenResult<TokenStream> {
        self.current = n;
        let NodeKind::Join {
            kind,
            left,
            right,
            right_keys,
            ..
        } = &self.plan.node(n).kind
        else {
            return Err("internal: only joins are partitioned".to_string());
        };
        let body = self.join_probe(n, ProbeFrom::Partition)?;
        let key = self.key_type(&self.plan.node(*right).schema, right_keys);
        let l = row_ident(*left);
        let r = row_ident(*right);
        let name = format_ident!("partition_probe_{}", n.0);
        let outer = matches!(kind, JoinKind::Right | JoinKind::Full);
        let marks = if outer { quote!(m) } else { quote!(_m) };
        let d = doc(&format!(
            "The probe of one partition of #{} once its build went to disk.",
            n.0
        ));
        let unmatched = if outer {
            let f = format_ident!("partition_unmatched_{}", n.0);
            let row = self.unmatched_build_row(n);
            let emit = self.emit(n, quote!(row));
            quote! {
                fn #f(st: &mut State, b: &Built, r: &#r) -> rt::Result<()> {
                    let row = #row;
                    #emit
                    Ok(())
                }
            }
        } else {
            quote!()
        };
        Ok(quote! {
            #d
            fn #name(st: &mut State, b: &Built, t: &rt::ops::join::JoinTable<#key, #r>, #marks: &mut rt::ops::join::MatchedRows, row: &#l) -> rt::Result<()> {
                #body
                Ok(())
            }
            #unmatched
        })
    }

    /// Writes one row to a sink: a part file, stdout/stderr, or nowhere.
    fn sink_write(
        &self,
        n: NodeId,
        table: crate::ir::TableId,
        schema: &[Field],
    ) -> GenResult<TokenStream> {
        let t = self.plan.job.table(table);
        let w = format_ident!("w{}", n.0);
        let enforcers = sink_enforce::Enforcers::from_settings(&self.plan.job.settings);
        let columns: Vec<&crate::ir::Column> = t.physical_columns().map(|(_, c)| c).collect();
        let not_null = enforcers.not_null(&t.name, &columns, schema, |i| {
            let c = col_ident(i);
            quote!(row.#c)
        });
        let fields = schema
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let c = col_ident(i);
                if let Some(value) = columns
                    .get(i)
                    .and_then(|column| enforcers.trim_pad(&quote!(row.#c), column))
                {
                    return Ok(quote!(f.field(out, #value);));
                }
                let value = match f.ty.kind {
                    TypeKind::Decimal { .. } => {
                        let ty = decimal_type(f.ty.kind);
                        quote!(&row.#c.map(|v| rt::sink::format::Field::Decimal(v, #ty)))
                    }
                    TypeKind::TimestampLtz(_) => {
                        quote!(&row.#c.map(rt::sink::format::Field::TimestampLtz))
                    }
                    TypeKind::Binary(_) | TypeKind::Varbinary(_) => {
                        quote!(&row.#c.as_deref().map(rt::sink::format::Field::Bytes))
                    }
                    TypeKind::IntervalDayTime | TypeKind::IntervalYearMonth | TypeKind::Null => {
                        return Err(format!(
                            "writing a {} column to a sink is not supported yet",
                            f.ty
                        ))
                    }
                    _ => quote!(&row.#c),
                };
                Ok(quote!(f.field(out, #value);))
            })
            .collect::<GenResult<Vec<_>>>()?;
        Ok(match &t.connector.kind {
            ConnectorKind::Blackhole => quote!(#not_null st.#w += 1;),
            _ => quote!(#not_null st.#w.write_row(|f, out| { #(#fields)* })?;),
        })
    }

    fn key_type(&self, schema: &[Field], cols: &[usize]) -> TokenStream {
        let tys = cols.iter().map(|&c| key_value_type(&schema[c].ty));
        quote!((#(Option<#tys>,)*))
    }

    /// A hashable key tuple from columns of `row` (floats as their bits).
    fn key_expr(&self, schema: &[Field], cols: &[usize]) -> TokenStream {
        let parts = cols.iter().map(|&c| key_value(schema, c));
        quote!((#(#parts,)*))
    }

    /// The push into an aggregate: the row's group (created while the budget
    /// has room, else the row is spilled), updated by `A<N>::add`.
    fn aggregate_update(&mut self, n: NodeId, group: &[usize], input: &[Field]) -> TokenStream {
        let a = format_ident!("a{}", n.0);
        let acc = format_ident!("A{}", n.0);
        let key = self.key_expr(input, group);
        quote! {
            if let Some(acc) = st.#a.group(#key, row, #acc::new)? {
                acc.add(row);
            }
        }
    }

    /// `impl A<N> { fn add }`: one input row into a group's accumulators
    /// (from the push, and from spilled rows when the aggregate finishes).
    fn aggregate_add_fn(&mut self, n: NodeId) -> GenResult<TokenStream> {
        self.current = n;
        let NodeKind::Aggregate {
            aggregates, input, ..
        } = &self.plan.node(n).kind
        else {
            return Err("internal: not an aggregate".to_string());
        };
        let input = &self.plan.node(*input).schema;
        let acc = format_ident!("A{}", n.0);
        let in_row = row_ident(match self.plan.node(n).kind {
            NodeKind::Aggregate { input, .. } => input,
            _ => unreachable!("matched above"),
        });
        let updates = aggregates
            .iter()
            .enumerate()
            .map(|(j, call)| {
                let x = format_ident!("x{}", j);
                let arg = |k: usize| {
                    let c = col_ident(call.args[k]);
                    quote!(row.#c)
                };
                let update = if call.distinct {
                    let v = match call.args.first() {
                        Some(&c) => key_value(input, c),
                        None => return Err("DISTINCT without an argument".to_string()),
                    };
                    quote!(acc.#x.add(#v);)
                } else {
                    match (call.function, call.args.is_empty()) {
                        (AggregateFunction::Count, true) => quote!(acc.#x.add_row();),
                        (AggregateFunction::Count, false) => {
                            let v = arg(0);
                            quote!(acc.#x.add(&#v);)
                        }
                        (AggregateFunction::Sum | AggregateFunction::Avg, _)
                            if matches!(input[call.args[0]].ty.kind, TypeKind::Float) =>
                        {
                            let v = arg(0);
                            quote!(acc.#x.add(#v.map(|v| v as f64));)
                        }
                        (AggregateFunction::Min | AggregateFunction::Max, _)
                            if !is_copy(&input[call.args[0]].ty) =>
                        {
                            // Strings and bytes: compare borrowed, copy
                            // only a new minimum or maximum.
                            let v = arg(0);
                            let to_owned = if input[call.args[0]].ty.is_string() {
                                quote!(|s: &str| rt::value::Str::from(s))
                            } else {
                                quote!(ToOwned::to_owned)
                            };
                            quote!(acc.#x.add_ref(#v.as_deref(), #to_owned);)
                        }
                        (AggregateFunction::SingleValue, _) => {
                            let v = arg(0);
                            quote!(acc.#x.add(#v.clone());)
                        }
                        (
                            AggregateFunction::Sum
                            | AggregateFunction::Avg
                            | AggregateFunction::Min
                            | AggregateFunction::Max,
                            _,
                        ) => {
                            let v = arg(0);
                            quote!(acc.#x.add(#v);)
                        }
                        (other, _) => {
                            return Err(format!(
                                "the aggregate function {} is not supported by code generation yet",
                                other.name()
                            ))
                        }
                    }
                };
                Ok(match call.filter {
                    Some(f) => {
                        let c = col_ident(f);
                        quote!(if rt::value::logic::is_true(row.#c) { #update })
                    }
                    None => update,
                })
            })
            .collect::<GenResult<Vec<_>>>()?;
        Ok(quote! {
            impl #acc {
                #[inline]
                fn add(&mut self, row: &#in_row) {
                    let acc = self;
                    #(#updates)*
                }
            }
        })
    }

    /// The accumulator type of one aggregate call, and its initializer.
    fn accumulator(
        &self,
        call: &AggregateCall,
        input: &[Field],
    ) -> GenResult<(TokenStream, TokenStream)> {
        let arg_ty = call.args.first().map(|&c| input[c].ty);
        if call.distinct {
            let t = arg_ty.ok_or("DISTINCT without an argument")?;
            let vt = key_value_type(&t);
            return Ok((
                quote!(rt::ops::aggregate::CountDistinct<#vt>),
                quote!(Default::default()),
            ));
        }
        Ok(match call.function {
            AggregateFunction::Count => (
                quote!(rt::ops::aggregate::Count),
                quote!(Default::default()),
            ),
            AggregateFunction::Sum => {
                let t = arg_ty.ok_or("SUM without an argument")?;
                match t.kind {
                    k if k.is_integer() => {
                        let vt = value_type(&t);
                        (
                            quote!(rt::ops::aggregate::SumInt<#vt>),
                            quote!(Default::default()),
                        )
                    }
                    TypeKind::Float | TypeKind::Double => (
                        quote!(rt::ops::aggregate::SumFloat),
                        quote!(Default::default()),
                    ),
                    TypeKind::Decimal { .. } => (
                        quote!(rt::ops::aggregate::SumDecimal),
                        quote!(Default::default()),
                    ),
                    _ => {
                        return Err(format!(
                            "SUM of {t} is not supported by code generation yet"
                        ))
                    }
                }
            }
            AggregateFunction::Avg => {
                let t = arg_ty.ok_or("AVG without an argument")?;
                match t.kind {
                    k if k.is_integer() => (
                        quote!(rt::ops::aggregate::AvgInt),
                        quote!(Default::default()),
                    ),
                    TypeKind::Float | TypeKind::Double => (
                        quote!(rt::ops::aggregate::AvgFloat),
                        quote!(Default::default()),
                    ),
                    TypeKind::Decimal { .. } => (
                        quote!(rt::ops::aggregate::AvgDecimal),
                        quote!(Default::default()),
                    ),
                    _ => {
                        return Err(format!(
                            "AVG of {t} is not supported by code generation yet"
                        ))
                    }
                }
            }
            AggregateFunction::Min | AggregateFunction::Max => {
                let t = arg_ty.ok_or("MIN/MAX without an argument")?;
                let vt = value_type(&t);
                let init = if call.function == AggregateFunction::Min {
                    quote!(rt::ops::aggregate::MinMax::min())
                } else {
                    quote!(rt::ops::aggregate::MinMax::max())
                };
                let is_max = call.function == AggregateFunction::Max;
                (quote!(rt::ops::aggregate::MinMax<#vt, #is_max>), init)
            }
            AggregateFunction::SingleValue => {
                let t = arg_ty.ok_or("SINGLE_VALUE without an argument")?;
                let vt = value_type(&t);
                (
                    quote!(rt::ops::aggregate::SingleValue<#vt>),
                    quote!(Default::default()),
                )
            }
            other => {
                return Err(format!(
                    "the aggregate function {} is not supported by code generation yet",
                    other.name()
                ))
            }
        })
    }

    /// The final value of an accumulator `acc.xj`, as the output column type.
    fn accumulator_result(
        &self,
        j: usize,
        call: &AggregateCall,
        input: &[Field],
    ) -> GenResult<TokenStream> {
        let x = format_ident!("x{}", j);
        let arg_ty = call.args.first().map(|&c| input[c].ty);
        if call.distinct {
            let t = arg_ty.ok_or("DISTINCT without an argument")?;
            let from_key = match t.kind {
                TypeKind::Double => quote!(rt::ops::aggregate::f64_from_key(*v)),
                TypeKind::Float => quote!(rt::ops::aggregate::f64_from_key(*v) as f32),
                _ => quote!(v.clone()),
            };
            // Fold the distinct values into a fresh accumulator of the plain function.
            let plain = AggregateCall {
                distinct: false,
                ..call.clone()
            };
            let (acc_ty, init) = self.accumulator(&plain, input)?;
            let add = match (call.function, t.kind) {
                (AggregateFunction::Count, _) => quote!(a.add(&Some(#from_key));),
                (AggregateFunction::Sum | AggregateFunction::Avg, TypeKind::Float) => {
                    quote!(a.add(Some((#from_key) as f64));)
                }
                _ => quote!(a.add(Some(#from_key));),
            };
            let result = self.plain_result(quote!(a), call, arg_ty)?;
            return Ok(quote!({
                let mut a: #acc_ty = #init;
                for v in acc.#x.values() { #add }
                #result
            }));
        }
        self.plain_result(quote!(acc.#x), call, arg_ty)
    }

    fn plain_result(
        &self,
        acc: TokenStream,
        call: &AggregateCall,
        arg_ty: Option<DataType>,
    ) -> GenResult<TokenStream> {
        Ok(match call.function {
            AggregateFunction::Count => quote!(Some(#acc.result())),
            AggregateFunction::Sum => match arg_ty.map(|t| t.kind) {
                Some(TypeKind::Float) => quote!(#acc.result().map(|v| v as f32)),
                _ => quote!(#acc.result()),
            },
            AggregateFunction::Avg => match arg_ty.map(|t| t.kind) {
                Some(TypeKind::Decimal { scale, .. }) => {
                    let s = Literal::u8_unsuffixed(scale);
                    quote!(#acc.result(#s))
                }
                Some(TypeKind::Float) => quote!(#acc.result().map(|v| v as f32)),
                _ => quote!(#acc.result()),
            },
            AggregateFunction::Min | AggregateFunction::Max => quote!(#acc.result().cloned()),
            AggregateFunction::SingleValue => {
                let at = lit_str(&self.locations[self.current.index()]);
                quote!(#acc.result(#at)?)
            }
            other => {
                return Err(format!(
                    "the aggregate function {} is not supported by code generation yet",
                    other.name()
                ))
            }
        })
    }

    fn window_push(
        &self,
        n: NodeId,
        window: WindowKind,
        time_column: usize,
    ) -> GenResult<TokenStream> {
        let node = self.plan.node(n);
        let arity = node.schema.len() - 3;
        let out_row = row_ident(n);
        let copies = (0..arity).map(|i| {
            let c = col_ident(i);
            quote!(#c: row.#c.clone())
        });
        let (ws, we, wt) = (col_ident(arity), col_ident(arity + 1), col_ident(arity + 2));
        let tc = col_ident(time_column);
        let emit = self.emit(n, quote!(out));
        let windows = match window {
            WindowKind::Tumble { size, offset } => {
                quote!(rt::func::temporal::tumble_windows(ts, #size, #offset))
            }
            WindowKind::Hop {
                slide,
                size,
                offset,
            } => quote!(rt::func::temporal::hop_windows(ts, #slide, #size, #offset)),
            WindowKind::Cumulate { step, size, offset } => {
                quote!(rt::func::temporal::cumulate_windows(ts, #step, #size, #offset))
            }
        };
        Ok(quote! {
            // Rows without a time value belong to no window.
            let Some(time) = row.#tc else { return Ok(()); };
            let ts = time.millis;
            for (start, end) in #windows {
                let out = #out_row {
                    #(#copies,)*
                    #ws: Some(rt::value::Timestamp::from_millis(start)),
                    #we: Some(rt::value::Timestamp::from_millis(end)),
                    #wt: Some(rt::value::Timestamp::from_millis(end - 1)),
                };
                #emit
            }
        })
    }

    fn join_build(
        &self,
        n: NodeId,
        right_keys: &[usize],
        right: &[Field],
    ) -> GenResult<TokenStream> {
        let j = format_ident!("j{}", n.0);
        let key = self.key_expr(right, right_keys);
        let null_checks = right_keys.iter().map(|&c| {
            let ident = col_ident(c);
            quote!(row.#ident.is_none())
        });
        Ok(quote! {
            // A NULL key matches nothing, but outer joins still emit the row.
            if false #(|| #null_checks)* {
                st.#j.insert_unmatchable(row.clone())?;
            } else {
                st.#j.insert(#key, row.clone())?;
            }
        })
    }

    /// The probe of join `n` for one row of its left input `row`.
    fn join_probe(&mut self, n: NodeId, from: ProbeFrom) -> GenResult<TokenStream> {
        let plan = self.plan;
        let NodeKind::Join {
            kind,
            left,
            right,
            ref left_keys,
            ref residual,
            ..
        } = plan.node(n).kind
        else {
            return Err(format!("#{} is not a join", n.0));
        };
        let left_keys = left_keys.as_slice();
        let residual = residual.as_ref();
        let (table, mark) = self.probe_table(n, from);
        let left_schema = &plan.node(left).schema;
        let right_arity = plan.node(right).schema.len();
        let left_arity = left_schema.len();
        let out_row = row_ident(n);
        let key = self.key_expr(left_schema, left_keys);
        let null_checks = left_keys.iter().map(|&c| {
            let ident = col_ident(c);
            quote!(row.#ident.is_none())
        });
        let joined = |right_value: &dyn Fn(usize) -> TokenStream| {
            let l = (0..left_arity).map(|i| {
                let c = col_ident(i);
                quote!(#c: row.#c.clone())
            });
            let r = (0..right_arity).map(|i| {
                let c = col_ident(left_arity + i);
                let v = right_value(i);
                quote!(#c: #v)
            });
            quote!(#out_row { #(#l,)* #(#r,)* })
        };
        let matched_row = joined(&|i| {
            let c = col_ident(i);
            quote!(r.#c.clone())
        });
        let null_row = joined(&|_| quote!(None));
        let column = |i: usize| {
            let c = col_ident(i);
            quote!(out.#c)
        };
        let check = match residual {
            Some(r) => {
                let e = expr::expr(r, &column, &mut self.statics)?;
                quote!(if !rt::value::logic::is_true(#e) { continue; })
            }
            None => quote!(),
        };
        let mark = if matches!(kind, JoinKind::Right | JoinKind::Full) {
            mark
        } else {
            quote!()
        };
        if !kind.outputs_right() {
            return self.semi_probe(n, kind, left_arity, left_keys, residual, from);
        }
        let route = self.route_to_partition(n, from);
        let emit = self.emit(n, quote!(out));
        let keep_left = if matches!(kind, JoinKind::Left | JoinKind::Full) {
            quote! {
                if !matched {
                    let out = #null_row;
                    #emit
                }
            }
        } else {
            quote!()
        };
        Ok(quote! {
            let mut matched = false;
            if !(false #(|| #null_checks)*) {
                let key = #key;
                #route
                for (idx, r) in #table.probe(&key) {
                    let out = #matched_row;
                    #check
                    matched = true;
                    #mark
                    #emit
                }
            }
            #keep_left
        })
    }

    /// The table a probe reads and how it marks a matched build row.
    fn probe_table(&self, n: NodeId, from: ProbeFrom) -> (TokenStream, TokenStream) {
        match from {
            ProbeFrom::Built => {
                let j = format_ident!("j{}", n.0);
                let m = format_ident!("m{}", n.0);
                (quote!(b.#j), quote!(st.#m.set(idx);))
            }
            ProbeFrom::Partition => (quote!(t), quote!(m.set(idx);)),
        }
    }

    /// Before probing the complete build: once it is partitioned, the probe
    /// row (its key has no NULL) waits in the matching probe partition.
    fn route_to_partition(&self, n: NodeId, from: ProbeFrom) -> TokenStream {
        if from == ProbeFrom::Partition {
            return quote!();
        }
        let j = format_ident!("j{}", n.0);
        let g = format_ident!("g{}", n.0);
        quote! {
            if b.#j.is_partitioned() {
                st.#g.push(b.#j.partition_of(&key), row)?;
                return Ok(());
            }
        }
    }

    /// The probe of a semi or anti join: the left row is emitted once when
    /// some build row with its key satisfies the residual (semi), or when
    /// none does (anti). A NULL key matches nothing.
    fn semi_probe(
        &mut self,
        n: NodeId,
        kind: JoinKind,
        left_arity: usize,
        left_keys: &[usize],
        residual: Option<&crate::ir::Expr>,
        from: ProbeFrom,
    ) -> GenResult<TokenStream> {
        let plan = self.plan;
        let (table, _) = self.probe_table(n, from);
        let route = self.route_to_partition(n, from);
        let left = match &plan.node(n).kind {
            NodeKind::Join { left, .. } => *left,
            _ => return Err(format!("#{} is not a join", n.0)),
        };
        let key = self.key_expr(&plan.node(left).schema, left_keys);
        let null_checks = left_keys.iter().map(|&c| {
            let ident = col_ident(c);
            quote!(row.#ident.is_none())
        });
        let column = |i: usize| {
            if i < left_arity {
                let c = col_ident(i);
                quote!(row.#c)
            } else {
                let c = col_ident(i - left_arity);
                quote!(r.#c)
            }
        };
        let test = match residual {
            Some(r) => {
                let e = expr::expr(r, &column, &mut self.statics)?;
                quote!(rt::value::logic::is_true(#e))
            }
            None => quote!(true),
        };
        let out_row = row_ident(n);
        let fields = (0..left_arity).map(|i| {
            let c = col_ident(i);
            quote!(#c: row.#c.clone())
        });
        let emit = self.emit(n, quote!(out));
        let wanted = if kind == JoinKind::Semi {
            quote!(matched)
        } else {
            quote!(!matched)
        };
        Ok(quote! {
            let mut matched = false;
            if !(false #(|| #null_checks)*) {
                let key = #key;
                #route
                for (_, r) in #table.probe(&key) {
                    if #test {
                        matched = true;
                        break;
                    }
                }
            }
            if #wanted {
                let out = #out_row { #(#fields,)* };
                #emit
            }
        })
    }

    fn state_struct(&self) -> GenResult<TokenStream> {
        let plan = self.plan;
        let mut fields = Vec::new();
        let mut inits = Vec::new();
        let mut built_fields = Vec::new();
        let mut accs = Vec::new();
        let mut absorbs = Vec::new();
        for (i, node) in plan.nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            match &node.kind {
                NodeKind::Sink { table, .. } => {
                    let t = plan.job.table(*table);
                    let w = format_ident!("w{}", n.0);
                    let ti = table.0 as usize;
                    let d = doc(&self.descriptions[i]);
                    match &t.connector.kind {
                        ConnectorKind::Filesystem { format, .. } => {
                            let slot = self
                                .fs_tables
                                .iter()
                                .position(|x| x == table)
                                .expect("fs sink has a slot");
                            let ordinal = plan.sinks.iter().position(|s| *s == n).unwrap_or(0);
                            let sinks = plan.sinks.len();
                            let columns: Vec<Literal> = t
                                .physical_columns()
                                .map(|(_, c)| lit_str(&c.name))
                                .collect();
                            let (ty, make) = match format {
                                Format::Csv => (
                                    quote!(rt::sink::format::CsvFormat),
                                    quote!(ctx.csv_format(#ti)?),
                                ),
                                Format::Json => (
                                    quote!(rt::sink::format::JsonFormat),
                                    quote!(ctx.json_format(#ti, &[#(#columns),*])),
                                ),
                            };
                            fields.push(quote!(#d #w: rt::sink::commit::PartWriter<#ty>));
                            inits.push(quote!(#w: staging.part_writer(#slot, thread, pipeline * #sinks + #ordinal, #make)));
                            absorbs.push(quote!(ctx.sink_counter(#ti).add(o.#w.finish()?);));
                        }
                        ConnectorKind::Print => {
                            fields.push(quote!(#d #w: rt::sink::print::PrintSink));
                            inits.push(quote!(#w: ctx.print_sink(#ti)));
                            absorbs.push(quote!(ctx.sink_counter(#ti).add(o.#w.finish()?);));
                        }
                        ConnectorKind::Blackhole => {
                            fields.push(quote!(#d #w: u64));
                            inits.push(quote!(#w: 0));
                            absorbs.push(quote!(self.#w += o.#w;));
                        }
                        ConnectorKind::Datagen => {
                            return Err("datagen tables cannot be written".to_string())
                        }
                    }
                }
                NodeKind::Aggregate {
                    group,
                    aggregates,
                    input,
                } => {
                    let input_schema = &plan.node(*input).schema;
                    let a = format_ident!("a{}", n.0);
                    let acc = format_ident!("A{}", n.0);
                    let key = self.key_type(input_schema, group);
                    let mut acc_fields = Vec::new();
                    let mut acc_inits = Vec::new();
                    let mut acc_merges = Vec::new();
                    for (j, call) in aggregates.iter().enumerate() {
                        let x = format_ident!("x{}", j);
                        let (ty, init) = self.accumulator(call, input_schema)?;
                        acc_fields.push(quote!(#x: #ty));
                        acc_inits.push(quote!(#x: #init));
                        acc_merges.push(quote!(self.#x.merge(o.#x);));
                    }
                    let d = doc(&format!("Accumulators of {}", self.descriptions[i]));
                    accs.push(quote! {
                        #d
                        struct #acc { #(#acc_fields),* }
                        impl #acc {
                            fn new() -> Self { #acc { #(#acc_inits),* } }
                            fn merge(&mut self, o: Self) { #(#acc_merges)* }
                        }
                    });
                    let r = row_ident(*input);
                    fields.push(quote!(#a: rt::ops::group_table::GroupTable<#key, #acc, #r>));
                    inits.push(
                        quote!(#a: rt::ops::group_table::GroupTable::new(&ctx.memory, &ctx.spill)),
                    );
                    absorbs.push(quote!(self.#a.merge(o.#a, |a, p| a.merge(p))?;));
                }
                NodeKind::Sort { input, .. } => {
                    let s = format_ident!("s{}", n.0);
                    let r = row_ident(*input);
                    fields.push(quote!(#s: Vec<#r>));
                    inits.push(quote!(#s: Vec::new()));
                    absorbs.push(quote!(self.#s.extend(o.#s);));
                }
                NodeKind::Over { .. } => {
                    let (field, init, absorb) = self.over_state(n)?;
                    fields.push(field);
                    inits.push(init);
                    absorbs.push(absorb);
                }
                NodeKind::Join {
                    kind,
                    left,
                    right,
                    right_keys,
                    ..
                } => {
                    let j = format_ident!("j{}", n.0);
                    let m = format_ident!("m{}", n.0);
                    let right_schema = &plan.node(*right).schema;
                    let key = self.key_type(right_schema, right_keys);
                    let r = row_ident(*right);
                    let g = format_ident!("g{}", n.0);
                    let l = row_ident(*left);
                    let d = doc(&format!(
                        "Probe rows of #{} waiting for a partitioned build, by partition",
                        n.0
                    ));
                    fields.push(quote!(#j: rt::ops::grace::BuildTable<#key, #r>));
                    inits
                        .push(quote!(#j: rt::ops::grace::BuildTable::new(&ctx.memory, &ctx.spill)));
                    absorbs.push(quote!(self.#j.merge(o.#j)?;));
                    built_fields.push(quote!(#j: rt::ops::grace::BuildTable<#key, #r>));
                    fields.push(quote!(#d #g: rt::ops::grace::ProbeSpill<#l>));
                    inits.push(quote!(#g: rt::ops::grace::ProbeSpill::new(&ctx.spill)));
                    absorbs.push(quote!(self.#g.absorb(o.#g)?;));
                    if self.spooled.contains(&n) {
                        let q = format_ident!("q{}", n.0);
                        let l = row_ident(*left);
                        let d = doc(&format!(
                            "Probe rows of #{} waiting for its build side",
                            n.0
                        ));
                        fields.push(quote!(#d #q: rt::ops::spool::Spool<#l>));
                        inits.push(quote!(#q: rt::ops::spool::Spool::new(&ctx.memory, std::sync::Arc::clone(&ctx.spill))));
                        absorbs.push(quote!(self.#q.absorb(o.#q)?;));
                    }
                    if matches!(kind, JoinKind::Right | JoinKind::Full) {
                        fields.push(quote!(#m: rt::ops::join::MatchedRows));
                        inits.push(quote!(#m: rt::ops::join::MatchedRows::new(b.#j.len())));
                        absorbs.push(quote!(self.#m.merge(&o.#m);));
                    }
                }
                _ => {}
            }
        }
        Ok(quote! {
            #[doc = " Operator state written while the job runs: sinks, hash tables, buffers."]
            struct State { #(#fields),* }

            impl State {
                #[doc = " The state of one thread of pipeline `pipeline` (it names the part files)."]
                fn new(ctx: &rt::job::Context, staging: &rt::sink::commit::Job, b: &Built, thread: usize, pipeline: usize) -> rt::Result<State> {
                    Ok(State { #(#inits),* })
                }

                #[doc = " Folds the state of a finished thread into this one: partial"]
                #[doc = " aggregates, sort buffers and build tables merge; its part files close."]
                fn absorb(&mut self, ctx: &rt::job::Context, o: State) -> rt::Result<()> {
                    #(#absorbs)*
                    Ok(())
                }
            }

            #[doc = " Join hash tables whose build side is complete: probed, never written."]
            #[derive(Default)]
            struct Built { #(#built_fields),* }

            #(#accs)*
        })
    }

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
            ) => self.scan_task(n, *table, columns, filter.as_ref())?,
            (Task::Values(_), NodeKind::Values { rows }) => {
                let out_row = row_ident(n);
                let column = |_: usize| quote!(None::<()>);
                let mut stmts = Vec::new();
                for values in rows {
                    let fields = values
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let c = col_ident(i);
                            let e = expr::expr(v, &column, &mut self.statics)?;
                            Ok(quote!(#c: #e))
                        })
                        .collect::<GenResult<Vec<_>>>()?;
                    stmts.push(quote! {
                        let row = #out_row { #(#fields),* };
                        #emit
                    });
                }
                quote!(#(#stmts)*)
            }
            (
                Task::AggregateResults(_),
                NodeKind::Aggregate {
                    group,
                    aggregates,
                    input,
                },
            ) => {
                let a = format_ident!("a{}", n.0);
                let acc_ty = format_ident!("A{}", n.0);
                let input_schema = &plan.node(*input).schema;
                let out_row = row_ident(n);
                let keys = group.iter().enumerate().map(|(g, &c)| {
                    let col = col_ident(g);
                    let idx = syn::Index::from(g);
                    match input_schema[c].ty.kind {
                        TypeKind::Double => quote!(#col: key.#idx.map(rt::ops::aggregate::f64_from_key)),
                        TypeKind::Float => quote!(#col: key.#idx.map(|v| rt::ops::aggregate::f64_from_key(v) as f32)),
                        _ => quote!(#col: key.#idx.clone()),
                    }
                });
                let results = aggregates
                    .iter()
                    .enumerate()
                    .map(|(j, call)| {
                        let col = col_ident(group.len() + j);
                        let v = self.accumulator_result(j, call, input_schema)?;
                        Ok(quote!(#col: #v))
                    })
                    .collect::<GenResult<Vec<_>>>()?;
                let global = if group.is_empty() {
                    // A global aggregate returns one row even for no input (COUNT 0, SUM NULL).
                    quote! {
                        if table.is_empty() {
                            table.group_owned((), #acc_ty::new);
                        }
                    }
                } else {
                    quote!()
                };
                let key = self.key_expr(input_schema, group);
                let in_row = row_ident(*input);
                quote! {
                    let mut table = std::mem::take(&mut st.#a);
                    #global
                    table.finish(
                        st,
                        |row: &#in_row| #key,
                        #acc_ty::new,
                        |acc, row| acc.add(row),
                        |st, key, acc| {
                            let row = #out_row { #(#keys,)* #(#results),* };
                            #emit
                            Ok(())
                        },
                    )?;
                }
            }
            (
                Task::SortedRows(_),
                NodeKind::Sort {
                    keys,
                    offset,
                    limit,
                    input,
                },
            ) => {
                let s = format_ident!("s{}", n.0);
                let cmp = self.sort_comparator(keys, &plan.node(*input).schema);
                let skip = offset.unwrap_or(0) as usize;
                let take = match limit {
                    Some(l) => {
                        let l = *l as usize;
                        quote!(.take(#l))
                    }
                    None => quote!(),
                };
                let out_row = row_ident(n);
                let copies = (0..node.schema.len()).map(|i| {
                    let c = col_ident(i);
                    quote!(#c: sorted.#c)
                });
                quote! {
                    let mut rows = std::mem::take(&mut st.#s);
                    rt::ops::sort::sort_rows(&mut rows, |a, b| #cmp);
                    for sorted in rows.into_iter().skip(#skip) #take {
                        let row = #out_row { #(#copies),* };
                        #emit
                    }
                }
            }
            (Task::SortedRows(_), NodeKind::Over { .. }) => self.over_task(n, emit.clone())?,
            (Task::UnmatchedBuildRows(_), NodeKind::Join { .. }) => {
                let j = format_ident!("j{}", n.0);
                let m = format_ident!("m{}", n.0);
                let row = self.unmatched_build_row(n);
                quote! {
                    let matched = std::mem::replace(&mut st.#m, rt::ops::join::MatchedRows::new(0));
                    for r in b.#j.unmatched(&matched) {
                        let row = #row;
                        #emit
                    }
                }
            }
            (
                Task::PartitionedJoin(_),
                NodeKind::Join {
                    kind,
                    left,
                    right,
                    left_keys,
                    right_keys,
                    ..
                },
            ) => {
                let j = format_ident!("j{}", n.0);
                let g = format_ident!("g{}", n.0);
                let l = row_ident(*left);
                let r = row_ident(*right);
                let build_key = self.key_expr(&plan.node(*right).schema, right_keys);
                let probe_key = self.key_expr(&plan.node(*left).schema, left_keys);
                let probe = format_ident!("partition_probe_{}", n.0);
                let outer = matches!(kind, JoinKind::Right | JoinKind::Full);
                let unmatched = if outer {
                    let f = format_ident!("partition_unmatched_{}", n.0);
                    quote!(|st, r| #f(st, b, r))
                } else {
                    quote!(|_, _| Ok(()))
                };
                quote! {
                    let probe = std::mem::take(&mut st.#g);
                    b.#j.join_spilled(
                        st,
                        probe,
                        #outer,
                        |row: &#r| #build_key,
                        |row: &#l| #probe_key,
                        |st, t, m, row| #probe(st, b, t, m, row),
                        #unmatched,
                    )?;
                }
            }
            (Task::SpoolReplay(_), NodeKind::Join { .. }) => {
                let q = format_ident!("q{}", n.0);
                let probe = format_ident!("probe_{}", n.0);
                quote! {
                    let empty = st.#q.emptied();
                    let rows = std::mem::replace(&mut st.#q, empty);
                    rows.replay(|row| #probe(st, b, row))?;
                }
            }
            _ => return Err("internal: task does not match its node".to_string()),
        };
        Ok(quote! {
            #d
            fn #name(ctx: &rt::job::Context, st: &mut State, b: &Built, staging: &rt::sink::commit::Job) -> rt::Result<()> {
                const PIPELINE: usize = #index;
                #body
                Ok(())
            }
        })
    }

    /// Comparator over rows `a` and `b` for the sort keys (Flink's NULL order).
    fn sort_comparator(&self, keys: &[SortKey], schema: &[Field]) -> TokenStream {
        let parts = keys.iter().map(|k| {
            let c = col_ident(k.column);
            let nf = k.nulls_first;
            let desc = k.descending;
            let cmp = match schema[k.column].ty.kind {
                TypeKind::Double => quote!(rt::ops::sort::cmp_f64(x, y)),
                TypeKind::Float => quote!(rt::ops::sort::cmp_f64(&(*x as f64), &(*y as f64))),
                TypeKind::Decimal { .. } => quote!(x.cmp(y)),
                k if k.is_string() => quote!(rt::func::string::compare(x, y)),
                _ => quote!(x.cmp(y)),
            };
            quote! {
                {
                    let o = rt::ops::sort::cmp_nullable(&a.#c, &b.#c, #nf, |x, y| {
                        let o = #cmp;
                        if #desc { o.reverse() } else { o }
                    });
                    if o != std::cmp::Ordering::Equal { return o; }
                }
            }
        });
        quote!({ #(#parts)* std::cmp::Ordering::Equal })
    }

    fn scan_task(
        &mut self,
        n: NodeId,
        table: crate::ir::TableId,
        columns: &[usize],
        filter: Option<&crate::ir::Expr>,
    ) -> GenResult<TokenStream> {
        let plan = self.plan;
        let node = plan.node(n);
        let t = plan.job.table(table);
        let ti = table.0 as usize;
        let physical: Vec<(usize, &crate::ir::Column)> = t.physical_columns().collect();
        let names: Vec<Literal> = physical.iter().map(|(_, c)| lit_str(&c.name)).collect();
        let out_row = row_ident(n);
        let emit = self.emit(n, quote!(row));
        let column = |i: usize| {
            let c = col_ident(i);
            quote!(row.#c)
        };
        let check = match filter {
            Some(f) => {
                let e = expr::expr(f, &column, &mut self.statics)?;
                quote!(if !rt::value::logic::is_true(#e) { continue; })
            }
            None => quote!(),
        };
        let source = Literal::usize_unsuffixed(ti);
        match &t.connector.kind {
            ConnectorKind::Filesystem { format, .. } => {
                let fields = columns
                    .iter()
                    .enumerate()
                    .map(|(i, &p)| {
                        let c = col_ident(i);
                        let getter = record_getter(&node.schema[i].ty, p)?;
                        Ok(quote!(#c: #getter))
                    })
                    .collect::<GenResult<Vec<_>>>()?;
                let (reader, opts, boundary) = match format {
                    Format::Csv => (
                        quote!(rt::source::csv::CsvReader),
                        quote!(ctx.csv_options(#ti)?),
                        quote!(opts.boundary()),
                    ),
                    Format::Json => (
                        quote!(rt::source::json::JsonReader),
                        quote!(ctx.json_options(#ti)?),
                        // Newline-delimited json: a newline always ends a record.
                        quote!(rt::source::files::Boundary {
                            quote: None,
                            escape: None
                        }),
                    ),
                };
                Ok(quote! {
                    let files = rt::source::files::list_files(&ctx.path(#ti))?;
                    let opts = #opts;
                    let info = ctx.source_info(#ti, &[#(#names),*]);
                    // Byte ranges cut at record boundaries, read by all threads;
                    // each thread has its own operator state, folded in afterwards.
                    let splits = rt::source::files::plan_splits_with_min(&files, ctx.threads, #boundary, ctx.min_split)?;
                    let counter = ctx.source_counter(#source);
                    let states = rt::ops::parallel::for_each_parallel(
                        &splits,
                        ctx.threads,
                        |thread| State::new(ctx, staging, b, thread, PIPELINE),
                        |st, _, split| {
                        let st = st.as_mut().map_err(|e| rt::Error::new(e.message().to_string()))?;
                        let mut reader = #reader::open(split, opts.clone(), info.clone())?;
                        let mut rows = 0u64;
                        let mut last = 0u64;
                        while let Some(rec) = reader.next_record()? {
                            let row = #out_row { #(#fields),* };
                            rows += 1;
                            if rows % 65536 == 0 {
                                let bytes = reader.bytes_read();
                                counter.add(bytes - last, 65536);
                                last = bytes;
                            }
                            #check
                            #emit
                        }
                        counter.add(reader.bytes_read() - last, rows % 65536);
                        counter.add_skipped(reader.skipped);
                        Ok(())
                    })?;
                    for thread_state in states {
                        st.absorb(ctx, thread_state?)?;
                    }
                })
            }
            ConnectorKind::Datagen => {
                let fields = columns
                    .iter()
                    .enumerate()
                    .map(|(i, &p)| {
                        let c = col_ident(i);
                        let getter = datagen_getter(&node.schema[i].ty, p)?;
                        Ok(quote!(#c: #getter))
                    })
                    .collect::<GenResult<Vec<_>>>()?;
                Ok(quote! {
                    let gen = ctx.datagen(#ti, &[#(#names),*])?;
                    let counter = ctx.source_counter(#source);
                    let ranges = gen.ranges(ctx.threads);
                    let states = rt::ops::parallel::for_each_parallel(
                        &ranges,
                        ctx.threads,
                        |thread| State::new(ctx, staging, b, thread, PIPELINE),
                        |st, _, range| {
                            let st = st.as_mut().map_err(|e| rt::Error::new(e.message().to_string()))?;
                            for i in range.clone() {
                                let r = gen.row(i);
                                let row = #out_row { #(#fields),* };
                                #check
                                #emit
                            }
                            Ok(())
                        },
                    )?;
                    counter.add(0, gen.rows());
                    for thread_state in states {
                        st.absorb(ctx, thread_state?)?;
                    }
                })
            }
            other => Err(format!("the {} connector cannot be read", other.name())),
        }
    }

    fn run_fn(&self, tasks: &[Task]) -> GenResult<TokenStream> {
        let plan = self.plan;
        let targets = self.fs_tables.iter().map(|table| {
            let ti = table.0 as usize;
            let overwrite = plan.nodes.iter().any(|node| matches!(node.kind, NodeKind::Sink { table: t, overwrite: true, .. } if t == *table));
            let mode = if overwrite {
                quote!(rt::sink::commit::WriteMode::Overwrite)
            } else {
                quote!(rt::sink::commit::WriteMode::Append)
            };
            quote!(rt::sink::commit::SinkTarget { path: ctx.path(#ti), mode: #mode })
        });
        let main_pipeline = tasks.len();
        // After the last task feeding a join's build side, the table moves to `Built`.
        let reach: Vec<BTreeSet<(NodeId, usize)>> =
            tasks.iter().map(|t| self.reached_edges(*t)).collect();
        let mut steps = Vec::new();
        let joins: Vec<(NodeId, JoinKind)> = plan
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, node)| match node.kind {
                NodeKind::Join { kind, .. } => Some((NodeId(i as u32), kind)),
                _ => None,
            })
            .collect();
        let seal = |n: NodeId, kind: JoinKind| {
            let j = format_ident!("j{}", n.0);
            let m = format_ident!("m{}", n.0);
            let matched = if matches!(kind, JoinKind::Right | JoinKind::Full) {
                quote!(st.#m = rt::ops::join::MatchedRows::new(b.#j.len());)
            } else {
                quote!()
            };
            quote! {
                b.#j = std::mem::take(&mut st.#j);
                #matched
            }
        };
        // After the last task feeding each join's build side (`None`: no
        // task does), and after its last task (its partitioned join or
        // unmatched rows, which follow every probe), when its memory goes
        // back to the pool.
        let mut last_builder: BTreeMap<NodeId, usize> = BTreeMap::new();
        for (i, r) in reach.iter().enumerate() {
            for &(n, k) in r {
                if k == 1 && matches!(plan.node(n).kind, NodeKind::Join { .. }) {
                    last_builder.insert(n, i);
                }
            }
        }
        let mut last_use: BTreeMap<usize, Vec<NodeId>> = BTreeMap::new();
        let mut seals: BTreeMap<usize, Vec<(NodeId, JoinKind)>> = BTreeMap::new();
        for &(n, kind) in &joins {
            match last_builder.get(&n) {
                Some(&i) => seals.entry(i).or_default().push((n, kind)),
                None => steps.push(seal(n, kind)),
            }
            let last = tasks.iter().rposition(|t| {
                t.node() == n && matches!(t, Task::PartitionedJoin(_) | Task::UnmatchedBuildRows(_))
            });
            if let Some(i) = last {
                last_use.entry(i).or_default().push(n);
            }
        }
        for i in 0..reach.len() {
            let name = format_ident!("task_{}", i);
            steps.push(quote!(#name(ctx, &mut st, &b, &staging)?;));
            for &(n, kind) in seals.get(&i).into_iter().flatten() {
                steps.push(seal(n, kind));
            }
            for n in last_use.get(&i).into_iter().flatten() {
                let j = format_ident!("j{}", n.0);
                steps.push(quote!(b.#j = Default::default();));
            }
        }
        let mut finishes = Vec::new();
        for (i, node) in plan.nodes.iter().enumerate() {
            if let NodeKind::Sink { table, .. } = node.kind {
                let w = format_ident!("w{}", i);
                let ti = table.0 as usize;
                let rows = match plan.job.table(table).connector.kind {
                    ConnectorKind::Blackhole => quote!(st.#w),
                    _ => quote!(st.#w.finish()?),
                };
                finishes.push(quote!(ctx.sink_counter(#ti).add(#rows);));
            }
        }
        // Streaming jobs name part files as Flink's streaming file sink does.
        let part_names = if crate::binder::is_streaming(&plan.job) {
            quote!(rt::sink::commit::PartNames::Streaming)
        } else {
            quote!(rt::sink::commit::PartNames::Batch)
        };
        Ok(quote! {
            #[doc = " Runs every pipeline once, then commits all filesystem sinks together."]
            fn run(ctx: &mut rt::job::Context) -> rt::Result<()> {
                let staging = rt::sink::commit::Job::begin_named(&[#(#targets),*], #part_names)?;
                let result = (|| -> rt::Result<()> {
                    // The state of single-threaded pipelines (breaker outputs), and
                    // where the threads' states are folded.
                    let mut st = State::new(ctx, &staging, &Built::default(), 0, #main_pipeline)?;
                    let mut b = Built::default();
                    #(#steps)*
                    #(#finishes)*
                    Ok(())
                })();
                match result {
                    Ok(()) => staging.commit(),
                    Err(e) => {
                        staging.abort();
                        Err(e)
                    }
                }
            }
        })
    }
}

/// Whether values of `ty` are `Copy` in generated code (all but strings and bytes).
fn is_copy(ty: &DataType) -> bool {
    !matches!(
        ty.kind,
        TypeKind::Char(_) | TypeKind::Varchar(_) | TypeKind::Binary(_) | TypeKind::Varbinary(_)
    )
}

/// Column `c` of `row` as a hashable key value (floats as their bits).
fn key_value(schema: &[Field], c: usize) -> TokenStream {
    let ident = col_ident(c);
    match schema[c].ty.kind {
        TypeKind::Double => quote!(row.#ident.map(rt::ops::aggregate::f64_key)),
        TypeKind::Float => quote!(row.#ident.map(|v| rt::ops::aggregate::f64_key(v as f64))),
        _ => quote!(row.#ident.clone()),
    }
}

/// A group or join key value: like [`value_type`], but floats are their bits.
fn key_value_type(ty: &DataType) -> TokenStream {
    match ty.kind {
        TypeKind::Double | TypeKind::Float => quote!(u64),
        _ => value_type(ty),
    }
}

/// `rec.<getter>(col)?` reading physical column `col` as type `ty`.
fn record_getter(ty: &DataType, col: usize) -> GenResult<TokenStream> {
    Ok(match ty.kind {
        TypeKind::Boolean => quote!(rec.bool(#col)?),
        TypeKind::TinyInt => quote!(rec.i8(#col)?),
        TypeKind::SmallInt => quote!(rec.i16(#col)?),
        TypeKind::Int => quote!(rec.i32(#col)?),
        TypeKind::BigInt => quote!(rec.i64(#col)?),
        TypeKind::Float => quote!(rec.f32(#col)?),
        TypeKind::Double => quote!(rec.f64(#col)?),
        TypeKind::Decimal { .. } => {
            let t = decimal_type(ty.kind);
            quote!(rec.decimal(#col, #t)?)
        }
        TypeKind::Char(_) | TypeKind::Varchar(_) => {
            quote!(rec.str(#col)?.map(rt::value::Str::from))
        }
        TypeKind::Binary(_) | TypeKind::Varbinary(_) => quote!(rec.bytes(#col)?),
        TypeKind::Date => quote!(rec.date(#col)?),
        TypeKind::Time(p) => quote!(rec.time(#col, #p)?),
        TypeKind::Timestamp(p) => quote!(rec.timestamp(#col, #p)?),
        TypeKind::TimestampLtz(p) => quote!(rec.timestamp_ltz(#col, #p)?),
        other => return Err(format!("reading a {other} column is not supported")),
    })
}

/// `r.<getter>(col)` of a datagen row.
fn datagen_getter(ty: &DataType, col: usize) -> GenResult<TokenStream> {
    Ok(match ty.kind {
        TypeKind::Boolean => quote!(r.bool(#col)),
        TypeKind::TinyInt => quote!(r.i8(#col)),
        TypeKind::SmallInt => quote!(r.i16(#col)),
        TypeKind::Int => quote!(r.i32(#col)),
        TypeKind::BigInt => quote!(r.i64(#col)),
        TypeKind::Float => quote!(r.f32(#col)),
        TypeKind::Double => quote!(r.f64(#col)),
        TypeKind::Decimal { .. } => {
            let t = decimal_type(ty.kind);
            quote!(r.decimal(#col, #t))
        }
        TypeKind::Char(_) | TypeKind::Varchar(_) => {
            quote!(r.string(#col).map(rt::value::Str::from))
        }
        TypeKind::Binary(_) | TypeKind::Varbinary(_) => quote!(r.bytes(#col)),
        TypeKind::Date => quote!(r.date(#col)),
        TypeKind::Time(_) => quote!(r.time(#col)),
        TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => quote!(r.timestamp(#col)),
        other => return Err(format!("datagen of a {other} column is not supported")),
    })
}
