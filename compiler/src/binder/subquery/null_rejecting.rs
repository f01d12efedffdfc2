//! Which correlation conditions Flink 2.3 decorrelates right.
//!
//! A subquery correlated by more than `inner = outer` keys is decorrelated
//! by Flink (Calcite's value generator) through the distinct values of the
//! enclosing columns the condition reads, joined back to the enclosing rows
//! with `=`: an enclosing row with a NULL in one of those columns meets no
//! row, so its subquery is empty. stmtc's value generators (`generator.rs`,
//! `mark.rs`) do the same. That is SQL's answer exactly when the condition
//! cannot be TRUE for such a row: for each nullable enclosing column it
//! reads, some conjunct must be "null-rejecting" in it (`b.k = a.k`,
//! `b.x > a.v * 10 OR b.k < a.v`). Otherwise (`b.k = a.k OR b.k IS NULL`,
//! `b.k IS NOT DISTINCT FROM a.k`, `CASE WHEN a.k IS NULL ...`) Flink's rows
//! differ from SQL's (observed, `docs/flink-observed/subquery-probes/t6.sql`),
//! and stmtc refuses the subquery rather than differ.

use super::{any_column, OUTER, VALUE};
use crate::diagnostics::Diagnostic;
use crate::ir::{visit, BinaryOp, Expr, ExprKind, UnaryOp};

/// Whether `e` is NULL whenever column `c` is NULL.
fn strict_in(e: &Expr, c: usize) -> bool {
    crate::ir::null_when_null(e, &|i| i == c)
}

/// Whether the condition `e` is never TRUE when column `c` is NULL.
fn rejects_null(e: &Expr, c: usize) -> bool {
    match &e.kind {
        ExprKind::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => rejects_null(left, c) || rejects_null(right, c),
        ExprKind::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => rejects_null(left, c) && rejects_null(right, c),
        ExprKind::Unary {
            op: UnaryOp::IsTrue,
            operand,
        } => rejects_null(operand, c),
        _ => strict_in(e, c),
    }
}

/// Checks that correlation conjuncts (over `OUTER + i` and the subquery's
/// columns) are decorrelated right by Flink: each nullable enclosing column
/// they read has a null-rejecting conjunct.
pub(super) fn check(corr: &[Expr]) -> Result<(), Diagnostic> {
    let mut outer: Vec<(usize, &Expr)> = Vec::new();
    for conjunct in corr {
        visit(conjunct, &mut |x| {
            if let ExprKind::Column(i) = x.kind {
                if (OUTER..VALUE).contains(&i)
                    && x.ty.nullable
                    && !outer.iter().any(|(o, _)| *o == i)
                {
                    outer.push((i, conjunct));
                }
            }
        });
    }
    for (column, first) in outer {
        if corr.iter().any(|c| rejects_null(c, column)) {
            continue;
        }
        let at = corr
            .iter()
            .find(|c| any_column(c, &|i| i == column) && !rejects_null(c, column))
            .unwrap_or(first);
        return Err(Diagnostic::unsupported(
            at.span,
            "a correlation condition that can be TRUE when an enclosing column it reads is NULL",
        )
        .with_note(
            "Flink 2.3 decorrelates it through the distinct values of the enclosing columns, joined back with `=`: an enclosing row with a NULL there gets the value of an empty subquery, which is not SQL's answer",
        )
        .with_help(
            "such a condition is accepted where each nullable enclosing column it reads also has a conjunct that is not TRUE for NULL (`b.k = a.k AND ...`), or the column is NOT NULL",
        ));
    }
    Ok(())
}
