//! The rows of an ORDER BY or an OVER node, bounded by the job's memory
//! pool (an external merge sort).
//!
//! Rows stay in memory while the pool gives room. When it refuses, the rows
//! in memory are sorted and written to a spill file as one sorted run, and
//! their memory goes back to the pool. At the end the runs and the rows
//! still in memory are merged, reading each run from disk a buffer at a
//! time; with more runs than [`FAN_IN`] they are first merged in groups into
//! longer runs, so a tiny budget never opens thousands of files at once.
//!
//! The order is stable, as `sort_rows` is: rows that compare equal come out
//! in the order they were pushed (runs are merged in the order they were
//! written, ties going to the earlier run, and the rows in memory are the
//! latest). With a LIMIT only the first `limit` rows can reach the output,
//! so a full buffer is cut to them before anything is written.

use std::cmp::Ordering;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::PathBuf;
use std::sync::Arc;

use super::memory::{MemoryPool, Reservation};
use super::sort::sort_rows;
use super::spool::{Spill, SpillDir};
use crate::{Error, Result};

/// Runs merged at once: the open files and read buffers of one merge.
pub const FAN_IN: usize = 64;

/// One sorted run on disk: rows, each prefixed by its length (4 bytes LE).
struct Run {
    path: PathBuf,
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Rows to sort, in memory up to the pool's limit and in sorted runs beyond it.
pub struct SortBuffer<R> {
    rows: Vec<R>,
    mem: Reservation,
    runs: Vec<Run>,
    dir: Option<Arc<SpillDir>>,
    /// Only the first `limit` rows in order are ever output (ORDER BY ... LIMIT).
    limit: Option<usize>,
}

impl<R> Default for SortBuffer<R> {
    fn default() -> Self {
        SortBuffer {
            rows: Vec::new(),
            mem: Reservation::default(),
            runs: Vec::new(),
            dir: None,
            limit: None,
        }
    }
}

fn size<R: Spill>(row: &R) -> u64 {
    (std::mem::size_of::<R>() + row.heap_bytes()) as u64
}

impl<R: Spill> SortBuffer<R> {
    pub fn new(pool: &Arc<MemoryPool>, dir: &Arc<SpillDir>) -> SortBuffer<R> {
        SortBuffer {
            rows: Vec::new(),
            mem: Reservation::new(pool),
            runs: Vec::new(),
            dir: Some(Arc::clone(dir)),
            limit: None,
        }
    }

    /// Names this operator in `--profile`'s memory report.
    pub fn labelled(mut self, label: &'static str) -> Self {
        self.mem.set_label(label);
        self
    }

    /// A buffer of which only the first `limit` rows in order are read
    /// (OFFSET + FETCH of an ORDER BY).
    pub fn with_limit(mut self, limit: Option<u64>) -> SortBuffer<R> {
        self.limit = limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
        self
    }

    /// Adds a row; when the pool has no room for it, the rows in memory
    /// become a sorted run on disk (or, with a limit, are cut to it first).
    pub fn push(&mut self, row: R, mut cmp: impl FnMut(&R, &R) -> Ordering) -> Result<()> {
        let fits = self.mem.grow(size(&row));
        self.rows.push(row);
        if let Some(limit) = self.limit {
            // Keep memory at O(limit) even when the pool has room.
            if self.rows.len() >= limit.saturating_mul(2).max(1024) {
                self.cut(limit, &mut cmp);
            }
        }
        if !fits {
            self.spill(&mut cmp)?;
        }
        Ok(())
    }

    /// Sorts the rows in memory and keeps the first `limit`.
    fn cut(&mut self, limit: usize, cmp: &mut impl FnMut(&R, &R) -> Ordering) {
        sort_rows(&mut self.rows, &mut *cmp);
        let dropped: u64 = self.rows.iter().skip(limit).map(size).sum();
        self.rows.truncate(limit);
        self.mem.shrink(dropped);
    }

    /// The rows in memory, sorted, as a run on disk.
    fn spill(&mut self, cmp: &mut impl FnMut(&R, &R) -> Ordering) -> Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        sort_rows(&mut self.rows, &mut *cmp);
        if let Some(limit) = self.limit {
            self.rows.truncate(limit);
        }
        let rows = std::mem::take(&mut self.rows);
        let run = self.write_run(rows.into_iter().map(Ok))?;
        self.runs.push(run);
        self.mem.reset();
        Ok(())
    }

    fn dir(&self) -> Result<&SpillDir> {
        self.dir
            .as_deref()
            .ok_or_else(|| Error::new("internal: a sort buffer without a spill folder"))
    }

    /// Writes rows (already in order) to a new run file.
    fn write_run(&self, rows: impl Iterator<Item = Result<R>>) -> Result<Run> {
        let mut w = RunWriter::new(self.dir()?);
        for row in rows {
            w.push(&row?)?;
        }
        w.finish()
    }

    /// Takes in another thread's rows. Rows pushed by `other` count as
    /// later than ours: when it has runs, ours in memory become a run
    /// first, so the runs stay in push order.
    pub fn absorb(
        &mut self,
        mut other: SortBuffer<R>,
        mut cmp: impl FnMut(&R, &R) -> Ordering,
    ) -> Result<()> {
        if self.dir.is_none() {
            self.dir = other.dir.clone();
        }
        if !other.runs.is_empty() {
            self.spill(&mut cmp)?;
            self.runs.append(&mut other.runs);
        }
        self.mem.absorb(std::mem::take(&mut other.mem));
        self.rows.append(&mut other.rows);
        if let Some(limit) = self.limit {
            if self.rows.len() > limit {
                self.cut(limit, &mut cmp);
            }
        }
        Ok(())
    }

    /// Whether rows went to disk (for tests and the summary).
    pub fn spilled_runs(&self) -> usize {
        self.runs.len()
    }

    /// Every row in order (stable), passed by value; run files are removed.
    pub fn sorted(
        mut self,
        mut cmp: impl FnMut(&R, &R) -> Ordering,
        mut f: impl FnMut(R) -> Result<()>,
    ) -> Result<()> {
        sort_rows(&mut self.rows, &mut cmp);
        if self.runs.is_empty() {
            let limit = self.limit.unwrap_or(usize::MAX);
            for row in std::mem::take(&mut self.rows).into_iter().take(limit) {
                f(row)?;
            }
            return Ok(());
        }
        // Longer runs until one merge can read them all.
        while self.runs.len() > FAN_IN {
            let mut merged = Vec::new();
            let runs = std::mem::take(&mut self.runs);
            let mut runs = runs.into_iter().peekable();
            while runs.peek().is_some() {
                let group: Vec<Run> = runs.by_ref().take(FAN_IN).collect();
                let mut sources = self.open(&group)?;
                let mut w = RunWriter::new(self.dir()?);
                merge(&mut sources, &mut cmp, self.limit, |row| w.push(&row))?;
                merged.push(w.finish()?);
            }
            self.runs = merged;
        }
        let mut sources = self.open(&self.runs)?;
        sources.push(Source::Memory(std::mem::take(&mut self.rows).into_iter()));
        merge(&mut sources, &mut cmp, self.limit, f)
    }

    fn open(&self, runs: &[Run]) -> Result<Vec<Source<R>>> {
        let capacity = self.dir()?.write_buffer().max(4096);
        runs.iter()
            .map(|run| {
                let file = File::open(&run.path).map_err(|e| Error::io(&run.path, e))?;
                Ok(Source::File {
                    input: BufReader::with_capacity(capacity, file),
                    path: run.path.clone(),
                    row: Vec::new(),
                })
            })
            .collect()
    }
}

/// Writes one run a buffer at a time.
struct RunWriter<'a> {
    dir: &'a SpillDir,
    buf: Vec<u8>,
    path: Option<PathBuf>,
}

impl<'a> RunWriter<'a> {
    fn new(dir: &'a SpillDir) -> RunWriter<'a> {
        RunWriter {
            dir,
            buf: Vec::new(),
            path: None,
        }
    }

    fn push<R: Spill>(&mut self, row: &R) -> Result<()> {
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        row.write(&mut self.buf);
        let len = (self.buf.len() - at - 4) as u32;
        self.buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
        if self.buf.len() >= self.dir.write_buffer() {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        match &self.path {
            Some(p) => self.dir.append_file(p, &self.buf)?,
            None => self.path = Some(self.dir.write_file(&self.buf)?),
        }
        self.buf.clear();
        Ok(())
    }

    fn finish(mut self) -> Result<Run> {
        if !self.buf.is_empty() || self.path.is_none() {
            self.flush()?;
        }
        Ok(Run {
            path: self.path.take().expect("flushed at least once"),
        })
    }
}

/// Where a merge reads rows from: a run on disk, or the rows in memory.
enum Source<R> {
    File {
        input: BufReader<File>,
        path: PathBuf,
        row: Vec<u8>,
    },
    Memory(std::vec::IntoIter<R>),
}

impl<R: Spill> Source<R> {
    fn next(&mut self) -> Result<Option<R>> {
        match self {
            Source::Memory(rows) => Ok(rows.next()),
            Source::File { input, path, row } => {
                let mut len = [0u8; 4];
                match input.read_exact(&mut len) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
                    Err(e) => return Err(Error::io(path, e)),
                }
                row.resize(u32::from_le_bytes(len) as usize, 0);
                input.read_exact(row).map_err(|e| Error::io(path, e))?;
                R::read(&mut row.as_slice()).map(Some)
            }
        }
    }
}

/// K-way merge of sorted sources through a binary heap of source indices;
/// equal rows go to the lower index (the earlier run).
fn merge<R: Spill>(
    sources: &mut [Source<R>],
    cmp: &mut impl FnMut(&R, &R) -> Ordering,
    limit: Option<usize>,
    mut f: impl FnMut(R) -> Result<()>,
) -> Result<()> {
    let mut heads: Vec<Option<R>> = Vec::with_capacity(sources.len());
    for s in sources.iter_mut() {
        heads.push(s.next()?);
    }
    let mut heap: Vec<usize> = (0..sources.len()).filter(|&i| heads[i].is_some()).collect();
    let mut less = |a: usize, b: usize, heads: &[Option<R>]| {
        let (Some(x), Some(y)) = (&heads[a], &heads[b]) else {
            unreachable!("the heap holds sources with a head row")
        };
        match cmp(x, y) {
            Ordering::Equal => a < b,
            o => o == Ordering::Less,
        }
    };
    // Heapify (a min-heap by `less`).
    for i in (0..heap.len() / 2).rev() {
        sift_down(&mut heap, i, &heads, &mut less);
    }
    let mut left = limit.unwrap_or(usize::MAX);
    while let Some(&top) = heap.first() {
        if left == 0 {
            break;
        }
        left -= 1;
        let row = heads[top].take().expect("a head row");
        heads[top] = sources[top].next()?;
        if heads[top].is_none() {
            let last = heap.pop().expect("not empty");
            if !heap.is_empty() {
                heap[0] = last;
            }
        }
        if !heap.is_empty() {
            sift_down(&mut heap, 0, &heads, &mut less);
        }
        f(row)?;
    }
    Ok(())
}

fn sift_down<R>(
    heap: &mut [usize],
    mut i: usize,
    heads: &[Option<R>],
    less: &mut impl FnMut(usize, usize, &[Option<R>]) -> bool,
) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut smallest = i;
        if l < heap.len() && less(heap[l], heap[smallest], heads) {
            smallest = l;
        }
        if r < heap.len() && less(heap[r], heap[smallest], heads) {
            smallest = r;
        }
        if smallest == i {
            return;
        }
        heap.swap(i, smallest);
        i = smallest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (key, push order): sorted by key only, so the order shows stability.
    type Row = (Option<i64>, Option<i64>);

    fn by_key(a: &Row, b: &Row) -> Ordering {
        a.0.cmp(&b.0)
    }

    fn rows(n: i64) -> Vec<Row> {
        // Many equal keys, in a scrambled order.
        (0..n).map(|i| (Some((i * 7919) % 97), Some(i))).collect()
    }

    fn sort_with(
        budget: u64,
        input: &[Row],
        limit: Option<u64>,
        threads: usize,
    ) -> (Vec<Row>, usize) {
        let pool = MemoryPool::new(budget);
        let dir = Arc::new(
            SpillDir::at(std::env::temp_dir().join("stmtc-external-sort-test")).with_budget(budget),
        );
        let chunk = input.len().div_ceil(threads.max(1)).max(1);
        let mut parts = input.chunks(chunk).map(|part| {
            let mut buf = SortBuffer::new(&pool, &dir).with_limit(limit);
            for row in part {
                buf.push(*row, by_key).unwrap();
            }
            buf
        });
        let mut all = parts
            .next()
            .unwrap_or_else(|| SortBuffer::new(&pool, &dir).with_limit(limit));
        for part in parts {
            all.absorb(part, by_key).unwrap();
        }
        let runs = all.spilled_runs();
        let mut out = Vec::new();
        all.sorted(by_key, |r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
        (out, runs)
    }

    fn expected(input: &[Row], limit: Option<u64>) -> Vec<Row> {
        let mut v = input.to_vec();
        v.sort_by(by_key);
        v.truncate(limit.map_or(usize::MAX, |l| l as usize));
        v
    }

    #[test]
    fn a_spilled_sort_equals_the_in_memory_sort_and_is_stable() {
        let input = rows(20_000);
        let (in_memory, runs) = sort_with(1 << 30, &input, None, 1);
        assert_eq!(runs, 0);
        assert_eq!(in_memory, expected(&input, None));
        // A tiny budget: hundreds of runs, merged in several passes.
        for threads in [1, 3] {
            let (spilled, runs) = sort_with(4 << 10, &input, None, threads);
            assert!(runs > FAN_IN, "{runs} runs");
            assert_eq!(spilled, expected(&input, None), "{threads} threads");
        }
    }

    /// A sort that starts after other operators filled the pool makes runs
    /// of the pool's floor, not one run per row.
    #[test]
    fn a_sort_behind_a_full_pool_makes_runs_of_the_floor() {
        let budget = 1 << 20;
        let pool = MemoryPool::new(budget);
        let dir = Arc::new(
            SpillDir::at(std::env::temp_dir().join("stmtc-external-sort-test")).with_budget(budget),
        );
        let mut hog = crate::ops::memory::Reservation::new(&pool);
        assert!(hog.grow(budget));
        let input = rows(20_000);
        let mut buf = SortBuffer::new(&pool, &dir);
        for row in &input {
            buf.push(*row, by_key).unwrap();
        }
        let bytes = input.len() as u64 * size(&input[0]);
        let most = bytes / pool.floor() + 1;
        assert!(
            buf.spilled_runs() as u64 <= most,
            "{} runs",
            buf.spilled_runs()
        );
        let mut out = Vec::new();
        buf.sorted(by_key, |r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(out, expected(&input, None));
    }

    #[test]
    fn a_limit_keeps_only_the_first_rows() {
        let input = rows(10_000);
        for budget in [1 << 30, 2 << 10] {
            for limit in [0, 1, 5, 3000] {
                let (out, _) = sort_with(budget, &input, Some(limit), 2);
                assert_eq!(
                    out,
                    expected(&input, Some(limit)),
                    "budget {budget} limit {limit}"
                );
            }
        }
    }

    #[test]
    fn run_files_are_removed() {
        let base =
            std::env::temp_dir().join(format!("stmtc-external-sort-files-{}", std::process::id()));
        let pool = MemoryPool::new(1 << 10);
        let dir = Arc::new(SpillDir::at(base.clone()).with_budget(1 << 10));
        let mut buf = SortBuffer::new(&pool, &dir);
        for row in rows(2_000) {
            buf.push(row, by_key).unwrap();
        }
        assert!(buf.spilled_runs() > 0);
        buf.sorted(by_key, |_| Ok(())).unwrap();
        let left = std::fs::read_dir(&base)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
            .count();
        assert_eq!(left, 0, "run files left in {}", base.display());
        drop(dir);
        let _ = std::fs::remove_dir_all(&base);
    }
}
