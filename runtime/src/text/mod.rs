//! Text encodings shared by sources and sinks: Java-compatible numbers, base64.

pub mod append;
pub mod base64;
pub mod canonical;
mod java_float;
pub mod number;
