//! A scalar subquery in the enclosing query's SELECT list whose own SELECT
//! list reads the enclosing query: `(SELECT u.w + t.v FROM u WHERE u.k =
//! t.k)`, `(SELECT MAX(u.w + t.v) FROM u WHERE u.k = t.k)` (issue 12).
//!
//! Decorrelated as Flink 2.3 does (Calcite's value generator): the enclosing
//! columns the SELECT list reads join the correlation's in the subquery's
//! value generator (`generator.rs`), so each subquery row carries them and
//! the SELECT list (or an aggregate argument) reads them there; the value is
//! computed per distinct enclosing value and joined back on `=`.
//!
//! What Flink 2.3 computes right, and so what stmtc accepts
//! (`docs/flink-observed/subquery-probes/correlated-select/RESULTS.md`):
//! the reference in the SELECT list of a subquery without aggregates, or in
//! an aggregate argument, of a scalar subquery in the SELECT list. An
//! enclosing row with a NULL in such a column meets no row (the join back is
//! `=`), so the subquery's value is that of no rows: right only when the
//! value is NULL anyway, that is when the item or argument is NULL whenever
//! the column is (`u.w + t.v`; not `CASE WHEN u.w > t.v ...`, where Flink
//! returns NULL for SQL's 0). Refused: such a reference elsewhere in an
//! aggregating SELECT list (Flink: "Expression 't.v' is not being grouped"),
//! in HAVING, GROUP BY, ORDER BY, and in subqueries in WHERE (Flink's rows
//! are wrong for a scalar subquery there, and for IN in the SELECT list).

use crate::binder::expr::contains_call;
use crate::binder::scope::Scope;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{null_when_null, visit, Expr, ExprKind};
use crate::types::DataType;
use sqlparser::ast as sql;

/// The enclosing columns a subquery's SELECT list reads, while it binds.
#[derive(Clone, Debug)]
pub(crate) struct SelectOuter {
    /// The enclosing query's scope.
    pub scope: Scope,
    /// Enclosing column, the subquery input's column that holds it, type.
    pub cols: Vec<(usize, usize, DataType)>,
    /// The SELECT aggregates: only aggregate arguments may read them.
    pub aggregating: bool,
    /// Inside an aggregate call's arguments.
    pub args_depth: usize,
    /// While the SELECT list binds (not HAVING, ORDER BY).
    pub active: bool,
}

/// The enclosing query's columns (`OUTER`-free positions in `enclosing`)
/// that the SELECT list of a subquery over `scope` reads (nested subqueries
/// excluded: they bind on their own).
pub(crate) fn referenced(select: &sql::Select, scope: &Scope, enclosing: &Scope) -> Vec<(usize, DataType, Span)> {
    let found = std::cell::RefCell::new(Vec::new());
    let look = |e: &sql::Expr| {
        let parts: Vec<(&str, Span)> = match e {
            sql::Expr::Identifier(i) => vec![(i.value.as_str(), Span::default())],
            sql::Expr::CompoundIdentifier(is) => {
                is.iter().map(|i| (i.value.as_str(), Span::default())).collect()
            }
            _ => return false,
        };
        if scope.resolve(&parts).is_err() {
            if let Ok((o, ty)) = enclosing.resolve(&parts) {
                let mut f = found.borrow_mut();
                if !f.iter().any(|(x, _, _)| *x == o) {
                    f.push((o, ty, Span::default()));
                }
            }
        }
        false
    };
    for item in &select.projection {
        if let sql::SelectItem::UnnamedExpr(e) | sql::SelectItem::ExprWithAlias { expr: e, .. } =
            item
        {
            contains_call(e, &look);
        }
    }
    let mut found = found.into_inner();
    found.sort_unstable_by_key(|(o, _, _)| *o);
    found
}

/// Checks that `e` (a SELECT item without aggregates, or an aggregate
/// argument) is NULL whenever a nullable enclosing column it reads is.
pub(crate) fn check_strict(e: &Expr, outer: &SelectOuter, enclosing: &Scope) -> Result<(), Diagnostic> {
    for &(o, col, ty) in &outer.cols {
        if !ty.nullable {
            continue;
        }
        let mut reads = None;
        visit(e, &mut |x| {
            if matches!(x.kind, ExprKind::Column(c) if c == col) && reads.is_none() {
                reads = Some(x.span);
            }
        });
        let Some(at) = reads else { continue };
        if !null_when_null(e, &|i| i == col) {
            let c = &enclosing.columns[o];
            let name = match &c.qualifier {
                Some(q) => format!("{q}.{}", c.name),
                None => c.name.clone(),
            };
            return Err(Diagnostic::unsupported(
                at,
                &format!("a subquery's SELECT list that reads the enclosing query's nullable `{name}` and may be non-NULL where `{name}` is NULL"),
            )
            .with_note("Flink 2.3 decorrelates it with a join on `=`, so for a NULL it returns the value over no rows (observed: NULL where SQL's answer is 0); make the expression NULL when the column is, or test the column outside the subquery"));
        }
    }
    Ok(())
}

