//! Code generation for OVER nodes (`runtime::ops::over`): the state that
//! buffers the input (or a Top-N per partition), the push that fills it, and
//! the task that sorts by partition and order keys and computes each
//! window call per partition.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::expr::value_type;
use super::rows::copy_of;
use super::{col_ident, is_copy, row_ident, Gen, GenResult, StateParts};
use crate::functions::AggregateFunction;
use crate::ir::over::{Frame, FrameBound, FrameUnit, OverCall, OverFunction, RankLimit};
use crate::ir::{AggregateCall, Field, SortKey};
use crate::plan::{NodeId, NodeKind};
use crate::types::TypeKind;

struct OverNode<'p> {
    input: NodeId,
    partition: &'p [usize],
    order: &'p [SortKey],
    calls: &'p [OverCall],
    limit: Option<RankLimit>,
}

fn parts_of(kind: &NodeKind) -> GenResult<OverNode<'_>> {
    match kind {
        NodeKind::Over {
            input,
            partition,
            order,
            calls,
            limit,
        } => Ok(OverNode {
            input: *input,
            partition,
            order,
            calls,
            limit: *limit,
        }),
        _ => Err("internal: not an OVER node".to_string()),
    }
}

fn partition_keys(partition: &[usize]) -> Vec<SortKey> {
    partition
        .iter()
        .map(|&column| SortKey {
            column,
            descending: false,
            nulls_first: true,
        })
        .collect()
}

impl Gen<'_> {
    fn rank_kind(&self, calls: &[OverCall]) -> GenResult<TokenStream> {
        Ok(match calls.first().map(|c| c.function) {
            Some(OverFunction::RowNumber) => quote!(rt::ops::over::RankKind::RowNumber),
            Some(OverFunction::Rank) => quote!(rt::ops::over::RankKind::Rank),
            Some(OverFunction::DenseRank) => quote!(rt::ops::over::RankKind::DenseRank),
            _ => return Err("internal: a Top-N over a non-ranking function".to_string()),
        })
    }

    /// A nested `fn order_cmp` over two input rows, by the ORDER BY keys.
    fn order_fn(&self, over: &OverNode<'_>) -> TokenStream {
        let r = row_ident(over.input);
        let cmp = self.sort_comparator(over.order, &self.plan.node(over.input).schema);
        super::row_cmp_fn("order_cmp", &r, &cmp)
    }

    /// The State field of an OVER node: its input rows in a sort buffer
    /// (bounded by the memory budget; `over_cmp_N` orders them by partition
    /// and order keys), or a Top-N per partition.
    pub(super) fn over_state(&self, n: NodeId, parts: &mut StateParts) -> GenResult<()> {
        let over = parts_of(&self.plan.node(n).kind)?;
        let o = format_ident!("o{}", n.0);
        let r = row_ident(over.input);
        let d = super::doc(&format!("Rows of {}", self.descriptions[n.index()]));
        match over.limit {
            None => {
                let f = format_ident!("over_cmp_{}", n.0);
                let mut keys = partition_keys(over.partition);
                keys.extend(over.order.iter().copied());
                let cmp = self.sort_comparator(&keys, &self.plan.node(over.input).schema);
                let cmp_fn = super::row_cmp_fn(&f.to_string(), &r, &cmp);
                let fd = super::doc(&format!("The partition and order of #{}", n.0));
                parts.items.push(quote!(#fd #[inline] #cmp_fn));
                let label = self.memory_label(n, "window rows");
                parts.add(
                    quote!(#d #o: rt::ops::external_sort::SortBuffer<#r>),
                    quote!(#o: rt::ops::external_sort::SortBuffer::new(&ctx.memory, &ctx.spill) #label),
                    quote!(self.#o.absorb(o.#o, #f)?;),
                );
            }
            Some(limit) => {
                let key = self.key_type(&self.plan.node(over.input).schema, over.partition);
                let kind = self.rank_kind(over.calls)?;
                let hi = limit.hi.max(0) as u64;
                let order_fn = self.order_fn(&over);
                parts.add(
                    quote!(#d #o: rt::ops::over::TopN<#key, #r>),
                    quote!(#o: rt::ops::over::TopN::new(#kind, #hi)),
                    quote!({
                        #order_fn
                        self.#o.merge(o.#o, &mut order_cmp);
                    }),
                );
            }
        }
        Ok(())
    }

    /// The push into an OVER node: buffer the row (or offer it to the Top-N).
    /// (Generated with `current` set to the node, so refusals here are
    /// located at it.)
    pub(super) fn over_push(&self, n: NodeId) -> GenResult<TokenStream> {
        let over = parts_of(&self.plan.node(n).kind)?;
        let o = format_ident!("o{}", n.0);
        Ok(match over.limit {
            None => {
                let f = format_ident!("over_cmp_{}", n.0);
                quote!(st.#o.push(row.clone(), #f)?;)
            }
            Some(limit) => {
                // Flink 2.3 plans a filtered RANK as its Rank node, which
                // refuses an end below 1 (ROW_NUMBER and DENSE_RANK stay a
                // filter there and give no rows).
                if limit.hi < 1
                    && over.calls.first().map(|c| c.function) == Some(OverFunction::Rank)
                {
                    return Err(format!(
                        "Rank end should not less than zero, but now is {}",
                        limit.hi
                    ));
                }
                let key = self.key_expr(&self.plan.node(over.input).schema, over.partition);
                let order_fn = self.order_fn(&over);
                quote! {
                    #order_fn
                    st.#o.push(#key, row.clone(), &mut order_cmp);
                }
            }
        })
    }

    /// The task that emits an OVER node's rows once its input is complete.
    pub(super) fn over_task(&mut self, n: NodeId, emit: TokenStream) -> GenResult<TokenStream> {
        let plan = self.plan;
        let node = plan.node(n);
        let over = parts_of(&node.kind)?;
        let o = format_ident!("o{}", n.0);
        let out_row = row_ident(n);
        let input_schema = &plan.node(over.input).schema;
        let arity = input_schema.len();
        if let Some(limit) = over.limit {
            let kind = self.rank_kind(over.calls)?;
            let (lo, hi) = (limit.lo, limit.hi.max(0) as u64);
            let order_fn = self.order_fn(&over);
            let copies = self.live_cols(n).filter(|&i| i < arity).map(|i| {
                let c = col_ident(i);
                quote!(#c: r.#c)
            });
            let (rank, rank_var) = if self.is_live(n, arity) {
                let c = col_ident(arity);
                (quote!(#c: Some(rank)), quote!(rank))
            } else {
                (quote!(), quote!(_))
            };
            return Ok(quote! {
                #order_fn
                let top = std::mem::replace(&mut st.#o, rt::ops::over::TopN::new(#kind, #hi));
                for (_, rows) in top.finish(#lo, order_cmp) {
                    for (r, #rank_var) in rows {
                        let row = #out_row { #(#copies,)* #rank };
                        #emit
                    }
                }
            });
        }
        let by_partition = self.sort_comparator(&partition_keys(over.partition), input_schema);
        let by_order = self.sort_comparator(over.order, input_schema);
        let r = row_ident(over.input);
        let mut values = Vec::new();
        let mut fields = Vec::new();
        // One frame computation per distinct frame of the partition.
        let mut frames: Vec<Frame> = Vec::new();
        let mut frame_stmts = Vec::new();
        // Only the calls some consumer reads are computed.
        let live = self.live[n.index()].clone();
        for (k, call) in over
            .calls
            .iter()
            .enumerate()
            .filter(|&(k, _)| live[arity + k])
        {
            let v = format_ident!("v{}", k);
            let vt = value_type(&call.ty);
            let value = self.over_value(
                call,
                input_schema,
                over.order,
                &mut frames,
                &mut frame_stmts,
            )?;
            values.push(quote!(let #v: Vec<Option<#vt>> = #value;));
            let c = col_ident(arity + k);
            fields.push(quote!(#c: #v[i].clone()));
        }
        let schema = &self.plan.node(n).schema;
        let copies = self.live_cols(n).filter(|&i| i < arity).map(|i| {
            let c = col_ident(i);
            let v = copy_of(quote!(r.#c), &schema[i].ty);
            quote!(#c: #v)
        });
        let row_fields = quote!(#(#copies,)* #(#fields),*);
        let (i, r_var) = (
            super::param(&row_fields, "i"),
            super::param(&row_fields, "r"),
        );
        let same_partition = super::row_cmp_fn("same_partition", &r, &by_partition);
        let same_order = super::row_cmp_fn("same_order", &r, &by_order);
        let computed = quote!(#(#frame_stmts)* #(#values)*);
        let peers = if super::mentions(&computed, "peers") {
            quote!(let peers = rt::ops::over::peer_groups(part, |a, b| same_order(a, b).is_eq());)
        } else {
            quote!()
        };
        let same_order = if super::mentions(&quote!(#peers #computed), "same_order") {
            same_order
        } else {
            quote!()
        };
        let f = format_ident!("over_cmp_{}", n.0);
        Ok(quote! {
            let rows = std::mem::take(&mut st.#o);
            #same_partition
            #same_order
            // One partition at a time, in order: each computed column needs
            // its whole partition, and only that one is in memory.
            let mut part: Vec<#r> = Vec::new();
            let partition = |st: &mut State, part: &[#r]| -> rt::Result<()> {
                #peers
                #computed
                for (#i, #r_var) in part.iter().enumerate() {
                    let row = #out_row { #row_fields };
                    #emit
                }
                Ok(())
            };
            rows.sorted(#f, |input| {
                if part.first().is_some_and(|first| same_partition(first, &input).is_ne()) {
                    partition(st, &part)?;
                    part.clear();
                }
                part.push(input);
                Ok(())
            })?;
            if !part.is_empty() {
                partition(st, &part)?;
            }
        })
    }

    /// The expression computing one call's column for the partition `part`
    /// (a `Vec<Option<T>>`).
    fn over_value(
        &mut self,
        call: &OverCall,
        input: &[Field],
        order: &[SortKey],
        frames: &mut Vec<Frame>,
        frame_stmts: &mut Vec<TokenStream>,
    ) -> GenResult<TokenStream> {
        let wrap = |f: TokenStream| quote!(#f.into_iter().map(Some).collect());
        Ok(match call.function {
            OverFunction::RowNumber => wrap(quote!(rt::ops::over::row_number(&peers))),
            OverFunction::Rank => wrap(quote!(rt::ops::over::rank(&peers))),
            OverFunction::DenseRank => wrap(quote!(rt::ops::over::dense_rank(&peers))),
            OverFunction::PercentRank => wrap(quote!(rt::ops::over::percent_rank(&peers))),
            OverFunction::CumeDist => wrap(quote!(rt::ops::over::cume_dist(&peers))),
            OverFunction::Ntile(b) => wrap(quote!(rt::ops::over::ntile(part.len(), #b))),
            OverFunction::Lag(offset) | OverFunction::Lead(offset) => {
                let lead = matches!(call.function, OverFunction::Lead(_));
                let value = col_ident(call.args[0]);
                // The value is NOT NULL when there is a default (the binder
                // refuses a nullable one).
                let default = match call.args.get(1) {
                    Some(&d) => {
                        let d = col_ident(d);
                        quote!(part[i].#d.clone())
                    }
                    None => quote!(None),
                };
                quote! {
                    (0..part.len()).map(|i| match rt::ops::over::offset_row(i, part.len(), #offset, #lead) {
                        Some(j) => part[j].#value.clone(),
                        None => #default,
                    }).collect()
                }
            }
            OverFunction::FirstValue
            | OverFunction::LastValue
            | OverFunction::Aggregate(_)
            | OverFunction::ListAgg => {
                let f = self.frame_of(call.frame, input, order, frames, frame_stmts)?;
                let (acc_ty, init, add, result) = self.frame_accumulator(call, input)?;
                // COUNT(*) adds a row without reading it.
                let (row, j) = if super::mentions(&add, "row") {
                    (quote!(let row = &part[j];), quote!(j))
                } else {
                    (quote!(), quote!(_))
                };
                quote! {
                    rt::ops::over::over_frames(&#f, || -> #acc_ty { #init }, |acc: &mut #acc_ty, #j: usize| {
                        #row
                        #add
                    }, |acc: &#acc_ty| #result)
                }
            }
        })
    }

    /// The variable holding the partition's frames for `frame`, declaring it
    /// on first use.
    fn frame_of(
        &self,
        frame: Frame,
        input: &[Field],
        order: &[SortKey],
        frames: &mut Vec<Frame>,
        frame_stmts: &mut Vec<TokenStream>,
    ) -> GenResult<proc_macro2::Ident> {
        if let Some(i) = frames.iter().position(|f| *f == frame) {
            return Ok(format_ident!("f{}", i));
        }
        let i = frames.len();
        frames.push(frame);
        let f = format_ident!("f{}", i);
        let unit = match frame.unit {
            FrameUnit::Rows => quote!(rt::ops::over::Unit::Rows),
            FrameUnit::Range => quote!(rt::ops::over::Unit::Range),
        };
        let bound = |b: FrameBound| match b {
            FrameBound::UnboundedPreceding => quote!(rt::ops::over::Bound::UnboundedPreceding),
            FrameBound::Preceding(n) => quote!(rt::ops::over::Bound::Preceding(#n)),
            FrameBound::CurrentRow => quote!(rt::ops::over::Bound::CurrentRow),
            FrameBound::Following(n) => quote!(rt::ops::over::Bound::Following(#n)),
            FrameBound::UnboundedFollowing => quote!(rt::ops::over::Bound::UnboundedFollowing),
        };
        let has_offset =
            |b: FrameBound| matches!(b, FrameBound::Preceding(_) | FrameBound::Following(_));
        let range_key =
            frame.unit == FrameUnit::Range && (has_offset(frame.start) || has_offset(frame.end));
        let (key_stmt, key) = if range_key {
            let [k] = order else {
                return Err("internal: a RANGE offset without a single ORDER BY key".to_string());
            };
            let c = col_ident(k.column);
            // Keys as integers in the offsets' unit: 10^-scale of a number,
            // milliseconds of a date or timestamp.
            let up = |v: TokenStream, from: u8| -> GenResult<TokenStream> {
                match 10i128.checked_pow(u32::from(frame.scale.saturating_sub(from))) {
                    Some(1) => Ok(v),
                    Some(f) => Ok(quote!(#v * #f)),
                    None => Err("internal: RANGE offset scale out of range".to_string()),
                }
            };
            let keys = format_ident!("k{}", i);
            let scale = frame.scale;
            let float = |ty: TokenStream, variant: TokenStream| {
                (
                    quote!(let #keys: Vec<Option<#ty>> = part.iter().map(|r| r.#c).collect();),
                    quote!(rt::ops::over::RangeKeys::#variant { keys: &#keys, scale: #scale }),
                )
            };
            let exact = |v: TokenStream| {
                (
                    quote!(let #keys: Vec<Option<i128>> = part.iter().map(|r| r.#c.map(|v| #v)).collect();),
                    quote!(rt::ops::over::RangeKeys::Exact(&#keys)),
                )
            };
            let (key_stmt, range_keys) = match input[k.column].ty.kind {
                kind if kind.is_integer() => exact(up(quote!(v as i128), 0)?),
                TypeKind::Decimal { scale, .. } => exact(up(quote!(v.0), scale)?),
                TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_) => {
                    exact(quote!(v.millis as i128))
                }
                TypeKind::Date => exact(quote!(v.0 as i128 * 86_400_000)),
                TypeKind::Double => float(quote!(f64), quote!(Double)),
                TypeKind::Float => float(quote!(f32), quote!(Float)),
                other => {
                    return Err(format!(
                        "RANGE offsets over a {other:?} key are not supported by code generation"
                    ))
                }
            };
            let desc = k.descending;
            (
                key_stmt,
                quote!(Some(rt::ops::over::RangeKey { keys: #range_keys, descending: #desc })),
            )
        } else {
            (quote!(), quote!(None))
        };
        let (start, end) = (bound(frame.start), bound(frame.end));
        frame_stmts.push(quote! {
            #key_stmt
            let #f = rt::ops::over::frames(&peers, #unit, #start, #end, #key);
        });
        Ok(f)
    }

    /// Accumulator type, initializer, fold of `row` into `acc`, and result.
    fn frame_accumulator(
        &self,
        call: &OverCall,
        input: &[Field],
    ) -> GenResult<(TokenStream, TokenStream, TokenStream, TokenStream)> {
        let arg = call.args.first().map(|&c| {
            let c = col_ident(c);
            quote!(row.#c)
        });
        let arg_ty = call.args.first().map(|&c| input[c].ty);
        let function = match call.function {
            OverFunction::FirstValue | OverFunction::LastValue => {
                let t = arg_ty.ok_or("FIRST_VALUE/LAST_VALUE without an argument")?;
                let vt = value_type(&t);
                let acc = if call.function == OverFunction::FirstValue {
                    quote!(rt::ops::over::FirstValue<#vt>)
                } else {
                    quote!(rt::ops::over::LastValue<#vt>)
                };
                let v = arg.expect("checked");
                return Ok((
                    acc,
                    quote!(Default::default()),
                    quote!(acc.add(#v.clone());),
                    quote!(acc.result().cloned()),
                ));
            }
            OverFunction::ListAgg => {
                let v = arg.ok_or("LISTAGG without an argument")?;
                // The separator is a constant column (a literal, never NULL).
                let separator = match call.args.get(1) {
                    Some(&s) => {
                        let s = col_ident(s);
                        quote!(row.#s.as_deref().unwrap_or_default())
                    }
                    None => quote!(","),
                };
                return Ok((
                    quote!(rt::ops::over::ListAgg),
                    quote!(Default::default()),
                    quote!(acc.add(#v.as_deref(), #separator);),
                    quote!(acc.result()),
                ));
            }
            OverFunction::Aggregate(a) => a,
            _ => return Err("internal: not a frame function".to_string()),
        };
        let agg = AggregateCall {
            function,
            distinct: false,
            args: call.args.clone(),
            filter: None,
            ty: call.ty,
            separator: None,
            name: call.name.clone(),
        };
        let (acc_ty, init) = self.accumulator(&agg, input)?;
        let add = match (function, arg) {
            (AggregateFunction::Count, None) => quote!(acc.add_row();),
            (AggregateFunction::Count, Some(v)) => quote!(acc.add(&#v);),
            (AggregateFunction::Sum | AggregateFunction::Avg, Some(v))
                if matches!(arg_ty.map(|t| t.kind), Some(TypeKind::Float)) =>
            {
                quote!(acc.add(#v.map(|v| v as f64));)
            }
            (AggregateFunction::Min | AggregateFunction::Max, Some(v))
                if !arg_ty.is_some_and(|t| is_copy(&t)) =>
            {
                let to_owned = if arg_ty.is_some_and(|t| t.is_string()) {
                    quote!(|s: &str| rt::value::Str::from(s))
                } else {
                    quote!(ToOwned::to_owned)
                };
                quote!(acc.add_ref(#v.as_deref(), #to_owned);)
            }
            (_, Some(v)) => quote!(acc.add(#v);),
            (other, None) => {
                return Err(format!("{} without an argument", other.name()));
            }
        };
        let result = self.plain_result(quote!(acc), &agg, arg_ty)?;
        Ok((acc_ty, init, add, result))
    }
}
