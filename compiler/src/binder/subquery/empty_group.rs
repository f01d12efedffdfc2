//! HAVING without GROUP BY in a correlated subquery (issue 12):
//! `(SELECT MAX(u.w) FROM u WHERE u.k = t.k HAVING MAX(u.w) > 10)`.
//!
//! SQL aggregates the rows of each enclosing row into one group, empty or
//! not, and HAVING keeps or drops it. Decorrelated as Flink 2.3 does, the
//! subquery is grouped by its correlation columns, so an enclosing row
//! without rows has no group at all: the same answer exactly when HAVING is
//! not TRUE over no rows (COUNT 0, every other aggregate NULL). Flink's rows
//! are wrong otherwise (probe C82 `HAVING COUNT(*) = 0`, C83 `HAVING
//! MAX(u.w) IS NULL`), and stmtc refuses those; C74, C75, C84, C88–C90 are
//! accepted.
//!
//! [`true_over_no_rows`] evaluates the bound HAVING over the empty group,
//! in SQL's three-valued logic, as far as integers, booleans and NULL go;
//! anything it cannot decide counts as possibly TRUE.

use crate::functions::AggregateFunction;
use crate::ir::{AggregateCall, BinaryOp, Expr, ExprKind, Literal, UnaryOp};
use crate::types::TypeKind;

/// A value over the empty group: `None` is "not known here".
#[derive(Clone, Copy, PartialEq, Debug)]
enum V {
    Null,
    Bool(bool),
    Int(i128),
    /// Some non-NULL value that is not an integer or a boolean.
    Other,
}

/// Whether `having` (over `keys` group keys, then `aggregates`) may be
/// TRUE for a group of no rows.
pub(crate) fn true_over_no_rows(having: &Expr, keys: usize, aggregates: &[AggregateCall]) -> bool {
    !matches!(
        eval(having, keys, aggregates),
        Some(V::Null | V::Bool(false))
    )
}

fn eval(e: &Expr, keys: usize, aggs: &[AggregateCall]) -> Option<V> {
    let go = |x: &Expr| eval(x, keys, aggs);
    Some(match &e.kind {
        ExprKind::Column(c) => {
            let a = aggs.get(c.checked_sub(keys)?)?;
            if a.function == AggregateFunction::Count {
                V::Int(0)
            } else {
                V::Null
            }
        }
        ExprKind::Literal(Literal::Null) => V::Null,
        ExprKind::Literal(Literal::Boolean(b)) => V::Bool(*b),
        ExprKind::Literal(Literal::Integer(i)) => V::Int(i128::from(*i)),
        ExprKind::Literal(_) => V::Other,
        // A numeric cast keeps an integer's value (the comparisons below
        // are exact); a CAST of a non-NULL value is not NULL (TRY_CAST may
        // be).
        ExprKind::Cast {
            operand,
            try_cast: false,
        } => match go(operand)? {
            V::Null => V::Null,
            V::Int(i) if e.ty.is_numeric() => V::Int(i),
            V::Bool(b) if e.ty.kind == TypeKind::Boolean => V::Bool(b),
            _ => V::Other,
        },
        ExprKind::Unary { op, operand } => {
            let v = go(operand)?;
            match (op, v) {
                (UnaryOp::IsNull, v) => V::Bool(v == V::Null),
                (UnaryOp::IsNotNull, v) => V::Bool(v != V::Null),
                (UnaryOp::Not | UnaryOp::Negate, V::Null) => V::Null,
                (UnaryOp::Not, V::Bool(b)) => V::Bool(!b),
                (UnaryOp::Negate, V::Int(i)) => V::Int(-i),
                (UnaryOp::IsTrue, v) => V::Bool(v == V::Bool(true)),
                (UnaryOp::IsNotTrue, v) => V::Bool(v != V::Bool(true)),
                (UnaryOp::IsFalse, v) => V::Bool(v == V::Bool(false)),
                (UnaryOp::IsNotFalse, v) => V::Bool(v != V::Bool(false)),
                _ => return None,
            }
        }
        ExprKind::Binary { op, left, right } => {
            let (l, r) = (go(left), go(right));
            match op {
                BinaryOp::And => match (l, r) {
                    (Some(V::Bool(false)), _) | (_, Some(V::Bool(false))) => V::Bool(false),
                    (Some(V::Bool(true)), Some(x)) | (Some(x), Some(V::Bool(true))) => x,
                    (Some(V::Null), Some(V::Null)) => V::Null,
                    _ => return None,
                },
                BinaryOp::Or => match (l, r) {
                    (Some(V::Bool(true)), _) | (_, Some(V::Bool(true))) => V::Bool(true),
                    (Some(V::Bool(false)), Some(x)) | (Some(x), Some(V::Bool(false))) => x,
                    (Some(V::Null), Some(V::Null)) => V::Null,
                    _ => return None,
                },
                _ => {
                    let (l, r) = (l?, r?);
                    if l == V::Null || r == V::Null {
                        return match op {
                            BinaryOp::IsDistinctFrom => Some(V::Bool(l != r)),
                            BinaryOp::IsNotDistinctFrom => Some(V::Bool(l == r)),
                            _ => Some(V::Null),
                        };
                    }
                    let (V::Int(a), V::Int(b)) = (l, r) else {
                        return None;
                    };
                    match op {
                        BinaryOp::Eq | BinaryOp::IsNotDistinctFrom => V::Bool(a == b),
                        BinaryOp::NotEq | BinaryOp::IsDistinctFrom => V::Bool(a != b),
                        BinaryOp::Lt => V::Bool(a < b),
                        BinaryOp::LtEq => V::Bool(a <= b),
                        BinaryOp::Gt => V::Bool(a > b),
                        BinaryOp::GtEq => V::Bool(a >= b),
                        BinaryOp::Plus => V::Int(a + b),
                        BinaryOp::Minus => V::Int(a - b),
                        BinaryOp::Multiply => V::Int(a.checked_mul(b)?),
                        _ => return None,
                    }
                }
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::binder::test_support::assert_first_error;

    const TABLES: &str = "
        SET 'execution.runtime-mode' = 'batch';
        CREATE TABLE t (k INT, v INT)
          WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
        CREATE TABLE u (k INT, w INT, d DOUBLE)
          WITH ('connector' = 'filesystem', 'path' = 'u.csv', 'format' = 'csv');
        CREATE TABLE o (a BIGINT) WITH ('connector' = 'blackhole');
    ";

    /// The first error binding a scalar subquery with `having` after
    /// [`TABLES`], or `ok`.
    #[track_caller]
    fn check(having: &str, expect: &str) {
        let sql = format!(
            "{TABLES}\nINSERT INTO o SELECT (SELECT COUNT(*) FROM u WHERE u.k = t.k HAVING {having}) FROM t;"
        );
        assert_first_error(&sql, having, expect);
    }

    #[test]
    fn not_true_over_no_rows_is_accepted() {
        for having in [
            "COUNT(*) > 1",
            "MAX(u.w) > 10",
            "SUM(u.d) < 1.5",
            "COUNT(u.w) >= 1 AND MIN(u.w) < 3",
            "NOT (COUNT(*) = 0)",
            "MAX(u.w) IS NOT NULL",
            "COUNT(*) + 1 > 1 OR MAX(u.w) > 2",
            "(MAX(u.w) > 2) IS TRUE",
        ] {
            check(having, "ok");
        }
    }

    #[test]
    fn maybe_true_over_no_rows_is_refused() {
        for having in [
            "COUNT(*) = 0",
            "MAX(u.w) IS NULL",
            "COUNT(*) < 1 OR MAX(u.w) > 2",
            "NOT ((MAX(u.w) > 2) IS TRUE)",
            "COALESCE(MAX(u.w), 0) = 0",
            "SUM(u.d) IS NOT DISTINCT FROM NULL",
        ] {
            check(
                having,
                "HAVING without GROUP BY in a correlated subquery, TRUE over no rows",
            );
        }
    }
}
