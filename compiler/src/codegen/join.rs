//! Code generation for hash joins (`runtime::ops::join`, `ops::grace`):
//! the tables in `State`/`Built`, the build and probe pushes (inner, outer,
//! semi and anti), the probe of a spooled join's replayed rows, and the
//! tasks for unmatched build rows, partitioned (grace) joins and replays.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use proc_macro2::Ident;

use super::expr::value_type;
use super::rows::{copy_of, is_copy, spill_impl};
use super::{col_ident, doc, expr, row_ident, Gen, GenResult, ProbeFrom, StateParts};
use crate::ir::{BinaryOp, ExprKind, Field, JoinKind};
use crate::plan::{NodeId, NodeKind};
use crate::types::TypeKind;

/// `row.c1.is_none() || ...` over a join's key columns: a NULL key matches
/// nothing (`None` for a join without keys).
fn null_key(keys: &[usize]) -> Option<TokenStream> {
    let checks = keys.iter().map(|&c| {
        let ident = col_ident(c);
        quote!(row.#ident.is_none())
    });
    (!keys.is_empty()).then(|| quote!(#(#checks)||*))
}

/// `row.c1.is_some() && ...`: the probe row's key has no NULL (`None` for
/// a join without keys).
fn key_present(keys: &[usize]) -> Option<TokenStream> {
    let checks = keys.iter().map(|&c| {
        let ident = col_ident(c);
        quote!(row.#ident.is_some())
    });
    (!keys.is_empty()).then(|| quote!(#(#checks)&&*))
}

/// One column of a join's build row: the right input's column `col`, and
/// whether it is held without its `Option` (`bare`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BuildCol {
    pub col: usize,
    pub bare: bool,
}

impl Gen<'_> {
    /// The columns join `n` keeps of each build row, when they are not the
    /// right input's row as it is (`None` then): the columns its residual
    /// reads and, for joins that output the right side, the live ones. Other
    /// columns are dropped. So are the key columns the table's key holds
    /// ([`Gen::key_from_probe`]; a spilled partition keeps each row's key
    /// beside it); the others are kept, a RIGHT/FULL join's for its
    /// unmatched rows. A column that is never NULL in the table is held
    /// bare (8 bytes smaller for a BIGINT): a key column (a row with a NULL
    /// key matches nothing and, but for RIGHT/FULL joins, which emit it, is
    /// not kept) and the `y` of a two-distinct build. Strings stay
    /// `Option`s (it costs them nothing).
    pub(super) fn build_cols(&self, n: NodeId) -> Option<Vec<BuildCol>> {
        let NodeKind::Join {
            kind,
            left,
            right,
            ref right_keys,
            ref residual,
            ..
        } = self.plan.node(n).kind
        else {
            return None;
        };
        let left_arity = self.plan.node(left).schema.len();
        let right_schema = &self.plan.node(right).schema;
        let mut keep = vec![false; right_schema.len()];
        for &k in right_keys {
            keep[k] = true;
        }
        if let Some(r) = residual {
            for c in crate::plan::rewrite::columns(r) {
                if let Some(slot) = c.checked_sub(left_arity).and_then(|i| keep.get_mut(i)) {
                    *slot = true;
                }
            }
        }
        if kind.outputs_right() {
            for (i, slot) in keep.iter_mut().enumerate() {
                *slot |= self.is_live(n, left_arity + i);
            }
        }
        let outer = matches!(kind, JoinKind::Right | JoinKind::Full);
        let y = self.distinct_build_column(n);
        let cols: Vec<BuildCol> = (0..keep.len())
            .filter(|&c| keep[c] && self.key_from_probe(n, c).is_none())
            .map(|col| BuildCol {
                col,
                bare: !outer
                    && is_copy(&right_schema[col].ty)
                    && (right_keys.contains(&col) || y == Some(col)),
            })
            .collect();
        let as_is =
            cols.iter().all(|c| !c.bare) && cols.iter().map(|c| c.col).eq(self.live_cols(right));
        (!as_is).then_some(cols)
    }

    /// Where build column `c` of join `n` is one of its key columns that the
    /// table need not hold: its position in the key tuple. A matched build
    /// row's key equals the probe's (`key` where the probe reads the table),
    /// value for value when both sides have the same type and that type's
    /// equality is identity (not floats: their keys are bits, and -0.0 and
    /// NaN have several). Not for RIGHT/FULL joins, whose unmatched rows
    /// output the column.
    pub(super) fn key_from_probe(&self, n: NodeId, c: usize) -> Option<usize> {
        let NodeKind::Join {
            kind,
            left,
            right,
            ref left_keys,
            ref right_keys,
            ..
        } = self.plan.node(n).kind
        else {
            return None;
        };
        if matches!(kind, JoinKind::Right | JoinKind::Full) {
            return None;
        }
        let at = right_keys.iter().position(|&k| k == c)?;
        let r = &self.plan.node(right).schema[c].ty;
        let l = &self.plan.node(left).schema[left_keys[at]].ty;
        let exact = !matches!(r.kind, TypeKind::Float | TypeKind::Double);
        (exact && l.kind == r.kind).then_some(at)
    }

    /// The type of join `n`'s build rows: `B<n>` when [`Gen::build_cols`]
    /// narrows them, else the right input's row type.
    pub(super) fn build_row_ident(&self, n: NodeId) -> Ident {
        match self.plan.node(n).kind {
            NodeKind::Join { right, .. } if self.build_cols(n).is_none() => row_ident(right),
            _ => format_ident!("B{}", n.0),
        }
    }

    /// `struct B<n>` and its `Spill`, for a join whose build rows are narrowed.
    pub(super) fn build_row_struct(&self, n: NodeId) -> Option<TokenStream> {
        let cols = self.build_cols(n)?;
        let NodeKind::Join { right, .. } = self.plan.node(n).kind else {
            return None;
        };
        let schema = &self.plan.node(right).schema;
        let name = format_ident!("B{}", n.0);
        let fields = cols.iter().map(|c| {
            let ident = col_ident(c.col);
            let f = &schema[c.col];
            let ty = value_type(&f.ty);
            let d = doc(&format!("`{}` {}", f.name.replace('`', "'"), f.ty));
            if c.bare {
                quote!(#d #ident: #ty)
            } else {
                quote!(#d #ident: Option<#ty>)
            }
        });
        let idents: Vec<Ident> = cols.iter().map(|c| col_ident(c.col)).collect();
        let d = doc(&format!(
            "A build row of #{}: the columns it reads of #{}'s rows",
            n.0, right.0
        ));
        let spill = spill_impl(&name, &idents);
        Some(quote! {
            #d
            #[derive(Clone, Debug, Default)]
            struct #name { #(#fields),* }
            #spill
        })
    }

    /// The build row of join `n` made of its right input's `row` (after the
    /// checks that its bare columns are not NULL).
    fn to_build_row(&self, n: NodeId) -> TokenStream {
        let NodeKind::Join { right, .. } = self.plan.node(n).kind else {
            return quote!(row.clone());
        };
        let Some(cols) = self.build_cols(n) else {
            return quote!(row.clone());
        };
        let schema = &self.plan.node(right).schema;
        let name = format_ident!("B{}", n.0);
        let fields = cols.iter().map(|c| {
            let ident = col_ident(c.col);
            let v = copy_of(quote!(row.#ident), &schema[c.col].ty);
            if c.bare {
                quote!(#ident: #v.unwrap_or_default())
            } else {
                quote!(#ident: #v)
            }
        });
        quote!(#name { #(#fields,)* })
    }

    /// For each column of join `n`'s right input, how a probe reads it as
    /// the right input's row would hold it (an `Option`), where build row
    /// `r` does not hold it so: from the probe's `key`, or a bare column
    /// wrapped; `None` where `r.c<i>` is the value itself.
    fn build_reads(&self, n: NodeId) -> Vec<Option<TokenStream>> {
        let NodeKind::Join { right, .. } = self.plan.node(n).kind else {
            return Vec::new();
        };
        let schema = &self.plan.node(right).schema;
        let cols = self.build_cols(n).unwrap_or_default();
        (0..schema.len())
            .map(|c| {
                if let Some(at) = self.key_from_probe(n, c) {
                    let at = proc_macro2::Literal::usize_unsuffixed(at);
                    let v = copy_of(quote!(key.#at), &schema[c].ty);
                    return Some(quote!(Some(#v)));
                }
                // A bare column is `Copy`.
                let ident = col_ident(c);
                cols.iter()
                    .any(|b| b.col == c && b.bare)
                    .then(|| quote!(Some(r.#ident)))
            })
            .collect()
    }

    /// The build column `y` of a semi or anti join whose residual is just
    /// `probe.x <> build.y` over a type whose equality is an equivalence
    /// (integers, dates, strings; not floats, whose NaN and signed zeros are
    /// not): such a join needs only two build rows with distinct `y` per key
    /// (`BuildTable::insert_two_distinct`), and none whose `y` is NULL (the
    /// residual is never TRUE for them).
    fn distinct_build_column(&self, n: NodeId) -> Option<usize> {
        let NodeKind::Join {
            kind: JoinKind::Semi | JoinKind::Anti,
            left,
            right,
            residual: Some(residual),
            ..
        } = &self.plan.node(n).kind
        else {
            return None;
        };
        let ExprKind::Binary {
            op: BinaryOp::NotEq,
            left: a,
            right: b,
        } = &residual.kind
        else {
            return None;
        };
        let (ExprKind::Column(a), ExprKind::Column(b)) = (&a.kind, &b.kind) else {
            return None;
        };
        let left_arity = self.plan.node(*left).schema.len();
        let (x, y) = match (*a < left_arity, *b < left_arity) {
            (true, false) => (*a, *b - left_arity),
            (false, true) => (*b, *a - left_arity),
            _ => return None,
        };
        let x_ty = &self.plan.node(*left).schema.get(x)?.ty;
        let y_ty = &self.plan.node(*right).schema.get(y)?.ty;
        let equivalence = matches!(
            y_ty.kind,
            TypeKind::TinyInt
                | TypeKind::SmallInt
                | TypeKind::Int
                | TypeKind::BigInt
                | TypeKind::Date
                | TypeKind::Char(_)
                | TypeKind::Varchar(_)
        );
        (equivalence && x_ty.kind == y_ty.kind).then_some(y)
    }

    /// Join `n`'s kind and inputs when it has no residual and one key
    /// column, BIGINT or INT on both sides: its keys may become bits.
    fn int_key_join(&self, n: NodeId) -> Option<(JoinKind, NodeId, NodeId)> {
        let NodeKind::Join {
            kind,
            left,
            right,
            ref left_keys,
            ref right_keys,
            residual: None,
        } = self.plan.node(n).kind
        else {
            return None;
        };
        let (&[l], &[r]) = (&left_keys[..], &right_keys[..]) else {
            return None;
        };
        let (l, r) = (
            self.plan.node(left).schema[l].ty.kind,
            self.plan.node(right).schema[r].ty.kind,
        );
        (l == r && matches!(r, TypeKind::BigInt | TypeKind::Int)).then_some((kind, left, right))
    }

    /// Whether join `n` only asks whether a key exists (a semi or anti join
    /// without a residual) on one BIGINT or INT column: its complete build
    /// may become bits over the keys' range (`BuildTable::index_ints`),
    /// probed with `contains_int`.
    pub(super) fn probes_int_keys(&self, n: NodeId) -> bool {
        matches!(
            self.int_key_join(n),
            Some((JoinKind::Semi | JoinKind::Anti, ..))
        )
    }

    /// Whether inner join `n` reads nothing of its build rows but how many
    /// have the probe's key (no build column is live, no residual), on one
    /// BIGINT or INT column: a complete build whose keys are unique may
    /// become bits (`BuildTable::index_unique_ints`), and the probe emits
    /// its row `count_int` times.
    pub(super) fn counts_int_keys(&self, n: NodeId) -> bool {
        let Some((JoinKind::Inner, left, right)) = self.int_key_join(n) else {
            return false;
        };
        let left_arity = self.plan.node(left).schema.len();
        (0..self.plan.node(right).schema.len()).all(|i| !self.is_live(n, left_arity + i))
    }

    /// Whether inner or LEFT join `n` reads its build rows, on one BIGINT or
    /// INT column without a residual: a complete build whose keys are
    /// unique and dense finds each row by its key's offset
    /// (`BuildTable::index_dense_ints`), probed with `probe_int`.
    pub(super) fn offsets_int_keys(&self, n: NodeId) -> bool {
        matches!(
            self.int_key_join(n),
            Some((JoinKind::Inner | JoinKind::Left, ..))
        ) && !self.counts_int_keys(n)
    }

    /// A join's tables in `State` and `Built`: the build table (written while
    /// its build side runs, then moved to `Built` and probed), the probe rows
    /// waiting for a partitioned build, the spool of a spooled join, and the
    /// matched-row marks of a RIGHT/FULL join.
    pub(super) fn join_state(&self, n: NodeId, parts: &mut StateParts) -> GenResult<()> {
        let NodeKind::Join {
            kind,
            left,
            right,
            ref right_keys,
            ..
        } = self.plan.node(n).kind
        else {
            return Err(format!("#{} is not a join", n.0));
        };
        let j = format_ident!("j{}", n.0);
        let m = format_ident!("m{}", n.0);
        let g = format_ident!("g{}", n.0);
        let key = self.join_key_type(&self.plan.node(right).schema, right_keys);
        let r = self.build_row_ident(n);
        let l = row_ident(left);
        let label = self.memory_label(n, "join build");
        parts.add(
            quote!(#j: rt::ops::grace::BuildTable<#key, #r>),
            quote!(#j: rt::ops::grace::BuildTable::new(&ctx.memory, &ctx.spill) #label),
            quote!(self.#j.merge(o.#j)?;),
        );
        parts
            .built
            .push(quote!(#j: rt::ops::grace::BuildTable<#key, #r>));
        let d = doc(&format!(
            "Probe rows of #{} waiting for a partitioned build, by partition",
            n.0
        ));
        parts.add(
            quote!(#d #g: rt::ops::grace::ProbeSpill<#l>),
            quote!(#g: rt::ops::grace::ProbeSpill::new(&ctx.spill)),
            quote!(self.#g.absorb(o.#g)?;),
        );
        if self.spooled.contains(&n) {
            let q = format_ident!("q{}", n.0);
            let d = doc(&format!(
                "Probe rows of #{} waiting for its build side",
                n.0
            ));
            let label = self.memory_label(n, "probe rows waiting for the build");
            parts.add(
                quote!(#d #q: rt::ops::spool::Spool<#l>),
                quote!(#q: rt::ops::spool::Spool::new(&ctx.memory, std::sync::Arc::clone(&ctx.spill)) #label),
                quote!(self.#q.absorb(o.#q)?;),
            );
        }
        if matches!(kind, JoinKind::Right | JoinKind::Full) {
            parts.add(
                quote!(#m: rt::ops::join::MatchedRows),
                quote!(#m: rt::ops::join::MatchedRows::new(b.#j.len())),
                quote!(self.#m.merge(&o.#m);),
            );
        }
        Ok(())
    }

    /// The push into input `k` of a join: a build row into the table (input
    /// 1), or a probe row (input 0) probed now or spooled for later.
    pub(super) fn join_push(&mut self, n: NodeId, k: usize) -> GenResult<TokenStream> {
        let NodeKind::Join {
            right,
            ref right_keys,
            ..
        } = self.plan.node(n).kind
        else {
            return Err(format!("#{} is not a join", n.0));
        };
        if k == 1 {
            self.join_build(n, right_keys, &self.plan.node(right).schema)
        } else if self.spooled.contains(&n) {
            // Replayed by its own pipeline once the build is complete.
            let q = format_ident!("q{}", n.0);
            Ok(quote!(st.#q.push(row)?;))
        } else {
            self.join_probe(n, ProbeFrom::Built)
        }
    }

    /// The task that emits a RIGHT/FULL join's build rows no probe matched.
    pub(super) fn unmatched_rows_task(&self, n: NodeId, emit: TokenStream) -> TokenStream {
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

    /// The task that joins a partitioned build with its waiting probe rows,
    /// partition by partition (a no-op for a build that stayed in memory).
    pub(super) fn partitioned_join_task(
        &self,
        n: NodeId,
        pipeline: usize,
    ) -> GenResult<TokenStream> {
        let NodeKind::Join {
            kind,
            left,
            ref left_keys,
            ..
        } = self.plan.node(n).kind
        else {
            return Err(format!("#{} is not a join", n.0));
        };
        let j = format_ident!("j{}", n.0);
        let g = format_ident!("g{}", n.0);
        let l = row_ident(left);
        let probe_key = self.join_key_expr(&self.plan.node(left).schema, left_keys);
        let probe = format_ident!("partition_probe_{}", n.0);
        let probe_row = super::param(&probe_key, "row");
        let outer = matches!(kind, JoinKind::Right | JoinKind::Full);
        let unmatched = if outer {
            let f = format_ident!("partition_unmatched_{}", n.0);
            quote!(|st: &mut State, r| #f(st, b, r))
        } else {
            quote!(|_, _| Ok(()))
        };
        // The partition pairs are joined on all threads, each thread with
        // its own state (its own part files), folded in afterwards.
        Ok(quote! {
            let probe = std::mem::take(&mut st.#g);
            let states = b.#j.join_spilled(
                ctx.threads,
                probe,
                #outer,
                |thread| State::new(ctx, staging, b, thread, #pipeline),
                |#probe_row: &#l| #probe_key,
                |st: &mut State, t, m, row| #probe(st, b, t, m, row),
                #unmatched,
            )?;
            for thread_state in states {
                st.absorb(ctx, thread_state)?;
            }
        })
    }

    /// The task that replays a spooled join's probe rows once its build is
    /// complete: by every thread, each with its own operator state (folded
    /// in afterwards, as after a scan), a spool of one chunk by one.
    pub(super) fn spool_replay_task(&self, n: NodeId, pipeline: usize) -> TokenStream {
        let q = format_ident!("q{}", n.0);
        let probe = format_ident!("probe_{}", n.0);
        quote! {
            let empty = st.#q.emptied();
            let rows = std::mem::replace(&mut st.#q, empty);
            let states = rows.replay_parallel(
                ctx.threads,
                |thread| State::new(ctx, staging, b, thread, #pipeline),
                |st, row| {
                    let st = st.as_mut().map_err(|e| rt::Error::new(e.message().to_string()))?;
                    #probe(st, b, row)
                },
            )?;
            for thread_state in states {
                st.absorb(ctx, thread_state?)?;
            }
        }
    }

    pub(super) fn join_build(
        &self,
        n: NodeId,
        right_keys: &[usize],
        right: &[Field],
    ) -> GenResult<TokenStream> {
        let j = format_ident!("j{}", n.0);
        let key = self.join_key_expr(right, right_keys);
        // A semi or anti join without a residual asks only whether a key
        // exists: one build row per key is enough.
        let exists_only = matches!(
            self.plan.node(n).kind,
            NodeKind::Join {
                kind: JoinKind::Semi | JoinKind::Anti,
                residual: None,
                ..
            }
        );
        let built = self.to_build_row(n);
        let insert = if exists_only {
            quote!(st.#j.insert_first(#key, #built)?;)
        } else if let Some(y) = self.distinct_build_column(n) {
            let y = col_ident(y);
            quote! {
                if row.#y.is_some() {
                    st.#j.insert_two_distinct(#key, #built, |kept, new| kept.#y == new.#y)?;
                }
            }
        } else {
            quote!(st.#j.insert(#key, #built)?;)
        };
        let outer = matches!(
            self.plan.node(n).kind,
            NodeKind::Join {
                kind: JoinKind::Right | JoinKind::Full,
                ..
            }
        );
        Ok(match null_key(right_keys) {
            // A NULL key matches nothing, but RIGHT/FULL joins still emit the row.
            Some(null) if outer => quote! {
                if #null {
                    st.#j.insert_unmatchable(#built)?;
                } else {
                    #insert
                }
            },
            Some(_) => {
                let present = key_present(right_keys);
                quote! {
                    if #present {
                        #insert
                    }
                }
            }
            None => insert,
        })
    }

    /// The probe of join `n` for one row of its left input `row`.
    pub(super) fn join_probe(&mut self, n: NodeId, from: ProbeFrom) -> GenResult<TokenStream> {
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
        if !kind.outputs_right() {
            return self.semi_probe(n, kind, left_arity, left_keys, residual, from);
        }
        let out_row = row_ident(n);
        let key = self.join_key_expr(left_schema, left_keys);
        let joined = |right_value: &dyn Fn(usize) -> TokenStream| {
            let l = (0..left_arity).filter(|&i| self.is_live(n, i)).map(|i| {
                let c = col_ident(i);
                let v = copy_of(quote!(row.#c), &self.plan.node(n).schema[i].ty);
                quote!(#c: #v)
            });
            let r = (0..right_arity)
                .filter(|&i| self.is_live(n, left_arity + i))
                .map(|i| {
                    let c = col_ident(left_arity + i);
                    let v = right_value(i);
                    quote!(#c: #v)
                });
            quote!(#out_row { #(#l,)* #(#r,)* })
        };
        let right_schema = &plan.node(right).schema;
        let reads = self.build_reads(n);
        let matched_row = joined(&|i| match &reads[i] {
            Some(read) => read.clone(),
            None => {
                let c = col_ident(i);
                copy_of(quote!(r.#c), &right_schema[i].ty)
            }
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
        let marks = matches!(kind, JoinKind::Right | JoinKind::Full);
        let (mark, idx) = if marks {
            (mark, quote!(idx))
        } else {
            (quote!(), quote!(_))
        };
        let route = self.route_to_partition(n, from);
        let emit = self.emit(n, quote!(out));
        if from == ProbeFrom::Built && self.counts_int_keys(n) {
            // The output row is the probe row's columns, once per build row.
            let count = quote! {
                let key = #key;
                #route
                for _ in 0..#table.count_int(&key) {
                    let out = #matched_row;
                    #emit
                }
            };
            return Ok(match key_present(left_keys) {
                Some(present) => quote!(if #present { #count }),
                None => count,
            });
        }
        let r_var = super::param(&matched_row, "r");
        let rows = if from == ProbeFrom::Built && self.offsets_int_keys(n) {
            quote!(#table.probe_int(&key))
        } else {
            quote!(#table.probe(&key))
        };
        let probe = |on_match: TokenStream| {
            let probe = quote! {
                let key = #key;
                #route
                for (#idx, #r_var) in #rows {
                    let out = #matched_row;
                    #check
                    #on_match
                    #mark
                    #emit
                }
            };
            match key_present(left_keys) {
                Some(present) => quote!(if #present { #probe }),
                None => probe,
            }
        };
        // A LEFT/FULL join emits the probe row with NULLs when no build row matched.
        Ok(if matches!(kind, JoinKind::Left | JoinKind::Full) {
            let probe = probe(quote!(matched = true;));
            quote! {
                let mut matched = false;
                #probe
                if !matched {
                    let out = #null_row;
                    #emit
                }
            }
        } else {
            probe(quote!())
        })
    }

    /// The table a probe reads and how it marks a matched build row.
    pub(super) fn probe_table(&self, n: NodeId, from: ProbeFrom) -> (TokenStream, TokenStream) {
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
    pub(super) fn route_to_partition(&self, n: NodeId, from: ProbeFrom) -> TokenStream {
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
    pub(super) fn semi_probe(
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
        let key = self.join_key_expr(&plan.node(left).schema, left_keys);
        let reads = self.build_reads(n);
        let column = |i: usize| {
            if i < left_arity {
                let c = col_ident(i);
                quote!(row.#c)
            } else if let Some(Some(read)) = reads.get(i - left_arity) {
                read.clone()
            } else {
                let c = col_ident(i - left_arity);
                quote!(r.#c)
            }
        };
        let out_row = row_ident(n);
        let fields: Vec<TokenStream> = self
            .live_cols(n)
            .map(|i| {
                let c = col_ident(i);
                let v = copy_of(quote!(row.#c), &self.plan.node(n).schema[i].ty);
                quote!(#c: #v)
            })
            .collect();
        let emit = self.emit(n, quote!(out));
        let wanted = if kind == JoinKind::Semi {
            quote!(matched)
        } else {
            quote!(!matched)
        };
        // Some build row with the key that satisfies the residual.
        let any = match residual {
            Some(r) => {
                let e = expr::expr(r, &column, &mut self.statics)?;
                quote!(.any(|(_, r)| rt::value::logic::is_true(#e)))
            }
            None => quote!(.next().is_some()),
        };
        let lookup = if from == ProbeFrom::Built && residual.is_none() && self.probes_int_keys(n) {
            quote!(#table.contains_int(&key))
        } else {
            quote!(#table.probe(&key) #any)
        };
        let probe = quote!({
            let key = #key;
            #route
            #lookup
        });
        let matched = match key_present(left_keys) {
            Some(present) => quote!(#present && #probe),
            None => probe,
        };
        Ok(quote! {
            let matched = #matched;
            if #wanted {
                let out = #out_row { #(#fields,)* };
                #emit
            }
        })
    }

    /// `probe_N`: the probe of a spooled join, called for each replayed row.
    pub(super) fn replayed_probe_fn(&mut self, n: NodeId) -> GenResult<TokenStream> {
        self.current = n;
        let NodeKind::Join { left, .. } = &self.plan.node(n).kind else {
            return Err("internal: only joins are spooled".to_string());
        };
        let body = self.join_probe(n, ProbeFrom::Built)?;
        let name = format_ident!("probe_{}", n.0);
        let in_row = row_ident(*left);
        let d = self.node_doc(n);
        let (b, row) = (super::param(&body, "b"), super::param(&body, "row"));
        Ok(quote! {
            #d
            fn #name(st: &mut State, #b: &Built, #row: &#in_row) -> rt::Result<()> {
                #body
                Ok(())
            }
        })
    }

    /// A RIGHT/FULL join's output row for build row `r` that nothing matched.
    pub(super) fn unmatched_build_row(&self, n: NodeId) -> TokenStream {
        let NodeKind::Join { left, right, .. } = self.plan.node(n).kind else {
            unreachable!("only joins have unmatched build rows")
        };
        let left_arity = self.plan.node(left).schema.len();
        let right_schema = &self.plan.node(right).schema;
        let out_row = row_ident(n);
        let l = (0..left_arity).filter(|&i| self.is_live(n, i)).map(|i| {
            let c = col_ident(i);
            quote!(#c: None)
        });
        let r = (0..right_schema.len())
            .filter(|&i| self.is_live(n, left_arity + i))
            .map(|i| {
                let c = col_ident(left_arity + i);
                let rc = col_ident(i);
                let v = copy_of(quote!(r.#rc), &right_schema[i].ty);
                quote!(#c: #v)
            });
        quote!(#out_row { #(#l,)* #(#r,)* })
    }

    /// `partition_probe_N` (and `partition_unmatched_N` for RIGHT/FULL
    /// joins): the probe of one partition of a partitioned build.
    pub(super) fn partition_fns(&mut self, n: NodeId) -> GenResult<TokenStream> {
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
        let key = self.join_key_type(&self.plan.node(*right).schema, right_keys);
        let l = row_ident(*left);
        let r = self.build_row_ident(n);
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
        let (b, row) = (super::param(&body, "b"), super::param(&body, "row"));
        Ok(quote! {
            #d
            fn #name(st: &mut State, #b: &Built, t: &rt::ops::join::JoinTable<#key, #r>, #marks: &mut rt::ops::join::MatchedRows, #row: &#l) -> rt::Result<()> {
                #body
                Ok(())
            }
            #unmatched
        })
    }
}
