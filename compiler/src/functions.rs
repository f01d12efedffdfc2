//! Flink's built-in functions: names, arities, argument checks, result types.
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

use crate::types::{DataType, TypeKind, MAX_DECIMAL_PRECISION, MAX_LENGTH};
use crate::typing::{self, calcite_type_name, ArithOp, ILLEGAL_NULL};

/// Declares the scalar built-ins once: variant, Flink name, arity, the
/// "Supported form(s)" text Flink prints when arguments do not fit.
macro_rules! scalar_functions {
    ($($variant:ident => $name:literal, $min:tt ..= $max:tt, $forms:literal;)*) => {
        /// A built-in scalar function.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ScalarFunction { $($variant,)* }

        impl ScalarFunction {
            /// Every scalar built-in, in declaration order.
            pub const ALL: &'static [ScalarFunction] = &[$(ScalarFunction::$variant,)*];

            /// Flink's upper-case name.
            pub fn name(self) -> &'static str {
                match self { $(ScalarFunction::$variant => $name,)* }
            }

            /// Allowed argument counts (inclusive); `usize::MAX` = variadic.
            fn arity(self) -> (usize, usize) {
                match self { $(ScalarFunction::$variant => ($min, $max),)* }
            }

            /// Flink's "Supported form(s)" for the argument-type error.
            fn supported_forms(self) -> &'static str {
                match self { $(ScalarFunction::$variant => $forms,)* }
            }
        }
    };
}

const VARIADIC: usize = usize::MAX;

scalar_functions! {
    Coalesce => "COALESCE", 1..=VARIADIC, "'COALESCE(<COMMON>, <COMMON>...)'";
    IfNull => "IFNULL", 2..=2, "'IFNULL(<COMMON>, <COMMON>)'";
    NullIf => "NULLIF", 2..=2, "'NULLIF(<COMPARABLE_TYPE>, <COMPARABLE_TYPE>)'";
    If => "IF", 3..=3, "'IF(<BOOLEAN>, <COMMON>, <COMMON>)'";
    Greatest => "GREATEST", 1..=VARIADIC, "'GREATEST(<COMPARABLE>, <COMPARABLE>...)'";
    Least => "LEAST", 1..=VARIADIC, "'LEAST(<COMPARABLE>, <COMPARABLE>...)'";
    Upper => "UPPER", 1..=1, "'UPPER(<CHARACTER>)'";
    Lower => "LOWER", 1..=1, "'LOWER(<CHARACTER>)'";
    Initcap => "INITCAP", 1..=1, "'INITCAP(<CHARACTER>)'";
    Trim => "TRIM", 1..=2, "'TRIM([BOTH|LEADING|TRAILING] <ANY> FROM <STRING>)'";
    Ltrim => "LTRIM", 1..=2, "'LTRIM(<CHARACTER>)'\n'LTRIM(<CHARACTER>, <CHARACTER>)'";
    Rtrim => "RTRIM", 1..=2, "'RTRIM(<CHARACTER>)'\n'RTRIM(<CHARACTER>, <CHARACTER>)'";
    Btrim => "BTRIM", 1..=2, "'BTRIM(<CHARACTER>)'\n'BTRIM(<CHARACTER>, <CHARACTER>)'";
    Substring => "SUBSTRING", 2..=3, "'SUBSTRING(<CHARACTER>, <INTEGER>)'\n'SUBSTRING(<CHARACTER>, <INTEGER>, <INTEGER>)'";
    Substr => "SUBSTR", 2..=3, "'SUBSTR(<CHARACTER>, <INTEGER>)'\n'SUBSTR(<CHARACTER>, <INTEGER>, <INTEGER>)'";
    Left => "LEFT", 2..=2, "'LEFT(<CHARACTER>, <INTEGER>)'";
    Right => "RIGHT", 2..=2, "'RIGHT(<CHARACTER>, <INTEGER>)'";
    Concat => "CONCAT", 1..=VARIADIC, "'CONCAT(<CHARACTER>)'";
    ConcatWs => "CONCAT_WS", 1..=VARIADIC, "'CONCAT_WS(<CHARACTER>)'";
    CharLength => "CHAR_LENGTH", 1..=1, "'CHAR_LENGTH(<CHARACTER>)'";
    CharacterLength => "CHARACTER_LENGTH", 1..=1, "'CHARACTER_LENGTH(<CHARACTER>)'";
    Replace => "REPLACE", 3..=3, "'REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)'";
    Position => "POSITION", 2..=2, "'POSITION(<STRING> IN <STRING>)'\n'POSITION(<STRING> IN <STRING> FROM <INTEGER>)'";
    Locate => "LOCATE", 2..=3, "'LOCATE(<CHARACTER>, <CHARACTER>)'\n'LOCATE(<CHARACTER>, <CHARACTER>, <INTEGER>)'";
    Instr => "INSTR", 2..=2, "'INSTR(<CHARACTER>, <CHARACTER>)'";
    Lpad => "LPAD", 3..=3, "'LPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)'";
    Rpad => "RPAD", 3..=3, "'RPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)'";
    Reverse => "REVERSE", 1..=1, "'REVERSE(<CHARACTER>)'";
    Repeat => "REPEAT", 2..=2, "'REPEAT(<CHARACTER>, <INTEGER>)'";
    RegexpReplace => "REGEXP_REPLACE", 3..=3, "'REGEXP_REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)'";
    RegexpExtract => "REGEXP_EXTRACT", 2..=3, "'REGEXP_EXTRACT(<CHARACTER>, <CHARACTER>)'\n'REGEXP_EXTRACT(<CHARACTER>, <CHARACTER>, <INTEGER>)'";
    Regexp => "REGEXP", 2..=2, "'REGEXP(<CHARACTER>, <CHARACTER>)'";
    SplitIndex => "SPLIT_INDEX", 3..=3, "'SPLIT_INDEX(<CHARACTER>, <CHARACTER>, <INTEGER>)'";
    Md5 => "MD5", 1..=1, "'MD5(<CHARACTER>)'";
    Sha256 => "SHA256", 1..=1, "'SHA256(<CHARACTER>)'";
    Ascii => "ASCII", 1..=1, "'ASCII(<CHARACTER>)'";
    Chr => "CHR", 1..=1, "'CHR(<INTEGER>)'";
    ToBase64 => "TO_BASE64", 1..=1, "'TO_BASE64(<CHARACTER>)'";
    FromBase64 => "FROM_BASE64", 1..=1, "'FROM_BASE64(<CHARACTER>)'";
    Uuid => "UUID", 0..=0, "'UUID()'";
    IsDigit => "IS_DIGIT", 1..=1, "'IS_DIGIT(<CHARACTER>)'";
    IsAlpha => "IS_ALPHA", 1..=1, "'IS_ALPHA(<CHARACTER>)'";
    IsDecimal => "IS_DECIMAL", 1..=1, "'IS_DECIMAL(<CHARACTER>)'";
    Abs => "ABS", 1..=1, "'ABS(<NUMERIC>)'\n'ABS(<DATETIME_INTERVAL>)'";
    Round => "ROUND", 1..=2, "'ROUND(<NUMERIC>, <INTEGER>)'\n'ROUND(<NUMERIC>)'";
    Truncate => "TRUNCATE", 1..=2, "'TRUNCATE(<NUMERIC>, <INTEGER>)'\n'TRUNCATE(<NUMERIC>)'";
    Floor => "FLOOR", 1..=1, "'FLOOR(<NUMERIC>)'\n'FLOOR(<DATETIME_INTERVAL>)'\n'FLOOR(<DATE> TO <TIME_UNIT>)'\n'FLOOR(<TIME> TO <TIME_UNIT>)'\n'FLOOR(<TIMESTAMP> TO <TIME_UNIT>)'";
    Ceil => "CEIL", 1..=1, "'CEIL(<NUMERIC>)'\n'CEIL(<DATETIME_INTERVAL>)'\n'CEIL(<DATE> TO <TIME_UNIT>)'\n'CEIL(<TIME> TO <TIME_UNIT>)'\n'CEIL(<TIMESTAMP> TO <TIME_UNIT>)'";
    Ceiling => "CEILING", 1..=1, "'CEILING(<NUMERIC>)'\n'CEILING(<DATETIME_INTERVAL>)'\n'CEILING(<DATE> TO <TIME_UNIT>)'\n'CEILING(<TIME> TO <TIME_UNIT>)'\n'CEILING(<TIMESTAMP> TO <TIME_UNIT>)'";
    Mod => "MOD", 2..=2, "'MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)'";
    Power => "POWER", 2..=2, "'POWER(<NUMERIC>, <NUMERIC>)'";
    Sqrt => "SQRT", 1..=1, "'SQRT(<NUMERIC>)'";
    Ln => "LN", 1..=1, "'LN(<NUMERIC>)'";
    Log10 => "LOG10", 1..=1, "'LOG10(<NUMERIC>)'";
    Log2 => "LOG2", 1..=1, "'LOG2(<NUMERIC>)'";
    Log => "LOG", 1..=2, "'LOG(<NUMERIC>)'\n'LOG(<NUMERIC>, <NUMERIC>)'";
    Exp => "EXP", 1..=1, "'EXP(<NUMERIC>)'";
    Sign => "SIGN", 1..=1, "'SIGN(<NUMERIC>)'";
    Sin => "SIN", 1..=1, "'SIN(<NUMERIC>)'";
    Cos => "COS", 1..=1, "'COS(<NUMERIC>)'";
    Tan => "TAN", 1..=1, "'TAN(<NUMERIC>)'";
    Cot => "COT", 1..=1, "'COT(<NUMERIC>)'";
    Asin => "ASIN", 1..=1, "'ASIN(<NUMERIC>)'";
    Acos => "ACOS", 1..=1, "'ACOS(<NUMERIC>)'";
    Atan => "ATAN", 1..=1, "'ATAN(<NUMERIC>)'";
    Atan2 => "ATAN2", 2..=2, "'ATAN2(<NUMERIC>, <NUMERIC>)'";
    Degrees => "DEGREES", 1..=1, "'DEGREES(<NUMERIC>)'";
    Radians => "RADIANS", 1..=1, "'RADIANS(<NUMERIC>)'";
    Pi => "PI", 0..=0, "'PI()'";
    E => "E", 0..=0, "'E()'";
    Rand => "RAND", 0..=1, "'RAND()'\n'RAND(<INTEGER>)'";
    RandInteger => "RAND_INTEGER", 1..=2, "'RAND_INTEGER(<INTEGER>)'\n'RAND_INTEGER(<INTEGER>, <INTEGER>)'";
    DateFormat => "DATE_FORMAT", 2..=2, "'DATE_FORMAT(<TIMESTAMP>, <CHARACTER>)'\n'DATE_FORMAT(<CHARACTER>, <CHARACTER>)'";
    ToDate => "TO_DATE", 1..=2, "'TO_DATE(<CHARACTER>)'\n'TO_DATE(<CHARACTER>, <CHARACTER>)'";
    ToTimestamp => "TO_TIMESTAMP", 1..=2, "'TO_TIMESTAMP(<CHARACTER>)'\n'TO_TIMESTAMP(<CHARACTER>, <CHARACTER>)'";
    ToTimestampLtz => "TO_TIMESTAMP_LTZ", 1..=2, "'TO_TIMESTAMP_LTZ(<NUMERIC>)'\n'TO_TIMESTAMP_LTZ(<NUMERIC>, <INTEGER>)'\n'TO_TIMESTAMP_LTZ(<CHARACTER>)'\n'TO_TIMESTAMP_LTZ(<CHARACTER>, <CHARACTER>)'";
    UnixTimestamp => "UNIX_TIMESTAMP", 0..=2, "'UNIX_TIMESTAMP()'\n'UNIX_TIMESTAMP(<CHARACTER>)'\n'UNIX_TIMESTAMP(<CHARACTER>, <CHARACTER>)'";
    FromUnixtime => "FROM_UNIXTIME", 1..=2, "'FROM_UNIXTIME(<INTEGER>)'\n'FROM_UNIXTIME(<INTEGER>, <CHARACTER>)'";
    ConvertTz => "CONVERT_TZ", 3..=3, "'CONVERT_TZ(<CHARACTER>, <CHARACTER>, <CHARACTER>)'";
    CurrentTimestamp => "CURRENT_TIMESTAMP", 0..=0, "'CURRENT_TIMESTAMP'";
    CurrentDate => "CURRENT_DATE", 0..=0, "'CURRENT_DATE'";
    CurrentTime => "CURRENT_TIME", 0..=0, "'CURRENT_TIME'";
    CurrentRowTimestamp => "CURRENT_ROW_TIMESTAMP", 0..=0, "'CURRENT_ROW_TIMESTAMP()'";
    Now => "NOW", 0..=0, "'NOW()'";
    LocalTimestamp => "LOCALTIMESTAMP", 0..=0, "'LOCALTIMESTAMP'";
    LocalTime => "LOCALTIME", 0..=0, "'LOCALTIME'";
    Extract => "EXTRACT", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME_INTERVAL>)'\n'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    Year => "YEAR", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    Quarter => "QUARTER", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    Month => "MONTH", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    Week => "WEEK", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    DayOfYear => "DAYOFYEAR", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    DayOfMonth => "DAYOFMONTH", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    DayOfWeek => "DAYOFWEEK", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    Hour => "HOUR", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    Minute => "MINUTE", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
    Second => "SECOND", 1..=1, "'EXTRACT(<DATETIME_INTERVAL> FROM <DATETIME>)'";
}

impl ScalarFunction {
    /// False for functions whose value changes between calls or runs
    /// (random numbers, the clock): never merge or constant-fold them.
    // For the planner's subplan sharing, which is not written yet.
    #[allow(dead_code)]
    pub fn is_deterministic(self) -> bool {
        use ScalarFunction as F;
        !matches!(
            self,
            F::Rand
                | F::RandInteger
                | F::Uuid
                | F::CurrentTimestamp
                | F::CurrentDate
                | F::CurrentTime
                | F::CurrentRowTimestamp
                | F::Now
                | F::LocalTimestamp
                | F::LocalTime
                | F::UnixTimestamp
        )
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
    let (min, max) = function.arity();
    if args.len() < min || args.len() > max {
        return Err(FunctionError::Arity {
            expected: arity_text(min, max),
        });
    }
    let literal = |i: usize| int_literals.get(i).copied().flatten();
    match infer(function, args, literal) {
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
        function.supported_forms(),
        name = function.name(),
    )
}

enum Refusal {
    /// A bare NULL literal where a type is needed.
    Null,
    /// Arguments of the wrong type: the generic "Cannot apply" message.
    Types,
    /// A specific message.
    Message(String),
}

type Inferred = Result<(DataType, Vec<DataType>), Refusal>;

fn any_nullable(args: &[DataType]) -> bool {
    args.iter().any(|a| a.nullable)
}

/// Check each argument against a predicate; NULL literals are refused.
fn require(args: &[DataType], checks: &[fn(TypeKind) -> bool]) -> Result<(), Refusal> {
    if args.iter().any(DataType::is_null_type) {
        return Err(Refusal::Null);
    }
    for (arg, check) in args.iter().zip(checks.iter().cycle()) {
        if !check(arg.kind) {
            return Err(Refusal::Types);
        }
    }
    Ok(())
}

/// Flink 2.3's code generator has no Java method taking a `long` for the
/// integer arguments of SUBSTR/SUBSTRING, LEFT, RIGHT, LOCATE, LPAD, RPAD,
/// REPEAT and SPLIT_INDEX: a job passing a BIGINT there fails to compile on
/// Flink ("Table program cannot be compiled. This is a bug."), with a
/// column or a constant alike. stmtc refuses it, so the job file keeps
/// running on Flink (`docs/flink-observed/bigint-int-arguments.md`).
fn no_bigint(f: ScalarFunction, ints: &[DataType]) -> Result<(), Refusal> {
    if ints.iter().any(|a| a.kind == TypeKind::BigInt) {
        return Err(Refusal::Message(format!(
            "{} with a BIGINT argument: Flink 2.3 cannot compile it (\"No applicable constructor/method found for actual parameters ..., long\"); CAST the argument to INT",
            f.name()
        )));
    }
    Ok(())
}

fn is_string(k: TypeKind) -> bool {
    k.is_string()
}
fn is_integer(k: TypeKind) -> bool {
    k.is_integer()
}
fn is_numeric(k: TypeKind) -> bool {
    k.is_numeric()
}
fn is_datetime(k: TypeKind) -> bool {
    k.is_temporal()
}

/// The result with the arguments passed as they are.
fn same_args(result: DataType, args: &[DataType]) -> Inferred {
    Ok((result, args.to_vec()))
}

/// `CHAR(n)` becomes `VARCHAR(n)` (trimming / substrings shorten values).
fn as_varchar(kind: TypeKind) -> TypeKind {
    match kind {
        TypeKind::Char(n) => TypeKind::Varchar(n),
        other => other,
    }
}

fn string() -> TypeKind {
    TypeKind::Varchar(MAX_LENGTH)
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

fn infer(f: ScalarFunction, args: &[DataType], literal: impl Fn(usize) -> Option<i64>) -> Inferred {
    use ScalarFunction as F;
    let nullable = any_nullable(args);
    let typed = |kind: TypeKind| DataType::new(kind, nullable);
    // Every argument cast to DOUBLE, the result DOUBLE (Flink's math functions).
    let double_math = || -> Inferred {
        require(args, &[is_numeric])?;
        let arg_types = args
            .iter()
            .map(|a| DataType::new(TypeKind::Double, a.nullable))
            .collect();
        Ok((typed(TypeKind::Double), arg_types))
    };
    match f {
        F::Coalesce | F::IfNull => {
            if args.iter().all(DataType::is_null_type) {
                return Err(Refusal::Null);
            }
            let Some(result) = typing::coalesce_type(args) else {
                let shown: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                return Err(Refusal::Message(format!(
                    "Invalid function call:\n{}({})",
                    f.name(),
                    shown.join(", ")
                )));
            };
            let arg_types = args
                .iter()
                .map(|a| result.with_nullable(a.nullable))
                .collect();
            Ok((result, arg_types))
        }
        F::NullIf => {
            if args[0].is_null_type() {
                // NULLIF is a CASE in Flink, and says so.
                return Err(Refusal::Message(
                    "ELSE clause or at least one THEN clause must be non-NULL".to_string(),
                ));
            }
            typing::comparison_type(&args[0], &args[1]).map_err(Refusal::Message)?;
            same_args(args[0].with_nullable(true), args)
        }
        F::If => {
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
            let result = result.with_nullable(nullable);
            let mut arg_types = vec![args[0]];
            arg_types.extend(branches.iter().map(|b| result.with_nullable(b.nullable)));
            Ok((result, arg_types))
        }
        F::Greatest | F::Least => {
            if args.iter().all(DataType::is_null_type) {
                return Err(Refusal::Null);
            }
            // Flink merges the arguments like COALESCE (GREATEST(ts, date) is a
            // DATE) and refuses pairs it cannot order.
            let typed_args: Vec<DataType> =
                args.iter().copied().filter(|a| !a.is_null_type()).collect();
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
                .with_nullable(nullable);
            let arg_types = args
                .iter()
                .map(|a| result.with_nullable(a.nullable))
                .collect();
            Ok((result, arg_types))
        }
        F::Upper | F::Lower | F::Initcap => {
            require(args, &[is_string])?;
            same_args(args[0], args)
        }
        F::Trim | F::Ltrim | F::Rtrim | F::Btrim => {
            require(args, &[is_string])?;
            same_args(typed(as_varchar(args[0].kind)), args)
        }
        F::Substring | F::Substr | F::Left | F::Right => {
            require(&args[..1], &[is_string])?;
            require(&args[1..], &[is_integer])?;
            no_bigint(f, &args[1..])?;
            // Flink: always nullable (a negative length gives NULL).
            same_args(DataType::nullable(as_varchar(args[0].kind)), args)
        }
        F::ConvertTz => {
            require(args, &[is_string])?;
            same_args(DataType::string(), args)
        }
        F::Concat | F::ConcatWs | F::Replace | F::RegexpReplace => {
            require(args, &[is_string])?;
            same_args(typed(string()), args)
        }
        F::CharLength | F::CharacterLength | F::Position | F::Instr | F::Ascii => {
            require(args, &[is_string])?;
            same_args(typed(TypeKind::Int), args)
        }
        F::Locate => {
            require(&args[..2], &[is_string])?;
            require(&args[2..], &[is_integer])?;
            no_bigint(f, &args[2..])?;
            same_args(typed(TypeKind::Int), args)
        }
        F::Lpad | F::Rpad => {
            require(args, &[is_string, is_integer, is_string])?;
            no_bigint(f, &args[1..2])?;
            same_args(typed(string()), args)
        }
        F::Reverse => {
            require(args, &[is_string])?;
            same_args(DataType::string(), args)
        }
        F::Repeat => {
            require(args, &[is_string, is_integer])?;
            no_bigint(f, &args[1..])?;
            same_args(typed(string()), args)
        }
        F::RegexpExtract => {
            require(&args[..2], &[is_string])?;
            require(&args[2..], &[is_integer])?;
            same_args(DataType::string(), args)
        }
        F::Regexp => {
            require(args, &[is_string])?;
            same_args(typed(TypeKind::Boolean), args)
        }
        F::SplitIndex => {
            require(args, &[is_string, is_string, is_integer])?;
            no_bigint(f, &args[2..])?;
            same_args(DataType::string(), args)
        }
        F::Md5 | F::Sha256 => {
            require(args, &[is_string])?;
            let len = if f == F::Md5 { 32 } else { 64 };
            same_args(typed(TypeKind::Char(len)), args)
        }
        F::Chr => {
            require(args, &[is_integer])?;
            same_args(DataType::string(), args)
        }
        F::ToBase64 | F::FromBase64 => {
            require(args, &[is_string])?;
            same_args(typed(string()), args)
        }
        F::Uuid => same_args(DataType::not_null(TypeKind::Char(36)), args),
        F::IsDigit | F::IsAlpha | F::IsDecimal => {
            require(args, &[is_string])?;
            same_args(DataType::not_null(TypeKind::Boolean), args)
        }
        F::Abs => {
            require(args, &[|k| k.is_numeric() || k.is_interval()])?;
            same_args(args[0], args)
        }
        F::Sign => {
            require(args, &[is_numeric])?;
            same_args(args[0], args)
        }
        F::Round | F::Truncate => {
            require(&args[..1], &[is_numeric])?;
            require(&args[1..], &[is_integer])?;
            let kind = match args[0].kind {
                TypeKind::Decimal { precision, scale } => match (args.len(), literal(1)) {
                    (1, _) => round_decimal(precision, scale, 0),
                    (_, Some(digits)) => round_decimal(precision, scale, digits),
                    // A digit count only known at run time keeps the type.
                    (_, None) => args[0].kind,
                },
                other => other,
            };
            same_args(typed(kind), args)
        }
        F::Floor | F::Ceil | F::Ceiling => {
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
            same_args(typed(kind), args)
        }
        F::Mod => {
            if args.iter().any(DataType::is_null_type) {
                return Err(Refusal::Null);
            }
            let result = typing::arithmetic(ArithOp::Modulo, &args[0], &args[1])
                .map_err(|_| Refusal::Types)?;
            same_args(result, args)
        }
        F::Power
        | F::Sqrt
        | F::Ln
        | F::Log10
        | F::Log2
        | F::Log
        | F::Exp
        | F::Sin
        | F::Cos
        | F::Tan
        | F::Cot
        | F::Asin
        | F::Acos
        | F::Atan
        | F::Atan2
        | F::Degrees
        | F::Radians => double_math(),
        F::Pi | F::E => same_args(DataType::not_null(TypeKind::Double), args),
        F::Rand => {
            require(args, &[is_integer])?;
            same_args(typed(TypeKind::Double), args)
        }
        F::RandInteger => {
            require(args, &[is_integer])?;
            same_args(typed(TypeKind::Int), args)
        }
        F::DateFormat => {
            require(&args[..1], &[|k| k.is_timestamp() || k.is_string()])?;
            require(&args[1..], &[is_string])?;
            same_args(DataType::string(), args)
        }
        F::ToDate => {
            require(args, &[is_string])?;
            same_args(DataType::nullable(TypeKind::Date), args)
        }
        F::ToTimestamp => {
            require(args, &[is_string])?;
            same_args(DataType::nullable(TypeKind::Timestamp(3)), args)
        }
        F::ToTimestampLtz => {
            if args[0].is_string() {
                require(args, &[is_string])?;
            } else {
                require(&args[..1], &[is_numeric])?;
                require(&args[1..], &[is_integer])?;
            }
            same_args(DataType::nullable(TypeKind::TimestampLtz(3)), args)
        }
        F::UnixTimestamp => {
            require(args, &[is_string])?;
            same_args(typed(TypeKind::BigInt), args)
        }
        F::FromUnixtime => {
            require(&args[..1], &[is_integer])?;
            require(&args[1..], &[is_string])?;
            same_args(DataType::string(), args)
        }
        F::CurrentTimestamp | F::Now | F::CurrentRowTimestamp => {
            same_args(DataType::not_null(TypeKind::TimestampLtz(3)), args)
        }
        F::CurrentDate => same_args(DataType::not_null(TypeKind::Date), args),
        F::CurrentTime | F::LocalTime => same_args(DataType::not_null(TypeKind::Time(0)), args),
        F::LocalTimestamp => same_args(DataType::not_null(TypeKind::Timestamp(3)), args),
        F::Extract => {
            require(args, &[|k| k.is_temporal() || k.is_interval()])?;
            same_args(typed(TypeKind::BigInt), args)
        }
        F::Year
        | F::Quarter
        | F::Month
        | F::Week
        | F::DayOfYear
        | F::DayOfMonth
        | F::DayOfWeek
        | F::Hour
        | F::Minute
        | F::Second => {
            if args[0].is_null_type() {
                return Err(Refusal::Null);
            }
            if !is_datetime(args[0].kind) {
                // Flink rewrites YEAR(x) to EXTRACT and complains about that.
                return Err(Refusal::Message(format!(
                    "Cannot apply 'EXTRACT' to arguments of type 'EXTRACT(<INTERVAL {}> FROM <{}>)'. Supported form(s): {}",
                    extract_unit(f),
                    calcite_type_name(&args[0]),
                    F::Extract.supported_forms()
                )));
            }
            same_args(typed(TypeKind::BigInt), args)
        }
    }
}

fn extract_unit(f: ScalarFunction) -> &'static str {
    use ScalarFunction as F;
    match f {
        F::Year => "YEAR",
        F::Quarter => "QUARTER",
        F::Month => "MONTH",
        F::Week => "WEEK",
        F::DayOfYear => "DOY",
        F::DayOfMonth => "DAY",
        F::DayOfWeek => "DOW",
        F::Hour => "HOUR",
        F::Minute => "MINUTE",
        _ => "SECOND",
    }
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
