//! Hash aggregation bounded by the memory budget.
//!
//! A [`GroupTable`] keeps one accumulator per group in memory while the
//! job's [`MemoryPool`] gives room for new groups. Beyond that, a row whose
//! group is already in memory still updates it in place, and a row of a new
//! group is written to one of [`PARTITIONS`] spill files by a hash of its
//! key. When every row is in, [`GroupTable::finish`] takes the partitions
//! one at a time: the in-memory groups of that partition plus its spilled
//! rows, aggregated, then output and freed before the next partition. A
//! partition whose new groups still do not fit spills again with another
//! hash (up to [`MAX_LEVEL`] times; then it is aggregated in memory anyway).
//! Without spilling, `finish` outputs the groups as an in-memory table does.
//!
//! Rows, not accumulators, are spilled: every accumulator (DISTINCT sets,
//! MIN/MAX of strings) works unchanged. A group's size counts its key, its
//! accumulator and the heap bytes of the row that created it; what a
//! DISTINCT set grows by afterwards is charged when the generated code calls
//! [`GroupTable::charge_growth`] after the update, and once the pool has no
//! room for that, new groups spill (existing groups keep growing: their
//! accumulators cannot move to disk, so a single huge group can still
//! exceed the budget).
//!
//! A table larger than a core's cache makes every update wait on memory for
//! its slot. Such a table takes its input rows through [`GroupTable::push`]:
//! the row's slot starts loading, the row waits in a queue of
//! [`DEFER_ROWS`], and the row that has waited longest is updated instead,
//! its slot by then in the cache (bench/fanout/one.sql, one GROUP BY
//! user_id over 10M rows: ~1.7x faster). The rows are updated in the order
//! they came, so the groups and their order are the same as without the
//! queue; the generated program drains the queue ([`GroupTable::drain`]) at
//! the end of every pipeline and before tables merge.

use std::collections::VecDeque;
use std::hash::Hash;
use std::sync::Arc;

use super::grace::{partition, PartFile, Partitions, MAX_LEVEL, PARTITIONS};
use super::group_map::{Entry, GroupMap};
use super::memory::{MemoryPool, Reservation};
use super::spool::{Spill, SpillDir};
use crate::error::{Error, Result};

/// Group key → accumulator, with the rows of groups that did not fit.
pub struct GroupTable<K, A, R> {
    map: GroupMap<K, A>,
    mem: Reservation,
    dir: Option<Arc<SpillDir>>,
    spilled: Option<Partitions<R>>,
    /// The pool refused the growth of existing groups: new groups spill.
    full: bool,
    /// Rows (with their key's hash) whose slot is loading: see [`GroupTable::push`].
    deferred: VecDeque<(u64, R)>,
    /// Slot bytes from which updates are deferred ([`defer_bytes`]).
    defer_at: usize,
}

/// Rows an update waits behind in [`GroupTable::push`]: enough work between
/// a slot's prefetch and its lookup to cover a load from memory.
pub const DEFER_ROWS: usize = 16;

/// Tables whose slots take at least this many bytes defer their updates
/// (a quarter of this machine's 1 MiB L2 per core). Smaller ones stay in
/// the cache, where the queue costs more than the wait it saves: deferring
/// every table from its first row made bench/job.sql 10% slower. Several
/// tables of this size together outgrow the cache: bench/fanout/sixteen.sql
/// (sixteen tables of 6,250 groups, 320 KB of slots each, one of them per
/// row) ran 1.38 s with a 2 MB threshold and 0.81 s with this one; job.sql
/// and the TPC-H set did not change (bench/RESULTS.md, issue 13 step 12).
pub const DEFER_BYTES: usize = 256 << 10;

/// [`DEFER_BYTES`], or `STMTC_DEFER_BYTES` when set: tests set 0 so that
/// every table defers from its first row.
fn defer_bytes() -> usize {
    static AT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *AT.get_or_init(|| {
        std::env::var("STMTC_DEFER_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFER_BYTES)
    })
}

impl<K, A, R> Default for GroupTable<K, A, R> {
    fn default() -> Self {
        GroupTable {
            map: GroupMap::default(),
            mem: Reservation::default(),
            dir: None,
            spilled: None,
            full: false,
            deferred: VecDeque::new(),
            defer_at: defer_bytes(),
        }
    }
}

/// Estimated bytes of one group: key, accumulator, map overhead, and the
/// long strings of the row that created it (its key's strings come from it).
fn group_size<K, A, R: Spill>(row: &R) -> u64 {
    (std::mem::size_of::<K>() + std::mem::size_of::<A>() + 16 + row.heap_bytes()) as u64
}

impl<K: Hash + Eq, A, R: Spill> GroupTable<K, A, R> {
    pub fn new(pool: &Arc<MemoryPool>, dir: &Arc<SpillDir>) -> Self {
        GroupTable {
            mem: Reservation::new(pool),
            dir: Some(Arc::clone(dir)),
            ..Default::default()
        }
    }

    /// Names this operator in `--profile`'s memory report.
    pub fn labelled(mut self, label: &'static str) -> Self {
        self.mem.set_label(label);
        self
    }

    /// One input row, whose key hashes to `hash`, into its group by
    /// `update` (the generated `A<N>::update`: [`GroupTable::group_by`],
    /// then the accumulators). While the table's slots are larger than the
    /// cache and the row owns no heap memory (a copy is a `memcpy`), the
    /// row waits in the queue while its slot loads, and the row that waited
    /// [`DEFER_ROWS`] rows is updated instead; any other row first updates
    /// the rows that wait, so rows always go in in the order they came.
    #[inline(always)]
    pub fn push(
        &mut self,
        hash: u64,
        row: &R,
        update: impl Fn(&mut Self, u64, &R) -> Result<()>,
    ) -> Result<()>
    where
        R: Clone,
    {
        if self.map.slot_bytes() >= self.defer_at && row.heap_bytes() == 0 {
            self.map.prefetch(hash);
            if self.deferred.len() >= DEFER_ROWS {
                if let Some((hash, row)) = self.deferred.pop_front() {
                    update(self, hash, &row)?;
                }
            }
            self.deferred.push_back((hash, row.clone()));
            return Ok(());
        }
        self.drain(&update)?;
        update(self, hash, row)
    }

    /// Updates the rows that wait in [`GroupTable::push`]'s queue: the
    /// generated program calls it at the end of every pipeline and before
    /// tables merge.
    #[inline]
    pub fn drain(&mut self, update: impl Fn(&mut Self, u64, &R) -> Result<()>) -> Result<()> {
        while let Some((hash, row)) = self.deferred.pop_front() {
            update(self, hash, &row)?;
        }
        Ok(())
    }

    /// An error if rows still wait to be updated (the generated program
    /// drains them first: merging or finishing now would lose them).
    fn check_drained(&self) -> Result<()> {
        if self.deferred.is_empty() {
            Ok(())
        } else {
            Err(Error::new(format!(
                "internal: {} deferred aggregate rows not updated",
                self.deferred.len()
            )))
        }
    }

    /// The accumulator of `key`'s group for input `row`, created by `init`
    /// when the budget has room; `None` when the row was spilled instead.
    #[inline]
    pub fn group(&mut self, key: K, row: &R, init: impl FnOnce() -> A) -> Result<Option<&mut A>> {
        // An existing group (most rows) by a lookup that inlines, not the
        // out-of-line `entry` with its entry value returned through memory.
        if let Some(acc) = self.map.get_mut(&key) {
            let acc: *mut A = acc;
            // SAFETY: `acc` points into `self.map`, which nothing touches
            // before the borrow of `self` this returns ends. (The borrow
            // checker rejects returning `get_mut`'s borrow in one branch and
            // using the map in the other, a known false positive.)
            return Ok(Some(unsafe { &mut *acc }));
        }
        self.new_group(key, row, init)
    }

    /// [`GroupTable::group`] by a borrowed view of the key: `hash` is the
    /// key's hash ([`group_map::hash`](super::group_map::hash) of the
    /// view), `is_key` recognizes the key, and `key` builds the owned key
    /// for a new group only (rows of existing groups clone no strings).
    #[inline]
    pub fn group_by(
        &mut self,
        hash: u64,
        is_key: impl Fn(&K) -> bool,
        key: impl FnOnce() -> K,
        row: &R,
        init: impl FnOnce() -> A,
    ) -> Result<Option<&mut A>> {
        if let Some(acc) = self.map.get_mut_by(hash, is_key) {
            let acc: *mut A = acc;
            // SAFETY: as in `group`.
            return Ok(Some(unsafe { &mut *acc }));
        }
        let key = key();
        debug_assert_eq!(
            hash,
            super::group_map::hash(&key),
            "a key view hashes differently"
        );
        self.new_group(key, row, init)
    }

    /// [`GroupTable::group`] for a key not in memory: a new group, or the
    /// row spilled (through `entry`, as before the lookup above: groups
    /// land in the same slots, so they come out in the same order).
    #[inline(never)]
    fn new_group(&mut self, key: K, row: &R, init: impl FnOnce() -> A) -> Result<Option<&mut A>> {
        match self.map.entry(key) {
            Entry::Occupied(acc) => Ok(Some(acc)),
            Entry::Vacant(v) => {
                if !self.full && self.mem.grow(group_size::<K, A, R>(row)) {
                    return Ok(Some(v.insert(init())));
                }
                let dir = self
                    .dir
                    .as_deref()
                    .ok_or_else(|| Error::new("internal: an aggregate without a spill folder"))?;
                let p = partition(v.key(), 0);
                self.spilled.get_or_insert_with(Partitions::new).parts[p].push(dir, row)?;
                Ok(None)
            }
        }
    }

    /// Forgets growth noted on this thread before an update: called before
    /// `group` by tables whose accumulators grow, so that
    /// [`GroupTable::charge_growth`] charges this update's growth only.
    #[inline]
    pub fn begin_update(&self) {
        super::memory::take_growth();
    }

    /// Charges what the update since [`GroupTable::begin_update`] made the
    /// accumulators grow by (DISTINCT sets) to this table's reservation;
    /// when the pool cannot give it, the table stops taking new groups.
    #[inline]
    pub fn charge_growth(&mut self) {
        let grown = super::memory::take_growth();
        if grown > 0 && !self.mem.grow(grown) {
            self.full = true;
        }
    }

    /// The accumulator of an owned key, always in memory (a global
    /// aggregate's single group).
    pub fn group_owned(&mut self, key: K, init: impl FnOnce() -> A) -> &mut A {
        self.map.get_or_insert_with(key, init)
    }

    /// No group in memory and no row spilled.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty() && self.spilled.is_none()
    }

    /// Folds another thread's partial table into this one.
    pub fn merge(&mut self, mut other: Self, mut merge_acc: impl FnMut(&mut A, A)) -> Result<()> {
        self.check_drained()?;
        other.check_drained()?;
        if self.dir.is_none() {
            self.dir = other.dir.clone();
        }
        self.mem.absorb(std::mem::take(&mut other.mem));
        self.full |= other.full;
        self.map
            .absorb(std::mem::take(&mut other.map), |mine, a| merge_acc(mine, a));
        if let Some(parts) = other.spilled.take() {
            match self.spilled.as_mut() {
                None => self.spilled = Some(parts),
                Some(mine) => {
                    let dir = self.dir.as_deref().expect("spilled tables have a folder");
                    mine.absorb(dir, parts)?;
                }
            }
        }
        Ok(())
    }

    /// Every group, once: `key_of` gives a spilled row's key, `init` and
    /// `update` aggregate it, `emit` gets each finished group.
    pub fn finish<C>(
        mut self,
        cx: &mut C,
        key_of: impl Fn(&R) -> K,
        init: impl Fn() -> A,
        update: impl Fn(&mut A, &R),
        mut emit: impl FnMut(&mut C, K, A) -> Result<()>,
    ) -> Result<()> {
        self.check_drained()?;
        let map = std::mem::take(&mut self.map);
        let Some(parts) = self.spilled.take() else {
            for (k, a) in map {
                emit(cx, k, a)?;
            }
            return Ok(());
        };
        let dir = Arc::clone(self.dir.as_ref().expect("spilled tables have a folder"));
        let mut finish = Finish {
            dir: &dir,
            key_of: &key_of,
            init: &init,
            update: &update,
            emit: &mut emit,
        };
        finish.split(cx, 0, map, &mut self.mem, parts)
    }
}

/// Tables of at least this many groups, all in memory, output them on all
/// threads ([`GroupTable::finish_parallel`]). Below, a thread's start and its
/// own state cost more than the groups: bench/job.sql's 100,000 per-user
/// groups took 57 ms on one thread, its 5,000 per-product groups 2 ms.
pub const PARALLEL_GROUPS: usize = 16_384;

impl<K: Hash + Eq + Send, A: Send, R: Spill> GroupTable<K, A, R> {
    /// [`GroupTable::finish`] on up to `threads` threads when the groups are
    /// many ([`PARALLEL_GROUPS`]) and none spilled: the shards of the table
    /// are handed out to threads that each `emit` into a context of their
    /// own (`new_cx(thread)`), folded into `cx` by `absorb` at the end, as
    /// a scan's threads are. Otherwise `finish` on `cx`.
    #[allow(clippy::too_many_arguments)]
    pub fn finish_parallel<C: Send>(
        mut self,
        cx: &mut C,
        threads: usize,
        new_cx: impl Fn(usize) -> Result<C> + Sync,
        mut absorb: impl FnMut(&mut C, C) -> Result<()>,
        key_of: impl Fn(&R) -> K,
        init: impl Fn() -> A,
        update: impl Fn(&mut A, &R),
        emit: impl Fn(&mut C, K, A) -> Result<()> + Sync,
    ) -> Result<()> {
        if threads <= 1 || self.spilled.is_some() || self.map.len() < PARALLEL_GROUPS {
            return self.finish(cx, key_of, init, update, emit);
        }
        self.check_drained()?;
        let parts: Vec<_> = std::mem::take(&mut self.map)
            .into_shards()
            .into_iter()
            .map(|slots| std::sync::Mutex::new(slots.into_vec()))
            .collect();
        let states = super::parallel::for_each_parallel(
            &parts,
            threads,
            &new_cx,
            |own: &mut Result<C>, _, part: &std::sync::Mutex<Vec<Option<(K, A)>>>| {
                let own = own
                    .as_mut()
                    .map_err(|e| Error::new(e.message().to_string()))?;
                let slots = std::mem::take(&mut *part.lock().unwrap_or_else(|p| p.into_inner()));
                for (k, a) in slots.into_iter().flatten() {
                    emit(own, k, a)?;
                }
                Ok(())
            },
        )?;
        for own in states {
            absorb(cx, own?)?;
        }
        Ok(())
    }
}

struct Finish<'a, KO, I, U, E> {
    dir: &'a SpillDir,
    key_of: &'a KO,
    init: &'a I,
    update: &'a U,
    emit: &'a mut E,
}

impl<KO, I, U, E> Finish<'_, KO, I, U, E> {
    /// The groups in memory at `level` split by the next level's partition,
    /// each part finished with its spilled rows, then freed.
    fn split<C, K, A, R>(
        &mut self,
        cx: &mut C,
        level: u32,
        map: GroupMap<K, A>,
        mem: &mut Reservation,
        rows: Partitions<R>,
    ) -> Result<()>
    where
        K: Hash + Eq,
        R: Spill,
        KO: Fn(&R) -> K,
        I: Fn() -> A,
        U: Fn(&mut A, &R),
        E: FnMut(&mut C, K, A) -> Result<()>,
    {
        let total = map.len().max(1) as u64;
        let bytes = mem.used();
        let mut maps: Vec<GroupMap<K, A>> = (0..PARTITIONS).map(|_| GroupMap::default()).collect();
        for (k, a) in map {
            maps[partition(&k, level)].insert(k, a);
        }
        for (map, part) in maps.into_iter().zip(rows.parts) {
            let share = bytes * map.len() as u64 / total;
            let mut own = mem.sibling();
            self.part(cx, level, map, &mut own, part)?;
            drop(own);
            mem.shrink(share);
        }
        Ok(())
    }

    /// One partition: its groups from memory plus its spilled rows.
    fn part<C, K, A, R>(
        &mut self,
        cx: &mut C,
        level: u32,
        mut map: GroupMap<K, A>,
        mem: &mut Reservation,
        rows: PartFile<R>,
    ) -> Result<()>
    where
        K: Hash + Eq,
        R: Spill,
        KO: Fn(&R) -> K,
        I: Fn() -> A,
        U: Fn(&mut A, &R),
        E: FnMut(&mut C, K, A) -> Result<()>,
    {
        let next = level + 1;
        let mut spilled: Option<Partitions<R>> = None;
        let dir = self.dir;
        rows.drain(|row| {
            let key = (self.key_of)(&row);
            match map.entry(key) {
                Entry::Occupied(acc) => (self.update)(acc, &row),
                Entry::Vacant(v) => {
                    if next > MAX_LEVEL || mem.grow(group_size::<K, A, R>(&row)) {
                        (self.update)(v.insert((self.init)()), &row);
                    } else {
                        let p = partition(v.key(), next);
                        spilled.get_or_insert_with(Partitions::new).parts[p].push(dir, &row)?;
                    }
                }
            }
            Ok(())
        })?;
        match spilled {
            Some(parts) => self.split(cx, next, map, mem, parts),
            None => {
                for (k, a) in map {
                    (self.emit)(cx, k, a)?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// SUM and COUNT per key `i % keys` over `rows` rows (key, value), on
    /// two "threads" merged, finished into a sorted map.
    fn aggregate(
        pool: &Arc<MemoryPool>,
        dir: &Arc<SpillDir>,
        rows: i64,
        keys: i64,
    ) -> (BTreeMap<i64, (i64, i64)>, bool) {
        let mut a: GroupTable<i64, (i64, i64), (i64, i64)> = GroupTable::new(pool, dir);
        let mut b = GroupTable::new(pool, dir);
        let update = |acc: &mut (i64, i64), row: &(i64, i64)| {
            acc.0 += row.1;
            acc.1 += 1;
        };
        for i in 0..rows {
            let row = (i * 7919 % keys, i);
            let t = if i % 3 == 0 { &mut a } else { &mut b };
            // Half the rows by the borrowed lookup: both find the same groups.
            let acc = if i % 2 == 0 {
                t.group(row.0, &row, || (0, 0))
            } else {
                let hash = crate::ops::group_map::hash(&row.0);
                t.group_by(hash, |k| *k == row.0, || row.0, &row, || (0, 0))
            };
            if let Some(acc) = acc.unwrap() {
                update(acc, &row);
            }
        }
        a.merge(b, |x, y| {
            x.0 += y.0;
            x.1 += y.1;
        })
        .unwrap();
        let spilled = a.spilled.is_some();
        let mut out = BTreeMap::new();
        a.finish(
            &mut out,
            |r| r.0,
            || (0, 0),
            update,
            |out, k, acc| {
                assert!(out.insert(k, acc).is_none(), "group {k} output twice");
                Ok(())
            },
        )
        .unwrap();
        (out, spilled)
    }

    #[test]
    fn a_spilled_aggregate_gives_every_group_once_with_all_its_rows() {
        let base = std::env::temp_dir().join(format!("stmtc-groups-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let dir = Arc::new(SpillDir::at(base.clone()).with_budget(1 << 10));
        let (want, spilled) = aggregate(&MemoryPool::new(1 << 30), &dir, 20_000, 5_000);
        assert!(!spilled);
        assert_eq!(want.len(), 5_000);
        for budget in [4 << 10, 64 << 10] {
            let pool = MemoryPool::new(budget);
            let (got, spilled) = aggregate(&pool, &dir, 20_000, 5_000);
            assert!(spilled, "{budget} bytes hold fewer than 5000 groups");
            assert_eq!(got, want);
        }
        assert!(dir.written.load(std::sync::atomic::Ordering::Relaxed) > 0);
        drop(dir);
        let left: Vec<_> = std::fs::read_dir(&base).unwrap().collect();
        assert!(left.is_empty(), "spill folders left behind: {left:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// Many groups go out on several threads, each into its own context,
    /// folded at the end: every group once, with its value; few groups,
    /// or one thread, stay on the caller's context.
    #[test]
    fn many_groups_finish_on_all_threads() {
        let base = std::env::temp_dir().join(format!("stmtc-par-groups-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let dir = Arc::new(SpillDir::at(base.clone()));
        let pool = MemoryPool::new(1 << 30);
        for (groups, threads, contexts) in [
            (PARALLEL_GROUPS * 2, 3, 3),
            (100, 3, 0),
            (PARALLEL_GROUPS * 2, 1, 0),
        ] {
            let mut t: GroupTable<i64, i64, (i64, i64)> = GroupTable::new(&pool, &dir);
            for i in 0..groups as i64 * 2 {
                let row = (i % groups as i64, i);
                *t.group(row.0, &row, || 0).unwrap().unwrap() += row.1;
            }
            // (groups seen, contexts made and folded in)
            let mut out: (BTreeMap<i64, i64>, usize) = (BTreeMap::new(), 0);
            let made = std::sync::atomic::AtomicUsize::new(0);
            t.finish_parallel(
                &mut out,
                threads,
                |_| {
                    made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Ok((BTreeMap::new(), 0))
                },
                |mine, theirs| {
                    for (k, v) in theirs.0 {
                        assert!(mine.0.insert(k, v).is_none(), "group {k} twice");
                    }
                    mine.1 += 1;
                    Ok(())
                },
                |r| r.0,
                || 0,
                |acc, r| *acc += r.1,
                |cx, k, v| {
                    assert!(cx.0.insert(k, v).is_none(), "group {k} twice");
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(out.0.len(), groups);
            let g = groups as i64;
            assert!(out.0.iter().all(|(&k, &v)| v == k + (k + g)));
            assert_eq!(
                (made.into_inner(), out.1),
                (contexts, contexts),
                "{groups} groups, {threads} threads"
            );
        }
        drop(dir);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn distinct_sets_growing_count_against_the_budget() {
        use crate::ops::aggregate::CountDistinct;
        let base = std::env::temp_dir().join(format!("stmtc-distinct-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let dir = Arc::new(SpillDir::at(base.clone()).with_budget(1 << 10));
        // 100 groups, the first ones seeing thousands of distinct values:
        // the groups fit the budget, their sets do not.
        let run = |pool: &Arc<MemoryPool>| {
            let mut t: GroupTable<i64, CountDistinct<i64>, (i64, i64)> =
                GroupTable::new(pool, &dir);
            for i in 0..20_000i64 {
                let row = (if i < 10_000 { i % 3 } else { i % 100 }, i);
                t.begin_update();
                if let Some(acc) = t.group(row.0, &row, Default::default).unwrap() {
                    acc.add(Some(row.1));
                    t.charge_growth();
                }
            }
            let full = t.full;
            let mut out = BTreeMap::new();
            t.finish(
                &mut out,
                |r| r.0,
                Default::default,
                |acc, r| acc.add(Some(r.1)),
                |out, k, acc| {
                    assert!(out.insert(k, acc.result()).is_none());
                    Ok(())
                },
            )
            .unwrap();
            (out, full)
        };
        let (want, full) = run(&MemoryPool::new(1 << 30));
        assert!(!full);
        assert_eq!(want.len(), 100);
        assert_eq!(want.values().sum::<i64>(), 20_000);
        let pool = MemoryPool::new(64 << 10);
        let (got, full) = run(&pool);
        assert!(full, "the sets' growth was not charged");
        assert_eq!(got, want);
        assert!(pool.peak() >= (64 << 10) / 2, "peak {}", pool.peak());
        drop(dir);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn deferred_updates_give_the_same_groups_in_the_same_order() {
        use crate::value::Str;
        let base = std::env::temp_dir().join(format!("stmtc-defer-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let dir = Arc::new(SpillDir::at(base.clone()));
        let pool = MemoryPool::new(1 << 30);
        type Table = GroupTable<i64, (i64, i64), (i64, Str)>;
        let update = |t: &mut Table, hash, row: &(i64, Str)| {
            if let Some(acc) = t.group_by(hash, |k| *k == row.0, || row.0, row, || (0, 0))? {
                acc.0 += row.1.len() as i64;
                acc.1 = acc.1.wrapping_mul(31).wrapping_add(row.1.len() as i64);
                // order-sensitive
            }
            Ok(())
        };
        // 75k groups of 4 rows in a row: 131,072 slots of 32 bytes, past
        // `DEFER_BYTES`. One row in 50 has a string on the heap: it goes in
        // directly, after the rows that wait (its group's earlier rows).
        let run = |defer_at: usize| {
            let mut t: Table = GroupTable::new(&pool, &dir);
            t.defer_at = defer_at;
            let mut deferred = 0;
            for i in 0..300_000i64 {
                let text = if i % 50 == 0 {
                    "x".repeat(40)
                } else {
                    "x".repeat((i % 7) as usize)
                };
                let row = (i / 4 * 7919 % 100_000, Str::from(text.as_str()));
                t.push(crate::ops::group_map::hash(&row.0), &row, update)
                    .unwrap();
                deferred = deferred.max(t.deferred.len());
            }
            if defer_at < usize::MAX {
                assert_eq!(deferred, DEFER_ROWS, "rows queued at once");
                // Rows still wait: finishing now would lose them.
                assert!(t.check_drained().is_err());
                t.drain(update).unwrap();
            }
            let mut out = Vec::new();
            t.finish(
                &mut out,
                |r| r.0,
                || (0, 0),
                |_, _| {},
                |out, k, acc| {
                    out.push((k, acc));
                    Ok(())
                },
            )
            .unwrap();
            out
        };
        let direct = run(usize::MAX);
        assert_eq!(direct.len(), 75_000);
        assert_eq!(run(DEFER_BYTES), direct);
        assert_eq!(run(0), direct);
        drop(dir);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn a_table_with_rows_waiting_refuses_to_merge_or_finish() {
        let pool = MemoryPool::new(1 << 30);
        let dir = Arc::new(SpillDir::at(std::env::temp_dir()));
        let update = |t: &mut GroupTable<i64, i64, (i64, i64)>, hash, row: &(i64, i64)| {
            if let Some(acc) = t.group_by(hash, |k| *k == row.0, || row.0, row, || 0)? {
                *acc += row.1;
            }
            Ok(())
        };
        let mut t = GroupTable::new(&pool, &dir);
        t.defer_at = 0;
        t.push(crate::ops::group_map::hash(&1i64), &(1, 1), update)
            .unwrap();
        let other = GroupTable::new(&pool, &dir);
        let e = t.merge(other, |a, b| *a += b).unwrap_err();
        assert!(
            e.message().contains("1 deferred aggregate rows"),
            "{}",
            e.message()
        );
        let mut empty = GroupTable::new(&pool, &dir);
        assert!(empty.merge(t, |a, b| *a += b).is_err());
    }
}
