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

use super::null_rejecting::rejects_null_in;
use crate::binder::expr::{contains_call, Grouping};
use crate::binder::scope::Scope;
use crate::diagnostics::{Diagnostic, Span};
use crate::functions::AggregateFunction;
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
    /// While the SELECT list binds (not HAVING, ORDER BY), or the HAVING
    /// of an EXISTS subquery (`having`).
    pub active: bool,
    /// The columns are read by the HAVING of a semi join's subquery
    /// (EXISTS, NOT EXISTS, IN, `op ANY`), not by its SELECT list.
    pub having: bool,
}

/// The enclosing query's columns (`OUTER`-free positions in `enclosing`)
/// that the SELECT list of a subquery over `scope` reads (nested subqueries
/// excluded: they bind on their own).
pub(crate) fn referenced(
    select: &sql::Select,
    scope: &Scope,
    enclosing: &Scope,
) -> Vec<(usize, DataType, Span)> {
    let items: Vec<sql::Expr> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            sql::SelectItem::UnnamedExpr(e) | sql::SelectItem::ExprWithAlias { expr: e, .. } => {
                Some(e.clone())
            }
            _ => None,
        })
        .collect();
    referenced_in(&items, scope, enclosing)
}

/// The enclosing query's columns that `exprs` read (as [`referenced`]).
pub(crate) fn referenced_in(
    exprs: &[sql::Expr],
    scope: &Scope,
    enclosing: &Scope,
) -> Vec<(usize, DataType, Span)> {
    let found = std::cell::RefCell::new(Vec::new());
    let look = |e: &sql::Expr| {
        let parts: Vec<(&str, Span)> = match e {
            sql::Expr::Identifier(i) => vec![(i.value.as_str(), Span::default())],
            sql::Expr::CompoundIdentifier(is) => is
                .iter()
                .map(|i| (i.value.as_str(), Span::default()))
                .collect(),
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
    for e in exprs {
        contains_call(e, &look);
    }
    let mut found = found.into_inner();
    found.sort_unstable_by_key(|(o, _, _)| *o);
    found
}

/// Checks that `e` (a SELECT item without aggregates, or an aggregate
/// argument) is NULL whenever a nullable enclosing column it reads is.
pub(crate) fn check_strict(
    e: &Expr,
    outer: &SelectOuter,
    enclosing: &Scope,
) -> Result<(), Diagnostic> {
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

/// Checks the bound HAVING (over the group keys, then the aggregates) of
/// a semi join's subquery whose aggregate arguments read the
/// enclosing query: it must not be TRUE for a group where a nullable such
/// column is NULL, since the value generator's join back on `=` gives that
/// enclosing row no group at all (`EXISTS`, `IN` FALSE). With the arguments NULL
/// when the column is ([`check_strict`]), every aggregate of them but
/// `COUNT` is NULL then.
pub(crate) fn check_having(
    having: &Expr,
    grouping: &Grouping,
    outer: &SelectOuter,
    enclosing: &Scope,
) -> Result<(), Diagnostic> {
    let width = grouping.keys.len();
    for &(o, col, ty) in &outer.cols {
        if !ty.nullable {
            continue;
        }
        let reads = |e: &Expr| {
            let mut found = false;
            visit(e, &mut |x| {
                found |= matches!(x.kind, ExprKind::Column(c) if c == col);
            });
            found
        };
        let mut nulls = Vec::new();
        let mut counted = None;
        for (i, a) in grouping.aggregates.iter().enumerate() {
            let read = a.args.iter().any(|&p| match p.checked_sub(width) {
                Some(arg) => reads(&grouping.args[arg]),
                None => reads(&grouping.keys[p]),
            });
            if !read {
                continue;
            }
            if a.function == AggregateFunction::Count {
                counted = Some(i);
            } else {
                nulls.push(width + i);
            }
        }
        if counted.is_none() && rejects_null_in(having, &|c| nulls.contains(&c)) {
            continue;
        }
        let c = &enclosing.columns[o];
        let name = match &c.qualifier {
            Some(q) => format!("{q}.{}", c.name),
            None => c.name.clone(),
        };
        return Err(Diagnostic::unsupported(
            having.span,
            &format!("a HAVING that reads the enclosing query's nullable `{name}` and may be TRUE where `{name}` is NULL"),
        )
        .with_note("Flink 2.3 decorrelates it with a join on `=`, so for a NULL the subquery has no rows; write the HAVING so that it is not TRUE when the aggregate is NULL (`MAX(u.w - t.v) > 0`, not COUNT or IS NULL), or test the column outside the subquery"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::binder::test_support::assert_first_error;

    const TABLES: &str = "
        SET 'execution.runtime-mode' = 'batch';
        CREATE TABLE t (k INT, v INT, n INT NOT NULL)
          WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
        CREATE TABLE u (k INT, w INT, v INT)
          WITH ('connector' = 'filesystem', 'path' = 'u.csv', 'format' = 'csv');
        CREATE TABLE o (a INT) WITH ('connector' = 'blackhole');
    ";

    /// The first error binding `insert` after [`TABLES`], or `ok`.
    #[track_caller]
    fn check(insert: &str, expect: &str) {
        assert_first_error(&format!("{TABLES}\n{insert}"), insert, expect);
    }

    #[test]
    fn accepted_forms() {
        check(
            "INSERT INTO o SELECT (SELECT MAX(u.w + t.v) FROM u WHERE u.k = t.k) FROM t;",
            "ok",
        );
        check(
            "INSERT INTO o SELECT (SELECT u.w + t.v FROM u WHERE u.k = t.k) FROM t;",
            "ok",
        );
        check(
            "INSERT INTO o SELECT (SELECT SUM(u.w * t.v) FROM u) FROM t;",
            "ok",
        );
        check(
            "INSERT INTO o SELECT (SELECT MIN(u.w * t.v - t.v) FROM u WHERE u.k < t.k) FROM t;",
            "ok",
        );
        // Not NULL: any expression of it.
        check(
            "INSERT INTO o SELECT (SELECT SUM(CASE WHEN u.w > t.n THEN 1 ELSE 0 END) FROM u WHERE u.k = t.k) FROM t;",
            "ok",
        );
        // `v` unqualified is u's own column: no enclosing reference.
        check(
            "INSERT INTO o SELECT (SELECT MAX(v) FROM u WHERE u.k = t.k) FROM t;",
            "ok",
        );
    }

    #[test]
    fn refused_forms() {
        check(
            "INSERT INTO o SELECT (SELECT MAX(u.w) + t.v FROM u WHERE u.k = t.k) FROM t;",
            "Expression 't.v' is not being grouped",
        );
        check(
            "INSERT INTO o SELECT (SELECT SUM(CASE WHEN u.w > t.v THEN 1 ELSE 0 END) FROM u WHERE u.k = t.k) FROM t;",
            "a subquery's SELECT list that reads the enclosing query's nullable `t.v`",
        );
        check(
            "INSERT INTO o SELECT (SELECT MIN(u.w * t.k - t.v) FROM u) FROM t;",
            "a subquery whose SELECT list reads two or more",
        );
        check(
            "INSERT INTO o SELECT (SELECT MAX(u.w + t.k) FROM u WHERE u.k = t.k) FROM t;",
            "a subquery whose SELECT list reads an enclosing column that its WHERE correlates on",
        );
        check(
            "INSERT INTO o SELECT k FROM t WHERE v < (SELECT MAX(u.w + t.v) FROM u WHERE u.k = t.k);",
            "a reference to the enclosing query's `t.v` in a subquery's aggregate arguments",
        );
        check(
            "INSERT INTO o SELECT k FROM t WHERE v NOT IN (SELECT u.w + t.k FROM u);",
            "a reference to the enclosing query's `t.k` in a subquery's SELECT list",
        );
        check(
            "INSERT INTO o SELECT (SELECT MAX(u.w) FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w) > t.v) FROM t;",
            "a reference to the enclosing query's `t.v` in a subquery's HAVING",
        );
        // Not an enclosing table at all: the old message.
        check(
            "INSERT INTO o SELECT (SELECT MAX(x.w) FROM u WHERE u.k = t.k) FROM t;",
            "table `x` not found in this query",
        );
    }
}
