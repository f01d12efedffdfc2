//! Scalar functions with Flink's semantics: strings, math, temporal, CAST and
//! TRY_CAST, LIKE. NULL propagation is the caller's (generated code maps over
//! `Option`); functions whose NULL rule is special say so.

pub mod cast;
pub mod datetime_parse;
pub mod hash;
pub mod like;
pub mod math;
pub mod pattern_parse;
#[cfg(feature = "regex")]
pub mod regex;
pub mod string;
pub mod temporal;
