//! Expression helpers shared by the lowering and the rewrites: conjuncts,
//! column sets, column remapping and substitution.

use std::collections::BTreeSet;

use crate::ir::map_children;
use crate::ir::{BinaryOp, Expr, ExprKind, Literal};
use crate::types::{DataType, TypeKind};

/// The AND-ed parts of a predicate.
pub(crate) fn conjuncts(e: Expr) -> Vec<Expr> {
    match e.kind {
        ExprKind::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            let mut out = conjuncts(*left);
            out.extend(conjuncts(*right));
            out
        }
        _ => vec![e],
    }
}

/// AND of the predicates; `None` for an empty list.
pub(crate) fn and_all(mut parts: Vec<Expr>) -> Option<Expr> {
    parts.retain(|p| !is_true(p));
    let mut iter = parts.into_iter();
    let first = iter.next()?;
    Some(iter.fold(first, |acc, p| {
        let nullable = acc.ty.nullable || p.ty.nullable;
        let span = acc.span;
        Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::And,
                left: Box::new(acc),
                right: Box::new(p),
            },
            ty: DataType::new(TypeKind::Boolean, nullable),
            span,
        }
    }))
}

pub(crate) fn is_true(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Literal(Literal::Boolean(true)))
}

/// The input columns an expression reads.
pub(crate) fn columns(e: &Expr) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    crate::ir::visit(e, &mut |x| {
        if let ExprKind::Column(i) = x.kind {
            out.insert(i);
        }
    });
    out
}

/// Renumbers column references.
pub(crate) fn remap(mut e: Expr, f: &dyn Fn(usize) -> usize) -> Expr {
    if let ExprKind::Column(i) = e.kind {
        e.kind = ExprKind::Column(f(i));
        return e;
    }
    map_children(&mut e, &mut |c| *c = remap(std::mem::replace(c, null()), f));
    e
}

/// Replaces each `Column(i)` by `values[i]` (inlining a projection).
pub(crate) fn substitute(mut e: Expr, values: &[Expr]) -> Expr {
    if let ExprKind::Column(i) = e.kind {
        let mut v = values[i].clone();
        // Keep the consumer's view of nullability-insensitive identity: the
        // value's own type is the truth.
        v.span = e.span;
        return v;
    }
    map_children(&mut e, &mut |c| {
        *c = substitute(std::mem::replace(c, null()), values)
    });
    e
}

pub(crate) fn column(i: usize, ty: DataType) -> Expr {
    Expr {
        kind: ExprKind::Column(i),
        ty,
        span: crate::diagnostics::Span::default(),
    }
}

fn null() -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Null),
        ty: DataType::null(),
        span: crate::diagnostics::Span::default(),
    }
}

/// The literal TRUE (an empty condition).
pub(crate) fn true_literal() -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Boolean(true)),
        ty: DataType::not_null(TypeKind::Boolean),
        span: crate::diagnostics::Span::default(),
    }
}

/// The OR-ed parts of a predicate.
pub(crate) fn disjuncts(e: Expr) -> Vec<Expr> {
    match e.kind {
        ExprKind::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => {
            let mut out = disjuncts(*left);
            out.extend(disjuncts(*right));
            out
        }
        _ => vec![e],
    }
}

/// OR of the predicates (at least one).
pub(crate) fn or_all(parts: Vec<Expr>) -> Expr {
    let mut iter = parts.into_iter();
    let first = iter.next().expect("a disjunction has parts");
    iter.fold(first, |acc, p| {
        let nullable = acc.ty.nullable || p.ty.nullable;
        let span = acc.span;
        Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::Or,
                left: Box::new(acc),
                right: Box::new(p),
            },
            ty: DataType::new(TypeKind::Boolean, nullable),
            span,
        }
    })
}

/// `(a AND b) OR (a AND c)` as `[a, b OR c]`: the conjuncts every disjunct
/// shares, then what is left of the disjunction (Calcite's `pullFactors`;
/// the distributive law holds in SQL's three-valued logic). Lets a join key
/// written in every branch of an OR (TPC-H Q19) become a key.
pub(crate) fn pull_factors(e: Expr) -> Vec<Expr> {
    if !matches!(
        e.kind,
        ExprKind::Binary {
            op: BinaryOp::Or,
            ..
        }
    ) {
        return vec![e];
    }
    let branches: Vec<Vec<Expr>> = disjuncts(e.clone()).into_iter().map(conjuncts).collect();
    // Compared without spans, `a = b` the same as `b = a`.
    let strip = |x: &Expr| {
        let mut x = crate::ir::strip_spans(x.clone());
        if let ExprKind::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } = &mut x.kind
        {
            if format!("{left:?}") > format!("{right:?}") {
                std::mem::swap(left, right);
            }
        }
        x
    };
    let stripped: Vec<Vec<Expr>> = branches
        .iter()
        .map(|b| b.iter().map(strip).collect())
        .collect();
    let mut common: Vec<Expr> = Vec::new();
    let mut common_stripped: Vec<Expr> = Vec::new();
    for (c, s) in branches[0].iter().zip(&stripped[0]) {
        if !common_stripped.contains(s) && stripped[1..].iter().all(|b| b.contains(s)) {
            common.push(c.clone());
            common_stripped.push(s.clone());
        }
    }
    if common.is_empty() {
        return vec![e];
    }
    let mut rest = Vec::new();
    for branch in branches {
        let left: Vec<Expr> = branch
            .into_iter()
            .filter(|c| !common_stripped.contains(&strip(c)))
            .collect();
        match and_all(left) {
            Some(r) => rest.push(r),
            // One branch is the common part alone: the OR adds nothing.
            None => return common,
        }
    }
    common.push(or_all(rest));
    common
}
