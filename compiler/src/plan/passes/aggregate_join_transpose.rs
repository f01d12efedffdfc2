//! Aggregate-join transpose, reusing an aggregate the job computes anyway
//! (eager aggregation).
//!
//! ```sql
//! INSERT INTO per_user SELECT user_id, COUNT(*), SUM(total) FROM orders GROUP BY user_id;
//! INSERT INTO per_city SELECT u.city, COUNT(*), SUM(o.total), AVG(u.age)
//!   FROM orders AS o JOIN users AS u ON o.user_id = u.id GROUP BY u.city;
//! ```
//!
//! The second INSERT probes the join once per order and aggregates every
//! joined row. The first already reduces the orders to one row per
//! `user_id`, the join key, with the partial counts and sums the second
//! needs. This rewrite joins those groups instead of the rows and finishes
//! with a final aggregate over them:
//!
//! - `COUNT(*)` becomes `SUM(cnt)`, a fact-side `COUNT(x)`/`SUM(x)` becomes
//!   the `SUM` of the partial, `MIN`/`MAX` the `MIN`/`MAX` of the partial;
//! - `DISTINCT` aggregates of fact-side columns read the group column
//!   (the pre-aggregation groups by it);
//! - dimension-side (`users`) arguments are weighted by the partial count:
//!   `COUNT(r)` becomes `SUM(CASE WHEN r IS NULL THEN 0 ELSE cnt END)`,
//!   `SUM(r)`/`AVG(r)` of a DOUBLE `r` use `r * cnt`; `MIN`, `MAX` and
//!   `DISTINCT` aggregates of `r` are unchanged.
//!
//! The rewrite fires only when that aggregate already exists in the plan:
//! same input, grouped by (at least) the join keys and every fact-side group
//! and distinct column, with every partial call needed. It is then free: no
//! new per-row work, and the join and the final aggregate see one row per
//! group. Without such an aggregate, pre-aggregating is a bet on the number
//! of distinct join keys, which the planner has no statistics to make.
//!
//! Exactness: integer sums wrap like the row-by-row sum (the same result
//! modulo 2^n); a DOUBLE sum adds the same values in another order, which can
//! change the last digits exactly as a parallel run does. Only inner
//! equi-joins without a residual condition, aggregates without `FILTER`, and
//! the functions above qualify; anything else leaves the plan as it is.

use std::collections::BTreeSet;

use crate::functions::AggregateFunction as F;
use crate::ir::{AggregateCall, BinaryOp, Expr, ExprKind, Field, JoinKind, Literal, UnaryOp};
use crate::plan::rewrite::{column, columns, remap};
use crate::plan::{NodeId, NodeKind, Plan};
use crate::types::{DataType, TypeKind};

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    // The consumers of a rewritten aggregate read its final node instead.
    super::substitute_nodes(plan, rewrite)
}

/// Which side of the join is pre-aggregated ("fact") and which is joined
/// as it is ("dim").
struct Sides {
    fact: NodeId,
    dim: NodeId,
    fact_keys: Vec<usize>,
    dim_keys: Vec<usize>,
    /// Offsets of the two sides in the join's output row.
    fact_offset: usize,
    dim_offset: usize,
    fact_len: usize,
}

/// What an input column of the aggregate (a projection over the join) is.
#[derive(Clone, Copy, PartialEq)]
enum Origin {
    /// A bare fact-side column, in the fact node's coordinates.
    Fact(usize),
    /// An expression over dimension columns only (or a constant).
    Dim,
}

/// One argument of the final aggregate, computed by the Calc over the new join.
enum Arg {
    /// Output column `i` of the reused aggregate.
    Partial(usize),
    /// A dimension-side expression (join-output coordinates of the old join).
    Dim(Expr),
    /// `CASE WHEN r IS NULL THEN 0 ELSE cnt END` of a dimension expression.
    CountIfNotNull(Expr),
    /// `r * CAST(cnt AS DOUBLE)` of a DOUBLE dimension expression.
    Weighted(Expr),
}

/// How an original aggregate call is finished.
enum Finish {
    /// The final call's result as it is.
    Direct(usize),
    /// `AVG`: the sum column divided by the count column, NULL for a zero count.
    Average { sum: usize, count: usize },
}

fn rewrite(plan: &mut Plan, t: NodeId) -> Option<NodeId> {
    let NodeKind::Aggregate {
        input,
        group,
        aggregates,
    } = plan.node(t).kind.clone()
    else {
        return None;
    };
    if aggregates.iter().any(|a| a.filter.is_some()) || aggregates.is_empty() {
        return None;
    }
    // The aggregate's input: a Calc without filter over the join, or the join.
    let (projections, join) = match &plan.node(input).kind {
        NodeKind::Calc {
            input: j,
            projections,
            filter: None,
        } if matches!(plan.node(*j).kind, NodeKind::Join { .. }) => (projections.clone(), *j),
        NodeKind::Join { .. } => {
            let schema = &plan.node(input).schema;
            let identity = (0..schema.len()).map(|i| column(i, schema[i].ty));
            (identity.collect(), input)
        }
        _ => return None,
    };
    let NodeKind::Join {
        kind: JoinKind::Inner,
        left,
        right,
        left_keys,
        right_keys,
        residual: None,
    } = plan.node(join).kind.clone()
    else {
        return None;
    };
    let left_len = plan.node(left).schema.len();
    let right_len = plan.node(right).schema.len();
    for fact_is_left in [true, false] {
        let sides = if fact_is_left {
            Sides {
                fact: left,
                dim: right,
                fact_keys: left_keys.clone(),
                dim_keys: right_keys.clone(),
                fact_offset: 0,
                dim_offset: left_len,
                fact_len: left_len,
            }
        } else {
            Sides {
                fact: right,
                dim: left,
                fact_keys: right_keys.clone(),
                dim_keys: left_keys.clone(),
                fact_offset: left_len,
                dim_offset: 0,
                fact_len: right_len,
            }
        };
        if let Some(f) = transpose(plan, t, &projections, &group, &aggregates, &sides) {
            return Some(f);
        }
    }
    None
}

fn origin(e: &Expr, s: &Sides) -> Option<Origin> {
    let is_fact = |c: usize| c >= s.fact_offset && c < s.fact_offset + s.fact_len;
    let cols = columns(e);
    if cols.iter().all(|&c| !is_fact(c)) {
        return Some(Origin::Dim);
    }
    match e.kind {
        ExprKind::Column(c) => Some(Origin::Fact(c - s.fact_offset)),
        // A computed fact-side value or a mix of both sides.
        _ => None,
    }
}

fn transpose(
    plan: &mut Plan,
    t: NodeId,
    projections: &[Expr],
    group: &[usize],
    aggregates: &[AggregateCall],
    s: &Sides,
) -> Option<NodeId> {
    let origins: Vec<Option<Origin>> = projections.iter().map(|p| origin(p, s)).collect();
    let used = group
        .iter()
        .chain(aggregates.iter().flat_map(|a| a.args.iter()));
    if used.clone().any(|&c| origins[c].is_none()) {
        return None;
    }
    // The fact side, seen through a Calc that only picks columns.
    let (base, picks): (NodeId, Vec<usize>) = match &plan.node(s.fact).kind {
        NodeKind::Calc {
            input,
            projections: fact_projections,
            filter: None,
        } => {
            let picks: Option<Vec<usize>> = fact_projections
                .iter()
                .map(|p| match p.kind {
                    ExprKind::Column(c) => Some(c),
                    _ => None,
                })
                .collect();
            match picks {
                Some(picks) => (*input, picks),
                None => (s.fact, (0..s.fact_len).collect()),
            }
        }
        _ => (s.fact, (0..s.fact_len).collect()),
    };
    let fact_col = |c: usize| picks[c];

    // The groups the reused aggregate must be at least as fine as.
    let mut needed_group: BTreeSet<usize> = s.fact_keys.iter().map(|&k| fact_col(k)).collect();
    for &g in group {
        if let Some(Origin::Fact(c)) = origins[g] {
            needed_group.insert(fact_col(c));
        }
    }
    for a in aggregates.iter().filter(|a| a.distinct) {
        if let [c] = a.args[..] {
            if let Some(Origin::Fact(f)) = origins[c] {
                needed_group.insert(fact_col(f));
            }
        }
    }

    // The partial calls needed, as (function, base column) pairs.
    let count_star = (F::Count, None);
    let mut needed_calls: Vec<(F, Option<usize>)> = Vec::new();
    let mut need = |call: (F, Option<usize>)| {
        if !needed_calls.contains(&call) {
            needed_calls.push(call);
        }
    };
    let base_schema = plan.node(base).schema.clone();
    for a in aggregates {
        // LISTAGG concatenates in input order: no partial aggregate below
        // the join.
        if a.function == F::ListAgg {
            return None;
        }
        if a.distinct {
            if a.args.len() != 1 {
                return None;
            }
            continue;
        }
        match (a.function, a.args.first().map(|&c| origins[c])) {
            (F::Count, None) => need(count_star),
            (F::Count | F::Sum | F::Min | F::Max, Some(Some(Origin::Fact(c)))) => {
                let b = fact_col(c);
                if a.function == F::Sum && !summable_exactly(base_schema[b].ty) {
                    return None;
                }
                need((a.function, Some(b)));
            }
            (F::Min | F::Max, Some(Some(Origin::Dim))) => {}
            (F::Count, Some(Some(Origin::Dim))) => need(count_star),
            (F::Sum | F::Avg, Some(Some(Origin::Dim)))
                if projections[a.args[0]].ty.kind == TypeKind::Double =>
            {
                need(count_star)
            }
            _ => return None,
        }
    }

    // An aggregate of the same input that already computes all of it.
    let (sibling, sibling_group, sibling_calls) =
        plan.nodes
            .iter()
            .enumerate()
            .find_map(|(i, n)| match &n.kind {
                NodeKind::Aggregate {
                    input,
                    group,
                    aggregates,
                } if *input == base
                    && NodeId(i as u32) != t
                    // A global aggregate yields one row even of an empty
                    // input, where the join of the rows yields none.
                    && !group.is_empty()
                    && needed_group.iter().all(|g| group.contains(g))
                    && needed_calls
                        .iter()
                        .all(|c| find_call(aggregates, *c).is_some()) =>
                {
                    Some((NodeId(i as u32), group.clone(), aggregates.clone()))
                }
                _ => None,
            })?;
    let sibling_schema = plan.node(sibling).schema.clone();
    let group_pos = |b: usize| {
        sibling_group
            .iter()
            .position(|&g| g == b)
            .expect("needed group")
    };
    let call_pos = |c: (F, Option<usize>)| {
        sibling_group.len() + find_call(&sibling_calls, c).expect("needed call")
    };

    // The new join probes with the sibling's groups and builds on the
    // dimension side, whichever side each was on (the generated code builds
    // a join's right input). Where the dimension side is computed from the
    // sibling itself (TPC-H q18: orders semi-joined with the lineitem sums
    // over 300, joined with lineitem and summed again per order), the
    // groups exist only after the whole input is read, and so does the
    // dimension side: the schedule keeps the groups (spooled) until the
    // build is complete, which holds one row per key where the row-by-row
    // join held every input row.
    let dim_schema = plan.node(s.dim).schema.clone();
    let (s_off, d_off) = (0, sibling_schema.len());
    let left_keys: Vec<usize> = s
        .fact_keys
        .iter()
        .map(|&k| group_pos(fact_col(k)))
        .collect();
    let join_schema: Vec<Field> = sibling_schema
        .iter()
        .chain(dim_schema.iter())
        .cloned()
        .collect();
    let (new_left, new_right, right_keys) = (sibling, s.dim, s.dim_keys.clone());
    let provenance = plan.node(t).provenance.clone();
    let new_join = plan.intern(
        NodeKind::Join {
            kind: JoinKind::Inner,
            left: new_left,
            right: new_right,
            left_keys,
            right_keys,
            residual: None,
        },
        join_schema,
        &provenance,
    );
    let partial = |i: usize| column(s_off + i, sibling_schema[i].ty);
    let rebase = |e: &Expr| remap(e.clone(), &|c| c - s.dim_offset + d_off);
    // The partial COUNT(*): only asked for when a call needs it, and then
    // the sibling has it (it is in `needed_calls`).
    let cnt = || partial(call_pos(count_star));

    // The Calc over the new join: group columns, then the final arguments.
    let t_schema = plan.node(t).schema.clone();
    let mut calc: Vec<Expr> = Vec::new();
    let mut calc_fields: Vec<Field> = Vec::new();
    for (i, &g) in group.iter().enumerate() {
        calc.push(match origins[g] {
            Some(Origin::Fact(c)) => partial(group_pos(fact_col(c))),
            _ => rebase(&projections[g]),
        });
        calc_fields.push(t_schema[i].clone());
    }
    let mut finals: Vec<AggregateCall> = Vec::new();
    let mut finishes: Vec<Finish> = Vec::new();
    for a in aggregates {
        let mut add_arg = |arg: Arg| -> usize {
            let e = match arg {
                Arg::Partial(i) => partial(i),
                Arg::Dim(e) => rebase(&e),
                Arg::CountIfNotNull(e) => count_if_not_null(rebase(&e), cnt()),
                Arg::Weighted(e) => weighted(rebase(&e), cnt()),
            };
            calc_fields.push(Field {
                name: format!("$arg{}", calc.len() - group.len()),
                ty: e.ty,
            });
            calc.push(e);
            calc.len() - 1
        };
        let arg_origin = a.args.first().map(|&c| origins[c].expect("checked"));
        let call = |function: F, arg: usize, ty: DataType, distinct: bool| AggregateCall {
            function,
            distinct,
            args: vec![arg],
            filter: None,
            ty,
            separator: None,
            name: a.name.clone(),
        };
        let finish_direct = |finals: &mut Vec<AggregateCall>, c: AggregateCall| {
            finals.push(c);
            Finish::Direct(finals.len() - 1)
        };
        let finish = match (a.distinct, a.function, arg_origin) {
            (true, _, Some(Origin::Fact(c))) => {
                let arg = add_arg(Arg::Partial(group_pos(fact_col(c))));
                finish_direct(&mut finals, call(a.function, arg, a.ty, true))
            }
            (true, _, _) => {
                let arg = add_arg(Arg::Dim(projections[a.args[0]].clone()));
                finish_direct(&mut finals, call(a.function, arg, a.ty, true))
            }
            (false, F::Count, None) => {
                let arg = add_arg(Arg::Partial(call_pos(count_star)));
                finish_direct(&mut finals, call(F::Sum, arg, a.ty, false))
            }
            (false, f, Some(Origin::Fact(c))) => {
                let arg = add_arg(Arg::Partial(call_pos((f, Some(fact_col(c))))));
                let function = if f == F::Count { F::Sum } else { f };
                finish_direct(&mut finals, call(function, arg, a.ty, false))
            }
            (false, f @ (F::Min | F::Max), Some(Origin::Dim)) => {
                let arg = add_arg(Arg::Dim(projections[a.args[0]].clone()));
                finish_direct(&mut finals, call(f, arg, a.ty, false))
            }
            (false, F::Count, Some(Origin::Dim)) => {
                let arg = add_arg(Arg::CountIfNotNull(projections[a.args[0]].clone()));
                finish_direct(&mut finals, call(F::Sum, arg, a.ty, false))
            }
            (false, F::Sum, Some(Origin::Dim)) => {
                let arg = add_arg(Arg::Weighted(projections[a.args[0]].clone()));
                finish_direct(&mut finals, call(F::Sum, arg, a.ty, false))
            }
            (false, F::Avg, Some(Origin::Dim)) => {
                let r = projections[a.args[0]].clone();
                let s_arg = add_arg(Arg::Weighted(r.clone()));
                let n_arg = add_arg(Arg::CountIfNotNull(r));
                finals.push(call(F::Sum, s_arg, a.ty, false));
                let sum = finals.len() - 1;
                let count_ty = DataType::nullable(TypeKind::BigInt);
                finals.push(AggregateCall {
                    name: format!("{}$count", a.name),
                    ..call(F::Sum, n_arg, count_ty, false)
                });
                Finish::Average {
                    sum,
                    count: finals.len() - 1,
                }
            }
            _ => unreachable!("checked above"),
        };
        finishes.push(finish);
    }
    let calc_node = plan.intern(
        NodeKind::Calc {
            input: new_join,
            projections: calc,
            filter: None,
        },
        calc_fields,
        &provenance,
    );
    let mut agg_fields: Vec<Field> = t_schema[..group.len()].to_vec();
    agg_fields.extend(finals.iter().map(|c| Field {
        name: c.name.clone(),
        ty: c.ty,
    }));
    let final_agg = plan.intern(
        NodeKind::Aggregate {
            input: calc_node,
            group: (0..group.len()).collect(),
            aggregates: finals,
        },
        agg_fields.clone(),
        &provenance,
    );
    // The original schema back: group columns, then one column per call.
    let mut out: Vec<Expr> = (0..group.len())
        .map(|i| column(i, agg_fields[i].ty))
        .collect();
    for (finish, a) in finishes.iter().zip(aggregates) {
        let at = |j: usize| column(group.len() + j, agg_fields[group.len() + j].ty);
        out.push(match *finish {
            Finish::Direct(j) => at(j),
            Finish::Average { sum, count } => average(at(sum), at(count), a.ty),
        });
    }
    Some(plan.intern(
        NodeKind::Calc {
            input: final_agg,
            projections: out,
            filter: None,
        },
        t_schema,
        &provenance,
    ))
}

/// SUM over partial sums gives the row-by-row result: integers wrap the same
/// way, DECIMAL is exact, DOUBLE differs at most in rounding order. (FLOAT
/// sums are kept in f64 and rounded once; summing rounded partials is not
/// the same.)
fn summable_exactly(ty: DataType) -> bool {
    ty.kind.is_integer() || matches!(ty.kind, TypeKind::Double | TypeKind::Decimal { .. })
}

/// The index of the plain (not DISTINCT, no FILTER) call `function(arg)`.
fn find_call(calls: &[AggregateCall], (function, arg): (F, Option<usize>)) -> Option<usize> {
    calls.iter().position(|c| {
        c.function == function
            && !c.distinct
            && c.filter.is_none()
            && c.args.first().copied() == arg
            && c.args.len() == usize::from(arg.is_some())
    })
}

fn expr(kind: ExprKind, ty: DataType) -> Expr {
    Expr {
        kind,
        ty,
        span: Default::default(),
    }
}

fn binary(op: BinaryOp, left: Expr, right: Expr, ty: DataType) -> Expr {
    expr(
        ExprKind::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
        ty,
    )
}

fn cast(e: Expr, ty: DataType) -> Expr {
    expr(
        ExprKind::Cast {
            operand: Box::new(e),
            try_cast: false,
        },
        ty,
    )
}

/// `CASE WHEN r IS NULL THEN 0 ELSE cnt END` (BIGINT NOT NULL).
fn count_if_not_null(r: Expr, cnt: Expr) -> Expr {
    let bigint = DataType::not_null(TypeKind::BigInt);
    let is_null = expr(
        ExprKind::Unary {
            op: UnaryOp::IsNull,
            operand: Box::new(r),
        },
        DataType::not_null(TypeKind::Boolean),
    );
    expr(
        ExprKind::Case {
            branches: vec![(
                is_null,
                expr(ExprKind::Literal(Literal::Integer(0)), bigint),
            )],
            otherwise: Some(Box::new(cnt)),
        },
        bigint,
    )
}

/// `r * CAST(cnt AS DOUBLE)` for a DOUBLE `r`.
fn weighted(r: Expr, cnt: Expr) -> Expr {
    let ty = DataType::new(TypeKind::Double, r.ty.nullable);
    let cnt = cast(cnt, DataType::not_null(TypeKind::Double));
    binary(BinaryOp::Multiply, r, cnt, ty)
}

/// `CASE WHEN count > 0 THEN sum / CAST(count AS DOUBLE) END`.
fn average(sum: Expr, count: Expr, ty: DataType) -> Expr {
    let zero = expr(
        ExprKind::Literal(Literal::Integer(0)),
        DataType::not_null(TypeKind::BigInt),
    );
    let positive = binary(
        BinaryOp::Gt,
        count.clone(),
        zero,
        DataType::new(TypeKind::Boolean, count.ty.nullable),
    );
    let divisor = cast(count, DataType::nullable(TypeKind::Double));
    let quotient = binary(
        BinaryOp::Divide,
        sum,
        divisor,
        DataType::nullable(TypeKind::Double),
    );
    expr(
        ExprKind::Case {
            branches: vec![(positive, quotient)],
            otherwise: None,
        },
        DataType::new(ty.kind, true),
    )
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_optimized;

    const TABLES: &str = "
        CREATE TABLE o (k INT, x INT, d DOUBLE, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE u (id INT, age INT, city STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE per_key (k INT, n BIGINT, x INT, d DOUBLE, last TIMESTAMP(3)) WITH ('connector' = 'blackhole');
        CREATE TABLE per_city (city STRING, n BIGINT, keys BIGINT, x INT, d DOUBLE, age DOUBLE, ages BIGINT, oldest INT) WITH ('connector' = 'blackhole');
        INSERT INTO per_key SELECT k, COUNT(*), SUM(x), SUM(d), MAX(ts) FROM o GROUP BY k;";

    #[test]
    fn a_join_aggregate_reads_the_per_key_aggregate() {
        check_optimized(
            &format!(
                "{TABLES}
                INSERT INTO per_city
                SELECT u.city, COUNT(*), COUNT(DISTINCT o.k), SUM(o.x), SUM(o.d),
                       AVG(CAST(u.age AS DOUBLE)), COUNT(u.age), MAX(u.age)
                FROM o JOIN u ON o.k = u.id GROUP BY u.city;"
            ),
            "
Sink #2 per_key [blackhole] INSERT INTO
+- Aggregate #1 group=[k] aggs=[COUNT(*) AS EXPR$1, SUM(x) AS EXPR$2, SUM(d) AS EXPR$3, MAX(ts) AS EXPR$4] shared=[per_key, per_city]
   +- Scan #0 o [datagen] read=[k, x, d, ts]

Sink #10 per_city [blackhole] INSERT INTO
+- Calc #9 select=[city, EXPR$1, EXPR$2, EXPR$3, EXPR$4, CASE WHEN (EXPR$5$count > 0) THEN (EXPR$5 / CAST(EXPR$5$count AS DOUBLE)) END AS EXPR$5, EXPR$6, EXPR$7]
   +- Aggregate #8 group=[city] aggs=[SUM($arg0) AS EXPR$1, COUNT(DISTINCT $arg1) AS EXPR$2, SUM($arg2) AS EXPR$3, SUM($arg3) AS EXPR$4, SUM($arg4) AS EXPR$5, SUM($arg5) AS EXPR$5$count, SUM($arg6) AS EXPR$6, MAX($arg7) AS EXPR$7]
      +- Calc #7 select=[city, EXPR$1 AS $arg0, k AS $arg1, EXPR$2 AS $arg2, EXPR$3 AS $arg3, ($cse0 * CAST(EXPR$1 AS DOUBLE NOT NULL)) AS $arg4, CASE WHEN $cse0 IS NULL THEN 0 ELSE EXPR$1 END AS $arg5, CASE WHEN age IS NULL THEN 0 ELSE EXPR$1 END AS $arg6, age AS $arg7]
         +- Calc #6 select=[k, EXPR$1, EXPR$2, EXPR$3, age, city, CAST(age AS DOUBLE) AS $cse0]
            +- Join #5 inner on=[k = id]
               +- Calc #3 select=[k, EXPR$1, EXPR$2, EXPR$3]
                  +- Aggregate #1 (reused, see above)
               +- Scan #4 u [datagen] read=[id, age, city]",
        );
    }

    #[test]
    fn a_dimension_side_built_from_the_per_key_aggregate_still_reads_its_groups() {
        // TPC-H q18's shape: the keys whose sum is over 300 select the
        // orders, which are joined with the line items and summed again per
        // order. The join reads the per-key sums (one row per key) instead
        // of every line item; the schedule spools those groups until the
        // orders they select are built.
        let sql = "
            SET 'execution.runtime-mode' = 'batch';
            CREATE TABLE l (k BIGINT, q DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
            CREATE TABLE o (id BIGINT, total DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '100');
            CREATE TABLE s (id BIGINT, total DOUBLE, q DOUBLE) WITH ('connector' = 'blackhole');
            INSERT INTO s SELECT o.id, o.total, SUM(l.q) FROM o, l
            WHERE o.id IN (SELECT k FROM l GROUP BY k HAVING SUM(q) > 300) AND o.id = l.k
            GROUP BY o.id, o.total;";
        let plan = crate::plan::passes::test_support::optimized_text(sql);
        let join = &plan[plan.find("Join #").expect("a join")..];
        let probe = join.lines().nth(1).expect("the probe side");
        assert!(
            probe.contains("Aggregate #") && probe.contains("SUM(q)"),
            "{plan}"
        );
        assert!(
            plan.contains("SUM(EXPR$1)") || plan.contains("SUM($arg"),
            "{plan}"
        );
        // And the job builds: the groups wait for the build they select.
        let main = crate::plan::passes::test_support::generated_main(sql);
        assert!(
            main.contains("rt::ops::spool::Spool<"),
            "the groups are spooled"
        );
    }

    #[test]
    fn without_a_per_key_aggregate_the_join_stays() {
        check_optimized(
            "CREATE TABLE o (k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
             CREATE TABLE u (id INT, city STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
             CREATE TABLE per_city (city STRING, x INT) WITH ('connector' = 'blackhole');
             INSERT INTO per_city SELECT u.city, SUM(o.x) FROM o JOIN u ON o.k = u.id GROUP BY u.city;",
            "
Sink #4 per_city [blackhole] INSERT INTO
+- Aggregate #3 group=[city] aggs=[SUM(x) AS EXPR$1]
   +- Join #2 inner on=[k = id]
      +- Scan #0 o [datagen] read=[k, x]
      +- Scan #1 u [datagen] read=[id, city]",
        );
    }

    #[test]
    fn missing_partials_or_outer_joins_leave_the_plan_alone() {
        // MIN(o.x) is not computed per key; an AVG of a fact-side column is
        // not rewritten either; a LEFT JOIN never is.
        for select in [
            "SELECT u.city, COUNT(*), COUNT(DISTINCT o.k), MIN(o.x), SUM(o.d), 0.0, 0, 0 FROM o JOIN u ON o.k = u.id GROUP BY u.city",
            "SELECT u.city, COUNT(*), 0, 0, AVG(o.d), 0.0, 0, 0 FROM o JOIN u ON o.k = u.id GROUP BY u.city",
            "SELECT u.city, COUNT(*), 0, SUM(o.x), 0.0, 0.0, 0, 0 FROM o LEFT JOIN u ON o.k = u.id GROUP BY u.city",
        ] {
            let sql = format!("{TABLES}\nINSERT INTO per_city {select};");
            let plan = crate::plan::passes::test_support::optimized_text(&sql);
            assert!(plan.contains("Join") && !plan.contains("Aggregate #1 (reused"), "{plan}");
        }
    }

    #[test]
    fn a_global_aggregate_or_one_without_count_is_not_reused() {
        // Found by the fuzzer (seed 11): a cross join grouped by dimension
        // columns reused `AVG(v)` of the fact table and looked for its
        // (absent) COUNT(*) partial: a panic. And a global COUNT(*) is one
        // row even of an empty fact table, where the join has no rows.
        for (first, transposed) in [
            ("SELECT AVG(v) FROM f", false),
            ("SELECT COUNT(*) FROM f", false),
            ("SELECT MAX(v) FROM f GROUP BY v", true),
        ] {
            let sql = format!(
                "CREATE TABLE f (v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
                 CREATE TABLE d (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
                 CREATE TABLE s1 (a BIGINT) WITH ('connector' = 'blackhole');
                 CREATE TABLE s2 (x INT, m INT) WITH ('connector' = 'blackhole');
                 INSERT INTO s1 {first};
                 INSERT INTO s2 SELECT x, MAX(x) FROM f CROSS JOIN d GROUP BY x;"
            );
            let plan = crate::plan::passes::test_support::optimized_text(&sql);
            assert_eq!(plan.contains("Aggregate #1 (reused"), transposed, "{plan}");
        }
    }
}
