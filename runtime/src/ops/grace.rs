//! Join build sides bounded by the memory budget: a grace hash join.
//!
//! A [`BuildTable`] is an in-memory [`JoinTable`] while the job's
//! [`MemoryPool`] gives it room. When the pool refuses, the table
//! *partitions*: its rows, and every build row after them, go by a hash of
//! their key to one of [`PARTITIONS`] spill files (rows whose key has a NULL,
//! kept only for outer joins, to one more). Once a build is partitioned, the
//! probe side does not probe: each probe row with a non-NULL key goes to the
//! matching partition of a [`ProbeSpill`] (a probe row with a NULL key
//! matches nothing and is handled at once). When every probe row has arrived,
//! [`BuildTable::join_spilled`] joins the partitions pairwise, on all
//! threads: each loads one build partition into a hash table and streams the
//! probe partition through it, then takes the next. A build partition that still does not fit is split
//! again with another hash (up to [`MAX_LEVEL`] times; beyond that, one key
//! has more rows than the budget and is loaded anyway). Spill files are
//! removed once read, and with the job's spill folder in every case.

use std::hash::{BuildHasher, Hash};
use std::io::{BufReader, Read};
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::join::{JoinTable, MatchedRows, Matches};
use super::memory::{MemoryPool, Reservation};
use super::spool::{Spill, SpillDir};
use crate::error::{Error, Result};

/// Partitions per level of a partitioned build.
pub const PARTITIONS: usize = 32;
/// How often a partition that does not fit is split again.
pub const MAX_LEVEL: u32 = 3;

/// The partition of `key` at `level` (independent hashes per level, and
/// independent of the hash tables' own hash).
pub(crate) fn partition<K: Hash>(key: &K, level: u32) -> usize {
    let state = foldhash::fast::FixedState::with_seed(0x6772_6163_6500 + u64::from(level));
    let h = state.hash_one(key);
    ((u128::from(h) * PARTITIONS as u128) >> 64) as usize
}

/// Estimated bytes of one build row in a join table: the row, its key, the
/// chain index and the key's share of the map.
fn build_row_size<K, B: Spill>(row: &B) -> u64 {
    (std::mem::size_of::<B>() + std::mem::size_of::<K>() + 12 + row.heap_bytes()) as u64
}

/// One spill file of rows (length-prefixed), written through a buffer.
pub(crate) struct PartFile<R> {
    buf: Vec<u8>,
    files: Vec<PathBuf>,
    rows: u64,
    _row: PhantomData<R>,
}

impl<R: Spill> PartFile<R> {
    pub(crate) fn new() -> PartFile<R> {
        PartFile {
            buf: Vec::new(),
            files: Vec::new(),
            rows: 0,
            _row: PhantomData,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows == 0
    }

    pub(crate) fn push(&mut self, dir: &SpillDir, row: &R) -> Result<()> {
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        row.write(&mut self.buf);
        let len = (self.buf.len() - at - 4) as u32;
        self.buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
        self.rows += 1;
        if self.buf.len() >= dir.write_buffer() {
            self.flush(dir)?;
        }
        Ok(())
    }

    fn flush(&mut self, dir: &SpillDir) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        match self.files.last() {
            Some(path) => dir.append_file(path, &self.buf)?,
            None => self.files.push(dir.write_file(&self.buf)?),
        }
        self.buf.clear();
        Ok(())
    }

    pub(crate) fn absorb(&mut self, dir: &SpillDir, mut other: PartFile<R>) -> Result<()> {
        other.flush(dir)?;
        self.flush(dir)?;
        // Keep our own file last, so later rows are appended to it.
        let mut files = std::mem::take(&mut other.files);
        files.append(&mut self.files);
        self.files = files;
        self.rows += other.rows;
        Ok(())
    }

    /// Reads every row once, in order of writing; each file is removed once read.
    pub(crate) fn drain(mut self, mut f: impl FnMut(R) -> Result<()>) -> Result<()> {
        let mut row = Vec::new();
        for path in std::mem::take(&mut self.files) {
            let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
            let mut input = BufReader::with_capacity(64 << 10, file);
            let mut len = [0u8; 4];
            loop {
                match input.read_exact(&mut len) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(Error::io(&path, e)),
                }
                row.resize(u32::from_le_bytes(len) as usize, 0);
                input
                    .read_exact(&mut row)
                    .map_err(|e| Error::io(&path, e))?;
                f(R::read(&mut row.as_slice())?)?;
            }
            let _ = std::fs::remove_file(&path);
        }
        let buf = std::mem::take(&mut self.buf);
        let mut input = buf.as_slice();
        while input.len() >= 4 {
            let len = u32::from_le_bytes(input[..4].try_into().expect("4 bytes")) as usize;
            let (mut one, rest) = input[4..].split_at(len);
            f(R::read(&mut one)?)?;
            input = rest;
        }
        Ok(())
    }
}

impl<R> Drop for PartFile<R> {
    fn drop(&mut self) {
        for path in &self.files {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Rows spread over [`PARTITIONS`] files by the hash of their key.
pub(crate) struct Partitions<R> {
    pub(crate) parts: Vec<PartFile<R>>,
}

impl<R: Spill> Partitions<R> {
    pub(crate) fn new() -> Partitions<R> {
        Partitions {
            parts: (0..PARTITIONS).map(|_| PartFile::new()).collect(),
        }
    }

    pub(crate) fn absorb(&mut self, dir: &SpillDir, other: Partitions<R>) -> Result<()> {
        for (mine, theirs) in self.parts.iter_mut().zip(other.parts) {
            mine.absorb(dir, theirs)?;
        }
        Ok(())
    }
}

/// A partitioned build: rows with their keys by partition (a build row
/// need not hold its key columns), and the rows whose key has a NULL (they
/// only matter to outer joins).
struct Spilled<K, B> {
    parts: Partitions<(K, B)>,
    unmatchable: PartFile<B>,
}

/// The build side of a hash join: in memory within the budget, partitioned
/// to disk beyond it.
pub struct BuildTable<K, B> {
    table: JoinTable<K, B>,
    mem: Reservation,
    dir: Option<Arc<SpillDir>>,
    /// Taken by [`BuildTable::join_spilled`] (the built table is shared, read-only).
    spilled: Mutex<Option<Spilled<K, B>>>,
    partitioned: bool,
    /// The keys as bits, once [`BuildTable::index_ints`] replaced the table.
    bits: Option<KeyBits>,
    /// Each key's row by the key's offset in their range, once
    /// [`BuildTable::index_dense_ints`] replaced the table's key map.
    dense: Option<DenseRows>,
    /// The keys as bits in front of the key map, where they were too
    /// spread out to replace it: a probe whose key's bit is clear misses
    /// without reading the map ([`FILTER_SPREAD`]).
    filter: Option<KeyBits>,
}

/// How spread out integer keys may be, as their range over their number,
/// for their bits (one per value in the range) to go in front of a key map
/// that stays: at most 32 bytes a key, about what the map takes. A probe
/// of a key not built then reads one bit from a bitmap small enough for
/// the cache instead of missing it twice in the map (a control byte and
/// a slot). TPC-H q03, q04, q05 and q10 probe the 57K-230K orders of their
/// dates with most of the 6M line items, whose keys span 6M values
/// (740 KB of bits); most of those probes find nothing.
const FILTER_SPREAD: u128 = 256;

/// The smallest and largest of some integer keys, and how many there are.
fn key_range(keys: impl Iterator<Item = i64>) -> (i64, i64, u128) {
    let (mut min, mut max, mut count) = (i64::MAX, i64::MIN, 0u128);
    for k in keys {
        min = min.min(k);
        max = max.max(k);
        count += 1;
    }
    (min, max, count)
}

/// The number of values from `min` to `max` (`0` for no keys: `min > max`).
fn span(min: i64, max: i64) -> u128 {
    (i128::from(max) - i128::from(min) + 1).max(0) as u128
}

/// The row of each integer key, at the key's offset from the smallest.
struct DenseRows {
    min: i64,
    /// A row index, or `u32::MAX` where no key is.
    rows: Box<[u32]>,
}

/// `key`'s offset from `min`, the smallest key of a range (`None` below it).
#[inline]
fn offset(key: i64, min: i64) -> Option<usize> {
    key.checked_sub(min).and_then(|d| usize::try_from(d).ok())
}

impl DenseRows {
    #[inline]
    fn row_of(&self, key: i64) -> u32 {
        offset(key, self.min)
            .and_then(|at| self.rows.get(at).copied())
            .unwrap_or(u32::MAX)
    }
}

/// Integer keys as one bit each over their range.
struct KeyBits {
    min: i64,
    words: Box<[u64]>,
}

/// `keys` (from `min` to `max`) as bits.
fn key_bits(keys: impl Iterator<Item = i64>, min: i64, max: i64) -> KeyBits {
    let mut words = vec![0u64; span(min, max).div_ceil(64) as usize].into_boxed_slice();
    for k in keys {
        let at = (k - min) as usize;
        words[at / 64] |= 1 << (at % 64);
    }
    KeyBits { min, words }
}

impl KeyBits {
    fn bytes(&self) -> u64 {
        (self.words.len() * 8) as u64
    }

    #[inline]
    fn contains(&self, key: i64) -> bool {
        let Some(at) = offset(key, self.min) else {
            return false;
        };
        self.words
            .get(at / 64)
            .is_some_and(|w| w & (1 << (at % 64)) != 0)
    }
}

/// [`BuildTable::index_ints`] and [`BuildTable::contains_int`] for builds
/// on one integer column.
macro_rules! int_keys {
    ($($t:ty),*) => {$(
        impl<B> BuildTable<($t,), B> {
            /// For a join that only asks whether a key exists (a semi or
            /// anti join without a residual), once the build is complete:
            /// when the keys' range is at most [`FILTER_SPREAD`] times their
            /// number and the budget has room, they become one bit each
            /// over the range (at most 32 bytes a key; the hash table takes
            /// ~30) and the table is dropped. A probe then reads one bit,
            /// from a few hundred KB that stay in the cache, where a hash
            /// lookup missed it: TPC-H q21 probes the 729,413 keys of its
            /// orders with status 'F' with every line item, twice (750 KB
            /// of bits). A partitioned build stays as it is.
            pub fn index_ints(&mut self) {
                if self.partitioned || self.table.is_empty() {
                    return;
                }
                let (min, max, keys) = key_range(self.int_keys());
                // Built while the table is still held.
                let Some(bits) = self.key_bits(min, max, keys) else {
                    return;
                };
                self.table = JoinTable::new();
                self.mem.reset();
                // Less than the table and the bits held together.
                let _ = self.mem.grow(bits.bytes());
                self.bits = Some(bits);
            }

            /// Whether some build row has `key`.
            #[inline]
            pub fn contains_int(&self, key: &($t,)) -> bool {
                match &self.bits {
                    Some(bits) => bits.contains(i64::from(key.0)),
                    None => self.passes_filter(key) && self.table.probe(key).next().is_some(),
                }
            }

            /// For an inner join that reads nothing of its build rows but
            /// how many have the probe's key: once the build is complete,
            /// when every key has exactly one row, the keys become bits as
            /// in [`index_ints`](Self::index_ints) (TPC-H q21's 729,413
            /// orders with status 'F': 750 KB of bits where the table held
            /// 20 MB). A table with a key twice stays, with the keys' bits
            /// in front of it ([`FILTER_SPREAD`]).
            pub fn index_unique_ints(&mut self) {
                if self.table.has_pending() {
                    self.table.flush();
                }
                if self.table.len() == self.table.key_count() {
                    self.index_ints();
                } else if !self.partitioned {
                    let (min, max, keys) = key_range(self.int_keys());
                    self.filter = self.key_bits(min, max, keys);
                }
            }

            /// For an inner or LEFT join on the key that reads the build's
            /// rows, once the build is complete: when every key has one row
            /// and their range is at most 4 times their number, each key's
            /// row index goes at the key's offset in the range (4 bytes a
            /// key's slot, where the key map took ~23 bytes a key) and the
            /// map is dropped; a probe ([`probe_int`](Self::probe_int))
            /// then reads one offset instead of hashing and searching (TPC-H
            /// q09's 1.5M orders over keys 1..6M: 24 MB where the map took
            /// 34 MB). A partitioned build stays as it is; one with a key
            /// twice, or keys too far apart, keeps its map with the keys'
            /// bits in front of it ([`FILTER_SPREAD`]).
            pub fn index_dense_ints(&mut self) {
                if self.partitioned || self.table.is_empty() {
                    return;
                }
                if self.table.has_pending() {
                    self.table.flush();
                }
                let (min, max, keys) = key_range(self.int_keys());
                let span = span(min, max);
                if self.table.len() != self.table.key_count() || span > keys * 4 {
                    self.filter = self.key_bits(min, max, keys);
                    return;
                }
                let mut rows = vec![u32::MAX; span as usize].into_boxed_slice();
                for (&(k,), first) in self.table.firsts() {
                    rows[(i64::from(k) - min) as usize] = first;
                }
                self.table.drop_keys();
                self.dense = Some(DenseRows { min, rows });
            }

            /// Bits of the keys, from `min` to `max`, to put in front of the
            /// key map ([`FILTER_SPREAD`]), when the budget has room for them.
            fn key_bits(&mut self, min: i64, max: i64, keys: u128) -> Option<KeyBits> {
                if keys == 0 || span(min, max) > keys * FILTER_SPREAD {
                    return None;
                }
                let bytes = span(min, max).div_ceil(64) as u64 * 8;
                self.mem.grow(bytes).then(|| {
                    key_bits(self.int_keys(), min, max)
                })
            }

            /// The keys in the map, widened to `i64`.
            fn int_keys(&self) -> impl Iterator<Item = i64> + '_ {
                self.table.keys().map(|&(k,)| i64::from(k))
            }

            /// Whether the key map may have `key`: `false` when the filter
            /// in front of it says it has not.
            #[inline]
            fn passes_filter(&self, key: &($t,)) -> bool {
                self.filter.as_ref().is_none_or(|f| f.contains(i64::from(key.0)))
            }

            /// The rows with `key` ([`index_dense_ints`](Self::index_dense_ints)).
            #[inline]
            pub fn probe_int(&self, key: &($t,)) -> Matches<'_, B> {
                match &self.dense {
                    Some(dense) => self.table.rows_from(dense.row_of(i64::from(key.0))),
                    None if !self.passes_filter(key) => self.table.rows_from(u32::MAX),
                    None => self.table.probe(key),
                }
            }

            /// How many build rows have `key`.
            #[inline]
            pub fn count_int(&self, key: &($t,)) -> usize {
                match &self.bits {
                    Some(bits) => usize::from(bits.contains(i64::from(key.0))),
                    None if !self.passes_filter(key) => 0,
                    None => self.table.probe(key).count(),
                }
            }
        }
    )*};
}
int_keys!(i32, i64);

impl<K: Hash + Eq, B> Default for BuildTable<K, B> {
    fn default() -> Self {
        BuildTable {
            table: JoinTable::new(),
            mem: Reservation::default(),
            dir: None,
            spilled: Mutex::new(None),
            partitioned: false,
            bits: None,
            dense: None,
            filter: None,
        }
    }
}

impl<K: Hash + Eq + Clone + Spill, B: Spill> BuildTable<K, B> {
    pub fn new(pool: &Arc<MemoryPool>, dir: &Arc<SpillDir>) -> Self {
        BuildTable {
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

    fn dir(&self) -> Result<&SpillDir> {
        self.dir
            .as_deref()
            .ok_or_else(|| Error::new("internal: a join table without a spill folder spilled"))
    }

    pub fn insert(&mut self, key: K, row: B) -> Result<()> {
        if !self.partitioned {
            if self.mem.grow(build_row_size::<K, B>(&row)) {
                self.table.insert(key, row);
                return Ok(());
            }
            self.partition()?;
        }
        self.push_partitioned(key, row)
    }

    /// A build row of a semi or anti join without a residual: only whether
    /// its key exists matters, so a row whose key is in memory already is
    /// dropped (a partitioned build keeps every row).
    pub fn insert_first(&mut self, key: K, row: B) -> Result<()> {
        self.insert_through(key, row, |table, key, row, mem| {
            table.insert_first(key, row, |row| mem.grow(build_row_size::<K, B>(row)))
        })
    }

    /// A build row of a semi or anti join whose residual is `probe.x <>
    /// build.y` (`same` compares two rows' `y`): at most two rows with
    /// distinct `y` per key are kept in memory ([`JoinTable::insert_two_distinct`];
    /// a partitioned build keeps every row).
    pub fn insert_two_distinct(
        &mut self,
        key: K,
        row: B,
        same: impl FnOnce(&B, &B) -> bool,
    ) -> Result<()> {
        self.insert_through(key, row, |table, key, row, mem| {
            table.insert_two_distinct(key, row, same, |row| mem.grow(build_row_size::<K, B>(row)))
        })
    }

    /// Inserts by `insert` (which keeps or drops the row, or gives it back
    /// when the budget has no room for it: then the table partitions and
    /// the row goes to its partition), or straight to its partition once
    /// the table is partitioned.
    fn insert_through(
        &mut self,
        key: K,
        row: B,
        insert: impl FnOnce(&mut JoinTable<K, B>, K, B, &mut Reservation) -> Option<(K, B)>,
    ) -> Result<()> {
        if !self.partitioned {
            match insert(&mut self.table, key, row, &mut self.mem) {
                None => return Ok(()),
                Some((key, row)) => {
                    self.partition()?;
                    return self.push_partitioned(key, row);
                }
            }
        }
        self.push_partitioned(key, row)
    }

    /// A keyed row of a partitioned build, to its partition's file.
    fn push_partitioned(&mut self, key: K, row: B) -> Result<()> {
        let dir = Arc::clone(self.dir.as_ref().expect("partitioned tables have a folder"));
        let spilled = self.spilled.get_mut().expect("not poisoned");
        let s = spilled.as_mut().expect("partitioned");
        let part = partition(&key, 0);
        s.parts.parts[part].push(&dir, &(key, row))
    }

    /// A build row whose key has a NULL: it matches nothing.
    pub fn insert_unmatchable(&mut self, row: B) -> Result<()> {
        if !self.partitioned {
            if self.mem.grow(build_row_size::<K, B>(&row)) {
                self.table.insert_unmatchable(row);
                return Ok(());
            }
            self.partition()?;
        }
        let dir = Arc::clone(self.dir.as_ref().expect("partitioned tables have a folder"));
        let spilled = self.spilled.get_mut().expect("not poisoned");
        let s = spilled.as_mut().expect("partitioned");
        s.unmatchable.push(&dir, &row)
    }

    /// Moves the rows in memory to partition files; every later row goes there too.
    fn partition(&mut self) -> Result<()> {
        let dir =
            Arc::clone(self.dir.as_ref().ok_or_else(|| {
                Error::new("internal: a join table without a spill folder spilled")
            })?);
        let (keyed, unmatchable) = std::mem::take(&mut self.table).into_parts();
        let spilled = self.spilled.get_mut().expect("not poisoned");
        let s = spilled.get_or_insert_with(|| Spilled {
            parts: Partitions::new(),
            unmatchable: PartFile::new(),
        });
        for (key, row) in keyed {
            let part = partition(&key, 0);
            s.parts.parts[part].push(&dir, &(key, row))?;
        }
        for row in unmatchable {
            s.unmatchable.push(&dir, &row)?;
        }
        self.mem.reset();
        self.partitioned = true;
        Ok(())
    }

    /// Folds another thread's build into this one: two in-memory tables
    /// merge (while the budget holds them), otherwise both end partitioned.
    pub fn merge(&mut self, mut other: Self) -> Result<()> {
        if self.dir.is_none() {
            self.dir = other.dir.clone();
        }
        if !self.partitioned && !other.partitioned {
            self.table.merge(std::mem::take(&mut other.table));
            self.mem.absorb(std::mem::take(&mut other.mem));
            return Ok(());
        }
        if !self.partitioned {
            self.partition()?;
        }
        if !other.partitioned {
            other.partition()?;
        }
        let dir = Arc::clone(self.dir.as_ref().expect("partitioned tables have a folder"));
        let theirs = other.spilled.get_mut().expect("not poisoned").take();
        let mine = self.spilled.get_mut().expect("not poisoned");
        if let (Some(mine), Some(theirs)) = (mine.as_mut(), theirs) {
            mine.parts.absorb(&dir, theirs.parts)?;
            mine.unmatchable.absorb(&dir, theirs.unmatchable)?;
        }
        Ok(())
    }

    /// Links the keys the in-memory table has pending ([`JoinTable::flush`]):
    /// the generated program calls it when the build is complete, before
    /// the table moves to `Built` to be probed.
    pub fn drain(&mut self) {
        self.table.flush();
    }

    /// Whether the build went to disk: then probe rows go to a [`ProbeSpill`].
    #[inline]
    pub fn is_partitioned(&self) -> bool {
        self.partitioned
    }

    /// The partition a probe row with this (non-NULL) key goes to.
    #[inline]
    pub fn partition_of(&self, key: &K) -> usize {
        partition(key, 0)
    }

    /// Rows matching `key` in the in-memory table.
    #[inline]
    pub fn probe<'a, Q>(&'a self, key: &Q) -> Matches<'a, B>
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.table.probe(key)
    }

    /// Rows in the in-memory table (none once partitioned).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// In-memory build rows never marked in `matched` (B-side outer joins).
    pub fn unmatched<'a>(&'a self, matched: &'a MatchedRows) -> impl Iterator<Item = &'a B> + 'a {
        self.table.unmatched(matched)
    }

    /// Joins a partitioned build with the probe rows that waited for it,
    /// one partition pair at a time on each of up to `threads` threads, each
    /// with its own context from `make_cx(thread)` (returned in thread
    /// order, to be folded into the caller's): `on_probe` gets each probe row
    /// with the hash table of its partition and that table's matched-row
    /// marks; `on_unmatched` (B-side outer joins, `outer_build`) gets every
    /// build row no probe row matched, the NULL-keyed ones included. Does
    /// nothing, and returns no context, for a build that stayed in memory.
    #[allow(clippy::too_many_arguments)]
    pub fn join_spilled<C, L>(
        &self,
        threads: usize,
        probe: ProbeSpill<L>,
        outer_build: bool,
        make_cx: impl Fn(usize) -> Result<C> + Sync,
        probe_key: impl Fn(&L) -> K + Sync,
        on_probe: impl Fn(&mut C, &JoinTable<K, B>, &mut MatchedRows, &L) -> Result<()> + Sync,
        on_unmatched: impl Fn(&mut C, &B) -> Result<()> + Sync,
    ) -> Result<Vec<C>>
    where
        C: Send,
        K: Send + Sync,
        B: Send + Sync,
        L: Spill + Send,
    {
        let Some(spilled) = self.spilled.lock().expect("not poisoned").take() else {
            return Ok(Vec::new());
        };
        let dir = self.dir()?;
        let probe_parts = probe.parts.unwrap_or_else(Partitions::new);
        // Each piece of work is taken (moved out) by the thread that runs it.
        let mut work: Vec<Mutex<Option<Work<K, B, L>>>> = spilled
            .parts
            .parts
            .into_iter()
            .zip(probe_parts.parts)
            .map(|(b, p)| Mutex::new(Some(Work::Pair(b, p))))
            .collect();
        if outer_build {
            work.push(Mutex::new(Some(Work::Unmatchable(spilled.unmatchable))));
        }
        let states = super::parallel::for_each_parallel(&work, threads, make_cx, |cx, _, item| {
            let cx = cx
                .as_mut()
                .map_err(|e| Error::new(e.message().to_string()))?;
            let taken = item.lock().expect("not poisoned").take();
            match taken {
                Some(Work::Pair(b, p)) => {
                    let (mut op, mut ou) = (&on_probe, &on_unmatched);
                    let mut join = PartitionJoin {
                        dir,
                        mem: self.mem.sibling(),
                        outer_build,
                        probe_key: &probe_key,
                        on_probe: &mut op,
                        on_unmatched: &mut ou,
                        _types: PhantomData,
                    };
                    join.run(cx, 0, b, p)
                }
                Some(Work::Unmatchable(rows)) => rows.drain(|row| on_unmatched(cx, &row)),
                None => Ok(()),
            }
        })?;
        states.into_iter().collect()
    }
}

/// One piece of a partitioned join: a pair of partitions, or an outer
/// build's rows with a NULL key.
enum Work<K, B, L> {
    Pair(PartFile<(K, B)>, PartFile<L>),
    Unmatchable(PartFile<B>),
}

/// The pairwise join of partitions, with what it needs to split them again.
struct PartitionJoin<'a, K, B, L, C, PK, OP, OU> {
    dir: &'a SpillDir,
    mem: Reservation,
    outer_build: bool,
    probe_key: &'a PK,
    on_probe: &'a mut OP,
    on_unmatched: &'a mut OU,
    #[allow(clippy::type_complexity)]
    _types: PhantomData<fn(K, B, L, C)>,
}

impl<K, B, L, C, PK, OP, OU> PartitionJoin<'_, K, B, L, C, PK, OP, OU>
where
    K: Hash + Eq + Clone + Spill,
    B: Spill,
    L: Spill,
    PK: Fn(&L) -> K,
    OP: FnMut(&mut C, &JoinTable<K, B>, &mut MatchedRows, &L) -> Result<()>,
    OU: FnMut(&mut C, &B) -> Result<()>,
{
    fn run(
        &mut self,
        cx: &mut C,
        level: u32,
        build: PartFile<(K, B)>,
        probe: PartFile<L>,
    ) -> Result<()> {
        if probe.is_empty() && !self.outer_build {
            return Ok(()); // nothing can match; the build rows are not output
        }
        let mut table = JoinTable::new();
        let mut rest: Option<PartFile<(K, B)>> = None;
        build.drain(|keyed| {
            if let Some(rest) = rest.as_mut() {
                return rest.push(self.dir, &keyed);
            }
            let fits = self.mem.grow(build_row_size::<K, B>(&keyed.1));
            if fits || level >= MAX_LEVEL {
                table.insert(keyed.0, keyed.1);
                Ok(())
            } else {
                // The partition is too big: keep the rest apart and split it all.
                let mut r = PartFile::new();
                r.push(self.dir, &keyed)?;
                rest = Some(r);
                Ok(())
            }
        })?;
        if let Some(rest) = rest {
            return self.split(cx, level, table, rest, probe);
        }
        table.flush();
        let mut matched = MatchedRows::new(if self.outer_build { table.len() } else { 0 });
        probe.drain(|row| (self.on_probe)(cx, &table, &mut matched, &row))?;
        if self.outer_build {
            for row in table.unmatched(&matched) {
                (self.on_unmatched)(cx, row)?;
            }
        }
        drop(table);
        self.mem.reset();
        Ok(())
    }

    /// Splits a partition that does not fit (the rows loaded so far and the
    /// rest) with the next level's hash, and joins the pieces.
    fn split(
        &mut self,
        cx: &mut C,
        level: u32,
        loaded: JoinTable<K, B>,
        rest: PartFile<(K, B)>,
        probe: PartFile<L>,
    ) -> Result<()> {
        let next = level + 1;
        let mut builds: Partitions<(K, B)> = Partitions::new();
        let (keyed, _) = loaded.into_parts();
        for keyed in keyed {
            builds.parts[partition(&keyed.0, next)].push(self.dir, &keyed)?;
        }
        self.mem.reset();
        rest.drain(|keyed| builds.parts[partition(&keyed.0, next)].push(self.dir, &keyed))?;
        let mut probes: Partitions<L> = Partitions::new();
        probe.drain(|row| {
            probes.parts[partition(&(self.probe_key)(&row), next)].push(self.dir, &row)
        })?;
        for (b, p) in builds.parts.into_iter().zip(probes.parts) {
            self.run(cx, next, b, p)?;
        }
        Ok(())
    }
}

/// The probe rows of a partitioned build, by partition, per thread.
pub struct ProbeSpill<L> {
    dir: Option<Arc<SpillDir>>,
    parts: Option<Partitions<L>>,
}

impl<L> Default for ProbeSpill<L> {
    fn default() -> Self {
        ProbeSpill {
            dir: None,
            parts: None,
        }
    }
}

impl<L: Spill> ProbeSpill<L> {
    pub fn new(dir: &Arc<SpillDir>) -> Self {
        ProbeSpill {
            dir: Some(Arc::clone(dir)),
            parts: None,
        }
    }

    pub fn push(&mut self, partition: usize, row: &L) -> Result<()> {
        let dir = self
            .dir
            .as_deref()
            .ok_or_else(|| Error::new("internal: a probe spill without a folder"))?;
        self.parts.get_or_insert_with(Partitions::new).parts[partition].push(dir, row)
    }

    /// Takes in another thread's probe rows.
    pub fn absorb(&mut self, other: ProbeSpill<L>) -> Result<()> {
        if self.dir.is_none() {
            self.dir = other.dir.clone();
        }
        let Some(theirs) = other.parts else {
            return Ok(());
        };
        match self.parts.as_mut() {
            None => self.parts = Some(theirs),
            Some(mine) => {
                let dir = self.dir.as_deref().expect("a spill with rows has a folder");
                mine.absorb(dir, theirs)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> (PathBuf, Arc<SpillDir>) {
        let base = std::env::temp_dir().join(format!("stmtc-grace-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let dir = Arc::new(SpillDir::at(base.clone()).with_budget(1 << 10));
        (base, dir)
    }

    /// Build rows (key, payload): key `i % keys`, or no key every 50th row.
    fn build(
        pool: &Arc<MemoryPool>,
        dir: &Arc<SpillDir>,
        rows: i64,
        keys: i64,
    ) -> BuildTable<i64, (i64, i64)> {
        // Two "threads", merged, as the generated code does.
        let mut a = BuildTable::new(pool, dir);
        let mut b = BuildTable::new(pool, dir);
        for i in 0..rows {
            let t = if i % 2 == 0 { &mut a } else { &mut b };
            if i % 50 == 7 {
                t.insert_unmatchable((-1, i)).unwrap();
            } else {
                t.insert(i % keys, (i % keys, i)).unwrap();
            }
        }
        a.merge(b).unwrap();
        a
    }

    /// (probe, build) pairs of a RIGHT join of probe keys 0..probes against
    /// the build, and the unmatched build rows, via the partitioned path or
    /// the in-memory path.
    fn right_join(t: &BuildTable<i64, (i64, i64)>, probes: i64) -> (Vec<(i64, i64)>, Vec<i64>) {
        let mut pairs = Vec::new();
        let mut unmatched = Vec::new();
        if t.is_partitioned() {
            let mut spill = ProbeSpill::new(t.dir.as_ref().unwrap());
            for p in 0..probes {
                spill.push(t.partition_of(&p), &(p, 0i64)).unwrap();
            }
            // Two threads, each with its own (pairs, unmatched) context.
            let contexts = t
                .join_spilled(
                    2,
                    spill,
                    true,
                    |_| Ok((Vec::new(), Vec::new())),
                    |l: &(i64, i64)| l.0,
                    |cx: &mut (Vec<(i64, i64)>, Vec<i64>), table, matched, l| {
                        for (i, r) in table.probe(&l.0) {
                            matched.set(i);
                            cx.0.push((l.0, r.1));
                        }
                        Ok(())
                    },
                    |cx, r| {
                        cx.1.push(r.1);
                        Ok(())
                    },
                )
                .unwrap();
            for (p, u) in contexts {
                pairs.extend(p);
                unmatched.extend(u);
            }
        } else {
            let mut m = MatchedRows::new(t.len());
            for p in 0..probes {
                for (i, r) in t.probe(&p) {
                    m.set(i);
                    pairs.push((p, r.1));
                }
            }
            unmatched.extend(t.unmatched(&m).map(|r| r.1));
        }
        pairs.sort();
        unmatched.sort();
        (pairs, unmatched)
    }

    #[test]
    fn a_partitioned_build_joins_like_an_in_memory_one_and_cleans_up() {
        let (base, d) = dir("join");
        let big = MemoryPool::new(1 << 30);
        let want = right_join(&build(&big, &d, 5000, 700), 500);
        assert!(!want.0.is_empty() && !want.1.is_empty());
        // 8 KiB holds a few hundred rows: the build partitions.
        let tiny = MemoryPool::new(8 << 10);
        {
            let t = build(&tiny, &d, 5000, 700);
            assert!(t.is_partitioned());
            assert_eq!(right_join(&t, 500), want);
        }
        // A single key with more rows than the budget: split to MAX_LEVEL, loaded anyway.
        let want = right_join(&build(&big, &d, 3000, 1), 3);
        let t = build(&tiny, &d, 3000, 1);
        assert!(t.is_partitioned());
        assert_eq!(right_join(&t, 3), want);
        assert!(tiny.peak() <= 8 << 10);
        assert!(d.written.load(std::sync::atomic::Ordering::Relaxed) > 0);
        drop((t, d));
        let left: Vec<_> = std::fs::read_dir(&base).unwrap().collect();
        assert!(left.is_empty(), "spill folders left behind: {left:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn partition_files_read_back_every_row_in_order() {
        let (base, d) = dir("files");
        let mut a: PartFile<(i64, Option<crate::value::Str>)> = PartFile::new();
        let mut b = PartFile::new();
        for i in 0..20_000i64 {
            let row = (
                i,
                (i % 3 == 0)
                    .then(|| crate::value::Str::from("x".repeat((i % 40) as usize).as_str())),
            );
            if i < 10_000 {
                a.push(&d, &row)
            } else {
                b.push(&d, &row)
            }
            .unwrap();
        }
        b.absorb(&d, a).unwrap();
        let mut seen = Vec::new();
        b.drain(|r| {
            seen.push(r.0);
            Ok(())
        })
        .unwrap();
        let want: Vec<i64> = (0..20_000).collect();
        assert_eq!(
            seen, want,
            "the absorbed file first, then ours, each in order"
        );
        drop(d);
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A complete build of `rows`, each added by `insert`, then `index`ed
    /// as the generated program does when it seals the build.
    fn sealed<K, B>(
        pool: &Arc<MemoryPool>,
        dir: &Arc<SpillDir>,
        rows: impl IntoIterator<Item = (K, B)>,
        insert: fn(&mut BuildTable<K, B>, K, B) -> Result<()>,
        index: fn(&mut BuildTable<K, B>),
    ) -> BuildTable<K, B>
    where
        K: Hash + Eq + Clone + Spill,
        B: Spill,
    {
        let mut t = BuildTable::new(pool, dir);
        for (k, r) in rows {
            insert(&mut t, k, r).unwrap();
        }
        t.drain();
        index(&mut t);
        t
    }

    /// An inner join's build that only counts rows per key: unique keys
    /// become bits, a key twice keeps the table (and both rows count).
    #[test]
    fn unique_integer_keys_become_bits_and_repeated_ones_count() {
        let (base, dir) = dir("unique-bits");
        let pool = MemoryPool::new(1 << 30);
        let table = |keys: &[i32]| {
            let rows = keys.iter().map(|&k| ((k,), ()));
            sealed(
                &pool,
                &dir,
                rows,
                BuildTable::insert,
                BuildTable::<(i32,), ()>::index_unique_ints,
            )
        };
        let keys: Vec<i32> = (0..2000).map(|k| k * 5 - 17).collect();
        let t = table(&keys);
        assert!(t.bits.is_some() && t.is_empty());
        for k in -40..10_100 {
            assert_eq!(t.count_int(&(k,)), usize::from(keys.contains(&k)), "{k}");
        }
        // One key twice: the probe must emit its row twice.
        let mut twice = keys.clone();
        twice.push(33);
        let t = table(&twice);
        assert!(t.bits.is_none() && t.filter.is_some());
        for k in -40..10_100 {
            let want = keys.contains(&k) as usize + usize::from(k == 33);
            assert_eq!(t.count_int(&(k,)), want, "{k}");
        }
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn unique_keys_over_a_dense_range_find_their_rows_by_offset() {
        let (base, dir) = dir("dense-rows");
        let pool = MemoryPool::new(1 << 30);
        let table = |keys: &[i64]| {
            let rows = keys.iter().map(|&k| ((k,), k * 100));
            sealed(
                &pool,
                &dir,
                rows,
                BuildTable::insert,
                BuildTable::<(i64,), i64>::index_dense_ints,
            )
        };
        let rows = |t: &BuildTable<(i64,), i64>, k: i64| -> Vec<i64> {
            t.probe_int(&(k,)).map(|(_, r)| *r).collect()
        };
        // Keys 3 apart from -31: the range is 3 times their number.
        let keys: Vec<i64> = (0..3000).map(|k| k * 3 - 31).collect();
        let t = table(&keys);
        assert!(t.dense.is_some());
        for k in -100..9_100 {
            let want = if keys.contains(&k) {
                vec![k * 100]
            } else {
                vec![]
            };
            assert_eq!(rows(&t, k), want, "{k}");
        }
        assert!(rows(&t, i64::MIN).is_empty() && rows(&t, i64::MAX).is_empty());
        // A key twice keeps the map and both rows.
        let mut twice = keys.clone();
        twice.push(-28);
        let t = table(&twice);
        assert!(t.dense.is_none() && t.filter.is_some());
        assert_eq!(rows(&t, -28), vec![-2_800, -2_800]);
        assert!(rows(&t, -27).is_empty() && rows(&t, -32).is_empty());
        // Keys 5 apart: too sparse for offsets, hashed behind their bits.
        let sparse: Vec<i64> = (0..3000).map(|k| k * 5).collect();
        let t = table(&sparse);
        assert!(t.dense.is_none() && t.filter.is_some());
        for k in -10..15_010 {
            let want = if k % 5 == 0 && (0..15_000).contains(&k) {
                vec![k * 100]
            } else {
                vec![]
            };
            assert_eq!(rows(&t, k), want, "{k}");
        }
        assert!(rows(&t, i64::MIN).is_empty() && rows(&t, i64::MAX).is_empty());
        // Keys 1000 apart: too spread out for bits, the map alone.
        let t = table(&(0..100).map(|k| k * 1000).collect::<Vec<_>>());
        assert!(t.dense.is_none() && t.filter.is_none());
        assert_eq!(rows(&t, 7000), vec![700_000]);
        assert!(rows(&t, 7001).is_empty());
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn dense_integer_keys_become_bits_and_sparse_ones_stay_hashed() {
        let (base, dir) = dir("bits");
        let pool = MemoryPool::new(1 << 30);
        let table = |keys: &[i64]| {
            let rows = keys.iter().map(|&k| ((k,), ()));
            sealed(
                &pool,
                &dir,
                rows,
                BuildTable::insert_first,
                BuildTable::<(i64,), ()>::index_ints,
            )
        };
        // Every third key of a range (negative ones too): bits.
        let keys: Vec<i64> = (-300..3000).filter(|k| k % 3 == 0).collect();
        let t = table(&keys);
        assert!(t.bits.is_some());
        assert!(t.is_empty(), "the hash table is dropped");
        for k in -400..3100 {
            assert_eq!(t.contains_int(&(k,)), keys.contains(&k), "{k}");
        }
        assert!(!t.contains_int(&(i64::MIN,)) && !t.contains_int(&(i64::MAX,)));
        // Keys 200 apart: still bits (32 bytes a key at most).
        let keys: Vec<i64> = (0..500).map(|k| k * 200 + 7).collect();
        let t = table(&keys);
        assert!(t.bits.is_some() && t.is_empty());
        for k in 0..100_200 {
            assert_eq!(t.contains_int(&(k,)), keys.contains(&k), "{k}");
        }
        // Two keys far apart: the range is too wide, the table stays.
        let t = table(&[i64::MIN, i64::MAX]);
        assert!(t.bits.is_none() && t.filter.is_none());
        assert!(t.contains_int(&(i64::MIN,)) && t.contains_int(&(i64::MAX,)));
        assert!(!t.contains_int(&(0,)));
        // No keys: nothing to index, nothing found.
        let t = table(&[]);
        assert!(t.bits.is_none() && !t.contains_int(&(0,)));
        // A build that went to disk is probed by partitions: left as it is.
        let tiny = MemoryPool::new(8 << 10);
        let mut t: BuildTable<(i64,), ()> = BuildTable::new(&tiny, &dir);
        for k in 0..10_000 {
            t.insert_first((k,), ()).unwrap();
        }
        t.drain();
        t.index_ints();
        assert!(t.is_partitioned() && t.bits.is_none());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
