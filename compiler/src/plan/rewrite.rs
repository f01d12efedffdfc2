//! Expression helpers shared by the lowering and the rewrites: conjuncts,
//! column sets, column remapping and substitution.

use std::collections::BTreeSet;

use crate::binder::map_children;
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
    crate::binder::visit(e, &mut |x| {
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
