//! Operators generic over the row types the generated code defines: the
//! parallel driver, hash aggregate, hash join, sort / top-N and distinct,
//! OVER windows and Top-N per partition,
//! and spools (rows waiting for a join build, spilled beyond a budget).
//! UNION ALL needs no operator: generated code feeds both inputs to the same
//! consumer.

pub mod aggregate;
pub mod join;
pub mod over;
pub mod parallel;
pub mod sort;
pub mod spool;
