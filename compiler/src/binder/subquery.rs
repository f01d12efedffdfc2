//! Subqueries, decorrelated while they bind (as Calcite's SubQueryRemoveRule
//! and decorrelator do for Flink), so that the planner sees plain joins:
//!
//! - `EXISTS` / `NOT EXISTS`, `x IN` / `x NOT IN (subquery)` and the
//!   quantified comparisons `x op ANY|SOME|ALL (subquery)`, each as a
//!   conjunct of WHERE, become a semi join (`EXISTS`, `IN`, `op ANY`) or an
//!   anti join (`NOT EXISTS`, `NOT IN`, `op ALL`) of the query's input with
//!   the subquery, on the subquery's correlation conditions and, for `IN` and
//!   the comparisons, `x op y` (semi) or `(x op y) IS NOT TRUE` (anti): a row
//!   is kept by `x NOT IN (...)` only when no row of the set compares TRUE or
//!   NULL with it, which is SQL's NULL rule.
//!   An uncorrelated `NOT IN` / `<> ALL` over nullable values is instead a
//!   NULL-aware hash anti join (`not_in.rs`). Inside other expressions
//!   (under OR, in CASE, in the SELECT list) they are BOOLEAN values read
//!   from left joins with the subquery's distinct keys and counts
//!   (`mark.rs`).
//! - A scalar subquery `(SELECT ...)` becomes a join that appends its value:
//!   uncorrelated, an inner join with its one row (a global aggregate has
//!   exactly one; anything else goes through `SINGLE_VALUE`, which fails at
//!   run time on a second row with Flink's message); correlated, a left join
//!   with the subquery grouped by its correlation columns, and where the
//!   value over no rows is not NULL (`COUNT`), a CASE gives the value of an
//!   empty group (Calcite's "count bug").
//!
//! Correlation: the WHERE clause of a subquery (a plain SELECT) may refer to
//! the columns of the enclosing query; its conjuncts that do are taken out of
//! the subquery and become the join condition, the subquery's columns they use
//! are appended to its output (grouped by, when it aggregates). A nested
//! subquery may refer to a query more than one level out where its enclosing
//! subquery is only tested for existence (`subquery/nested.rs`). In a grouped
//! SELECT or HAVING, the correlation is on grouped columns
//! (`subquery/grouped.rs`).

use sqlparser::ast::{self as sql, BinaryOperator, SetExpr};

use super::expr::ExprCx;
use super::query::filter;
use super::scope::Scope;
use super::{cast_to, Binder};
use crate::diagnostics::{Diagnostic, Span};
use crate::functions::AggregateFunction;
use crate::ir::{
    map_children, visit, AggregateCall, BinaryOp, Expr, ExprKind, Field, JoinKind, Literal, Rel,
    RelKind, UnaryOp,
};
use crate::types::{DataType, TypeKind};

type BResult<T> = Result<T, Diagnostic>;

pub(crate) mod empty_group;
mod generator;
mod grouped;
mod mark;
mod nested;
mod not_in;
mod null_rejecting;
mod pre_aggregate;
pub(crate) mod select_outer;
pub(crate) mod semi_select;
pub(crate) use semi_select::reads_outer;
pub(crate) mod values_from;

/// Column numbers at and above this refer to the enclosing query's scope
/// (`OUTER + i` is its column `i`), while a correlated WHERE binds.
pub(crate) const OUTER: usize = 1 << 40;
/// Column numbers at and above this are the values of scalar subqueries
/// (`VALUE + k`), until their joins are applied.
pub(crate) const VALUE: usize = 1 << 41;
/// Column numbers at and above this are a pending subquery's own columns.
const SUB: usize = 1 << 42;

#[derive(Default)]
pub(crate) struct SubqueryState {
    /// Where scalar subqueries register their joins: `None` is a barrier
    /// (a clause that takes no subqueries).
    frames: Vec<Option<Vec<Pending>>>,
    /// Indices of the frames of grouped clauses (SELECT and HAVING after
    /// GROUP BY): their subqueries join the aggregate's rows, so their
    /// correlation must read grouped columns (`grouped.rs`).
    grouped_frames: Vec<usize>,
    /// The enclosing query's scope, for the next plain SELECT that binds as
    /// a correlated subquery.
    correlation: Option<Scope>,
    /// What that SELECT found (output-relative correlation conjuncts).
    result: Option<Correlated>,
    /// The enclosing scope while a correlated WHERE binds.
    resolving_outer: Option<Scope>,
    /// A scalar subquery in a SELECT list binds next: its SELECT list may
    /// read the enclosing query (`select_outer.rs`).
    scalar_in_select: bool,
    /// The next SELECT that takes the correlation is such a subquery's.
    allow_select_outer: bool,
    /// A subquery tested by a semi or anti join binds next: its SELECT
    /// list may read the enclosing query (`semi_select.rs`); `Some(true)`:
    /// so may its HAVING's aggregate arguments (`select_outer.rs`), not
    /// for a mark's subquery (`Some(false)`).
    semi_in_where: Option<semi_select::Reads>,
    /// The next SELECT that takes the correlation is such a subquery's.
    allow_semi_select: Option<semi_select::Reads>,
    /// Addresses of the `IN` / `op ANY` subqueries whose value the WHERE
    /// or CASE WHEN condition that binds only tests for TRUE
    /// (`semi_select::positive_queries`).
    positive: Vec<usize>,
    /// The enclosing columns of `select_extra` are read by HAVING.
    select_extra_having: bool,
    /// The enclosing columns its SELECT list reads, for the generator.
    select_extra: Vec<(usize, DataType)>,
    /// One of them its WHERE's correlation reads too.
    select_extra_in_where: bool,
    /// While that SELECT list binds: where those columns are.
    pub(crate) select_outer: Option<select_outer::SelectOuter>,
    /// The scopes of the queries enclosing the subqueries being bound,
    /// innermost last: only to name a reference to them that is refused.
    enclosing: Vec<(Scope, bool)>,
    /// Per subquery being bound: how its rows are read, which says whether
    /// a nested subquery may refer past it (`nested.rs`).
    readers: Vec<nested::Reader>,
    /// The WHERE just bound joined a nested subquery that refers past this
    /// query (`nested.rs`): its rows are no longer one per input row.
    lifted: bool,
    /// The value generator the WHERE just bound joined in (`generator.rs`).
    generator: Option<generator::Generator>,
    /// Semi joins of nested subqueries that refer past the scalar subquery
    /// whose WHERE binds, applied once its value generator is joined in
    /// (`nested.rs`).
    deferred: Vec<nested::Deferred>,
    /// WHERE conjuncts of that subquery whose scalar subqueries refer past
    /// it, applied once its value generator is joined in (`nested.rs`).
    deferred_conjuncts: Vec<nested::DeferredConjunct>,
    /// The WHERE that binds is a correlated subquery's whose SELECT
    /// aggregates with GROUP BY (or HAVING, DISTINCT) where its rows are
    /// tested or compared (`nested.rs`).
    where_groups: bool,
    /// The depth of the frame of the correlated WHERE conjunct that binds,
    /// where a scalar subquery may refer past that WHERE's query
    /// (`nested::DeferredConjunct`).
    past_frame: Option<usize>,
    /// A nested subquery in the WHERE that binds refers to the outer query
    /// only (`nested::outer_only`): that WHERE must be correlated itself.
    outer_only: Option<Span>,
    /// A conjunct of the WHERE that binds reads the enclosing query.
    own_correlation: bool,
    next_generator: usize,
    next_value: usize,
    /// Per grouped SELECT being bound: the joins of subqueries in its
    /// GROUP BY keys and aggregate calls' arguments, for the aggregate's
    /// input (`pre_aggregate.rs`).
    pre_aggregate: Vec<Vec<Pending>>,
}

/// A subquery's joins (a scalar subquery has one, a mark subquery up to
/// two), waiting for the clause to finish.
struct Pending {
    value: usize,
    /// Applied in order. Their conditions are over input columns and
    /// `SUB + k`, the columns of the joined subqueries in order (the first
    /// join's right side, then the second's).
    joins: Vec<(JoinKind, Rel, Expr)>,
    /// The subquery's value, over input columns and `SUB + k`.
    expr: Expr,
    /// Joins that are built from the clause's input itself (`mark.rs`: an
    /// EXISTS whose correlation is not only `inner = outer`), instead of
    /// `joins`.
    over_input: Option<mark::OverInput>,
    /// The placeholder inside `joins` to fill from the clause's input
    /// (`generator.rs`).
    generator: Option<generator::Generator>,
}

/// A correlated subquery's shape, from its SELECT.
#[derive(Clone, Debug)]
pub(crate) struct Correlated {
    /// Over `OUTER + i` and the subquery's output columns.
    conjuncts: Vec<Expr>,
    /// The SELECT list's columns (the correlation columns follow).
    visible: usize,
    /// Aggregates without GROUP BY or HAVING: one row per correlation group.
    global_aggregate: bool,
    /// For a global aggregate: the value over no rows, per visible column.
    empty_values: Vec<Option<Expr>>,
    /// SELECT items that read the enclosing query, by position, over
    /// `OUTER + i` and the output columns (`semi_select.rs`).
    items: Vec<(usize, Expr)>,
}

struct BoundSub {
    rel: Rel,
    visible: usize,
    corr: Vec<Expr>,
    global_aggregate: bool,
    empty_values: Vec<Option<Expr>>,
    generator: Option<generator::Generator>,
    /// As [`Correlated::items`].
    items: Vec<(usize, Expr)>,
}

fn max_column(e: &Expr) -> Option<usize> {
    let mut m = None;
    visit(e, &mut |x| {
        if let ExprKind::Column(c) = x.kind {
            m = Some(m.map_or(c, |v: usize| v.max(c)));
        }
    });
    m
}

fn any_column(e: &Expr, f: &dyn Fn(usize) -> bool) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if let ExprKind::Column(c) = x.kind {
            found |= f(c);
        }
    });
    found
}

pub(crate) fn remap(mut e: Expr, f: &dyn Fn(usize) -> usize) -> Expr {
    if let ExprKind::Column(c) = &mut e.kind {
        *c = f(*c);
        return e;
    }
    map_children(&mut e, &mut |child| {
        *child = remap(std::mem::replace(child, true_literal(Span::default())), f)
    });
    e
}

/// `e` with each column `c` for which `f` gives a value replaced by it.
fn replace(mut e: Expr, f: &dyn Fn(usize) -> Option<Expr>) -> Expr {
    if let ExprKind::Column(c) = e.kind {
        if let Some(v) = f(c) {
            return v;
        }
        return e;
    }
    map_children(&mut e, &mut |child| {
        *child = replace(std::mem::replace(child, true_literal(Span::default())), f)
    });
    e
}

fn boolean_literal(value: bool, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Boolean(value)),
        ty: DataType::not_null(TypeKind::Boolean),
        span,
    }
}

fn true_literal(span: Span) -> Expr {
    boolean_literal(true, span)
}

fn and(l: Expr, r: Expr) -> Expr {
    let span = l.span;
    Expr {
        ty: DataType::new(TypeKind::Boolean, l.ty.nullable || r.ty.nullable),
        kind: ExprKind::Binary {
            op: BinaryOp::And,
            left: Box::new(l),
            right: Box::new(r),
        },
        span,
    }
}

fn and_all(parts: Vec<Expr>, span: Span) -> Expr {
    parts
        .into_iter()
        .reduce(and)
        .unwrap_or_else(|| true_literal(span))
}

fn column(i: usize, ty: DataType, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Column(i),
        ty,
        span,
    }
}

/// Whether a condition's source text may hold a subquery (it has SELECT,
/// VALUES or TABLE; a false positive only takes the conjunct-by-conjunct
/// path). The text is read from the file: no walk over a deep expression.
fn may_hold_subquery(text: &str) -> bool {
    let text = text.to_ascii_uppercase();
    text.contains("SELECT") || text.contains("VALUES") || text.contains("TABLE")
}

/// The conjuncts of a bound AND chain.
fn split_and(e: Expr) -> Vec<Expr> {
    match e.kind {
        ExprKind::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            let mut out = split_and(*left);
            out.extend(split_and(*right));
            out
        }
        _ => vec![e],
    }
}

fn conjuncts_of<'q>(e: &'q sql::Expr, out: &mut Vec<&'q sql::Expr>) {
    match e {
        sql::Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts_of(left, out);
            conjuncts_of(right, out);
        }
        sql::Expr::Nested(inner)
            if matches!(
                **inner,
                sql::Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            conjuncts_of(inner, out)
        }
        _ => out.push(e),
    }
}

/// A WHERE conjunct that is a subquery predicate: (negated, operand and
/// comparison, subquery). `x IN` is `x = ANY`, `x NOT IN` is `x <> ALL`.
enum Predicate<'q> {
    Exists {
        negated: bool,
        query: &'q sql::Query,
    },
    Quantified {
        operand: &'q sql::Expr,
        op: BinaryOp,
        all: bool,
        query: &'q sql::Query,
    },
}

pub(crate) fn comparison_op(op: &BinaryOperator) -> Option<BinaryOp> {
    Some(match op {
        BinaryOperator::Eq => BinaryOp::Eq,
        BinaryOperator::NotEq => BinaryOp::NotEq,
        BinaryOperator::Lt => BinaryOp::Lt,
        BinaryOperator::LtEq => BinaryOp::LtEq,
        BinaryOperator::Gt => BinaryOp::Gt,
        BinaryOperator::GtEq => BinaryOp::GtEq,
        _ => return None,
    })
}

fn predicate(e: &sql::Expr) -> Option<Predicate<'_>> {
    match e {
        sql::Expr::Nested(inner) => predicate(inner),
        sql::Expr::Exists { subquery, negated } => Some(Predicate::Exists {
            negated: *negated,
            query: subquery,
        }),
        sql::Expr::In {
            expr,
            target: sql::InTarget::Subquery(subquery),
            negated,
            ..
        } => Some(Predicate::Quantified {
            operand: expr,
            op: if *negated {
                BinaryOp::NotEq
            } else {
                BinaryOp::Eq
            },
            all: *negated,
            query: subquery,
        }),
        sql::Expr::AnyOp {
            left,
            compare_op,
            right,
            ..
        } => match (&**right, comparison_op(compare_op)) {
            (sql::Expr::Subquery(q), Some(op)) => Some(Predicate::Quantified {
                operand: left,
                op,
                all: false,
                query: q,
            }),
            _ => None,
        },
        sql::Expr::AllOp {
            left,
            compare_op,
            right,
        } => match (&**right, comparison_op(compare_op)) {
            (sql::Expr::Subquery(q), Some(op)) => Some(Predicate::Quantified {
                operand: left,
                op,
                all: true,
                query: q,
            }),
            _ => None,
        },
        sql::Expr::UnaryOp {
            op: sql::UnaryOperator::Not,
            expr,
        } => match predicate(expr)? {
            Predicate::Exists { negated, query } => Some(Predicate::Exists {
                negated: !negated,
                query,
            }),
            // NOT (x IN s) is x NOT IN s; other negated comparisons are not
            // rewritten (their NULL rules differ).
            Predicate::Quantified {
                operand,
                op: BinaryOp::Eq,
                all: false,
                query,
            } if matches!(
                strip_nested(expr),
                sql::Expr::In {
                    target: sql::InTarget::Subquery(_),
                    negated: false,
                    ..
                }
            ) =>
            {
                Some(Predicate::Quantified {
                    operand,
                    op: BinaryOp::NotEq,
                    all: true,
                    query,
                })
            }
            _ => None,
        },
        _ => None,
    }
}

fn strip_nested(e: &sql::Expr) -> &sql::Expr {
    match e {
        sql::Expr::Nested(inner) => strip_nested(inner),
        _ => e,
    }
}

/// The negation of a comparison operator.
fn negate(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Eq => BinaryOp::NotEq,
        BinaryOp::NotEq => BinaryOp::Eq,
        BinaryOp::Lt => BinaryOp::GtEq,
        BinaryOp::LtEq => BinaryOp::Gt,
        BinaryOp::Gt => BinaryOp::LtEq,
        BinaryOp::GtEq => BinaryOp::Lt,
        other => other,
    }
}

impl Binder<'_> {
    /// Opens a clause in which scalar subqueries may appear.
    pub(crate) fn open_subquery_frame(&mut self) {
        self.subq.frames.push(Some(Vec::new()));
    }

    /// Opens the frame of a grouped SELECT list and HAVING.
    pub(crate) fn open_grouped_subquery_frame(&mut self) {
        self.subq.grouped_frames.push(self.subq.frames.len());
        self.open_subquery_frame();
    }

    fn pop_frame(&mut self) -> Option<Option<Vec<Pending>>> {
        if self.subq.grouped_frames.last() == Some(&(self.subq.frames.len().wrapping_sub(1))) {
            self.subq.grouped_frames.pop();
        }
        self.subq.frames.pop()
    }

    /// Opens a clause in which they may not (its expressions stay local).
    pub(crate) fn open_subquery_barrier(&mut self) {
        self.subq.frames.push(None);
    }

    pub(crate) fn close_subquery_barrier(&mut self) {
        self.pop_frame();
    }

    /// How many joins the current frame holds (to undo a trial binding).
    pub(crate) fn subquery_mark(&self) -> usize {
        match self.subq.frames.last() {
            Some(Some(f)) => f.len(),
            _ => 0,
        }
    }

    /// Whether a join registered in the current frame since `mark` reads
    /// the clause's input columns (not only its subquery's).
    pub(crate) fn subqueries_read_input(&self, mark: usize) -> bool {
        let Some(Some(f)) = self.subq.frames.last() else {
            return false;
        };
        f.iter().skip(mark).any(|p| {
            let reads = |e: &Expr| any_column(e, &|c| c < OUTER);
            // A join built from the input (`mark.rs`) reads it.
            p.over_input.is_some() || reads(&p.expr) || p.joins.iter().any(|(_, _, c)| reads(c))
        })
    }

    pub(crate) fn subquery_rewind(&mut self, mark: usize) {
        if let Some(Some(f)) = self.subq.frames.last_mut() {
            f.truncate(mark);
        }
    }

    /// Drops a frame after an error.
    pub(crate) fn drop_subquery_frame(&mut self) {
        self.pop_frame();
    }

    /// Closes a frame: joins its scalar subqueries to `input` and replaces
    /// their placeholders in `exprs` by their values.
    pub(crate) fn close_subquery_frame(&mut self, input: Rel, exprs: &mut [Expr]) -> Rel {
        let pending = self.pop_frame().flatten().unwrap_or_default();
        Self::apply_pending(pending, input, exprs)
    }

    /// Joins pending subqueries to `input` and replaces their placeholders
    /// in `exprs` by their values.
    fn apply_pending(pending: Vec<Pending>, mut input: Rel, exprs: &mut [Expr]) -> Rel {
        let mut values: Vec<(usize, Expr)> = Vec::new();
        // The clause's own input, before the joins below append columns.
        let clause_input = input.clone();
        for p in pending {
            let n = input.schema.len();
            let shift = |c: usize| if c >= SUB { n + (c - SUB) } else { c };
            let mut joins = match p.over_input {
                Some(d) => d.joins(&clause_input),
                None => p.joins,
            };
            if let Some(g) = &p.generator {
                for (_, rel, _) in &mut joins {
                    g.fill(rel, &clause_input);
                }
            }
            // A mark's operand may hold an earlier subquery's value
            // (`mark.rs`): read from the columns its join appended.
            let earlier = |e: Expr| {
                replace(e, &|c| {
                    values
                        .iter()
                        .find(|(v, _)| VALUE + v == c)
                        .map(|(_, e)| e.clone())
                })
            };
            for (kind, rel, condition) in joins {
                input = join(kind, input, rel, earlier(remap(condition, &shift)));
            }
            let value = earlier(remap(p.expr, &shift));
            values.push((p.value, value));
        }
        if !values.is_empty() {
            for e in exprs.iter_mut() {
                let taken = std::mem::replace(e, true_literal(Span::default()));
                *e = replace(taken, &|c| {
                    values
                        .iter()
                        .find(|(v, _)| VALUE + v == c)
                        .map(|(_, e)| e.clone())
                });
            }
        }
        input
    }

    /// Closes the frame of a join's ON: its subqueries must not read the
    /// joined rows (uncorrelated scalar subqueries, EXISTS); their values are
    /// appended to `left`, and `condition`'s right-side columns move past
    /// them. Returns the widened left input and the condition.
    pub(crate) fn close_on_subqueries(
        &mut self,
        left: Rel,
        condition: Expr,
        span: Span,
    ) -> Option<(Rel, Expr)> {
        if self.subquery_mark() == 0 {
            self.pop_frame();
            return Some((left, condition));
        }
        if self.subqueries_read_input(0)
            || matches!(self.subq.frames.last(), Some(Some(f)) if f.iter().any(|p| p.over_input.is_some()))
        {
            self.pop_frame();
            self.error(Diagnostic::unsupported(
                span,
                "a subquery in ON that refers to the joined tables",
            ));
            return None;
        }
        let width = left.schema.len();
        // Right-side columns wait in the OUTER range (unused in ON) while
        // the left input widens.
        let parked = remap(condition, &|c| {
            if (width..VALUE).contains(&c) {
                OUTER + c
            } else {
                c
            }
        });
        let mut exprs = vec![parked];
        let left = self.close_subquery_frame(left, &mut exprs);
        let extra = left.schema.len() - width;
        let condition = remap(exprs.pop().expect("one"), &|c| {
            if (OUTER..VALUE).contains(&c) {
                c - OUTER + extra
            } else {
                c
            }
        });
        Some((left, condition))
    }

    /// Resolves a column of the enclosing query while a correlated WHERE
    /// binds (`OUTER + i`).
    pub(crate) fn resolve_outer(&self, parts: &[(&str, Span)]) -> Option<(usize, DataType)> {
        let outer = self.subq.resolving_outer.as_ref()?;
        outer.resolve(parts).ok().map(|(i, ty)| (OUTER + i, ty))
    }

    /// A column that the scope and the correlated WHERE's enclosing scope
    /// do not hold but an enclosing query's does: the message names the
    /// construct instead of saying the table does not exist.
    pub(crate) fn enclosing_reference(
        &self,
        parts: &[(&str, Span)],
        clause: &str,
    ) -> Option<Diagnostic> {
        let levels = self.subq.enclosing.len();
        let level = (0..levels)
            .rev()
            .find(|&l| self.subq.enclosing[l].0.resolve(parts).is_ok())?;
        let text: Vec<&str> = parts.iter().map(|p| p.0).collect();
        let span = parts[0].1.to(parts[parts.len() - 1].1);
        let clause = match clause {
            "SELECT" => "SELECT list",
            "an aggregate argument" => "aggregate arguments",
            c => c,
        };
        let column = text.join(".");
        Some(if level + 1 == levels && !self.subq.enclosing[level].1 {
            Diagnostic::unsupported(
                span,
                &format!("a reference to the enclosing query's `{column}` in a subquery with ORDER BY, LIMIT, WITH or a set operation"),
            )
            .with_note(
                "stmtc decorrelates a plain SELECT only; Flink 2.3 fails on a reference in such a subquery's ORDER BY (`unexpected correlate variable`)",
            )
        } else if level + 1 == levels {
            Diagnostic::unsupported(
                span,
                &format!("a reference to the enclosing query's `{column}` in a subquery's {clause}"),
            )
            .with_note(
                "a subquery may read the enclosing query in its WHERE; in its own SELECT list too when it is a scalar subquery in the enclosing SELECT list (an aggregate argument, or without aggregates), the subquery of EXISTS or NOT EXISTS, or, without aggregates, of IN or `op ANY` whose value only a WHERE or CASE WHEN condition tests (through AND and OR); stmtc refuses the other places, where Flink 2.3 often refuses, fails or returns wrong rows (docs/sql-reference/subqueries.md)",
            )
        } else {
            Diagnostic::unsupported(
                span,
                &format!(
                    "a reference to `{column}`, of a query two or more levels out, in a subquery's {clause}"
                ),
            )
            .with_note(
                "a nested subquery may refer past the query it is nested in only where docs/sql-reference/subqueries.md says",
            )
        })
    }

    /// For a scalar subquery's SELECT that starts binding (its FROM not yet
    /// bound): whether its SELECT list may read the enclosing query.
    pub(crate) fn take_allow_select_outer(&mut self) -> bool {
        std::mem::take(&mut self.subq.allow_select_outer)
    }

    /// Before a subquery's WHERE binds: the enclosing columns its SELECT
    /// list reads (`select_outer.rs`), to be generated with the WHERE's.
    pub(crate) fn begin_select_outer(&mut self, select: &sql::Select, scope: &Scope) -> bool {
        let Some((enclosing, _)) = self.subq.enclosing.last() else {
            return false;
        };
        let found = select_outer::referenced(select, scope, enclosing);
        self.subq.select_extra = found.iter().map(|&(o, ty, _)| (o, ty)).collect();
        !found.is_empty()
    }

    /// Before the WHERE of a semi join's subquery with HAVING
    /// binds: the enclosing columns its HAVING's aggregate arguments read
    /// (`select_outer.rs`), to be generated with the WHERE's.
    pub(crate) fn begin_having_outer(&mut self, select: &sql::Select, scope: &Scope) -> bool {
        let Some((enclosing, _)) = self.subq.enclosing.last() else {
            return false;
        };
        let Some(having) = &select.having else {
            return false;
        };
        if semi_select::holds_subquery_in(having) {
            return false;
        }
        let found = select_outer::referenced_in(std::slice::from_ref(having), scope, enclosing);
        self.subq.select_extra = found.iter().map(|&(o, ty, _)| (o, ty)).collect();
        self.subq.select_extra_having = !found.is_empty();
        !found.is_empty()
    }

    /// After the WHERE bound (or without one): the generator joined in,
    /// the SELECT list reads the enclosing columns from its rows. Without
    /// a WHERE (or when it did not generate), generates here.
    pub(crate) fn generate_select_outer(
        &mut self,
        input: Rel,
        correlated: Vec<Expr>,
        aggregating: bool,
        span: Span,
    ) -> BResult<(Rel, Vec<Expr>)> {
        let extra = std::mem::take(&mut self.subq.select_extra);
        let in_where = std::mem::take(&mut self.subq.select_extra_in_where);
        if self.subq.select_extra_having && in_where {
            // Observed (C55): Flink 2.3 keeps rows whose HAVING is false.
            return Err(Diagnostic::unsupported(
                span,
                "a subquery whose HAVING reads an enclosing column that its WHERE correlates on",
            )
            .with_note("Flink 2.3 returns wrong rows for it (observed: `EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.k) > 3)`); it computes enclosing columns that the WHERE does not read right"));
        }
        // Observed (`select_outer.rs`): Flink 2.3 returns wrong rows for both
        // in a scalar subquery's SELECT list (right ones in HAVING, C56).
        if extra.len() > 1 && !self.subq.select_extra_having {
            return Err(Diagnostic::unsupported(
                span,
                "a subquery whose SELECT list reads two or more of the enclosing query's columns",
            )
            .with_note("Flink 2.3 returns wrong values for it (observed: `(SELECT MIN(u.w * t.k - t.v) FROM u WHERE u.k = t.k)`); it computes one enclosing column right"));
        }
        if in_where {
            return Err(Diagnostic::unsupported(
                span,
                "a subquery whose SELECT list reads an enclosing column that its WHERE correlates on",
            )
            .with_note("Flink 2.3 returns wrong values for it (observed: `(SELECT MAX(u.w + t.k) FROM u WHERE u.k = t.k)`); it computes an enclosing column that the WHERE does not read right"));
        }
        let (input, correlated) = if self.subq.generator.is_some() {
            (input, correlated)
        } else {
            if !correlated.is_empty() {
                // The WHERE's correlation went to a join of its own (a
                // subquery read other than as a scalar): not generated.
                return Err(Diagnostic::unsupported(
                    span,
                    "a reference to the enclosing query in the SELECT list of this subquery",
                ));
            }
            let id = self.subq.next_generator;
            self.subq.next_generator += 1;
            let (input, keys, g) =
                generator::generate(input, Vec::new(), Vec::new(), Vec::new(), id, &extra, span);
            self.subq.generator = Some(g);
            (input, keys)
        };
        let g = self.subq.generator.as_ref().expect("generated");
        let cols = extra
            .iter()
            .map(|&(o, ty)| {
                let p = g.outer.iter().position(|&x| x == o).expect("generated");
                (o, g.at + p, ty)
            })
            .collect();
        self.subq.select_outer = Some(select_outer::SelectOuter {
            scope: self
                .subq
                .enclosing
                .last()
                .map(|(s, _)| s.clone())
                .unwrap_or_default(),
            cols,
            aggregating,
            args_depth: 0,
            active: false,
            having: std::mem::take(&mut self.subq.select_extra_having),
        });
        Ok((input, correlated))
    }

    /// A column of the enclosing query read by the SELECT list that binds
    /// (`select_outer.rs`): the subquery row's column that holds it.
    pub(crate) fn resolve_select_outer(
        &self,
        parts: &[(&str, Span)],
        clause: &str,
        span: Span,
    ) -> Option<BResult<(usize, DataType)>> {
        let so = self.subq.select_outer.as_ref().filter(|s| s.active)?;
        let (o, _) = so.scope.resolve(parts).ok()?;
        let &(_, col, ty) = so.cols.iter().find(|(x, _, _)| *x == o)?;
        if so.aggregating && so.args_depth == 0 {
            if clause != "SELECT" {
                return None;
            }
            let text: Vec<&str> = parts.iter().map(|p| p.0).collect();
            // Flink's message.
            return Some(Err(Diagnostic::error(
                span,
                format!("Expression '{}' is not being grouped", text.join(".")),
            )
            .with_note(
                "in a subquery with aggregates, the enclosing query's columns may be read inside aggregate arguments only",
            )));
        }
        Some(Ok((col, ty)))
    }

    /// Marks the SELECT list of a subquery as binding (or done).
    pub(crate) fn set_select_outer_active(&mut self, active: bool) {
        if let Some(so) = &mut self.subq.select_outer {
            so.active = active;
        }
    }

    /// Marks the HAVING of a semi join's subquery that reads the enclosing
    /// query in aggregate arguments as binding (or done).
    pub(crate) fn set_having_outer_active(&mut self, active: bool) {
        if let Some(so) = self.subq.select_outer.as_mut().filter(|so| so.having) {
            so.active = active;
        }
    }

    /// Checks a bound HAVING that reads the enclosing query
    /// (`select_outer::check_having`).
    pub(crate) fn check_having_outer(
        &self,
        having: &Expr,
        grouping: &super::expr::Grouping,
    ) -> BResult<()> {
        match self.subq.select_outer.as_ref().filter(|so| so.having) {
            Some(so) => select_outer::check_having(having, grouping, so, &so.scope),
            None => Ok(()),
        }
    }

    /// Enters (or leaves) an aggregate call's arguments.
    pub(crate) fn select_outer_args(&mut self, enter: bool) {
        if let Some(so) = &mut self.subq.select_outer {
            if enter {
                so.args_depth += 1;
            } else {
                so.args_depth -= 1;
            }
        }
    }

    /// Checks a SELECT item or aggregate argument that may read the
    /// enclosing query's nullable columns (`select_outer.rs`).
    pub(crate) fn check_select_outer(&self, e: &Expr) -> BResult<()> {
        match &self.subq.select_outer {
            Some(so) if so.active => select_outer::check_strict(e, so, &so.scope),
            _ => Ok(()),
        }
    }

    /// Takes the correlation context for a SELECT that starts binding (only
    /// the subquery's own SELECT sees it, not its derived tables).
    pub(crate) fn take_correlation(&mut self) -> Option<Scope> {
        self.subq.correlation.take()
    }

    /// Binds WHERE: subquery predicates become semi/anti joins of `input`,
    /// scalar subqueries joins that append their value, other conjuncts
    /// filters. With `outer` (a correlated subquery's WHERE), conjuncts that
    /// refer to the enclosing query are returned instead; `aggregates` says
    /// whether the SELECT aggregates.
    /// The caller brackets it with [`Self::note_positive`] /
    /// [`Self::forget_positive`] (a WHERE condition is tested for TRUE).
    pub(crate) fn bind_where(
        &mut self,
        selection: &sql::Expr,
        input: Rel,
        scope: &Scope,
        outer: Option<&Scope>,
        aggregates: bool,
        span: Span,
    ) -> Option<(Rel, Vec<Expr>)> {
        let saved_groups = std::mem::replace(
            &mut self.subq.where_groups,
            outer.is_some()
                && aggregates
                && matches!(
                    self.subq.readers.last(),
                    Some(nested::Reader::Exists | nested::Reader::Scalar | nested::Reader::Ordered)
                ),
        );
        let saved_only = self.subq.outer_only.take();
        let saved_own = std::mem::take(&mut self.subq.own_correlation);
        let mut bound = self.bind_where_conjuncts(selection, input, scope, outer, aggregates, span);
        if let (Some(at), Some(_)) = (self.subq.outer_only, &bound) {
            if !self.subq.own_correlation {
                self.error(
                    Diagnostic::unsupported(
                        at,
                        "a nested subquery that refers to a query two or more levels out but not to the query it is nested in, where that query is not correlated itself",
                    )
                    .with_note(
                        "Flink 2.3 fails on these: `unexpected correlate variable $cor0 in the plan`",
                    ),
                );
                bound = None;
            }
        }
        self.subq.where_groups = saved_groups;
        self.subq.outer_only = saved_only;
        self.subq.own_correlation = saved_own;
        bound
    }

    fn bind_where_conjuncts(
        &mut self,
        selection: &sql::Expr,
        mut input: Rel,
        scope: &Scope,
        outer: Option<&Scope>,
        aggregates: bool,
        span: Span,
    ) -> Option<(Rel, Vec<Expr>)> {
        let mut correlated = Vec::new();
        let mut local = Vec::new();
        // From the condition to the end of the SELECT: sqlparser's span of a
        // call may end inside its arguments.
        let start = self.expr_span(selection, span).start;
        let text = self
            .file
            .text
            .get(start..span.end.max(start))
            .unwrap_or("SELECT");
        if !may_hold_subquery(text) {
            // No subquery: one condition, as written (split only to take
            // out the conjuncts that refer to the enclosing query).
            let saved = std::mem::replace(&mut self.subq.resolving_outer, outer.cloned());
            let mut cx = ExprCx::plain(scope, "WHERE");
            let bound = self.bind_condition(selection, &mut cx, span);
            self.subq.resolving_outer = saved;
            let predicate = match bound {
                Ok(p) => p,
                Err(d) => {
                    self.error(d);
                    return None;
                }
            };
            if outer.is_none() {
                return Some((filter(input, predicate), correlated));
            }
            for c in split_and(predicate) {
                if any_column(&c, &|i| (OUTER..VALUE).contains(&i)) {
                    self.subq.own_correlation = true;
                    correlated.push(c);
                } else {
                    local.push(c);
                }
            }
        } else {
            let mut parts = Vec::new();
            conjuncts_of(selection, &mut parts);
            let mut ok = true;
            for part in parts {
                let result = match predicate(part) {
                    Some(p) => self.subquery_predicate(p, part, input, scope, outer, span),
                    None => self.where_conjunct(part, input, scope, outer, span),
                };
                let (rel, result) = result;
                input = rel;
                match result {
                    Ok(Some(c)) if any_column(&c, &|i| (OUTER..VALUE).contains(&i)) => {
                        correlated.extend(split_and(c))
                    }
                    Ok(Some(c)) => local.push(c),
                    Ok(None) => {}
                    Err(d) => {
                        self.error(d);
                        ok = false;
                    }
                }
            }
            if !ok {
                return None;
            }
        }
        // Local conjuncts filter the input once, after the subqueries' joins
        // (which only append columns).
        let input = match local.into_iter().reduce(and) {
            Some(p) => filter(input, p),
            None => input,
        };
        // A scalar subquery, or one that aggregates, correlated by more than
        // `inner = outer` keys gets a value generator (`generator.rs`); other
        // subqueries join on the whole condition.
        let generate = match self.subq.readers.last() {
            Some(
                nested::Reader::Scalar
                | nested::Reader::Aggregate
                | nested::Reader::Extremes
                | nested::Reader::Single,
            ) => true,
            Some(_) => aggregates && !self.subq.lifted,
            None => false,
        };
        // Nested subqueries that refer past this scalar subquery need the
        // enclosing values in its rows: always a generator then.
        let deferred = std::mem::take(&mut self.subq.deferred);
        let conjuncts = std::mem::take(&mut self.subq.deferred_conjuncts);
        if self.subq.where_groups
            && (!deferred.is_empty() || !conjuncts.is_empty())
            && !correlated.is_empty()
        {
            self.error(
                Diagnostic::unsupported(
                    correlated[0].span,
                    "a correlated subquery with GROUP BY whose nested subquery refers to a query two or more levels out",
                )
                .with_note(
                    "Flink 2.3 fails on it: `Error while applying rule FlinkAggregateJoinTransposeRule`; it computes the nested subquery right where only that refers to the outer query",
                ),
            );
            return None;
        }
        if !deferred.is_empty()
            || !conjuncts.is_empty()
            || (generate && generator::needs_generator(&correlated))
            || (generate && !self.subq.select_extra.is_empty())
        {
            let lifted: Vec<Expr> = deferred.iter().flat_map(|d| d.lifted.clone()).collect();
            let all = [correlated.clone(), lifted].concat();
            if let Err(d) = null_rejecting::check(&all)
                .and_then(|()| null_rejecting::check_deferred(&all, &conjuncts))
            {
                self.error(d);
                return None;
            }
            let id = self.subq.next_generator;
            self.subq.next_generator += 1;
            let extra = self.subq.select_extra.clone();
            self.subq.select_extra_in_where = extra
                .iter()
                .any(|&(o, _)| all.iter().any(|c| any_column(c, &|i| i == OUTER + o)));
            let (input, keys, g) =
                generator::generate(input, correlated, deferred, conjuncts, id, &extra, span);
            self.subq.generator = Some(g);
            return Some((input, keys));
        }
        Some((input, correlated))
    }

    fn where_conjunct(
        &mut self,
        part: &sql::Expr,
        input: Rel,
        scope: &Scope,
        outer: Option<&Scope>,
        span: Span,
    ) -> (Rel, BResult<Option<Expr>>) {
        self.open_subquery_frame();
        let saved = std::mem::replace(&mut self.subq.resolving_outer, outer.cloned());
        // A scalar subquery here may refer past this query when it is a
        // correlated subquery read as `nested.rs` allows.
        let past =
            (outer.is_some() && self.conjuncts_may_refer_past()).then_some(self.subq.frames.len());
        let saved_past = std::mem::replace(&mut self.subq.past_frame, past);
        let mut cx = ExprCx::plain(scope, "WHERE");
        let bound = self.bind_condition(part, &mut cx, span);
        self.subq.resolving_outer = saved;
        self.subq.past_frame = saved_past;
        let mut exprs = match bound {
            Ok(b) => vec![b],
            Err(d) => {
                self.pop_frame();
                return (input, Err(d));
            }
        };
        if any_column(&exprs[0], &|c| (OUTER..VALUE).contains(&c)) {
            self.subq.own_correlation = true;
        }
        let width = scope.columns.len();
        let refers_past = matches!(self.subq.frames.last(), Some(Some(f)) if f.iter().any(|p| {
            let past = |e: &Expr| any_column(e, &|c| (OUTER..VALUE).contains(&c));
            past(&p.expr)
                || p.joins.iter().any(|(_, _, c)| past(c))
                || p.generator.as_ref().is_some_and(|g| g.reads_past(width))
        }));
        if refers_past {
            // Applied over the value generator's rows (`nested.rs`).
            let pending = self.pop_frame().flatten().unwrap_or_default();
            self.subq.deferred_conjuncts.push(nested::DeferredConjunct {
                pending,
                conjunct: exprs.pop().expect("one"),
                width,
            });
            return (input, Ok(None));
        }
        let input = self.close_subquery_frame(input, &mut exprs);
        let conjunct = exprs.pop();
        (input, Ok(conjunct))
    }

    fn subquery_predicate(
        &mut self,
        p: Predicate<'_>,
        part: &sql::Expr,
        input: Rel,
        scope: &Scope,
        outer: Option<&Scope>,
        fallback: Span,
    ) -> (Rel, BResult<Option<Expr>>) {
        let span = self.expr_span(part, fallback);
        // On an error the input is kept, for the other conjuncts to bind.
        match self.subquery_join(p, input.clone(), scope, outer, span) {
            Ok((rel, lifted)) => (rel, Ok(lifted.into_iter().reduce(and))),
            Err(d) => (input, Err(d)),
        }
    }

    /// Joins a subquery predicate's subquery to `input`; returns the
    /// conjuncts that refer past this query (`nested.rs`), for the
    /// enclosing query's join.
    fn subquery_join(
        &mut self,
        p: Predicate<'_>,
        input: Rel,
        scope: &Scope,
        outer: Option<&Scope>,
        span: Span,
    ) -> BResult<(Rel, Vec<Expr>)> {
        let (query, negated_exists, operand) = match &p {
            Predicate::Exists { negated, query } => (*query, Some(*negated), None),
            Predicate::Quantified {
                operand,
                op,
                all,
                query,
            } => (*query, None, Some((*operand, *op, *all))),
        };
        // The operand binds like a WHERE conjunct (it may hold scalar
        // subqueries); a row `(a, b) IN (...)` field by field (`row`).
        let (input, x, row) = match operand {
            Some((e, _, _)) => {
                let fields: Vec<&sql::Expr> = match strip_nested(e) {
                    sql::Expr::Tuple(fields) => fields.iter().collect(),
                    _ => vec![e],
                };
                self.open_subquery_frame();
                let saved = std::mem::replace(&mut self.subq.resolving_outer, outer.cloned());
                let mut cx = ExprCx::plain(scope, "WHERE");
                let bound: BResult<Vec<Expr>> = fields
                    .iter()
                    .map(|f| self.bind_expr(f, &mut cx, span))
                    .collect();
                self.subq.resolving_outer = saved;
                let mut exprs = match bound {
                    Ok(b) => b,
                    Err(d) => {
                        self.pop_frame();
                        return Err(d);
                    }
                };
                let input = self.close_subquery_frame(input, &mut exprs);
                if fields.len() == 1 && !matches!(strip_nested(e), sql::Expr::Tuple(_)) {
                    (input, exprs.pop(), Vec::new())
                } else {
                    (input, None, exprs)
                }
            }
            None => (input, None, Vec::new()),
        };
        for x in x.iter().chain(&row) {
            if any_column(x, &|c| (OUTER..VALUE).contains(&c)) {
                return Err(Diagnostic::unsupported(
                    x.span,
                    "a subquery predicate whose operand refers to an enclosing query",
                ));
            }
        }
        // The subquery sees this level's scope and, beyond it, the enclosing one.
        let saved = std::mem::replace(&mut self.subq.resolving_outer, outer.cloned());
        let reader = if matches!(operand, Some((_, _, true))) {
            nested::Reader::All
        } else {
            nested::Reader::Exists
        };
        // EXISTS, NOT EXISTS, IN and `op ANY` may read the enclosing query
        // in the SELECT list too (`semi_select.rs`); NOT IN and ALL not.
        self.subq.semi_in_where =
            (!matches!(operand, Some((_, _, true)))).then_some(semi_select::Reads {
                having: true,
                exists: negated_exists.is_some(),
            });
        let sub = self.bind_subquery(query, Some(scope), reader, span);
        self.subq.semi_in_where = None;
        self.subq.resolving_outer = saved;
        let mut sub = sub?;
        if negated_exists.is_some() {
            // EXISTS does not read its SELECT list (`semi_select.rs`).
            sub.items.clear();
        }
        if let Some((_, op, all)) = operand {
            self.note_quantified(&sub, op, all, span);
        }
        if sub.generator.is_some() || !sub.items.is_empty() {
            // Flink plans these through a `Correlate` (values-from probe
            // V90, V92, V96-V98).
            self.note_correlate(&sub, span);
        }
        let anti = negated_exists == Some(true) || matches!(operand, Some((_, _, true)));
        if let Some(g) = sub.generator.take() {
            // An aggregating subquery correlated by more than keys: its rows
            // are grouped by the distinct enclosing values (`generator.rs`).
            if matches!(operand, Some((_, _, true))) && x.iter().chain(&row).any(|x| x.ty.nullable)
            {
                return Err(Diagnostic::unsupported(
                    span,
                    "NOT IN or ALL with a nullable operand over an aggregating subquery correlated by more than `inner = outer`",
                )
                .with_note("Flink 2.3 drops a row whose operand is NULL when its set is empty, where SQL keeps it"));
            }
            g.fill(&mut sub.rel, &input);
        }
        null_rejecting::check(&sub.corr)?;
        let (lifted, defer) = self.lift_nested(&mut sub, scope.columns.len(), anti, span)?;
        if let (Some(negated), true, true) = (
            negated_exists,
            sub.global_aggregate && !sub.corr.is_empty(),
            lifted.is_empty(),
        ) {
            // An aggregate without GROUP BY or HAVING has one row for every
            // enclosing row: EXISTS is TRUE, NOT EXISTS FALSE (Flink 2.3
            // alike, probe C70, C71, C85).
            return Ok(if negated {
                (filter(input, boolean_literal(false, span)), Vec::new())
            } else {
                (input, Vec::new())
            });
        }
        if sub.global_aggregate && !sub.corr.is_empty() && (anti || negated_exists.is_some()) {
            return Err(Diagnostic::unsupported(
                span,
                "NOT IN or ALL over a correlated aggregate without GROUP BY",
            )
            .with_note("Flink 2.3 keeps a row whose set is one NULL, where SQL drops it (observed: `5 NOT IN (SELECT MAX(u.w) FROM u WHERE u.k = t.k)` for a t.k without u rows)"));
        }
        let n = input.schema.len();
        let mut condition = self.correlation_condition(&sub, scope, n, span)?;
        let item = self.semi_select_item(&sub, scope, n, !lifted.is_empty())?;
        let lifted = lifted
            .into_iter()
            .map(|c| nested::past_join(c, scope.columns.len(), n))
            .collect::<Vec<_>>();
        let defer = !lifted.is_empty() && defer;
        let kind = match (negated_exists, operand) {
            (Some(negated), _) => {
                if negated {
                    JoinKind::Anti
                } else {
                    JoinKind::Semi
                }
            }
            (None, Some((_, op, all))) if !row.is_empty() => {
                condition.push(self.row_in_condition(
                    row,
                    &sub,
                    op,
                    all,
                    n,
                    item.is_some(),
                    span,
                )?);
                if all {
                    JoinKind::Anti
                } else {
                    JoinKind::Semi
                }
            }
            (None, Some((_, op, all))) => {
                if sub.visible != 1 {
                    // Flink's message (a row-valued operand is not supported).
                    return Err(Diagnostic::error(
                        span,
                        "Values passed to IN operator must have compatible types",
                    )
                    .with_note(format!(
                        "the subquery returns {} columns; IN, ANY, SOME and ALL compare with one",
                        sub.visible
                    )));
                }
                let x = x.expect("operand bound");
                let y = item.unwrap_or_else(|| column(n, sub.rel.schema[0].ty, span));
                if all
                    && op == BinaryOp::NotEq
                    && sub.corr.is_empty()
                    && (x.ty.nullable || y.ty.nullable)
                {
                    return Ok((self.null_aware_not_in(input, x, sub.rel, span)?, Vec::new()));
                }
                if all {
                    // Kept when no row compares TRUE or NULL with the negated
                    // comparison: `(x op y) IS NOT TRUE` finds the rows that
                    // make `x op ALL` not TRUE.
                    let cmp = if x.ty.nullable || y.ty.nullable {
                        let c = self.comparison(op, x, y, span)?;
                        unary(UnaryOp::IsNotTrue, c, span)
                    } else {
                        self.comparison(negate(op), x, y, span)?
                    };
                    condition.push(cmp);
                    JoinKind::Anti
                } else {
                    condition.push(self.comparison(op, x, y, span)?);
                    JoinKind::Semi
                }
            }
            (None, None) => unreachable!("a predicate has an operand or is EXISTS"),
        };
        if defer {
            // Under a scalar subquery that aggregates, pairs would repeat its
            // rows: the semi join waits for the generator's values.
            self.subq.deferred.push(nested::Deferred {
                kind,
                rel: sub.rel,
                condition,
                lifted,
                width: n,
            });
            return Ok((input, Vec::new()));
        }
        // With conjuncts for the enclosing join, every matching pair is kept
        // (an inner join): the enclosing query only tests for existence.
        let kind = if lifted.is_empty() {
            kind
        } else {
            JoinKind::Inner
        };
        Ok((join(kind, input, sub.rel, and_all(condition, span)), lifted))
    }

    /// The subquery's SELECT item that reads the enclosing query, over
    /// `input ++ subquery` (`semi_select.rs`), for an `IN` / `op ANY`.
    fn semi_select_item(
        &mut self,
        sub: &BoundSub,
        scope: &Scope,
        n: usize,
        lifted: bool,
    ) -> BResult<Option<Expr>> {
        let Some((_, first)) = sub.items.first() else {
            return Ok(None);
        };
        if lifted || sub.generator.is_some() {
            return Err(Diagnostic::unsupported(
                first.span,
                "a reference to the enclosing query in the SELECT list of a subquery that also refers two levels out",
            ));
        }
        let width = scope.columns.len();
        for (_, e) in &sub.items {
            if any_column(e, &|i| i >= OUTER && i - OUTER >= width) {
                return Err(Diagnostic::unsupported(
                    e.span,
                    "a subquery that refers to a query two or more levels out",
                ));
            }
        }
        Ok(sub
            .items
            .iter()
            .find(|(k, _)| *k == 0)
            .map(|(_, e)| remap(e.clone(), &|i| if i >= OUTER { i - OUTER } else { n + i })))
    }

    /// `(x1, x2, ...) IN (SELECT y1, y2, ...)` (`= ANY`) and `NOT IN` (`<>
    /// ALL`) as a WHERE conjunct: the semi join's `x1 = y1 AND x2 = y2 ...`,
    /// or the anti join's `(x1 <> y1 OR x2 <> y2 ...) IS NOT TRUE` (a row is
    /// kept by NOT IN only when every subquery row compares FALSE with it),
    /// as Flink 2.3 computes them (`docs/flink-observed/row-in-subquery/`).
    #[allow(clippy::too_many_arguments)]
    fn row_in_condition(
        &mut self,
        row: Vec<Expr>,
        sub: &BoundSub,
        op: BinaryOp,
        all: bool,
        n: usize,
        item: bool,
        span: Span,
    ) -> BResult<Expr> {
        if !matches!((op, all), (BinaryOp::Eq, false) | (BinaryOp::NotEq, true)) {
            return Err(Diagnostic::unsupported(
                span,
                "a row value compared with ANY, SOME or ALL other than `= ANY` (IN) and `<> ALL` (NOT IN)",
            ));
        }
        if sub.visible != row.len() {
            // Flink's message.
            return Err(Diagnostic::error(
                span,
                "Values passed to IN operator must have compatible types",
            )
            .with_note(format!(
                "the row has {} fields and the subquery returns {} columns",
                row.len(),
                sub.visible
            )));
        }
        if item {
            return Err(Diagnostic::unsupported(
                span,
                "a row value IN a subquery whose SELECT list reads the enclosing query",
            ));
        }
        let nullable = row
            .iter()
            .enumerate()
            .any(|(i, x)| x.ty.nullable || sub.rel.schema[i].ty.nullable);
        let mut parts = Vec::with_capacity(row.len());
        for (i, x) in row.into_iter().enumerate() {
            let y = column(n + i, sub.rel.schema[i].ty, span);
            let cmp_op = if all && !nullable { BinaryOp::Eq } else { op };
            parts.push(self.comparison(cmp_op, x, y, span)?);
        }
        let combine = |op: BinaryOp, parts: Vec<Expr>| {
            parts
                .into_iter()
                .reduce(|l, r| {
                    let nullable = l.ty.nullable || r.ty.nullable;
                    Expr {
                        ty: DataType::new(TypeKind::Boolean, nullable),
                        kind: ExprKind::Binary {
                            op,
                            left: Box::new(l),
                            right: Box::new(r),
                        },
                        span,
                    }
                })
                .expect("a row has fields")
        };
        // IN, and NOT IN over NOT NULL values: a match is all fields equal.
        Ok(if all && nullable {
            unary(UnaryOp::IsNotTrue, combine(BinaryOp::Or, parts), span)
        } else {
            combine(BinaryOp::And, parts)
        })
    }

    /// The subquery's correlation conjuncts over `input ++ subquery`.
    fn correlation_condition(
        &mut self,
        sub: &BoundSub,
        scope: &Scope,
        n: usize,
        span: Span,
    ) -> BResult<Vec<Expr>> {
        let width = scope.columns.len();
        let mut out = Vec::new();
        for c in &sub.corr {
            if any_column(c, &|i| i >= OUTER && i - OUTER >= width) {
                return Err(Diagnostic::unsupported(
                    c.span.to(span),
                    "a subquery that refers to a query two or more levels out",
                ));
            }
            out.push(remap(c.clone(), &|i| {
                if i >= OUTER {
                    i - OUTER
                } else {
                    n + i
                }
            }));
        }
        Ok(out)
    }

    /// Binds a subquery, correlated with `scope` (a plain SELECT's WHERE may
    /// refer to it). Errors it reported are handed back as the result.
    fn bind_subquery(
        &mut self,
        query: &sql::Query,
        scope: Option<&Scope>,
        reader: nested::Reader,
        span: Span,
    ) -> BResult<BoundSub> {
        let plain = query.with.is_none()
            && query.order_by.is_none()
            && query.limit_clause.is_none()
            && matches!(*query.body, SetExpr::Select(_));
        let saved_outer = self.subq.resolving_outer.take();
        let correlation = match (plain, scope) {
            (true, Some(s)) => Some(s.clone().concat(saved_outer.clone().unwrap_or_default())),
            _ => None,
        };
        let saved_corr = std::mem::replace(&mut self.subq.correlation, correlation);
        let saved_result = self.subq.result.take();
        let saved_lifted = std::mem::take(&mut self.subq.lifted);
        let saved_generator = self.subq.generator.take();
        let saved_deferred = std::mem::take(&mut self.subq.deferred);
        let saved_conjuncts = std::mem::take(&mut self.subq.deferred_conjuncts);
        let saved_groups = std::mem::take(&mut self.subq.where_groups);
        let saved_past = self.subq.past_frame.take();
        let allow = std::mem::take(&mut self.subq.scalar_in_select);
        let saved_allow = std::mem::replace(
            &mut self.subq.allow_select_outer,
            allow && plain && scope.is_some(),
        );
        let semi = std::mem::take(&mut self.subq.semi_in_where);
        let saved_semi = std::mem::replace(
            &mut self.subq.allow_semi_select,
            semi.filter(|_| plain && scope.is_some()),
        );
        let saved_select_outer = self.subq.select_outer.take();
        let saved_extra = std::mem::take(&mut self.subq.select_extra);
        let saved_extra_having = std::mem::take(&mut self.subq.select_extra_having);
        self.subq.readers.push(reader);
        if let Some(s) = scope {
            self.subq.enclosing.push((s.clone(), plain));
        }
        self.open_subquery_barrier();
        let errors = self.diags.len();
        let rel = self.bind_query(query, span);
        self.close_subquery_barrier();
        if scope.is_some() {
            self.subq.enclosing.pop();
        }
        self.subq.readers.pop();
        self.subq.allow_select_outer = saved_allow;
        self.subq.allow_semi_select = saved_semi;
        self.subq.select_outer = saved_select_outer;
        self.subq.select_extra = saved_extra;
        self.subq.select_extra_having = saved_extra_having;
        self.subq.lifted = saved_lifted;
        self.subq.deferred = saved_deferred;
        self.subq.deferred_conjuncts = saved_conjuncts;
        self.subq.where_groups = saved_groups;
        self.subq.past_frame = saved_past;
        let generator = std::mem::replace(&mut self.subq.generator, saved_generator);
        let result = std::mem::replace(&mut self.subq.result, saved_result);
        self.subq.correlation = saved_corr;
        self.subq.resolving_outer = saved_outer;
        let Some(rel) = rel else {
            return Err(if self.diags.len() > errors {
                self.diags.take_last().expect("an error was reported")
            } else {
                Diagnostic::error(span, "the subquery does not bind")
            });
        };
        Ok(match result {
            Some(c) => BoundSub {
                rel,
                visible: c.visible,
                corr: c.conjuncts,
                global_aggregate: c.global_aggregate,
                empty_values: c.empty_values,
                generator,
                items: c.items,
            },
            None => {
                let global = is_global_aggregate(&rel);
                BoundSub {
                    visible: rel.schema.len(),
                    rel,
                    corr: Vec::new(),
                    global_aggregate: global,
                    empty_values: Vec::new(),
                    generator,
                    items: Vec::new(),
                }
            }
        })
    }

    /// Called by a SELECT bound as a correlated subquery once its WHERE found
    /// `corr` (over its input's columns and `OUTER + i`): the SELECT list
    /// `exprs` gets the correlation columns appended and the conjuncts are
    /// recorded relative to the output.
    pub(crate) fn correlate_plain(
        &mut self,
        corr: Vec<Expr>,
        exprs: &mut Vec<Expr>,
        names: &mut Vec<String>,
        input: &Rel,
    ) {
        let visible = exprs.len();
        let mut used: Vec<usize> = Vec::new();
        for c in &corr {
            semi_select::own_columns(c, &mut used);
        }
        // Items that read the enclosing query (`semi_select.rs`) move into
        // the semi join's condition; a NULL stands in their place.
        let mut items = Vec::new();
        for (k, e) in exprs.iter_mut().enumerate() {
            if semi_select::reads_outer(e) {
                semi_select::own_columns(e, &mut used);
                let stand_in = semi_select::stand_in(e);
                items.push((k, std::mem::replace(e, stand_in)));
            }
        }
        used.sort_unstable();
        for &i in &used {
            exprs.push(column(i, input.schema[i].ty, Span::default()));
            names.push(format!("$cor{i}"));
        }
        let relative = |c: Expr| {
            remap(c, &|i| {
                if i >= OUTER {
                    i
                } else {
                    visible + used.iter().position(|&u| u == i).expect("used")
                }
            })
        };
        let conjuncts = corr.into_iter().map(relative).collect();
        let items = items.into_iter().map(|(k, e)| (k, relative(e))).collect();
        self.subq.result = Some(Correlated {
            conjuncts,
            visible,
            global_aggregate: false,
            empty_values: Vec::new(),
            items,
        });
    }

    /// For a SELECT that starts binding: whether its SELECT list may read
    /// the enclosing query as a semi join's condition (`semi_select.rs`).
    /// `Some(true)`: its HAVING's aggregate arguments too.
    pub(crate) fn take_allow_semi_select(
        &mut self,
        select: &sql::Select,
    ) -> Option<semi_select::Reads> {
        std::mem::take(&mut self.subq.allow_semi_select)
            .filter(|_| !semi_select::holds_subquery(select))
    }

    /// Records the `IN` / `op ANY` subqueries of the condition `e` (a
    /// WHERE or CASE WHEN condition) whose value is only tested for TRUE;
    /// returns the mark to [`Self::forget_positive`] after it binds.
    pub(crate) fn note_positive(&mut self, e: &sql::Expr) -> usize {
        let mark = self.subq.positive.len();
        semi_select::positive_queries(e, &mut self.subq.positive);
        mark
    }

    pub(crate) fn forget_positive(&mut self, mark: usize) {
        self.subq.positive.truncate(mark);
    }

    /// Whether `query` is the subquery of an `IN` / `op ANY` whose value is
    /// only tested for TRUE.
    fn is_positive(&self, query: &sql::Query) -> bool {
        self.subq
            .positive
            .contains(&(query as *const sql::Query as usize))
    }

    /// While the SELECT list of such a subquery binds: its enclosing
    /// columns resolve as `OUTER + i`, as in its WHERE.
    pub(crate) fn resolve_outer_in_select(&mut self, outer: Option<Scope>) -> Option<Scope> {
        std::mem::replace(&mut self.subq.resolving_outer, outer)
    }

    /// For an aggregating correlated subquery: each conjunct must equate a
    /// subquery expression with an enclosing one; the subquery expressions
    /// become extra GROUP BY keys. Returns them and the outer sides.
    pub(crate) fn correlation_keys(&mut self, corr: Vec<Expr>) -> BResult<Vec<(Expr, Expr)>> {
        // Under MIN/MAX the lifted pairs repeat rows harmlessly (`nested.rs`).
        if self.subq.lifted && self.subq.readers.last() != Some(&nested::Reader::Extremes) {
            let span = corr.first().map_or_else(Span::default, |c| c.span);
            return Err(Diagnostic::unsupported(
                span,
                "a subquery that refers to a query two or more levels out, nested in a subquery with aggregates",
            ));
        }
        let mut keys = Vec::new();
        for c in corr {
            let inner_only = |e: &Expr| !any_column(e, &|i| i >= OUTER) && max_column(e).is_some();
            let outer_only = |e: &Expr| !any_column(e, &|i| i < OUTER);
            match &c.kind {
                ExprKind::Binary {
                    op: BinaryOp::Eq,
                    left,
                    right,
                } if inner_only(left) && outer_only(right) => {
                    keys.push(((**left).clone(), (**right).clone()))
                }
                ExprKind::Binary {
                    op: BinaryOp::Eq,
                    left,
                    right,
                } if inner_only(right) && outer_only(left) => {
                    keys.push(((**right).clone(), (**left).clone()))
                }
                _ => {
                    return Err(Diagnostic::unsupported(
                        c.span,
                        "a correlation condition other than `inner = outer` in a subquery with aggregates",
                    )
                    .with_note(
                        "a scalar subquery may also be correlated by comparisons of columns, literals and arithmetic",
                    ))
                }
            }
        }
        Ok(keys)
    }

    /// Records an aggregating correlated subquery's shape: its output is the
    /// SELECT list (`visible` columns) then one column per correlation key.
    pub(crate) fn correlate_grouped(
        &mut self,
        outer_sides: Vec<Expr>,
        visible: usize,
        rel: &Rel,
        global_aggregate: bool,
    ) {
        let conjuncts = outer_sides
            .into_iter()
            .enumerate()
            .map(|(k, o)| {
                let span = o.span;
                let ty = rel.schema[visible + k].ty;
                let inner = column(visible + k, ty, span);
                Expr {
                    ty: DataType::new(TypeKind::Boolean, o.ty.nullable || ty.nullable),
                    kind: ExprKind::Binary {
                        op: BinaryOp::Eq,
                        left: Box::new(inner),
                        right: Box::new(o),
                    },
                    span,
                }
            })
            .collect();
        let empty_values = if global_aggregate {
            empty_values(rel, visible)
        } else {
            Vec::new()
        };
        self.subq.result = Some(Correlated {
            conjuncts,
            visible,
            global_aggregate,
            empty_values,
            items: Vec::new(),
        });
    }

    /// A scalar subquery in an expression: registers its join in the
    /// current frame and stands for its value.
    pub(crate) fn scalar_subquery(
        &mut self,
        query: &sql::Query,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        if !matches!(self.subq.frames.last(), Some(Some(_))) {
            return Err(Diagnostic::unsupported(
                span,
                &format!("a scalar subquery in {}", cx.clause),
            ));
        }
        // In a grouped clause the join is with the aggregate's rows, and the
        // scope is the aggregate's input: `grouped.rs` checks the correlation.
        let grouped =
            self.subq.grouped_frames.last().map(|i| i + 1) == Some(self.subq.frames.len());
        let scope = cx.scope;
        let reader = if nested::extremes_only(query) {
            nested::Reader::Extremes
        } else if nested::aggregates_only(query) {
            nested::Reader::Aggregate
        } else if nested::single_only(query) {
            nested::Reader::Single
        } else {
            nested::Reader::Scalar
        };
        // In a WHERE conjunct of a correlated subquery it may refer past
        // that subquery (`nested::DeferredConjunct`).
        let past_ok = self.subq.past_frame == Some(self.subq.frames.len());
        self.subq.scalar_in_select = !grouped && cx.clause == "SELECT";
        let mut sub = self.bind_subquery(query, Some(scope), reader, span)?;
        self.note_correlate(&sub, span);
        let generator = sub.generator.take();
        if grouped && !sub.corr.is_empty() {
            self.check_grouped_correlation(&sub, cx, "scalar subquery", span)?;
        }
        if sub.visible != 1 {
            // Flink's message, with the subquery's column count for the type.
            return Err(Diagnostic::error(
                span,
                format!(
                    "Cannot apply '$SCALAR_QUERY' to a subquery of {} columns. Supported form(s): '$SCALAR_QUERY(<RECORDTYPE(SINGLE FIELD)>)'",
                    sub.visible
                ),
            )
            .with_note("a scalar subquery returns one column"));
        }
        let value_ty = DataType::new(sub.rel.schema[0].ty.kind, true);
        let (kind, rel, condition, expr) = if sub.corr.is_empty() {
            let rel = if sub.global_aggregate {
                sub.rel
            } else {
                single_value(sub.rel, Vec::new(), span)
            };
            (
                JoinKind::Inner,
                rel,
                true_literal(span),
                column(SUB, value_ty, span),
            )
        } else {
            let width = scope.columns.len();
            let pairs = if past_ok {
                self.check_scalar_past(&sub, generator.is_some(), width, span)?;
                correlation_pairs(&sub, usize::MAX, "a scalar subquery", span)?
            } else {
                correlation_pairs(&sub, width, "a scalar subquery", span)?
            };
            // The enclosing query's columns past `width` are those of the
            // query it is nested in (`OUTER + j`, deferred).
            let outer_expr = |o: Expr| {
                remap(o, &|i| {
                    if i - OUTER < width {
                        i - OUTER
                    } else {
                        i - width
                    }
                })
            };
            if sub.global_aggregate {
                let condition = pairs
                    .iter()
                    .map(|(k, o)| {
                        eq(
                            outer_expr(o.clone()),
                            column(SUB + k, sub.rel.schema[*k].ty, span),
                        )
                    })
                    .collect();
                let value = column(SUB, value_ty, span);
                let expr = match sub.empty_values.first().cloned().flatten() {
                    Some(empty) => {
                        let (k, _) = pairs[0];
                        let marker = column(
                            SUB + k,
                            DataType::new(sub.rel.schema[k].ty.kind, true),
                            span,
                        );
                        Expr {
                            kind: ExprKind::Case {
                                branches: vec![(
                                    unary(UnaryOp::IsNull, marker, span),
                                    cast_to(
                                        Expr {
                                            ty: DataType::new(empty.ty.kind, true),
                                            ..empty
                                        },
                                        value_ty,
                                    ),
                                )],
                                otherwise: Some(Box::new(value)),
                            },
                            ty: value_ty,
                            span,
                        }
                    }
                    None => value,
                };
                (JoinKind::Left, sub.rel, and_all(condition, span), expr)
            } else {
                let keys: Vec<usize> = pairs.iter().map(|(k, _)| *k).collect();
                let grouped = single_value(sub.rel, keys.clone(), span);
                let condition = pairs
                    .iter()
                    .enumerate()
                    .map(|(g, (_, o))| {
                        eq(
                            outer_expr(o.clone()),
                            column(SUB + g, grouped.schema[g].ty, span),
                        )
                    })
                    .collect();
                let expr = column(SUB + keys.len(), value_ty, span);
                (JoinKind::Left, grouped, and_all(condition, span), expr)
            }
        };
        let placeholder = self.push_pending(vec![(kind, rel, condition)], expr);
        if let Some(g) = generator {
            self.set_pending_generator(g);
        }
        Ok(placeholder)
    }

    /// Sets the value generator whose placeholder the last pending
    /// subquery's joins hold (filled from the clause's input at close).
    fn set_pending_generator(&mut self, g: generator::Generator) {
        let frame = self.subq.frames.last_mut().and_then(Option::as_mut);
        frame
            .and_then(|f| f.last_mut())
            .expect("just pushed")
            .generator = Some(g);
    }

    /// Registers a subquery's joins in the current frame (which must take
    /// subqueries); returns the placeholder that stands for `expr`.
    fn push_pending(&mut self, joins: Vec<(JoinKind, Rel, Expr)>, expr: Expr) -> Expr {
        let value = self.subq.next_value;
        self.subq.next_value += 1;
        let placeholder = column(VALUE + value, expr.ty, expr.span);
        let frame = self
            .subq
            .frames
            .last_mut()
            .and_then(Option::as_mut)
            .expect("checked");
        frame.push(Pending {
            value,
            joins,
            expr,
            over_input: None,
            generator: None,
        });
        placeholder
    }
}

/// A correlated subquery's conjuncts as pairs (its output column, the
/// enclosing expression over `OUTER + i`): each must be `inner column =
/// enclosing expression` over the enclosing query (`width` columns) only.
fn correlation_pairs(
    sub: &BoundSub,
    width: usize,
    what: &str,
    span: Span,
) -> BResult<Vec<(usize, Expr)>> {
    let mut pairs = Vec::new();
    for c in &sub.corr {
        if any_column(c, &|i| i >= OUTER && i - OUTER >= width) {
            return Err(Diagnostic::unsupported(
                c.span.to(span),
                "a subquery that refers to a query two or more levels out",
            ));
        }
        let pair = match &c.kind {
            ExprKind::Binary {
                op: BinaryOp::Eq,
                left,
                right,
            } => match (&left.kind, &right.kind) {
                (ExprKind::Column(k), _) if *k < OUTER && !any_column(right, &|i| i < OUTER) => {
                    Some((*k, (**right).clone()))
                }
                (_, ExprKind::Column(k)) if *k < OUTER && !any_column(left, &|i| i < OUTER) => {
                    Some((*k, (**left).clone()))
                }
                _ => None,
            },
            _ => None,
        };
        match pair {
            Some(p) => pairs.push(p),
            None => {
                return Err(Diagnostic::unsupported(
                    c.span,
                    &format!("a correlation condition other than `inner = outer` or a comparison of columns, literals and arithmetic, in {what}"),
                ))
            }
        }
    }
    Ok(pairs)
}

fn eq(l: Expr, r: Expr) -> Expr {
    let span = l.span;
    Expr {
        ty: DataType::new(TypeKind::Boolean, l.ty.nullable || r.ty.nullable),
        kind: ExprKind::Binary {
            op: BinaryOp::Eq,
            left: Box::new(l),
            right: Box::new(r),
        },
        span,
    }
}

fn unary(op: UnaryOp, e: Expr, span: Span) -> Expr {
    let ty = match op {
        UnaryOp::Not => DataType::new(TypeKind::Boolean, e.ty.nullable),
        _ => DataType::not_null(TypeKind::Boolean),
    };
    Expr {
        kind: ExprKind::Unary {
            op,
            operand: Box::new(e),
        },
        ty,
        span,
    }
}

/// A join whose output is the left columns then, unless semi or anti, the
/// right ones (nullable for a left join).
fn join(kind: JoinKind, left: Rel, right: Rel, condition: Expr) -> Rel {
    let span = left.span;
    let mut schema = left.schema.clone();
    if kind.outputs_right() {
        schema.extend(right.schema.iter().map(|f| Field {
            name: f.name.clone(),
            ty: DataType::new(f.ty.kind, f.ty.nullable || kind == JoinKind::Left),
        }));
    }
    Rel {
        kind: RelKind::Join {
            kind,
            left: Box::new(left),
            right: Box::new(right),
            condition,
        },
        schema,
        span,
    }
}

/// `SINGLE_VALUE` of column 0 grouped by `keys`: output is the keys, then
/// the value (an error at run time for a group of more than one row).
fn single_value(rel: Rel, keys: Vec<usize>, span: Span) -> Rel {
    let ty = DataType::new(rel.schema[0].ty.kind, true);
    let mut schema: Vec<Field> = keys.iter().map(|&k| rel.schema[k].clone()).collect();
    let name = format!("EXPR${}", keys.len());
    schema.push(Field {
        name: name.clone(),
        ty,
    });
    Rel {
        kind: RelKind::Aggregate {
            input: Box::new(rel),
            group: keys,
            aggregates: vec![AggregateCall {
                function: AggregateFunction::SingleValue,
                distinct: false,
                args: vec![0],
                filter: None,
                separator: None,
                ty,
                name,
            }],
        },
        schema,
        span,
    }
}

/// Whether `rel` is a global aggregate (no GROUP BY, no HAVING) under a
/// projection: exactly one row.
fn is_global_aggregate(rel: &Rel) -> bool {
    match &rel.kind {
        RelKind::Project { input, .. } => matches!(
            &input.kind,
            RelKind::Aggregate { group, .. } if group.is_empty()
        ),
        _ => false,
    }
}

/// The values of a grouped subquery's SELECT list over an empty group, where
/// they are not simply NULL: its projection with COUNT results as 0 and
/// other aggregates and keys as NULL.
fn empty_values(rel: &Rel, visible: usize) -> Vec<Option<Expr>> {
    let RelKind::Project { input, exprs } = &rel.kind else {
        return vec![None; visible];
    };
    let RelKind::Aggregate {
        group, aggregates, ..
    } = &input.kind
    else {
        return vec![None; visible];
    };
    let keys = group.len();
    exprs
        .iter()
        .take(visible)
        .map(|e| {
            let mut counts = false;
            let mut strict = true;
            visit(e, &mut |x| match &x.kind {
                ExprKind::Column(c) if *c >= keys => {
                    counts |= aggregates[*c - keys].function == AggregateFunction::Count
                }
                ExprKind::Column(_) | ExprKind::Literal(_) | ExprKind::Cast { .. } => {}
                ExprKind::Unary {
                    op: UnaryOp::Negate,
                    ..
                } => {}
                ExprKind::Binary { op, .. }
                    if !matches!(
                        op,
                        BinaryOp::And
                            | BinaryOp::Or
                            | BinaryOp::IsDistinctFrom
                            | BinaryOp::IsNotDistinctFrom
                    ) => {}
                _ => strict = false,
            });
            if strict && !counts {
                return None;
            }
            Some(replace(e.clone(), &|c| {
                let (lit, ty) =
                    if c >= keys && aggregates[c - keys].function == AggregateFunction::Count {
                        (Literal::Integer(0), DataType::not_null(TypeKind::BigInt))
                    } else if c >= keys {
                        (
                            Literal::Null,
                            DataType::new(aggregates[c - keys].ty.kind, true),
                        )
                    } else {
                        (Literal::Null, DataType::new(input.schema[c].ty.kind, true))
                    };
                Some(Expr {
                    kind: ExprKind::Literal(lit),
                    ty,
                    span: e.span,
                })
            }))
        })
        .collect()
}

/// Whether a bound expression still holds a scalar subquery placeholder.
pub(crate) fn has_placeholder(e: &Expr) -> bool {
    any_column(e, &|c| c >= VALUE)
}
