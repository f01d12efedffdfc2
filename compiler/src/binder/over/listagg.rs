//! `LISTAGG(value [, separator])` over a window (the frame's non-NULL values
//! joined, in the frame's row order) and as a GROUP BY aggregate (the
//! group's, in input order), by the separator (`,` by default); NULL for a
//! frame or group without one. Checked as Flink 2.3 (Calcite) checks it, in
//! its words: a CHARACTER value, a non-NULL CHARACTER literal separator.
//! The result has the value's type, nullability included, as in Flink
//! (`LISTAGG` of a `CHAR(3)` is `CHAR(3)`; its values are not cut to it).

use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Expr, ExprKind, Literal};
use crate::typing;

type BResult<T> = Result<T, Diagnostic>;

fn flink(span: Span, message: String) -> Diagnostic {
    Diagnostic::error(span, message).with_note("this is Flink's message")
}

/// Checks the bound arguments; returns the value and the separator (kept
/// as an argument column, a constant).
pub(in crate::binder) fn check_args(args: Vec<Expr>, span: Span) -> BResult<(Expr, Option<Expr>)> {
    if args.is_empty() || args.len() > 2 {
        return Err(flink(
            span,
            "Invalid number of arguments to function 'LISTAGG'. Was expecting 1 arguments"
                .to_string(),
        ));
    }
    let mut args = args.into_iter();
    let value = args.next().expect("checked");
    let separator = args.next();
    if let Some(sep) = &separator {
        if sep.ty.is_null_type() {
            return Err(flink(sep.span, typing::ILLEGAL_NULL.to_string()));
        }
    }
    let types: Vec<String> = std::iter::once(&value)
        .chain(&separator)
        .map(|e| format!("<{}>", typing::calcite_type_name(&e.ty)))
        .collect();
    if !value.ty.is_string() || separator.as_ref().is_some_and(|s| !s.ty.is_string()) {
        return Err(flink(
            span,
            format!(
                "Cannot apply 'LISTAGG' to arguments of type 'LISTAGG({})'. Supported form(s): 'LISTAGG(<CHARACTER>)'\n'LISTAGG(<CHARACTER>, <CHARACTER_LITERAL>)'",
                types.join(", ")
            ),
        ));
    }
    if let Some(sep) = &separator {
        match &sep.kind {
            ExprKind::Literal(Literal::String(_)) => {}
            ExprKind::Literal(Literal::Null) => {
                return Err(flink(
                    span,
                    "Argument to function 'LISTAGG' must not be NULL".to_string(),
                ))
            }
            ExprKind::Cast { operand, .. }
                if matches!(operand.kind, ExprKind::Literal(Literal::Null)) =>
            {
                return Err(flink(
                    span,
                    "Argument to function 'LISTAGG' must not be NULL".to_string(),
                ))
            }
            _ => {
                return Err(flink(
                    span,
                    "Argument to function 'LISTAGG' must be a literal".to_string(),
                ))
            }
        }
    }
    Ok((value, separator))
}
