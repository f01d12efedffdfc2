//! Eager aggregation of a left join's nullable side.
//!
//! ```sql
//! SELECT c_custkey, COUNT(o_orderkey) AS c_count
//! FROM customer LEFT JOIN orders
//!   ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
//! GROUP BY c_custkey                                          -- TPC-H q13
//! ```
//!
//! Row by row, the join builds every order (1.5 million rows at SF 1) and
//! hands the aggregate one row per order, to be counted per customer. Yet
//! the aggregate reads nothing of an order but whether it is there: the
//! orders can be counted per `o_custkey` first, and each customer joined
//! with its one count. The join then builds one row per key (100,000
//! customers with orders), and its output has one row per customer.
//!
//! The aggregate's groups are columns of the preserved (left) side, and
//! each call reads only a bare column of the nullable (right) side or is
//! `COUNT(*)`. The right side becomes an aggregate grouped by the join keys
//! with one partial call per call; the left join of the left side with it
//! feeds a final aggregate of the same groups:
//! - `COUNT(r)` becomes `SUM(CASE WHEN cnt IS NULL THEN 0 ELSE cnt END)`
//!   (a left row without a partner counted no `r`);
//! - `COUNT(*)` becomes `SUM(CASE WHEN cnt IS NULL THEN 1 ELSE cnt END)`
//!   (such a row is one row);
//! - `SUM`, `MIN`, `MAX` of `r` become the same function of the partial
//!   (NULL for a row without a partner, as its `r` was).
//!
//! Left rows whose groups repeat (a customer listed twice) each meet the
//! same partials, as each met the same rows; NULL keys match nothing
//! either way. It always pays where it applies: the join's build side (its
//! right input) holds at most as many rows as before, each no wider than a
//! row of the old build, and the join emits at most as many rows. Only
//! equi-joins without a residual condition, calls without `DISTINCT` or
//! `FILTER`, and sums that add up exactly in any order (integers, DOUBLE
//! up to rounding order, DECIMAL) qualify. Flink does not make this
//! rewrite; it changes no result.

use crate::functions::AggregateFunction as F;
use crate::ir::{AggregateCall, Expr, ExprKind, Field, JoinKind, Literal, UnaryOp};
use crate::plan::rewrite::{column, columns};
use crate::plan::{NodeId, NodeKind, Plan};
use crate::types::{DataType, TypeKind};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    // The consumers of a rewritten aggregate read its final node instead.
    super::substitute_nodes(plan, rewrite)
}

/// What a call of the original aggregate reads.
enum Reads {
    /// `COUNT(*)`.
    Rows,
    /// A bare column of the right side, in the right side's coordinates.
    Right(usize),
}

fn rewrite(plan: &mut Plan, t: NodeId) -> Option<NodeId> {
    let NodeKind::Aggregate {
        input,
        ref group,
        ref aggregates,
    } = plan.node(t).kind
    else {
        return None;
    };
    // A global aggregate yields a row even of no input; keep it simple.
    if group.is_empty() || aggregates.is_empty() {
        return None;
    }
    let (group, aggregates) = (group.clone(), aggregates.clone());
    // The aggregate's input: a Calc without filter over the join, or the join.
    let (projections, join) = match &plan.node(input).kind {
        NodeKind::Calc {
            input: j,
            projections,
            filter: None,
        } => (Some(projections.clone()), *j),
        NodeKind::Join { .. } => (None, input),
        _ => return None,
    };
    let NodeKind::Join {
        kind: JoinKind::Left,
        left,
        right,
        ref left_keys,
        ref right_keys,
        residual: None,
    } = plan.node(join).kind
    else {
        return None;
    };
    if left_keys.is_empty() {
        return None;
    }
    let (left_keys, right_keys) = (left_keys.clone(), right_keys.clone());
    // A right side with one row per key already (this rewrite's own
    // partials, a GROUP BY on the keys) has nothing to gain.
    if one_row_per_key(plan, right, &right_keys) {
        return None;
    }
    let left_len = plan.node(left).schema.len();
    let join_schema = plan.node(join).schema.clone();
    // Input column `c` of the aggregate as an expression over the join.
    let projection = |c: usize| match &projections {
        Some(p) => p[c].clone(),
        None => column(c, join_schema[c].ty),
    };
    if group
        .iter()
        .any(|&g| columns(&projection(g)).iter().any(|&c| c >= left_len))
    {
        return None;
    }
    let right_schema = plan.node(right).schema.clone();
    let mut reads = Vec::new();
    for a in &aggregates {
        if a.distinct || a.filter.is_some() {
            return None;
        }
        let read = match (a.function, &a.args[..]) {
            (F::Count, []) => Reads::Rows,
            (F::Count | F::Sum | F::Min | F::Max, [c]) => match projection(*c).kind {
                ExprKind::Column(j) if j >= left_len => Reads::Right(j - left_len),
                _ => return None,
            },
            _ => return None,
        };
        if let Reads::Right(r) = read {
            let ty = right_schema[r].ty;
            if a.function == F::Sum
                && !(ty.kind.is_integer()
                    || matches!(ty.kind, TypeKind::Double | TypeKind::Decimal { .. }))
            {
                return None;
            }
        }
        reads.push(read);
    }

    // The right side's partials, grouped by its join keys.
    let provenance = plan.node(t).provenance.clone();
    let mut partial_fields: Vec<Field> = right_keys
        .iter()
        .map(|&k| right_schema[k].clone())
        .collect();
    let mut partials = Vec::new();
    for (a, read) in aggregates.iter().zip(&reads) {
        let (args, ty) = match *read {
            Reads::Rows => (Vec::new(), DataType::not_null(TypeKind::BigInt)),
            Reads::Right(r) => (vec![r], a.ty),
        };
        let name = format!("{}$partial", a.name);
        partial_fields.push(Field {
            name: name.clone(),
            ty,
        });
        partials.push(AggregateCall {
            function: a.function,
            distinct: false,
            args,
            filter: None,
            separator: None,
            ty,
            name,
        });
    }
    let keys = right_keys.len();
    let partial = plan.intern(
        NodeKind::Aggregate {
            input: right,
            group: right_keys,
            aggregates: partials,
        },
        partial_fields.clone(),
        &provenance,
    );
    // The left join with the partials: their columns may be NULL.
    let left_schema = plan.node(left).schema.clone();
    let new_join_schema: Vec<Field> = left_schema
        .iter()
        .cloned()
        .chain(partial_fields.iter().map(|f| Field {
            name: f.name.clone(),
            ty: DataType::new(f.ty.kind, true),
        }))
        .collect();
    let new_join = plan.intern(
        NodeKind::Join {
            kind: JoinKind::Left,
            left,
            right: partial,
            left_keys,
            right_keys: (0..keys).collect(),
            residual: None,
        },
        new_join_schema.clone(),
        &provenance,
    );
    // The group columns as they were (the left side's columns keep their
    // positions), then each final call's argument.
    let t_schema = plan.node(t).schema.clone();
    let mut calc: Vec<Expr> = group.iter().map(|&g| projection(g)).collect();
    let mut calc_fields: Vec<Field> = t_schema[..group.len()].to_vec();
    let mut finals = Vec::new();
    for (i, (a, read)) in aggregates.iter().zip(&reads).enumerate() {
        let at = left_len + keys + i;
        let p = column(at, new_join_schema[at].ty);
        let (arg, function) = match (a.function, read) {
            (F::Count, Reads::Rows) => (or_when_null(p, 1), F::Sum),
            (F::Count, Reads::Right(_)) => (or_when_null(p, 0), F::Sum),
            (f, _) => (p, f),
        };
        calc_fields.push(Field {
            name: format!("$arg{i}"),
            ty: arg.ty,
        });
        calc.push(arg);
        finals.push(AggregateCall {
            function,
            distinct: false,
            args: vec![calc.len() - 1],
            filter: None,
            separator: None,
            ty: a.ty,
            name: a.name.clone(),
        });
    }
    let calc = plan.intern(
        NodeKind::Calc {
            input: new_join,
            projections: calc,
            filter: None,
        },
        calc_fields,
        &provenance,
    );
    Some(plan.intern(
        NodeKind::Aggregate {
            input: calc,
            group: (0..group.len()).collect(),
            aggregates: finals,
        },
        t_schema,
        &provenance,
    ))
}

/// Whether `node` has at most one row per value of its `keys` columns: an
/// aggregate grouped by some of them, seen through Calcs that pick columns
/// (another INSERT's partials, merged with these, come as a Calc over the
/// shared aggregate).
fn one_row_per_key(plan: &Plan, node: NodeId, keys: &[usize]) -> bool {
    match &plan.node(node).kind {
        NodeKind::Aggregate { group, .. } => (0..group.len()).all(|c| keys.contains(&c)),
        NodeKind::Calc {
            input, projections, ..
        } => {
            let below: Option<Vec<usize>> = keys
                .iter()
                .map(|&k| match projections[k].kind {
                    ExprKind::Column(c) => Some(c),
                    _ => None,
                })
                .collect();
            below.is_some_and(|b| one_row_per_key(plan, *input, &b))
        }
        _ => false,
    }
}

/// `CASE WHEN cnt IS NULL THEN value ELSE cnt END` (BIGINT NOT NULL) of a
/// partial count that is NULL where the left row had no partner.
fn or_when_null(cnt: Expr, value: i64) -> Expr {
    let bigint = DataType::not_null(TypeKind::BigInt);
    let expr = |kind: ExprKind, ty: DataType| Expr {
        kind,
        ty,
        span: Default::default(),
    };
    let is_null = expr(
        ExprKind::Unary {
            op: UnaryOp::IsNull,
            operand: Box::new(cnt.clone()),
        },
        DataType::not_null(TypeKind::Boolean),
    );
    expr(
        ExprKind::Case {
            branches: vec![(
                is_null,
                expr(ExprKind::Literal(Literal::Integer(value)), bigint),
            )],
            otherwise: Some(Box::new(cnt)),
        },
        bigint,
    )
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::optimized_text;

    fn plan(select: &str, on: &str, group: &str) -> String {
        optimized_text(&format!(
            "SET 'execution.runtime-mode' = 'batch';
             CREATE TABLE c (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
             CREATE TABLE o (oid BIGINT, cid INT, qty INT, note STRING)
               WITH ('connector' = 'datagen', 'number-of-rows' = '100000');
             CREATE TABLE s (a INT, b BIGINT, x INT) WITH ('connector' = 'blackhole');
             INSERT INTO s SELECT {select} FROM c LEFT JOIN o ON {on} GROUP BY {group};"
        ))
    }

    #[test]
    fn counts_of_the_nullable_side_are_taken_per_key_before_the_join() {
        let text = plan(
            "c.id, COUNT(o.oid), SUM(o.qty)",
            "c.id = o.cid AND o.note NOT LIKE '%x%'",
            "c.id",
        );
        // The join builds one row per `cid` (the partials, its right
        // input); the filter on the orders stays under them; the final
        // aggregate sums the counts, zero for a customer without orders.
        assert_eq!(
            text.trim(),
            "
Sink #6 s [blackhole] INSERT INTO
+- Aggregate #5 group=[id] aggs=[SUM($arg0) AS EXPR$1, SUM($arg1) AS EXPR$2]
   +- Calc #4 select=[id, CASE WHEN EXPR$1$partial IS NULL THEN 0 ELSE EXPR$1$partial END AS $arg0, EXPR$2$partial AS $arg1]
      +- Join #3 left on=[id = cid]
         +- Scan #0 c [datagen] read=[id]
         +- Aggregate #2 group=[cid] aggs=[COUNT(oid) AS EXPR$1$partial, SUM(qty) AS EXPR$2$partial]
            +- Scan #1 o [datagen] read=[oid, cid, qty, note] where=[note NOT LIKE '%x%']"
                .trim(),
            "{text}"
        );
    }

    #[test]
    fn count_star_counts_a_row_without_partner_once() {
        let text = plan("c.id, COUNT(*), MAX(o.qty)", "c.id = o.cid", "c.id");
        assert!(text.contains(" IS NULL THEN 1 ELSE "), "{text}");
        assert!(text.contains("MAX("), "{text}");
    }

    #[test]
    fn it_stays_out_where_the_rows_matter() {
        // A group of the nullable side, a call over an expression, a
        // DISTINCT call, a residual condition: the plan is the row-by-row one.
        for (select, on, group) in [
            ("c.id, COUNT(*), o.qty", "c.id = o.cid", "c.id, o.qty"),
            ("c.id, COUNT(o.oid + 1), 0", "c.id = o.cid", "c.id"),
            ("c.id, COUNT(DISTINCT o.qty), 0", "c.id = o.cid", "c.id"),
            (
                "c.id, COUNT(o.oid), 0",
                "c.id = o.cid AND o.qty > c.id",
                "c.id",
            ),
        ] {
            let text = plan(select, on, group);
            assert!(!text.contains("$partial"), "{select} / {on}:\n{text}");
        }
    }

    #[test]
    fn partials_shared_with_another_insert_are_not_aggregated_again() {
        // Both INSERTs' partials become one aggregate of `o` by `cid`; the
        // first INSERT's join then reads it through a Calc, which has one
        // row per key already.
        let text = optimized_text(
            "SET 'execution.runtime-mode' = 'batch';
             CREATE TABLE c (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
             CREATE TABLE o (oid BIGINT, cid INT, qty INT) WITH ('connector' = 'datagen', 'number-of-rows' = '100000');
             CREATE TABLE s1 (a INT, x INT) WITH ('connector' = 'blackhole');
             CREATE TABLE s2 (a STRING, b BIGINT) WITH ('connector' = 'blackhole');
             EXECUTE STATEMENT SET BEGIN
             INSERT INTO s1 SELECT c.id, SUM(o.qty) FROM c LEFT JOIN o ON c.id = o.cid GROUP BY c.id;
             INSERT INTO s2 SELECT c.name, COUNT(o.oid) FROM c LEFT JOIN o ON c.id = o.cid GROUP BY c.name;
             END;",
        );
        assert_eq!(text.matches("group=[cid]").count(), 1, "{text}");
    }
}
