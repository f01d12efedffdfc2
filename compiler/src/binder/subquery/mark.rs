//! `EXISTS`, `NOT EXISTS`, `x [NOT] IN (subquery)` and `x op ANY|SOME|ALL
//! (subquery)` inside an expression (under `OR`, in `CASE`, in the SELECT list, in HAVING): the
//! subquery becomes a "mark" that the expression reads, as in Calcite's
//! SubQueryRemoveRule, which Flink plans. A WHERE conjunct that is only the
//! predicate is still a semi/anti join (`subquery.rs`); here the predicate is
//! a BOOLEAN value, so every row of the enclosing query is kept and gets it.
//!
//! The subquery's rows are aggregated by their correlation keys (`k`, none
//! when uncorrelated) and left-joined on them (an uncorrelated aggregate has
//! one row and is cross-joined), so each enclosing row meets at most one row
//! of each aggregate:
//!
//! ```text
//! EXISTS (q)      counts = q GROUP BY k: COUNT(*) AS $c
//!                 uncorrelated: $c > 0;  correlated: $c IS NOT NULL
//!
//! x IN (q)        keys   = DISTINCT y, k over q, left-joined on x = y AND k
//!                 x, y NOT NULL: y' IS NOT NULL
//!                 otherwise also counts = q GROUP BY k: $c, COUNT(y) AS $ck
//!                   CASE WHEN $c = 0 THEN FALSE            -- no row (NULL when correlated!)
//!                        WHEN y' IS NOT NULL THEN TRUE     -- x is in the set
//!                        WHEN x IS NULL THEN NULL          -- (x nullable)
//!                        WHEN $ck < $c THEN NULL           -- the set has a NULL (y nullable)
//!                        ELSE FALSE END
//!
//! x op SOME (q)   flags = q GROUP BY k: $c, $ck, MAX(y) (for < <=) or MIN(y) (> >=) AS $m
//!   (< <= > >=)   CASE WHEN <no row of q> THEN FALSE   -- $c = 0 / $c IS NULL
//!                        WHEN (x op $m) IS TRUE THEN TRUE
//!                        WHEN x IS NULL THEN NULL
//!                        WHEN $ck < $c THEN NULL ELSE FALSE END
//!
//! x op ALL (q)    NOT (x op' SOME (q)), op' the negated comparison
//! ```
//!
//! `NOT EXISTS` and `NOT IN` are `NOT` of these (three-valued: `NOT NULL` is
//! NULL). The joins go through the clause's subquery frame like a scalar
//! subquery's, so the planner shares the subquery's scan with the rest.
//!
//! Correlated by more than `inner = outer` keys (`b.k < a.k`), every form
//! reads the subquery's rows joined with the distinct enclosing values `u`
//! instead, and `k` is `u` (`over_input`).

use sqlparser::ast as sql;

use super::generator::Generator;
use super::nested::Reader;
use super::not_in::{binary, count};
use super::{
    and_all, any_column, column, correlation_pairs, eq, remap, true_literal, unary, BResult,
    BoundSub, OUTER, SUB, VALUE,
};
use crate::binder::expr::ExprCx;
use crate::binder::Binder;
use crate::diagnostics::{Diagnostic, Span};
use crate::functions::AggregateFunction;
use crate::ir::{
    AggregateCall, BinaryOp, Expr, ExprKind, Field, JoinKind, Literal, Rel, RelKind, UnaryOp,
};
use crate::types::{DataType, TypeKind};

/// Correlation pairs: a subquery key column, the enclosing expression.
type Pairs = Vec<(usize, Expr)>;

fn bigint(nullable: bool) -> DataType {
    DataType::new(TypeKind::BigInt, nullable)
}

fn boolean(value: Option<bool>, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Literal(value.map_or(Literal::Null, Literal::Boolean)),
        ty: DataType::new(TypeKind::Boolean, value.is_none()),
        span,
    }
}

/// `rel` grouped by `group` with `aggregates` (output: the keys, then the
/// aggregates).
fn aggregate(rel: Rel, group: Vec<usize>, aggregates: Vec<AggregateCall>, span: Span) -> Rel {
    let mut schema: Vec<Field> = group.iter().map(|&k| rel.schema[k].clone()).collect();
    schema.extend(aggregates.iter().map(|a| Field {
        name: a.name.clone(),
        ty: a.ty,
    }));
    Rel {
        kind: RelKind::Aggregate {
            input: Box::new(rel),
            group,
            aggregates,
        },
        schema,
        span,
    }
}

/// The correlation condition of a mark join, one `outer = key` per pair:
/// `rel`'s columns from `first` on are the keys (in pair order), and `rel`'s
/// columns are `SUB + base + i`.
fn keys_condition(
    pairs: &[(usize, Expr)],
    rel: &Rel,
    first: usize,
    base: usize,
    span: Span,
) -> Vec<Expr> {
    pairs
        .iter()
        .enumerate()
        .map(|(g, (_, o))| {
            let outer = remap(o.clone(), &|i| i - OUTER);
            let ty = rel.schema[first + g].ty;
            eq(outer, column(SUB + base + first + g, ty, span))
        })
        .collect()
}

/// IN and the quantified comparisons compare with one column.
fn one_column(sub: &BoundSub, span: Span) -> BResult<()> {
    if sub.visible == 1 {
        return Ok(());
    }
    // Flink's message (a row-valued operand is not supported).
    Err(Diagnostic::error(
        span,
        "Values passed to IN operator must have compatible types",
    )
    .with_note(format!(
        "the subquery returns {} columns; IN, ANY, SOME and ALL compare with one",
        sub.visible
    )))
}

fn negated(e: Expr, negate: bool, span: Span) -> Expr {
    if negate {
        unary(UnaryOp::Not, e, span)
    } else {
        e
    }
}

impl Binder<'_> {
    /// Binds a subquery whose mark an expression reads; returns it with its
    /// correlation pairs, or why they are not all `inner = outer`.
    /// With `select_outer`, its SELECT list may read the enclosing query
    /// (`semi_select.rs`).
    fn mark_subquery(
        &mut self,
        query: &sql::Query,
        what: &str,
        reader: Reader,
        select_outer: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<(BoundSub, BResult<Pairs>)> {
        if !matches!(self.subq.frames.last(), Some(Some(_))) {
            return Err(Diagnostic::unsupported(
                span,
                &format!("an {what} in {}", cx.clause),
            ));
        }
        let grouped =
            self.subq.grouped_frames.last().map(|i| i + 1) == Some(self.subq.frames.len());
        let scope = cx.scope;
        self.subq.semi_in_where = select_outer.then_some(super::semi_select::Reads {
            having: false,
            exists: reader == Reader::Exists,
        });
        let sub = self.bind_subquery(query, Some(scope), reader, span);
        self.subq.semi_in_where = None;
        let mut sub = sub?;
        if reader == Reader::Exists {
            // EXISTS does not read its SELECT list (`semi_select.rs`).
            sub.items.clear();
        }
        // An EXISTS over an aggregate without GROUP BY is a constant
        // (`exists_mark`), which Flink plans beside a VALUES (probe V101).
        if !(reader == Reader::Exists && sub.global_aggregate) {
            self.note_correlate(&sub, span);
        }
        if !sub.corr.is_empty() {
            if grouped {
                self.check_grouped_correlation(&sub, cx, what, span)?;
            }
            if sub.global_aggregate && reader != Reader::Exists {
                return Err(Diagnostic::unsupported(
                    span,
                    &format!("a correlated {what} over an aggregate without GROUP BY"),
                ));
            }
        }
        let pairs = correlation_pairs(
            &sub,
            scope.columns.len(),
            &format!("an {what} inside an expression"),
            span,
        );
        Ok((sub, pairs))
    }

    /// Registers a mark: its joins, built by `build` from the rows it reads,
    /// and its value.
    fn push_mark(&mut self, rows: MarkRows, build: JoinBuilder, value: Expr) -> Expr {
        match rows.source {
            Source::Sub(rel) => {
                let placeholder = self.push_pending(build(rel), value);
                if let Some(g) = rows.generator {
                    self.set_pending_generator(g);
                }
                placeholder
            }
            Source::OverInput(mut spec) => {
                let placeholder = self.push_pending(Vec::new(), value);
                spec.build = Some(build);
                let frame = self
                    .subq
                    .frames
                    .last_mut()
                    .and_then(Option::as_mut)
                    .expect("checked by mark_subquery");
                frame.last_mut().expect("just pushed").over_input = Some(spec);
                placeholder
            }
        }
    }

    /// `[NOT] EXISTS (query)` as a BOOLEAN value (NOT NULL).
    pub(crate) fn exists_mark(
        &mut self,
        query: &sql::Query,
        negate: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        // Its rows are only counted: a nested subquery may refer past it,
        // and its SELECT list may read the enclosing query (not read).
        let (sub, pairs) =
            self.mark_subquery(query, "EXISTS subquery", Reader::Exists, true, cx, span)?;
        if sub.global_aggregate && !sub.corr.is_empty() {
            // One row for every enclosing row (probe C77, C91).
            return Ok(boolean(Some(!negate), span));
        }
        let mut rows = mark_rows(sub, pairs, cx.scope.columns.len(), span)?;
        let pairs = std::mem::take(&mut rows.pairs);
        let keys: Vec<usize> = pairs.iter().map(|(k, _)| *k).collect();
        let m = keys.len();
        let found = if m == 0 {
            let c = column(SUB, bigint(false), span);
            let zero = Expr {
                kind: ExprKind::Literal(Literal::Integer(0)),
                ty: bigint(false),
                span,
            };
            binary(BinaryOp::Gt, c, zero, span)
        } else {
            unary(
                UnaryOp::IsNotNull,
                column(SUB + m, bigint(true), span),
                span,
            )
        };
        let build: JoinBuilder = Box::new(move |rel| {
            let counts = aggregate(rel, keys, vec![count(Vec::new(), "$c")], span);
            vec![if m == 0 {
                (JoinKind::Inner, counts, true_literal(span))
            } else {
                let condition = and_all(keys_condition(&pairs, &counts, 0, 0, span), span);
                (JoinKind::Left, counts, condition)
            }]
        });
        Ok(self.push_mark(rows, build, negated(found, negate, span)))
    }

    /// `x [NOT] IN (query)` as a BOOLEAN value, with SQL's NULL rules.
    pub(crate) fn in_mark(
        &mut self,
        operand: &sql::Expr,
        query: &sql::Query,
        negate: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let x = self.mark_operand(operand, cx, span)?;
        // (Not observed on Flink 2.3 with a nested subquery that refers past it.)
        // Where only TRUE counts, its SELECT list may read the enclosing
        // query (`semi_select.rs`).
        let select_outer = !negate && self.is_positive(query);
        let (sub, pairs) =
            self.mark_subquery(query, "IN subquery", Reader::Value, select_outer, cx, span)?;
        one_column(&sub, span)?;
        let y_ty = sub.rel.schema[0].ty;
        let mut rows = mark_rows(sub, pairs, cx.scope.columns.len(), span)?;
        let (y_at, pairs) = (rows.y, std::mem::take(&mut rows.pairs));
        let keys: Vec<usize> = pairs.iter().map(|(k, _)| *k).collect();
        let m = keys.len();
        let simple = !x.ty.nullable && !y_ty.nullable;
        // Where the distinct keys' columns start among `SUB + k`.
        let base = if simple { 0 } else { m + 2 };
        let y = column(SUB + base, DataType::new(y_ty.kind, true), span);
        let x_is_y = self.comparison(BinaryOp::Eq, x.clone(), y.clone(), span)?;
        let found = unary(UnaryOp::IsNotNull, y, span);
        let value = if simple {
            found
        } else {
            let c = column(SUB + m, bigint(m > 0), span);
            let ck = column(SUB + m + 1, bigint(m > 0), span);
            // Correlated, `$c` is NULL for a key without rows: `$c = 0` is
            // then NULL, not TRUE, and a NULL `x` gives NULL, not FALSE.
            // That is Calcite's rewrite and Flink's result, though SQL says
            // `NULL IN (<empty set>)` is FALSE.
            let zero = Expr {
                kind: ExprKind::Literal(Literal::Integer(0)),
                ty: bigint(false),
                span,
            };
            let empty = binary(BinaryOp::Eq, c.clone(), zero, span);
            let mut branches = vec![
                (empty, boolean(Some(false), span)),
                (found, boolean(Some(true), span)),
            ];
            if x.ty.nullable {
                branches.push((unary(UnaryOp::IsNull, x, span), boolean(None, span)));
            }
            if y_ty.nullable {
                branches.push((binary(BinaryOp::Lt, ck, c, span), boolean(None, span)));
            }
            Expr {
                kind: ExprKind::Case {
                    branches,
                    otherwise: Some(Box::new(boolean(Some(false), span))),
                },
                ty: DataType::new(TypeKind::Boolean, true),
                span,
            }
        };
        let build: JoinBuilder = Box::new(move |rel| {
            let mut joins = Vec::new();
            if !simple {
                let counts = aggregate(
                    rel.clone(),
                    keys.clone(),
                    vec![count(Vec::new(), "$c"), count(vec![y_at], "$ck")],
                    span,
                );
                joins.push(if m == 0 {
                    (JoinKind::Inner, counts, true_literal(span))
                } else {
                    let condition = and_all(keys_condition(&pairs, &counts, 0, 0, span), span);
                    (JoinKind::Left, counts, condition)
                });
            }
            let mut group = vec![y_at];
            group.extend(&keys);
            let distinct = aggregate(rel, group, Vec::new(), span);
            let mut condition = vec![x_is_y];
            condition.extend(keys_condition(&pairs, &distinct, 1, base, span));
            joins.push((JoinKind::Left, distinct, and_all(condition, span)));
            joins
        });
        Ok(self.push_mark(rows, build, negated(value, negate, span)))
    }

    /// `(x1, x2, ...) IN (query)` inside an expression, where only TRUE
    /// counts (a WHERE or CASE WHEN condition through AND / OR:
    /// `semi_select::positive_queries`): TRUE when a row of the subquery
    /// equals the operand field by field, else FALSE (SQL's NULL there
    /// means the same). Flink 2.3 computes these right and fails on a row
    /// IN as a value (`docs/flink-observed/row-in-subquery/RESULTS.md`).
    pub(crate) fn row_in_mark(
        &mut self,
        fields: &[sql::Expr],
        query: &sql::Query,
        negate: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        if negate || !self.is_positive(query) {
            return Err(Diagnostic::unsupported(
                span,
                "a row value IN a subquery inside an expression, other than a WHERE or CASE WHEN condition",
            )
            .with_note("Flink 2.3 fails on a row IN as a value (`We now only support ...`); under OR or in CASE WHEN it is supported"));
        }
        let xs = fields
            .iter()
            .map(|f| self.mark_operand(f, cx, span))
            .collect::<BResult<Vec<Expr>>>()?;
        let (sub, pairs) =
            self.mark_subquery(query, "IN subquery", Reader::Value, false, cx, span)?;
        if pairs.is_err() {
            // Observed (row-in-subquery M4): Flink repeats enclosing rows.
            return Err(Diagnostic::unsupported(
                span,
                "a row value IN a subquery correlated by more than `inner = outer`, inside an expression",
            )
            .with_note("Flink 2.3 returns an enclosing row once per matching subquery row there (observed: `k = 4 OR (k, v + 5) IN (SELECT k, w FROM u WHERE u.w < t.v + 10)`)"));
        }
        if sub.visible != xs.len() {
            // Flink's message.
            return Err(Diagnostic::error(
                span,
                "Values passed to IN operator must have compatible types",
            )
            .with_note(format!(
                "the row has {} fields and the subquery returns {} columns",
                xs.len(),
                sub.visible
            )));
        }
        let types: Vec<DataType> = (0..xs.len())
            .map(|i| DataType::new(sub.rel.schema[i].ty.kind, true))
            .collect();
        let mut rows = mark_rows(sub, pairs, cx.scope.columns.len(), span)?;
        let (y_at, pairs) = (rows.y, std::mem::take(&mut rows.pairs));
        let keys: Vec<usize> = pairs.iter().map(|(k, _)| *k).collect();
        let width = xs.len();
        let mut matches = Vec::with_capacity(width);
        for (i, x) in xs.into_iter().enumerate() {
            matches.push(self.comparison(
                BinaryOp::Eq,
                x,
                column(SUB + i, types[i], span),
                span,
            )?);
        }
        let found = unary(UnaryOp::IsNotNull, column(SUB, types[0], span), span);
        let build: JoinBuilder = Box::new(move |rel| {
            let mut group: Vec<usize> = (y_at..y_at + width).collect();
            group.extend(&keys);
            let distinct = aggregate(rel, group, Vec::new(), span);
            let mut condition = matches;
            condition.extend(keys_condition(&pairs, &distinct, width, 0, span));
            vec![(JoinKind::Left, distinct, and_all(condition, span))]
        });
        Ok(self.push_mark(rows, build, found))
    }

    /// `x op SOME (query)` (`ANY`), and `x op ALL (query)` as
    /// `NOT (x negated-op SOME (query))`, for `op` other than `=` (IN): the
    /// subquery's `MIN(y)` / `MAX(y)` decide it, as in Calcite's rewrite.
    pub(crate) fn quantified_mark(
        &mut self,
        operand: &sql::Expr,
        op: BinaryOp,
        all: bool,
        query: &sql::Query,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let x = self.mark_operand(operand, cx, span)?;
        let reader = if matches!(op, BinaryOp::Eq | BinaryOp::NotEq) {
            Reader::Value
        } else {
            Reader::Ordered
        };
        let select_outer = !all && self.is_positive(query);
        let (sub, pairs) = self.mark_subquery(
            query,
            "ANY, SOME or ALL subquery",
            reader,
            select_outer,
            cx,
            span,
        )?;
        one_column(&sub, span)?;
        // `x op ALL s` is `NOT (x op' SOME s)`, op' the negated comparison.
        let op = if all { super::negate(op) } else { op };
        if op == BinaryOp::NotEq {
            // Flink 2.3 computes these wrongly inside expressions.
            return Err(Diagnostic::unsupported(
                span,
                "`<> ANY`, `<> SOME` and `= ALL (subquery)` inside an expression",
            )
            .with_note(
                "Flink 2.3 gives wrong results there (`1 <> ANY (SELECT 1)` is TRUE, `1 = ALL (SELECT 1)` FALSE); as WHERE conjuncts they are supported",
            ));
        }
        let y_ty = DataType::new(sub.rel.schema[0].ty.kind, true);
        let mut rows = mark_rows(sub, pairs, cx.scope.columns.len(), span)?;
        let (y_at, pairs) = (rows.y, std::mem::take(&mut rows.pairs));
        let keys: Vec<usize> = pairs.iter().map(|(k, _)| *k).collect();
        let m = keys.len();
        // `x < SOME s` iff `x < MAX(s)`, `x > SOME s` iff `x > MIN(s)`.
        let extreme = match op {
            BinaryOp::Lt | BinaryOp::LtEq => AggregateFunction::Max,
            _ => AggregateFunction::Min,
        };
        let c = column(SUB + m, bigint(m > 0), span);
        let ck = column(SUB + m + 1, bigint(m > 0), span);
        let empty = if m == 0 {
            let zero = Expr {
                kind: ExprKind::Literal(Literal::Integer(0)),
                ty: bigint(false),
                span,
            };
            binary(BinaryOp::Eq, c.clone(), zero, span)
        } else {
            unary(UnaryOp::IsNull, c.clone(), span)
        };
        let some = self.comparison(op, x.clone(), column(SUB + m + 2, y_ty, span), span)?;
        let value = Expr {
            kind: ExprKind::Case {
                branches: vec![
                    (empty, boolean(Some(false), span)),
                    (
                        unary(UnaryOp::IsTrue, some, span),
                        boolean(Some(true), span),
                    ),
                    (unary(UnaryOp::IsNull, x, span), boolean(None, span)),
                    (binary(BinaryOp::Lt, ck, c, span), boolean(None, span)),
                ],
                otherwise: Some(Box::new(boolean(Some(false), span))),
            },
            ty: DataType::new(TypeKind::Boolean, true),
            span,
        };
        let build: JoinBuilder = Box::new(move |rel| {
            let calls = vec![
                count(Vec::new(), "$c"),
                count(vec![y_at], "$ck"),
                AggregateCall {
                    function: extreme,
                    distinct: false,
                    args: vec![y_at],
                    filter: None,
                    ty: y_ty,
                    separator: None,
                    name: "$m".to_string(),
                },
            ];
            let flags = aggregate(rel, keys, calls, span);
            vec![if m == 0 {
                (JoinKind::Inner, flags, true_literal(span))
            } else {
                let condition = and_all(keys_condition(&pairs, &flags, 0, 0, span), span);
                (JoinKind::Left, flags, condition)
            }]
        });
        Ok(self.push_mark(rows, build, negated(value, all, span)))
    }

    /// The operand of IN or a quantified comparison, over the clause's scope.
    fn mark_operand(
        &mut self,
        operand: &sql::Expr,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        // A scalar subquery in it joins first; its value is read from its
        // columns (`apply_pending`), as Flink 2.3 computes (probe C76, C86,
        // C87).
        let x = self.bind_expr(operand, cx, span)?;
        if any_column(&x, &|c| (OUTER..VALUE).contains(&c)) {
            return Err(Diagnostic::unsupported(
                x.span,
                "a subquery predicate whose operand refers to an enclosing query",
            ));
        }
        Ok(x)
    }
}

/// Builds a mark's joins from the rows it reads.
type JoinBuilder = Box<dyn FnOnce(Rel) -> Vec<(JoinKind, Rel, Expr)>>;

/// The rows a mark reads: its value column `y` (IN and the comparisons),
/// correlation pairs (a key column of the rows, the enclosing expression)
/// and where the rows come from.
struct MarkRows {
    y: usize,
    pairs: Pairs,
    source: Source,
    /// The value generator the subquery's rows hold (`generator.rs`): an
    /// aggregating subquery correlated by more than keys.
    generator: Option<Generator>,
}

enum Source {
    /// The subquery's own rows.
    Sub(Rel),
    /// The subquery joined with the clause's input values, at frame close.
    OverInput(OverInput),
}

/// The rows a mark's aggregates read: the subquery itself when its
/// correlation is `inner = outer` keys (`pairs` are then its key columns),
/// otherwise the subquery joined with the clause's input values (see
/// `over_input`), whose keys are its first columns.
fn mark_rows(
    mut sub: BoundSub,
    pairs: BResult<Pairs>,
    width: usize,
    span: Span,
) -> BResult<MarkRows> {
    if !sub.items.is_empty() {
        // The value reads the enclosing row: computed over `u ++ sub`.
        let refusal = Diagnostic::unsupported(
            span,
            "an IN or ANY subquery inside an expression whose SELECT list refers two or more levels out",
        );
        return over_input(sub, refusal, width, span);
    }
    match pairs {
        Ok(pairs) => Ok(MarkRows {
            y: 0,
            pairs,
            generator: sub.generator.take(),
            source: Source::Sub(sub.rel),
        }),
        Err(refusal) => over_input(sub, refusal, width, span),
    }
}

/// A mark whose subquery is correlated by more than `inner = outer` keys
/// (`o.amount > c.credit`): the distinct values of the enclosing columns it
/// uses (`u`) are joined with the subquery on its whole correlation
/// condition, as Calcite's decorrelator does with its value generator; the
/// mark's aggregates then group those rows by `u` (the rows' first columns),
/// and its joins meet the clause's rows on `u`. A NULL in `u` matches
/// nothing: the subquery has no rows there, which is right only when the
/// correlation cannot be TRUE for a NULL (`null_rejecting.rs`). `refusal`
/// says why the keys alone do not do.
fn over_input(
    mut sub: BoundSub,
    refusal: Diagnostic,
    width: usize,
    span: Span,
) -> BResult<MarkRows> {
    // The SELECT item that reads the enclosing query (`semi_select.rs`).
    let item = sub.items.drain(..).find(|(k, _)| *k == 0).map(|(_, e)| e);
    if any_column_of(&sub.corr, width)
        || item
            .iter()
            .any(|e| any_column_of(std::slice::from_ref(e), width))
    {
        return Err(refusal.with_note(
            "an EXISTS, IN or quantified comparison inside an expression (under OR, in CASE) that refers two or more levels out: Flink 2.3 returns wrong rows for it there",
        ));
    }
    // Decorrelated through the distinct enclosing values, as Flink does:
    // right only where a NULL among them cannot satisfy the condition.
    super::null_rejecting::check(&sub.corr)?;
    if let Some(e) = &item {
        super::semi_select::check_strict_item(e)?;
    }
    let mut outer: Vec<(usize, DataType)> = Vec::new();
    for c in sub.corr.iter().chain(&item) {
        crate::ir::visit(c, &mut |x| {
            if let ExprKind::Column(i) = x.kind {
                if i >= OUTER && !outer.iter().any(|(o, _)| *o == i - OUTER) {
                    outer.push((i - OUTER, x.ty));
                }
            }
        });
    }
    outer.sort_unstable_by_key(|(o, _)| *o);
    let pairs = outer
        .iter()
        .enumerate()
        .map(|(g, &(o, ty))| (g, column(OUTER + o, ty, span)))
        .collect();
    // The item is appended to the `u ++ sub` rows.
    let y = outer.len()
        + if item.is_some() {
            sub.rel.schema.len()
        } else {
            0
        };
    Ok(MarkRows {
        y,
        pairs,
        generator: None,
        source: Source::OverInput(OverInput {
            sub: sub.rel,
            corr: sub.corr,
            outer: outer.into_iter().map(|(o, _)| o).collect(),
            item,
            span,
            build: None,
        }),
    })
}

/// A mark whose joins are built from the clause's input (see `over_input`).
pub(super) struct OverInput {
    sub: Rel,
    /// Over `OUTER + i` (input column `i`) and `sub`'s columns.
    corr: Vec<Expr>,
    /// The input columns the correlation (and `item`) use, ascending.
    outer: Vec<usize>,
    /// The IN / ANY value when it reads the enclosing query (over `OUTER +
    /// i` and `sub`'s columns), appended to the joined rows.
    item: Option<Expr>,
    span: Span,
    /// The mark's joins over `u ++ sub` rows (set by `push_mark`).
    build: Option<JoinBuilder>,
}

impl OverInput {
    /// The mark's joins for the clause's `input`: the rows are the distinct
    /// `u` of `input` joined with the subquery.
    pub(super) fn joins(self, input: &Rel) -> Vec<(JoinKind, Rel, Expr)> {
        let span = self.span;
        let m = self.outer.len();
        let exprs = self
            .outer
            .iter()
            .map(|&c| column(c, input.schema[c].ty, span))
            .collect();
        let names = self
            .outer
            .iter()
            .map(|&c| input.schema[c].name.clone())
            .collect();
        let values = crate::binder::query::distinct_of(crate::binder::query::project(
            input.clone(),
            exprs,
            names,
            span,
        ));
        let outer = &self.outer;
        let over_joined = |c: Expr| {
            remap(c, &|i| {
                if i >= OUTER {
                    outer
                        .iter()
                        .position(|&o| o == i - OUTER)
                        .expect("collected")
                } else {
                    m + i
                }
            })
        };
        let condition = and_all(self.corr.into_iter().map(over_joined).collect(), span);
        let mut joined = super::join(JoinKind::Inner, values, self.sub, condition);
        if let Some(item) = self.item {
            let mut exprs: Vec<Expr> = joined
                .schema
                .iter()
                .enumerate()
                .map(|(i, f)| column(i, f.ty, span))
                .collect();
            let mut names: Vec<String> = joined.schema.iter().map(|f| f.name.clone()).collect();
            exprs.push(over_joined(item));
            names.push("$item".to_string());
            joined = crate::binder::query::project(joined, exprs, names, span);
        }
        let build = self.build.expect("set by push_mark");
        build(joined)
    }
}

/// Whether a conjunct refers to a query two or more levels out (beyond the
/// enclosing scope's `width` columns).
fn any_column_of(corr: &[Expr], width: usize) -> bool {
    corr.iter()
        .any(|c| any_column(c, &|i| i >= OUTER && i - OUTER >= width))
}
