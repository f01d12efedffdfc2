//! Date and time built-ins: formatting and parsing (DATE_FORMAT, TO_DATE,
//! TO_TIMESTAMP, ...), the clock (CURRENT_TIMESTAMP, NOW, ...), and the
//! EXTRACT shorthands (YEAR, MONTH, ...), each listed once with its unit.
//! Their codegen calls `rt::func::temporal`. The special forms `EXTRACT(unit
//! FROM x)` and `FLOOR(x TO unit)` are bound as their own expression kinds.

use quote::quote;

use super::type_rule::{
    is_integer, is_numeric, is_string, require, strings_to, CallTypes, Inferred, Refusal,
};
use super::{not_generated, Builtin};
use crate::codegen::expr::{literal_string, BoundCall, Gen, GenResult};
use crate::ir::{ExprKind, Literal, TimeUnit};
use crate::types::{DataType, TypeKind};
use crate::typing::calcite_type_name;

pub(super) static DATE_FORMAT: Builtin = Builtin {
    name: "DATE_FORMAT",
    arity: 2..=2,
    forms: "'DATE_FORMAT(<TIMESTAMP>, <CHARACTER>)'\n'DATE_FORMAT(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| {
        require(&c.args[..1], &[|k| k.is_timestamp() || k.is_string()])?;
        require(&c.args[1..], &[is_string])?;
        c.returns(DataType::string())
    },
    codegen: |g, call| {
        let ts = match call.args[0].ty.kind {
            TypeKind::Timestamp(_) => quote!(Some(v)),
            // Text is read as Flink does (lenient `yyyy-MM-dd HH:mm:ss`); NULL if it is not.
            k if k.is_string() => quote!(rt::func::temporal::date_format_input(&v)),
            _ => return Err(call.unsupported()),
        };
        g.with_pattern(
            &call.args[0],
            &call.args[1],
            |p| quote!(#ts.map(|ts| #p.format(ts))),
        )
    },
};

pub(super) static TO_DATE: Builtin = Builtin {
    name: "TO_DATE",
    arity: 1..=2,
    forms: "'TO_DATE(<CHARACTER>)'\n'TO_DATE(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, DataType::nullable(TypeKind::Date)),
    codegen: |g, call| match call.args {
        // Flink fails the job on a date part beyond `int`.
        [_] => g.strict_call(
            call.args,
            |v| quote!(rt::func::temporal::to_date_or_fail(&#(#v)*).map_err(rt::Error::new)?),
        ),
        [s, p] => g.with_pattern(s, p, |p| quote!(rt::func::temporal::to_date(&v, Some(&#p)))),
        _ => Err(call.unsupported()),
    },
};

pub(super) static TO_TIMESTAMP: Builtin = Builtin {
    name: "TO_TIMESTAMP",
    arity: 1..=2,
    forms: "'TO_TIMESTAMP(<CHARACTER>)'\n'TO_TIMESTAMP(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, DataType::nullable(TypeKind::Timestamp(3))),
    codegen: |g, call| match call.args {
        [_] => g.strict_call(
            call.args,
            |v| quote!(rt::func::temporal::to_timestamp(&#(#v)*, None)),
        ),
        [s, p] => g.with_pattern(
            s,
            p,
            |p| quote!(rt::func::temporal::to_timestamp(&v, Some(&#p))),
        ),
        _ => Err(call.unsupported()),
    },
};

pub(super) static TO_TIMESTAMP_LTZ: Builtin = Builtin {
    name: "TO_TIMESTAMP_LTZ",
    arity: 1..=2,
    forms: "'TO_TIMESTAMP_LTZ(<NUMERIC>)'\n'TO_TIMESTAMP_LTZ(<NUMERIC>, <INTEGER>)'\n'TO_TIMESTAMP_LTZ(<CHARACTER>)'\n'TO_TIMESTAMP_LTZ(<CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| {
        let args = c.args;
        if args[0].is_string() {
            require(args, &[is_string])?;
        } else {
            require(&args[..1], &[is_numeric])?;
            require(&args[1..], &[is_integer])?;
        }
        c.returns(DataType::nullable(TypeKind::TimestampLtz(3)))
    },
    codegen: |g, call| {
        let args = call.args;
        // Epoch seconds (precision 0) or milliseconds (3, the default).
        let scale = match args.get(1).map(|a| &a.kind) {
            None | Some(ExprKind::Literal(Literal::Integer(3))) => 1i64,
            Some(ExprKind::Literal(Literal::Integer(0))) => 1000,
            _ => return Err(call.unsupported()),
        };
        if !args[0].ty.kind.is_integer() {
            return Err(call.unsupported());
        }
        let value = g.expr(&args[0])?;
        Ok(
            quote!(#value.map(|n| rt::value::Timestamp::from_millis((n as i64).wrapping_mul(#scale)))),
        )
    },
};

/// UNIX_TIMESTAMP() reads the clock: not generated yet.
pub(super) static UNIX_TIMESTAMP: Builtin = Builtin {
    name: "UNIX_TIMESTAMP",
    arity: 0..=2,
    forms: "'UNIX_TIMESTAMP()'\n'UNIX_TIMESTAMP(<CHARACTER>)'\n'UNIX_TIMESTAMP(<CHARACTER>, <CHARACTER>)'",
    deterministic: false,
    infer: |c| strings_to(c, c.typed(TypeKind::BigInt)),
    codegen: |g, call| match call.args {
        [_] => g.strict_call(call.args, |v| {
            quote!(Some(rt::func::temporal::unix_timestamp(&#(#v)*, None)))
        }),
        [s, p] => g.with_pattern(s, p, |p| {
            quote!(Some(rt::func::temporal::unix_timestamp(&v, Some(&#p))))
        }),
        _ => Err(call.unsupported()),
    },
};

pub(super) static FROM_UNIXTIME: Builtin = Builtin {
    name: "FROM_UNIXTIME",
    arity: 1..=2,
    forms: "'FROM_UNIXTIME(<INTEGER>)'\n'FROM_UNIXTIME(<INTEGER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| {
        require(&c.args[..1], &[is_integer])?;
        require(&c.args[1..], &[is_string])?;
        c.returns(DataType::string())
    },
    codegen: |g, call| {
        if !call.args[0].ty.kind.is_integer() {
            return Err(call.unsupported());
        }
        match call.args {
            [_] => g.strict_call(
                call.args,
                |v| quote!(Some(rt::func::temporal::from_unixtime(#(#v)* as i64, None))),
            ),
            // Flink formats with `SimpleDateFormat`, the runtime with
            // DATE_FORMAT's `DateTimeFormatter` letters: only a literal
            // pattern whose letters mean the same in both.
            [n, p] if literal_string(p).is_some_and(simple_date_format_agrees) => g.with_pattern(
                n,
                p,
                |p| quote!(Some(rt::func::temporal::from_unixtime(v as i64, Some(&#p)))),
            ),
            _ => Err(call.unsupported()),
        }
    },
};

/// Reads the session time zone: not generated yet.
pub(super) static CONVERT_TZ: Builtin = Builtin {
    name: "CONVERT_TZ",
    arity: 3..=3,
    forms: "'CONVERT_TZ(<CHARACTER>, <CHARACTER>, <CHARACTER>)'",
    deterministic: true,
    infer: |c| strings_to(c, DataType::string()),
    codegen: not_generated,
};

/// The query's start: one instant for every row (`QUERY_START`).
pub(super) static CURRENT_TIMESTAMP: Builtin = Builtin {
    name: "CURRENT_TIMESTAMP",
    arity: 0..=0,
    forms: "'CURRENT_TIMESTAMP'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::TimestampLtz(3))),
    codegen: query_start,
};

pub(super) static CURRENT_DATE: Builtin = Builtin {
    name: "CURRENT_DATE",
    arity: 0..=0,
    forms: "'CURRENT_DATE'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::Date)),
    codegen: not_generated,
};

pub(super) static CURRENT_TIME: Builtin = Builtin {
    name: "CURRENT_TIME",
    arity: 0..=0,
    forms: "'CURRENT_TIME'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::Time(0))),
    codegen: not_generated,
};

/// The clock when the row is computed.
pub(super) static CURRENT_ROW_TIMESTAMP: Builtin = Builtin {
    name: "CURRENT_ROW_TIMESTAMP",
    arity: 0..=0,
    forms: "'CURRENT_ROW_TIMESTAMP()'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::TimestampLtz(3))),
    codegen: |_, _| Ok(quote!(Some(rt::func::temporal::current_timestamp()))),
};

/// CURRENT_TIMESTAMP.
pub(super) static NOW: Builtin = Builtin {
    name: "NOW",
    arity: 0..=0,
    forms: "'NOW()'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::TimestampLtz(3))),
    codegen: query_start,
};

pub(super) static LOCALTIMESTAMP: Builtin = Builtin {
    name: "LOCALTIMESTAMP",
    arity: 0..=0,
    forms: "'LOCALTIMESTAMP'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::Timestamp(3))),
    codegen: not_generated,
};

pub(super) static LOCALTIME: Builtin = Builtin {
    name: "LOCALTIME",
    arity: 0..=0,
    forms: "'LOCALTIME'",
    deterministic: false,
    infer: |c| c.returns(DataType::not_null(TypeKind::Time(0))),
    codegen: not_generated,
};

/// `EXTRACT(unit FROM x)`, bound as `EXTRACT(x)` for its type check; the
/// call itself becomes `ExprKind::Extract`, never this function.
pub(super) static EXTRACT: Builtin = Builtin {
    name: "EXTRACT",
    arity: 1..=1,
    forms: "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME_INTERVAL>)'\n'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'",
    deterministic: true,
    infer: |c| {
        require(c.args, &[|k| k.is_temporal() || k.is_interval()])?;
        c.returns(c.typed(TypeKind::BigInt))
    },
    codegen: not_generated,
};

/// `YEAR(x)`, `MONTH(x)`, ...: Flink's shorthands for `EXTRACT(unit FROM x)`.
/// `calcite_unit` is the unit as Flink's error message about them names it.
macro_rules! date_field {
    ($name:literal, $unit:ident, $calcite_unit:literal) => {
        Builtin {
            name: $name,
            arity: 1..=1,
            forms: "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'",
            deterministic: true,
            infer: |c| date_field_type(c, $calcite_unit),
            codegen: |g, call| {
                let value = g.expr(&call.args[0])?;
                g.extract(TimeUnit::$unit, value, &call.args[0].ty)
            },
        }
    };
}

pub(super) static YEAR: Builtin = date_field!("YEAR", Year, "YEAR");
pub(super) static QUARTER: Builtin = date_field!("QUARTER", Quarter, "QUARTER");
pub(super) static MONTH: Builtin = date_field!("MONTH", Month, "MONTH");
pub(super) static WEEK: Builtin = date_field!("WEEK", Week, "WEEK");
pub(super) static DAYOFYEAR: Builtin = date_field!("DAYOFYEAR", DayOfYear, "DOY");
pub(super) static DAYOFMONTH: Builtin = date_field!("DAYOFMONTH", Day, "DAY");
pub(super) static DAYOFWEEK: Builtin = date_field!("DAYOFWEEK", DayOfWeek, "DOW");
pub(super) static HOUR: Builtin = date_field!("HOUR", Hour, "HOUR");
pub(super) static MINUTE: Builtin = date_field!("MINUTE", Minute, "MINUTE");
pub(super) static SECOND: Builtin = date_field!("SECOND", Second, "SECOND");

/// YEAR(x) and its kin: BIGINT of a date, time or timestamp.
fn date_field_type(c: &CallTypes, calcite_unit: &str) -> Inferred {
    let arg = &c.args[0];
    if arg.is_null_type() {
        return Err(Refusal::Null);
    }
    if !arg.kind.is_temporal() {
        // Flink rewrites YEAR(x) to EXTRACT and complains about that.
        return Err(Refusal::Message(format!(
            "Cannot apply 'EXTRACT' to arguments of type 'EXTRACT(<INTERVAL {}> FROM <{}>)'. Supported form(s): {}",
            calcite_unit,
            calcite_type_name(arg),
            EXTRACT.forms
        )));
    }
    c.returns(c.typed(TypeKind::BigInt))
}

/// CURRENT_TIMESTAMP, NOW: Flink evaluates them once per batch query.
fn query_start(g: &mut Gen, _: &BoundCall) -> GenResult {
    let now = g.statics.query_start();
    Ok(quote!(Some(#now)))
}

/// Whether `SimpleDateFormat` (FROM_UNIXTIME) and `DateTimeFormatter`
/// (DATE_FORMAT, whose formatter the runtime has) print every letter of a
/// pattern alike for a whole second: `yyyy-MM-dd HH:mm:ss`, `EEE, d MMM yyyy
/// h:mm a`, ... Letters such as `u` (a year in one, a weekday in the other),
/// `w`, `z` or five-letter names differ, so those patterns are refused.
fn simple_date_format_agrees(pattern: &str) -> bool {
    let pieces = {
        let mut out = Vec::new();
        let mut quoted = false;
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                quoted = !quoted;
            } else if !quoted && c.is_ascii_alphabetic() {
                let mut n = 1;
                while chars.peek() == Some(&c) {
                    chars.next();
                    n += 1;
                }
                out.push((c, n));
            }
        }
        out
    };
    pieces.iter().all(|&(c, n)| match c {
        'M' | 'E' => n <= 4,
        'y' | 'd' | 'H' | 'h' | 'k' | 'K' | 'm' | 's' | 'S' | 'a' | 'D' => true,
        _ => false,
    })
}
