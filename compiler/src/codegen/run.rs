//! The job's entry points: `run` (every task in schedule order, build
//! tables sealed after their last builder and freed after their last use,
//! then one commit of all filesystem sinks), the table declarations and
//! the memory budget.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{lit_str, Gen, GenResult, Task, MEMORY_BUDGET_KEY};
use crate::ir::{ConnectorKind, JoinKind};
use crate::plan::{NodeId, NodeKind};

impl Gen<'_> {
    pub(super) fn run_fn(&self, tasks: &[Task]) -> GenResult<TokenStream> {
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
            let bits = if self.probes_int_keys(n) {
                quote!(b.#j.index_ints();)
            } else if self.counts_int_keys(n) {
                quote!(b.#j.index_unique_ints();)
            } else if self.offsets_int_keys(n) {
                quote!(b.#j.index_dense_ints();)
            } else {
                quote!()
            };
            // The build's last keys are linked before it is probed.
            quote! {
                st.#j.drain();
                b.#j = std::mem::take(&mut st.#j);
                #bits
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
            steps.push(quote!(ctx.run_task(#i, || #name(ctx, &mut st, &b, &staging))?;));
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
        // `b` changes only where a join table is sealed or freed.
        let mut_b = if joins.is_empty() {
            quote!()
        } else {
            quote!(mut)
        };
        Ok(quote! {
            #[doc = " Runs every pipeline once, then commits all filesystem sinks together."]
            fn run(ctx: &mut rt::job::Context) -> rt::Result<()> {
                let staging = rt::sink::commit::Job::begin_named(&[#(#targets),*], #part_names)?;
                let result = (|| -> rt::Result<()> {
                    // The state of single-threaded pipelines (breaker outputs), and
                    // where the threads' states are folded.
                    let mut st = State::new(ctx, &staging, &Built::default(), 0, #main_pipeline)?;
                    let #mut_b b = Built::default();
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

    /// `MEMORY_BUDGET`: `SET 'stmtc.memory-budget'`, or `None` for the
    /// runtime's default (`--memory-budget` overrides either at run time).
    pub(super) fn memory_budget(&self) -> GenResult<TokenStream> {
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
    pub(super) fn tables_decl(&self) -> TokenStream {
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
}
