//! Correlated subqueries in the SELECT list or HAVING of a grouped query
//! (`SELECT k, SUM(v), (SELECT MAX(x) FROM t2 WHERE t2.k = t1.k) FROM t1
//! GROUP BY k`). Their joins are with the aggregate's rows, whose columns are
//! the GROUP BY keys (in GROUP BY order) then the aggregates, while their
//! correlation refers to the FROM's columns (`OUTER + i`).
//!
//! Flink 2.3 (Calcite's decorrelation of such a subquery) reads the
//! aggregate's column `i` where the subquery names the FROM's column `i`:
//! that is the column itself only when it is the `i`-th GROUP BY key
//! (`GROUP BY k` with `k` the first column of FROM; `GROUP BY p, k` of
//! `t(p, k, v)`). Elsewhere it correlates with another key or an aggregate
//! and returns wrong rows (`GROUP BY k, p` correlated on `k` reads `p`), or
//! fails with an internal error. stmtc accepts exactly the cases where
//! Flink's column is the named one: there the aggregate's column `i` is the
//! FROM's column `i`, so the subquery's join needs no renumbering. A
//! subquery that reads two or more of the grouped query's columns Flink
//! cannot decorrelate (`unexpected correlate variable`): refused too.

use super::{BResult, BoundSub, OUTER};
use crate::binder::expr::ExprCx;
use crate::binder::Binder;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{visit, Expr, ExprKind};

impl Binder<'_> {
    /// Whether a correlated subquery `what` may be bound in the current
    /// grouped clause (see the module doc). With no grouping in `cx` (the
    /// first, plain attempt at a grouped expression, which binds again over
    /// the groups because the subquery reads the clause's input) there is
    /// nothing to check yet.
    pub(super) fn check_grouped_correlation(
        &self,
        sub: &BoundSub,
        cx: &ExprCx<'_>,
        what: &str,
        span: Span,
    ) -> BResult<()> {
        let Some(grouping) = cx.grouping.as_deref() else {
            return Ok(());
        };
        let clause = cx.clause;
        if grouping.grouping_sets {
            return Err(Diagnostic::unsupported(
                span,
                &format!(
                    "a correlated {what} in {clause} of a query with GROUPING SETS, ROLLUP or CUBE"
                ),
            ));
        }
        let width = cx.scope.columns.len();
        // References beyond this scope are refused later, as two levels out.
        let mut read: Vec<usize> = Vec::new();
        for c in &sub.corr {
            for i in outer_columns(c, width) {
                if !read.contains(&i) {
                    read.push(i);
                }
            }
        }
        if read.len() > 1 {
            return Err(Diagnostic::unsupported(
                span,
                &format!(
                    "a correlated {what} in {clause} of a grouped query that refers to more than one of its columns"
                ),
            )
            .with_note(
                "Flink 2.3 fails there: `unexpected correlate variable $cor0 in the plan`",
            ));
        }
        for c in &sub.corr {
            for i in outer_columns(c, width) {
                let column = &cx.scope.columns[i];
                let name = match &column.qualifier {
                    Some(q) => format!("{q}.{}", column.name),
                    None => column.name.clone(),
                };
                let key = grouping.keys.get(i).map(|k| &k.kind);
                if key == Some(&ExprKind::Column(i)) {
                    continue;
                }
                let grouped = grouping.keys.iter().any(|k| k.kind == ExprKind::Column(i));
                let span = c.span.to(span);
                return Err(if grouped {
                    Diagnostic::unsupported(
                        span,
                        &format!(
                            "a correlated {what} in {clause} of a grouped query that refers to `{name}` (column {} of FROM, but not GROUP BY key {})",
                            i + 1,
                            i + 1
                        ),
                    )
                    .with_note(format!(
                        "Flink 2.3 correlates it with the aggregate's column {} instead of `{name}` and returns wrong rows (or fails with an internal error)",
                        i + 1
                    ))
                    .with_help(format!(
                        "list the GROUP BY keys in the FROM's column order, so that `{name}` is key {}",
                        i + 1
                    ))
                } else {
                    Diagnostic::unsupported(
                        span,
                        &format!(
                            "a correlated {what} in {clause} of a grouped query that refers to a column outside GROUP BY (`{name}`)"
                        ),
                    )
                    .with_note(
                        "Flink 2.3 fails there with an internal error (IndexOutOfBoundsException) or reads another column of the aggregate",
                    )
                });
            }
        }
        Ok(())
    }
}

/// The enclosing-scope columns (below `width`) a correlation conjunct reads,
/// ascending.
fn outer_columns(c: &Expr, width: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    visit(c, &mut |x| {
        if let ExprKind::Column(i) = x.kind {
            if i >= OUTER && i - OUTER < width && !out.contains(&(i - OUTER)) {
                out.push(i - OUTER);
            }
        }
    });
    out.sort_unstable();
    out
}
