//! Row-value IN lists: `(a, b) IN ((1, 'x'), (2, 'y'))`, also spelled with
//! `ROW(...)` on either side, which Flink 2.3 accepts (observed). It means `(a = 1 AND b = 'x') OR (a = 2 AND b = 'y')`
//! with SQL's three-valued logic, which is how Calcite expands it; `NOT IN`
//! is the negation (so a NULL field gives NULL unless another field
//! differs). Each pair is compared as `=` compares it; a nested row (`(k,
//! (v, 1)) IN ((1, (10, 1)))`) is compared as one value, as `=` compares it
//! (`row_compare.rs`). A bare `NULL` inside a nested row of the operand, or of
//! the only item of the list, fails in Flink ("Illegal type: NULL", observed):
//! refused alike.

use sqlparser::ast::{self as sql, Spanned};

use super::expr::ExprCx;
use super::row_compare::{bare_null_in, illegal_null, row_fields, RowField};
use super::Binder;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::types::{DataType, TypeKind};

type BResult<T> = Result<T, Diagnostic>;

impl Binder<'_> {
    pub(crate) fn bind_row_in(
        &mut self,
        fields: &[&sql::Expr],
        list: &[sql::Expr],
        negated: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let mut operands = Vec::with_capacity(fields.len());
        for f in fields {
            operands.push(self.bind_row_field(f, cx, span)?);
        }
        if let Some(null) = bare_null_in(&operands, true) {
            return Err(illegal_null(null));
        }
        let mut any: Option<Expr> = None;
        for item in list {
            let values = row_fields(item).unwrap_or_else(|| vec![item]);
            if values.len() != operands.len() {
                // Flink: "Values passed to IN operator must have compatible types".
                return Err(Diagnostic::error(
                    self.span(item.span(), span),
                    format!(
                        "values passed to IN must have compatible types: a row of {} fields \
                         compared with {} values",
                        operands.len(),
                        values.len()
                    ),
                ));
            }
            let mut bound = Vec::with_capacity(values.len());
            for v in values {
                bound.push(self.bind_row_field(v, cx, span)?);
            }
            if list.len() == 1 {
                if let Some(null) = bare_null_in(&bound, true) {
                    return Err(illegal_null(null));
                }
            }
            let mut all: Option<Expr> = None;
            for (x, v) in operands.iter().zip(bound) {
                let eq = self.row_in_field(x, v, span)?;
                all = Some(match all {
                    None => eq,
                    Some(acc) => logical(BinaryOp::And, acc, eq, span),
                });
            }
            let all = all.expect("a row has at least one field");
            any = Some(match any {
                None => all,
                Some(acc) => logical(BinaryOp::Or, acc, all, span),
            });
        }
        let any = any.expect("an IN list has at least one item");
        Ok(if negated {
            Expr {
                ty: any.ty,
                kind: ExprKind::Unary {
                    op: UnaryOp::Not,
                    operand: Box::new(any),
                },
                span,
            }
        } else {
            any
        })
    }

    /// One operand field against its value in a list item, as `=` compares them.
    fn row_in_field(&mut self, x: &RowField, v: RowField, span: Span) -> BResult<Expr> {
        match (x, v) {
            (RowField::Scalar(x), RowField::Scalar(v)) => {
                self.comparison(BinaryOp::Eq, x.clone(), v, span)
            }
            (RowField::Row(x, _), RowField::Row(v, vspan)) => {
                self.row_value_equal(x.clone(), v, vspan, span)
            }
            (RowField::Row(..), v) => Err(Diagnostic::error(
                v.span(),
                "a row value can only be compared with a row value of the same width",
            )),
            (x @ RowField::Scalar(_), RowField::Row(..)) => Err(Diagnostic::error(
                x.span(),
                "a row value can only be compared with a row value of the same width",
            )),
        }
    }
}

fn logical(op: BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
    let nullable = l.ty.nullable || r.ty.nullable;
    Expr {
        kind: ExprKind::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
        },
        ty: DataType::new(TypeKind::Boolean, nullable),
        span,
    }
}
