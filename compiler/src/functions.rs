//! Flink's built-in functions: the scalar registry, and the aggregates.
//!
//! The binder resolves every call through [`resolve_scalar`] or
//! [`resolve_aggregate`]; special syntax is mapped onto plain calls first:
//! `SUBSTRING(x FROM a FOR b)` is `SUBSTRING(x, a, b)`, `TRIM(BOTH c FROM x)` is
//! `TRIM(x, c)` (source first, like `LTRIM(x, c)`), `POSITION(a IN b)` is
//! `POSITION(a, b)`, `FLOOR(ts TO DAY)` is `FLOOR(ts)`, `EXTRACT(YEAR FROM x)` is
//! `EXTRACT(x)`, and the niladic `CURRENT_TIMESTAMP` is `CURRENT_TIMESTAMP()`.
//!
//! Result types and nullability were observed on Flink 2.3; see
//! `docs/sql-reference/types-and-functions.md`. Two Flink habits worth knowing:
//! several functions are nullable whatever their input (`SUBSTRING`, `REVERSE`,
//! `TO_DATE`, `DATE_FORMAT`, ...), and a bare `NULL` argument is refused
//! ("Illegal use of 'NULL'") except by COALESCE.
//!
//! Each scalar built-in is one [`Builtin`] entry in the file of its family
//! (`functions/conditional.rs`, `string.rs`, `regex.rs`, `math.rs`,
//! `temporal.rs`): Flink name, arity, "Supported form(s)", determinism, type
//! rule, and codegen hook, which names the `rt::func` function it calls (the
//! runtime stays a library of plain functions that knows nothing of SQL).
//! `scalar_functions!` below lists the entries once, in the order of
//! [`ScalarFunction`], the id the IR stores. Fixing a function is a change to
//! its entry; adding one is an entry plus a line in that list.

mod conditional;
mod math;
mod regex;
mod string;
mod temporal;
mod type_rule;

use std::ops::RangeInclusive;

use crate::codegen::expr::{BoundCall, Gen, GenResult};
use crate::types::{DataType, TypeKind, MAX_DECIMAL_PRECISION};
use crate::typing::{calcite_type_name, ILLEGAL_NULL};
use type_rule::{CallTypes, Inferred, Refusal};

/// Everything stmtc knows about one built-in scalar function.
struct Builtin {
    /// Flink's upper-case name.
    name: &'static str,
    /// Allowed argument counts; [`VARIADIC`] as the end: no upper bound.
    arity: RangeInclusive<usize>,
    /// Flink's "Supported form(s)" for the argument-type error.
    forms: &'static str,
    /// False if its value changes between calls or runs (random numbers,
    /// the clock): never merged or constant-folded.
    deterministic: bool,
    /// Argument checks, the types the arguments are cast to, the result type.
    infer: fn(&CallTypes) -> Inferred,
    /// The Rust of a bound call (`Option<T>` tokens, see `codegen/expr.rs`);
    /// `Err` names what code generation does not support.
    codegen: fn(&mut Gen, &BoundCall) -> GenResult,
}

const VARIADIC: usize = usize::MAX;

/// The codegen hook of a function code generation does not support yet.
fn not_generated(_: &mut Gen, call: &BoundCall) -> GenResult {
    Err(call.unsupported())
}

/// Lists the scalar built-ins once: the [`ScalarFunction`] variant and its
/// [`Builtin`] entry. The order is the enum's, which orders and hashes
/// calls in plans.
macro_rules! scalar_functions {
    ($($variant:ident => $entry:path;)*) => {
        /// A built-in scalar function: the id of its [`Builtin`] entry.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ScalarFunction { $($variant,)* }

        impl ScalarFunction {
            /// Every scalar built-in, in declaration order.
            pub const ALL: &'static [ScalarFunction] = &[$(ScalarFunction::$variant,)*];

            fn builtin(self) -> &'static Builtin {
                match self { $(ScalarFunction::$variant => &$entry,)* }
            }
        }
    };
}

scalar_functions! {
    Coalesce => conditional::COALESCE;
    IfNull => conditional::IFNULL;
    NullIf => conditional::NULLIF;
    If => conditional::IF;
    Greatest => conditional::GREATEST;
    Least => conditional::LEAST;
    Upper => string::UPPER;
    Lower => string::LOWER;
    Initcap => string::INITCAP;
    Trim => string::TRIM;
    Ltrim => string::LTRIM;
    Rtrim => string::RTRIM;
    Btrim => string::BTRIM;
    Substring => string::SUBSTRING;
    Substr => string::SUBSTR;
    Left => string::LEFT;
    Right => string::RIGHT;
    Concat => string::CONCAT;
    ConcatWs => string::CONCAT_WS;
    CharLength => string::CHAR_LENGTH;
    CharacterLength => string::CHARACTER_LENGTH;
    Replace => string::REPLACE;
    Position => string::POSITION;
    Locate => string::LOCATE;
    Instr => string::INSTR;
    Lpad => string::LPAD;
    Rpad => string::RPAD;
    Reverse => string::REVERSE;
    Repeat => string::REPEAT;
    RegexpReplace => regex::REGEXP_REPLACE;
    RegexpExtract => regex::REGEXP_EXTRACT;
    Regexp => regex::REGEXP;
    SplitIndex => string::SPLIT_INDEX;
    Md5 => string::MD5;
    Sha256 => string::SHA256;
    Ascii => string::ASCII;
    Chr => string::CHR;
    ToBase64 => string::TO_BASE64;
    FromBase64 => string::FROM_BASE64;
    Uuid => string::UUID;
    IsDigit => string::IS_DIGIT;
    IsAlpha => string::IS_ALPHA;
    IsDecimal => string::IS_DECIMAL;
    Abs => math::ABS;
    Round => math::ROUND;
    Truncate => math::TRUNCATE;
    Floor => math::FLOOR;
    Ceil => math::CEIL;
    Ceiling => math::CEILING;
    Mod => math::MOD;
    Power => math::POWER;
    Sqrt => math::SQRT;
    Ln => math::LN;
    Log10 => math::LOG10;
    Log2 => math::LOG2;
    Log => math::LOG;
    Exp => math::EXP;
    Sign => math::SIGN;
    Sin => math::SIN;
    Cos => math::COS;
    Tan => math::TAN;
    Cot => math::COT;
    Asin => math::ASIN;
    Acos => math::ACOS;
    Atan => math::ATAN;
    Atan2 => math::ATAN2;
    Degrees => math::DEGREES;
    Radians => math::RADIANS;
    Pi => math::PI;
    E => math::E;
    Rand => math::RAND;
    RandInteger => math::RAND_INTEGER;
    DateFormat => temporal::DATE_FORMAT;
    ToDate => temporal::TO_DATE;
    ToTimestamp => temporal::TO_TIMESTAMP;
    ToTimestampLtz => temporal::TO_TIMESTAMP_LTZ;
    UnixTimestamp => temporal::UNIX_TIMESTAMP;
    FromUnixtime => temporal::FROM_UNIXTIME;
    ConvertTz => temporal::CONVERT_TZ;
    CurrentTimestamp => temporal::CURRENT_TIMESTAMP;
    CurrentDate => temporal::CURRENT_DATE;
    CurrentTime => temporal::CURRENT_TIME;
    CurrentRowTimestamp => temporal::CURRENT_ROW_TIMESTAMP;
    Now => temporal::NOW;
    LocalTimestamp => temporal::LOCALTIMESTAMP;
    LocalTime => temporal::LOCALTIME;
    Extract => temporal::EXTRACT;
    Year => temporal::YEAR;
    Quarter => temporal::QUARTER;
    Month => temporal::MONTH;
    Week => temporal::WEEK;
    DayOfYear => temporal::DAYOFYEAR;
    DayOfMonth => temporal::DAYOFMONTH;
    DayOfWeek => temporal::DAYOFWEEK;
    Hour => temporal::HOUR;
    Minute => temporal::MINUTE;
    Second => temporal::SECOND;
}

impl ScalarFunction {
    /// Flink's upper-case name.
    pub fn name(self) -> &'static str {
        self.builtin().name
    }

    /// False for functions whose value changes between calls or runs
    /// (random numbers, the clock): never merge or constant-fold them.
    pub fn is_deterministic(self) -> bool {
        self.builtin().deterministic
    }

    /// The Rust of a call of this function: its entry's codegen hook.
    pub(crate) fn generate(self, g: &mut Gen, call: &BoundCall) -> GenResult {
        (self.builtin().codegen)(g, call)
    }

    fn lookup(name: &str) -> Option<ScalarFunction> {
        ScalarFunction::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }
}

/// A resolved scalar call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarSignature {
    pub function: ScalarFunction,
    pub result: DataType,
    /// The types the arguments are implicitly cast to before the call, same
    /// length as the arguments (equal to the argument type when no cast is needed).
    pub arg_types: Vec<DataType>,
}

/// Why a call does not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionError {
    /// No such function; `suggestion` is the closest known name, if any is close.
    Unknown { suggestion: Option<String> },
    /// Wrong number of arguments: `expected` is "1", "2 or 3", "at least 1".
    Arity { expected: String },
    /// Arguments of the wrong type, with Flink's message.
    ArgumentTypes { message: String },
}

impl FunctionError {
    /// The error in Flink's words, for a call `name(args)`:
    /// `No match found for function signature FOO(<NUMERIC>)`,
    /// `Invalid number of arguments to function 'UPPER'. Was expecting 1 arguments`,
    /// or the argument-type message itself.
    // The binder words some of these itself; kept as the reference wording.
    #[allow(dead_code)]
    pub fn flink_message(&self, name: &str, args: &[DataType]) -> String {
        match self {
            FunctionError::Unknown { .. } => {
                let families: Vec<String> = args
                    .iter()
                    .map(|a| format!("<{}>", type_family(a)))
                    .collect();
                format!(
                    "No match found for function signature {}({})",
                    name.to_uppercase(),
                    families.join(", ")
                )
            }
            FunctionError::Arity { expected } => format!(
                "Invalid number of arguments to function '{}'. Was expecting {expected} arguments",
                name.to_uppercase()
            ),
            FunctionError::ArgumentTypes { message } => message.clone(),
        }
    }
}

/// Calcite's family name of a type, as in "No match found for function signature".
#[allow(dead_code)] // only reached through `flink_message`
fn type_family(t: &DataType) -> &'static str {
    match t.kind {
        k if k.is_numeric() => "NUMERIC",
        k if k.is_string() => "CHARACTER",
        k if k.is_binary() => "BINARY",
        TypeKind::Boolean => "BOOLEAN",
        TypeKind::Date => "DATE",
        TypeKind::Time(_) => "TIME",
        TypeKind::Timestamp(_) => "TIMESTAMP",
        TypeKind::TimestampLtz(_) => "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
        TypeKind::IntervalDayTime => "INTERVAL_DAY_TIME",
        TypeKind::IntervalYearMonth => "INTERVAL_YEAR_MONTH",
        _ => "NULL",
    }
}

/// Resolve a built-in scalar function by name (any case) and argument types.
/// `ROUND`/`TRUNCATE` with a literal digit count: use
/// [`resolve_scalar_with_literals`], which Flink's DECIMAL result depends on.
// Part of the binder contract; the binder currently uses the `_with_literals` form.
#[allow(dead_code)]
pub fn resolve_scalar(name: &str, args: &[DataType]) -> Result<ScalarSignature, FunctionError> {
    resolve_scalar_with_literals(name, args, &[])
}

/// [`resolve_scalar`], plus the values of integer-literal arguments
/// (`int_literals[i]` = `Some(v)` when argument `i` is the literal `v`; the
/// slice may be shorter than `args`). Flink types `ROUND(DECIMAL(10, 2), 1)` as
/// DECIMAL(10, 1) but `ROUND(DECIMAL(10, 2), n)` as DECIMAL(10, 2).
pub fn resolve_scalar_with_literals(
    name: &str,
    args: &[DataType],
    int_literals: &[Option<i64>],
) -> Result<ScalarSignature, FunctionError> {
    let Some(function) = ScalarFunction::lookup(name) else {
        return Err(FunctionError::Unknown {
            suggestion: suggest(name),
        });
    };
    let arity = &function.builtin().arity;
    if !arity.contains(&args.len()) {
        return Err(FunctionError::Arity {
            expected: arity_text(*arity.start(), *arity.end()),
        });
    }
    let call = CallTypes {
        function,
        args,
        int_literals,
    };
    match (function.builtin().infer)(&call) {
        Ok((result, arg_types)) => Ok(ScalarSignature {
            function,
            result,
            arg_types,
        }),
        Err(Refusal::Null) => Err(FunctionError::ArgumentTypes {
            message: ILLEGAL_NULL.to_string(),
        }),
        Err(Refusal::Message(message)) => Err(FunctionError::ArgumentTypes { message }),
        Err(Refusal::Types) => Err(FunctionError::ArgumentTypes {
            message: cannot_apply(function, args),
        }),
    }
}

fn arity_text(min: usize, max: usize) -> String {
    match (min, max) {
        (min, VARIADIC) => format!("at least {min}"),
        (a, b) if a == b => a.to_string(),
        (a, b) if b == a + 1 => format!("{a} or {b}"),
        (a, b) => format!("{a} to {b}"),
    }
}

/// `Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'. Supported form(s): ...`
fn cannot_apply(function: ScalarFunction, args: &[DataType]) -> String {
    let shown: Vec<String> = args
        .iter()
        .map(|a| format!("<{}>", calcite_type_name(a)))
        .collect();
    format!(
        "Cannot apply '{name}' to arguments of type '{name}({})'. Supported form(s): {}",
        shown.join(", "),
        function.builtin().forms,
        name = function.name(),
    )
}

/// A built-in aggregate function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AggregateFunction {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    StddevPop,
    StddevSamp,
    VarPop,
    VarSamp,
    FirstValue,
    LastValue,
    /// `LISTAGG(value [, separator])`: the non-NULL values joined; the
    /// separator is the call's `AggregateCall::separator` (a literal).
    ListAgg,
    /// Calcite's internal `SINGLE_VALUE`: the value of a group's only row
    /// (a run-time error for more); planned under scalar subqueries, never
    /// callable by name (it is not in `ALL`).
    SingleValue,
}

impl AggregateFunction {
    pub const ALL: &'static [AggregateFunction] = &[
        AggregateFunction::Count,
        AggregateFunction::Sum,
        AggregateFunction::Avg,
        AggregateFunction::Min,
        AggregateFunction::Max,
        AggregateFunction::StddevPop,
        AggregateFunction::StddevSamp,
        AggregateFunction::VarPop,
        AggregateFunction::VarSamp,
        AggregateFunction::FirstValue,
        AggregateFunction::LastValue,
        AggregateFunction::ListAgg,
    ];

    /// Flink's upper-case name.
    pub fn name(self) -> &'static str {
        match self {
            AggregateFunction::Count => "COUNT",
            AggregateFunction::Sum => "SUM",
            AggregateFunction::Avg => "AVG",
            AggregateFunction::Min => "MIN",
            AggregateFunction::Max => "MAX",
            AggregateFunction::StddevPop => "STDDEV_POP",
            AggregateFunction::StddevSamp => "STDDEV_SAMP",
            AggregateFunction::VarPop => "VAR_POP",
            AggregateFunction::VarSamp => "VAR_SAMP",
            AggregateFunction::FirstValue => "FIRST_VALUE",
            AggregateFunction::LastValue => "LAST_VALUE",
            AggregateFunction::ListAgg => "LISTAGG",
            AggregateFunction::SingleValue => "SINGLE_VALUE",
        }
    }

    fn lookup(name: &str) -> Option<AggregateFunction> {
        // STDDEV and VARIANCE are Flink's aliases of the sample variants.
        if name.eq_ignore_ascii_case("STDDEV") {
            return Some(AggregateFunction::StddevSamp);
        }
        if name.eq_ignore_ascii_case("VARIANCE") {
            return Some(AggregateFunction::VarSamp);
        }
        AggregateFunction::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }
}

/// A resolved aggregate call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggregateSignature {
    pub function: AggregateFunction,
    pub distinct: bool,
    pub result: DataType,
    pub arg_types: Vec<DataType>,
}

/// Resolve an aggregate call inside a GROUP BY query. `None` if `name` is not
/// an aggregate function. `COUNT(*)` is `args == []`. See
/// [`resolve_aggregate_in`] for aggregates without GROUP BY.
pub fn resolve_aggregate(
    name: &str,
    distinct: bool,
    args: &[DataType],
) -> Option<Result<AggregateSignature, FunctionError>> {
    resolve_aggregate_in(name, distinct, args, true)
}

/// Resolve an aggregate call. `grouped` is false for a global aggregate (no
/// GROUP BY): there, every result but COUNT's is nullable, since an empty input
/// gives NULL. With GROUP BY, results are NOT NULL when the argument is.
///
/// Result types (Flink 2.3): COUNT -> BIGINT NOT NULL; SUM keeps integer and
/// approximate types (SUM(INT) is INT), SUM(DECIMAL(p, s)) is DECIMAL(38, s);
/// AVG (and STDDEV/VAR) keep integer and approximate types (AVG(INT) is INT),
/// AVG(DECIMAL(p, s)) is DECIMAL(38, max(6, s)); MIN/MAX/FIRST_VALUE/LAST_VALUE
/// keep the type.
pub fn resolve_aggregate_in(
    name: &str,
    distinct: bool,
    args: &[DataType],
    grouped: bool,
) -> Option<Result<AggregateSignature, FunctionError>> {
    use AggregateFunction as A;
    let function = AggregateFunction::lookup(name)?;
    let arity_error = || {
        Some(Err(FunctionError::Arity {
            expected: "1".to_string(),
        }))
    };
    if args.iter().any(DataType::is_null_type) {
        return Some(Err(FunctionError::ArgumentTypes {
            message: ILLEGAL_NULL.to_string(),
        }));
    }
    if function == A::Count && args.len() > 1 {
        // Calcite accepts COUNT(a, b); Flink's planner does not.
        return Some(Err(FunctionError::Arity {
            expected: "0 or 1 (Flink counts one field only)".to_string(),
        }));
    }
    if function == A::Count {
        return Some(Ok(AggregateSignature {
            function,
            distinct,
            result: DataType::not_null(TypeKind::BigInt),
            arg_types: args.to_vec(),
        }));
    }
    if function == A::ListAgg {
        // The separator's own checks (a non-NULL literal) are the binder's
        // (`binder/over/listagg.rs`); here the types, in Calcite's words.
        let [value, separator @ ..] = args else {
            return arity_error();
        };
        if separator.len() > 1
            || !value.is_string()
            || separator.first().is_some_and(|s| !s.is_string())
        {
            let types: Vec<String> = args
                .iter()
                .map(|t| format!("<{}>", calcite_type_name(t)))
                .collect();
            return Some(Err(FunctionError::ArgumentTypes {
                message: format!(
                    "Cannot apply 'LISTAGG' to arguments of type 'LISTAGG({})'. Supported form(s): 'LISTAGG(<CHARACTER>)'\n'LISTAGG(<CHARACTER>, <CHARACTER_LITERAL>)'",
                    types.join(", ")
                ),
            }));
        }
        return Some(Ok(AggregateSignature {
            function,
            distinct,
            result: value.with_nullable(value.nullable),
            arg_types: vec![*value],
        }));
    }
    let [arg] = args else {
        return arity_error();
    };
    let numeric_only = matches!(
        function,
        A::Sum | A::Avg | A::StddevPop | A::StddevSamp | A::VarPop | A::VarSamp
    );
    if numeric_only && !arg.is_numeric() {
        let forms = format!("'{}(<NUMERIC>)'", function.name());
        return Some(Err(FunctionError::ArgumentTypes {
            message: format!(
                "Cannot apply '{name}' to arguments of type '{name}(<{}>)'. Supported form(s): {forms}",
                calcite_type_name(arg),
                name = function.name()
            ),
        }));
    }
    let kind = match (function, arg.kind) {
        (A::Sum, TypeKind::Decimal { scale, .. }) => TypeKind::Decimal {
            precision: MAX_DECIMAL_PRECISION,
            scale,
        },
        (
            A::Avg | A::StddevPop | A::StddevSamp | A::VarPop | A::VarSamp,
            TypeKind::Decimal { scale, .. },
        ) => TypeKind::Decimal {
            precision: MAX_DECIMAL_PRECISION,
            scale: scale.max(6),
        },
        (_, kind) => kind,
    };
    Some(Ok(AggregateSignature {
        function,
        distinct,
        result: DataType::new(kind, arg.nullable || !grouped),
        arg_types: vec![*arg],
    }))
}

/// Names of the special forms the binder handles itself (they are still
/// known names for did-you-mean).
const SPECIAL_FORMS: &[&str] = &[
    "CAST",
    "TRY_CAST",
    "CASE",
    "IN",
    "BETWEEN",
    "LIKE",
    "TIMESTAMPDIFF",
    "TIMESTAMPADD",
    "STDDEV",
    "VARIANCE",
];

/// All names known: scalar and aggregate built-ins and the special forms.
pub fn known_function_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<&'static str> = ScalarFunction::ALL.iter().map(|f| f.name()).collect();
        names.extend(AggregateFunction::ALL.iter().map(|f| f.name()));
        names.extend(SPECIAL_FORMS);
        names.sort_unstable();
        names.dedup();
        names
    })
}

/// The known name closest to `name` by edit distance, if close enough to be
/// a likely typo (at most a third of the name's length, at least 1).
pub fn suggest(name: &str) -> Option<String> {
    let upper = name.to_uppercase();
    let budget = (upper.chars().count() / 3).max(1);
    known_function_names()
        .iter()
        .map(|known| (edit_distance(&upper, known), *known))
        .filter(|(d, _)| *d <= budget)
        .min()
        .map(|(_, known)| known.to_string())
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(previous + 1).min(row[j] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typing::test_support::ty;

    /// `input` is a call over type names, `NAME(T1; T2)` (types separated by
    /// `;`, an integer literal as `lit:N`), or `agg NAME(T)` / `agg distinct
    /// NAME(T)` / `global NAME(T)` for aggregates. `expect` is the result type,
    /// `ERR <message prefix>` (Flink's wording), or `UNKNOWN <suggestion>`.
    fn check(input: &str, expect: &str) {
        let got = eval(input);
        if let Some(prefix) = expect.strip_prefix("ERR ") {
            assert!(
                got.starts_with("ERR ") && got[4..].starts_with(prefix),
                "{input}: expected error starting {prefix:?}, got {got:?}"
            );
        } else {
            assert_eq!(got, expect, "{input}");
        }
    }

    fn parse_call(call: &str) -> (&str, Vec<DataType>, Vec<Option<i64>>) {
        let (name, rest) = call.split_once('(').expect("call syntax");
        let inner = rest.strip_suffix(')').expect("closing paren");
        let mut args = Vec::new();
        let mut literals = Vec::new();
        for part in inner.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(value) = part.strip_prefix("lit:") {
                let value: i64 = value.parse().expect("literal");
                let literal_type =
                    crate::typing::numeric_literal_type(&value.to_string()).expect("literal type");
                args.push(literal_type);
                literals.push(Some(value));
            } else {
                args.push(ty(part));
                literals.push(None);
            }
        }
        (name, args, literals)
    }

    fn eval(input: &str) -> String {
        let (mode, call) = if let Some(rest) = input.strip_prefix("agg distinct ") {
            ("distinct", rest)
        } else if let Some(rest) = input.strip_prefix("agg ") {
            ("agg", rest)
        } else if let Some(rest) = input.strip_prefix("global ") {
            ("global", rest)
        } else {
            ("scalar", input)
        };
        let (name, args, literals) = parse_call(call);
        let result = if mode == "scalar" {
            resolve_scalar_with_literals(name, &args, &literals).map(|s| s.result)
        } else {
            match resolve_aggregate_in(name, mode == "distinct", &args, mode != "global") {
                None => return "NOT AGGREGATE".to_string(),
                Some(r) => r.map(|s| s.result),
            }
        };
        match result {
            Ok(t) => t.to_string(),
            Err(FunctionError::Unknown { suggestion }) => {
                format!("UNKNOWN {}", suggestion.unwrap_or_default())
            }
            Err(e) => format!("ERR {}", e.flink_message(name, &args)),
        }
    }

    #[test]
    fn string_functions() {
        check("UPPER(STRING)", "STRING");
        check("upper(CHAR(3))", "CHAR(3)");
        check("UPPER(VARCHAR(10))", "VARCHAR(10)");
        check("UPPER(STRING NOT NULL)", "STRING NOT NULL");
        check("LOWER(CHAR(3) NOT NULL)", "CHAR(3) NOT NULL");
        check("INITCAP(CHAR(3))", "CHAR(3)");
        check("TRIM(CHAR(3))", "VARCHAR(3)");
        check("TRIM(STRING NOT NULL)", "STRING NOT NULL");
        check("TRIM(STRING NOT NULL; STRING)", "STRING");
        check("LTRIM(CHAR(3))", "VARCHAR(3)");
        check("RTRIM(VARCHAR(10))", "VARCHAR(10)");
        check("SUBSTRING(STRING; INT)", "STRING");
        check("SUBSTRING(CHAR(3); INT; INT)", "VARCHAR(3)");
        check(
            "SUBSTRING(STRING NOT NULL; INT NOT NULL; INT NOT NULL)",
            "STRING",
        );
        // Flink types it STRING, then cannot generate code for it.
        check(
            "SUBSTRING(STRING; BIGINT)",
            "ERR SUBSTRING with a BIGINT argument: Flink 2.3 cannot compile it",
        );
        check(
            "REPEAT(STRING; BIGINT)",
            "ERR REPEAT with a BIGINT argument: Flink 2.3 cannot compile it",
        );
        check("SUBSTRING(STRING; SMALLINT)", "STRING");
        check("SUBSTR(CHAR(3); INT)", "VARCHAR(3)");
        check("LEFT(STRING NOT NULL; INT)", "STRING");
        check("LEFT(CHAR(3); INT)", "VARCHAR(3)");
        check("CHR(INT NOT NULL)", "STRING");
        check("TO_BASE64(STRING NOT NULL)", "STRING NOT NULL");
        check("ASCII(STRING NOT NULL)", "INT NOT NULL");
        check("MD5(STRING NOT NULL)", "CHAR(32) NOT NULL");
        check(
            "REGEXP(STRING NOT NULL; CHAR(1) NOT NULL)",
            "BOOLEAN NOT NULL",
        );
        check("INSTR(STRING NOT NULL; CHAR(1) NOT NULL)", "INT NOT NULL");
        check(
            "CONVERT_TZ(STRING NOT NULL; CHAR(3) NOT NULL; CHAR(3) NOT NULL)",
            "STRING",
        );
        check("RIGHT(CHAR(3); INT)", "VARCHAR(3)");
        check("CONCAT(CHAR(3); VARCHAR(10))", "STRING");
        check(
            "CONCAT(STRING NOT NULL; STRING NOT NULL)",
            "STRING NOT NULL",
        );
        check("CONCAT(STRING NOT NULL; STRING)", "STRING");
        check("CONCAT(STRING)", "STRING");
        check("CONCAT_WS(CHAR(1) NOT NULL; STRING; STRING)", "STRING");
        check("CONCAT_WS(CHAR(1) NOT NULL)", "STRING NOT NULL");
        check("CHAR_LENGTH(STRING NOT NULL)", "INT NOT NULL");
        check("CHARACTER_LENGTH(CHAR(3))", "INT");
        check(
            "REPLACE(CHAR(3); CHAR(1) NOT NULL; CHAR(1) NOT NULL)",
            "STRING",
        );
        check(
            "REPLACE(STRING NOT NULL; CHAR(1) NOT NULL; CHAR(1) NOT NULL)",
            "STRING NOT NULL",
        );
        check(
            "POSITION(CHAR(1) NOT NULL; STRING NOT NULL)",
            "INT NOT NULL",
        );
        check("POSITION(STRING; STRING NOT NULL)", "INT");
        check("LOCATE(CHAR(1) NOT NULL; STRING; INT NOT NULL)", "INT");
        check(
            "LPAD(STRING NOT NULL; INT NOT NULL; CHAR(1) NOT NULL)",
            "STRING NOT NULL",
        );
        check("RPAD(CHAR(3); INT NOT NULL; CHAR(1) NOT NULL)", "STRING");
        check("REVERSE(STRING NOT NULL)", "STRING");
        check("REVERSE(CHAR(3))", "STRING");
        check("REPEAT(STRING NOT NULL; INT NOT NULL)", "STRING NOT NULL");
        check(
            "REGEXP_REPLACE(STRING NOT NULL; CHAR(1) NOT NULL; CHAR(1) NOT NULL)",
            "STRING NOT NULL",
        );
        check(
            "REGEXP_EXTRACT(STRING NOT NULL; CHAR(1) NOT NULL; INT NOT NULL)",
            "STRING",
        );
        check(
            "SPLIT_INDEX(STRING NOT NULL; CHAR(1) NOT NULL; INT NOT NULL)",
            "STRING",
        );
        check("MD5(STRING)", "CHAR(32)");
        check("SHA256(STRING)", "CHAR(64)");
        check("UUID()", "CHAR(36) NOT NULL");
        check("IS_DIGIT(STRING)", "BOOLEAN NOT NULL");
    }

    #[test]
    fn string_function_errors() {
        check(
            "UPPER(INT)",
            "ERR Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'. Supported form(s): 'UPPER(<CHARACTER>)'",
        );
        check(
            "UPPER(DATE)",
            "ERR Cannot apply 'UPPER' to arguments of type 'UPPER(<DATE>)'",
        );
        check("UPPER(NULL)", "ERR Illegal use of 'NULL'");
        check(
            "UPPER(STRING; STRING)",
            "ERR Invalid number of arguments to function 'UPPER'. Was expecting 1 arguments",
        );
        check(
            "UPPER()",
            "ERR Invalid number of arguments to function 'UPPER'. Was expecting 1 arguments",
        );
        check(
            "SUBSTRING(STRING; CHAR(1))",
            "ERR Cannot apply 'SUBSTRING' to arguments of type 'SUBSTRING(<VARCHAR(2147483647)>, <CHAR(1)>)'. Supported form(s): 'SUBSTRING(<CHARACTER>, <INTEGER>)'\n'SUBSTRING(<CHARACTER>, <INTEGER>, <INTEGER>)'",
        );
        check(
            "SUBSTRING(STRING; DECIMAL(10, 2))",
            "ERR Cannot apply 'SUBSTRING'",
        );
        check("SUBSTRING(BYTES; INT)", "ERR Cannot apply 'SUBSTRING'");
        check("CONCAT(STRING; INT)", "ERR Cannot apply 'CONCAT' to arguments of type 'CONCAT(<VARCHAR(2147483647)>, <INTEGER>)'");
        check("CONCAT(STRING; NULL)", "ERR Illegal use of 'NULL'");
        check("CONCAT()", "ERR Invalid number of arguments to function 'CONCAT'. Was expecting at least 1 arguments");
        check(
            "REPLACE(STRING; CHAR(1))",
            "ERR Invalid number of arguments to function 'REPLACE'. Was expecting 3 arguments",
        );
        check("LPAD(STRING; CHAR(1); CHAR(1))", "ERR Cannot apply 'LPAD'");
        check("TRIM(INT)", "ERR Cannot apply 'TRIM'");
        check("CHAR_LENGTH(BYTES)", "ERR Cannot apply 'CHAR_LENGTH'");
    }

    #[test]
    fn math_functions() {
        check("ABS(TINYINT)", "TINYINT");
        check("ABS(DECIMAL(10, 2) NOT NULL)", "DECIMAL(10, 2) NOT NULL");
        check("ABS(STRING)", "ERR Cannot apply 'ABS' to arguments of type 'ABS(<VARCHAR(2147483647)>)'. Supported form(s): 'ABS(<NUMERIC>)'\n'ABS(<DATETIME_INTERVAL>)'");
        check("ABS(NULL)", "ERR Illegal use of 'NULL'");
        check("ROUND(INT)", "INT");
        check("ROUND(DECIMAL(10, 2))", "DECIMAL(9, 0)");
        check("ROUND(DECIMAL(10, 2); lit:1)", "DECIMAL(10, 1)");
        check("ROUND(DECIMAL(10, 2); lit:2)", "DECIMAL(10, 2)");
        check("ROUND(DECIMAL(10, 2); lit:3)", "DECIMAL(10, 2)");
        check("ROUND(DECIMAL(10, 2); lit:0)", "DECIMAL(9, 0)");
        check("ROUND(DECIMAL(10, 2); lit:-1)", "DECIMAL(9, 0)");
        check("ROUND(DECIMAL(10, 2); INT)", "DECIMAL(10, 2)");
        check("ROUND(DECIMAL(38, 10); lit:2)", "DECIMAL(31, 2)");
        check("ROUND(DECIMAL(5, 0); lit:2)", "DECIMAL(5, 0)");
        check("ROUND(DOUBLE; lit:2)", "DOUBLE");
        check("ROUND(FLOAT; lit:1)", "FLOAT");
        check("ROUND(BIGINT; lit:-1)", "BIGINT");
        check("ROUND(INT NOT NULL; lit:1)", "INT NOT NULL");
        check(
            "ROUND(DECIMAL(10, 2) NOT NULL; lit:1)",
            "DECIMAL(10, 1) NOT NULL",
        );
        check("ROUND(DECIMAL(10, 2); DECIMAL(2, 1))", "ERR Cannot apply 'ROUND' to arguments of type 'ROUND(<DECIMAL(10, 2)>, <DECIMAL(2, 1)>)'. Supported form(s): 'ROUND(<NUMERIC>, <INTEGER>)'\n'ROUND(<NUMERIC>)'");
        check("TRUNCATE(DECIMAL(10, 2))", "DECIMAL(9, 0)");
        check("TRUNCATE(DECIMAL(10, 2); lit:1)", "DECIMAL(10, 1)");
        check("TRUNCATE(DOUBLE; lit:1)", "DOUBLE");
        check("FLOOR(INT)", "INT");
        check("FLOOR(DECIMAL(10, 2))", "DECIMAL(10, 0)");
        check("CEIL(DECIMAL(38, 10))", "DECIMAL(38, 0)");
        check("CEILING(DOUBLE)", "DOUBLE");
        check("FLOOR(TIMESTAMP(3) NOT NULL)", "TIMESTAMP(3) NOT NULL");
        check("CEIL(DATE)", "DATE");
        check("FLOOR(TIMESTAMP_LTZ(3))", "TIMESTAMP_LTZ(3)");
        check("FLOOR(STRING)", "ERR Cannot apply 'FLOOR'");
        check("FLOOR(INTERVAL_DAY)", "ERR Cannot apply 'FLOOR'");
        check("ABS(INTERVAL_DAY NOT NULL)", "INTERVAL SECOND(3) NOT NULL");
        check("MOD(INT; lit:2)", "INT");
        check("MOD(lit:2; BIGINT)", "BIGINT");
        check("MOD(BIGINT; INT)", "INT");
        check("MOD(DECIMAL(10, 2); INT)", "DECIMAL(10, 2)");
        check("MOD(FLOAT; INT)", "ERR Cannot apply 'MOD' to arguments of type 'MOD(<FLOAT>, <INTEGER>)'. Supported form(s): 'MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)'");
        check("POWER(INT; lit:2)", "DOUBLE");
        check("POWER(INT NOT NULL; lit:2)", "DOUBLE NOT NULL");
        check("POWER(STRING; lit:2)", "ERR Cannot apply 'POWER'");
        check("SQRT(DECIMAL(10, 2))", "DOUBLE");
        check("LN(INT NOT NULL)", "DOUBLE NOT NULL");
        check("LOG10(DECIMAL(10, 2) NOT NULL)", "DOUBLE NOT NULL");
        check("LOG(lit:2; INT)", "DOUBLE");
        check("EXP(INT)", "DOUBLE");
        check("SIGN(DECIMAL(10, 2))", "DECIMAL(10, 2)");
        check("SIGN(TINYINT)", "TINYINT");
        check("RAND()", "DOUBLE NOT NULL");
        check("RAND(INT)", "DOUBLE");
        check("RAND_INTEGER(lit:10)", "INT NOT NULL");
        check("PI()", "DOUBLE NOT NULL");
    }

    #[test]
    fn math_functions_cast_their_arguments_to_double() {
        let sig = resolve_scalar("SQRT", &[ty("INT NOT NULL")]).expect("resolves");
        assert_eq!(sig.arg_types, vec![ty("DOUBLE NOT NULL")]);
        let sig =
            resolve_scalar("COALESCE", &[ty("INT"), ty("BIGINT NOT NULL")]).expect("resolves");
        assert_eq!(sig.result, ty("BIGINT NOT NULL"));
        assert_eq!(sig.arg_types, vec![ty("BIGINT"), ty("BIGINT NOT NULL")]);
    }

    #[test]
    fn temporal_functions() {
        check(
            "DATE_FORMAT(TIMESTAMP(3) NOT NULL; CHAR(4) NOT NULL)",
            "STRING",
        );
        check("DATE_FORMAT(STRING; CHAR(4) NOT NULL)", "STRING");
        check("DATE_FORMAT(TIMESTAMP_LTZ(3); STRING)", "STRING");
        check("DATE_FORMAT(DATE; CHAR(4) NOT NULL)", "ERR Cannot apply 'DATE_FORMAT' to arguments of type 'DATE_FORMAT(<DATE>, <CHAR(4)>)'. Supported form(s): 'DATE_FORMAT(<TIMESTAMP>, <CHARACTER>)'\n'DATE_FORMAT(<CHARACTER>, <CHARACTER>)'");
        check(
            "DATE_FORMAT(TIMESTAMP(3))",
            "ERR Invalid number of arguments to function 'DATE_FORMAT'. Was expecting 2 arguments",
        );
        check("TO_DATE(STRING NOT NULL)", "DATE");
        check("TO_DATE(STRING; STRING)", "DATE");
        check(
            "TO_DATE(INT)",
            "ERR Cannot apply 'TO_DATE' to arguments of type 'TO_DATE(<INTEGER>)'",
        );
        check("TO_TIMESTAMP(STRING NOT NULL)", "TIMESTAMP(3)");
        check("TO_TIMESTAMP(BIGINT)", "ERR Cannot apply 'TO_TIMESTAMP'");
        check(
            "TO_TIMESTAMP_LTZ(BIGINT NOT NULL; lit:3)",
            "TIMESTAMP_LTZ(3)",
        );
        check("TO_TIMESTAMP_LTZ(BIGINT; lit:0)", "TIMESTAMP_LTZ(3)");
        check("CURRENT_TIMESTAMP()", "TIMESTAMP_LTZ(3) NOT NULL");
        check("NOW()", "TIMESTAMP_LTZ(3) NOT NULL");
        check("CURRENT_DATE()", "DATE NOT NULL");
        check("CURRENT_TIME()", "TIME(0) NOT NULL");
        check("LOCALTIMESTAMP()", "TIMESTAMP(3) NOT NULL");
        check("LOCALTIME()", "TIME(0) NOT NULL");
        check("YEAR(DATE)", "BIGINT");
        check("HOUR(TIMESTAMP(3) NOT NULL)", "BIGINT NOT NULL");
        check("HOUR(DATE)", "BIGINT");
        check("MINUTE(TIME(0))", "BIGINT");
        check("DAYOFMONTH(TIMESTAMP_LTZ(3))", "BIGINT");
        check("YEAR(STRING)", "ERR Cannot apply 'EXTRACT' to arguments of type 'EXTRACT(<INTERVAL YEAR> FROM <VARCHAR(2147483647)>)'");
        check("EXTRACT(TIMESTAMP(3) NOT NULL)", "BIGINT NOT NULL");
        check("EXTRACT(INTERVAL_DAY NOT NULL)", "BIGINT NOT NULL");
        check("EXTRACT(INT)", "ERR Cannot apply 'EXTRACT'");
        check("UNIX_TIMESTAMP()", "BIGINT NOT NULL");
        check("UNIX_TIMESTAMP(STRING NOT NULL)", "BIGINT NOT NULL");
        check(
            "UNIX_TIMESTAMP(TIMESTAMP(3))",
            "ERR Cannot apply 'UNIX_TIMESTAMP'",
        );
        check("FROM_UNIXTIME(BIGINT NOT NULL)", "STRING");
        check("FROM_UNIXTIME(INT; STRING)", "STRING");
        check(
            "FROM_UNIXTIME(DECIMAL(10, 2))",
            "ERR Cannot apply 'FROM_UNIXTIME'",
        );
    }

    #[test]
    fn conditional_functions() {
        check("COALESCE(INT; INT NOT NULL)", "INT NOT NULL");
        check("COALESCE(INT; BIGINT; DECIMAL(10, 2))", "DECIMAL(21, 2)");
        check("COALESCE(CHAR(3); CHAR(6) NOT NULL)", "VARCHAR(6) NOT NULL");
        check("COALESCE(INT; NULL; BIGINT)", "BIGINT");
        check("COALESCE(STRING)", "STRING");
        check(
            "COALESCE(INT; CHAR(1) NOT NULL)",
            "ERR Invalid function call:\nCOALESCE(INT, CHAR(1) NOT NULL)",
        );
        check("COALESCE(NULL; NULL)", "ERR Illegal use of 'NULL'");
        check("IFNULL(INT; INT NOT NULL)", "INT NOT NULL");
        check("IFNULL(INT; BIGINT)", "BIGINT");
        check("IFNULL(STRING; CHAR(1) NOT NULL)", "STRING NOT NULL");
        check("NULLIF(INT NOT NULL; INT NOT NULL)", "INT");
        check("NULLIF(CHAR(3); CHAR(6) NOT NULL)", "CHAR(3)");
        check("NULLIF(INT; NULL)", "INT");
        check(
            "NULLIF(NULL; INT)",
            "ERR ELSE clause or at least one THEN clause must be non-NULL",
        );
        check("IFNULL(NULL; INT)", "INT");
        check(
            "NULLIF(INT; DATE)",
            "ERR Cannot apply '=' to arguments of type '<INTEGER> = <DATE>'",
        );
        check("IF(BOOLEAN; INT NOT NULL; BIGINT NOT NULL)", "BIGINT");
        check(
            "IF(BOOLEAN NOT NULL; INT NOT NULL; BIGINT NOT NULL)",
            "BIGINT NOT NULL",
        );
        check("IF(BOOLEAN; CHAR(3); CHAR(6) NOT NULL)", "VARCHAR(6)");
        check("IF(BOOLEAN; INT; DECIMAL(10, 2))", "DECIMAL(12, 2)");
        check(
            "IF(BOOLEAN; INT; DATE)",
            "ERR Cannot apply 'IF' to arguments of type 'IF(<BOOLEAN>, <INTEGER>, <DATE>)'",
        );
        check("IF(INT; INT; INT)", "ERR Cannot apply 'IF'");
        check("IF(BOOLEAN; NULL; INT)", "ERR Illegal use of 'NULL'");
        check(
            "IF(BOOLEAN; INT)",
            "ERR Invalid number of arguments to function 'IF'. Was expecting 3 arguments",
        );
        check("GREATEST(INT; BIGINT)", "BIGINT");
        check("LEAST(INT; DECIMAL(10, 2))", "DECIMAL(12, 2)");
        check("GREATEST(INT NOT NULL; BIGINT NOT NULL)", "BIGINT NOT NULL");
        check("LEAST(FLOAT; DOUBLE)", "DOUBLE");
        check("GREATEST(DECIMAL(10, 2); FLOAT)", "FLOAT");
        check("GREATEST(FLOAT; DECIMAL(10, 2))", "DOUBLE");
        check("GREATEST(TIMESTAMP(3); DATE)", "DATE");
        check("GREATEST(INT; NULL)", "INT");
        check("GREATEST(STRING; CHAR(3))", "STRING");
        check(
            "GREATEST(INT; STRING)",
            "ERR All types in a comparison should support both 'EQUALS' and 'ORDER' comparison with each other. Can not compare INT with STRING",
        );
    }

    #[test]
    fn unknown_functions_suggest_a_name() {
        check("UPPPER(STRING)", "UNKNOWN UPPER");
        check("SUBSTRIN(STRING; INT)", "UNKNOWN SUBSTRING");
        check("CONCATT(STRING)", "UNKNOWN CONCAT");
        check("COUNTT(INT)", "UNKNOWN COUNT");
        check("DATEFORMAT(TIMESTAMP(3); STRING)", "UNKNOWN DATE_FORMAT");
        check("FOO(INT)", "UNKNOWN ");
        check("SOMETHING_LONG_UNKNOWN(INT; INT)", "UNKNOWN ");
        let err = FunctionError::Unknown { suggestion: None };
        assert_eq!(
            err.flink_message("foo", &[ty("INT"), ty("STRING"), ty("TIMESTAMP(3)")]),
            "No match found for function signature FOO(<NUMERIC>, <CHARACTER>, <TIMESTAMP>)"
        );
    }

    #[test]
    fn determinism() {
        assert!(!ScalarFunction::Rand.is_deterministic());
        assert!(!ScalarFunction::Now.is_deterministic());
        assert!(!ScalarFunction::CurrentTimestamp.is_deterministic());
        assert!(!ScalarFunction::Uuid.is_deterministic());
        assert!(ScalarFunction::Upper.is_deterministic());
        assert!(ScalarFunction::DateFormat.is_deterministic());
    }

    #[test]
    fn names_are_unique_and_known() {
        let names = known_function_names();
        for f in ScalarFunction::ALL {
            assert!(names.contains(&f.name()), "{}", f.name());
        }
        for window in names.windows(2) {
            assert!(window[0] < window[1], "sorted and unique");
        }
    }

    #[test]
    fn aggregates() {
        check("agg COUNT()", "BIGINT NOT NULL");
        check("global COUNT(INT)", "BIGINT NOT NULL");
        // Calcite accepts it, Flink's planner: "We now only support the count of one field."
        check(
            "agg distinct COUNT(INT; STRING)",
            "ERR Invalid number of arguments to function 'COUNT'. Was expecting 0 or 1 (Flink counts one field only) arguments",
        );
        check("global SUM(TINYINT)", "TINYINT");
        check("global SUM(INT NOT NULL)", "INT");
        check("agg SUM(INT NOT NULL)", "INT NOT NULL");
        check("agg SUM(BIGINT)", "BIGINT");
        check("agg SUM(FLOAT)", "FLOAT");
        check("agg SUM(DECIMAL(10, 2))", "DECIMAL(38, 2)");
        check(
            "agg SUM(DECIMAL(10, 2) NOT NULL)",
            "DECIMAL(38, 2) NOT NULL",
        );
        check("agg SUM(DECIMAL(5, 0))", "DECIMAL(38, 0)");
        check("agg distinct SUM(DECIMAL(10, 2))", "DECIMAL(38, 2)");
        check("agg AVG(INT)", "INT");
        check("agg AVG(INT NOT NULL)", "INT NOT NULL");
        check("global AVG(INT NOT NULL)", "INT");
        check("agg AVG(DOUBLE)", "DOUBLE");
        check("agg AVG(DECIMAL(10, 2))", "DECIMAL(38, 6)");
        check("agg AVG(DECIMAL(38, 10))", "DECIMAL(38, 10)");
        check(
            "agg AVG(DECIMAL(10, 2) NOT NULL)",
            "DECIMAL(38, 6) NOT NULL",
        );
        check("agg MIN(STRING)", "STRING");
        check("agg MAX(STRING NOT NULL)", "STRING NOT NULL");
        check("global MAX(STRING NOT NULL)", "STRING");
        check("agg MIN(CHAR(3))", "CHAR(3)");
        check("agg MAX(TIMESTAMP(3) NOT NULL)", "TIMESTAMP(3) NOT NULL");
        check("agg MIN(BOOLEAN)", "BOOLEAN");
        check("agg MAX(BYTES)", "BYTES");
        check("agg STDDEV_SAMP(DECIMAL(10, 2))", "DECIMAL(38, 6)");
        check("agg STDDEV(INT)", "INT");
        check("agg VAR_POP(DOUBLE)", "DOUBLE");
        check("global FIRST_VALUE(INT NOT NULL)", "INT");
        check("agg FIRST_VALUE(INT NOT NULL)", "INT NOT NULL");
        check("agg SUM(STRING)", "ERR Cannot apply 'SUM' to arguments of type 'SUM(<VARCHAR(2147483647)>)'. Supported form(s): 'SUM(<NUMERIC>)'");
        check(
            "agg AVG(TIMESTAMP(3))",
            "ERR Cannot apply 'AVG' to arguments of type 'AVG(<TIMESTAMP(3)>)'",
        );
        check("agg SUM(BOOLEAN)", "ERR Cannot apply 'SUM'");
        check(
            "agg SUM(INT; BIGINT)",
            "ERR Invalid number of arguments to function 'SUM'. Was expecting 1 arguments",
        );
        check(
            "agg MIN()",
            "ERR Invalid number of arguments to function 'MIN'. Was expecting 1 arguments",
        );
        check("agg SUM(NULL)", "ERR Illegal use of 'NULL'");
        check("agg UPPER(STRING)", "NOT AGGREGATE");
    }
}
