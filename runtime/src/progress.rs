//! Progress and end-of-job summary on stderr.
//!
//! Readers add bytes and rows to per-source atomic counters (relaxed, once per
//! buffer refill or batch, not per row, so the cost is nil); a ticker thread
//! redraws one line per source every 200 ms, only when stderr is a terminal.
//! At the end, [`Progress::summary`] gives rows read per source, rows written
//! per sink and the wall time. `quiet` silences both.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Counters of one source.
#[derive(Debug, Default)]
pub struct SourceCounter {
    pub name: String,
    pub total_bytes: u64,
    pub bytes: AtomicU64,
    pub rows: AtomicU64,
    /// Bad records skipped with `*.ignore-parse-errors`.
    pub skipped: AtomicU64,
}

impl SourceCounter {
    #[inline]
    pub fn add(&self, bytes: u64, rows: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        self.rows.fetch_add(rows, Ordering::Relaxed);
    }

    pub fn add_skipped(&self, rows: u64) {
        self.skipped.fetch_add(rows, Ordering::Relaxed);
    }
}

/// Rows written by one sink.
#[derive(Debug, Default)]
pub struct SinkCounter {
    pub name: String,
    pub rows: AtomicU64,
}

impl SinkCounter {
    #[inline]
    pub fn add(&self, rows: u64) {
        self.rows.fetch_add(rows, Ordering::Relaxed);
    }
}

#[derive(Debug)]
pub struct Progress {
    pub quiet: bool,
    start: Instant,
    pub sources: Vec<SourceCounter>,
    pub sinks: Vec<SinkCounter>,
}

impl Progress {
    pub fn new(quiet: bool) -> Self {
        Progress {
            quiet,
            start: Instant::now(),
            sources: Vec::new(),
            sinks: Vec::new(),
        }
    }

    /// Registers a source; returns its index.
    pub fn add_source(&mut self, name: &str, total_bytes: u64) -> usize {
        self.sources.push(SourceCounter {
            name: name.to_string(),
            total_bytes,
            ..Default::default()
        });
        self.sources.len() - 1
    }

    /// Registers a sink; returns its index.
    pub fn add_sink(&mut self, name: &str) -> usize {
        self.sinks.push(SinkCounter {
            name: name.to_string(),
            ..Default::default()
        });
        self.sinks.len() - 1
    }

    /// Starts redrawing progress lines on stderr (a no-op unless stderr is a
    /// terminal and not quiet). Stops when the returned guard is dropped.
    pub fn start_ticker(self: &Arc<Self>) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        if self.quiet || !std::io::stderr().is_terminal() || self.sources.is_empty() {
            return Ticker { stop, handle: None };
        }
        let me = Arc::clone(self);
        let flag = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let mut drawn = 0;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let text = me.progress_lines();
                let mut err = std::io::stderr().lock();
                // Move up over the previous drawing and redraw in place.
                for _ in 0..drawn {
                    let _ = write!(err, "\x1b[1A\x1b[2K");
                }
                let _ = err.write_all(text.as_bytes());
                drawn = me.sources.len();
            }
            let mut err = std::io::stderr().lock();
            for _ in 0..drawn {
                let _ = write!(err, "\x1b[1A\x1b[2K");
            }
        });
        Ticker {
            stop,
            handle: Some(handle),
        }
    }

    /// One line per source: a bar, bytes read / total, rows.
    pub fn progress_lines(&self) -> String {
        let mut s = String::new();
        for src in &self.sources {
            let bytes = src.bytes.load(Ordering::Relaxed);
            let rows = src.rows.load(Ordering::Relaxed);
            let frac = if src.total_bytes > 0 {
                (bytes as f64 / src.total_bytes as f64).min(1.0)
            } else {
                0.0
            };
            let filled = (frac * 30.0) as usize;
            let _ = writeln!(
                s,
                "{:<16} [{}{}] {:>5.1}% {} / {} {} rows",
                src.name,
                "#".repeat(filled),
                "-".repeat(30 - filled),
                frac * 100.0,
                human_bytes(bytes),
                human_bytes(src.total_bytes),
                rows
            );
        }
        s
    }

    /// The end-of-job summary text.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for src in &self.sources {
            let _ = write!(
                s,
                "read  {:>12} rows from {}",
                src.rows.load(Ordering::Relaxed),
                src.name
            );
            let skipped = src.skipped.load(Ordering::Relaxed);
            if skipped > 0 {
                let _ = write!(s, " ({skipped} bad rows skipped)");
            }
            s.push('\n');
        }
        for sink in &self.sinks {
            let _ = writeln!(
                s,
                "wrote {:>12} rows to   {}",
                sink.rows.load(Ordering::Relaxed),
                sink.name
            );
        }
        let _ = writeln!(s, "done in {:.2} s", self.start.elapsed().as_secs_f64());
        s
    }

    /// Prints the summary to stderr unless quiet.
    pub fn print_summary(&self) {
        if !self.quiet {
            let _ = std::io::stderr().write_all(self.summary().as_bytes());
        }
    }
}

/// Stops the ticker thread when dropped.
pub struct Ticker {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_summary() {
        let mut p = Progress::new(true);
        let s = p.add_source("orders", 2048);
        let k = p.add_sink("by_region");
        p.sources[s].add(1024, 10);
        p.sinks[k].add(3);
        assert!(p
            .progress_lines()
            .contains(" 50.0% 1.0 KiB / 2.0 KiB 10 rows"));
        let sum = p.summary();
        assert!(sum.contains("10 rows from orders"));
        assert!(sum.contains("3 rows to   by_region"));
        let p = Arc::new(p);
        drop(p.start_ticker());
    }
}
