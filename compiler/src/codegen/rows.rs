//! Row types: one struct per plan node's output, `Spill` for the rows that
//! may go to disk, and the hashable keys of joins and aggregates.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::expr::value_type;
use super::{col_ident, doc, row_ident, Gen, GenResult};
use crate::ir::Field;
use crate::plan::{NodeId, NodeKind};
use crate::types::{DataType, TypeKind};

impl Gen<'_> {
    pub(super) fn row_structs(&self) -> GenResult<Vec<TokenStream>> {
        let mut out = Vec::new();
        for (i, node) in self.plan.nodes.iter().enumerate() {
            let n = NodeId(i as u32);
            if matches!(node.kind, NodeKind::Sink { .. }) || self.passes_through(n) {
                continue;
            }
            let name = row_ident(n);
            let fields = node
                .schema
                .iter()
                .enumerate()
                .filter(|&(c, _)| self.is_live(n, c))
                .map(|(c, f)| {
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
            out.extend(self.build_row_struct(n));
        }
        Ok(out)
    }

    /// `impl Spill` for the row types that spools hold (written to and read
    /// back from spill files column by column).
    pub(super) fn spill_impls(&self) -> Vec<TokenStream> {
        let mut rows = BTreeSet::new();
        // Spooled probe rows, and both sides of every join (a build may
        // partition to disk, and its probe rows with it).
        for (i, node) in self.plan.nodes.iter().enumerate() {
            match node.kind {
                NodeKind::Join { left, right, .. } => {
                    rows.insert(left);
                    // (Narrowed build rows have their own impl.)
                    if self.build_cols(NodeId(i as u32)).is_none() {
                        rows.insert(right);
                    }
                }
                // The rows of groups beyond the budget spill too, and so
                // do sort buffers.
                // (An aggregate that keeps `G<N>` rows has their impl.)
                NodeKind::Aggregate { input, .. }
                    if self.group_row_cols(NodeId(i as u32)).is_none() =>
                {
                    rows.insert(input);
                }
                NodeKind::Sort { input, .. } | NodeKind::Over { input, .. } => {
                    rows.insert(input);
                }
                _ => {}
            }
        }
        rows.into_iter()
            .map(|n| {
                let cols: Vec<Ident> = self.live_cols(n).map(col_ident).collect();
                spill_impl(&row_ident(n), &cols)
            })
            .collect()
    }

    pub(super) fn key_type(&self, schema: &[Field], cols: &[usize]) -> TokenStream {
        let tys = cols.iter().map(|&c| key_value_type(&schema[c].ty));
        quote!((#(Option<#tys>,)*))
    }

    /// A hashable key tuple from columns of `row` (floats as their bits).
    pub(super) fn key_expr(&self, schema: &[Field], cols: &[usize]) -> TokenStream {
        let parts = cols.iter().map(|&c| key_value(schema, c));
        quote!((#(#parts,)*))
    }

    /// A join table's key: [`Gen::key_type`] without the `Option`s. A row
    /// whose key has a NULL never reaches a join table's keys (a build row
    /// goes to `insert_unmatchable`, a probe row is not looked up), so the
    /// key is 8 bytes smaller per column, and hashes and compares without
    /// the discriminants.
    pub(super) fn join_key_type(&self, schema: &[Field], cols: &[usize]) -> TokenStream {
        let tys = cols.iter().map(|&c| key_value_type(&schema[c].ty));
        quote!((#(#tys,)*))
    }

    /// [`Gen::key_expr`] for a join table: each column's value (present:
    /// only rows whose key has no NULL get here; `unwrap_or_default` keeps
    /// the code free of a panic path).
    pub(super) fn join_key_expr(&self, schema: &[Field], cols: &[usize]) -> TokenStream {
        let parts = cols.iter().map(|&c| {
            let v = key_value(schema, c);
            quote!(#v.unwrap_or_default())
        });
        quote!((#(#parts,)*))
    }
}

/// `impl Spill for #name` (the runtime's `spill_row!`): the fields `cols`
/// written and read back in order.
pub(super) fn spill_impl(name: &Ident, cols: &[Ident]) -> TokenStream {
    quote!(rt::spill_row!(#name { #(#cols),* });)
}

/// Whether values of `ty` are `Copy` in generated code (all but strings and bytes).
pub(super) fn is_copy(ty: &DataType) -> bool {
    !matches!(
        ty.kind,
        TypeKind::Char(_) | TypeKind::Varchar(_) | TypeKind::Binary(_) | TypeKind::Varbinary(_)
    )
}

/// The value at `place` (a row's column) as an owned value: the place
/// itself for `Copy` types, a clone of strings and bytes.
pub(super) fn copy_of(place: TokenStream, ty: &DataType) -> TokenStream {
    if is_copy(ty) {
        place
    } else {
        quote!(#place.clone())
    }
}

/// Column `c` of `row` as a hashable key value (floats as their bits).
pub(super) fn key_value(schema: &[Field], c: usize) -> TokenStream {
    let ident = col_ident(c);
    match schema[c].ty.kind {
        TypeKind::Double => quote!(row.#ident.map(rt::ops::aggregate::f64_key)),
        TypeKind::Float => quote!(row.#ident.map(|v| rt::ops::aggregate::f64_key(v as f64))),
        _ => copy_of(quote!(row.#ident), &schema[c].ty),
    }
}

/// A group or join key value: like [`value_type`], but floats are their bits.
pub(super) fn key_value_type(ty: &DataType) -> TokenStream {
    match ty.kind {
        TypeKind::Double | TypeKind::Float => quote!(u64),
        _ => value_type(ty),
    }
}
