//! The vocabulary of the scalar entries' type rules: what a rule sees of a
//! call ([`CallTypes`]), how it refuses one ([`Refusal`]), and the argument
//! checks several families share. A rule returns the result type and the
//! types the binder casts the arguments to.

use super::ScalarFunction;
use crate::types::{DataType, TypeKind, MAX_LENGTH};

/// The argument types of one call, as a type rule sees them.
pub(super) struct CallTypes<'a> {
    pub function: ScalarFunction,
    pub args: &'a [DataType],
    /// `int_literals[i]` = `Some(v)` when argument `i` is the literal `v`; may
    /// be shorter than `args`.
    pub int_literals: &'a [Option<i64>],
}

impl CallTypes<'_> {
    /// The value of argument `i` when it is an integer literal.
    pub fn literal(&self, i: usize) -> Option<i64> {
        self.int_literals.get(i).copied().flatten()
    }

    /// Whether any argument is nullable.
    pub fn any_nullable(&self) -> bool {
        self.args.iter().any(|a| a.nullable)
    }

    /// `kind`, nullable when any argument is (most functions' rule).
    pub fn typed(&self, kind: TypeKind) -> DataType {
        DataType::new(kind, self.any_nullable())
    }

    /// The result `result`, the arguments passed as they are.
    pub fn returns(&self, result: DataType) -> Inferred {
        Ok((result, self.args.to_vec()))
    }
}

/// Why a type rule refuses a call.
pub(super) enum Refusal {
    /// A bare NULL literal where a type is needed.
    Null,
    /// Arguments of the wrong type: the generic "Cannot apply" message.
    Types,
    /// A specific message.
    Message(String),
}

/// A type rule's answer: the result type and the argument types (the same
/// length as the arguments; equal to an argument's type when no cast is needed).
pub(super) type Inferred = Result<(DataType, Vec<DataType>), Refusal>;

/// Check each argument against a predicate (the last one repeats, cyclically
/// over `checks`); NULL literals are refused.
pub(super) fn require(args: &[DataType], checks: &[fn(TypeKind) -> bool]) -> Result<(), Refusal> {
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

/// Every argument a string; the result `result`.
pub(super) fn strings_to(c: &CallTypes, result: DataType) -> Inferred {
    require(c.args, &[is_string])?;
    c.returns(result)
}

/// Flink 2.3's code generator has no Java method taking a `long` for the
/// integer arguments of SUBSTR/SUBSTRING, LEFT, RIGHT, LOCATE, LPAD, RPAD,
/// REPEAT and SPLIT_INDEX: a job passing a BIGINT there fails to compile on
/// Flink ("Table program cannot be compiled. This is a bug."), with a
/// column or a constant alike. stmtc refuses it, so the job file keeps
/// running on Flink (`docs/flink-observed/bigint-int-arguments.md`).
pub(super) fn no_bigint(f: ScalarFunction, ints: &[DataType]) -> Result<(), Refusal> {
    if ints.iter().any(|a| a.kind == TypeKind::BigInt) {
        return Err(Refusal::Message(format!(
            "{} with a BIGINT argument: Flink 2.3 cannot compile it (\"No applicable constructor/method found for actual parameters ..., long\"); CAST the argument to INT",
            f.name()
        )));
    }
    Ok(())
}

pub(super) fn is_string(k: TypeKind) -> bool {
    k.is_string()
}
pub(super) fn is_integer(k: TypeKind) -> bool {
    k.is_integer()
}
pub(super) fn is_numeric(k: TypeKind) -> bool {
    k.is_numeric()
}

/// `CHAR(n)` becomes `VARCHAR(n)` (trimming / substrings shorten values).
pub(super) fn as_varchar(kind: TypeKind) -> TypeKind {
    match kind {
        TypeKind::Char(n) => TypeKind::Varchar(n),
        other => other,
    }
}

/// `STRING`'s kind.
pub(super) fn string() -> TypeKind {
    TypeKind::Varchar(MAX_LENGTH)
}
