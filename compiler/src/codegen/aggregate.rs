//! Code generation for GROUP BY aggregates (`runtime::ops::group_table`):
//! the group table and accumulator struct `A<N>` in `State`, the push
//! (`A<N>::add`), and the task that emits one row per group.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::expr::value_type;
use super::rows::{is_copy, key_value, key_value_type, spill_impl};
use super::{col_ident, doc, lit_str, row_ident, Gen, GenResult, StateParts};
use crate::functions::AggregateFunction;
use crate::ir::{AggregateCall, Field};
use crate::plan::{never_null, NodeId, NodeKind};
use crate::types::{DataType, TypeKind};

impl Gen<'_> {
    /// An aggregate's group table in `State`, and its accumulator struct `A<N>`.
    pub(super) fn aggregate_state(
        &self,
        n: NodeId,
        group: &[usize],
        aggregates: &[AggregateCall],
        input: NodeId,
        parts: &mut StateParts,
    ) -> GenResult<()> {
        let input_schema = &self.plan.node(input).schema;
        let a = format_ident!("a{}", n.0);
        let acc = format_ident!("A{}", n.0);
        let key = self.key_type(input_schema, group);
        let mut acc_fields = Vec::new();
        let mut acc_inits = Vec::new();
        let mut acc_merges = Vec::new();
        let states = self.acc_states(aggregates, input);
        for (j, call) in aggregates.iter().enumerate() {
            let (ty, init) = match states[j] {
                AccState::Own => self.accumulator(call, input_schema)?,
                AccState::SumAvg => (
                    quote!(rt::ops::aggregate::SumAvgFloat),
                    quote!(Default::default()),
                ),
                AccState::SumRows { .. } => (
                    quote!(rt::ops::aggregate::SumFloatRows),
                    quote!(Default::default()),
                ),
                AccState::Range => (
                    quote!(rt::ops::aggregate::TimestampRange),
                    quote!(Default::default()),
                ),
                // Held by an earlier call's accumulator.
                AccState::In(_) => continue,
            };
            let x = format_ident!("x{}", j);
            acc_fields.push(quote!(#x: #ty));
            acc_inits.push(quote!(#x: #init));
            if call.function == AggregateFunction::ListAgg && !call.distinct {
                // Another thread's values go after this one's, separated.
                let separator = separator(call);
                acc_merges.push(quote!(self.#x.merge(o.#x, #separator);));
            } else {
                acc_merges.push(quote!(self.#x.merge(o.#x);));
            }
        }
        let merges = quote!(#(#acc_merges)*);
        let o = super::param(&merges, "o");
        let d = doc(&format!("Accumulators of {}", self.descriptions[n.index()]));
        parts.items.push(quote! {
            #d
            struct #acc { #(#acc_fields),* }
            impl #acc {
                fn new() -> Self { #acc { #(#acc_inits),* } }
                fn merge(&mut self, #o: Self) { #merges }
            }
        });
        if let Some(cols) = self.group_row_cols(n) {
            parts.items.push(self.group_row_struct(n, input, &cols));
        }
        let r = self.group_row(n);
        let label = self.memory_label(n, "groups");
        parts.add(
            quote!(#a: rt::ops::group_table::GroupTable<#key, #acc, #r>),
            quote!(#a: rt::ops::group_table::GroupTable::new(&ctx.memory, &ctx.spill) #label),
            quote!(self.#a.merge(o.#a, |a, p| a.merge(p))?;),
        );
        if self.defers_updates(n) {
            parts.drains.push(quote!(self.#a.drain(#acc::update)?;));
        }
        Ok(())
    }

    /// Whether aggregate `n`'s push goes through its table's queue
    /// (`GroupTable::push`), which defers updates while the table is larger
    /// than the cache: grouped aggregates whose accumulators have a fixed
    /// size. (DISTINCT sets and LISTAGG charge their growth per update; a
    /// global aggregate has one group.)
    pub(super) fn defers_updates(&self, n: NodeId) -> bool {
        matches!(&self.plan.node(n).kind, NodeKind::Aggregate { group, aggregates, .. }
            if !group.is_empty() && !grows(aggregates))
    }

    /// Whether any aggregate defers updates (the program has `State::drain`).
    pub(super) fn any_deferred_updates(&self) -> bool {
        (0..self.plan.nodes.len()).any(|i| self.defers_updates(NodeId(i as u32)))
    }

    /// The columns of its input that a deferring aggregate `n` reads (keys,
    /// arguments, filters), when they are fewer than its input row's and
    /// all `Copy`: its queued and spilled rows are then a `G<N>` of these
    /// columns only, not the whole input row (a shared view's row is
    /// several times larger, and each queued row is a copy of it).
    pub(super) fn group_row_cols(&self, n: NodeId) -> Option<Vec<usize>> {
        let NodeKind::Aggregate {
            group,
            aggregates,
            input,
            ..
        } = &self.plan.node(n).kind
        else {
            return None;
        };
        if !self.defers_updates(n) {
            return None;
        }
        let schema = &self.plan.node(*input).schema;
        let cols: BTreeSet<usize> = group
            .iter()
            .copied()
            .chain(
                aggregates
                    .iter()
                    .flat_map(|call| call.args.iter().copied().chain(call.filter)),
            )
            .collect();
        let narrower = cols.len() < self.live_cols(*input).count();
        (narrower && cols.iter().all(|&c| is_copy(&schema[c].ty)))
            .then(|| cols.into_iter().collect())
    }

    /// The row type aggregate `n`'s table keeps (queues and spills): `G<N>`
    /// (`Gen::group_row_cols`) or its input's row.
    pub(super) fn group_row(&self, n: NodeId) -> Ident {
        match (self.group_row_cols(n), &self.plan.node(n).kind) {
            (Some(_), _) => format_ident!("G{}", n.0),
            (None, NodeKind::Aggregate { input, .. }) => row_ident(*input),
            (None, _) => unreachable!("an aggregate's row type"),
        }
    }

    /// `struct G<N>`: the columns `cols` of `input` that aggregate `n` reads,
    /// under the input row's field names (so `A<N>::add` reads either).
    fn group_row_struct(&self, n: NodeId, input: NodeId, cols: &[usize]) -> TokenStream {
        let name = format_ident!("G{}", n.0);
        let schema = &self.plan.node(input).schema;
        let fields = cols.iter().map(|&c| {
            let (ident, ty) = (col_ident(c), value_type(&schema[c].ty));
            quote!(#ident: Option<#ty>)
        });
        let d = doc(&format!(
            "The columns of #{}'s rows that this aggregate reads, as its table queues and spills them: {}",
            input.0, self.descriptions[n.index()]
        ));
        let idents: Vec<Ident> = cols.iter().map(|&c| col_ident(c)).collect();
        let spill = spill_impl(&name, &idents);
        quote! {
            #d
            #[derive(Clone, Debug)]
            struct #name { #(#fields),* }
            #spill
        }
    }

    /// The task that emits one row per group (partition by partition when
    /// the groups spilled) once the aggregate's input is complete.
    pub(super) fn aggregate_results_task(
        &self,
        n: NodeId,
        group: &[usize],
        aggregates: &[AggregateCall],
        input: NodeId,
        emit: TokenStream,
        pipeline: usize,
    ) -> GenResult<TokenStream> {
        let a = format_ident!("a{}", n.0);
        let acc_ty = format_ident!("A{}", n.0);
        let input_schema = &self.plan.node(input).schema;
        let out_row = row_ident(n);
        let keys = group
            .iter()
            .enumerate()
            .filter(|&(g, _)| self.is_live(n, g))
            .map(|(g, &c)| {
                let col = col_ident(g);
                let idx = proc_macro2::Literal::usize_unsuffixed(g);
                match input_schema[c].ty.kind {
                    TypeKind::Double => {
                        quote!(#col: key.#idx.map(rt::ops::aggregate::f64_from_key))
                    }
                    TypeKind::Float => {
                        quote!(#col: key.#idx.map(|v| rt::ops::aggregate::f64_from_key(v) as f32))
                    }
                    // The key is the group's own: its strings move.
                    _ => quote!(#col: key.#idx),
                }
            });
        let states = self.acc_states(aggregates, input);
        let results = aggregates
            .iter()
            .enumerate()
            .filter(|&(j, _)| self.is_live(n, group.len() + j))
            .map(|(j, call)| {
                let col = col_ident(group.len() + j);
                let owner = match states[j] {
                    AccState::In(k) => k,
                    _ => j,
                };
                let x = format_ident!("x{}", owner);
                let result = match call.function {
                    AggregateFunction::Sum => quote!(sum),
                    AggregateFunction::Avg => quote!(avg),
                    AggregateFunction::Min => quote!(min),
                    _ => quote!(max),
                };
                let v = match states[owner] {
                    AccState::Own => self.accumulator_result(j, call, input_schema)?,
                    AccState::SumAvg | AccState::Range => quote!(acc.#x.#result()),
                    AccState::SumRows { rows } => {
                        let rows = format_ident!("x{}", rows);
                        quote!(acc.#x.#result(acc.#rows.result()))
                    }
                    AccState::In(_) => unreachable!("an owner holds its own state"),
                };
                Ok(quote!(#col: #v))
            })
            .collect::<GenResult<Vec<_>>>()?;
        let table = if group.is_empty() {
            // A global aggregate returns one row even for no input (COUNT 0, SUM NULL).
            quote! {
                let mut table = std::mem::take(&mut st.#a);
                if table.is_empty() {
                    table.group_owned((), #acc_ty::new);
                }
            }
        } else {
            quote!(let table = std::mem::take(&mut st.#a);)
        };
        let key = self.key_expr(input_schema, group);
        let in_row = self.group_row(n);
        let key_row = super::param(&key, "row");
        let out = quote!(#(#keys,)*);
        let key_param = super::param(&out, "key");
        let acc_param = super::param(&quote!(#(#results)*), "acc");
        let emit = quote! {
            |st, #key_param, #acc_param| {
                let row = #out_row { #out #(#results),* };
                #emit
                Ok(())
            }
        };
        if group.is_empty() {
            return Ok(quote! {
                #table
                table.finish(st, |#key_row: &#in_row| #key, #acc_ty::new, |acc, row| acc.add(row), #emit)?;
            });
        }
        // Many groups go out on all threads, each into a State of its own.
        Ok(quote! {
            #table
            table.finish_parallel(
                st,
                ctx.threads,
                |thread| State::new(ctx, staging, b, thread, #pipeline),
                |st, thread_state| st.absorb(ctx, thread_state),
                |#key_row: &#in_row| #key,
                #acc_ty::new,
                |acc, row| acc.add(row),
                #emit,
            )?;
        })
    }

    /// The push into an aggregate: the row's key hash, and `A<N>::update`
    /// (the row's group, created while the budget has room, else the row is
    /// spilled, updated by `A<N>::add`), through `GroupTable::push` for a
    /// table that defers updates (`Gen::defers_updates`).
    pub(super) fn aggregate_update(
        &mut self,
        n: NodeId,
        group: &[usize],
        input: &[Field],
    ) -> TokenStream {
        let a = format_ident!("a{}", n.0);
        let acc = format_ident!("A{}", n.0);
        let hash = self.key_hash(input, group);
        if let Some(cols) = self.group_row_cols(n) {
            let g = self.group_row(n);
            let fields = cols.iter().map(|&c| {
                let c = col_ident(c);
                quote!(#c: row.#c)
            });
            return quote! {
                let row = #g { #(#fields),* };
                #hash
                st.#a.push(hash, &row, #acc::update)?;
            };
        }
        if self.defers_updates(n) {
            quote! {
                #hash
                st.#a.push(hash, row, #acc::update)?;
            }
        } else {
            quote! {
                #hash
                #acc::update(&mut st.#a, hash, row)?;
            }
        }
    }

    /// `let hash = ...;`: the hash of `row`'s group key, or of its borrowed
    /// view (a key with strings or bytes), as the group table hashes it.
    fn key_hash(&self, input: &[Field], group: &[usize]) -> TokenStream {
        match self.key_view(input, group) {
            Some((views, _)) => quote! {
                let hash = rt::ops::group_map::hash(&(#(#views,)*));
            },
            None => {
                let key = self.key_expr(input, group);
                quote!(let hash = rt::ops::group_map::hash(&#key);)
            }
        }
    }

    /// A key with strings or bytes is looked up by a borrowed view of the
    /// row's columns (the owned key is built for a new group only): the
    /// view's parts and the checks of a stored key `k` against `view`.
    fn key_view(
        &self,
        input: &[Field],
        group: &[usize],
    ) -> Option<(Vec<TokenStream>, Vec<TokenStream>)> {
        if group.iter().all(|&c| is_copy(&input[c].ty)) {
            return None;
        }
        Some(
            group
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let (col, i) = (col_ident(c), Literal::usize_unsuffixed(i));
                    if is_copy(&input[c].ty) {
                        (key_value(input, c), quote!(k.#i == view.#i))
                    } else {
                        (
                            quote!(row.#col.as_deref()),
                            quote!(k.#i.as_deref() == view.#i),
                        )
                    }
                })
                .unzip(),
        )
    }

    /// `A<N>::update`: one row, whose key hashes to `hash`, into its group
    /// in `table` (every aggregate's push, directly or through the table's
    /// queue, and `State::drain`).
    fn aggregate_update_fn(&self, n: NodeId, group: &[usize], input: NodeId) -> TokenStream {
        let acc = format_ident!("A{}", n.0);
        let schema = &self.plan.node(input).schema;
        let key_ty = self.key_type(schema, group);
        let in_row = self.group_row(n);
        let key = self.key_expr(schema, group);
        let lookup = match self.key_view(schema, group) {
            Some((views, checks)) => quote! {
                let view = (#(#views,)*);
                let group = table.group_by(hash, |k| #(#checks)&&*, || #key, row, #acc::new)?;
            },
            None => quote! {
                let key = #key;
                let group = table.group_by(hash, |k| *k == key, || key, row, #acc::new)?;
            },
        };
        let grows = matches!(
            &self.plan.node(n).kind,
            NodeKind::Aggregate { aggregates, .. } if grows(aggregates)
        );
        // DISTINCT sets and LISTAGG's strings grow with their input: the
        // table charges the growth of each update to the memory budget.
        let (begin, charge) = if grows {
            (
                quote!(table.begin_update();),
                quote!(table.charge_growth();),
            )
        } else {
            (quote!(), quote!())
        };
        quote! {
            #[inline]
            fn update(
                table: &mut rt::ops::group_table::GroupTable<#key_ty, #acc, #in_row>,
                hash: u64,
                row: &#in_row,
            ) -> rt::Result<()> {
                #begin
                #lookup
                if let Some(acc) = group {
                    acc.add(row);
                    #charge
                }
                Ok(())
            }
        }
    }

    /// `impl A<N> { fn add }`: one input row into a group's accumulators
    /// (from the push, and from spilled rows when the aggregate finishes).
    pub(super) fn aggregate_add_fn(&mut self, n: NodeId) -> GenResult<TokenStream> {
        self.current = n;
        let NodeKind::Aggregate {
            aggregates, input, ..
        } = &self.plan.node(n).kind
        else {
            return Err("internal: not an aggregate".to_string());
        };
        let in_row = self.group_row(n);
        let states = self.acc_states(aggregates, *input);
        let input = &self.plan.node(*input).schema;
        let acc = format_ident!("A{}", n.0);
        let updates = aggregates
            .iter()
            .enumerate()
            .filter(|&(j, _)| !matches!(states[j], AccState::In(_)))
            .map(|(j, call)| {
                let x = format_ident!("x{}", j);
                let arg = |k: usize| {
                    let c = col_ident(call.args[k]);
                    quote!(row.#c)
                };
                let update = if call.function == AggregateFunction::ListAgg {
                    let v = arg(0);
                    if call.distinct {
                        quote!(acc.#x.add(#v.as_deref());)
                    } else {
                        let separator = separator(call);
                        quote!(acc.#x.add(#v.as_deref(), #separator);)
                    }
                } else if call.distinct {
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
        let updates = quote!(#(#updates)*);
        let row = super::param(&updates, "row");
        let update_fn = match &self.plan.node(n).kind {
            NodeKind::Aggregate { group, input, .. } => self.aggregate_update_fn(n, group, *input),
            _ => quote!(),
        };
        Ok(if updates.is_empty() {
            // No aggregate calls (grouping only): nothing to accumulate.
            quote! {
                impl #acc {
                    #[inline]
                    fn add(&mut self, _: &#in_row) {}
                    #update_fn
                }
            }
        } else {
            quote! {
                impl #acc {
                    #[inline]
                    fn add(&mut self, #row: &#in_row) {
                        let acc = self;
                        #updates
                    }
                    #update_fn
                }
            }
        })
    }

    /// Where each call of an aggregate over `input` keeps its state.
    fn acc_states(&self, aggregates: &[AggregateCall], input: NodeId) -> Vec<AccState> {
        let schema = &self.plan.node(input).schema;
        shared_states(aggregates, schema, &never_null(self.plan, input))
    }

    /// The accumulator type of one aggregate call, and its initializer.
    pub(super) fn accumulator(
        &self,
        call: &AggregateCall,
        input: &[Field],
    ) -> GenResult<(TokenStream, TokenStream)> {
        let arg_ty = call.args.first().map(|&c| input[c].ty);
        if call.function == AggregateFunction::ListAgg {
            let acc = if call.distinct {
                quote!(rt::ops::aggregate::ListAggDistinct)
            } else {
                quote!(rt::ops::aggregate::ListAgg)
            };
            return Ok((acc, quote!(Default::default())));
        }
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
    pub(super) fn accumulator_result(
        &self,
        j: usize,
        call: &AggregateCall,
        input: &[Field],
    ) -> GenResult<TokenStream> {
        let x = format_ident!("x{}", j);
        let arg_ty = call.args.first().map(|&c| input[c].ty);
        if call.function == AggregateFunction::ListAgg && call.distinct {
            let separator = separator(call);
            return Ok(quote!(acc.#x.result(#separator)));
        }
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

    pub(super) fn plain_result(
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
            AggregateFunction::ListAgg => quote!(#acc.result()),
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
}

/// LISTAGG's separator, a string literal in the generated code (Flink's
/// default is `,`).
/// Whether some call's accumulator grows with its input (DISTINCT sets,
/// LISTAGG's text): its updates charge the growth to the memory budget.
fn grows(aggregates: &[AggregateCall]) -> bool {
    aggregates
        .iter()
        .any(|c| c.distinct || c.function == AggregateFunction::ListAgg)
}

fn separator(call: &AggregateCall) -> Literal {
    lit_str(call.separator.as_deref().unwrap_or(","))
}

/// Where an aggregate call's state lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AccState {
    /// In its own accumulator, of [`Gen::accumulator`]'s type.
    Own,
    /// In its own `SumAvgFloat`, shared with a later SUM or AVG of the same
    /// argument.
    SumAvg,
    /// A SUM or AVG of a DOUBLE that is never NULL here, in its own
    /// `SumFloatRows` (shared with a later AVG or SUM of the same argument),
    /// whose count is that of the COUNT(*) of call `rows`.
    SumRows { rows: usize },
    /// A MIN or MAX of a timestamp in its own `TimestampRange`, shared with
    /// a later MAX or MIN of the same argument.
    Range,
    /// In the state of call `k`.
    In(usize),
}

/// Calls that share state, so that a group's entry stays small and each row
/// updates less:
/// - SUM and AVG of the same DOUBLE argument (same FILTER, not DISTINCT)
///   share one sum-and-count (16 bytes, not 32);
/// - when that argument is never NULL below the aggregate (`never_null`,
///   from the filters) and the calls have no FILTER, the count is the
///   group's rows, which a plain COUNT(*) already counts: the state is the
///   sum alone (8 bytes);
/// - MIN and MAX of the same timestamp share one packed range (24 bytes, not
///   32).
fn shared_states(
    aggregates: &[AggregateCall],
    input: &[Field],
    never_null: &[bool],
) -> Vec<AccState> {
    let plain = |c: &AggregateCall| !c.distinct && c.args.len() == 1;
    let sum_avg = |c: &AggregateCall| {
        matches!(c.function, AggregateFunction::Sum | AggregateFunction::Avg)
            && plain(c)
            && matches!(input[c.args[0]].ty.kind, TypeKind::Double)
    };
    let min_max = |c: &AggregateCall| {
        matches!(c.function, AggregateFunction::Min | AggregateFunction::Max)
            && plain(c)
            && matches!(
                input[c.args[0]].ty.kind,
                TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_)
            )
    };
    let count_rows = aggregates.iter().position(|c| {
        c.function == AggregateFunction::Count
            && c.args.is_empty()
            && !c.distinct
            && c.filter.is_none()
    });
    let pairs = |c: &AggregateCall| sum_avg(c) || min_max(c);
    let mut states = vec![AccState::Own; aggregates.len()];
    for (j, call) in aggregates.iter().enumerate() {
        if !pairs(call) || states[j] != AccState::Own {
            continue;
        }
        // The first partner of the other function (the argument's type
        // keeps SUM/AVG and MIN/MAX apart); any further call of the same
        // function and argument keeps its own state.
        let partner = aggregates.iter().enumerate().skip(j + 1).find(|(k, c)| {
            states[*k] == AccState::Own
                && pairs(c)
                && c.function != call.function
                && c.args == call.args
                && c.filter == call.filter
        });
        let rows = count_rows
            .filter(|_| sum_avg(call) && call.filter.is_none() && never_null[call.args[0]]);
        states[j] = match (rows, partner) {
            (Some(rows), _) => AccState::SumRows { rows },
            (None, None) => continue,
            (None, Some(_)) if sum_avg(call) => AccState::SumAvg,
            (None, Some(_)) => AccState::Range,
        };
        if let Some((k, _)) = partner {
            states[k] = AccState::In(j);
        }
    }
    states
}
