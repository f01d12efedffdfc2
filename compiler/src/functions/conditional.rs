//! Conditional built-ins: COALESCE, IFNULL, NULLIF, IF, GREATEST, LEAST.
//! Their arguments meet in a common type and some evaluate lazily, so their
//! codegen writes the Rust inline; they call no `rt::func` function.

use quote::quote;

use super::type_rule::{CallTypes, Inferred, Refusal};
use super::{Builtin, VARIADIC};
use crate::codegen::expr::{BoundCall, Gen, GenResult};
use crate::ir::BinaryOp;
use crate::types::{DataType, TypeKind};
use crate::typing;

pub(super) static COALESCE: Builtin = Builtin {
    name: "COALESCE",
    arity: 1..=VARIADIC,
    forms: "'COALESCE(<COMMON>, <COMMON>...)'",
    deterministic: true,
    infer: first_non_null_type,
    codegen: first_non_null,
};

pub(super) static IFNULL: Builtin = Builtin {
    name: "IFNULL",
    arity: 2..=2,
    forms: "'IFNULL(<COMMON>, <COMMON>)'",
    deterministic: true,
    infer: first_non_null_type,
    codegen: first_non_null,
};

/// NULLIF(a, b): NULL when `a = b`, else `a`.
pub(super) static NULLIF: Builtin = Builtin {
    name: "NULLIF",
    arity: 2..=2,
    forms: "'NULLIF(<COMPARABLE_TYPE>, <COMPARABLE_TYPE>)'",
    deterministic: true,
    infer: |c| {
        let args = c.args;
        if args[0].is_null_type() {
            // NULLIF is a CASE in Flink, and says so.
            return Err(Refusal::Message(
                "ELSE clause or at least one THEN clause must be non-NULL".to_string(),
            ));
        }
        typing::comparison_type(&args[0], &args[1]).map_err(Refusal::Message)?;
        c.returns(args[0].with_nullable(true))
    },
    codegen: |g, call| {
        let [a, b] = call.args else {
            return Err(call.unsupported());
        };
        // Compared as their common type, but the result is `a` itself.
        let common = typing::comparison_type(&a.ty, &b.ty).map_err(|_| call.unsupported())?;
        let (x, y) = (g.local(), g.local());
        let (av, bv) = (g.expr(a)?, g.expr(b)?);
        let xa = g.cast(quote!(#x.clone()), &a.ty, &common, false)?;
        let yb = g.cast(quote!(#y), &b.ty, &common, false)?;
        let equal = g.compare(BinaryOp::Eq, xa, &common, yb, &common)?;
        Ok(quote!({
            let #x = #av;
            let #y = #bv;
            if #equal == Some(true) { None } else { #x }
        }))
    },
};

pub(super) static IF: Builtin = Builtin {
    name: "IF",
    arity: 3..=3,
    forms: "'IF(<BOOLEAN>, <COMMON>, <COMMON>)'",
    deterministic: true,
    infer: |c| {
        let args = c.args;
        if args.iter().any(DataType::is_null_type) {
            return Err(Refusal::Null);
        }
        let branches = &args[1..];
        let mixes_numeric_and_datetime =
            branches.iter().any(|b| b.is_numeric()) && branches.iter().any(|b| !b.is_numeric());
        if args[0].kind != TypeKind::Boolean || mixes_numeric_and_datetime {
            return Err(Refusal::Types);
        }
        let result = typing::common_type(branches).ok_or(Refusal::Types)?;
        let result = result.with_nullable(c.any_nullable());
        let mut arg_types = vec![args[0]];
        arg_types.extend(branches.iter().map(|b| result.with_nullable(b.nullable)));
        Ok((result, arg_types))
    },
    codegen: |g, call| {
        let [c, a, b] = call.args else {
            return Err(call.unsupported());
        };
        let (c, a, b) = (g.expr(c)?, g.expr(a)?, g.expr(b)?);
        Ok(quote!(if rt::value::logic::is_true(#c) { #a } else { #b }))
    },
};

pub(super) static GREATEST: Builtin = Builtin {
    name: "GREATEST",
    arity: 1..=VARIADIC,
    forms: "'GREATEST(<COMPARABLE>, <COMPARABLE>...)'",
    deterministic: true,
    infer: comparable_type,
    codegen: |g, call| extreme(g, call, quote!(>)),
};

pub(super) static LEAST: Builtin = Builtin {
    name: "LEAST",
    arity: 1..=VARIADIC,
    forms: "'LEAST(<COMPARABLE>, <COMPARABLE>...)'",
    deterministic: true,
    infer: comparable_type,
    codegen: |g, call| extreme(g, call, quote!(<)),
};

/// COALESCE, IFNULL: the arguments' common type, NOT NULL if any is.
fn first_non_null_type(c: &CallTypes) -> Inferred {
    let args = c.args;
    if args.iter().all(DataType::is_null_type) {
        return Err(Refusal::Null);
    }
    let Some(result) = typing::coalesce_type(args) else {
        let shown: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        return Err(Refusal::Message(format!(
            "Invalid function call:\n{}({})",
            c.function.name(),
            shown.join(", ")
        )));
    };
    let arg_types = args
        .iter()
        .map(|a| result.with_nullable(a.nullable))
        .collect();
    Ok((result, arg_types))
}

/// COALESCE, IFNULL: lazy, later arguments are evaluated only when needed.
fn first_non_null(g: &mut Gen, call: &BoundCall) -> GenResult {
    let (last, rest) = call.args.split_last().ok_or_else(|| call.unsupported())?;
    let mut out = g.expr(last)?;
    for a in rest.iter().rev() {
        let a = g.expr(a)?;
        let v = g.local();
        out = quote!(match #a { Some(#v) => Some(#v), None => #out });
    }
    Ok(out)
}

/// GREATEST, LEAST: Flink merges the arguments like COALESCE (GREATEST(ts,
/// date) is a DATE) and refuses pairs it cannot order.
fn comparable_type(c: &CallTypes) -> Inferred {
    let args = c.args;
    if args.iter().all(DataType::is_null_type) {
        return Err(Refusal::Null);
    }
    let typed_args: Vec<DataType> = args.iter().copied().filter(|a| !a.is_null_type()).collect();
    for pair in typed_args.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if typing::coalesce_type(&[a, b]).is_none() {
            return Err(Refusal::Message(format!(
                "All types in a comparison should support both 'EQUALS' and 'ORDER' comparison with each other. Can not compare {} with {}",
                a.with_nullable(true),
                b.with_nullable(true)
            )));
        }
    }
    let result = typing::coalesce_type(args)
        .ok_or(Refusal::Types)?
        .with_nullable(c.any_nullable());
    let arg_types = args
        .iter()
        .map(|a| result.with_nullable(a.nullable))
        .collect();
    Ok((result, arg_types))
}

/// GREATEST (`greater` is `>`), LEAST (`<`): the first of the values that no
/// later one beats; NULL if any is NULL.
fn extreme(g: &mut Gen, call: &BoundCall, greater: proc_macro2::TokenStream) -> GenResult {
    let vals = g.exprs(call.args)?;
    if !call.args.iter().all(|a| a.ty.kind == call.ty.kind) {
        return Err(call.unsupported());
    }
    Ok(g.strict(vals, |v| {
        let (first, rest) = v.split_first().expect("at least one argument");
        quote!({
            let mut best = #first;
            #( if #rest #greater best { best = #rest; } )*
            Some(best)
        })
    }))
}
