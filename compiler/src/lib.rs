//! stmtc: compiles an Apache Flink SQL statement set into a native Rust program.
//!
//! The pipeline, one pass per module: `parser` (job file -> statements) ->
//! `binder` (catalog, names, types -> bound statement set) -> ... The public
//! API is the handful of entry points below; IR types stay crate-private.

pub mod diagnostics;
// pub mod functions;
pub mod parser;
pub mod types;
pub mod typing;
