//! Constant folding: evaluates what is known at compile time — boolean logic
//! with literal operands, NOT of a literal, casts of literals that cannot
//! fail (integer widening, CHAR to STRING) — and drops filters that are
//! always TRUE. Anything whose value depends on run-time rules (overflow,
//! rounding, parsing) is left to the runtime.

use crate::ir::map_children;
use crate::ir::{BinaryOp, Expr, ExprKind, Literal, UnaryOp};
use crate::plan::rewrite::is_true;
use crate::plan::{keep, rebuild, NodeKind, Plan};
use crate::types::TypeKind;

pub(crate) fn run(plan: &Plan) -> Option<Plan> {
    // Folding is a function of each expression alone: when none folds and
    // no condition is TRUE already, the rebuild would change nothing.
    let candidate = plan.nodes.iter().any(|node| {
        let condition = match &node.kind {
            NodeKind::Calc { filter, .. } | NodeKind::Scan { filter, .. } => filter.as_ref(),
            NodeKind::Join { residual, .. } => residual.as_ref(),
            _ => None,
        };
        condition.is_some_and(is_true)
            || node.kind.exprs().into_iter().any(|e| fold(e.clone()) != *e)
    });
    if !candidate {
        return None;
    }
    let mut changed = false;
    let new = rebuild(plan, |new, _, mut node| {
        let mut fold_all = |e: &mut Expr| {
            let folded = fold(e.clone());
            if folded != *e {
                changed = true;
                *e = folded;
            }
        };
        match &mut node.kind {
            NodeKind::Calc {
                projections,
                filter,
                ..
            } => {
                projections.iter_mut().for_each(&mut fold_all);
                filter.iter_mut().for_each(&mut fold_all);
                if filter.as_ref().is_some_and(is_true) {
                    *filter = None;
                    changed = true;
                }
            }
            NodeKind::Scan { filter, .. } => {
                filter.iter_mut().for_each(&mut fold_all);
                if filter.as_ref().is_some_and(is_true) {
                    *filter = None;
                    changed = true;
                }
            }
            NodeKind::Join { residual, .. } => {
                residual.iter_mut().for_each(&mut fold_all);
                if residual.as_ref().is_some_and(is_true) {
                    *residual = None;
                    changed = true;
                }
            }
            NodeKind::Values { rows } => rows.iter_mut().flatten().for_each(&mut fold_all),
            _ => {}
        }
        keep(new, node)
    });
    changed.then_some(new)
}

fn placeholder() -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Null),
        ty: crate::types::DataType::null(),
        span: crate::diagnostics::Span::default(),
    }
}

fn boolean(e: &Expr) -> Option<bool> {
    match e.kind {
        ExprKind::Literal(Literal::Boolean(b)) => Some(b),
        _ => None,
    }
}

/// Folds an expression bottom-up.
pub(crate) fn fold(mut e: Expr) -> Expr {
    map_children(&mut e, &mut |c| {
        *c = fold(std::mem::replace(c, placeholder()))
    });
    let span = e.span;
    let ty = e.ty;
    let lit = |b: bool| Expr {
        kind: ExprKind::Literal(Literal::Boolean(b)),
        ty,
        span,
    };
    match &e.kind {
        ExprKind::Binary { op, left, right } => match (op, boolean(left), boolean(right)) {
            (BinaryOp::And, Some(true), _) if right.ty.nullable == ty.nullable => {
                return (**right).clone()
            }
            (BinaryOp::And, _, Some(true)) if left.ty.nullable == ty.nullable => {
                return (**left).clone()
            }
            (BinaryOp::And, Some(false), _) | (BinaryOp::And, _, Some(false)) => return lit(false),
            (BinaryOp::Or, Some(true), _) | (BinaryOp::Or, _, Some(true)) => return lit(true),
            (BinaryOp::Or, Some(false), _) if right.ty.nullable == ty.nullable => {
                return (**right).clone()
            }
            (BinaryOp::Or, _, Some(false)) if left.ty.nullable == ty.nullable => {
                return (**left).clone()
            }
            _ => {}
        },
        ExprKind::Unary {
            op: UnaryOp::Not,
            operand,
        } => {
            if let Some(b) = boolean(operand) {
                return lit(!b);
            }
        }
        ExprKind::Cast {
            operand,
            try_cast: false,
        } => match (&operand.kind, ty.kind) {
            (ExprKind::Literal(Literal::Integer(v)), to) if to.is_integer() && fits(*v, to) => {
                return Expr {
                    kind: ExprKind::Literal(Literal::Integer(*v)),
                    ty,
                    span,
                };
            }
            (ExprKind::Literal(Literal::String(s)), TypeKind::Varchar(n))
                if s.chars().count() <= n as usize =>
            {
                return Expr {
                    kind: ExprKind::Literal(Literal::String(s.clone())),
                    ty,
                    span,
                };
            }
            _ => {}
        },
        _ => {}
    }
    e
}

fn fits(v: i64, kind: TypeKind) -> bool {
    match kind {
        TypeKind::TinyInt => i8::try_from(v).is_ok(),
        TypeKind::SmallInt => i16::try_from(v).is_ok(),
        TypeKind::Int => i32::try_from(v).is_ok(),
        TypeKind::BigInt => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::passes::test_support::check_pass;

    const TABLES: &str =
        "CREATE TABLE t (a INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
        CREATE TABLE k (a BIGINT, s STRING) WITH ('connector' = 'blackhole');";

    #[test]
    fn folds_literal_casts_and_always_true_conjuncts() {
        check_pass(
            "constant_folding",
            &format!("{TABLES} INSERT INTO k SELECT a, s FROM t WHERE s = 'x' AND TRUE;"),
            "
Sink #4 k [blackhole] INSERT INTO
+- Calc #3 select=[CAST(a AS BIGINT) AS a, s]
   +- Calc #2 select=[a, s]
      +- Calc #1 where=[(s = 'x')] select=[a, s]
         +- Scan #0 t [datagen] read=[a, s]
",
        );
    }

    #[test]
    fn leaves_plans_without_constants_alone() {
        check_pass(
            "constant_folding",
            &format!("{TABLES} INSERT INTO k SELECT a, s FROM t WHERE a > a;"),
            "unchanged",
        );
    }
}
