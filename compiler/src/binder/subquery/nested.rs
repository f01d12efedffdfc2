//! A subquery that refers to a query two or more levels out, as a WHERE
//! conjunct of a subquery that is itself only tested for existence:
//!
//! ```sql
//! SELECT ... FROM a WHERE EXISTS (
//!   SELECT 1 FROM b WHERE b.k = a.k AND EXISTS (
//!     SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v))
//! ```
//!
//! The inner `EXISTS` cannot be a semi join of `b` with `c`: its condition
//! reads `a`. But the middle query's rows are only tested for existence (a
//! WHERE conjunct `EXISTS`, `NOT EXISTS`, `IN` or `op ANY|SOME` of `a`, or
//! an `EXISTS` inside one of its expressions, which counts them), and
//! "some `b` with some `c`" is "some pair `(b, c)`": the inner subquery is
//! inner-joined to `b` on its conditions over `b` and `c`, and its
//! conditions that read `a` become correlation conjuncts of the middle query,
//! which go into the enclosing join like its own. Nested deeper, this
//! repeats level by level.
//!
//! The same holds for a middle scalar subquery without GROUP BY whose
//! SELECT items are MIN/MAX calls: the extremes over the pairs are those
//! over `b`'s rows that have a `c`, so the pairs are its rows and the
//! lifted conjuncts its correlation (a value generator groups them by the
//! enclosing values they read, `generator.rs`).
//!
//! Everywhere else (a scalar subquery of other aggregates, of none
//! (`SINGLE_VALUE`), a middle query with GROUP BY, an ordering `op
//! ANY|ALL` inside an expression) pairs would repeat or lose the middle
//! query's rows: there the nested subquery's semi join is deferred until
//! the middle query's rows are joined with the distinct enclosing values
//! (its value generator), and its conditions on the enclosing query read
//! those values (`Deferred`, Calcite's decorrelation). A nested scalar
//! subquery that refers past the middle query defers its whole WHERE
//! conjunct so (`DeferredConjunct`), under any middle query.
//!
//! What is refused is what Flink 2.3 computes wrongly or fails on
//! (`docs/flink-observed/subquery-probes/nested`): a negated inner
//! predicate (`NOT EXISTS` returns wrong rows), a middle query read by
//! `NOT IN` / `ALL`, or by IN inside an expression, a middle query with
//! GROUP BY that is correlated itself, an inner predicate inside an
//! expression of the middle query, an inner scalar `COUNT` or one without
//! aggregates, and an inner subquery that refers to the outer query but
//! not to the middle one, unless by keys under a correlated middle query.

use super::{any_column, remap, BResult, BoundSub, OUTER};
use crate::binder::Binder;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{BinaryOp, Expr, ExprKind};

/// How a subquery's rows are read by the query it is nested in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reader {
    /// Tested for existence: a WHERE conjunct `EXISTS`, `NOT EXISTS`, `IN`
    /// or `op ANY|SOME`, or an `EXISTS` inside an expression (its rows are
    /// counted). Duplicate rows change nothing.
    Exists,
    /// Compared with every row: a WHERE conjunct `NOT IN` or `op ALL`.
    All,
    /// The value of any other scalar subquery (GROUP BY, HAVING, DISTINCT,
    /// LIMIT, a set operation): deferred where it groups and is not
    /// correlated itself (`where_groups`), refused otherwise.
    Scalar,
    /// The value of a scalar subquery without GROUP BY whose SELECT items
    /// are MIN/MAX calls (`extremes_only`): duplicate rows change nothing.
    Extremes,
    /// The value of any other scalar subquery without GROUP BY whose SELECT
    /// items hold aggregate calls (`aggregates_only`): a nested subquery
    /// that refers past it is a semi join of its rows with the enclosing
    /// values (`Deferred`).
    Aggregate,
    /// The value of a scalar subquery without GROUP BY, HAVING, DISTINCT or
    /// aggregates (`single_only`): `SINGLE_VALUE` of its rows, so a nested
    /// subquery that refers past it is deferred like under `Aggregate`.
    Single,
    /// An IN, `= ANY` or `<> ALL` inside an expression.
    Value,
    /// An ordering comparison (`<`, `<=`, `>`, `>=`) with ANY, SOME or ALL
    /// inside an expression: its rows' MIN/MAX and counts decide, so a
    /// nested subquery that refers past it is deferred (Flink 2.3 computes
    /// these right, where it fails on IN: `subquery-probes/nested`).
    Ordered,
}

impl Binder<'_> {
    /// Takes out of `sub`'s correlation the conjuncts that refer past the
    /// current query (`width` columns; beyond them is the enclosing scope):
    /// they are returned, still over `OUTER + i` and `sub`'s columns.
    pub(super) fn lift_nested(
        &mut self,
        sub: &mut BoundSub,
        width: usize,
        anti: bool,
        span: Span,
    ) -> BResult<(Vec<Expr>, bool)> {
        let past = |c: &Expr| any_column(c, &|i| i >= OUTER && i - OUTER >= width);
        let Some(first) = sub.corr.iter().find(|c| past(c)) else {
            return Ok((Vec::new(), false));
        };
        let at = first.span.to(span);
        if anti {
            return Err(Diagnostic::unsupported(
                at,
                "a NOT EXISTS, NOT IN or ALL subquery that refers to a query two or more levels out",
            )
            .with_note("Flink 2.3 returns wrong rows for such a NOT EXISTS"));
        }
        let reader = self.subq.readers.last().copied();
        // A middle query with GROUP BY (`where_groups`) is decorrelated
        // through its value generator too; Flink 2.3 fails on it when the
        // middle query itself is correlated (checked in `bind_where`).
        let grouped_scalar = reader == Some(Reader::Scalar) && self.subq.where_groups;
        if !grouped_scalar
            && !matches!(
                reader,
                Some(
                    Reader::Exists
                        | Reader::Extremes
                        | Reader::Aggregate
                        | Reader::Single
                        | Reader::Ordered
                )
            )
        {
            let refusal = Diagnostic::unsupported(
                at,
                "a subquery that refers to a query two or more levels out",
            )
            .with_note(
                "stmtc decorrelates it where the subquery it is nested in is a WHERE conjunct EXISTS, NOT EXISTS, IN or op ANY|SOME of that query, an EXISTS or `< <= > >=` ANY|SOME|ALL inside its expressions, or a scalar subquery",
            );
            return Err(match reader {
                Some(Reader::All) => refusal.with_note(
                    "under NOT IN and ALL Flink 2.3 returns wrong rows for it (it drops a NULL operand over an empty set)",
                ),
                Some(Reader::Value) => refusal.with_note(
                    "under IN, `= ANY` and `<> ALL` inside an expression Flink 2.3 fails: `unexpected correlate variable $cor0 in the plan`",
                ),
                Some(Reader::Scalar) => refusal.with_note(
                    "under a scalar subquery with GROUP BY, HAVING or DISTINCT that is itself correlated Flink 2.3 fails: `Error while applying rule FlinkAggregateJoinTransposeRule`",
                ),
                _ => refusal,
            });
        }
        let reads_middle = sub
            .corr
            .iter()
            .any(|c| any_column(c, &|i| i >= OUTER && i - OUTER < width));
        if !reads_middle {
            let keyed = sub.corr.iter().all(|c| keyed_past(c, width));
            self.outer_only(keyed, at)?;
        }
        let (lifted, kept) = std::mem::take(&mut sub.corr).into_iter().partition(past);
        sub.corr = kept;
        // Under a scalar subquery the join is deferred (`Deferred`): its
        // rows stay one per row of its input. One that reads only the outer
        // query is deferred too (pairs would be all of `b` x `c`).
        let defer = self.defers_nested() || !reads_middle;
        if !defer {
            self.subq.lifted = true;
        }
        Ok((lifted, defer))
    }

    /// A nested subquery that refers to the outer query but not to the
    /// middle one: Flink 2.3 computes it right where its correlation is
    /// `inner = outer` keys and the middle query is correlated itself
    /// (`subquery-probes/nested`: Q1, Q12, Q31, Q55-Q57, Q59-Q61); it
    /// returns wrong rows for other correlations (Q58, Q62, Q63) and fails
    /// under an uncorrelated middle (Q4, Q64, Q65: checked in `bind_where`).
    pub(super) fn outer_only(&mut self, keyed: bool, at: Span) -> BResult<()> {
        if !keyed {
            return Err(Diagnostic::unsupported(
                at,
                "a nested subquery that refers to a query two or more levels out, not to the query it is nested in, by more than `inner = outer` keys",
            )
            .with_note("Flink 2.3 returns wrong rows for it"));
        }
        self.subq.outer_only.get_or_insert(at);
        Ok(())
    }

    /// Whether a nested subquery that refers past the query whose WHERE
    /// binds waits for that query's value generator (`Deferred`) instead of
    /// becoming pairs: its rows are counted, grouped or must be single.
    pub(super) fn defers_nested(&self) -> bool {
        matches!(
            self.subq.readers.last(),
            Some(Reader::Aggregate | Reader::Single | Reader::Scalar | Reader::Ordered)
        ) || self.subq.where_groups
    }

    /// Checks a scalar subquery in a WHERE conjunct of the query whose WHERE
    /// binds (`width` columns) that refers past that query.
    pub(super) fn check_scalar_past(
        &mut self,
        sub: &BoundSub,
        generated: bool,
        width: usize,
        span: Span,
    ) -> BResult<()> {
        let past = |c: &Expr| any_column(c, &|i| i >= OUTER && i - OUTER >= width);
        let Some(first) = sub.corr.iter().find(|c| past(c)) else {
            return Ok(());
        };
        let at = first.span.to(span);
        if !sub.global_aggregate {
            return Err(Diagnostic::unsupported(
                at,
                "a scalar subquery without aggregates that refers to a query two or more levels out",
            )
            .with_note(
                "Flink 2.3 evaluates it for values of the outer query that no row pairs with, and fails at run time on a second row there",
            ));
        }
        if sub.empty_values.first().is_some_and(Option::is_some) {
            return Err(Diagnostic::unsupported(
                at,
                "a scalar COUNT subquery that refers to a query two or more levels out",
            )
            .with_note(
                "Flink 2.3 returns wrong rows for it: it misses the count 0 of an empty group",
            ));
        }
        let reads_middle = sub
            .corr
            .iter()
            .any(|c| any_column(c, &|i| i >= OUTER && i - OUTER < width));
        if !reads_middle {
            // Without a value generator its correlation is keys.
            self.outer_only(!generated, at)?;
        }
        Ok(())
    }

    /// Whether a scalar subquery in a WHERE conjunct of the query whose
    /// WHERE binds may refer past that query (`DeferredConjunct`): Flink 2.3
    /// computes these right (`subquery-probes/nested`, Q1, Q2, Q6, Q29,
    /// Q36, Q38, Q39, Q41, Q42, Q50-Q54).
    pub(super) fn conjuncts_may_refer_past(&self) -> bool {
        match self.subq.readers.last() {
            Some(
                Reader::Exists
                | Reader::Extremes
                | Reader::Aggregate
                | Reader::Single
                | Reader::Ordered,
            ) => true,
            Some(Reader::Scalar) => self.subq.where_groups,
            _ => false,
        }
    }
}

/// A WHERE conjunct of a correlated subquery whose scalar subqueries refer
/// past it, two levels out:
///
/// ```sql
/// SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND u.w > (
///   SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v)) FROM t
/// ```
///
/// As Calcite decorrelates it, the middle query's rows are first joined
/// with the distinct values of the enclosing columns read (its value
/// generator, `generator.rs`); the scalar subquery is then correlated with
/// those rows only (`t.v` is a column of them), its join and the conjunct
/// apply there.
pub(super) struct DeferredConjunct {
    /// The scalar subqueries' joins: over the middle query's input, `SUB +
    /// k` and the enclosing query's columns `OUTER + j`.
    pub(super) pending: Vec<super::Pending>,
    /// The conjunct, over the same and the subqueries' values (`VALUE + v`).
    pub(super) conjunct: Expr,
    /// The middle query's scope width: a value generator's column `o >=
    /// width` inside `pending` is the enclosing query's `o - width`.
    pub(super) width: usize,
}

/// Whether a correlation conjunct is `inner = outer` with the outer side
/// reading only columns past the middle query (`width` columns).
fn keyed_past(c: &Expr, width: usize) -> bool {
    let ExprKind::Binary {
        op: BinaryOp::Eq,
        left,
        right,
    } = &c.kind
    else {
        return false;
    };
    let inner = |e: &Expr| !any_column(e, &|i| i >= OUTER) && any_column(e, &|_| true);
    let outer = |e: &Expr| !any_column(e, &|i| i < OUTER || i - OUTER < width);
    (inner(left) && outer(right)) || (inner(right) && outer(left))
}

/// The semi join of a nested subquery (`EXISTS`, `IN`, `op ANY|SOME` in the
/// WHERE of a scalar subquery) that refers past that scalar subquery:
///
/// ```sql
/// SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k AND EXISTS (
///   SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v)) FROM t
/// ```
///
/// Pairs `(u, x)` would count a `u` once per `x`. As Calcite decorrelates
/// it, the scalar subquery's rows are joined with the distinct enclosing
/// values first (its value generator, `generator.rs`), and the semi join
/// of those rows with `x` reads the values there: each `(value, u)` is kept
/// once, then grouped by the values.
#[derive(Clone, Debug)]
pub(crate) struct Deferred {
    pub kind: crate::ir::JoinKind,
    /// The nested subquery's rows.
    pub rel: crate::ir::Rel,
    /// Its own join conditions, over the scalar subquery's input (`width`
    /// columns then) and its rows.
    pub condition: Vec<Expr>,
    /// The conditions that refer past it: over the same columns and the
    /// enclosing query's (`OUTER + j`).
    pub lifted: Vec<Expr>,
    pub width: usize,
}

/// A lifted conjunct over the current query's joined rows (`n` input
/// columns, then the subquery's) and the enclosing scope (`OUTER + j`).
pub(super) fn past_join(c: Expr, width: usize, n: usize) -> Expr {
    remap(c, &|i| {
        if i < OUTER {
            n + i
        } else if i - OUTER < width {
            i - OUTER
        } else {
            i - width
        }
    })
}

/// The SELECT of a subquery that is a plain SELECT without WITH, GROUP BY,
/// HAVING, DISTINCT or LIMIT.
fn plain_select(query: &sqlparser::ast::Query) -> Option<&sqlparser::ast::Select> {
    use sqlparser::ast::{GroupByExpr, SetExpr};
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let no_group =
        matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty());
    (no_group
        && query.with.is_none()
        && select.having.is_none()
        && select.distinct.is_none()
        && query.limit_clause.is_none())
    .then_some(select.as_ref())
}

/// Whether a scalar subquery is a plain SELECT without GROUP BY, HAVING,
/// DISTINCT or LIMIT whose every item holds an aggregate call: one row per
/// enclosing row.
pub(super) fn aggregates_only(query: &sqlparser::ast::Query) -> bool {
    use sqlparser::ast::SelectItem;
    plain_select(query).is_some_and(|select| {
        !select.projection.is_empty()
            && select.projection.iter().all(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    crate::binder::expr::contains_aggregate(e)
                }
                _ => false,
            })
    })
}

/// Whether a scalar subquery is a plain SELECT without GROUP BY, HAVING,
/// DISTINCT, LIMIT or aggregate calls: its value is `SINGLE_VALUE` of its
/// rows.
pub(super) fn single_only(query: &sqlparser::ast::Query) -> bool {
    use sqlparser::ast::SelectItem;
    plain_select(query).is_some_and(|select| {
        select.projection.iter().all(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                !crate::binder::expr::contains_aggregate(e)
            }
            _ => true,
        })
    })
}

/// Whether a scalar subquery's rows may repeat without changing its value:
/// a plain SELECT without GROUP BY, HAVING or window calls whose items are
/// MIN/MAX calls over its rows.
pub(super) fn extremes_only(query: &sqlparser::ast::Query) -> bool {
    use sqlparser::ast::{Expr as E, FunctionArguments, GroupByExpr, SelectItem, SetExpr};
    let SetExpr::Select(select) = query.body.as_ref() else {
        return false;
    };
    let no_group =
        matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty());
    if !no_group
        || select.having.is_some()
        || select.distinct.is_some()
        || query.limit_clause.is_some()
    {
        return false;
    }
    !select.projection.is_empty()
        && select.projection.iter().all(|item| {
            let e = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return false,
            };
            matches!(e, E::Function(f)
                if f.over.is_none()
                    && f.filter.is_none()
                    && matches!(&f.args, FunctionArguments::List(l) if l.args.len() == 1)
                    && matches!(f.name.0.as_slice(), [part] if part.as_ident().is_some_and(|i|
                        i.value.eq_ignore_ascii_case("MIN") || i.value.eq_ignore_ascii_case("MAX"))))
        })
}
