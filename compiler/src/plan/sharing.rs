//! Why a join or an aggregate is not shared: `explain` names the nodes that
//! compute the same operation over the same sources for other INSERTs and
//! says what differs between them.
//!
//! Interning shares every node whose whole subtree is equal. Two INSERTs
//! that join the same tables on the same keys but filter them differently
//! get one join each above the shared scans (`normalize.rs` pushes each
//! INSERT's filters below its own join, so neither pays for the other's
//! rows). Such "twins" have the same *shape*. What makes them
//! differ is reported as the first of:
//! - `filters differ`: the sets of predicates applied in the subtrees
//!   (scan and Calc filters; a join's residual is part of its shape) are
//!   not equal;
//! - `columns differ`: the same predicates, other columns carried (pruning
//!   narrows each INSERT's copy to what it reads);
//! - `expressions differ`: the same predicates and columns, other computed
//!   values (`SUM(qty)` and `SUM(price)` both named `$arg0`).

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::Field;
use crate::ir_print::expr as expr_text;

use super::{NodeId, NodeKind, Plan};

/// Subtrees bigger than this get no twins (which also keeps this linear on
/// plans of thousands of nodes).
const MAX_SKELETON: usize = 2000;
const MAX_FILTERS: usize = 64;

/// For each node, its twins (other nodes of the same shape), each with the
/// reason it is separate; empty for nodes without twins and for nodes that
/// are neither joins nor aggregates.
pub(crate) fn unshared_twins(plan: &Plan) -> Vec<Vec<(NodeId, &'static str)>> {
    let n = plan.nodes.len();
    // The subtree without its Calcs, as text; `None` when too big to matter.
    let mut skeleton: Vec<Option<String>> = vec![None; n];
    let mut filters: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n];
    let mut shapes: BTreeMap<String, Vec<NodeId>> = BTreeMap::new();
    for i in 0..n {
        let id = NodeId(i as u32);
        let node = plan.node(id);
        let inputs = node.kind.inputs();
        let fields: Vec<Field> = inputs
            .iter()
            .flat_map(|x| plan.node(*x).schema.iter().cloned())
            .collect();
        for input in &inputs {
            let f = filters[input.index()].clone();
            filters[i].extend(f);
        }
        let below = || -> Option<Vec<&str>> {
            inputs
                .iter()
                .map(|x| skeleton[x.index()].as_deref())
                .collect()
        };
        let own = match &node.kind {
            NodeKind::Scan { table, filter, .. } => {
                if let Some(f) = filter {
                    filters[i].insert(expr_text(f, &node.schema));
                }
                Some(plan.job.table(*table).name.clone())
            }
            NodeKind::Calc { filter, .. } => {
                if let Some(f) = filter {
                    filters[i].insert(expr_text(f, &fields));
                }
                below().map(|b| b[0].to_string())
            }
            NodeKind::Join {
                kind,
                left,
                left_keys,
                right_keys,
                residual,
                ..
            } => {
                // The residual is part of the join's condition, so of its shape.
                let residual = residual.as_ref().map(|r| expr_text(r, &fields));
                let la = plan.node(*left).schema.len();
                let keys: Vec<String> = left_keys
                    .iter()
                    .zip(right_keys)
                    .map(|(&l, &r)| format!("{}={}", fields[l].name, fields[la + r].name))
                    .collect();
                below().map(|b| {
                    format!(
                        "{kind:?}[{};{}]({})",
                        keys.join(","),
                        residual.unwrap_or_default(),
                        b.join(",")
                    )
                })
            }
            NodeKind::Aggregate {
                group, aggregates, ..
            } => {
                let keys: Vec<&str> = group.iter().map(|&g| fields[g].name.as_str()).collect();
                let calls: Vec<String> = aggregates
                    .iter()
                    .map(|a| format!("{:?}{}{:?}", a.function, a.distinct, a.args))
                    .collect();
                below().map(|b| format!("Agg[{};{}]({})", keys.join(","), calls.join(","), b[0]))
            }
            NodeKind::Values { .. } | NodeKind::Sink { .. } => None,
            NodeKind::Window {
                window,
                time_column,
                ..
            } => below().map(|b| format!("{window:?}@{}({})", fields[*time_column].name, b[0])),
            NodeKind::Sort {
                keys,
                offset,
                limit,
                ..
            } => {
                let keys: Vec<String> = keys
                    .iter()
                    .map(|k| k.describe(&fields[k.column].name))
                    .collect();
                below().map(|b| format!("Sort[{};{offset:?};{limit:?}]({})", keys.join(","), b[0]))
            }
            other => below().map(|b| format!("{}({})", other.type_name(), b.join(","))),
        };
        if filters[i].len() > MAX_FILTERS {
            filters[i] = BTreeSet::from([format!("{id}")]);
        }
        skeleton[i] = own.filter(|s| s.len() <= MAX_SKELETON);
        if matches!(
            node.kind,
            NodeKind::Join { .. } | NodeKind::Aggregate { .. }
        ) {
            if let Some(s) = &skeleton[i] {
                shapes.entry(s.clone()).or_default().push(id);
            }
        }
    }
    let mut twins = vec![Vec::new(); n];
    for group in shapes.values().filter(|g| g.len() > 1) {
        for &id in group {
            for &other in group.iter().filter(|&&o| o != id) {
                let reason = if filters[other.index()] != filters[id.index()] {
                    "filters differ"
                } else if names(plan, other) != names(plan, id) {
                    "columns differ"
                } else {
                    "expressions differ"
                };
                twins[id.index()].push((other, reason));
            }
        }
    }
    twins
}

fn names(plan: &Plan, id: NodeId) -> Vec<&str> {
    plan.node(id)
        .schema
        .iter()
        .map(|f| f.name.as_str())
        .collect()
}
