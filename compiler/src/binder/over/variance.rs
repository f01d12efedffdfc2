//! `STDDEV_POP`, `STDDEV_SAMP` (`STDDEV`), `VAR_POP` and `VAR_SAMP`
//! (`VARIANCE`) over a window, expanded into SUM and COUNT windows as
//! Calcite's AvgVarianceConvertlet does for Flink 2.3:
//!
//! ```text
//! VAR_POP(x)     (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / COUNT(x)
//! VAR_SAMP(x)    (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / NULLIF(COUNT(x) - 1, 0)
//! STDDEV_*(x)    POWER(VAR_*(x), 0.5)
//! ```
//!
//! each call `OVER` the same window, the argument and every intermediate
//! value cast to the function's type (where its type differs), the whole
//! cast to it too. The arithmetic is in that type, as in Flink: `VAR_SAMP`
//! of the INTs 10, 20, 5 is `(525 - 1225 / 3) / 2` = 58 (observed), not
//! 116.67; a FLOAT argument computes in FLOAT; a DECIMAL(p, s) one in
//! DECIMAL(38, max(6, s)) with Flink's decimal rules. (Calcite writes `CASE
//! WHEN COUNT(x) = 1 THEN NULL ELSE COUNT(x) - 1 END`; `NULLIF` differs
//! only for COUNT 0, where the sums are NULL.)

use sqlparser::ast::{
    self as sql, BinaryOperator, FunctionArg, FunctionArgExpr, FunctionArguments,
};

use super::super::expr::ExprCx;
use super::super::{cast_to_kind, Binder};
use super::sub_cx;
use crate::diagnostics::{Diagnostic, Span};
use crate::functions;
use crate::ir::Expr;
use crate::types::TypeKind;

type BResult<T> = Result<T, Diagnostic>;

/// The SQL spelling of a variance function's (numeric) result type, for
/// the casts of the expansion.
fn sql_type(kind: &TypeKind) -> sql::DataType {
    use sql::{DataType as T, ExactNumberInfo};
    match *kind {
        TypeKind::TinyInt => T::TinyInt(None),
        TypeKind::SmallInt => T::SmallInt(None),
        TypeKind::Int => T::Int(None),
        TypeKind::BigInt => T::BigInt(None),
        TypeKind::Float => T::Real,
        TypeKind::Decimal { precision, scale } => T::Decimal(ExactNumberInfo::PrecisionAndScale(
            u64::from(precision),
            i64::from(scale),
        )),
        _ => T::Double(ExactNumberInfo::None),
    }
}

/// The function's canonical name, and whether it is a standard deviation
/// and a sample statistic.
fn variance_kind(name: &str) -> Option<(&'static str, bool, bool)> {
    Some(match name.to_ascii_uppercase().as_str() {
        "STDDEV_POP" => ("STDDEV_POP", true, false),
        "STDDEV_SAMP" | "STDDEV" => ("STDDEV_SAMP", true, true),
        "VAR_POP" => ("VAR_POP", false, false),
        "VAR_SAMP" | "VARIANCE" => ("VAR_SAMP", false, true),
        _ => return None,
    })
}

impl Binder<'_> {
    /// Binds a STDDEV / VAR window call as its expansion; `None` when
    /// `function` is not one, or has not one plain argument (the normal
    /// path refuses those).
    pub(super) fn variance_window(
        &mut self,
        function: &sql::Function,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> Option<BResult<Expr>> {
        let name = match function.name.0.as_slice() {
            [part] => part.as_ident()?.value.clone(),
            _ => return None,
        };
        let (canonical, sqrt, sample) = variance_kind(&name)?;
        let FunctionArguments::List(list) = &function.args else {
            return None;
        };
        let [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] = list.args.as_slice() else {
            return None;
        };
        // Refused as for the other aggregate functions over windows, in
        // Flink's words (`bind_window_call`).
        let upper = name.to_ascii_uppercase();
        if matches!(
            list.duplicate_treatment,
            Some(sql::DuplicateTreatment::Distinct)
        ) {
            // Flink's planner fails on it ("Error while applying rule
            // BatchPhysicalOverAggregateRule", observed).
            return Some(Err(Diagnostic::error(
                span,
                format!(
                    "{upper}(DISTINCT ...) over a window is not supported by Flink's batch planner"
                ),
            )));
        }
        if function.filter.is_some() || !function.within_group.is_empty() {
            let clause = if function.filter.is_some() {
                "FILTER"
            } else {
                "WITHIN GROUP"
            };
            return Some(Err(Diagnostic::error(
                span,
                "OVER must be applied to aggregate function",
            )
            .with_note(format!(
                "this is Flink's message: it takes no {clause} on a window call"
            ))));
        }
        if function.null_treatment.is_some() {
            return Some(Err(Diagnostic::error(
                span,
                format!("Cannot specify IGNORE NULLS or RESPECT NULLS following '{upper}'"),
            )
            .with_note("this is Flink's message")));
        }
        if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
            return None;
        }
        Some(self.bind_variance(function, x, canonical, sqrt, sample, cx, span))
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_variance(
        &mut self,
        function: &sql::Function,
        x: &sql::Expr,
        name: &str,
        sqrt: bool,
        sample: bool,
        cx: &mut ExprCx<'_>,
        span: Span,
    ) -> BResult<Expr> {
        // The argument's type decides the result's (Flink's rule, as for
        // the aggregate) and the arithmetic's.
        let arg = {
            let mut arg_cx = sub_cx(cx, "SELECT");
            self.bind_expr(x, &mut arg_cx, span)?
        };
        let sig = match functions::resolve_aggregate_in(name, false, &[arg.ty], true) {
            Some(Ok(sig)) => sig,
            Some(Err(e)) => {
                return Err(super::super::expr::function_error(name, &[arg.ty], e, span))
            }
            None => unreachable!("a variance function"),
        };
        // Every intermediate value is cast to the function's type where
        // its own type differs, as Calcite's `getCastedSqlNode` does (the
        // binder drops a cast to the same type): with DECIMAL(20, 8) the
        // squares are DECIMAL(38, 6) by Flink's multiplication rule, and
        // the cast back to DECIMAL(38, 8) is what Flink computes
        // (observed, `fixtures/over_variance_types`).
        let var_type = sql_type(&sig.result.kind);
        let cast = |e: sql::Expr| sql::Expr::Cast {
            kind: sql::CastKind::Cast,
            expr: Box::new(e),
            data_type: var_type.clone(),
            format: None,
        };
        let call = |f: &str, arg: sql::Expr| {
            let mut call = function.clone();
            call.name = sql::ObjectName::from(vec![sql::Ident::new(f)]);
            call.args = FunctionArguments::List(sql::FunctionArgumentList {
                duplicate_treatment: None,
                args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))],
                clauses: Vec::new(),
            });
            sql::Expr::Function(call)
        };
        let binary = |l: sql::Expr, op: BinaryOperator, r: sql::Expr| sql::Expr::BinaryOp {
            left: Box::new(l),
            op,
            right: Box::new(r),
        };
        let number = |n: &str| sql::Expr::Value(sql::Value::Number(n.to_string(), false).into());
        let arg = cast(x.clone());
        let squares = cast(call(
            "SUM",
            cast(binary(arg.clone(), BinaryOperator::Multiply, arg.clone())),
        ));
        let sum = cast(call("SUM", arg.clone()));
        let count = call("COUNT", arg);
        let count_cast = cast(count.clone());
        let mean_square = cast(binary(
            cast(binary(sum.clone(), BinaryOperator::Multiply, sum)),
            BinaryOperator::Divide,
            count_cast.clone(),
        ));
        let diff = cast(binary(squares, BinaryOperator::Minus, mean_square));
        let denominator = if sample {
            let mut nullif = function.clone();
            nullif.name = sql::ObjectName::from(vec![sql::Ident::new("NULLIF")]);
            nullif.over = None;
            nullif.args = FunctionArguments::List(sql::FunctionArgumentList {
                duplicate_treatment: None,
                args: vec![
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(binary(
                        count,
                        BinaryOperator::Minus,
                        number("1"),
                    ))),
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(number("0"))),
                ],
                clauses: Vec::new(),
            });
            sql::Expr::Function(nullif)
        } else {
            count_cast
        };
        let variance = binary(diff, BinaryOperator::Divide, denominator);
        let expansion = if sqrt {
            let mut power = function.clone();
            power.name = sql::ObjectName::from(vec![sql::Ident::new("POWER")]);
            power.over = None;
            power.args = FunctionArguments::List(sql::FunctionArgumentList {
                duplicate_treatment: None,
                args: vec![
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(variance)),
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(number("0.5"))),
                ],
                clauses: Vec::new(),
            });
            sql::Expr::Function(power)
        } else {
            variance
        };
        let bound = self.bind_expr(&expansion, cx, span)?;
        let mut value = cast_to_kind(bound, sig.result.kind);
        value.ty.nullable = true;
        value.span = span;
        Ok(value)
    }
}
