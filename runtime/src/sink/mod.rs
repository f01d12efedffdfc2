//! Sinks: row formats, part files with staged atomic commit, print, blackhole.

pub mod format;
