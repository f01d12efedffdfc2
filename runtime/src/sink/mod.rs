//! Sinks: row formats, part files with staged atomic commit, print, blackhole.

pub mod commit;
pub mod format;
pub mod print;

pub use commit::{Job, PartWriter, SinkTarget, WriteMode};
