//! The job's memory budget (`--memory-budget`, `SET 'stmtc.memory-budget'`):
//! one pool that every join hash table and every spool reserves from as it
//! grows. When the pool cannot give more, the operator that asked spills: a
//! spool writes its rows to a file, a join build partitions to disk (see
//! [`super::grace`]). Reservations are released when the operator's memory
//! is: a spilled spool, a join table once its last probe has run.
//!
//! Sizes are estimates: a row's inline size plus the heap bytes of its long
//! strings, plus the table's per-row overhead. Small fixed buffers (a
//! spilled partition's write buffer, a reader's buffer) are not counted.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

thread_local! {
    /// Bytes accumulators grew by on this thread since the last `take_growth`.
    static GROWN: Cell<u64> = const { Cell::new(0) };
}

/// Called by accumulators whose memory grows with their input (the sets of
/// DISTINCT aggregates): the aggregate table that ran the update charges it
/// to its reservation (`GroupTable::charge_growth`).
#[inline]
pub fn note_growth(bytes: usize) {
    GROWN.with(|g| g.set(g.get() + bytes as u64));
}

/// The growth noted on this thread since the last call, reset to zero.
#[inline]
pub fn take_growth() -> u64 {
    GROWN.with(|g| g.replace(0))
}

/// Bytes a reservation asks the pool for at a time (fewer atomic updates),
/// at most a 64th of the budget so a tiny budget still spills early.
const CHUNK: u64 = 1 << 20;

/// The budget of a job that sets none (`SET 'stmtc.memory-budget'`,
/// `--memory-budget`): 40% of the machine's physical memory, the share
/// Flink's default configuration gives a task manager's managed memory
/// (`taskmanager.memory.managed.fraction`); 1 GiB where the machine's memory
/// cannot be read (`/proc/meminfo`).
pub fn default_budget() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024 / 5 * 2)
        })
        .filter(|&b| b > 0)
        .unwrap_or(super::spool::DEFAULT_BUDGET)
}

/// The most bytes one operator is given when the pool is full (see
/// [`MemoryPool::floor`]).
const MAX_FLOOR: u64 = 4 << 20;

/// The budget shared by all operators of one job run.
#[derive(Debug)]
pub struct MemoryPool {
    limit: u64,
    floor: u64,
    used: AtomicU64,
    peak: AtomicU64,
    /// `--profile`: which operators hold the bytes, and held them at the peak.
    tally: Option<Mutex<Tally>>,
}

/// Bytes held per operator (by [`Reservation::label`]), now and at the
/// pool's peak, for `--profile`.
#[derive(Debug, Default)]
struct Tally {
    now: HashMap<&'static str, u64>,
    peak: u64,
    at_peak: Vec<(&'static str, u64)>,
    /// The process's resident memory when the peak was taken (bytes).
    rss_at_peak: u64,
}

/// Where the pool's bytes were at its peak (`--profile`).
#[derive(Debug, Clone, Default)]
pub struct PeakReport {
    pub reserved: u64,
    pub limit: u64,
    pub rss: u64,
    /// Operators by bytes held at the peak, the largest first.
    pub holders: Vec<(&'static str, u64)>,
}

impl MemoryPool {
    pub fn new(limit: u64) -> Arc<MemoryPool> {
        let limit = limit.max(1);
        Arc::new(MemoryPool {
            limit,
            floor: (limit / 256).min(MAX_FLOOR),
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            tally: None,
        })
    }

    /// A pool that also records which operators hold its bytes, and what
    /// they held at its peak ([`MemoryPool::peak_report`], for `--profile`).
    pub fn profiled(limit: u64) -> Arc<MemoryPool> {
        let mut pool = Arc::into_inner(MemoryPool::new(limit)).expect("a new pool has one owner");
        pool.tally = Some(Mutex::new(Tally::default()));
        Arc::new(pool)
    }

    /// Counts `delta` bytes to (or from) `label`'s holdings; at a new peak of
    /// the pool, remembers every operator's holdings and the resident size.
    fn note(&self, label: &'static str, delta: i64) {
        let Some(tally) = &self.tally else {
            return;
        };
        let mut t = tally.lock().unwrap_or_else(|e| e.into_inner());
        let held = t.now.entry(label).or_insert(0);
        *held = held.saturating_add_signed(delta);
        let used = self.used.load(Ordering::Relaxed);
        // A new peak by at least a chunk: take a picture.
        if delta > 0 && used >= t.peak + CHUNK {
            t.peak = used;
            let mut holders: Vec<_> = t
                .now
                .iter()
                .filter(|(_, &b)| b > 0)
                .map(|(&l, &b)| (l, b))
                .collect();
            holders.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            t.at_peak = holders;
            t.rss_at_peak = crate::util::resident_bytes().unwrap_or(0);
        }
    }

    /// Where the bytes were at the pool's peak; `None` unless [profiled](MemoryPool::profiled).
    pub fn peak_report(&self) -> Option<PeakReport> {
        let t = self
            .tally
            .as_ref()?
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        Some(PeakReport {
            reserved: t.peak,
            limit: self.limit,
            rss: t.rss_at_peak,
            holders: t.at_peak.clone(),
        })
    }

    /// Bytes every reservation is given even when the pool is full: a 256th
    /// of the budget, at most 4 MiB. Without it, an operator that starts
    /// after others filled the pool would spill each row on its own (a spool
    /// wrote one file per row, a sort one run per row, at thousands of file
    /// creations a second). With it, what spills goes in pieces of at least
    /// this size, and the pool can exceed its limit by this much per
    /// operator and thread that holds rows.
    pub fn floor(&self) -> u64 {
        self.floor
    }

    /// Takes `n` bytes whether or not they fit (within a reservation's floor).
    fn force_reserve(&self, n: u64) {
        let next = self.used.fetch_add(n, Ordering::Relaxed) + n;
        self.peak.fetch_max(next, Ordering::Relaxed);
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The most bytes reserved at once during the run.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    fn try_reserve(&self, n: u64) -> bool {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let next = used.saturating_add(n);
            if next > self.limit {
                return false;
            }
            match self
                .used
                .compare_exchange_weak(used, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return true;
                }
                Err(now) => used = now,
            }
        }
    }

    fn release(&self, n: u64) {
        self.used.fetch_sub(n, Ordering::Relaxed);
    }
}

/// The bytes one operator holds from the pool; given back when dropped or
/// [`reset`](Reservation::reset). A reservation without a pool (the default)
/// never refuses: it stands for state that is never filled.
#[derive(Debug, Default)]
pub struct Reservation {
    pool: Option<Arc<MemoryPool>>,
    /// Bytes taken from the pool.
    held: u64,
    /// Bytes the operator says it uses (at most `held` after a successful `grow`).
    used: u64,
    /// What `--profile` calls the operator ("" when unnamed).
    label: &'static str,
}

impl Reservation {
    pub fn new(pool: &Arc<MemoryPool>) -> Reservation {
        Reservation {
            pool: Some(Arc::clone(pool)),
            held: 0,
            used: 0,
            label: "",
        }
    }

    /// A new, empty reservation from the same pool, for the same operator.
    pub fn sibling(&self) -> Reservation {
        Reservation {
            pool: self.pool.clone(),
            held: 0,
            used: 0,
            label: self.label,
        }
    }

    /// Names the operator whose bytes these are (`--profile`'s memory report).
    pub fn set_label(&mut self, label: &'static str) {
        if let Some(pool) = &self.pool {
            pool.note(self.label, -(self.held as i64));
            pool.note(label, self.held as i64);
        }
        self.label = label;
    }

    /// Accounts for `n` more bytes. `false` when the pool cannot give them
    /// and the reservation holds more than the pool's [floor](MemoryPool::floor)
    /// (nothing is accounted then): the caller keeps the bytes out of memory
    /// (spills).
    #[inline]
    pub fn grow(&mut self, n: u64) -> bool {
        self.used += n;
        if self.used <= self.held {
            return true;
        }
        let Some(pool) = &self.pool else {
            self.held = self.used;
            return true;
        };
        let need = self.used - self.held;
        let want = need.max(CHUNK.min(pool.limit / 64).max(1));
        let took = if pool.try_reserve(want) {
            want
        } else if pool.try_reserve(need) {
            // Near the limit: take exactly what is needed.
            need
        } else if self.used <= pool.floor {
            pool.force_reserve(need);
            need
        } else {
            self.used -= n;
            return false;
        };
        self.held += took;
        pool.note(self.label, took as i64);
        true
    }

    /// Gives every byte back (the operator's memory was spilled or dropped).
    pub fn reset(&mut self) {
        if let Some(pool) = &self.pool {
            pool.release(self.held);
            pool.note(self.label, -(self.held as i64));
        }
        self.held = 0;
        self.used = 0;
    }

    /// Gives back `n` of the bytes in use (part of the operator's memory was freed).
    pub fn shrink(&mut self, n: u64) {
        let n = n.min(self.used);
        self.used -= n;
        let spare = self.held.saturating_sub(self.used);
        if let Some(pool) = &self.pool {
            pool.release(spare);
            pool.note(self.label, -(spare as i64));
        }
        self.held = self.used;
    }

    /// Takes over another reservation's bytes (two threads' states merged).
    pub fn absorb(&mut self, mut other: Reservation) {
        if let Some(pool) = other.pool.take() {
            if self.pool.is_none() {
                self.pool = Some(Arc::clone(&pool));
                if self.label.is_empty() {
                    self.label = other.label;
                }
            }
            debug_assert!(self.pool.as_ref().is_some_and(|p| Arc::ptr_eq(p, &pool)));
            if other.label != self.label {
                pool.note(other.label, -(other.held as i64));
                pool.note(self.label, other.held as i64);
            }
        }
        self.held += std::mem::take(&mut other.held);
        self.used += std::mem::take(&mut other.used);
    }

    pub fn used(&self) -> u64 {
        self.used
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_refuses_beyond_its_limit_and_gets_bytes_back() {
        let pool = MemoryPool::new(1000);
        let mut a = Reservation::new(&pool);
        let mut b = Reservation::new(&pool);
        assert!(a.grow(600));
        assert!(!b.grow(600), "1200 bytes do not fit in 1000");
        b.reset();
        assert!(b.grow(400));
        assert!(!a.grow(1));
        drop(a);
        assert!(b.grow(500));
        assert_eq!(pool.peak(), 1000);
        b.reset();
        assert_eq!(pool.used.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn absorb_keeps_the_bytes_reserved_once() {
        let pool = MemoryPool::new(1 << 30);
        let mut a = Reservation::new(&pool);
        let mut b = Reservation::new(&pool);
        assert!(a.grow(10) && b.grow(20));
        let held = pool.used.load(Ordering::Relaxed);
        a.absorb(b);
        assert_eq!(pool.used.load(Ordering::Relaxed), held);
        assert_eq!(a.used(), 30);
        drop(a);
        assert_eq!(pool.used.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_full_pool_still_gives_each_reservation_its_floor() {
        let pool = MemoryPool::new(256 << 10);
        assert_eq!(pool.floor(), 1 << 10);
        let mut hog = Reservation::new(&pool);
        assert!(hog.grow(256 << 10));
        assert!(!hog.grow(1), "the hog is past its floor");
        let mut late = Reservation::new(&pool);
        for _ in 0..16 {
            assert!(late.grow(64), "within the floor");
        }
        assert!(!late.grow(1), "past the floor");
        assert_eq!(pool.peak(), (256 << 10) + (1 << 10));
        late.reset();
        assert!(late.grow(1000), "the floor again after a spill");
        drop((hog, late));
        assert_eq!(pool.used.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn no_pool_never_refuses() {
        let mut r = Reservation::default();
        assert!(r.grow(u64::MAX / 2));
    }
}
