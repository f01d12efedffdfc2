//! Typed SQL values with Flink's semantics. NULL is `Option<T>` throughout.

pub mod decimal;
pub mod logic;
pub mod string;
pub mod temporal;

pub use decimal::{Decimal, DecimalError, DecimalType};
pub use string::Str;
pub use temporal::{Date, FractionStyle, SessionZone, Time, Timestamp};
