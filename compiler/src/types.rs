//! SQL data types as Flink's type system knows them, and how they print.
//!
//! `DataType` is a type plus its nullability, printed exactly the way Flink
//! prints it in `DESCRIBE` and error messages (`INT NOT NULL`, `STRING`,
//! `DECIMAL(10, 2)`, `TIMESTAMP(3)`), so diagnostics read like Flink's.
//! The typing rules (arithmetic, comparison, casts) live in `typing.rs`.

use std::fmt;

/// Length of `STRING` (`VARCHAR(2147483647)`) and `BYTES`.
pub const MAX_LENGTH: u32 = i32::MAX as u32;
/// Largest DECIMAL precision Flink supports.
pub const MAX_DECIMAL_PRECISION: u8 = 38;
/// Largest fractional-second precision of TIME / TIMESTAMP.
pub const MAX_TIME_PRECISION: u8 = 9;

/// The kind of a value, without nullability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeKind {
    /// The type of an untyped `NULL` literal; it takes the type of its context.
    Null,
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Char(u32),
    /// `STRING` is `Varchar(MAX_LENGTH)`.
    Varchar(u32),
    Binary(u32),
    /// `BYTES` is `Varbinary(MAX_LENGTH)`.
    Varbinary(u32),
    Date,
    /// TIME(p), fractional-second precision 0..=9 (Flink keeps at most 3 at run time).
    Time(u8),
    /// TIMESTAMP(p) WITHOUT TIME ZONE.
    Timestamp(u8),
    /// TIMESTAMP_LTZ(p) = TIMESTAMP(p) WITH LOCAL TIME ZONE.
    TimestampLtz(u8),
    /// INTERVAL DAY TO SECOND(3): a duration in milliseconds.
    IntervalDayTime,
    /// INTERVAL YEAR TO MONTH: a number of months.
    IntervalYearMonth,
}

/// A type with its nullability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataType {
    pub kind: TypeKind,
    pub nullable: bool,
}

impl DataType {
    pub const fn new(kind: TypeKind, nullable: bool) -> Self {
        DataType { kind, nullable }
    }
    pub const fn nullable(kind: TypeKind) -> Self {
        DataType {
            kind,
            nullable: true,
        }
    }
    pub const fn not_null(kind: TypeKind) -> Self {
        DataType {
            kind,
            nullable: false,
        }
    }
    pub const fn string() -> Self {
        Self::nullable(TypeKind::Varchar(MAX_LENGTH))
    }
    pub const fn with_nullable(self, nullable: bool) -> Self {
        DataType {
            kind: self.kind,
            nullable,
        }
    }
    /// The type of the `NULL` literal.
    pub const fn null() -> Self {
        Self::nullable(TypeKind::Null)
    }
    pub fn is_null_type(&self) -> bool {
        self.kind == TypeKind::Null
    }
    pub fn is_numeric(&self) -> bool {
        self.kind.is_numeric()
    }
    pub fn is_string(&self) -> bool {
        self.kind.is_string()
    }
}

impl TypeKind {
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt
        )
    }
    pub fn is_approximate(&self) -> bool {
        matches!(self, TypeKind::Float | TypeKind::Double)
    }
    pub fn is_exact_numeric(&self) -> bool {
        self.is_integer() || matches!(self, TypeKind::Decimal { .. })
    }
    pub fn is_numeric(&self) -> bool {
        self.is_exact_numeric() || self.is_approximate()
    }
    pub fn is_string(&self) -> bool {
        matches!(self, TypeKind::Char(_) | TypeKind::Varchar(_))
    }
    pub fn is_binary(&self) -> bool {
        matches!(self, TypeKind::Binary(_) | TypeKind::Varbinary(_))
    }
    pub fn is_temporal(&self) -> bool {
        matches!(
            self,
            TypeKind::Date | TypeKind::Time(_) | TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_)
        )
    }
    pub fn is_timestamp(&self) -> bool {
        matches!(self, TypeKind::Timestamp(_) | TypeKind::TimestampLtz(_))
    }
    pub fn is_interval(&self) -> bool {
        matches!(
            self,
            TypeKind::IntervalDayTime | TypeKind::IntervalYearMonth
        )
    }

    /// Precision and scale of an exact numeric type, as Flink sees integers
    /// when they meet decimals (`INT` behaves as `DECIMAL(10, 0)`).
    pub fn decimal_precision_scale(&self) -> Option<(u8, u8)> {
        match *self {
            TypeKind::TinyInt => Some((3, 0)),
            TypeKind::SmallInt => Some((5, 0)),
            TypeKind::Int => Some((10, 0)),
            TypeKind::BigInt => Some((19, 0)),
            TypeKind::Decimal { precision, scale } => Some((precision, scale)),
            _ => None,
        }
    }
}

impl fmt::Display for TypeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TypeKind::Null => f.write_str("NULL"),
            TypeKind::Boolean => f.write_str("BOOLEAN"),
            TypeKind::TinyInt => f.write_str("TINYINT"),
            TypeKind::SmallInt => f.write_str("SMALLINT"),
            TypeKind::Int => f.write_str("INT"),
            TypeKind::BigInt => f.write_str("BIGINT"),
            TypeKind::Float => f.write_str("FLOAT"),
            TypeKind::Double => f.write_str("DOUBLE"),
            TypeKind::Decimal { precision, scale } => write!(f, "DECIMAL({precision}, {scale})"),
            TypeKind::Char(n) => write!(f, "CHAR({n})"),
            TypeKind::Varchar(MAX_LENGTH) => f.write_str("STRING"),
            TypeKind::Varchar(n) => write!(f, "VARCHAR({n})"),
            TypeKind::Binary(n) => write!(f, "BINARY({n})"),
            TypeKind::Varbinary(MAX_LENGTH) => f.write_str("BYTES"),
            TypeKind::Varbinary(n) => write!(f, "VARBINARY({n})"),
            TypeKind::Date => f.write_str("DATE"),
            TypeKind::Time(p) => write!(f, "TIME({p})"),
            TypeKind::Timestamp(p) => write!(f, "TIMESTAMP({p})"),
            TypeKind::TimestampLtz(p) => write!(f, "TIMESTAMP_LTZ({p})"),
            // How Flink's schemas print interval columns.
            TypeKind::IntervalDayTime => f.write_str("INTERVAL SECOND(3)"),
            TypeKind::IntervalYearMonth => f.write_str("INTERVAL MONTH"),
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.nullable && self.kind != TypeKind::Null {
            f.write_str(" NOT NULL")?;
        }
        Ok(())
    }
}

/// Converts a type as sqlparser read it into Flink's type system, with
/// Flink's defaults (`DECIMAL` = `DECIMAL(10, 0)`, `TIMESTAMP` = `TIMESTAMP(6)`,
/// `CHAR` = `CHAR(1)`). The error names the type and what is wrong with it.
pub fn from_sql(data_type: &sqlparser::ast::DataType) -> Result<TypeKind, String> {
    use sqlparser::ast::{CharacterLength, DataType as T, ExactNumberInfo, TimezoneInfo};
    fn length(len: &Option<CharacterLength>, default: u32, what: &str) -> Result<u32, String> {
        match len {
            None => Ok(default),
            Some(CharacterLength::IntegerLength { length, .. }) => {
                if *length == 0 || *length > u64::from(MAX_LENGTH) {
                    Err(format!(
                        "{what} length must be between 1 and {MAX_LENGTH}, found {length}"
                    ))
                } else {
                    Ok(*length as u32)
                }
            }
            Some(CharacterLength::Max) => Err(format!("{what}(MAX) is not Flink SQL; use STRING")),
        }
    }
    fn time_precision(p: &Option<u64>, default: u8, what: &str) -> Result<u8, String> {
        match *p {
            None => Ok(default),
            Some(p) if p <= u64::from(MAX_TIME_PRECISION) => Ok(p as u8),
            Some(p) => Err(format!(
                "{what} precision must be between 0 and {MAX_TIME_PRECISION}, found {p}"
            )),
        }
    }
    fn decimal(info: &ExactNumberInfo) -> Result<TypeKind, String> {
        let (precision, scale) = match *info {
            ExactNumberInfo::None => (10, 0),
            ExactNumberInfo::Precision(p) => (p, 0),
            ExactNumberInfo::PrecisionAndScale(p, s) => (p, s.max(-1) as u64),
        };
        if precision == 0 {
            return Err("DECIMAL precision must be at least 1".to_string());
        }
        // Flink silently caps the precision at 38 (DECIMAL(40, 2) is
        // DECIMAL(38, 2)); the parser warns about it.
        let (precision, scale) = (
            precision.min(u64::from(MAX_DECIMAL_PRECISION)),
            scale.min(u64::from(MAX_DECIMAL_PRECISION)),
        );
        if scale > precision || matches!(*info, ExactNumberInfo::PrecisionAndScale(_, s) if s < 0) {
            return Err(format!(
                "DECIMAL scale must be between 0 and the precision ({precision})"
            ));
        }
        Ok(TypeKind::Decimal {
            precision: precision as u8,
            scale: scale as u8,
        })
    }
    match data_type {
        T::Boolean | T::Bool => Ok(TypeKind::Boolean),
        T::TinyInt(_) => Ok(TypeKind::TinyInt),
        T::SmallInt(_) => Ok(TypeKind::SmallInt),
        T::Int(_) | T::Integer(_) => Ok(TypeKind::Int),
        T::BigInt(_) => Ok(TypeKind::BigInt),
        T::Float(ExactNumberInfo::None) | T::Real => Ok(TypeKind::Float),
        T::Double(ExactNumberInfo::None) | T::DoublePrecision => Ok(TypeKind::Double),
        T::Decimal(info) | T::Numeric(info) | T::Dec(info) => decimal(info),
        T::Char(len) | T::Character(len) => length(len, 1, "CHAR").map(TypeKind::Char),
        // Flink's type system defaults VARCHAR and VARBINARY to their maximum
        // length (`FlinkTypeSystem.getDefaultPrecision`): a bare VARCHAR is
        // STRING, a bare VARBINARY is BYTES; CHAR and BINARY default to 1.
        T::Varchar(len) | T::CharacterVarying(len) | T::CharVarying(len) => {
            length(len, MAX_LENGTH, "VARCHAR").map(TypeKind::Varchar)
        }
        T::String(None) => Ok(TypeKind::Varchar(MAX_LENGTH)),
        T::Binary(len) => match len {
            None => Ok(TypeKind::Binary(1)),
            Some(n) if *n >= 1 && *n <= u64::from(MAX_LENGTH) => Ok(TypeKind::Binary(*n as u32)),
            Some(n) => Err(format!(
                "BINARY length must be between 1 and {MAX_LENGTH}, found {n}"
            )),
        },
        T::Varbinary(len) => match len {
            None => Ok(TypeKind::Varbinary(MAX_LENGTH)),
            Some(sqlparser::ast::BinaryLength::IntegerLength { length })
                if *length >= 1 && *length <= u64::from(MAX_LENGTH) =>
            {
                Ok(TypeKind::Varbinary(*length as u32))
            }
            Some(other) => Err(format!("invalid VARBINARY length {other}")),
        },
        T::Bytes(None) => Ok(TypeKind::Varbinary(MAX_LENGTH)),
        T::Date => Ok(TypeKind::Date),
        T::Time(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            time_precision(p, 0, "TIME").map(TypeKind::Time)
        }
        T::Timestamp(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            time_precision(p, 6, "TIMESTAMP").map(TypeKind::Timestamp)
        }
        T::Timestamp(_, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            Err("TIMESTAMP WITH TIME ZONE is not supported by Flink; use TIMESTAMP_LTZ".to_string())
        }
        T::Custom(name, modifiers)
            if name
                .to_string()
                .eq_ignore_ascii_case(crate::parser::dialect::TIMESTAMP_LTZ) =>
        {
            let p = match modifiers.as_slice() {
                [] => None,
                [sqlparser::ast::TypeModifier::Number(n, _)] => n.parse().ok(),
                _ => return Err("TIMESTAMP_LTZ takes one precision".to_string()),
            };
            time_precision(&p, 6, "TIMESTAMP_LTZ").map(TypeKind::TimestampLtz)
        }
        T::Custom(name, _) => Err(format!("unknown type `{name}`")),
        other => Err(format!("type `{other}` is not supported by Flink SQL")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_flink() {
        let cases = [
            (DataType::string(), "STRING"),
            (DataType::not_null(TypeKind::Int), "INT NOT NULL"),
            (
                DataType::nullable(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
                "DECIMAL(10, 2)",
            ),
            (DataType::nullable(TypeKind::Timestamp(3)), "TIMESTAMP(3)"),
            (
                DataType::nullable(TypeKind::TimestampLtz(3)),
                "TIMESTAMP_LTZ(3)",
            ),
            (DataType::not_null(TypeKind::Char(3)), "CHAR(3) NOT NULL"),
            (DataType::nullable(TypeKind::Varbinary(MAX_LENGTH)), "BYTES"),
        ];
        for (ty, text) in cases {
            assert_eq!(ty.to_string(), text);
        }
    }
}
