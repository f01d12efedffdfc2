//! Numeric built-ins: ABS, SIGN, ROUND, TRUNCATE, FLOOR, CEIL, MOD, and the
//! DOUBLE functions (POWER, SQRT, logarithms, trigonometry, PI, E, RAND).
//! Exact arithmetic calls `rt::func::math` (and `rt::value::decimal`); the
//! DOUBLE functions are Rust's `f64` methods where they compute what Java's
//! `Math` does.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::type_rule::{is_integer, is_numeric, require, CallTypes, Inferred, Refusal};
use super::{not_generated, Builtin};
use crate::codegen::expr::{
    decimal_type, int_kinds, to_i32, value_type, BoundCall, Gen, GenResult,
};
use crate::types::{DataType, TypeKind, MAX_DECIMAL_PRECISION};
use crate::typing::{self, ArithOp};

pub(super) static ABS: Builtin = Builtin {
    name: "ABS",
    arity: 1..=1,
    forms: "'ABS(<NUMERIC>)'\n'ABS(<DATETIME_INTERVAL>)'",
    deterministic: true,
    infer: |c| {
        require(c.args, &[|k| k.is_numeric() || k.is_interval()])?;
        c.returns(c.args[0])
    },
    codegen: |g, call| {
        let body = match call.ty.kind {
            k if k.is_integer() || k.is_interval() => quote!(wrapping_abs()),
            TypeKind::Float | TypeKind::Double => quote!(abs()),
            TypeKind::Decimal { .. } => {
                return g.strict_call(
                    call.args,
                    |v| quote!(Some(rt::value::Decimal(#(#v)*.0.abs()))),
                )
            }
            _ => return Err(call.unsupported()),
        };
        g.strict_call(call.args, |v| quote!(Some(#(#v)*.#body)))
    },
};

pub(super) static ROUND: Builtin = Builtin {
    name: "ROUND",
    arity: 1..=2,
    forms: "'ROUND(<NUMERIC>, <INTEGER>)'\n'ROUND(<NUMERIC>)'",
    deterministic: true,
    infer: rounded_type,
    codegen: |g, call| round(g, call, true).ok_or_else(|| call.unsupported())?,
};

pub(super) static TRUNCATE: Builtin = Builtin {
    name: "TRUNCATE",
    arity: 1..=2,
    forms: "'TRUNCATE(<NUMERIC>, <INTEGER>)'\n'TRUNCATE(<NUMERIC>)'",
    deterministic: true,
    infer: rounded_type,
    codegen: |g, call| round(g, call, false).ok_or_else(|| call.unsupported())?,
};

/// `FLOOR(x)`; `FLOOR(ts TO unit)` is bound as `ExprKind::RoundTime`.
pub(super) static FLOOR: Builtin = Builtin {
    name: "FLOOR",
    arity: 1..=1,
    forms: "'FLOOR(<NUMERIC>)'\n'FLOOR(<DATETIME_INTERVAL>)'\n'FLOOR(<DATE> TO <TIME_UNIT>)'\n'FLOOR(<TIME> TO <TIME_UNIT>)'\n'FLOOR(<TIMESTAMP> TO <TIME_UNIT>)'",
    deterministic: true,
    infer: floor_type,
    codegen: |g, call| floor_or_ceil(g, call, false),
};

pub(super) static CEIL: Builtin = Builtin {
    name: "CEIL",
    arity: 1..=1,
    forms: "'CEIL(<NUMERIC>)'\n'CEIL(<DATETIME_INTERVAL>)'\n'CEIL(<DATE> TO <TIME_UNIT>)'\n'CEIL(<TIME> TO <TIME_UNIT>)'\n'CEIL(<TIMESTAMP> TO <TIME_UNIT>)'",
    deterministic: true,
    infer: floor_type,
    codegen: |g, call| floor_or_ceil(g, call, true),
};

pub(super) static CEILING: Builtin = Builtin {
    name: "CEILING",
    arity: 1..=1,
    forms: "'CEILING(<NUMERIC>)'\n'CEILING(<DATETIME_INTERVAL>)'\n'CEILING(<DATE> TO <TIME_UNIT>)'\n'CEILING(<TIME> TO <TIME_UNIT>)'\n'CEILING(<TIMESTAMP> TO <TIME_UNIT>)'",
    deterministic: true,
    infer: floor_type,
    codegen: |g, call| floor_or_ceil(g, call, true),
};

/// MOD(a, b): the arguments keep their own types (`MOD(BIGINT, INT)` is
/// an INT); Java computes in the wider type and narrows the result.
pub(super) static MOD: Builtin = Builtin {
    name: "MOD",
    arity: 2..=2,
    forms: "'MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)'",
    deterministic: true,
    infer: |c| {
        let args = c.args;
        if args.iter().any(DataType::is_null_type) {
            return Err(Refusal::Null);
        }
        let result =
            typing::arithmetic(ArithOp::Modulo, &args[0], &args[1]).map_err(|_| Refusal::Types)?;
        c.returns(result)
    },
    codegen: |g, call| modulo(g, call).ok_or_else(|| call.unsupported())?,
};

/// A DOUBLE function of one number: `x.<method>` of its value as `f64`.
macro_rules! double_function {
    ($name:literal, $($method:tt)*) => {
        Builtin {
            name: $name,
            arity: 1..=1,
            forms: concat!("'", $name, "(<NUMERIC>)'"),
            deterministic: true,
            infer: double_math,
            codegen: |g, call| double_fn(g, call, quote!($($method)*)),
        }
    };
}

/// Java's `Math.pow`.
pub(super) static POWER: Builtin = Builtin {
    name: "POWER",
    arity: 2..=2,
    forms: "'POWER(<NUMERIC>, <NUMERIC>)'",
    deterministic: true,
    infer: double_math,
    codegen: |g, call| double_fn2(g, call, |a, b| quote!(#a.powf(#b))),
};

/// Flink computes SQRT as POWER(x, 0.5): SQRT(-0.0) is 0.0.
pub(super) static SQRT: Builtin = double_function!("SQRT", powf(0.5));
pub(super) static LN: Builtin = double_function!("LN", ln());
pub(super) static LOG10: Builtin = double_function!("LOG10", log10());

/// Flink: Math.log(x) / Math.log(2), not a true log2.
pub(super) static LOG2: Builtin = double_function!("LOG2", ln() / 2f64.ln());

/// LOG(x) is LN(x); LOG(b, x) = ln(x) / ln(b).
pub(super) static LOG: Builtin = Builtin {
    name: "LOG",
    arity: 1..=2,
    forms: "'LOG(<NUMERIC>)'\n'LOG(<NUMERIC>, <NUMERIC>)'",
    deterministic: true,
    infer: double_math,
    codegen: |g, call| match call.args.len() {
        2 => double_fn2(g, call, |a, b| quote!(#b.ln() / #a.ln())),
        _ => double_fn(g, call, quote!(ln())),
    },
};

pub(super) static EXP: Builtin = double_function!("EXP", exp());

pub(super) static SIGN: Builtin = Builtin {
    name: "SIGN",
    arity: 1..=1,
    forms: "'SIGN(<NUMERIC>)'",
    deterministic: true,
    infer: |c| {
        require(c.args, &[is_numeric])?;
        c.returns(c.args[0])
    },
    codegen: |g, call| {
        let ty = call.ty;
        let t = value_type(ty);
        match ty.kind {
            k if k.is_integer() => g.strict_call(call.args, |v| quote!(Some(#(#v)*.signum()))),
            TypeKind::Double | TypeKind::Float => g.strict_call(
                call.args,
                |v| quote!(Some(rt::func::math::sign_f64(#(#v)* as f64) as #t)),
            ),
            TypeKind::Decimal { .. } => {
                let dt = decimal_type(ty).ok_or_else(|| call.unsupported())?;
                g.strict_call(
                    call.args,
                    |v| quote!(Some(rt::func::math::sign_decimal(#(#v)*, #dt))),
                )
            }
            _ => Err(call.unsupported()),
        }
    },
};

pub(super) static SIN: Builtin = double_function!("SIN", sin());
pub(super) static COS: Builtin = double_function!("COS", cos());
pub(super) static TAN: Builtin = double_function!("TAN", tan());
pub(super) static COT: Builtin = double_function!("COT", tan().recip());
pub(super) static ASIN: Builtin = double_function!("ASIN", asin());
pub(super) static ACOS: Builtin = double_function!("ACOS", acos());
pub(super) static ATAN: Builtin = double_function!("ATAN", atan());

/// Java's `Math.atan2`.
pub(super) static ATAN2: Builtin = Builtin {
    name: "ATAN2",
    arity: 2..=2,
    forms: "'ATAN2(<NUMERIC>, <NUMERIC>)'",
    deterministic: true,
    infer: double_math,
    codegen: |g, call| double_fn2(g, call, |a, b| quote!(#a.atan2(#b))),
};

pub(super) static DEGREES: Builtin = double_function!("DEGREES", to_degrees());
pub(super) static RADIANS: Builtin = double_function!("RADIANS", to_radians());

pub(super) static PI: Builtin = Builtin {
    name: "PI",
    arity: 0..=0,
    forms: "'PI()'",
    deterministic: true,
    infer: |c| c.returns(DataType::not_null(TypeKind::Double)),
    codegen: |_, _| Ok(quote!(Some(std::f64::consts::PI))),
};

pub(super) static E: Builtin = Builtin {
    name: "E",
    arity: 0..=0,
    forms: "'E()'",
    deterministic: true,
    infer: |c| c.returns(DataType::not_null(TypeKind::Double)),
    codegen: |_, _| Ok(quote!(Some(std::f64::consts::E))),
};

/// No randomness in the runtime yet.
pub(super) static RAND: Builtin = Builtin {
    name: "RAND",
    arity: 0..=1,
    forms: "'RAND()'\n'RAND(<INTEGER>)'",
    deterministic: false,
    infer: |c| {
        require(c.args, &[is_integer])?;
        c.returns(c.typed(TypeKind::Double))
    },
    codegen: not_generated,
};

pub(super) static RAND_INTEGER: Builtin = Builtin {
    name: "RAND_INTEGER",
    arity: 1..=2,
    forms: "'RAND_INTEGER(<INTEGER>)'\n'RAND_INTEGER(<INTEGER>, <INTEGER>)'",
    deterministic: false,
    infer: |c| {
        require(c.args, &[is_integer])?;
        c.returns(c.typed(TypeKind::Int))
    },
    codegen: not_generated,
};

/// Every argument cast to DOUBLE, the result DOUBLE (Flink's math functions).
fn double_math(c: &CallTypes) -> Inferred {
    require(c.args, &[is_numeric])?;
    let arg_types = c
        .args
        .iter()
        .map(|a| DataType::new(TypeKind::Double, a.nullable))
        .collect();
    Ok((c.typed(TypeKind::Double), arg_types))
}

/// ROUND, TRUNCATE: a DECIMAL's scale follows a literal digit count.
fn rounded_type(c: &CallTypes) -> Inferred {
    let args = c.args;
    require(&args[..1], &[is_numeric])?;
    require(&args[1..], &[is_integer])?;
    let kind = match args[0].kind {
        TypeKind::Decimal { precision, scale } => match (args.len(), c.literal(1)) {
            (1, _) => round_decimal(precision, scale, 0),
            (_, Some(digits)) => round_decimal(precision, scale, digits),
            // A digit count only known at run time keeps the type.
            (_, None) => args[0].kind,
        },
        other => other,
    };
    c.returns(c.typed(kind))
}

/// Flink's `findRoundDecimalType`: ROUND/TRUNCATE of DECIMAL(p, s) to `r` digits.
fn round_decimal(precision: u8, scale: u8, digits: i64) -> TypeKind {
    let (p, s) = (i64::from(precision), i64::from(scale));
    let (p, s) = if digits >= s {
        (p, s)
    } else if digits < 0 {
        ((1 + p - s).min(i64::from(MAX_DECIMAL_PRECISION)), 0)
    } else {
        // Rounding may carry into a new digit, hence the +1.
        (1 + p - s + digits, digits)
    };
    TypeKind::Decimal {
        precision: p.clamp(1, i64::from(MAX_DECIMAL_PRECISION)) as u8,
        scale: s.clamp(0, i64::from(MAX_DECIMAL_PRECISION)) as u8,
    }
}

/// FLOOR, CEIL, CEILING: a DECIMAL loses its scale.
fn floor_type(c: &CallTypes) -> Inferred {
    let args = c.args;
    if args[0].is_null_type() {
        return Err(Refusal::Null);
    }
    let kind = match args[0].kind {
        TypeKind::Decimal { precision, .. } => TypeKind::Decimal {
            precision,
            scale: 0,
        },
        // FLOOR(<interval>) crashes Flink's planner; refuse it.
        k if k.is_numeric() || k.is_temporal() => k,
        _ => return Err(Refusal::Types),
    };
    c.returns(c.typed(kind))
}

/// A DOUBLE function of one argument: `x.<method>`.
fn double_fn(g: &mut Gen, call: &BoundCall, method: TokenStream) -> GenResult {
    g.strict_call(call.args, |v| quote!(Some(#(#v)*.#method)))
}

/// A DOUBLE function of two arguments.
fn double_fn2(g: &mut Gen, call: &BoundCall, body: fn(&Ident, &Ident) -> TokenStream) -> GenResult {
    if call.args.len() != 2 {
        return Err(call.unsupported());
    }
    g.strict_call(call.args, |v| {
        let b = body(&v[0], &v[1]);
        quote!(Some(#b))
    })
}

/// FLOOR / CEIL of a number (`rt::func::math::{floor,ceil}_decimal` for a
/// DECIMAL); of a date or time it is bound as `ExprKind::RoundTime`.
fn floor_or_ceil(g: &mut Gen, call: &BoundCall, ceil: bool) -> GenResult {
    let args = call.args;
    match args[0].ty.kind {
        k if k.is_integer() => g.strict_call(args, |v| quote!(Some(#(#v)*))),
        TypeKind::Float | TypeKind::Double => {
            let m = if ceil { quote!(ceil) } else { quote!(floor) };
            g.strict_call(args, |v| quote!(Some(#(#v)*.#m())))
        }
        TypeKind::Decimal { .. } => {
            let t = decimal_type(&args[0].ty).ok_or_else(|| call.unsupported())?;
            let m = if ceil {
                quote!(ceil_decimal)
            } else {
                quote!(floor_decimal)
            };
            g.strict_call(args, |v| quote!(Some(rt::func::math::#m(#(#v)*, #t))))
        }
        _ => Err(call.unsupported()),
    }
}

/// ROUND (`round`) / TRUNCATE with an optional digit count (0 by default),
/// by `rt::func::math::{round,truncate}_{i64,f64,decimal}`. `None`: not
/// generated for this type.
fn round(g: &mut Gen, call: &BoundCall, round: bool) -> Option<GenResult> {
    let (args, ty) = (call.args, call.ty);
    let math = quote!(rt::func::math);
    let kinds = int_kinds(&args[1..]);
    let digits = |v: &[Ident]| match v.get(1) {
        Some(n) => to_i32(n, kinds[0]),
        None => quote!(0),
    };
    let t = value_type(ty);
    Some(match args[0].ty.kind {
        k if k.is_integer() => {
            let name = if round {
                quote!(round_i64)
            } else {
                quote!(truncate_i64)
            };
            g.strict_call(args, |v| {
                let (x, n) = (&v[0], digits(v));
                quote!(Some(#math::#name(#x as i64, #n) as #t))
            })
        }
        TypeKind::Double | TypeKind::Float => g.strict_call(args, |v| {
            let (x, n) = (&v[0], digits(v));
            if round {
                quote!(Some(#math::round_f64(#x as f64, #n) as #t))
            } else {
                // Fails where Flink's detour through DECIMAL(38, 18) does.
                quote!(Some(#math::truncate_f64(#x as f64, #n).map_err(rt::Error::new)? as #t))
            }
        }),
        TypeKind::Decimal { .. } => {
            let (from, to) = (decimal_type(&args[0].ty)?, decimal_type(ty)?);
            let name = if round {
                quote!(round_decimal)
            } else {
                quote!(truncate_decimal)
            };
            g.strict_call(args, |v| {
                let (x, n) = (&v[0], digits(v));
                quote!(#math::#name(#x, #from, #n, #to))
            })
        }
        _ => return None,
    })
}

/// MOD's code: integers by `rt::func::math::int_mod` in i64, anything with a
/// DECIMAL by `rt::value::decimal::rem`. `None`: not generated for these types.
fn modulo(g: &mut Gen, call: &BoundCall) -> Option<GenResult> {
    let (args, ty) = (call.args, call.ty);
    let [a, b] = args else { return None };
    let t = value_type(ty);
    if a.ty.kind.is_integer() && b.ty.kind.is_integer() && ty.kind.is_integer() {
        return Some(g.strict_call(args, |v| {
            let (x, y) = (&v[0], &v[1]);
            quote!(Some(rt::func::math::int_mod::<i64>(#x as i64, #y as i64).ok_or_else(|| rt::Error::new("/ by zero"))? as #t))
        }));
    }
    let tr = decimal_type(ty)?;
    // Integers take part as DECIMAL(p, 0).
    let as_decimal = |e: &crate::ir::Expr, v: &Ident| -> Option<(TokenStream, TokenStream)> {
        match e.ty.kind {
            TypeKind::Decimal { .. } => Some((quote!(#v), decimal_type(&e.ty)?)),
            k => {
                let (p, _) = k.decimal_precision_scale()?;
                Some((
                    quote!(rt::value::Decimal(#v as i128)),
                    quote!(rt::value::DecimalType::new(#p, 0)),
                ))
            }
        }
    };
    let names = (g.local(), g.local());
    let (x, tx) = as_decimal(a, &names.0)?;
    let (y, ty_) = as_decimal(b, &names.1)?;
    let (av, bv) = match (g.expr(a), g.expr(b)) {
        (Ok(av), Ok(bv)) => (av, bv),
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
    };
    let (n0, n1) = names;
    Some(Ok(quote!(match (#av, #bv) {
        (Some(#n0), Some(#n1)) => rt::value::decimal::rem(#x, #tx, #y, #ty_, #tr)
            .map_err(|_| rt::Error::new("Division by zero"))?,
        _ => None,
    })))
}
