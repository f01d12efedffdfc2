//! Columns that are never NULL though their types allow it.
//!
//! A filter that is never TRUE when a column is NULL leaves no row where it
//! is (`WHERE quantity > 0` keeps no NULL `quantity`), and strict arithmetic
//! over such columns is not NULL either. Flink keeps the types of these
//! columns nullable (Calcite's row types do not narrow after a filter), and so
//! does the plan: output types, and so sink checks and explain, stay Flink's.
//! Code generation asks here to keep smaller state, e.g. an aggregate's SUM
//! of such a column counts its rows with the group's `COUNT(*)`.

use crate::ir::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::types::TypeKind;

use super::normalize::never_true_when_null;
use super::{NodeId, NodeKind, Plan};

/// For each output column of `n`: whether no row of `n` has it NULL.
pub(crate) fn never_null(plan: &Plan, n: NodeId) -> Vec<bool> {
    let node = plan.node(n);
    let by_type = || node.schema.iter().map(|f| !f.ty.nullable).collect();
    match &node.kind {
        NodeKind::Scan { filter, .. } => {
            let mut cols: Vec<bool> = by_type();
            if let Some(f) = filter {
                filtered(&mut cols, f);
            }
            cols
        }
        NodeKind::Calc {
            input,
            projections,
            filter,
        } => {
            let mut cols = never_null(plan, *input);
            if let Some(f) = filter {
                filtered(&mut cols, f);
            }
            projections
                .iter()
                .map(|e| expr_never_null(e, &cols))
                .collect()
        }
        _ => by_type(),
    }
}

/// Marks the columns that `filter` leaves no NULL of.
fn filtered(cols: &mut [bool], filter: &Expr) {
    for (c, never) in cols.iter_mut().enumerate() {
        *never = *never || never_true_when_null(filter, &|k| k == c);
    }
}

/// Whether `e` is never NULL when the columns `cols` marks are not NULL.
/// Conservative: only operators that cannot produce a NULL from non-NULL
/// operands (no division, no DECIMAL arithmetic, which is NULL on overflow,
/// no casts that can fail or overflow).
fn expr_never_null(e: &Expr, cols: &[bool]) -> bool {
    if !e.ty.nullable {
        return true;
    }
    match &e.kind {
        ExprKind::Column(c) => cols[*c],
        ExprKind::Binary {
            op: BinaryOp::Plus | BinaryOp::Minus | BinaryOp::Multiply,
            left,
            right,
        } => {
            is_binary_number(e.ty.kind)
                && expr_never_null(left, cols)
                && expr_never_null(right, cols)
        }
        ExprKind::Unary {
            op: UnaryOp::Negate,
            operand,
        } => is_binary_number(e.ty.kind) && expr_never_null(operand, cols),
        ExprKind::Cast {
            operand,
            try_cast: false,
        } => {
            is_binary_number(e.ty.kind)
                && is_binary_number(operand.ty.kind)
                && expr_never_null(operand, cols)
        }
        ExprKind::Extract { operand, .. } => expr_never_null(operand, cols),
        _ => false,
    }
}

/// Integers (Java's wrapping arithmetic) and floating point: arithmetic and
/// casts among them always have a value.
fn is_binary_number(kind: TypeKind) -> bool {
    kind.is_integer() || matches!(kind, TypeKind::Float | TypeKind::Double)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Literal;
    use crate::types::DataType;

    fn col(c: usize, kind: TypeKind) -> Expr {
        super::super::rewrite::column(c, DataType::new(kind, true))
    }

    fn binary(op: BinaryOp, l: Expr, r: Expr, kind: TypeKind) -> Expr {
        Expr {
            kind: ExprKind::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
            },
            ty: DataType::new(kind, true),
            span: Default::default(),
        }
    }

    fn int_lit(v: i64) -> Expr {
        Expr {
            kind: ExprKind::Literal(Literal::Integer(v)),
            ty: DataType::new(TypeKind::Int, false),
            span: Default::default(),
        }
    }

    #[test]
    fn a_comparison_in_a_filter_leaves_its_column_never_null() {
        let positive = |c| {
            binary(
                BinaryOp::Gt,
                col(c, TypeKind::Int),
                int_lit(0),
                TypeKind::Boolean,
            )
        };
        let both = binary(BinaryOp::And, positive(0), positive(1), TypeKind::Boolean);
        let either = binary(BinaryOp::Or, positive(0), positive(1), TypeKind::Boolean);
        let mut cols = vec![false; 3];
        filtered(&mut cols, &both);
        assert_eq!(cols, [true, true, false]);
        let mut cols = vec![false; 3];
        filtered(&mut cols, &either);
        assert_eq!(cols, [false, false, false], "OR keeps NULLs of either side");
    }

    #[test]
    fn strict_arithmetic_of_never_null_columns_is_never_null() {
        let cols = [true, true, false];
        let product = binary(
            BinaryOp::Multiply,
            col(0, TypeKind::Double),
            col(1, TypeKind::Double),
            TypeKind::Double,
        );
        assert!(expr_never_null(&product, &cols));
        let with_nullable = binary(
            BinaryOp::Plus,
            col(0, TypeKind::Double),
            col(2, TypeKind::Double),
            TypeKind::Double,
        );
        assert!(!expr_never_null(&with_nullable, &cols));
        // DECIMAL arithmetic is NULL on overflow; division may fail.
        let decimal = binary(
            BinaryOp::Plus,
            col(
                0,
                TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                },
            ),
            col(
                1,
                TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                },
            ),
            TypeKind::Decimal {
                precision: 11,
                scale: 2,
            },
        );
        assert!(!expr_never_null(&decimal, &cols));
        let quotient = binary(
            BinaryOp::Divide,
            col(0, TypeKind::Double),
            col(1, TypeKind::Double),
            TypeKind::Double,
        );
        assert!(!expr_never_null(&quotient, &cols));
    }
}
