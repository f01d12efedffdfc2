//! Projection pruning: every node keeps only the output columns some
//! consumer needs — the union over all its consumers, so a shared node stays
//! shared. Scans read only those columns; unused aggregate calls and
//! projections disappear.

use std::collections::BTreeSet;

use crate::ir::{AggregateCall, Expr, Field};
use crate::plan::rewrite::{column, columns, remap};
use crate::plan::{keep, rebuild, Node, NodeId, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let used = demanded_columns(plan);
    // Column maps of the new nodes: old output column -> new output column.
    let mut maps: Vec<Vec<Option<usize>>> = Vec::with_capacity(plan.nodes.len());
    let mut changed = false;
    let new = rebuild(plan, |new, old, node| {
        let keep_cols: Vec<usize> = used[old.index()].iter().copied().collect();
        let old_inputs = plan.node(old).kind.inputs();
        let input_map = |k: usize| -> &Vec<Option<usize>> { &maps[old_inputs[k].index()] };
        let arity = node.schema.len();
        let (id, map) = match node.kind.clone() {
            NodeKind::Scan {
                table,
                columns,
                filter,
            } => {
                let kept: Vec<usize> = keep_cols.clone();
                let map = position_map(arity, &kept);
                let filter = filter.map(|f| remap(f, &|c| map[c].expect("filter column kept")));
                let schema: Vec<Field> = kept.iter().map(|&c| node.schema[c].clone()).collect();
                let kind = NodeKind::Scan {
                    table,
                    columns: kept.iter().map(|&c| columns[c]).collect(),
                    filter,
                };
                (new.intern(kind, schema, &node.provenance), map)
            }
            NodeKind::Values { rows } => {
                let map = position_map(arity, &keep_cols);
                let rows = rows
                    .into_iter()
                    .map(|r| keep_cols.iter().map(|&c| r[c].clone()).collect())
                    .collect();
                let schema: Vec<Field> =
                    keep_cols.iter().map(|&c| node.schema[c].clone()).collect();
                (
                    new.intern(NodeKind::Values { rows }, schema, &node.provenance),
                    map,
                )
            }
            NodeKind::Calc {
                input,
                projections,
                filter,
            } => {
                let m = input_map(0).clone();
                let f = |c: usize| m[c].expect("demanded column was kept");
                let projections: Vec<Expr> = keep_cols
                    .iter()
                    .map(|&c| remap(projections[c].clone(), &f))
                    .collect();
                let filter = filter.map(|x| remap(x, &f));
                let schema: Vec<Field> =
                    keep_cols.iter().map(|&c| node.schema[c].clone()).collect();
                let map = position_map(arity, &keep_cols);
                (
                    new.intern(
                        NodeKind::Calc {
                            input,
                            projections,
                            filter,
                        },
                        schema,
                        &node.provenance,
                    ),
                    map,
                )
            }
            NodeKind::Aggregate {
                input,
                group,
                aggregates,
            } => {
                let m = input_map(0).clone();
                let f = |c: usize| m[c].expect("demanded column was kept");
                let g = group.len();
                let kept_aggs: Vec<usize> = (0..aggregates.len())
                    .filter(|j| used[old.index()].contains(&(g + j)))
                    .collect();
                let aggregates: Vec<AggregateCall> = kept_aggs
                    .iter()
                    .map(|&j| {
                        let mut a = aggregates[j].clone();
                        a.args = a.args.iter().map(|&c| f(c)).collect();
                        a.filter = a.filter.map(&f);
                        a
                    })
                    .collect();
                let mut kept: Vec<usize> = (0..g).collect();
                kept.extend(kept_aggs.iter().map(|j| g + j));
                let schema: Vec<Field> = kept.iter().map(|&c| node.schema[c].clone()).collect();
                let group = group.iter().map(|&c| f(c)).collect();
                let map = position_map(arity, &kept);
                (
                    new.intern(
                        NodeKind::Aggregate {
                            input,
                            group,
                            aggregates,
                        },
                        schema,
                        &node.provenance,
                    ),
                    map,
                )
            }
            NodeKind::Join {
                kind,
                left,
                right,
                left_keys,
                right_keys,
                residual,
            } => {
                let (lm, rm) = (input_map(0).clone(), input_map(1).clone());
                let old_left_arity = lm.len();
                // What this join reads of each side: its output columns that
                // consumers use, its keys and its residual. A shared input may
                // keep more columns for its other consumers; a narrowing
                // projection keeps the join's rows (and their copies) small.
                let mut need: BTreeSet<usize> = used[old.index()].clone();
                need.extend(left_keys.iter().copied());
                need.extend(right_keys.iter().map(|&c| c + old_left_arity));
                need.extend(residual.iter().flat_map(columns));
                let need_left: Vec<usize> = need
                    .iter()
                    .copied()
                    .filter(|&c| c < old_left_arity)
                    .collect();
                let need_right: Vec<usize> = need
                    .iter()
                    .filter(|&&c| c >= old_left_arity)
                    .map(|&c| c - old_left_arity)
                    .collect();
                let left = select(new, left, &lm, &need_left);
                let right = select(new, right, &rm, &need_right);
                let lm2 = position_map(old_left_arity, &need_left);
                let rm2 = position_map(rm.len(), &need_right);
                let map: Vec<Option<usize>> = lm2
                    .iter()
                    .copied()
                    .chain(rm2.iter().map(|c| c.map(|c| c + need_left.len())))
                    .collect();
                let residual =
                    residual.map(|r| remap(r, &|c| map[c].expect("residual column kept")));
                let left_keys = left_keys
                    .iter()
                    .map(|&c| lm2[c].expect("key kept"))
                    .collect();
                let right_keys = right_keys
                    .iter()
                    .map(|&c| rm2[c].expect("key kept"))
                    .collect();
                // A semi or anti join outputs its left columns only.
                let (schema, map): (Vec<_>, _) = if kind.outputs_right() {
                    (need.iter().map(|&c| node.schema[c].clone()).collect(), map)
                } else {
                    let schema: Vec<Field> =
                        need_left.iter().map(|&c| node.schema[c].clone()).collect();
                    (schema, lm2.clone())
                };
                let kind = NodeKind::Join {
                    kind,
                    left,
                    right,
                    left_keys,
                    right_keys,
                    residual,
                };
                (new.intern(kind, schema, &node.provenance), map)
            }
            NodeKind::Union { inputs } => {
                // Each input must produce exactly the kept columns, in order.
                let inputs: Vec<NodeId> = inputs
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| select(new, i, input_map(k), &keep_cols))
                    .collect();
                let schema: Vec<Field> =
                    keep_cols.iter().map(|&c| node.schema[c].clone()).collect();
                let map = position_map(arity, &keep_cols);
                (
                    new.intern(NodeKind::Union { inputs }, schema, &node.provenance),
                    map,
                )
            }
            NodeKind::Sort {
                input,
                keys,
                offset,
                limit,
            } => {
                let m = input_map(0).clone();
                let keys = keys
                    .into_iter()
                    .map(|mut k| {
                        k.column = m[k.column].expect("sort key kept");
                        k
                    })
                    .collect();
                let schema: Vec<Field> = (0..m.len())
                    .filter(|&c| m[c].is_some())
                    .map(|c| node.schema[c].clone())
                    .collect();
                (
                    new.intern(
                        NodeKind::Sort {
                            input,
                            keys,
                            offset,
                            limit,
                        },
                        schema,
                        &node.provenance,
                    ),
                    m,
                )
            }
            NodeKind::Window {
                input,
                window,
                time_column,
            } => {
                let m = input_map(0).clone();
                let input_arity = new.node(input).schema.len();
                let mut map = m.clone();
                map.extend((0..3).map(|k| Some(input_arity + k)));
                let schema: Vec<Field> = (0..m.len())
                    .filter(|&c| m[c].is_some())
                    .map(|c| node.schema[c].clone())
                    .chain(node.schema[m.len()..].iter().cloned())
                    .collect();
                let time_column = m[time_column].expect("time column kept");
                (
                    new.intern(
                        NodeKind::Window {
                            input,
                            window,
                            time_column,
                        },
                        schema,
                        &node.provenance,
                    ),
                    map,
                )
            }
            NodeKind::Over {
                input,
                partition,
                order,
                calls,
                limit,
            } => {
                // Every call is kept (a Top-N's rank column included); the
                // input keeps what the consumers and the calls read.
                let m = input_map(0).clone();
                let f = |c: usize| m[c].expect("window column kept");
                let input_arity = new.node(input).schema.len();
                let mut map = m.clone();
                map.extend((0..calls.len()).map(|k| Some(input_arity + k)));
                let schema: Vec<Field> = (0..m.len())
                    .filter(|&c| m[c].is_some())
                    .map(|c| node.schema[c].clone())
                    .chain(node.schema[m.len()..].iter().cloned())
                    .collect();
                let kind = NodeKind::Over {
                    input,
                    partition: partition.into_iter().map(f).collect(),
                    order: order
                        .into_iter()
                        .map(|mut k| {
                            k.column = f(k.column);
                            k
                        })
                        .collect(),
                    calls: calls
                        .into_iter()
                        .map(|mut c| {
                            c.args = c.args.into_iter().map(f).collect();
                            c
                        })
                        .collect(),
                    limit,
                };
                (new.intern(kind, schema, &node.provenance), map)
            }
            NodeKind::Sink { .. } => {
                let map = (0..arity).map(Some).collect();
                (keep(new, node), map)
            }
        };
        if map.iter().filter(|c| c.is_some()).count() < arity {
            changed = true;
        }
        maps.push(map);
        id
    });
    changed.then_some(new)
}

/// For each node, the output columns its consumers need.
fn demanded_columns(plan: &Plan) -> Vec<BTreeSet<usize>> {
    let mut used: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); plan.nodes.len()];
    for (i, node) in plan.nodes.iter().enumerate().rev() {
        let mine = used[i].clone();
        let mut demands: Vec<(NodeId, Vec<usize>)> = Vec::new();
        let mut demand = |input: NodeId, cols: &mut dyn Iterator<Item = usize>| {
            demands.push((input, cols.collect()))
        };
        match &node.kind {
            NodeKind::Scan { filter, .. } => {
                // The scan's own filter reads its columns too.
                let extra: Vec<usize> = filter.iter().flat_map(columns).collect();
                demand(NodeId(i as u32), &mut extra.into_iter());
            }
            NodeKind::Values { .. } => {}
            NodeKind::Calc {
                input,
                projections,
                filter,
            } => {
                let mut cols: BTreeSet<usize> = filter.iter().flat_map(columns).collect();
                for &c in &mine {
                    cols.extend(columns(&projections[c]));
                }
                demand(*input, &mut cols.into_iter());
            }
            NodeKind::Aggregate {
                input,
                group,
                aggregates,
            } => {
                let mut cols: BTreeSet<usize> = group.iter().copied().collect();
                for (j, a) in aggregates.iter().enumerate() {
                    if mine.contains(&(group.len() + j)) {
                        cols.extend(a.args.iter().copied());
                        cols.extend(a.filter);
                    }
                }
                demand(*input, &mut cols.into_iter());
            }
            NodeKind::Join {
                left,
                right,
                left_keys,
                right_keys,
                residual,
                ..
            } => {
                let la = plan.node(*left).schema.len();
                let mut cols: BTreeSet<usize> = mine.clone();
                cols.extend(residual.iter().flat_map(columns));
                cols.extend(left_keys.iter().copied());
                cols.extend(right_keys.iter().map(|c| c + la));
                let (l, r): (Vec<usize>, Vec<usize>) = cols.into_iter().partition(|&c| c < la);
                demand(*left, &mut l.into_iter());
                demand(*right, &mut r.into_iter().map(|c| c - la));
            }
            NodeKind::Union { inputs } => {
                for input in inputs {
                    demand(*input, &mut mine.iter().copied());
                }
            }
            NodeKind::Sort { input, keys, .. } => {
                let mut cols = mine.clone();
                cols.extend(keys.iter().map(|k| k.column));
                demand(*input, &mut cols.into_iter());
            }
            NodeKind::Window {
                input, time_column, ..
            } => {
                let arity = plan.node(*input).schema.len();
                let mut cols: BTreeSet<usize> =
                    mine.iter().copied().filter(|&c| c < arity).collect();
                cols.insert(*time_column);
                demand(*input, &mut cols.into_iter());
            }
            NodeKind::Over {
                input,
                partition,
                order,
                calls,
                ..
            } => {
                let arity = plan.node(*input).schema.len();
                let mut cols: BTreeSet<usize> =
                    mine.iter().copied().filter(|&c| c < arity).collect();
                cols.extend(partition.iter().copied());
                cols.extend(order.iter().map(|k| k.column));
                cols.extend(calls.iter().flat_map(|c| c.args.iter().copied()));
                demand(*input, &mut cols.into_iter());
            }
            NodeKind::Sink { input, .. } => {
                let arity = plan.node(*input).schema.len();
                demand(*input, &mut (0..arity));
            }
        }
        for (input, cols) in demands {
            used[input.index()].extend(cols);
        }
    }
    used
}

/// `old column -> new position` for keeping `kept` (sorted) of `arity` columns.
fn position_map(arity: usize, kept: &[usize]) -> Vec<Option<usize>> {
    let mut map = vec![None; arity];
    for (new, &old) in kept.iter().enumerate() {
        map[old] = Some(new);
    }
    map
}

/// `input` narrowed to the old columns `wanted` (through its map), adding a
/// projection when the pruned input has a different shape.
fn select(new: &mut Plan, input: NodeId, map: &[Option<usize>], wanted: &[usize]) -> NodeId {
    let positions: Vec<usize> = wanted
        .iter()
        .map(|&c| map[c].expect("wanted column kept"))
        .collect();
    let node: Node = new.node(input).clone();
    if positions.len() == node.schema.len() && positions.iter().enumerate().all(|(i, &p)| i == p) {
        return input;
    }
    let projections = positions
        .iter()
        .map(|&p| column(p, node.schema[p].ty))
        .collect();
    let schema: Vec<Field> = positions.iter().map(|&p| node.schema[p].clone()).collect();
    new.intern(
        NodeKind::Calc {
            input,
            projections,
            filter: None,
        },
        schema,
        &node.provenance,
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
    fn scans_read_the_union_of_what_consumers_need() {
        check_pass(
            "projection_pruning",
            &format!(
                "{TABLES} INSERT INTO k1 SELECT a, s FROM t;
                 INSERT INTO k3 SELECT s, COUNT(*) FROM t GROUP BY s;"
            ),
            "
Sink #2 k1 [blackhole] INSERT INTO
+- Calc #1 select=[a, s]
   +- Scan #0 t [datagen] read=[a, s] shared=[k1, k3]

Sink #6 k3 [blackhole] INSERT INTO
+- Calc #5 select=[s, EXPR$1]
   +- Aggregate #4 group=[s] aggs=[COUNT(*) AS EXPR$1]
      +- Calc #3 select=[s]
         +- Scan #0 t (reused, see above)
",
        );
    }
}
