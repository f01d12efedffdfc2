//! Predicate pushdown, without ever splitting a shared node.
//!
//! - Into a scan: only the conjuncts that *every* consumer of the scan filters
//!   on (each consumer keeps the rest). A source is still read once; rows no
//!   consumer wants are dropped while reading.
//! - Below a join, union or aggregate that has no other consumer: conjuncts
//!   that refer to one join side (the preserved side of an outer join), every
//!   union input, or only grouping columns move below it.

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::strip_spans;
use crate::ir::{Expr, Field, JoinKind};
use crate::plan::rewrite::{and_all, column, columns, conjuncts, remap};
use crate::plan::{is_deterministic, keep, rebuild, NodeId, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let counts = plan.consumer_counts();
    let consumers = plan.consumers();
    // Conjuncts every consumer of a scan applies, per scan (old id).
    let mut pushed_into_scan: BTreeMap<usize, Vec<Expr>> = BTreeMap::new();
    for (i, node) in plan.nodes.iter().enumerate() {
        if !matches!(node.kind, NodeKind::Scan { .. }) || consumers[i].is_empty() {
            continue;
        }
        let mut common: Option<Vec<Expr>> = None;
        for c in &consumers[i] {
            let NodeKind::Calc {
                filter: Some(f), ..
            } = &plan.node(*c).kind
            else {
                common = Some(Vec::new());
                break;
            };
            let parts: Vec<Expr> = conjuncts(f.clone())
                .into_iter()
                .filter(is_deterministic)
                .map(strip_spans)
                .collect();
            common = Some(match common {
                None => parts,
                Some(prev) => prev.into_iter().filter(|p| parts.contains(p)).collect(),
            });
        }
        if let Some(common) = common.filter(|c| !c.is_empty()) {
            pushed_into_scan.insert(i, common);
        }
    }
    let mut changed = false;
    let new = rebuild(plan, |new, old, mut node| match &mut node.kind {
        NodeKind::Scan { filter, .. } => {
            if let Some(common) = pushed_into_scan.get(&old.index()) {
                let mut parts: Vec<Expr> = filter.take().map(conjuncts).unwrap_or_default();
                parts.extend(common.iter().cloned());
                *filter = and_all(parts);
                changed = true;
            }
            keep(new, node)
        }
        NodeKind::Calc {
            input,
            filter: Some(f),
            ..
        } => {
            let old_input = plan.node(old).kind.inputs()[0];
            if let Some(common) = pushed_into_scan.get(&old_input.index()) {
                let rest: Vec<Expr> = conjuncts(f.clone())
                    .into_iter()
                    .filter(|p| !common.contains(&strip_spans(p.clone())))
                    .collect();
                let NodeKind::Calc { filter, .. } = &mut node.kind else {
                    unreachable!()
                };
                *filter = and_all(rest);
                return keep(new, node);
            }
            if counts[old_input.index()] != 1 {
                return keep(new, node);
            }
            let input = *input;
            match push_below(new, input, f.clone()) {
                Some((new_input, rest)) => {
                    changed = true;
                    let NodeKind::Calc { input, filter, .. } = &mut node.kind else {
                        unreachable!()
                    };
                    *input = new_input;
                    *filter = rest;
                    keep(new, node)
                }
                None => keep(new, node),
            }
        }
        _ => keep(new, node),
    });
    changed.then_some(new)
}

/// Tries to move conjuncts of `filter` below the (single-consumer) node
/// `child`. Returns the rebuilt child and the conjuncts that stay above.
fn push_below(new: &mut Plan, child: NodeId, filter: Expr) -> Option<(NodeId, Option<Expr>)> {
    let node = new.node(child).clone();
    let parts = conjuncts(filter);
    let (movable, stay): (Vec<Expr>, Vec<Expr>) = parts.into_iter().partition(is_deterministic);
    let mut stay = stay;
    match node.kind {
        NodeKind::Join {
            kind,
            left,
            right,
            left_keys,
            right_keys,
            residual,
        } => {
            let left_arity = new.node(left).schema.len();
            let (mut to_left, mut to_right) = (Vec::new(), Vec::new());
            for p in movable {
                let cols = columns(&p);
                let on_left = !cols.is_empty() && cols.iter().all(|&c| c < left_arity);
                let on_right = !cols.is_empty() && cols.iter().all(|&c| c >= left_arity);
                if on_left
                    && matches!(
                        kind,
                        JoinKind::Inner | JoinKind::Left | JoinKind::Semi | JoinKind::Anti
                    )
                {
                    to_left.push(p);
                } else if on_right && matches!(kind, JoinKind::Inner | JoinKind::Right) {
                    to_right.push(remap(p, &|c| c - left_arity));
                } else {
                    stay.push(p);
                }
            }
            if to_left.is_empty() && to_right.is_empty() {
                return None;
            }
            let left = filter_node(new, left, to_left, &node.provenance);
            let right = filter_node(new, right, to_right, &node.provenance);
            let join = new.intern(
                NodeKind::Join {
                    kind,
                    left,
                    right,
                    left_keys,
                    right_keys,
                    residual,
                },
                node.schema,
                &node.provenance,
            );
            Some((join, and_all(stay)))
        }
        NodeKind::Union { inputs } if !movable.is_empty() => {
            let inputs = inputs
                .into_iter()
                .map(|i| filter_node(new, i, movable.clone(), &node.provenance))
                .collect();
            let union = new.intern(NodeKind::Union { inputs }, node.schema, &node.provenance);
            Some((union, and_all(stay)))
        }
        NodeKind::Aggregate {
            input,
            group,
            aggregates,
        } => {
            let mut below = Vec::new();
            for p in movable {
                let cols: BTreeSet<usize> = columns(&p);
                // A global aggregate returns a row even for empty input: keep filters above it.
                if !group.is_empty() && cols.iter().all(|&c| c < group.len()) {
                    below.push(remap(p, &|c| group[c]));
                } else {
                    stay.push(p);
                }
            }
            if below.is_empty() {
                return None;
            }
            let input = filter_node(new, input, below, &node.provenance);
            let agg = new.intern(
                NodeKind::Aggregate {
                    input,
                    group,
                    aggregates,
                },
                node.schema,
                &node.provenance,
            );
            Some((agg, and_all(stay)))
        }
        // A filter on partition keys drops whole partitions, so it may run
        // first; any other (on an order key or a window result) changes
        // what the windows see and stays above.
        NodeKind::Over {
            input,
            partition,
            order,
            calls,
            limit,
        } => {
            let mut below = Vec::new();
            for p in movable {
                let cols: BTreeSet<usize> = columns(&p);
                if !cols.is_empty() && cols.iter().all(|c| partition.contains(c)) {
                    below.push(p);
                } else {
                    stay.push(p);
                }
            }
            if below.is_empty() {
                return None;
            }
            let input = filter_node(new, input, below, &node.provenance);
            let over = new.intern(
                NodeKind::Over {
                    input,
                    partition,
                    order,
                    calls,
                    limit,
                },
                node.schema,
                &node.provenance,
            );
            Some((over, and_all(stay)))
        }
        _ => None,
    }
}

/// A filter-only Calc over `input` (or `input` itself for no predicates).
fn filter_node(
    new: &mut Plan,
    input: NodeId,
    predicates: Vec<Expr>,
    provenance: &[crate::diagnostics::Span],
) -> NodeId {
    let Some(filter) = and_all(predicates) else {
        return input;
    };
    let schema: Vec<Field> = new.node(input).schema.to_vec();
    let projections = schema
        .iter()
        .enumerate()
        .map(|(i, f)| column(i, f.ty))
        .collect();
    new.intern(
        NodeKind::Calc {
            input,
            projections,
            filter: Some(filter),
        },
        schema,
        provenance,
    )
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_pass;

    const TABLES: &str = "CREATE TABLE t (a INT, b INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE u (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE k1 (a INT, s STRING) WITH ('connector' = 'blackhole');
        CREATE TABLE k2 (a INT, s STRING) WITH ('connector' = 'blackhole');
        CREATE TABLE k3 (s STRING, n BIGINT) WITH ('connector' = 'blackhole');";

    #[test]
    fn pushes_only_what_every_consumer_of_a_scan_filters_on() {
        check_pass(
            "predicate_pushdown",
            &format!(
                "{TABLES} INSERT INTO k1 SELECT a, s FROM t WHERE b > 0 AND a = 1;
                 INSERT INTO k2 SELECT a, s FROM t WHERE b > 0 AND a = 2;"
            ),
            "
Sink #3 k1 [blackhole] INSERT INTO
+- Calc #2 select=[a, s]
   +- Calc #1 where=[(a = 1)] select=[a, b, s]
      +- Scan #0 t [datagen] read=[a, b, s] where=[(b > 0)] shared=[k1, k2]

Sink #6 k2 [blackhole] INSERT INTO
+- Calc #5 select=[a, s]
   +- Calc #4 where=[(a = 2)] select=[a, b, s]
      +- Scan #0 t (reused, see above)
",
        );
    }

    #[test]
    fn keeps_different_filters_above_the_shared_scan() {
        check_pass(
            "predicate_pushdown",
            &format!(
                "{TABLES} INSERT INTO k1 SELECT a, s FROM t WHERE a = 1;
                 INSERT INTO k2 SELECT a, s FROM t WHERE a = 2;"
            ),
            "unchanged",
        );
    }
}
