//! Code generation for ORDER BY (with OFFSET/LIMIT): the buffer in
//! `State` (bounded by the memory budget), the push that fills it, and the
//! task that emits it in order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{col_ident, doc, row_ident, Gen, StateParts};
use crate::ir::{Field, SortKey};
use crate::plan::{NodeId, NodeKind};
use crate::types::TypeKind;

impl Gen<'_> {
    /// A sort's buffer in `State` (`runtime::ops::external_sort`: in memory
    /// up to the budget, sorted runs on disk beyond it), and its comparator
    /// `sort_cmp_N`.
    pub(super) fn sort_state(&self, n: NodeId, parts: &mut StateParts) {
        let NodeKind::Sort {
            input,
            ref keys,
            offset,
            limit,
        } = self.plan.node(n).kind
        else {
            unreachable!("only sorts have sort buffers")
        };
        let s = format_ident!("s{}", n.0);
        let r = row_ident(input);
        let f = format_ident!("sort_cmp_{}", n.0);
        let cmp = self.sort_comparator(keys, &self.plan.node(input).schema);
        let d = doc(&format!("The ORDER BY of #{}", n.0));
        parts.items.push(quote! {
            #d
            #[inline]
            fn #f(a: &#r, b: &#r) -> std::cmp::Ordering #cmp
        });
        // Only OFFSET + FETCH rows can reach the output.
        let keep = match limit {
            Some(l) => {
                let l = l.saturating_add(offset.unwrap_or(0));
                quote!(.with_limit(Some(#l)))
            }
            None => quote!(),
        };
        let label = self.memory_label(n, "sort rows");
        parts.add(
            quote!(#s: rt::ops::external_sort::SortBuffer<#r>),
            quote!(#s: rt::ops::external_sort::SortBuffer::new(&ctx.memory, &ctx.spill) #keep #label),
            quote!(self.#s.absorb(o.#s, #f)?;),
        );
    }

    /// The push into a sort: buffer the row.
    pub(super) fn sort_push(&self, n: NodeId) -> TokenStream {
        let s = format_ident!("s{}", n.0);
        let f = format_ident!("sort_cmp_{}", n.0);
        quote!(st.#s.push(row.clone(), #f)?;)
    }

    /// The task that emits the buffered rows in order (after OFFSET, up to LIMIT).
    pub(super) fn sorted_rows_task(
        &self,
        n: NodeId,
        offset: Option<u64>,
        emit: TokenStream,
    ) -> TokenStream {
        let s = format_ident!("s{}", n.0);
        let f = format_ident!("sort_cmp_{}", n.0);
        let out_row = row_ident(n);
        let copies = self.live_cols(n).map(|i| {
            let c = col_ident(i);
            quote!(#c: sorted.#c)
        });
        let row = quote!(let row = #out_row { #(#copies),* };);
        let sorted = if super::mentions(&row, "sorted") {
            quote!(sorted)
        } else {
            quote!(_)
        };
        let skip = match offset {
            Some(o) if o > 0 => quote! {
                if skip > 0 {
                    skip -= 1;
                    return Ok(());
                }
            },
            _ => quote!(),
        };
        let counter = if skip.is_empty() {
            quote!()
        } else {
            let o = offset.unwrap_or(0);
            quote!(let mut skip: u64 = #o;)
        };
        quote! {
            let rows = std::mem::take(&mut st.#s);
            #counter
            rows.sorted(#f, |#sorted| {
                #skip
                #row
                #emit
                Ok(())
            })?;
        }
    }

    /// Comparator over rows `a` and `b` for the sort keys (Flink's NULL order).
    pub(super) fn sort_comparator(&self, keys: &[SortKey], schema: &[Field]) -> TokenStream {
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
}
