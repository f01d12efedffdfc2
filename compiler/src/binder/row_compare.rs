//! Row-value comparison: `(a, b) = (1, 'x')`, `(a, b) <> (1, 'x')` and `(a, b)
//! IS [NOT] DISTINCT FROM (1, 'x')` (also spelled `ROW(a, b)`), which Flink 2.3
//! accepts. Observed semantics (`docs/flink-observed/row-probes/RESULTS.md`):
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
//! - `IS NOT DISTINCT FROM` is `a IS NOT DISTINCT FROM 1 AND b IS NOT
//!   DISTINCT FROM 'x'`. `IS DISTINCT FROM` is computed by Flink as the AND of
//!   the fields' IS DISTINCT FROM (Calcite's `RelOptUtil.isDistinctFrom`), so
//!   `(1, 2) IS DISTINCT FROM (1, 3)` is FALSE there: refused for rows of two
//!   fields or more (one field is right).
//! - A nested row (`(x, (a, b)) = (5, (1, 10))`) is compared as ONE value in
//!   every form (`=`, `<>`, IN): equal when every field IS NOT DISTINCT FROM
//!   its partner, deeper rows alike, never NULL (`(5, (NULL, 10)) = (5, (NULL,
//!   10))` is TRUE, `(5, (NULL, 10)) = (5, (1, 10))` FALSE). Flink answers
//!   right only when the paired inner fields have one type, or are both
//!   integers or both strings: `(d, 1) = (5, 1)` with `d DOUBLE` 5.0 is FALSE
//!   there (and `<>` calls the same rows equal), so other pairs are refused.
//! - A bare `NULL` in the left row of `<>` / IS [NOT] DISTINCT FROM, or in a
//!   nested row on the left of `=`, fails in Flink ("Illegal type: NULL"):
//!   refused with that wording.
//! - `<`, `<=`, `>`, `>=` pass Flink's validator and then fail in its code
//!   generation ("Comparable type expected, but was 'ROW<...>'"): refused.
//!
//! Each pair of top-level fields is compared as `=` compares it (same
//! implicit casts and refusals).

use sqlparser::ast::{self as sql, BinaryOperator, Spanned};

use super::expr::ExprCx;
use super::Binder;
use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::types::{DataType, TypeKind};

type BResult<T> = Result<T, Diagnostic>;

/// A bound row value: its fields, an inner row kept as a tree.
#[derive(Clone)]
pub(crate) enum RowField {
    Scalar(Expr),
    Row(Vec<RowField>, Span),
}

impl RowField {
    pub(crate) fn span(&self) -> Span {
        match self {
            RowField::Scalar(e) => e.span,
            RowField::Row(_, span) => *span,
        }
    }

    /// The first bare (untyped) `NULL` in this field, if `nested` also inside
    /// inner rows.
    fn bare_null(&self, nested: bool) -> Option<Span> {
        match self {
            RowField::Scalar(e) => (e.ty.kind == TypeKind::Null).then_some(e.span),
            RowField::Row(fields, _) if nested => fields.iter().find_map(|f| f.bare_null(true)),
            RowField::Row(..) => None,
        }
    }
}

/// The first bare `NULL` in `fields`: anywhere, or (`nested_only`) inside an inner row.
pub(crate) fn bare_null_in(fields: &[RowField], nested_only: bool) -> Option<Span> {
    fields.iter().find_map(|f| match f {
        RowField::Scalar(_) if nested_only => None,
        f => f.bare_null(true),
    })
}

/// Flink's failure on a bare `NULL` where it cannot type one (observed).
pub(crate) fn illegal_null(span: Span) -> Diagnostic {
    Diagnostic::error(span, "Illegal type: NULL")
        .with_note("Flink 2.3 fails on an untyped NULL in this position of a row value")
        .with_help("give the NULL a type: CAST(NULL AS INT)")
}

/// How the top-level field pairs of two rows combine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `=`: AND of `=`.
    Eq,
    /// `<>`: OR of IS DISTINCT FROM.
    NotEq,
    /// IS NOT DISTINCT FROM: AND of IS NOT DISTINCT FROM.
    NotDistinct,
    /// IS DISTINCT FROM of one-field rows.
    Distinct,
}

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
        let mode = match op {
            BinaryOperator::Eq => Mode::Eq,
            BinaryOperator::NotEq => Mode::NotEq,
            // Flink 2.3 validates these and then fails in code generation.
            BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq => {
                return Err(Diagnostic::error(
                    span,
                    format!("Comparable type expected, but was a ROW: row values cannot be compared with `{op}`"),
                ))
            }
            // Arithmetic, AND/OR, `||`...: Flink refuses a ROW operand there too.
            _ => {
                return Err(Diagnostic::error(
                    span,
                    format!("a row value cannot be an operand of `{op}`"),
                ))
            }
        };
        self.bind_row_pair(left, right, mode, cx, span)
    }

    /// `(a, b) IS [NOT] DISTINCT FROM (c, d)`.
    pub(crate) fn bind_row_distinct(
        &mut self,
        left: &sql::Expr,
        right: &sql::Expr,
        distinct: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        if distinct {
            let width = row_fields(left)
                .or_else(|| row_fields(right))
                .map_or(1, |f| f.len());
            if width > 1 {
                return Err(Diagnostic::error(
                    span,
                    "IS DISTINCT FROM over row values of more than one field is not supported",
                )
                .with_note(
                    "Flink 2.3 computes it as the AND of the fields' IS DISTINCT FROM: \
                     (1, 2) IS DISTINCT FROM (1, 3) is FALSE there",
                )
                .with_help("write NOT ((a, b) IS NOT DISTINCT FROM (c, d))"));
            }
        }
        let mode = if distinct {
            Mode::Distinct
        } else {
            Mode::NotDistinct
        };
        self.bind_row_pair(left, right, mode, cx, span)
    }

    /// Both sides bound as row trees, their top-level field pairs combined
    /// as `mode` says.
    fn bind_row_pair(
        &mut self,
        left: &sql::Expr,
        right: &sql::Expr,
        mode: Mode,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        let (l, r) = match (
            self.bind_row_field(left, cx, span)?,
            self.bind_row_field(right, cx, span)?,
        ) {
            (RowField::Row(l, _), RowField::Row(r, rspan)) => {
                check_width(&l, &r, rspan)?;
                (l, r)
            }
            (RowField::Row(..), scalar) | (scalar, RowField::Row(..)) => {
                return Err(Diagnostic::error(
                    scalar.span(),
                    "a row value can only be compared with a row value of the same width",
                ))
            }
            // Not reached (one side is a row value); compared as scalars.
            (a, b) => return self.compare_fields(a, b, mode, span),
        };
        // Flink types a bare NULL from the right-hand row only (observed).
        let nested_only = mode == Mode::Eq;
        if let Some(null) = bare_null_in(&l, nested_only) {
            return Err(illegal_null(null));
        }
        let combine = match mode {
            Mode::Eq | Mode::NotDistinct | Mode::Distinct => BinaryOp::And,
            Mode::NotEq => BinaryOp::Or,
        };
        let mut all: Option<Expr> = None;
        for (a, b) in l.into_iter().zip(r) {
            let field = self.compare_fields(a, b, mode, span)?;
            all = Some(match all {
                None => field,
                Some(acc) => logical(combine, acc, field, span),
            });
        }
        Ok(all.expect("a row value has at least one field"))
    }

    /// One pair of top-level fields, compared as `mode` compares them.
    fn compare_fields(
        &mut self,
        a: RowField,
        b: RowField,
        mode: Mode,
        span: Span,
    ) -> BResult<Expr> {
        match (a, b) {
            (RowField::Scalar(a), RowField::Scalar(b)) => {
                let op = match mode {
                    Mode::Eq => BinaryOp::Eq,
                    Mode::NotEq | Mode::Distinct => BinaryOp::IsDistinctFrom,
                    Mode::NotDistinct => BinaryOp::IsNotDistinctFrom,
                };
                let mut e = self.comparison(op, a, b, span)?;
                if op != BinaryOp::Eq {
                    e.ty.nullable = false;
                }
                Ok(e)
            }
            (RowField::Row(a, _), RowField::Row(b, bspan)) => {
                let equal = self.row_value_equal(a, b, bspan, span)?;
                Ok(match mode {
                    Mode::Eq | Mode::NotDistinct => equal,
                    Mode::NotEq | Mode::Distinct => not(equal, span),
                })
            }
            (RowField::Row(..), scalar) | (scalar, RowField::Row(..)) => Err(Diagnostic::error(
                scalar.span(),
                "a row value can only be compared with a row value of the same width",
            )),
        }
    }

    /// Two inner rows compared as one value each: TRUE when every field IS
    /// NOT DISTINCT FROM its partner (deeper rows alike), never NULL.
    pub(crate) fn row_value_equal(
        &mut self,
        a: Vec<RowField>,
        b: Vec<RowField>,
        bspan: Span,
        span: Span,
    ) -> BResult<Expr> {
        check_width(&a, &b, bspan)?;
        let mut all: Option<Expr> = None;
        for (x, y) in a.into_iter().zip(b) {
            let field = match (x, y) {
                (RowField::Scalar(x), RowField::Scalar(y)) => {
                    if !same_value_type(&x.ty, &y.ty) {
                        return Err(Diagnostic::error(
                            y.span,
                            format!(
                                "fields of types {} and {} in a nested row value cannot be compared",
                                x.ty.kind, y.ty.kind
                            ),
                        )
                        .with_note(
                            "Flink 2.3 compares a nested row as one value and answers wrongly \
                             when paired fields differ in type ((d, 1) = (5, 1) is FALSE for a DOUBLE d of 5.0)",
                        )
                        .with_help("CAST the fields to one type"));
                    }
                    let mut e = self.comparison(BinaryOp::IsNotDistinctFrom, x, y, span)?;
                    e.ty.nullable = false;
                    e
                }
                (RowField::Row(x, _), RowField::Row(y, yspan)) => {
                    self.row_value_equal(x, y, yspan, span)?
                }
                (RowField::Row(..), scalar) | (scalar, RowField::Row(..)) => {
                    return Err(Diagnostic::error(
                        scalar.span(),
                        "a row value can only be compared with a row value of the same width",
                    ))
                }
            };
            all = Some(match all {
                None => field,
                Some(acc) => logical(BinaryOp::And, acc, field, span),
            });
        }
        Ok(all.expect("a row value has at least one field"))
    }

    /// `e` bound as a row tree when it is a row value, else as a scalar.
    pub(crate) fn bind_row_field(
        &mut self,
        e: &sql::Expr,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<RowField> {
        match row_fields(e) {
            Some(fields) => {
                let mut bound = Vec::with_capacity(fields.len());
                for f in fields {
                    bound.push(self.bind_row_field(f, cx, span)?);
                }
                Ok(RowField::Row(bound, self.span(e.span(), span)))
            }
            None => self.bind_expr(e, cx, span).map(RowField::Scalar),
        }
    }
}

/// Rows of different widths: Flink fails with "Index 2 out of bounds for length 2".
fn check_width(l: &[RowField], r: &[RowField], rspan: Span) -> BResult<()> {
    if l.len() == r.len() {
        return Ok(());
    }
    Err(Diagnostic::error(
        rspan,
        format!(
            "a row of {} fields cannot be compared with a row of {} fields",
            l.len(),
            r.len()
        ),
    ))
}

/// Whether Flink compares two fields of nested rows right (observed): one
/// type (precision and length included), two integers, two strings, or an
/// untyped NULL.
fn same_value_type(a: &DataType, b: &DataType) -> bool {
    a.kind == b.kind
        || a.kind == TypeKind::Null
        || b.kind == TypeKind::Null
        || (a.kind.is_integer() && b.kind.is_integer())
        || (a.kind.is_string() && b.kind.is_string())
}

/// Whether `e` is a row value: `(a, b, ...)` or `ROW(a, ...)`.
pub(crate) fn is_row_value(e: &sql::Expr) -> bool {
    row_fields(e).is_some()
}

/// The fields of a row value `(a, b, ...)` or `ROW(a, ...)` (Flink treats both
/// spellings alike, observed); `(a)` is a parenthesised scalar.
pub(crate) fn row_fields(e: &sql::Expr) -> Option<Vec<&sql::Expr>> {
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

fn not(e: Expr, span: Span) -> Expr {
    Expr {
        ty: e.ty,
        kind: ExprKind::Unary {
            op: UnaryOp::Not,
            operand: Box::new(e),
        },
        span,
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

#[cfg(test)]
mod tests {
    use crate::binder::test_support::assert_first_error;

    const TABLES: &str = "
        SET 'execution.runtime-mode' = 'batch';
        CREATE TABLE t (k INT, v INT)
          WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
        CREATE TABLE w (a INT, b BIGINT, d DOUBLE, s STRING, n INT)
          WITH ('connector' = 'filesystem', 'path' = 'w.csv', 'format' = 'csv');
        CREATE TABLE o (k INT, x BOOLEAN) WITH ('connector' = 'blackhole');
    ";

    /// The first error binding `INSERT INTO o SELECT k, <predicate> FROM t`
    /// (or `w AS t(k, ...)`) after [`TABLES`], or `ok`.
    #[track_caller]
    fn check(predicate: &str, expect: &str) {
        let sql = format!(
            "{TABLES}\nINSERT INTO o SELECT k, {predicate} FROM t, \
             (SELECT a, b, d, s, n FROM w) AS w;"
        );
        assert_first_error(&sql, predicate, expect);
    }

    #[test]
    fn accepted_forms() {
        for p in [
            "(k, v) IS NOT DISTINCT FROM (4, CAST(NULL AS INT))",
            "(k, v) IS NOT DISTINCT FROM (NULL, 5)",
            "ROW(k, v) IS NOT DISTINCT FROM (a, b)",
            "(a, d) IS NOT DISTINCT FROM (d, a)",
            "NOT ((k, v) IS NOT DISTINCT FROM (1, 10))",
            "ROW(k) IS DISTINCT FROM ROW(1)",
            "ROW(k) IS DISTINCT FROM ROW(NULL)",
            "ROW((k, v)) IS DISTINCT FROM ROW((1, 10))",
            "(k, (v, 1)) = (1, (10, 1))",
            "(k, (v, 1)) = (4, (NULL, 1))",
            "(NULL, (v, 1)) = (k, (5, 1))",
            "(k, (v, 1)) <> (4, (CAST(NULL AS INT), 1))",
            "(k, (v, (k, 1))) = (1, (10, (1, 1)))",
            "((k, v), (v, k)) = ((1, 10), (10, 1))",
            "(k, ROW(v, 1)) = (1, ROW(10, 1))",
            "(k, (v, 1)) IS NOT DISTINCT FROM (4, (NULL, 1))",
            // Integers with integers, strings with strings, one type.
            "(k, (b, 1)) = (1, (a, 1))",
            "(k, (s, n)) = (5, ('ab', 2))",
            "(k, (d, 1)) = (5, (CAST(5 AS DOUBLE), 1))",
            "(k, (v, 1)) IN ((1, (10, 1)), (4, (NULL, 1)))",
            "(k, (v, 1)) NOT IN ((4, (CAST(NULL AS INT), 1)), (NULL, (5, 1)))",
            "(NULL, (v, 1)) IN ((4, (5, 1)), (1, (10, 1)))",
            "ROW(k, v) IN ((1, 10), (4, 5))",
            "(k, v) IN (ROW(1, 10), ROW(2, 20))",
            "ROW(k, (v, 1)) NOT IN ((1, (10, 1)), (2, ROW(20, 1)))",
        ] {
            check(p, "ok");
        }
    }

    #[test]
    fn refused_forms() {
        // Flink: AND of the fields' IS DISTINCT FROM.
        check(
            "(k, v) IS DISTINCT FROM (1, 10)",
            "IS DISTINCT FROM over row values of more than one field is not supported",
        );
        check(
            "(k, (v, 1)) IS DISTINCT FROM (1, (10, 1))",
            "IS DISTINCT FROM over row values of more than one field",
        );
        // Flink: "Illegal type: NULL".
        for p in [
            "(NULL, 5) IS NOT DISTINCT FROM (k, v)",
            "(k, NULL) IS NOT DISTINCT FROM (4, v)",
            "ROW(NULL) IS DISTINCT FROM ROW(k)",
            "(NULL, 5) <> (k, v)",
            "(k, (NULL, 1)) <> (4, (v, 1))",
            "(k, (NULL, 1)) = (4, (v, 1))",
            "(k, (NULL, 1)) IN ((4, (v, 1)), (1, (10, 1)))",
            "(k, (v, 1)) IN ((4, (NULL, 1)))",
            "(k, (v, 1)) NOT IN ((4, (NULL, 1)))",
        ] {
            check(p, "Illegal type: NULL");
        }
        // Flink compares such nested fields wrongly.
        for p in [
            "(k, (d, 1)) = (5, (5, 1))",
            "(k, (d, 1)) = (5, (5.0, 1))",
            "(k, (v, 1)) = (1, (10.0, 1))",
            "(k, (10.0, 1)) = (k, (10.00, 1))",
            "(k, (s, 1)) = (1, (1, 1))",
            "(k, (d, 1)) IS NOT DISTINCT FROM (5, (5, 1))",
            "(k, (v, 1)) IN ((1, (1.0, 1)), (5, (5, 1)))",
        ] {
            check(p, "fields of types");
        }
        // Widths, scalars against rows: Flink fails in validation.
        check(
            "(k, (v, 1)) = (1, (10, 1, 2))",
            "a row of 2 fields cannot be compared with a row of 3 fields",
        );
        check(
            "(k, v) IS NOT DISTINCT FROM (1, 10, 1)",
            "a row of 2 fields cannot be compared with a row of 3 fields",
        );
        check(
            "(k, (v, 1)) = (1, 10)",
            "a row value can only be compared with a row value of the same width",
        );
        check(
            "(k, v) IS NOT DISTINCT FROM k",
            "a row value can only be compared with a row value of the same width",
        );
        check(
            "ROW(k, v) IN (ROW(1, 10, 2))",
            "values passed to IN must have compatible types: a row of 2 fields compared with 3 values",
        );
        check(
            "(k, (v, 1)) IN ((1, 10))",
            "a row value can only be compared with a row value of the same width",
        );
        // Top-level pairs compare as `=` does.
        check(
            "(k, s) IS NOT DISTINCT FROM (5, 1)",
            "implicit type conversion between VARCHAR and INTEGER is not supported now",
        );
        check(
            "(k, v) IS NOT DISTINCT FROM (TRUE, 10)",
            "Cannot apply 'IS NOT DISTINCT FROM'",
        );
        check("(k, (v, 1)) < (1, (10, 1))", "Comparable type expected");
    }
}
