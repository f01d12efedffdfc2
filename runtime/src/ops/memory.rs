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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
}

impl MemoryPool {
    pub fn new(limit: u64) -> Arc<MemoryPool> {
        let limit = limit.max(1);
        Arc::new(MemoryPool {
            limit,
            floor: (limit / 256).min(MAX_FLOOR),
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
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
}

impl Reservation {
    pub fn new(pool: &Arc<MemoryPool>) -> Reservation {
        Reservation {
            pool: Some(Arc::clone(pool)),
            held: 0,
            used: 0,
        }
    }

    /// A new, empty reservation from the same pool.
    pub fn sibling(&self) -> Reservation {
        Reservation {
            pool: self.pool.clone(),
            held: 0,
            used: 0,
        }
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
        let want = (self.used - self.held).max(CHUNK.min(pool.limit / 64).max(1));
        if pool.try_reserve(want) {
            self.held += want;
            true
        } else if pool.try_reserve(self.used - self.held) {
            // Near the limit: take exactly what is needed.
            self.held = self.used;
            true
        } else if self.used <= pool.floor {
            pool.force_reserve(self.used - self.held);
            self.held = self.used;
            true
        } else {
            self.used -= n;
            false
        }
    }

    /// Gives every byte back (the operator's memory was spilled or dropped).
    pub fn reset(&mut self) {
        if let Some(pool) = &self.pool {
            pool.release(self.held);
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
        }
        self.held = self.used;
    }

    /// Takes over another reservation's bytes (two threads' states merged).
    pub fn absorb(&mut self, mut other: Reservation) {
        if self.pool.is_none() {
            self.pool = other.pool.take();
        } else if let Some(pool) = other.pool.take() {
            debug_assert!(self.pool.as_ref().is_some_and(|p| Arc::ptr_eq(p, &pool)));
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
