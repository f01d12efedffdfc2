//! Row-value comparison: `(a, b) = (1, 'x')` and `(a, b) <> (1, 'x')` (also
//! spelled `ROW(a, b)`), which Flink 2.3 accepts. Observed semantics (`fixtures/predicates`):
//!
//! - `=` is expanded field by field: `a = 1 AND b = 'x'` with SQL's
//!   three-valued logic (`(5, NULL) = (5, 'ab')` is NULL, `(NULL, 'x') =
//!   (5, 'ab')` is FALSE).
//! - `<>` is NOT the negation of `=`: Flink compares the two rows as values,
//!   NULL fields equal to each other, so it is `a IS DISTINCT FROM 1 OR b IS
//!   DISTINCT FROM 'x'` and never NULL (`(5, NULL) <> (5, 'ab')` is TRUE,
//!   `(0, NULL) <> (0, NULL)` is FALSE, `(5, 5.00) <> (5.00, 5)` is FALSE).
//!   stmtc types it BOOLEAN NOT NULL (Flink declares it nullable, though no
//!   value is NULL).
//! - A nested row (`(x, (a, b)) = (5, (1, 10))`) is refused: Flink compares
//!   the inner row as one value (`(5, (NULL, 10)) = (5, (1, 10))` is FALSE,
//!   not NULL), which was not observed far enough to reproduce.
//! - `<`, `<=`, `>`, `>=` pass Flink's validator and then fail in its code
//!   generation ("Comparable type expected, but was 'ROW<...>'"): refused.
//!
//! Each pair of fields is compared as `=` compares it (same implicit casts
//! and refusals).

use sqlparser::ast::{self as sql, BinaryOperator, Spanned};

use super::expr::ExprCx;
use super::Binder;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{BinaryOp, Expr, ExprKind};
use crate::types::{DataType, TypeKind};

type BResult<T> = Result<T, Diagnostic>;

impl Binder<'_> {
    /// A comparison with a row value (`(a, b)`) on either side.
    pub(crate) fn bind_row_comparison(
        &mut self,
        left: &sql::Expr,
        op: &BinaryOperator,
        right: &sql::Expr,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        if matches!(
            op,
            BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq
        ) {
            // Flink 2.3 validates these and then fails in code generation.
            return Err(Diagnostic::error(
                span,
                format!("Comparable type expected, but was a ROW: row values cannot be compared with `{op}`"),
            ));
        }
        match op {
            BinaryOperator::Eq => self.row_fieldwise(left, right, false, cx, span),
            BinaryOperator::NotEq => self.row_fieldwise(left, right, true, cx, span),
            // Arithmetic, AND/OR, `||`...: Flink refuses a ROW operand there too.
            _ => Err(Diagnostic::error(
                span,
                format!("a row value cannot be an operand of `{op}`"),
            )),
        }
    }

    /// `=` (AND of `=`) or, with `distinct`, `<>` (OR of IS DISTINCT FROM).
    fn row_fieldwise(
        &mut self,
        left: &sql::Expr,
        right: &sql::Expr,
        distinct: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let (l, r) = match (row_fields(left), row_fields(right)) {
            (Some(l), Some(r)) => (l, r),
            (None, None) => {
                let l = self.bind_expr(left, cx, span)?;
                let r = self.bind_expr(right, cx, span)?;
                if !distinct {
                    return self.comparison(BinaryOp::Eq, l, r, span);
                }
                let mut e = self.comparison(BinaryOp::IsDistinctFrom, l, r, span)?;
                e.ty.nullable = false;
                return Ok(e);
            }
            (Some(_), None) | (None, Some(_)) => {
                let scalar = if row_fields(left).is_some() {
                    right
                } else {
                    left
                };
                return Err(Diagnostic::error(
                    self.span(scalar.span(), span),
                    "a row value can only be compared with a row value of the same width",
                ));
            }
        };
        if l.len() != r.len() {
            return Err(Diagnostic::error(
                self.span(right.span(), span),
                format!(
                    "a row of {} fields cannot be compared with a row of {} fields",
                    l.len(),
                    r.len()
                ),
            ));
        }
        let mut all: Option<Expr> = None;
        for (a, b) in l.into_iter().zip(r) {
            if row_fields(a).is_some() || row_fields(b).is_some() {
                return Err(Diagnostic::unsupported(
                    self.span(a.span(), span),
                    "a nested row value in a row comparison",
                ));
            }
            let field = self.row_fieldwise(a, b, distinct, cx, span)?;
            let op = if distinct {
                BinaryOp::Or
            } else {
                BinaryOp::And
            };
            all = Some(match all {
                None => field,
                Some(acc) => logical(op, acc, field, span),
            });
        }
        Ok(all.expect("a row value has at least one field"))
    }
}

/// Whether `e` is a row value: `(a, b, ...)` or `ROW(a, ...)`.
pub(crate) fn is_row_value(e: &sql::Expr) -> bool {
    row_fields(e).is_some()
}

/// The fields of a row value `(a, b, ...)` or `ROW(a, ...)` (Flink treats both
/// spellings alike, observed); `(a)` is a parenthesised scalar.
fn row_fields(e: &sql::Expr) -> Option<Vec<&sql::Expr>> {
    match e {
        sql::Expr::Tuple(fields) => Some(fields.iter().collect()),
        sql::Expr::Nested(inner) => row_fields(inner),
        sql::Expr::Function(f) => {
            let [name] = f.name.0.as_slice() else {
                return None;
            };
            let name = name.as_ident()?;
            if name.quote_style.is_some() || !name.value.eq_ignore_ascii_case("ROW") {
                return None;
            }
            if f.filter.is_some() || f.over.is_some() || !f.within_group.is_empty() {
                return None;
            }
            let sql::FunctionArguments::List(list) = &f.args else {
                return None;
            };
            if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
                return None;
            }
            list.args
                .iter()
                .map(|a| match a {
                    sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .filter(|fields| !fields.is_empty())
        }
        _ => None,
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
