//! Which output columns of each node some consumer reads.
//!
//! The planner keeps whole rows where a node passes its input through
//! (a join outputs both sides' columns, a sort or OVER node its input's),
//! so a column can travel through several nodes that never look at it.
//! Generated row structs hold only live columns, and a producer never
//! computes, reads or copies a dead one: a scan does not parse a field no
//! one reads, a Calc does not evaluate a projection no one uses.

use crate::ir::{ConnectorKind, Expr};
use crate::plan::{NodeId, NodeKind, Plan};

impl super::Gen<'_> {
    /// Whether some consumer reads column `c` of node `n`.
    pub(super) fn is_live(&self, n: NodeId, c: usize) -> bool {
        self.live[n.index()][c]
    }

    /// The live columns of node `n`.
    pub(super) fn live_cols(&self, n: NodeId) -> impl Iterator<Item = usize> + '_ {
        let live = &self.live[n.index()];
        (0..live.len()).filter(move |&c| live[c])
    }
}

/// `live[n][c]`: column `c` of node `n`'s output is read by a consumer.
pub(super) fn live_columns(plan: &Plan, consumers: &[Vec<(NodeId, usize)>]) -> Vec<Vec<bool>> {
    let mut live: Vec<Vec<bool>> = plan
        .nodes
        .iter()
        .map(|node| vec![false; node.schema.len()])
        .collect();
    // Consumers have larger ids than their inputs: walking the nodes from
    // the last one, every consumer's own liveness is complete first.
    for n in (0..plan.nodes.len()).rev() {
        let id = NodeId(n as u32);
        let mut cols = std::mem::take(&mut live[n]);
        // A scan's filter and a join's residual read the node's own row.
        match &plan.node(id).kind {
            NodeKind::Scan {
                filter: Some(f), ..
            } => mark_expr(f, &mut cols),
            NodeKind::Join {
                kind,
                residual: Some(r),
                ..
            } if kind.outputs_right() => mark_expr(r, &mut cols),
            _ => {}
        }
        for &(c, k) in &consumers[n] {
            reads(plan, c, k, &live[c.index()], &mut cols);
        }
        live[n] = cols;
    }
    live
}

/// Marks in `cols` the columns that input `k` of node `c` reads, given
/// the columns of `c`'s own output that are live (`out`).
fn reads(plan: &Plan, c: NodeId, k: usize, out: &[bool], cols: &mut [bool]) {
    match &plan.node(c).kind {
        NodeKind::Calc {
            projections,
            filter,
            ..
        } => {
            for e in filter.iter() {
                mark_expr(e, cols);
            }
            for (p, _) in projections.iter().zip(out).filter(|(_, &l)| l) {
                mark_expr(p, cols);
            }
        }
        NodeKind::Sink { table, .. } => {
            let t = plan.job.table(*table);
            if matches!(t.connector.kind, ConnectorKind::Blackhole) {
                // A blackhole only counts rows, after the NOT NULL enforcer
                // checked the columns it declares NOT NULL.
                for ((_, column), c) in t.physical_columns().zip(cols.iter_mut()) {
                    *c |= !column.ty.nullable;
                }
            } else {
                // Every column is written.
                cols.iter_mut().for_each(|c| *c = true);
            }
        }
        _ => reads_columns(plan, c, k, out, cols),
    }
}

/// [`reads`] for the nodes that read columns by position.
fn reads_columns(plan: &Plan, c: NodeId, k: usize, out: &[bool], cols: &mut [bool]) {
    let arity = cols.len();
    let mut mark = |i: usize| {
        if let Some(slot) = cols.get_mut(i) {
            *slot = true;
        }
    };
    // Output column i is input column i (for i below the input's arity).
    let pass_through = |mark: &mut dyn FnMut(usize), from: usize| {
        for (i, &l) in out.iter().enumerate().skip(from).take(arity) {
            if l {
                mark(i - from);
            }
        }
    };
    match &plan.node(c).kind {
        NodeKind::Aggregate {
            group, aggregates, ..
        } => {
            group.iter().for_each(|&g| mark(g));
            for call in aggregates {
                call.args.iter().for_each(|&a| mark(a));
                call.filter.iter().for_each(|&f| mark(f));
            }
        }
        NodeKind::Sort { keys, .. } => {
            keys.iter().for_each(|s| mark(s.column));
            pass_through(&mut mark, 0);
        }
        NodeKind::Over {
            partition,
            order,
            calls,
            ..
        } => {
            partition.iter().for_each(|&p| mark(p));
            order.iter().for_each(|s| mark(s.column));
            // Only the calls whose column is read are computed.
            calls
                .iter()
                .enumerate()
                .filter(|&(k, _)| out.get(arity + k) == Some(&true))
                .flat_map(|(_, c)| &c.args)
                .for_each(|&a| mark(a));
            pass_through(&mut mark, 0);
        }
        NodeKind::Union { .. } => pass_through(&mut mark, 0),
        NodeKind::Window { time_column, .. } => {
            mark(*time_column);
            pass_through(&mut mark, 0);
        }
        NodeKind::Join {
            kind,
            left,
            left_keys,
            right_keys,
            residual,
            ..
        } => {
            let left_arity = plan.node(*left).schema.len();
            let keys = if k == 0 { left_keys } else { right_keys };
            keys.iter().for_each(|&key| mark(key));
            let from = if k == 0 { 0 } else { left_arity };
            if kind.outputs_right() {
                pass_through(&mut mark, from);
            } else {
                // Semi/anti: the left row passes through, and the residual
                // reads the probe row and the build row directly.
                if k == 0 {
                    pass_through(&mut mark, 0);
                }
                if let Some(r) = residual {
                    let right_arity = match plan.node(c).kind {
                        NodeKind::Join { right, .. } => plan.node(right).schema.len(),
                        _ => 0,
                    };
                    let mut both = vec![false; left_arity + right_arity];
                    mark_expr(r, &mut both);
                    for (i, _) in both.iter().enumerate().skip(from).filter(|(_, &u)| u) {
                        mark(i - from);
                    }
                }
            }
        }
        NodeKind::Calc { .. }
        | NodeKind::Sink { .. }
        | NodeKind::Scan { .. }
        | NodeKind::Values { .. } => {}
    }
}

/// Marks the columns `e` reads.
fn mark_expr(e: &Expr, cols: &mut [bool]) {
    for c in crate::plan::rewrite::columns(e) {
        if let Some(slot) = cols.get_mut(c) {
            *slot = true;
        }
    }
}
