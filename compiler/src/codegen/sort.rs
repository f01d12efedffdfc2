//! Code generation for ORDER BY (with OFFSET/LIMIT): the buffer in
//! `State`, the push that fills it, and the task that sorts and emits it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{col_ident, row_ident, Gen, StateParts};
use crate::ir::{Field, SortKey};
use crate::plan::NodeId;
use crate::types::TypeKind;

impl Gen<'_> {
    /// A sort's buffer in `State`: every input row, sorted when complete.
    pub(super) fn sort_state(&self, n: NodeId, input: NodeId, parts: &mut StateParts) {
        let s = format_ident!("s{}", n.0);
        let r = row_ident(input);
        parts.add(
            quote!(#s: Vec<#r>),
            quote!(#s: Vec::new()),
            quote!(self.#s.extend(o.#s);),
        );
    }

    /// The push into a sort: buffer the row.
    pub(super) fn sort_push(&self, n: NodeId) -> TokenStream {
        let s = format_ident!("s{}", n.0);
        quote!(st.#s.push(row.clone());)
    }

    /// The task that sorts the buffered rows and emits them (after OFFSET, up to LIMIT).
    pub(super) fn sorted_rows_task(
        &self,
        n: NodeId,
        keys: &[SortKey],
        offset: Option<u64>,
        limit: Option<u64>,
        input: NodeId,
        emit: TokenStream,
    ) -> TokenStream {
        let s = format_ident!("s{}", n.0);
        let cmp = self.sort_comparator(keys, &self.plan.node(input).schema);
        let skip = offset.unwrap_or(0) as usize;
        let take = match limit {
            Some(l) => {
                let l = l as usize;
                quote!(.take(#l))
            }
            None => quote!(),
        };
        let out_row = row_ident(n);
        let copies = self.live_cols(n).map(|i| {
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
