//! Predicate placement on each INSERT's tree, before it becomes part of the
//! shared DAG: conditions go to the join they constrain.
//!
//! - Conditions written in WHERE over an inner or comma join become that
//!   join's condition (equi-join keys when `l = r` compares the two sides,
//!   residual predicates otherwise); conditions on one input go down to it.
//!   Each group of inner joins is then ordered by `join_order`.
//! - An outer join whose WHERE rejects the NULLs it pads becomes an inner
//!   join (LEFT/RIGHT), or a one-sided outer join (FULL), as in Calcite.
//! - Across an outer join only what SQL allows moves: WHERE conjuncts on the
//!   preserved side go down to it; ON conjuncts on the padded side go down to
//!   that side; ON conjuncts on the preserved side stay join residuals.
//! - A semi or anti join (IN, EXISTS, and their negations) whose condition
//!   reads only one input of the inner joins below it filters that input,
//!   when that input is estimated smaller than the joins' result: it drops
//!   rows before they are joined (and built).
//!
//! This runs per INSERT, so each consumer gets the join its own filters
//! make; interning then shares whatever comes out equal (the scans always).
//! Predicates move only towards joins: filters over plain scans, aggregates
//! and unions stay where they are, for the DAG rewrites to push into shared
//! nodes only when every consumer agrees.

use super::cost::RelEstimator;
use super::is_deterministic;
use super::join_order;
use super::rewrite::{and_all, columns, conjuncts, remap, substitute};
use crate::ir::{null_when_null, BinaryOp, Expr, ExprKind, JoinKind, Rel, RelKind, UnaryOp};

/// Places the predicates of one INSERT's tree.
pub(crate) fn normalize(rel: Rel, est: &RelEstimator<'_>) -> Rel {
    push(rel, Vec::new(), est)
}

/// Applies `preds` (conjuncts over `rel`'s output) to `rel`, as deep as
/// they usefully go, and normalizes everything below.
pub(super) fn push(rel: Rel, preds: Vec<Expr>, est: &RelEstimator<'_>) -> Rel {
    let Rel { kind, schema, span } = rel;
    match kind {
        RelKind::Filter { input, predicate } if joins_below(&input) => {
            let mut all = conjuncts(predicate);
            all.extend(preds);
            push(*input, all, est)
        }
        RelKind::Project { input, exprs } if joins_below(&input) && !preds.is_empty() => {
            let (down, stay): (Vec<Expr>, Vec<Expr>) = preds.into_iter().partition(|p| {
                is_deterministic(p) && columns(p).iter().all(|&c| is_deterministic(&exprs[c]))
            });
            let down = down.into_iter().map(|p| substitute(p, &exprs)).collect();
            let input = Box::new(push(*input, down, est));
            let project = Rel {
                kind: RelKind::Project { input, exprs },
                schema,
                span,
            };
            filter_over(project, stay)
        }
        RelKind::Join {
            kind,
            left,
            right,
            condition,
        } => push_join(kind, *left, *right, condition, preds, schema, span, est),
        kind => {
            let kind = map_inputs(kind, &mut |input| push(input, Vec::new(), est));
            filter_over(Rel { kind, schema, span }, preds)
        }
    }
}

/// The node with each input normalized by `f`.
fn map_inputs(kind: RelKind, f: &mut dyn FnMut(Rel) -> Rel) -> RelKind {
    let mut boxed = |b: Box<Rel>| Box::new(f(*b));
    match kind {
        RelKind::Scan { .. } | RelKind::Values { .. } => kind,
        RelKind::Filter { input, predicate } => RelKind::Filter {
            input: boxed(input),
            predicate,
        },
        RelKind::Project { input, exprs } => RelKind::Project {
            input: boxed(input),
            exprs,
        },
        RelKind::Aggregate {
            input,
            group,
            aggregates,
        } => RelKind::Aggregate {
            input: boxed(input),
            group,
            aggregates,
        },
        RelKind::Join {
            kind,
            left,
            right,
            condition,
        } => RelKind::Join {
            kind,
            left: boxed(left),
            right: boxed(right),
            condition,
        },
        RelKind::UnionAll { inputs } => RelKind::UnionAll {
            inputs: inputs.into_iter().map(&mut *f).collect(),
        },
        RelKind::Sort {
            input,
            keys,
            offset,
            limit,
        } => RelKind::Sort {
            input: boxed(input),
            keys,
            offset,
            limit,
        },
        RelKind::Window {
            input,
            window,
            time_column,
        } => RelKind::Window {
            input: boxed(input),
            window,
            time_column,
        },
        RelKind::Over {
            input,
            partition,
            order,
            calls,
        } => RelKind::Over {
            input: boxed(input),
            partition,
            order,
            calls,
        },
    }
}

/// Whether a join sits below `rel`, through filters and projections only.
fn joins_below(rel: &Rel) -> bool {
    match &rel.kind {
        RelKind::Join { .. } => true,
        RelKind::Filter { input, .. } | RelKind::Project { input, .. } => joins_below(input),
        _ => false,
    }
}

/// `rel` filtered by the conjuncts (itself when there are none).
pub(super) fn filter_over(rel: Rel, preds: Vec<Expr>) -> Rel {
    match and_all(preds) {
        None => rel,
        Some(predicate) => Rel {
            schema: rel.schema.clone(),
            span: rel.span,
            kind: RelKind::Filter {
                input: Box::new(rel),
                predicate,
            },
        },
    }
}

#[allow(clippy::too_many_arguments)]
fn push_join(
    kind: JoinKind,
    left: Rel,
    right: Rel,
    condition: Expr,
    preds: Vec<Expr>,
    schema: Vec<crate::ir::Field>,
    span: crate::diagnostics::Span,
    est: &RelEstimator<'_>,
) -> Rel {
    let la = left.schema.len();
    let rejects = |side: &dyn Fn(usize) -> bool| {
        preds
            .iter()
            .any(|p| is_deterministic(p) && never_true_when_null(p, side))
    };
    let (rejects_left, rejects_right) = (rejects(&|c| c < la), rejects(&|c| c >= la));
    let kind = match (kind, rejects_left, rejects_right) {
        (JoinKind::Left, _, true) | (JoinKind::Right, true, _) | (JoinKind::Full, true, true) => {
            JoinKind::Inner
        }
        (JoinKind::Full, true, false) => JoinKind::Left,
        (JoinKind::Full, false, true) => JoinKind::Right,
        (kind, _, _) => kind,
    };
    let only = |e: &Expr, side: &dyn Fn(usize) -> bool| {
        let cols = columns(e);
        is_deterministic(e) && !cols.is_empty() && cols.iter().all(|&c| side(c))
    };
    let on = conjuncts(condition);
    let (left, right, on, above) = match kind {
        JoinKind::Inner => {
            let join = Rel {
                kind: RelKind::Join {
                    kind,
                    left: Box::new(left),
                    right: Box::new(right),
                    condition: super::rewrite::true_literal(),
                },
                schema,
                span,
            };
            let mut all = on;
            all.extend(preds);
            return join_order::inner_joins(join, all, est);
        }
        JoinKind::Left | JoinKind::Right => {
            // The preserved side takes WHERE conjuncts, the padded side ON
            // conjuncts; everything else stays where it was written.
            let preserved_is_left = kind == JoinKind::Left;
            let preserved = |c: usize| (c < la) == preserved_is_left;
            let padded = |c: usize| (c < la) != preserved_is_left;
            let (to_preserved, above): (Vec<Expr>, Vec<Expr>) =
                preds.into_iter().partition(|p| only(p, &preserved));
            let (to_padded, on): (Vec<Expr>, Vec<Expr>) =
                on.into_iter().partition(|p| only(p, &padded));
            let (to_left, to_right) = if preserved_is_left {
                (to_preserved, to_padded)
            } else {
                (to_padded, to_preserved)
            };
            let to_right = to_right
                .into_iter()
                .map(|p| remap(p, &|c| c - la))
                .collect();
            (
                push(left, to_left, est),
                push(right, to_right, est),
                on,
                above,
            )
        }
        JoinKind::Semi | JoinKind::Anti => {
            // WHERE conjuncts are over the left columns (the only output);
            // ON conjuncts on the right side filter it; ON conjuncts on the
            // left side alone filter the left for a semi join (a left row
            // without them has no match) but not for an anti join (such a
            // row is kept).
            let (to_right, on): (Vec<Expr>, Vec<Expr>) =
                on.into_iter().partition(|p| only(p, &|c| c >= la));
            let (to_left, on): (Vec<Expr>, Vec<Expr>) = if kind == JoinKind::Semi {
                on.into_iter().partition(|p| only(p, &|c| c < la))
            } else {
                (Vec::new(), on)
            };
            let (mut left_preds, above): (Vec<Expr>, Vec<Expr>) =
                preds.into_iter().partition(|p| only(p, &|c| c < la));
            left_preds.extend(to_left);
            let to_right: Vec<Expr> = to_right
                .into_iter()
                .map(|p| remap(p, &|c| c - la))
                .collect();
            let reads: Vec<usize> = on.iter().flat_map(columns).filter(|&c| c < la).collect();
            if on.iter().all(is_deterministic)
                && sinks(&left, &reads)
                && semi_joins_within(&left, SINK_TRIES_BELOW) < SINK_TRIES_BELOW
            {
                // The semi/anti join filters one input of the inner joins
                // below: it goes there, and the joins are ordered with it,
                // when it is then probed by fewer rows than on top (as on
                // the one side of a foreign-key join; a join below that
                // keeps or drops rows is better probed first).
                let condition = and_all(on.clone()).unwrap_or_else(super::rewrite::true_literal);
                let placed = place(
                    kind,
                    left.clone(),
                    filter_over(right.clone(), to_right.clone()),
                    condition,
                    la,
                    span,
                );
                let sunk = push(placed, left_preds.clone(), est);
                let top = push(left, left_preds, est);
                if semi_probes(&sunk, est) < semi_probes(&top, est) + est.rows(&top) {
                    return filter_over(sunk, above);
                }
                (top, push(right, to_right, est), on, above)
            } else {
                (
                    push(left, left_preds, est),
                    push(right, to_right, est),
                    on,
                    above,
                )
            }
        }
        JoinKind::Full => (
            push(left, Vec::new(), est),
            push(right, Vec::new(), est),
            on,
            preds,
        ),
    };
    let join = Rel {
        kind: RelKind::Join {
            kind,
            left: Box::new(left),
            right: Box::new(right),
            condition: and_all(on).unwrap_or_else(super::rewrite::true_literal),
        },
        schema,
        span,
    };
    filter_over(join, above)
}

/// Trying both places of a semi or anti join normalizes `left` twice, and
/// each semi or anti join inside it does the same: views stacked on views,
/// each a join filtered by an IN, would cost 2^depth. Only a join with fewer
/// than this many semi and anti joins below it is tried both ways; above
/// that it stays on top, as before the rule.
const SINK_TRIES_BELOW: usize = 4;

/// The semi and anti joins in `rel`, counted up to `limit`.
fn semi_joins_within(rel: &Rel, limit: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![rel];
    while let Some(r) = stack.pop() {
        if count >= limit {
            break;
        }
        match &r.kind {
            RelKind::Scan { .. } | RelKind::Values { .. } => {}
            RelKind::Join {
                kind, left, right, ..
            } => {
                if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
                    count += 1;
                }
                stack.push(left);
                stack.push(right);
            }
            RelKind::UnionAll { inputs } => stack.extend(inputs.iter()),
            RelKind::Filter { input, .. }
            | RelKind::Project { input, .. }
            | RelKind::Aggregate { input, .. }
            | RelKind::Sort { input, .. }
            | RelKind::Window { input, .. }
            | RelKind::Over { input, .. } => stack.push(input),
        }
    }
    count
}

/// Whether a semi or anti join over `left` whose condition reads the left
/// columns `reads` can go below an inner join of `left` (through filters):
/// one input of that join provides all of them. Such a join keeps or drops
/// each row of that input by that row alone, as a filter on it would, so it
/// moves below inner joins and filters as a filter does (NULLs included:
/// the condition sees the same values there), as Calcite's
/// `SemiJoinJoinTransposeRule` moves it.
fn sinks(left: &Rel, reads: &[usize]) -> bool {
    match &left.kind {
        RelKind::Filter { input, .. } => sinks(input, reads),
        RelKind::Join {
            kind: JoinKind::Inner,
            left: a,
            ..
        } => {
            let aw = a.schema.len();
            !reads.is_empty() && (reads.iter().all(|&c| c < aw) || reads.iter().all(|&c| c >= aw))
        }
        _ => false,
    }
}

/// The estimated rows that probe the semi and anti joins in `rel`.
fn semi_probes(rel: &Rel, est: &RelEstimator<'_>) -> f64 {
    match &rel.kind {
        RelKind::Scan { .. } | RelKind::Values { .. } => 0.0,
        RelKind::Join {
            kind, left, right, ..
        } => {
            let own = if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
                est.rows(left)
            } else {
                0.0
            };
            own + semi_probes(left, est) + semi_probes(right, est)
        }
        RelKind::UnionAll { inputs } => inputs.iter().map(|i| semi_probes(i, est)).sum(),
        RelKind::Filter { input, .. }
        | RelKind::Project { input, .. }
        | RelKind::Aggregate { input, .. }
        | RelKind::Sort { input, .. }
        | RelKind::Window { input, .. }
        | RelKind::Over { input, .. } => semi_probes(input, est),
    }
}

/// The semi or anti join of `left` (`la` columns) with `right` on
/// `condition`, placed as deep below `left`'s inner joins and filters as
/// `sinks` allows.
fn place(
    kind: JoinKind,
    left: Rel,
    right: Rel,
    condition: Expr,
    la: usize,
    span: crate::diagnostics::Span,
) -> Rel {
    let reads: Vec<usize> = columns(&condition)
        .into_iter()
        .filter(|&c| c < la)
        .collect();
    let wrap = |left: Rel, right: Rel, condition: Expr| Rel {
        schema: left.schema.clone(),
        span,
        kind: RelKind::Join {
            kind,
            left: Box::new(left),
            right: Box::new(right),
            condition,
        },
    };
    if !sinks(&left, &reads) {
        return wrap(left, right, condition);
    }
    let Rel {
        kind: left_kind,
        schema,
        span: left_span,
    } = left;
    let kind = match left_kind {
        RelKind::Filter { input, predicate } => RelKind::Filter {
            input: Box::new(place(kind, *input, right, condition, la, span)),
            predicate,
        },
        RelKind::Join {
            kind: JoinKind::Inner,
            left: a,
            right: b,
            condition: on,
        } => {
            let aw = a.schema.len();
            if reads.iter().all(|&c| c < aw) {
                let condition = remap(condition, &|c| if c < la { c } else { c - la + aw });
                RelKind::Join {
                    kind: JoinKind::Inner,
                    left: Box::new(place(kind, *a, right, condition, aw, span)),
                    right: b,
                    condition: on,
                }
            } else {
                let bw = b.schema.len();
                let condition = remap(condition, &|c| if c < la { c - aw } else { c - la + bw });
                RelKind::Join {
                    kind: JoinKind::Inner,
                    left: a,
                    right: Box::new(place(kind, *b, right, condition, bw, span)),
                    condition: on,
                }
            }
        }
        other => {
            let left = Rel {
                kind: other,
                schema,
                span: left_span,
            };
            return wrap(left, right, condition);
        }
    };
    Rel {
        kind,
        schema,
        span: left_span,
    }
}

/// Whether `e` is never TRUE when every column for which `padded` holds is
/// NULL: such a WHERE conjunct removes the rows an outer join pads.
pub(super) fn never_true_when_null(e: &Expr, padded: &dyn Fn(usize) -> bool) -> bool {
    match &e.kind {
        ExprKind::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => never_true_when_null(left, padded) || never_true_when_null(right, padded),
        ExprKind::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => never_true_when_null(left, padded) && never_true_when_null(right, padded),
        ExprKind::Unary {
            op: UnaryOp::IsNotNull | UnaryOp::IsTrue | UnaryOp::IsFalse | UnaryOp::Not,
            operand,
        } => null_when_null(operand, padded),
        _ => null_when_null(e, padded),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::rewrite::column;
    use crate::types::{DataType, TypeKind};

    fn int(c: usize) -> Expr {
        column(c, DataType::new(TypeKind::Int, true))
    }

    fn binary(op: BinaryOp, l: Expr, r: Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
            },
            ty: DataType::new(TypeKind::Boolean, true),
            span: Default::default(),
        }
    }

    fn unary(op: UnaryOp, e: Expr) -> Expr {
        Expr {
            kind: ExprKind::Unary {
                op,
                operand: Box::new(e),
            },
            ty: DataType::new(TypeKind::Boolean, false),
            span: Default::default(),
        }
    }

    /// Whether the predicate removes rows whose columns >= 2 are NULL.
    fn check(e: &Expr, expect: bool) {
        assert_eq!(never_true_when_null(e, &|c| c >= 2), expect, "{e:?}");
    }

    #[test]
    fn null_rejection() {
        check(&binary(BinaryOp::Gt, int(2), int(0)), true);
        check(&binary(BinaryOp::Gt, int(1), int(0)), false);
        check(&unary(UnaryOp::IsNotNull, int(3)), true);
        check(&unary(UnaryOp::IsNull, int(3)), false);
        let plus = binary(BinaryOp::Plus, int(0), int(2));
        check(&binary(BinaryOp::Eq, plus, int(1)), true);
        let either = binary(
            BinaryOp::Or,
            binary(BinaryOp::Eq, int(2), int(0)),
            binary(BinaryOp::Eq, int(1), int(0)),
        );
        check(&either, false);
        let both = binary(
            BinaryOp::Or,
            binary(BinaryOp::Eq, int(2), int(0)),
            binary(BinaryOp::Lt, int(3), int(0)),
        );
        check(&both, true);
        check(&binary(BinaryOp::IsDistinctFrom, int(2), int(0)), false);
        check(
            &unary(UnaryOp::IsNotTrue, binary(BinaryOp::Eq, int(2), int(0))),
            false,
        );
    }

    const TABLES: &str = "CREATE TABLE t (a INT, b INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1000');
        CREATE TABLE u (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
        CREATE TABLE k1 (a INT, s STRING) WITH ('connector' = 'blackhole');";

    #[track_caller]
    fn lowers_to(sql: &str, expected: &str) {
        let actual = crate::plan::passes::test_support::lowered_text(&format!("{TABLES} {sql}"));
        assert_eq!(actual.trim(), expected.trim(), "\n{actual}\n");
    }

    #[test]
    fn where_conjuncts_go_to_the_join_and_its_sides() {
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t JOIN u ON t.a = u.id
             WHERE t.b > 0 AND u.name <> 'x' AND t.b < u.id;",
            "
Sink #6 k1 [blackhole] INSERT INTO
+- Calc #5 select=[a, name]
   +- Join #4 inner on=[a = id] where=[(b < id)]
      +- Calc #1 where=[(b > 0)] select=[a, b, s]
         +- Scan #0 t [datagen] read=[a, b, s]
      +- Calc #3 where=[(name <> CAST('x' AS STRING NOT NULL))] select=[id, name]
         +- Scan #2 u [datagen] read=[id, name]
",
        );
    }

    #[test]
    fn a_comma_join_becomes_a_keyed_join() {
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t, u WHERE u.id = t.a;",
            "
Sink #4 k1 [blackhole] INSERT INTO
+- Calc #3 select=[a, name]
   +- Join #2 inner on=[a = id]
      +- Scan #0 t [datagen] read=[a, b, s]
      +- Scan #1 u [datagen] read=[id, name]
",
        );
    }

    #[test]
    fn a_null_rejecting_where_makes_a_left_join_inner() {
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t LEFT JOIN u ON t.a = u.id WHERE u.name <> 'x';",
            "
Sink #5 k1 [blackhole] INSERT INTO
+- Calc #4 select=[a, name]
   +- Join #3 inner on=[a = id]
      +- Scan #0 t [datagen] read=[a, b, s]
      +- Calc #2 where=[(name <> CAST('x' AS STRING NOT NULL))] select=[id, name]
         +- Scan #1 u [datagen] read=[id, name]
",
        );
    }

    #[test]
    fn is_null_over_the_padded_side_stays_above_the_outer_join() {
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t LEFT JOIN u ON t.a = u.id AND t.b > 1
             WHERE u.id IS NULL AND t.s <> 'y';",
            "
Sink #6 k1 [blackhole] INSERT INTO
+- Calc #5 select=[a, name]
   +- Calc #4 where=[id IS NULL] select=[a, b, s, id, name]
      +- Join #3 left on=[a = id] where=[(b > 1)]
         +- Calc #1 where=[(s <> CAST('y' AS STRING NOT NULL))] select=[a, b, s]
            +- Scan #0 t [datagen] read=[a, b, s]
         +- Scan #2 u [datagen] read=[id, name]
",
        );
    }

    #[test]
    fn a_key_in_every_branch_of_an_or_becomes_a_join_key() {
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t, u
             WHERE (t.a = u.id AND t.b > 1) OR (u.id = t.a AND u.name = 'x') OR (t.a = u.id AND t.b < 0);",
            "
Sink #4 k1 [blackhole] INSERT INTO
+- Calc #3 select=[a, name]
   +- Join #2 inner on=[a = id] where=[(((b > 1) OR (name = CAST('x' AS STRING NOT NULL))) OR (b < 0))]
      +- Scan #0 t [datagen] read=[a, b, s]
      +- Scan #1 u [datagen] read=[id, name]
",
        );
    }

    #[test]
    fn a_semi_join_on_one_side_of_an_inner_join_filters_that_side() {
        // The IN reads only u's column: the semi join filters u (10 rows)
        // before the join, not the 1,000 joined rows after it.
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t, u
             WHERE t.a = u.id AND u.id IN (SELECT b FROM t WHERE b > 5);",
            "
Sink #7 k1 [blackhole] INSERT INTO
+- Calc #6 select=[a, name]
   +- Join #5 inner on=[a = id]
      +- Scan #0 t [datagen] read=[a, b, s] shared=[k1]
      +- Join #4 semi on=[id = b]
         +- Scan #1 u [datagen] read=[id, name]
         +- Calc #3 select=[b]
            +- Calc #2 where=[(b > 5)] select=[a, b, s]
               +- Scan #0 t (reused, see above)
",
        );
    }

    #[test]
    fn an_anti_join_on_one_side_of_an_inner_join_filters_that_side() {
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t, u
             WHERE t.a = u.id AND NOT EXISTS (SELECT * FROM t t2 WHERE t2.b = u.id);",
            "
Sink #6 k1 [blackhole] INSERT INTO
+- Calc #5 select=[a, name]
   +- Join #4 inner on=[a = id]
      +- Scan #0 t [datagen] read=[a, b, s] shared=[k1]
      +- Join #3 anti on=[id = $cor1]
         +- Scan #1 u [datagen] read=[id, name]
         +- Calc #2 select=[a, b, s, b AS $cor1]
            +- Scan #0 t (reused, see above)
",
        );
    }

    #[test]
    fn views_stacked_forty_deep_each_a_join_filtered_by_an_in_plan_in_linear_work() {
        // Each level tried both places for its IN: 2^40 normalizations
        // (depth 14 took 2.3 s in a debug build before the bound).
        let mut sql = String::from(
            "CREATE TEMPORARY VIEW v0 AS SELECT t.a, u.name AS s FROM t, u
             WHERE t.a = u.id AND u.id IN (SELECT b FROM t WHERE b > 0);",
        );
        for i in 1..40 {
            sql.push_str(&format!(
                "CREATE TEMPORARY VIEW v{i} AS SELECT v.a, u.name AS s FROM v{} v, u
                 WHERE v.a = u.id AND u.id IN (SELECT b FROM t WHERE b > {i});",
                i - 1
            ));
        }
        sql.push_str("INSERT INTO k1 SELECT * FROM v39;");
        let plan = crate::plan::passes::test_support::lowered_text(&format!("{TABLES} {sql}"));
        assert_eq!(plan.matches("semi on=").count(), 40, "{plan}");
    }

    #[test]
    fn a_semi_join_stays_above_a_join_that_does_not_shrink_its_side() {
        // On t's column: t is the larger side, the join's rows are no fewer.
        lowers_to(
            "INSERT INTO k1 SELECT t.a, u.name FROM t, u
             WHERE t.a = u.id AND t.b IN (SELECT id FROM u WHERE name = 'x');",
            "
Sink #7 k1 [blackhole] INSERT INTO
+- Calc #6 select=[a, name]
   +- Join #5 semi on=[b = id]
      +- Join #2 inner on=[a = id]
         +- Scan #0 t [datagen] read=[a, b, s]
         +- Scan #1 u [datagen] read=[id, name] shared=[k1]
      +- Calc #4 select=[id]
         +- Calc #3 where=[(name = CAST('x' AS STRING NOT NULL))] select=[id, name]
            +- Scan #1 u (reused, see above)
",
        );
    }
}
