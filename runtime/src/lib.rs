//! The runtime every job binary compiled by stmtc links.
//!
//! It knows nothing of SQL: it offers typed values, connectors, operators and
//! sinks that generated code calls. See `runtime/README.md` for the API map the
//! code generator targets.

pub mod error;
pub mod func;
pub mod job;
pub mod memory_size;
pub mod ops;
pub mod progress;
pub mod signals;
pub mod sink;
pub mod source;
pub mod text;
pub mod util;
pub mod value;

pub use error::{Error, Result};
