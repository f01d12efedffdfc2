//! A subquery tested by a semi or anti join (a WHERE conjunct `EXISTS`,
//! `NOT EXISTS`, `x IN`, `x op ANY|SOME`) whose SELECT list reads the
//! enclosing query: `v IN (SELECT u.w + t.k FROM u WHERE u.k = t.k)`,
//! `EXISTS (SELECT t.v FROM u WHERE u.k = t.k)` (issue 12).
//!
//! The SELECT list of such a subquery (a plain SELECT without aggregates,
//! GROUP BY or HAVING) is a correlated expression like its WHERE's
//! conjuncts: for `IN` and `op ANY` it moves into the join condition,
//! `x op item` over the enclosing row and the subquery's row (the subquery
//! outputs the columns the item reads), so each pair compares exactly as
//! SQL says, NULLs included; for `EXISTS` / `NOT EXISTS` the SELECT list is
//! not read at all. No value generator is needed, so nothing is lost for a
//! NULL enclosing value.
//!
//! What Flink 2.3 computes right, and so what stmtc accepts
//! (`docs/flink-observed/subquery-probes/correlated-select/RESULTS.md`,
//! C9, C10, C16 and C40–C48): those forms. The aggregate arguments in
//! such a subquery's HAVING may read the enclosing query too (C8, C50–C52,
//! C56, C57): they take the value generator of `select_outer.rs`, and
//! `select_outer::check_having` refuses a HAVING that could be TRUE for a
//! NULL enclosing value, where the generator's join on `=` (Flink's too)
//! loses the row (C53, C54).
//!
//! Inside an expression (a mark, `mark.rs`): `EXISTS` and `NOT EXISTS`
//! anywhere, their SELECT list unread (C58–C61); `IN` and `op ANY|SOME`
//! only where their value is tested for TRUE alone, a WHERE or CASE WHEN
//! condition through AND, OR and IS TRUE ([`positive_queries`]: C46, C62,
//! C63, C65, C66, C68, C69). Their value is computed over the distinct
//! enclosing values joined with the subquery (`mark::over_input`), as
//! Flink does, which gives FALSE where SQL says NULL for a NULL enclosing
//! value (C11): harmless where only TRUE counts, and the item must be NULL
//! then ([`check_strict_item`], C67).
//!
//! Still refused: `NOT IN` and `op ALL` (anti joins whose compared value
//! reads the enclosing query; Flink 2.3's rows are wrong, C12, C49, C64),
//! `IN` as a value (C11: wrong in Flink), aggregating subqueries but for
//! HAVING's arguments, and a SELECT list holding a subquery of its own.

use crate::binder::expr::contains_call;
use crate::diagnostics::Diagnostic;
use crate::ir::{null_when_null, visit, Expr, ExprKind, Literal};
use crate::types::DataType;
use sqlparser::ast as sql;

use super::{OUTER, VALUE};

/// What the SELECT of a semi join's (or mark's) subquery may read of the
/// enclosing query, beyond its WHERE.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Reads {
    /// HAVING's aggregate arguments may read it (`select_outer.rs`).
    pub having: bool,
    /// The subquery is EXISTS's: its SELECT list is not read at all, so
    /// window calls there are dropped.
    pub exists: bool,
}

/// Whether an item of the SELECT list holds a subquery.
pub(crate) fn holds_subquery(select: &sql::Select) -> bool {
    select.projection.iter().any(|item| match item {
        sql::SelectItem::UnnamedExpr(e) | sql::SelectItem::ExprWithAlias { expr: e, .. } => {
            holds_subquery_in(e)
        }
        _ => false,
    })
}

/// Whether `e` holds a subquery.
pub(crate) fn holds_subquery_in(e: &sql::Expr) -> bool {
    let is_subquery = |e: &sql::Expr| {
        matches!(
            e,
            sql::Expr::Subquery(_)
                | sql::Expr::Exists { .. }
                | sql::Expr::In {
                    target: sql::InTarget::Subquery(_),
                    ..
                }
        ) || matches!(
            e,
            sql::Expr::AnyOp { right, .. } | sql::Expr::AllOp { right, .. }
                if matches!(**right, sql::Expr::Subquery(_))
        )
    };
    contains_call(e, &is_subquery)
}

/// The subqueries of `IN` and `op ANY|SOME` in `e` whose value is only
/// tested for TRUE: `e` is a WHERE condition or a CASE WHEN condition, and
/// the path to them is through AND, OR, parentheses and IS TRUE only. There
/// a NULL and FALSE of the predicate mean the same, so Flink 2.3's value
/// generator (FALSE where SQL says NULL, C11) gives SQL's rows; their
/// addresses are added to `out`.
pub(crate) fn positive_queries(e: &sql::Expr, out: &mut Vec<usize>) {
    match e {
        sql::Expr::Nested(x) | sql::Expr::IsTrue(x) => positive_queries(x, out),
        sql::Expr::BinaryOp {
            left,
            op: sql::BinaryOperator::And | sql::BinaryOperator::Or,
            right,
        } => {
            positive_queries(left, out);
            positive_queries(right, out);
        }
        sql::Expr::In {
            target: sql::InTarget::Subquery(q),
            negated: false,
            ..
        } => out.push(&**q as *const sql::Query as usize),
        sql::Expr::AnyOp { right, .. } => {
            if let sql::Expr::Subquery(q) = &**right {
                out.push(&**q as *const sql::Query as usize);
            }
        }
        _ => {}
    }
}

/// Checks the SELECT item of an `IN` / `op ANY` inside an expression that
/// reads the enclosing query (over `OUTER + i` and the subquery's output):
/// the value generator's join back on `=` gives an enclosing row with a
/// NULL in such a column no subquery rows, which is right only when the
/// item is then NULL for every row (C67: `CASE WHEN t.k IS NULL THEN 5
/// ...` is not).
pub(crate) fn check_strict_item(item: &Expr) -> Result<(), Diagnostic> {
    let mut nullable = Vec::new();
    visit(item, &mut |x| {
        if let ExprKind::Column(c) = x.kind {
            if (OUTER..VALUE).contains(&c) && x.ty.nullable && !nullable.contains(&c) {
                nullable.push(c);
            }
        }
    });
    for c in nullable {
        if !null_when_null(item, &|i| i == c) {
            return Err(Diagnostic::unsupported(
                item.span,
                "a SELECT list of an IN or ANY subquery inside an expression that may be non-NULL where a nullable column of the enclosing query it reads is NULL",
            )
            .with_note("Flink 2.3 decorrelates it with a join on `=`, so for a NULL the subquery has no rows (observed: `v IN (SELECT CASE WHEN t.k IS NULL THEN 5 ELSE u.w END FROM u)` under OR loses a row)"));
        }
    }
    Ok(())
}

/// Whether `e` reads the enclosing query (`OUTER + i`).
pub(crate) fn reads_outer(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        found |= matches!(x.kind, ExprKind::Column(c) if (OUTER..VALUE).contains(&c));
    });
    found
}

/// The subquery's own columns that `e` reads (below `OUTER`), added to
/// `used` in order of first appearance.
pub(crate) fn own_columns(e: &Expr, used: &mut Vec<usize>) {
    visit(e, &mut |x| {
        if let ExprKind::Column(i) = x.kind {
            if i < OUTER && !used.contains(&i) {
                used.push(i);
            }
        }
    });
}

/// What stands in the subquery's output for an item that moved into the
/// join condition: a NULL of its type, never read.
pub(crate) fn stand_in(item: &Expr) -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Null),
        ty: DataType::new(item.ty.kind, true),
        span: item.span,
    }
}

#[cfg(test)]
mod tests {
    use crate::binder::test_support::assert_first_error;

    const TABLES: &str = "
        SET 'execution.runtime-mode' = 'batch';
        CREATE TABLE t (k INT, v INT)
          WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
        CREATE TABLE u (k INT, w INT)
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
        for q in [
            "SELECT k FROM t WHERE v IN (SELECT u.w + t.k FROM u)",
            "SELECT k FROM t WHERE v + 5 IN (SELECT u.w + t.k - 1 FROM u WHERE u.k = t.k)",
            "SELECT k FROM t WHERE EXISTS (SELECT t.v FROM u WHERE u.k = t.k)",
            "SELECT k FROM t WHERE NOT EXISTS (SELECT t.v + u.w FROM u WHERE u.k = t.k)",
            "SELECT k FROM t WHERE v > SOME (SELECT u.w + t.k FROM u)",
            "SELECT k FROM t WHERE v IN (SELECT DISTINCT u.w + t.k FROM u)",
            "SELECT k FROM t WHERE v IN (SELECT t.v FROM u WHERE u.k = t.k)",
            // HAVING's aggregate arguments (the value generator).
            "SELECT k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.v) > 0)",
            "SELECT k FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.w > 0 GROUP BY u.k HAVING MAX(u.w - t.v + t.k) > 0)",
            "SELECT k FROM t WHERE k IN (SELECT u.k FROM u GROUP BY u.k HAVING SUM(u.w * t.v) > 0 AND COUNT(*) > 1)",
            // Marks: EXISTS anywhere, IN / ANY where only TRUE counts.
            "SELECT CASE WHEN EXISTS (SELECT t.v FROM u WHERE u.k = t.k) THEN 1 END FROM t",
            "SELECT k FROM t WHERE NOT (k = 4 OR EXISTS (SELECT t.v FROM u))",
            "SELECT k FROM t WHERE k = 4 OR v IN (SELECT u.w + t.k FROM u WHERE u.w < t.v)",
            "SELECT k FROM t WHERE (k = 4 OR v > SOME (SELECT u.w + t.k FROM u)) AND k > 0",
            "SELECT CASE WHEN v IN (SELECT u.w + t.k FROM u) OR k = 1 THEN 1 END FROM t",
        ] {
            check(&format!("INSERT INTO o {q};"), "ok");
        }
    }

    #[test]
    fn refused_forms() {
        // Anti joins comparing with the enclosing query: Flink's rows are wrong.
        check(
            "INSERT INTO o SELECT k FROM t WHERE v NOT IN (SELECT u.w + t.k FROM u WHERE u.k = t.k);",
            "a reference to the enclosing query's `t.k` in a subquery's SELECT list",
        );
        check(
            "INSERT INTO o SELECT k FROM t WHERE v > ALL (SELECT u.w + t.k FROM u);",
            "a reference to the enclosing query's `t.k` in a subquery's SELECT list",
        );
        // IN in the SELECT list (a mark join): Flink's rows are wrong.
        check(
            "INSERT INTO o SELECT CAST(v IN (SELECT u.w + t.k FROM u) AS INT) FROM t;",
            "a reference to the enclosing query's `t.k` in a subquery's SELECT list",
        );
        // Marks whose NULL is not FALSE: Flink's value is FALSE where SQL's
        // is NULL (C11, C64).
        for q in [
            "SELECT k FROM t WHERE NOT (v IN (SELECT u.w + t.k FROM u)) OR k = 4",
            "SELECT k FROM t WHERE (k = 4 OR v IN (SELECT u.w + t.k FROM u)) IS NOT FALSE",
            "SELECT k FROM t WHERE k = 4 OR v > ALL (SELECT u.w + t.k FROM u)",
        ] {
            check(
                &format!("INSERT INTO o {q};"),
                "a reference to the enclosing query's `t.k` in a subquery's SELECT list",
            );
        }
        // A mark's item that is not NULL for a NULL enclosing value (C67).
        check(
            "INSERT INTO o SELECT k FROM t WHERE k = 4 OR v IN (SELECT CASE WHEN t.k IS NULL THEN 5 ELSE u.w END FROM u);",
            "a SELECT list of an IN or ANY subquery inside an expression that may be non-NULL",
        );
        // Aggregating: the value generator's forms.
        check(
            "INSERT INTO o SELECT k FROM t WHERE v IN (SELECT MAX(u.w + t.k) FROM u);",
            "a reference to the enclosing query's `t.k` in a subquery's aggregate arguments",
        );
        // A subquery in the SELECT list.
        check(
            "INSERT INTO o SELECT k FROM t WHERE v IN (SELECT u.w + (SELECT MAX(w) FROM u) + t.k FROM u);",
            "a reference to the enclosing query's `t.k` in a subquery's SELECT list",
        );
        // HAVING that may be TRUE for a NULL enclosing value: Flink is wrong.
        for having in [
            "MAX(u.w - t.v) IS NULL",
            "COUNT(u.w - t.v) = 0",
            "MAX(u.w - t.v) > 0 OR COUNT(*) > 1",
        ] {
            check(
                &format!("INSERT INTO o SELECT k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING {having});"),
                "a HAVING that reads the enclosing query's nullable `t.v` and may be TRUE where `t.v` is NULL",
            );
        }
        // HAVING reading the WHERE's key column: Flink is wrong.
        check(
            "INSERT INTO o SELECT k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.k) > 3);",
            "a subquery whose HAVING reads an enclosing column that its WHERE correlates on",
        );
        // Outside an aggregate: Flink refuses.
        check(
            "INSERT INTO o SELECT k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w) > t.v);",
            "a reference to the enclosing query's `t.v` in a subquery's HAVING",
        );
        // Two levels out.
        check(
            "INSERT INTO o SELECT k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w IN (SELECT t.v FROM u AS x));",
            "a subquery that refers to a query two or more levels out",
        );
    }
}
