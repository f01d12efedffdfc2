//! Aggregates of one input by the same keys, for different INSERTs, become
//! one aggregate computing every call (each once), with a projection per
//! consumer picking its columns: one hash table and one lookup per row
//! instead of one per INSERT (`SELECT k, SUM(x) ... GROUP BY k` and
//! `SELECT k, MAX(y) ... GROUP BY k` over the same rows). The groups are the
//! same rows either way, so nothing else changes; aggregates over
//! differently filtered inputs have different inputs and stay apart.

use std::collections::HashMap;

use crate::ir::{AggregateCall, Field};
use crate::plan::rewrite::column;
use crate::plan::{keep, rebuild, NodeId, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    // Aggregates by input and keys, in id order.
    let mut by_key: HashMap<(NodeId, Vec<usize>), Vec<NodeId>> = HashMap::new();
    for (i, node) in plan.nodes.iter().enumerate() {
        if let NodeKind::Aggregate { input, group, .. } = &node.kind {
            by_key
                .entry((*input, group.clone()))
                .or_default()
                .push(NodeId(i as u32));
        }
    }
    // For each aggregate that merges: the merged calls and where its own are.
    let mut merged: HashMap<NodeId, (Vec<AggregateCall>, Vec<usize>)> = HashMap::new();
    for members in by_key.values().filter(|m| m.len() > 1) {
        let mut calls: Vec<AggregateCall> = Vec::new();
        let mut positions: Vec<Vec<usize>> = Vec::new();
        for &id in members {
            let NodeKind::Aggregate { aggregates, .. } = &plan.node(id).kind else {
                unreachable!("grouped above")
            };
            let mine = aggregates
                .iter()
                .map(|call| match calls.iter().position(|c| same_call(c, call)) {
                    Some(p) => p,
                    None => {
                        let mut call = call.clone();
                        // Names stay unique in the merged schema (for explain).
                        while calls.iter().any(|c| c.name == call.name) {
                            call.name = format!("{}'", call.name);
                        }
                        calls.push(call);
                        calls.len() - 1
                    }
                })
                .collect();
            positions.push(mine);
        }
        for (&id, mine) in members.iter().zip(positions) {
            merged.insert(id, (calls.clone(), mine));
        }
    }
    if merged.is_empty() {
        return None;
    }
    Some(rebuild(plan, |new, old, node| {
        let Some((calls, mine)) = merged.get(&old) else {
            return keep(new, node);
        };
        let NodeKind::Aggregate { input, group, .. } = &node.kind else {
            unreachable!("only aggregates merge")
        };
        let keys = group.len();
        let mut schema: Vec<Field> = node.schema[..keys].to_vec();
        schema.extend(calls.iter().map(|c| Field {
            name: c.name.clone(),
            ty: c.ty,
        }));
        let all = new.intern(
            NodeKind::Aggregate {
                input: *input,
                group: group.clone(),
                aggregates: calls.clone(),
            },
            schema,
            &node.provenance,
        );
        let projections = (0..keys)
            .chain(mine.iter().map(|p| keys + p))
            .zip(node.schema.iter())
            .map(|(c, f)| column(c, f.ty))
            .collect();
        new.intern(
            NodeKind::Calc {
                input: all,
                projections,
                filter: None,
            },
            node.schema.clone(),
            &node.provenance,
        )
    }))
}

/// The same computation (names aside).
fn same_call(a: &AggregateCall, b: &AggregateCall) -> bool {
    a.function == b.function
        && a.distinct == b.distinct
        && a.args == b.args
        && a.filter == b.filter
        && a.separator == b.separator
        && a.ty == b.ty
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_optimized;

    #[test]
    fn aggregates_by_the_same_keys_of_the_same_rows_become_one() {
        check_optimized(
            "CREATE TABLE s (k INT, x INT, y DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
             CREATE TABLE a (k INT, sx INT, n BIGINT) WITH ('connector' = 'blackhole');
             CREATE TABLE b (k INT, my DOUBLE, n BIGINT) WITH ('connector' = 'blackhole');
             CREATE TABLE c (k INT, n BIGINT) WITH ('connector' = 'blackhole');
             INSERT INTO a SELECT k, SUM(x), COUNT(*) FROM s GROUP BY k;
             INSERT INTO b SELECT k, MAX(y), COUNT(*) FROM s GROUP BY k;
             INSERT INTO c SELECT k, COUNT(*) FROM s WHERE x > 0 GROUP BY k;",
            "
Sink #3 a [blackhole] INSERT INTO
+- Calc #2 select=[k, EXPR$1, EXPR$2]
   +- Aggregate #1 group=[k] aggs=[SUM(x) AS EXPR$1, COUNT(*) AS EXPR$2, MAX(y) AS EXPR$1'] shared=[a, b]
      +- Scan #0 s [datagen] read=[k, x, y] shared=[a, b, c]

Sink #5 b [blackhole] INSERT INTO
+- Calc #4 select=[k, EXPR$1' AS EXPR$1, EXPR$2]
   +- Aggregate #1 (reused, see above)

Sink #8 c [blackhole] INSERT INTO
+- Aggregate #7 group=[k] aggs=[COUNT(*) AS EXPR$1]
   +- Calc #6 where=[(x > 0)] select=[k]
      +- Scan #0 s (reused, see above)",
        );
    }
}
