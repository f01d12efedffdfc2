//! Semi-join reduction of an aggregate that an inner join filters by key.
//!
//! ```sql
//! SELECT SUM(l_extendedprice) / 7.0 FROM lineitem, part
//! WHERE p_partkey = l_partkey AND p_brand = 'Brand#23'
//!   AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey);
//! ```
//!
//! Decorrelated (TPC-H q17), the subquery is an aggregate of every lineitem
//! row by `l_partkey`, inner-joined with the few parts of one brand: 200,000
//! groups computed over 6 million rows, of which the join keeps about 200.
//! A group whose key has no partner on the other side of the join is
//! dropped by the join whole, so its input rows can be dropped before they
//! are aggregated: the aggregate's input becomes a semi join with the other
//! side, on the same keys, and each surviving group still sees all of its
//! rows. Its results are the same (a group's rows arrive in the same
//! order); NULL keys match nothing in either join.
//!
//! It fires only where it pays:
//! - the join is inner and its keys on the aggregate's side are bare group
//!   columns (through a Calc without a filter, or directly);
//! - the aggregate (and that Calc) feed only this join: another consumer
//!   needs every group;
//! - the other side reads no source the aggregate's input reads, so it is
//!   complete before that input is read and the semi join probes it in the
//!   same pass over the rows, without holding them back;
//! - the other side is estimated at most half as many rows as the
//!   aggregate's input (a small table to probe, a good chance of dropping
//!   rows); where sizes are unknown, the plan stays as it is.
//!
//! Flink does not make this rewrite; it changes no result, only how much
//! work the aggregate does.

use crate::ir::JoinKind;
use crate::plan::cost::estimate_rows;
use crate::plan::{keep, rebuild, NodeId, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let rows = estimate_rows(plan, plan.base_dir.as_deref());
    let consumers = plan.consumer_counts();
    let mut next = plan.clone();
    let mut changed = false;
    for j in 0..plan.nodes.len() {
        let NodeKind::Join {
            kind: JoinKind::Inner,
            left,
            right,
            ref left_keys,
            ref right_keys,
            ..
        } = plan.node(NodeId(j as u32)).kind
        else {
            continue;
        };
        if left_keys.is_empty() {
            continue;
        }
        for (side, side_keys, other, other_keys) in [
            (left, left_keys, right, right_keys),
            (right, right_keys, left, left_keys),
        ] {
            let Some((aggregate, reduced)) = reduce(
                &mut next,
                &rows,
                &consumers,
                (side, side_keys),
                (other, other_keys),
            ) else {
                continue;
            };
            // The aggregate's one consumer (the join or the Calc) reads the
            // reduced aggregate.
            for node in &mut next.nodes {
                for input in node.kind.inputs_mut() {
                    if *input == aggregate {
                        *input = reduced;
                    }
                }
            }
            changed = true;
            break;
        }
    }
    if !changed {
        return None;
    }
    // New nodes were appended after their consumers: compaction restores
    // input-before-consumer order, the rebuild re-interns.
    next.compact();
    Some(rebuild(&next, |new, _, node| keep(new, node)))
}

/// The aggregate under `side` and its reduced copy (an aggregate of the
/// same rows semi-joined with `other` on the join's keys), when the rewrite
/// applies and pays.
fn reduce(
    plan: &mut Plan,
    rows: &[Option<f64>],
    consumers: &[usize],
    (side, side_keys): (NodeId, &[usize]),
    (other, other_keys): (NodeId, &[usize]),
) -> Option<(NodeId, NodeId)> {
    if consumers[side.index()] != 1 {
        return None;
    }
    // Each join key on this side as an aggregate output column.
    let (aggregate, outputs): (NodeId, Vec<usize>) = match &plan.node(side).kind {
        NodeKind::Aggregate { .. } => (side, side_keys.to_vec()),
        NodeKind::Calc {
            input,
            projections,
            filter: None,
        } => {
            let columns = side_keys
                .iter()
                .map(|&k| match projections[k].kind {
                    crate::ir::ExprKind::Column(c) => Some(c),
                    _ => None,
                })
                .collect::<Option<Vec<usize>>>()?;
            (*input, columns)
        }
        _ => return None,
    };
    let NodeKind::Aggregate {
        input,
        ref group,
        ref aggregates,
    } = plan.node(aggregate).kind
    else {
        return None;
    };
    if consumers[aggregate.index()] != 1 {
        return None;
    }
    // The keys must be group columns: then each group has one key value.
    let input_keys = outputs
        .iter()
        .map(|&o| group.get(o).copied())
        .collect::<Option<Vec<usize>>>()?;
    // Already reduced by this side (the pass runs to a fixpoint).
    if let NodeKind::Join {
        kind: JoinKind::Semi,
        right,
        ref left_keys,
        ref right_keys,
        ..
    } = plan.node(input).kind
    {
        if right == other && *left_keys == input_keys && right_keys == other_keys {
            return None;
        }
    }
    let (Some(other_rows), Some(input_rows)) = (rows[other.index()], rows[input.index()]) else {
        return None;
    };
    if other_rows * 2.0 > input_rows {
        return None;
    }
    let (theirs, ours) = (sources(plan, other), sources(plan, input));
    if theirs.iter().any(|t| ours.contains(t)) {
        return None;
    }
    let (group, aggregates) = (group.clone(), aggregates.clone());
    let provenance = plan.node(aggregate).provenance.clone();
    let input_schema = plan.node(input).schema.clone();
    let aggregate_schema = plan.node(aggregate).schema.clone();
    let semi = plan.intern(
        NodeKind::Join {
            kind: JoinKind::Semi,
            left: input,
            right: other,
            left_keys: input_keys,
            right_keys: other_keys.to_vec(),
            residual: None,
        },
        input_schema,
        &provenance,
    );
    let reduced = plan.intern(
        NodeKind::Aggregate {
            input: semi,
            group,
            aggregates,
        },
        aggregate_schema,
        &provenance,
    );
    Some((aggregate, reduced))
}

/// The source tables `node` reads, transitively.
fn sources(plan: &Plan, node: NodeId) -> Vec<crate::ir::TableId> {
    let mut stack = vec![node];
    let mut seen = vec![false; plan.nodes.len()];
    let mut tables = Vec::new();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n.index()], true) {
            continue;
        }
        match &plan.node(n).kind {
            NodeKind::Scan { table, .. } => tables.push(*table),
            kind => stack.extend(kind.inputs()),
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::optimized_text;

    /// 1M lineitem rows aggregated by part, joined with `part_rows` parts
    /// (`WHERE` on the parts, and a second INSERT, as given).
    fn plan(part_rows: u64, part_filter: &str, more: &str) -> String {
        optimized_text(&format!(
            "SET 'execution.runtime-mode' = 'batch';
             CREATE TABLE lineitem (l_partkey BIGINT, l_quantity DOUBLE)
               WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
             CREATE TABLE part (p_partkey BIGINT, p_brand STRING)
               WITH ('connector' = 'datagen', 'number-of-rows' = '{part_rows}');
             CREATE TABLE out_t (k BIGINT, a DOUBLE) WITH ('connector' = 'blackhole');
             INSERT INTO out_t SELECT p.p_partkey, q.a FROM part AS p
               JOIN (SELECT l_partkey, AVG(l_quantity) AS a FROM lineitem GROUP BY l_partkey) AS q
               ON q.l_partkey = p.p_partkey {part_filter};
             {more}"
        ))
    }

    #[test]
    fn an_aggregate_joined_with_few_keys_aggregates_only_their_rows() {
        let text = plan(1000, "WHERE p.p_brand = 'Brand#23'", "");
        assert_eq!(
            text.trim(),
            "
Sink #7 out_t [blackhole] INSERT INTO
+- Calc #6 select=[p_partkey, a]
   +- Join #5 inner on=[l_partkey = p_partkey]
      +- Aggregate #4 group=[l_partkey] aggs=[AVG(l_quantity) AS EXPR$1]
         +- Join #3 semi on=[l_partkey = p_partkey]
            +- Scan #0 lineitem [datagen] read=[l_partkey, l_quantity]
            +- Calc #2 select=[p_partkey] shared=[out_t]
               +- Scan #1 part [datagen] read=[p_partkey, p_brand] where=[(p_brand = 'Brand#23')]
      +- Calc #2 (reused, see above)"
                .trim(),
            "{text}"
        );
        // Run to a fixpoint, the rewrite happens once.
        assert_eq!(text.matches(" semi ").count(), 1, "{text}");
    }

    #[test]
    fn it_stays_out_where_it_cannot_pay() {
        // The control: 1,000 parts without a filter are few enough.
        assert!(plan(1000, "", "").contains(" semi "));
        // As many parts as lineitem rows: nothing to gain from probing them.
        let big = plan(1_000_000, "", "");
        // The aggregate feeds a second INSERT, which needs every group.
        let shared = plan(
            1000,
            "",
            "INSERT INTO out_t SELECT l_partkey, AVG(l_quantity) FROM lineitem GROUP BY l_partkey;",
        );
        // The other side reads lineitem too: it is complete only after the
        // aggregate's input is read, so the semi join would hold every row.
        let same_source = optimized_text(
            "SET 'execution.runtime-mode' = 'batch';
             CREATE TABLE lineitem (l_partkey BIGINT, l_quantity DOUBLE)
               WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
             CREATE TABLE out_t (k BIGINT, a DOUBLE) WITH ('connector' = 'blackhole');
             INSERT INTO out_t SELECT f.l_partkey, q.a
               FROM (SELECT l_partkey FROM lineitem WHERE l_quantity > 49) AS f
               JOIN (SELECT l_partkey, AVG(l_quantity) AS a FROM lineitem GROUP BY l_partkey) AS q
               ON q.l_partkey = f.l_partkey;",
        );
        // A LEFT JOIN keeps unmatched groups.
        let left = optimized_text(
            "SET 'execution.runtime-mode' = 'batch';
             CREATE TABLE lineitem (l_partkey BIGINT, l_quantity DOUBLE)
               WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
             CREATE TABLE part (p_partkey BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
             CREATE TABLE out_t (k BIGINT, a DOUBLE) WITH ('connector' = 'blackhole');
             INSERT INTO out_t SELECT q.l_partkey, q.a
               FROM (SELECT l_partkey, AVG(l_quantity) AS a FROM lineitem GROUP BY l_partkey) AS q
               LEFT JOIN part AS p ON q.l_partkey = p.p_partkey;",
        );
        for text in [big, shared, same_source, left] {
            assert!(!text.contains(" semi "), "{text}");
        }
    }
}
