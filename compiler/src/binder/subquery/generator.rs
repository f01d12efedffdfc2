//! A scalar subquery correlated by more than `inner = outer` keys (`(SELECT
//! SUM(x) FROM b WHERE b.k < a.k)`), decorrelated with a value generator as
//! Calcite does: the distinct values `u` of the enclosing columns its
//! correlation reads are joined with the subquery's rows on the whole
//! condition, and the subquery then groups by `u` (or checks one row per
//! `u`): its correlation becomes `u = enclosing column`, the keyed form the
//! rest of the decorrelation handles (a left join on `u`, the value of an
//! empty group for a `u` without rows: `COUNT` 0, Calcite's "count bug").
//!
//! `u`'s rows come from the enclosing clause's input, which is only known
//! when the clause's frame closes: the subquery is bound over a placeholder
//! (an empty VALUES named `$u<id>_<g>`) that `close_subquery_frame` replaces
//! by the distinct `u` of the clause's input. A NULL in `u` matches nothing
//! (the join back is an equality), as in Flink, which is right only when
//! the condition cannot be TRUE for a NULL (`null_rejecting.rs`).

use super::{and_all, any_column, column, eq, join, remap, OUTER, VALUE};
use crate::binder::query::{distinct_of, project};
use crate::diagnostics::Span;
use crate::ir::{visit, BinaryOp, Expr, ExprKind, Field, JoinKind, Rel, RelKind};

/// The placeholder of one subquery's `u` rows.
#[derive(Clone, Debug)]
pub(crate) struct Generator {
    id: usize,
    /// The enclosing clause's input columns in `u`, ascending.
    pub(super) outer: Vec<usize>,
    /// The subquery row's column of `u`'s first value.
    pub(super) at: usize,
    span: Span,
}

/// Whether correlation conjuncts (over the subquery's input and `OUTER +
/// i`) need a value generator: some conjunct is not `inner = outer` (none
/// reads a scalar subquery's value).
pub(super) fn needs_generator(corr: &[Expr]) -> bool {
    let keyed = |c: &Expr| match &c.kind {
        ExprKind::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } => {
            let inner = |e: &Expr| !any_column(e, &|i| i >= OUTER) && any_column(e, &|_| true);
            let outer = |e: &Expr| !any_column(e, &|i| i < OUTER);
            (inner(left) && outer(right)) || (inner(right) && outer(left))
        }
        _ => false,
    };
    !corr.is_empty()
        && !corr.iter().all(keyed)
        && !corr.iter().any(|c| any_column(c, &|i| i >= VALUE))
}

/// Joins `input` (the subquery's rows after its local WHERE) with the
/// placeholder of `u` on `corr`; returns the joined rows, the new
/// correlation (`u_g = OUTER + o_g`) and the generator to fill in.
pub(super) fn generate(
    input: Rel,
    corr: Vec<Expr>,
    deferred: Vec<super::nested::Deferred>,
    conjuncts: Vec<super::nested::DeferredConjunct>,
    id: usize,
    extra: &[(usize, crate::types::DataType)],
    span: Span,
) -> (Rel, Vec<Expr>, Generator) {
    // The enclosing columns the SELECT list reads (`select_outer.rs`).
    let mut outer: Vec<(usize, crate::types::DataType)> = extra.to_vec();
    let conjunct_exprs = conjuncts.iter().flat_map(|d| {
        std::iter::once(&d.conjunct).chain(
            d.pending
                .iter()
                .flat_map(|p| std::iter::once(&p.expr).chain(p.joins.iter().map(|(_, _, c)| c))),
        )
    });
    for c in corr
        .iter()
        .chain(deferred.iter().flat_map(|d| &d.lifted))
        .chain(conjunct_exprs)
    {
        visit(c, &mut |x| {
            if let ExprKind::Column(i) = x.kind {
                if (OUTER..VALUE).contains(&i) && !outer.iter().any(|(o, _)| *o == i - OUTER) {
                    outer.push((i - OUTER, x.ty));
                }
            }
        });
    }
    outer.sort_unstable_by_key(|(o, _)| *o);
    let n = input.schema.len();
    let placeholder = Rel {
        kind: RelKind::Values { rows: Vec::new() },
        schema: outer
            .iter()
            .enumerate()
            .map(|(g, (_, ty))| Field {
                name: placeholder_name(id, g),
                ty: *ty,
            })
            .collect(),
        span,
    };
    let position = |o: usize| outer.iter().position(|(p, _)| *p == o).expect("collected");
    let condition = and_all(
        corr.into_iter()
            .map(|c| {
                remap(c, &|i| {
                    if i >= OUTER {
                        n + position(i - OUTER)
                    } else {
                        i
                    }
                })
            })
            .collect(),
        span,
    );
    let mut joined = join(JoinKind::Inner, input, placeholder, condition);
    // Nested semi joins that read the enclosing values (`nested::Deferred`):
    // their subquery's columns follow the placeholder's now.
    let g = outer.len();
    for d in deferred {
        let at = |i: usize| {
            if i >= OUTER {
                n + position(i - OUTER)
            } else if i < d.width {
                i
            } else {
                i - d.width + n + g
            }
        };
        let condition = and_all(
            d.condition
                .into_iter()
                .chain(d.lifted)
                .map(|c| remap(c, &at))
                .collect(),
            span,
        );
        joined = join(d.kind, joined, d.rel, condition);
    }
    // WHERE conjuncts whose scalar subqueries read the enclosing values
    // (`nested::DeferredConjunct`): those are the placeholder's columns now.
    for d in conjuncts {
        let at = |i: usize| {
            if (OUTER..VALUE).contains(&i) {
                n + position(i - OUTER)
            } else {
                i
            }
        };
        let mut pending = d.pending;
        for p in &mut pending {
            for (_, _, c) in &mut p.joins {
                *c = remap(std::mem::replace(c, super::true_literal(span)), &at);
            }
            p.expr = remap(
                std::mem::replace(&mut p.expr, super::true_literal(span)),
                &at,
            );
            if let Some(g) = &mut p.generator {
                for o in &mut g.outer {
                    if *o >= d.width {
                        *o = n + position(*o - d.width);
                    }
                }
            }
        }
        let mut exprs = [remap(d.conjunct, &at)];
        joined = crate::binder::Binder::apply_pending(pending, joined, &mut exprs);
        let [conjunct] = exprs;
        joined = crate::binder::query::filter(joined, conjunct);
    }
    let keys = outer
        .iter()
        .enumerate()
        .map(|(g, &(o, ty))| eq(column(n + g, ty, span), column(OUTER + o, ty, span)))
        .collect();
    let generator = Generator {
        at: n,
        id,
        outer: outer.into_iter().map(|(o, _)| o).collect(),
        span,
    };
    (joined, keys, generator)
}

impl Generator {
    /// Whether it reads a column of a query two or more levels out (its
    /// enclosing scope has `width` columns).
    pub(super) fn reads_past(&self, width: usize) -> bool {
        self.outer.iter().any(|&o| o >= width)
    }
}

fn placeholder_name(id: usize, g: usize) -> String {
    format!("$u{id}_{g}")
}

/// The distinct values of `input`'s columns `outer`, in that order.
pub(super) fn distinct_values(input: &Rel, outer: &[usize], span: Span) -> Rel {
    let exprs = outer
        .iter()
        .map(|&c| column(c, input.schema[c].ty, span))
        .collect();
    let names = outer
        .iter()
        .map(|&c| input.schema[c].name.clone())
        .collect();
    distinct_of(project(input.clone(), exprs, names, span))
}

impl Generator {
    /// Replaces the placeholder inside `rel` by the distinct `u` of the
    /// clause's `input`.
    pub(super) fn fill(&self, rel: &mut Rel, input: &Rel) {
        let name = placeholder_name(self.id, 0);
        let is_placeholder = |r: &Rel| {
            matches!(&r.kind, RelKind::Values { rows } if rows.is_empty())
                && r.schema.first().is_some_and(|f| f.name == name)
        };
        if is_placeholder(rel) {
            *rel = distinct_values(input, &self.outer, self.span);
            return;
        }
        match &mut rel.kind {
            RelKind::Scan { .. } | RelKind::Values { .. } => {}
            RelKind::Filter { input: i, .. }
            | RelKind::Project { input: i, .. }
            | RelKind::Aggregate { input: i, .. }
            | RelKind::Sort { input: i, .. }
            | RelKind::Over { input: i, .. }
            | RelKind::Window { input: i, .. } => self.fill(i, input),
            RelKind::Join { left, right, .. } => {
                self.fill(left, input);
                self.fill(right, input);
            }
            RelKind::UnionAll { inputs } => inputs.iter_mut().for_each(|r| self.fill(r, input)),
        }
    }
}
