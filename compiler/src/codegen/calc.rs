//! Code generation for the row-at-a-time operators that keep no state:
//! Calc (filter and projection), UNION ALL, and window table functions
//! (TUMBLE, HOP, CUMULATE), each a push that emits rows to its consumers.

use proc_macro2::TokenStream;
use quote::quote;

use super::rows::copy_of;
use super::{col_ident, expr, row_ident, Gen, GenResult};
use crate::ir::{Expr, WindowKind};
use crate::plan::NodeId;

impl Gen<'_> {
    /// The push into a Calc: the filter, then the projected row to every consumer.
    pub(super) fn calc_push(
        &mut self,
        n: NodeId,
        projections: &[Expr],
        filter: Option<&Expr>,
    ) -> GenResult<TokenStream> {
        let input = self.plan.node(n).kind.inputs()[0];
        let in_fields: Vec<_> = (0..self.plan.node(input).schema.len())
            .map(|i| self.field_of(input, i))
            .collect();
        let column = |i: usize| {
            let c = &in_fields[i];
            quote!(row.#c)
        };
        let check = match filter {
            Some(f) => {
                let e = expr::expr(f, &column, &mut self.statics)?;
                quote!(if !rt::value::logic::is_true(#e) { return Ok(()); })
            }
            None => quote!(),
        };
        if self.passes_through(n) {
            let emit = self.emit_ref(n, quote!(row));
            return Ok(quote!(#check #emit));
        }
        let out_row = row_ident(n);
        let live = self.live[n.index()].clone();
        let fields = projections
            .iter()
            .enumerate()
            .filter(|&(i, _)| live[i])
            .map(|(i, p)| {
                let c = col_ident(i);
                let e = expr::expr(p, &column, &mut self.statics)?;
                Ok(quote!(#c: #e))
            })
            .collect::<GenResult<Vec<_>>>()?;
        let emit = self.emit(n, quote!(out));
        Ok(quote! {
            #check
            let out = #out_row { #(#fields),* };
            #emit
        })
    }

    /// The push into a UNION ALL: the row, retyped, to every consumer.
    pub(super) fn union_push(&self, n: NodeId) -> TokenStream {
        let out_row = row_ident(n);
        let schema = &self.plan.node(n).schema;
        let fields = self.live_cols(n).map(|i| {
            let c = col_ident(i);
            let v = copy_of(quote!(row.#c), &schema[i].ty);
            quote!(#c: #v)
        });
        let emit = self.emit(n, quote!(out));
        quote! {
            let out = #out_row { #(#fields),* };
            #emit
        }
    }

    pub(super) fn window_push(
        &self,
        n: NodeId,
        window: WindowKind,
        time_column: usize,
    ) -> GenResult<TokenStream> {
        let node = self.plan.node(n);
        let arity = node.schema.len() - 3;
        let out_row = row_ident(n);
        let copies = self.live_cols(n).filter(|&i| i < arity).map(|i| {
            let c = col_ident(i);
            let v = copy_of(quote!(row.#c), &node.schema[i].ty);
            quote!(#c: #v)
        });
        // window_start, window_end and window_time, where read.
        let bounds = [
            quote!(Some(rt::value::Timestamp::from_millis(start))),
            quote!(Some(rt::value::Timestamp::from_millis(end))),
            quote!(Some(rt::value::Timestamp::from_millis(end - 1))),
        ];
        let bounds = bounds
            .iter()
            .enumerate()
            .filter(|&(k, _)| self.is_live(n, arity + k))
            .map(|(k, v)| {
                let c = col_ident(arity + k);
                quote!(#c: #v)
            });
        let bounds = quote!(#(#bounds,)*);
        let (start, end) = (super::param(&bounds, "start"), super::param(&bounds, "end"));
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
            for (#start, #end) in #windows {
                let out = #out_row {
                    #(#copies,)*
                    #bounds
                };
                #emit
            }
        })
    }
}
