//! Robustness fuzzing of the stmtc compiler: the random job generator and
//! the oracle that every case must satisfy.
//!
//! The oracle ([`run_case`]) runs `stmtc::check` and, on an accepted job,
//! `stmtc::explain` in every format and `stmtc::compile`, and asserts:
//! - no diagnostic is an internal error (a caught panic in stmtc);
//! - every diagnostic span, primary and related, lies inside the file and on
//!   character boundaries;
//! - a job that did not bind has at least one error, and a job with errors is
//!   not bound;
//! - rendering the diagnostics (text and JSON) and the bound text works;
//! - `explain` succeeds on every job `check` accepted;
//! - `compile` of an accepted job yields a `src/main.rs` that `syn` parses,
//!   or refuses the job with a located error (never an internal one).
//!
//! A stack overflow or a hang cannot be turned into a result: the drivers
//! (`fuzz_long`, the libFuzzer targets) observe those from outside.

pub mod generator;
mod oracle;

pub use oracle::*;

/// The workspace's `fixtures/` folder.
pub fn fixtures_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}
