//! The runtime every job binary compiled by stmtc links.
//!
//! It knows nothing of SQL: it offers typed values, connectors, operators and
//! sinks that generated code calls.
