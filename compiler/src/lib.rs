//! stmtc: compiles an Apache Flink SQL statement set into a native Rust program.
