//! A correlated subquery in a statement that also reads a VALUES: Flink 2.3
//! fails on it (`TableException: unexpected correlate variable $cor0 in the
//! plan`), so stmtc refuses it (docs/flink-observed/subquery-probes/values-from).
//!
//! Flink turns most correlated subqueries into a `Correlate` that Calcite's
//! decorrelator must remove, and the decorrelator gives up on the whole
//! statement when its plan holds a `Values` anywhere: in the enclosing FROM
//! (cross joined, joined ON, alone, in a derived table, a view or a CTE it
//! reads), in
//! another branch of a UNION ALL, in a sibling or nested subquery, or as a
//! SELECT without FROM (Calcite's one-row `Values`). The correlated
//! subqueries Flink joins without a `Correlate` are unaffected: a WHERE
//! conjunct `EXISTS`, `NOT EXISTS`, `IN`, `NOT IN`, `= ANY` or `<> ALL`
//! (a semi or anti join). Every other correlated subquery counts: scalar
//! (in any clause), EXISTS or IN inside an expression (SELECT list, under
//! OR, HAVING), and the other quantified comparisons.
//!
//! While a statement binds, the first such subquery and the first VALUES are
//! recorded; a view or CTE keeps what its query held, for the statements that
//! read it (an unread CTE is not in Flink's plan). An INSERT holding both is refused at the subquery.

use std::collections::BTreeMap;

use super::super::Binder;
use super::BoundSub;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::BinaryOp;

/// What one statement (or view) holds.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Found {
    /// The first VALUES or SELECT without FROM, and which of the two.
    values: Option<(Span, &'static str)>,
    /// The first correlated subquery Flink plans through a `Correlate`.
    correlate: Option<Span>,
}

impl Found {
    fn merge(&mut self, other: Found) {
        self.values = self.values.or(other.values);
        self.correlate = self.correlate.or(other.correlate);
    }
}

#[derive(Default)]
pub(crate) struct ValuesFrom {
    /// The statement being bound.
    current: Found,
    /// Per view (its index in `BoundJob::views`).
    views: BTreeMap<usize, Found>,
    /// Per CTE in scope (its index in `Binder::ctes`): an unused one is not
    /// in Flink's plan.
    ctes: BTreeMap<usize, Found>,
}

/// Whether a bound subquery refers to its enclosing query (in its WHERE or,
/// through a value generator, elsewhere).
fn correlated(sub: &BoundSub) -> bool {
    !sub.corr.is_empty() || sub.generator.is_some() || !sub.items.is_empty()
}

/// Whether Flink joins `x op ANY (...)` (`all` false) or `x op ALL (...)`, a
/// WHERE conjunct, without a `Correlate`: only `IN` (`= ANY`) and `NOT IN`
/// (`<> ALL`) are semi and anti joins there.
fn quantified_joins(op: BinaryOp, all: bool) -> bool {
    matches!((op, all), (BinaryOp::Eq, false) | (BinaryOp::NotEq, true))
}

impl Binder<'_> {
    /// A VALUES was bound at `span`.
    pub(crate) fn note_values(&mut self, span: Span) {
        let found = &mut self.values_from.current;
        found.values = found.values.or(Some((span, "the VALUES")));
    }

    /// A SELECT without FROM was bound at `span`: a one-row VALUES for Flink.
    pub(crate) fn note_one_row(&mut self, span: Span) {
        let found = &mut self.values_from.current;
        found.values = found.values.or(Some((
            span,
            "a SELECT without FROM, a one-row VALUES in Flink's plan",
        )));
    }

    /// A scalar subquery, or an EXISTS / IN / quantified comparison inside an
    /// expression, was bound at `span`.
    pub(super) fn note_correlate(&mut self, sub: &BoundSub, span: Span) {
        if correlated(sub) {
            let found = &mut self.values_from.current;
            found.correlate = found.correlate.or(Some(span));
        }
    }

    /// A WHERE conjunct `x op ANY|ALL (...)` was bound at `span`.
    pub(super) fn note_quantified(&mut self, sub: &BoundSub, op: BinaryOp, all: bool, span: Span) {
        if !quantified_joins(op, all) {
            self.note_correlate(sub, span);
        }
    }

    /// A statement (INSERT or CREATE VIEW) starts binding.
    pub(crate) fn begin_values_from(&mut self) {
        self.values_from.current = Found::default();
    }

    /// The view with `index` was read: what it holds counts for the statement.
    pub(crate) fn read_view_values_from(&mut self, index: usize) {
        if let Some(found) = self.values_from.views.get(&index).copied() {
            self.values_from.current.merge(found);
        }
    }

    /// The view with `index` was bound.
    pub(crate) fn end_view_values_from(&mut self, index: usize) {
        let found = std::mem::take(&mut self.values_from.current);
        self.values_from.views.insert(index, found);
    }

    /// A CTE's query starts binding: returns what the statement holds so far.
    pub(crate) fn begin_cte_values_from(&mut self) -> Found {
        std::mem::take(&mut self.values_from.current)
    }

    /// The CTE that will have `index` in `Binder::ctes` was bound; `outer` is
    /// what [`Self::begin_cte_values_from`] returned.
    pub(crate) fn end_cte_values_from(&mut self, outer: Found, index: usize) {
        let found = std::mem::replace(&mut self.values_from.current, outer);
        self.values_from.ctes.insert(index, found);
    }

    /// The CTE with `index` was read.
    pub(crate) fn read_cte_values_from(&mut self, index: usize) {
        if let Some(found) = self.values_from.ctes.get(&index).copied() {
            self.values_from.current.merge(found);
        }
    }

    /// The INSERT was bound: refused when it holds both.
    pub(crate) fn end_insert_values_from(&mut self) -> bool {
        let found = std::mem::take(&mut self.values_from.current);
        let (Some((values, label)), Some(correlate)) = (found.values, found.correlate) else {
            return true;
        };
        self.error(
            Diagnostic::error(
                correlate,
                "a correlated subquery in a statement that also reads a VALUES: Flink 2.3 cannot plan it",
            )
            .with_related(values, label)
            .with_note("Flink 2.3 fails on it: `TableException: unexpected correlate variable $cor0 in the plan`")
            .with_help("read the rows from a table instead of VALUES, or write the subquery as a WHERE conjunct EXISTS, NOT EXISTS, IN or NOT IN, or as a join"),
        );
        false
    }
}

#[cfg(test)]
mod tests {
    use crate::binder::test_support::first_diagnostic;

    const TABLES: &str = "
        SET 'execution.runtime-mode' = 'batch';
        CREATE TABLE t (k INT, v INT)
          WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
        CREATE TABLE u (k INT, w INT)
          WITH ('connector' = 'filesystem', 'path' = 'u.csv', 'format' = 'csv');
        CREATE TABLE u2 (k INT, w INT)
          WITH ('connector' = 'filesystem', 'path' = 'u.csv', 'format' = 'csv');
        CREATE TEMPORARY VIEW dv AS SELECT * FROM (VALUES (1), (2)) AS e(n);
        CREATE TABLE o (a INT) WITH ('connector' = 'blackhole');
        CREATE TABLE o2 (a INT, b INT) WITH ('connector' = 'blackhole');
    ";

    const REFUSED: &str = "a correlated subquery in a statement that also reads a VALUES";

    /// The first error binding `insert` after [`TABLES`], or `ok`; for a
    /// refusal, also the text it points at.
    #[track_caller]
    fn check(insert: &str, expect: &str) {
        let got = first_diagnostic(&format!("{TABLES}\n{insert}"), &|file, d| {
            format!("{} @ {}", d.message, file.snippet(d.span))
        });
        assert!(
            got.starts_with(expect),
            "{insert}\n got: {got}\nwant: {expect}"
        );
    }

    /// Refused at `at` (a scalar subquery's span is inside its parentheses).
    #[track_caller]
    fn refused(insert: &str, at: &str) {
        let at = at
            .strip_prefix('(')
            .and_then(|a| a.strip_suffix(')'))
            .unwrap_or(at);
        check(
            insert,
            &format!("{REFUSED}: Flink 2.3 cannot plan it @ {at}"),
        );
    }

    const SQ: &str = "(SELECT MAX(u.w) FROM u WHERE u.k = t.k)";
    const V2: &str = "(VALUES (1), (2)) AS d(n)";

    #[test]
    fn refused_enclosing_from() {
        // V1-V9, V12, V13, V15, V16, V32, V35-V37: wherever the VALUES is in
        // the enclosing FROM.
        for from in [
            format!("t, {V2}"),
            format!("{V2}, t"),
            "t, (VALUES (1)) AS d(n)".to_string(),
            format!("t CROSS JOIN {V2}"),
            format!("t JOIN {V2} ON t.k = d.n"),
            format!("t LEFT JOIN {V2} ON t.k = d.n"),
            "t, (SELECT * FROM (VALUES (1), (2)) AS e(n)) AS d".to_string(),
            format!("(SELECT t.k FROM t, {V2}) AS t"),
            "t, dv".to_string(),
            format!("t, u2, {V2}"),
        ] {
            refused(&format!("INSERT INTO o SELECT {SQ} FROM {from};"), SQ);
        }
        refused(
            &format!("INSERT INTO o SELECT (SELECT MAX(u.w) FROM u WHERE u.k = d.n) FROM {V2};"),
            "(SELECT MAX(u.w) FROM u WHERE u.k = d.n)",
        );
        // W13: a CTE.
        refused(
            &format!("INSERT INTO o WITH d AS (SELECT * FROM (VALUES (1)) AS e(n)) SELECT {SQ} FROM t, d;"),
            SQ,
        );
    }

    #[test]
    fn refused_elsewhere_in_the_statement() {
        // W1: a UNION ALL branch; W3: the subquery's own FROM; W5, W6, W14:
        // a sibling subquery over VALUES or without FROM; W11: a VALUES
        // joined outside the derived table that holds the subquery.
        refused(
            &format!("INSERT INTO o2 SELECT t.k, {SQ} FROM t UNION ALL SELECT n, n FROM {V2};"),
            SQ,
        );
        refused(
            "INSERT INTO o SELECT (SELECT MAX(d.n) FROM (VALUES (1), (2)) AS d(n) WHERE d.n = t.k) FROM t;",
            "(SELECT MAX(d.n) FROM (VALUES (1), (2)) AS d(n) WHERE d.n = t.k)",
        );
        refused(
            &format!("INSERT INTO o2 SELECT {SQ}, (SELECT 7) FROM t;"),
            SQ,
        );
        refused(
            &format!("INSERT INTO o SELECT {SQ} FROM t WHERE t.k < (SELECT 3);"),
            SQ,
        );
        refused(
            &format!("INSERT INTO o2 SELECT x.m, d.n FROM (SELECT {SQ} AS m FROM t) AS x, {V2};"),
            SQ,
        );
    }

    #[test]
    fn refused_kinds_of_subquery() {
        // V17 scalar in WHERE; V30, V31 EXISTS and IN in SELECT; W15 under
        // OR; W17, X1 `> ALL`, `> ANY` conjuncts; X5 EXISTS in HAVING.
        refused(
            &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE t.v > {SQ};"),
            SQ,
        );
        // An EXISTS inside an expression is located at its query.
        let exists = "EXISTS (SELECT 1 FROM u WHERE u.k = t.k)";
        let query = "SELECT 1 FROM u WHERE u.k = t.k";
        refused(
            &format!(
                "INSERT INTO o2 SELECT t.k, CASE WHEN {exists} THEN 1 ELSE 0 END FROM t, {V2};"
            ),
            query,
        );
        refused(
            &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE d.n = 2 OR {exists};"),
            query,
        );
        refused(
            &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE t.v > ALL (SELECT u.w FROM u WHERE u.k = t.k);"),
            "t.v > ALL (SELECT u.w",
        );
        refused(
            &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE t.v > ANY (SELECT u.w FROM u WHERE u.k = t.k);"),
            "t.v > ANY (SELECT u.w",
        );
        refused(
            &format!("INSERT INTO o SELECT t.k FROM t, {V2} GROUP BY t.k HAVING {exists};"),
            query,
        );
        // V90, V92, V97: WHERE semi joins that need the enclosing row
        // beyond keys (a SELECT item or HAVING reading it, a non-equality
        // under GROUP BY); located at the conjunct.
        for conjunct in [
            "t.v IN (SELECT u.w + t.k FROM u)",
            "EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.v) > 0)",
            "EXISTS (SELECT 1 FROM u WHERE u.k < t.k GROUP BY u.k HAVING MAX(u.w) > 0)",
        ] {
            // At IN's conjunct, EXISTS's query (before the last `)`).
            let at = conjunct.strip_prefix("EXISTS (").unwrap_or(conjunct);
            refused(
                &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE {conjunct};"),
                &at[..at.len() - 1],
            );
        }
        // C32-style: the subquery reads the enclosing query only in its
        // SELECT list.
        refused(
            &format!("INSERT INTO o SELECT (SELECT u.w + t.v FROM u WHERE u.w = 60) FROM t, {V2};"),
            "(SELECT u.w + t.v FROM u WHERE u.w = 60)",
        );
    }

    #[test]
    fn accepted_forms_whose_select_list_is_not_read() {
        // V91, V94: EXISTS does not read its SELECT list; V99: keys only.
        for conjunct in [
            "EXISTS (SELECT t.v FROM u WHERE u.k = t.k)",
            "t.k = 4 OR EXISTS (SELECT t.v FROM u)",
            "EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w) > 0)",
            // V100-V104: a constant EXISTS, HAVING keyed by the correlation.
            "t.k = 4 OR EXISTS (SELECT COUNT(*) FROM u WHERE u.k = t.k)",
            "NOT EXISTS (SELECT MAX(u.w) FROM u WHERE u.k = t.k)",
            "t.v IN (SELECT MAX(u.w) - 5 FROM u WHERE u.k = t.k HAVING COUNT(*) > 1)",
        ] {
            check(
                &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE {conjunct};"),
                "ok",
            );
        }
    }

    #[test]
    fn accepted_forms() {
        // V10, V11, V24, V25, V34: a cross join of tables, no VALUES.
        check(
            &format!("INSERT INTO o SELECT {SQ} FROM t, u2 WHERE u2.k = 1;"),
            "ok",
        );
        check(
            &format!("INSERT INTO o SELECT {SQ} FROM t CROSS JOIN u2;"),
            "ok",
        );
        check(
            &format!("INSERT INTO o SELECT {SQ} FROM t, (SELECT COUNT(*) AS c FROM u2) AS d;"),
            "ok",
        );
        // V14, V21, V22, X6: uncorrelated subqueries.
        check(
            &format!("INSERT INTO o SELECT (SELECT MAX(u.w) FROM u) FROM t, {V2};"),
            "ok",
        );
        check(
            &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE t.k IN (SELECT u.k FROM u WHERE u.w > 10);"),
            "ok",
        );
        check(
            &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE t.v > ALL (SELECT u.w FROM u WHERE u.w < 20);"),
            "ok",
        );
        // V18-V20, V23, V27, V29, W16, X2-X4: correlated WHERE conjuncts
        // Flink joins as semi and anti joins.
        for conjunct in [
            "EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
            "NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
            "NOT (EXISTS (SELECT 1 FROM u WHERE u.k = t.k))",
            "t.v IN (SELECT u.w FROM u WHERE u.k = t.k)",
            "t.v NOT IN (SELECT u.w FROM u WHERE u.k = t.k)",
            "t.v = ANY (SELECT u.w FROM u WHERE u.k = t.k)",
            "t.v <> ALL (SELECT u.w FROM u WHERE u.k = t.k)",
            "EXISTS (SELECT 1 FROM u WHERE u.k = d.n AND u.w > t.v)",
        ] {
            check(
                &format!("INSERT INTO o SELECT t.k FROM t, {V2} WHERE d.n > 0 AND {conjunct};"),
                "ok",
            );
        }
        // W10: an IN list is no VALUES.
        check(
            &format!("INSERT INTO o SELECT {SQ} FROM t WHERE t.k IN (1, 2);"),
            "ok",
        );
        // A CTE over VALUES that the query does not read.
        check(
            &format!(
                "INSERT INTO o WITH d AS (SELECT * FROM (VALUES (1)) AS e(n)) SELECT {SQ} FROM t;"
            ),
            "ok",
        );
        // A VALUES in another INSERT, and a view over VALUES not read.
        check(
            &format!("INSERT INTO o SELECT {SQ} FROM t; INSERT INTO o SELECT n FROM {V2}; INSERT INTO o SELECT n FROM dv;"),
            "ok",
        );
    }
}
