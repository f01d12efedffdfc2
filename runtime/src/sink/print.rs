//! The `print` and `blackhole` sinks.
//!
//! Print writes Flink's row format (`+I[...]`, optional `<id>> ` prefix) to
//! stdout, or stderr with `standard-error`. Each thread formats into its own
//! buffer and writes whole buffers under the stream lock, so rows never
//! interleave mid-line.

use super::format::{PrintFormat, RowFormat};
use crate::error::{Error, Result};
use std::io::Write;

const FLUSH_AT: usize = 64 << 10;

/// One thread's writer of a print sink.
pub struct PrintSink {
    pub format: PrintFormat,
    stderr: bool,
    buf: Vec<u8>,
    rows: u64,
}

impl PrintSink {
    pub fn new(identifier: Option<&str>, standard_error: bool) -> Self {
        PrintSink {
            format: PrintFormat::new(identifier),
            stderr: standard_error,
            buf: Vec::with_capacity(FLUSH_AT + 1024),
            rows: 0,
        }
    }

    /// Writes one row: `fields` calls `format.field` once per column.
    #[inline]
    pub fn write_row(&mut self, fields: impl FnOnce(&mut PrintFormat, &mut Vec<u8>)) -> Result<()> {
        self.format.begin_row(&mut self.buf);
        fields(&mut self.format, &mut self.buf);
        self.format.end_row(&mut self.buf);
        self.rows += 1;
        if self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let r = if self.stderr {
            std::io::stderr().lock().write_all(&self.buf)
        } else {
            let mut out = std::io::stdout().lock();
            out.write_all(&self.buf).and_then(|_| out.flush())
        };
        self.buf.clear();
        r.map_err(|e| Error::new(format!("print sink: {e}")))
    }

    /// Flushes; returns the rows written.
    pub fn finish(mut self) -> Result<u64> {
        self.flush()?;
        Ok(self.rows)
    }
}

/// The `blackhole` sink: counts rows, writes nothing.
#[derive(Debug, Default)]
pub struct BlackholeSink {
    rows: u64,
}

impl BlackholeSink {
    #[inline]
    pub fn write_row(&mut self) {
        self.rows += 1;
    }

    pub fn finish(self) -> u64 {
        self.rows
    }
}
