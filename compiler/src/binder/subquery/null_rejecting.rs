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

/// Whether the condition `e` is never TRUE when column `c` is NULL.
fn rejects_null(e: &Expr, c: usize) -> bool {
    rejects_null_in(e, &|i| i == c)
}

/// Whether the condition `e` is never TRUE when the columns `nulls` says
/// are all NULL.
pub(super) fn rejects_null_in(e: &Expr, nulls: &dyn Fn(usize) -> bool) -> bool {
    match &e.kind {
        ExprKind::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => rejects_null_in(left, nulls) || rejects_null_in(right, nulls),
        ExprKind::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => rejects_null_in(left, nulls) && rejects_null_in(right, nulls),
        ExprKind::Unary {
            op: UnaryOp::IsTrue,
            operand,
        } => rejects_null_in(operand, nulls),
        _ => crate::ir::null_when_null(e, nulls),
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

/// Checks WHERE conjuncts whose scalar subqueries refer two levels out
/// (`nested::DeferredConjunct`), beside the middle query's correlation
/// conjuncts `corr`: each nullable enclosing column they read must make the
/// middle query's condition not TRUE when NULL. Either a conjunct of `corr`
/// rejects it, or a deferred conjunct does, where a scalar subquery's value
/// counts as NULL for a NULL column that its join keys reject (its value
/// over no rows is NULL: a COUNT is refused before).
pub(super) fn check_deferred(
    corr: &[Expr],
    conjuncts: &[super::nested::DeferredConjunct],
) -> Result<(), Diagnostic> {
    let mut outer: Vec<(usize, &Expr)> = Vec::new();
    for d in conjuncts {
        let exprs = std::iter::once(&d.conjunct).chain(
            d.pending
                .iter()
                .flat_map(|p| std::iter::once(&p.expr).chain(p.joins.iter().map(|(_, _, c)| c))),
        );
        for e in exprs {
            visit(e, &mut |x| {
                if let ExprKind::Column(i) = x.kind {
                    if (OUTER..VALUE).contains(&i)
                        && x.ty.nullable
                        && !outer.iter().any(|(o, _)| *o == i)
                    {
                        outer.push((i, &d.conjunct));
                    }
                }
            });
        }
    }
    for (column, first) in outer {
        if corr.iter().any(|c| rejects_null(c, column)) {
            continue;
        }
        let rejected = conjuncts.iter().any(|d| {
            let null_values: Vec<usize> = d
                .pending
                .iter()
                .filter(|p| {
                    matches!(p.expr.kind, ExprKind::Column(_))
                        && p.joins.iter().any(|(_, _, c)| rejects_null(c, column))
                })
                .map(|p| VALUE + p.value)
                .collect();
            let stand_in = super::replace(d.conjunct.clone(), &|c| {
                null_values.contains(&c).then(|| Expr {
                    kind: ExprKind::Column(column),
                    ty: crate::types::DataType::new(crate::types::TypeKind::Boolean, true),
                    span: d.conjunct.span,
                })
            });
            rejects_null(&stand_in, column)
        });
        if rejected {
            continue;
        }
        return Err(Diagnostic::unsupported(
            first.span,
            "a nested subquery that refers two levels out to a column that may be NULL, where the condition can be TRUE for a NULL",
        )
        .with_note(
            "Flink 2.3 decorrelates it through the distinct values of the outer columns, joined back with `=`: an outer row with a NULL there gets the value of an empty subquery, which is not SQL's answer",
        ));
    }
    Ok(())
}
