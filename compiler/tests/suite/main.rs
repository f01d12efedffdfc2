//! The compiler's integration tests, as one test binary.
//!
//! Each module is one suite (`cargo test -p stmtc --test suite e2e::` runs
//! one). One binary instead of one per suite: the compiler and its
//! dependencies are linked once, not nine times, and the suites' tests run
//! side by side on the harness's threads, so a suite that mostly waits (the
//! signal and kill tests wait for processes, the end-to-end tests for cargo)
//! leaves its core to another suite's work (README.md, "Run the tests").

// The helpers the suites share (also included by the expression codegen
// unit test, through `#[path]`).
#[path = "../support/shared_build.rs"]
mod shared_build;
#[path = "../support/sink_compare.rs"]
mod sink_compare;
// The robustness generator and oracle, shared with the `stmtc-fuzz` crate.
#[path = "../../fuzz/src/generator.rs"]
mod generator;
#[path = "../../fuzz/src/oracle.rs"]
mod oracle;

mod cli;
mod e2e;
mod fixtures;
mod flink_names;
mod generated_builds;
mod kill;
mod robustness;
mod run_signals;
mod tpch;
