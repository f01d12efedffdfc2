//! Typed SQL values with Flink's semantics. NULL is `Option<T>` throughout.

pub mod decimal;
pub mod logic;
pub mod string;
pub mod temporal;

pub use decimal::{Decimal, DecimalError, DecimalType};
pub use string::Str;
pub use temporal::{Date, FractionStyle, SessionZone, Time, Timestamp};

/// A BIGINT count as an `i32` argument, saturating (a huge length still
/// means "all", a huge negative one "none").
#[inline]
pub fn saturating_i32(v: i64) -> i32 {
    v.clamp(i32::MIN.into(), i32::MAX.into()) as i32
}
