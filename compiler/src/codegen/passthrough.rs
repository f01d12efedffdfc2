//! Calcs that only filter and pass columns through (`SELECT a, c FROM v
//! WHERE region = 'EU'`) have no row type of their own: their push tests
//! the filter and hands the input row on, and their consumers read the
//! input row's fields instead (`row.c4` for column 3 of the Calc). No
//! column is copied per row.
//!
//! Only where every consumer reads the row right away (a sink, another
//! Calc): operators that keep rows (aggregates, joins, sorts, spools) or
//! name the row type in their state get a row of the Calc's own shape.

use proc_macro2::Ident;

use super::expr::value_type;
use super::{col_ident, row_ident, Gen};
use crate::ir::ExprKind;
use crate::plan::{NodeId, NodeKind, Plan};

/// `map[n]`: for a pass-through Calc `n`, its input and the input column of
/// each of its columns.
pub(super) type PassThrough = Vec<Option<(NodeId, Vec<usize>)>>;

pub(super) fn pass_through_calcs(plan: &Plan, consumers: &[Vec<(NodeId, usize)>]) -> PassThrough {
    plan.nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let NodeKind::Calc {
                input, projections, ..
            } = &node.kind
            else {
                return None;
            };
            let input_schema = &plan.node(*input).schema;
            let columns = projections
                .iter()
                .zip(node.schema.iter())
                .map(|(p, field)| match p.kind {
                    // The same Rust type, so the consumer's code reads it alike.
                    ExprKind::Column(c)
                        if value_type(&input_schema[c].ty).to_string()
                            == value_type(&field.ty).to_string() =>
                    {
                        Some(c)
                    }
                    _ => None,
                })
                .collect::<Option<Vec<usize>>>()?;
            let reads_at_once = consumers[i].iter().all(|&(c, _)| {
                matches!(
                    plan.node(c).kind,
                    NodeKind::Sink { .. } | NodeKind::Calc { .. }
                )
            });
            reads_at_once.then_some((*input, columns))
        })
        .collect()
}

impl Gen<'_> {
    /// The node whose row struct carries `n`'s rows, and the field of its
    /// column `c`, through any chain of pass-through Calcs.
    fn carrier(&self, mut n: NodeId, mut c: usize) -> (NodeId, usize) {
        while let Some((input, columns)) = &self.pass_through[n.index()] {
            (n, c) = (*input, columns[c]);
        }
        (n, c)
    }

    /// Whether `n` is a pass-through Calc (no row struct of its own).
    pub(super) fn passes_through(&self, n: NodeId) -> bool {
        self.pass_through[n.index()].is_some()
    }

    /// The row type of `n`'s output rows.
    pub(super) fn row_of(&self, n: NodeId) -> Ident {
        let mut n = n;
        while let Some((input, _)) = &self.pass_through[n.index()] {
            n = *input;
        }
        row_ident(n)
    }

    /// The field of column `c` in `n`'s output rows.
    pub(super) fn field_of(&self, n: NodeId, c: usize) -> Ident {
        col_ident(self.carrier(n, c).1)
    }
}
