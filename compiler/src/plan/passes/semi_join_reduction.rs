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
//! The same reasoning reduces a join's side whose rows would wait: in q17
//! the lineitem rows compared with the averages wait (spooled) until the
//! averages are complete, yet only those of the brand's parts can match.
//! Each key the other side carries is a key of the filtered part table
//! under it, so the waiting side is first semi-joined with that table
//! (`reduce_by_key_source`). A semi or anti join's build side is reduced
//! the same way by the keys its probe side can carry (q21: every line item
//! is built, but only those of orders with status 'F' are ever probed),
//! or by the probe side itself when it is complete before the build side
//! is read (q04: the late line items of one quarter's orders).
//!
//! Flink does not make these rewrites; they change no result, only how
//! much work the aggregate does and how many rows wait.

use crate::ir::JoinKind;
use crate::plan::cost::estimate_rows;
use crate::plan::{keep, rebuild, NodeId, NodeKind, Plan};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    let rows = estimate_rows(plan, plan.base_dir.as_deref());
    let fractions = crate::plan::reshare::join_aware_rows(plan);
    let consumers = plan.consumer_counts();
    let mut next = plan.clone();
    let mut changed = false;
    for j in 0..plan.nodes.len() {
        let NodeKind::Join {
            kind,
            left,
            right,
            ref left_keys,
            ref right_keys,
            ..
        } = plan.node(NodeId(j as u32)).kind
        else {
            continue;
        };
        // A semi or anti join's build rows matter only where some probe
        // row has their key: its build side can be reduced by the keys the
        // probe side can carry, as an inner join's sides can.
        if matches!(kind, JoinKind::Semi | JoinKind::Anti) && !left_keys.is_empty() {
            if let Some(reduced) = reduce_by_key_source(
                plan,
                &mut next,
                &rows,
                fractions.as_deref(),
                (right, right_keys),
                (left, left_keys),
                Held::SemiBuild,
            ) {
                let NodeKind::Join { right, .. } = &mut next.nodes[j].kind else {
                    unreachable!("node {j} is a join")
                };
                *right = reduced;
                changed = true;
            }
            continue;
        }
        if kind != JoinKind::Inner {
            continue;
        }
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
                // Or the side itself, by a table under the other side.
                if let Some(reduced) = reduce_by_key_source(
                    plan,
                    &mut next,
                    &rows,
                    fractions.as_deref(),
                    (side, side_keys),
                    (other, other_keys),
                    if side == right {
                        Held::Build
                    } else {
                        Held::Waiting
                    },
                ) {
                    let NodeKind::Join { left, right, .. } = &mut next.nodes[j].kind else {
                        unreachable!("node {j} is a join")
                    };
                    *(if *left == side { left } else { right }) = reduced;
                    changed = true;
                    break;
                }
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
    // Nodes added by an earlier rewrite in this round have no estimate.
    let estimate = |n: NodeId| rows.get(n.index()).copied().flatten();
    let (Some(other_rows), Some(input_rows)) = (estimate(other), estimate(input)) else {
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

/// Why the rows of a join's side are held, for [`reduce_by_key_source`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    /// They wait until the other side is complete (q17's line items).
    Waiting,
    /// An inner join's build side, held whole (q09's partsupp rows).
    Build,
    /// A semi or anti join's build side: its rows matter only where some
    /// probe row has their key, so the probe side itself may reduce it.
    SemiBuild,
}

/// `side` semi-joined with a selective table under `other` that holds
/// every key `other` can carry, when the rewrite applies and pays:
///
/// ```text
/// lineitem ⋈ (AVG(l_quantity) by l_partkey ⋈ part of one brand)      (q17)
/// ```
///
/// The right side reads lineitem too, so it is complete only after the
/// scan, and every lineitem row waits for it (spooled). Its `p_partkey`
/// values are among the filtered part's: lineitem rows of other parts can
/// be dropped as they are read, by a semi join with that part table, and
/// only the rows of the brand's parts wait. It fires when:
/// - `other` reads the largest source `side` reads (so `side`'s rows
///   stream before `other` is complete; otherwise the join itself drops
///   them as early), unless `side` is a build side, which is held whole
///   anyway (a semi or anti join's may be reduced by `other` itself);
/// - the table reads no source `side` reads (it is complete first);
/// - its filters keep at most half of its unfiltered rows (else it drops
///   few of `side`'s), and it is estimated at most half of `side`'s rows.
///
/// The table need not hold every key: q09's partsupp rows are built on
/// `(ps_suppkey, ps_partkey)`, yet only parts named green are probed, so
/// they are semi-joined with those parts on `ps_partkey` alone.
fn reduce_by_key_source(
    plan: &Plan,
    next: &mut Plan,
    rows: &[Option<f64>],
    fractions: Option<&[(f64, f64)]>,
    (side, side_keys): (NodeId, &[usize]),
    (other, other_keys): (NodeId, &[usize]),
    held: Held,
) -> Option<NodeId> {
    let fractions = fractions?;
    // Already reduced (the pass runs to a fixpoint).
    if matches!(
        plan.node(side).kind,
        NodeKind::Join {
            kind: JoinKind::Semi,
            ..
        }
    ) {
        return None;
    }
    let ours = sources(plan, side);
    let streamed = scans(plan, side)
        .into_iter()
        .filter_map(|s| Some((rows[s.index()]?, s)))
        .max_by(|a, b| a.0.total_cmp(&b.0))?
        .1;
    // A build side is held whole anyway; another side only waits when
    // `other` is complete after it.
    if held == Held::Waiting && !scans(plan, other).contains(&streamed) {
        return None;
    }
    let side_rows = rows[side.index()]?;
    let mut candidates = Vec::new();
    key_sources(
        plan,
        other,
        other_keys.iter().map(|&k| Some(k)).collect(),
        0,
        &mut candidates,
    );
    let side_schema = &plan.node(side).schema;
    let (table, keys) = candidates
        .into_iter()
        .filter(|(t, keys)| {
            let kept = fractions[t.index()].1;
            (held == Held::SemiBuild || *t != other)
                && kept <= 0.5
                && rows[t.index()].is_some_and(|r| r * 2.0 <= side_rows)
                && keys.iter().zip(side_keys).all(|(&k, &s)| {
                    k.is_none_or(|k| plan.node(*t).schema[k].ty.kind == side_schema[s].ty.kind)
                })
                && !sources(plan, *t).iter().any(|s| ours.contains(s))
        })
        .min_by(|a, b| {
            let kept = |t: NodeId| fractions[t.index()].1;
            let rows = |t: NodeId| rows[t.index()].unwrap_or(f64::INFINITY);
            kept(a.0)
                .total_cmp(&kept(b.0))
                .then(rows(a.0).total_cmp(&rows(b.0)))
        })?;
    // The semi join's keys: the join's keys the table holds.
    let (side_keys, keys): (Vec<usize>, Vec<usize>) = side_keys
        .iter()
        .zip(keys)
        .filter_map(|(&s, k)| Some((s, k?)))
        .unzip();
    let schema = plan.node(side).schema.clone();
    let provenance = plan.node(side).provenance.clone();
    Some(next.intern(
        NodeKind::Join {
            kind: JoinKind::Semi,
            left: side,
            right: table,
            left_keys: side_keys,
            right_keys: keys,
            residual: None,
        },
        schema,
        &provenance,
    ))
}

/// Nodes at or under `node` whose columns hold every value `node`'s `keys`
/// columns can have (a filter, an inner or semi join, a GROUP BY only drop
/// or repeat values), each with those columns; pushed onto `out`. A key
/// whose values do not come from a node's columns is `None` there: the
/// keys that are `Some` still come from one row of it together (a join's
/// row is one row of each side, a group's keys one group's).
fn key_sources(
    plan: &Plan,
    node: NodeId,
    keys: Vec<Option<usize>>,
    depth: usize,
    out: &mut Vec<(NodeId, Vec<Option<usize>>)>,
) {
    if keys.iter().all(Option::is_none) {
        return;
    }
    out.push((node, keys.clone()));
    // Bounded: each join below may add two paths.
    if depth >= 16 || out.len() >= 256 {
        return;
    }
    match &plan.node(node).kind {
        NodeKind::Calc {
            input, projections, ..
        } => {
            let below = keys.iter().map(|&k| match projections[k?].kind {
                crate::ir::ExprKind::Column(c) => Some(c),
                _ => None,
            });
            key_sources(plan, *input, below.collect(), depth + 1, out);
        }
        NodeKind::Aggregate { input, group, .. } => {
            let below = keys.iter().map(|&k| group.get(k?).copied());
            key_sources(plan, *input, below.collect(), depth + 1, out);
        }
        NodeKind::Join {
            kind: kind @ (JoinKind::Inner | JoinKind::Semi),
            left,
            right,
            left_keys,
            right_keys,
            ..
        } => {
            let width = plan.node(*left).schema.len();
            // A key column of one side equals the other side's key.
            let on_left = keys.iter().map(|&k| {
                let k = k?;
                if k < width {
                    Some(k)
                } else {
                    let i = right_keys.iter().position(|&r| r == k - width)?;
                    Some(left_keys[i])
                }
            });
            key_sources(plan, *left, on_left.collect(), depth + 1, out);
            let on_right = keys.iter().map(|&k| {
                let k = k?;
                if k >= width && *kind == JoinKind::Inner {
                    Some(k - width)
                } else if k < width {
                    let i = left_keys.iter().position(|&l| l == k)?;
                    Some(right_keys[i])
                } else {
                    None
                }
            });
            key_sources(plan, *right, on_right.collect(), depth + 1, out);
        }
        _ => {}
    }
}

/// The scans at or under `node`.
fn scans(plan: &Plan, node: NodeId) -> Vec<NodeId> {
    let mut stack = vec![node];
    let mut seen = vec![false; plan.nodes.len()];
    let mut found = Vec::new();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n.index()], true) {
            continue;
        }
        match &plan.node(n).kind {
            NodeKind::Scan { .. } => found.push(n),
            kind => stack.extend(kind.inputs()),
        }
    }
    found
}

/// The source tables `node` reads, transitively.
fn sources(plan: &Plan, node: NodeId) -> Vec<crate::ir::TableId> {
    scans(plan, node)
        .into_iter()
        .map(|s| match plan.node(s).kind {
            NodeKind::Scan { table, .. } => table,
            _ => unreachable!("scans() returns scans"),
        })
        .collect()
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

    /// TPC-H q17's shape: lineitem joined with the per-part averages of the
    /// parts `part_filter` keeps, which read lineitem too.
    fn q17(part_filter: &str) -> String {
        optimized_text(&format!(
            "SET 'execution.runtime-mode' = 'batch';
             CREATE TABLE lineitem (l_partkey BIGINT, l_quantity DOUBLE, l_price DOUBLE)
               WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
             CREATE TABLE part (p_partkey BIGINT, p_brand STRING)
               WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
             CREATE TABLE out_t (s DOUBLE) WITH ('connector' = 'blackhole');
             INSERT INTO out_t SELECT SUM(l.l_price) FROM lineitem AS l, part AS p
               WHERE p.p_partkey = l.l_partkey {part_filter}
                 AND l.l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem
                                     WHERE l_partkey = p.p_partkey);"
        ))
    }

    #[test]
    fn rows_waiting_for_a_join_are_first_reduced_by_its_filtered_keys() {
        let text = q17("AND p.p_brand = 'Brand#23'");
        // The lineitem rows that wait for the averages are only those of
        // the brand's parts: the outer join's lineitem side is a semi join
        // with the filtered parts, which the aggregate's input shares.
        let outer = text.find("Join #").expect("a join");
        let below = &text[outer..];
        let first_input = below.lines().nth(1).expect("an input");
        assert!(
            first_input.contains("Join #")
                && first_input.contains(" semi on=[l_partkey = p_partkey]"),
            "{text}"
        );
        assert!(
            text.contains("Join #") && text.matches(" semi ").count() == 1,
            "{text}"
        );
        assert!(text.contains("(reused, see above)"), "{text}");
        // Without the filter, every lineitem row has its part: no semi join
        // on the outer side (the aggregate is still reduced by the parts).
        let text = q17("");
        let outer = text.find("Join #").expect("a join");
        let first_input = text[outer..].lines().nth(1).expect("an input");
        assert!(!first_input.contains(" semi "), "{text}");
    }

    #[test]
    fn a_semi_or_anti_build_keeps_only_keys_the_probe_side_can_carry() {
        // TPC-H q21's shape: the line items of orders with status 'F' that
        // have (EXISTS) or lack (NOT EXISTS) a line item of another
        // supplier. Both builds read every line item; the probe side's keys
        // are keys of the orders with status 'F', read before: each build
        // first drops the line items of other orders.
        let sql = |quantifier: &str| {
            format!(
                "SET 'execution.runtime-mode' = 'batch';
                 CREATE TABLE l (ok BIGINT, sk BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
                 CREATE TABLE o (id BIGINT, status STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '100000');
                 CREATE TABLE s (sk BIGINT) WITH ('connector' = 'blackhole');
                 INSERT INTO s SELECT l1.sk FROM l AS l1 JOIN o ON l1.ok = o.id
                 WHERE o.status = 'F'
                   AND {quantifier} (SELECT * FROM l AS l2 WHERE l2.ok = l1.ok AND l2.sk <> l1.sk);"
            )
        };
        for (quantifier, kind) in [("EXISTS", " semi "), ("NOT EXISTS", " anti ")] {
            let text = optimized_text(&sql(quantifier));
            let at = text.find(kind).expect("the subquery's join");
            let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            // The join's inputs are the lines three columns deeper; the
            // second is its build side.
            let indent = at - line_start - "+- Join #6".len() + 3;
            let inputs: Vec<&str> = text[at..]
                .lines()
                .skip(1)
                .filter(|l| l.len() > indent && l[indent..].starts_with("+- "))
                .collect();
            assert!(
                inputs.len() >= 2 && inputs[1].contains(" semi on=[ok = id]"),
                "{quantifier}: {inputs:?}\n{text}"
            );
            assert!(text.contains("where=[(status = 'F')]"), "{text}");
        }
    }

    #[test]
    fn a_semi_build_keeps_only_keys_of_a_probe_side_complete_before_it() {
        // TPC-H q04's shape: orders of one quarter that have a late line
        // item. The orders are read before the line items; only the late
        // line items of those orders need building.
        let text = optimized_text(
            "SET 'execution.runtime-mode' = 'batch';
             CREATE TABLE o (id BIGINT, q INT, p STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '100000');
             CREATE TABLE l (ok BIGINT, c INT, r INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
             CREATE TABLE s (p STRING) WITH ('connector' = 'blackhole');
             INSERT INTO s SELECT o.p FROM o
             WHERE o.q = 3 AND EXISTS (SELECT * FROM l WHERE l.ok = o.id AND l.c < l.r);",
        );
        // The EXISTS join's build side (its second input) is the late line
        // items semi-joined with the quarter's orders (the probe side).
        let build = text
            .lines()
            .find(|l| l.starts_with("      +- Join #"))
            .unwrap_or_default();
        assert!(build.contains(" semi on=[$cor0 = id]"), "{text}");
        assert_eq!(text.matches(" semi on=").count(), 2, "{text}");
    }

    #[test]
    fn an_inner_build_keeps_only_rows_whose_key_part_the_probe_side_can_carry() {
        // TPC-H q09's shape: line items of green parts joined with partsupp
        // on (partkey, suppkey). Every partsupp row would be built, yet the
        // probe rows' partkeys are all green parts': the build is first
        // semi-joined with those parts on its partkey alone.
        let sql = |filter: &str| {
            optimized_text(&format!(
                "SET 'execution.runtime-mode' = 'batch';
                 CREATE TABLE l (pk BIGINT, sk BIGINT, q DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000');
                 CREATE TABLE p (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '20000');
                 CREATE TABLE ps (ppk BIGINT, psk BIGINT, cost DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '80000');
                 CREATE TABLE s (x DOUBLE) WITH ('connector' = 'blackhole');
                 INSERT INTO s SELECT l.q * ps.cost FROM l, p, ps
                 WHERE l.pk = p.id AND {filter} AND ps.ppk = l.pk AND ps.psk = l.sk;"
            ))
        };
        let text = sql("p.name LIKE '%green%'");
        assert!(
            text.contains(" semi on=[ppk = id]"),
            "the build side is not reduced by the green parts:\n{text}"
        );
        // Unfiltered parts hold every partkey: nothing to drop.
        let text = sql("p.id IS NOT NULL");
        assert!(!text.contains(" semi "), "{text}");
    }
}
