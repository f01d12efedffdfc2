//! Hash join: the planner picks the build side; the runtime builds a flat
//! multimap (rows in runs of consecutive indices, one `Vec` per thread's
//! build once merged, per-key chains of indices, insertion order kept) and
//! probes it from any number of threads.
//!
//! Join kinds map to calls as follows (build = B, probe = P):
//! - inner: for each P row, emit a row per match;
//! - P-side outer (LEFT JOIN with the right side built): emit P with NULLs when
//!   `probe` finds nothing;
//! - B-side outer (RIGHT JOIN with the right side built): mark matches in a
//!   per-thread [`MatchedRows`], merge them, then emit [`JoinTable::unmatched`]
//!   with NULLs for the probe side;
//! - full: both of the above.
//!
//! SQL keys containing NULL never match: the caller passes such build rows to
//! [`JoinTable::insert_unmatchable`] (kept only for outer output) and skips
//! probing for such probe rows.

use crate::util::{fast_map, FastMap, FastState};
use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};

const NONE: u32 = u32::MAX;

/// Shards of a table's key map: each grows (and is merged) apart, so that
/// growing or merging a large build never holds a second copy of all its
/// keys, only of one shard's (see [`GroupMap`](super::group_map)).
const SHARDS: usize = 16;

/// The shard of `key`: bits 48..52 of the hash its shard's map computes
/// again, bits the map itself does not use (it takes its slot from the low
/// bits and its control byte from the top seven).
#[inline(always)]
fn shard_of<Q: Hash + ?Sized>(key: &Q) -> usize {
    (FastState::default().hash_one(key) >> 48) as usize % SHARDS
}

/// Keys a build collects before it links them into their chains, one batch
/// in a tight loop ([`JoinTable::flush`]). Each link looks up a random
/// place in a map larger than the cache; inserted one per row, between the
/// rest of the row's work, each waited for memory alone, while a batch's
/// independent lookups overlap their waits.
pub const BUILD_BATCH: usize = 32;

pub struct JoinTable<K, B> {
    rows: Segments<B>,
    /// Each row's successor in its key's chain, `NONE` at a chain's end;
    /// empty until some key has a second row, and shorter than `rows` by
    /// rows with no successor after it (a table of unique keys, a build of
    /// orders by key, has none: 4 bytes a row saved).
    next: Vec<u32>,
    /// key → (first, last) row index of its chain, in [`shard_of`] the key.
    heads: [FastMap<K, (u32, u32)>; SHARDS],
    /// Rows in `rows` whose keys are not linked into `heads` yet, in
    /// insertion order (at most [`BUILD_BATCH`]; empty after `flush`).
    pending: Vec<(K, u32)>,
}

impl<K: Hash + Eq, B> Default for JoinTable<K, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Hash + Eq, B> JoinTable<K, B> {
    pub fn new() -> Self {
        JoinTable {
            rows: Segments::new(),
            next: Vec::new(),
            heads: std::array::from_fn(|_| fast_map()),
            pending: Vec::new(),
        }
    }

    /// Appends `row`; its key is linked into its chain with the next batch
    /// ([`BUILD_BATCH`]). Chains keep insertion order: batches link in order.
    #[inline]
    pub fn insert(&mut self, key: K, row: B) {
        let idx = self.rows.len() as u32;
        self.rows.push(row);
        if self.pending.capacity() == 0 {
            self.pending.reserve_exact(BUILD_BATCH);
        }
        self.pending.push((key, idx));
        if self.pending.len() >= BUILD_BATCH {
            self.flush();
        }
    }

    /// Links the pending keys into their chains: when a batch is full, and
    /// before the table is merged or taken apart; the generated program
    /// flushes the complete build (`BuildTable::drain`) before probing it.
    #[inline(never)]
    pub fn flush(&mut self) {
        for (key, idx) in self.pending.drain(..) {
            // One hash and probe per row (a lookup then an insert hashed a
            // new key twice); the key is owned, so the entry costs no clone.
            match self.heads[shard_of(&key)].entry(key) {
                std::collections::hash_map::Entry::Occupied(mut heads) => {
                    let last = &mut heads.get_mut().1;
                    link(&mut self.next, *last, idx);
                    *last = idx;
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert((idx, idx));
                }
            }
        }
    }

    /// Whether keys wait to be linked (a table probed now would miss them).
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Inserts `row` only if no row has `key` yet and `fits(&row)` says
    /// there is room: for semi and anti joins without a residual, which ask
    /// only whether a key exists. Gives the key and row back when they did
    /// not fit.
    pub fn insert_first(
        &mut self,
        key: K,
        row: B,
        fits: impl FnOnce(&B) -> bool,
    ) -> Option<(K, B)> {
        if self.has_pending() {
            self.flush();
        }
        match self.heads[shard_of(&key)].entry(key) {
            std::collections::hash_map::Entry::Occupied(_) => None,
            std::collections::hash_map::Entry::Vacant(slot) => {
                if !fits(&row) {
                    return Some((slot.into_key(), row));
                }
                slot.insert(Self::push_row(&mut self.rows, row));
                None
            }
        }
    }

    /// Inserts `row` unless its key has two rows already, or one that is
    /// `same` as it; gives the key and row back when `fits(&row)` says there
    /// is no room. For a semi or anti join whose residual is `probe.x <>
    /// build.y`: a probe row's value differs from one of two distinct
    /// values, so two rows per key with distinct `y` answer it as all of
    /// them would (q21 of TPC-H: 6M build rows become at most 3M).
    pub fn insert_two_distinct(
        &mut self,
        key: K,
        row: B,
        same: impl FnOnce(&B, &B) -> bool,
        fits: impl FnOnce(&B) -> bool,
    ) -> Option<(K, B)>
    where
        K: Clone,
    {
        if self.has_pending() {
            self.flush();
        }
        match self.heads[shard_of(&key)].entry(key) {
            std::collections::hash_map::Entry::Occupied(mut chain) => {
                let (first, last) = *chain.get();
                if first != last || same(self.rows.get(first as usize), &row) {
                    return None;
                }
                if !fits(&row) {
                    return Some((chain.key().clone(), row));
                }
                let (idx, _) = Self::push_row(&mut self.rows, row);
                link(&mut self.next, last, idx);
                chain.get_mut().1 = idx;
                None
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                if !fits(&row) {
                    return Some((slot.into_key(), row));
                }
                slot.insert(Self::push_row(&mut self.rows, row));
                None
            }
        }
    }

    /// Appends a row that starts or ends a chain: its index as the chain's
    /// (first, last) when it is the only row.
    fn push_row(rows: &mut Segments<B>, row: B) -> (u32, u32) {
        let idx = rows.len() as u32;
        rows.push(row);
        (idx, idx)
    }

    /// A build row whose key has a NULL: it matches nothing.
    pub fn insert_unmatchable(&mut self, row: B) {
        self.rows.push(row);
    }

    /// Appends another (per-thread) build table; each key's rows keep their
    /// order (this table's, then `other`'s).
    ///
    /// `other`'s rows stay where they are, as runs after this table's
    /// (their indices follow this table's), their `next` links shifted by
    /// the offset, and each of its keys costs one lookup here: joining a
    /// key's chain to this table's is one link. (Rebuilding the chains row
    /// by row took 3 of the 13 s of the TPC-H set at SF 1, on one thread
    /// after the parallel builds; moving the rows, another 0.3 s.)
    pub fn merge(&mut self, mut other: Self) {
        self.flush();
        other.flush();
        if self.rows.len() == 0 {
            // The first partial folded into an empty table: take it whole.
            *self = other;
            return;
        }
        let JoinTable {
            rows, next, heads, ..
        } = other;
        let offset = u32::try_from(self.rows.len())
            .ok()
            .filter(|_| self.rows.len() + rows.len() < NONE as usize)
            .expect("a join build of more than 4 billion rows");
        self.rows.append(rows, offset);
        if !next.is_empty() {
            self.next.resize(offset as usize, NONE);
            self.next.extend(
                next.into_iter()
                    .map(|n| if n == NONE { NONE } else { n + offset }),
            );
        }
        // Shard by shard, each of `other`'s freed once linked in.
        for (mine, theirs) in self.heads.iter_mut().zip(heads) {
            mine.reserve(theirs.len());
            for (key, (first, last)) in theirs {
                let (first, last) = (first + offset, last + offset);
                match mine.entry(key) {
                    std::collections::hash_map::Entry::Occupied(mut chain) => {
                        let (_, old_last) = chain.get_mut();
                        link(&mut self.next, *old_last, first);
                        *old_last = last;
                    }
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert((first, last));
                    }
                }
            }
        }
    }

    /// Takes the table apart: every keyed row with its key (each key's rows in
    /// insertion order), then the rows without a key (`insert_unmatchable`).
    pub fn into_parts(mut self) -> (Vec<(K, B)>, Vec<B>)
    where
        K: Clone,
    {
        self.flush();
        let JoinTable {
            rows, next, heads, ..
        } = self;
        let mut rows: Vec<Option<B>> = rows.segs.into_iter().flatten().map(Some).collect();
        let mut keyed = Vec::with_capacity(rows.len());
        for (key, (first, _)) in heads.into_iter().flatten() {
            let mut i = first;
            loop {
                if let Some(row) = rows[i as usize].take() {
                    keyed.push((key.clone(), row));
                }
                i = next.get(i as usize).copied().unwrap_or(NONE);
                if i == NONE {
                    break;
                }
            }
        }
        (keyed, rows.into_iter().flatten().collect())
    }

    /// Rows matching `key`, in insertion order, with their indices.
    #[inline]
    pub fn probe<'a, Q>(&'a self, key: &Q) -> Matches<'a, B>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        // Internal: a probe before the flush would miss rows silently.
        assert!(
            !self.has_pending(),
            "internal: a join table probed before its flush"
        );
        let (first, last) = self.heads[shard_of(key)]
            .get(key)
            .copied()
            .unwrap_or((NONE, NONE));
        Matches {
            table_rows: &self.rows,
            next: &self.next,
            cur: first,
            last,
        }
    }

    /// The rows of the chain that starts at row `first` and has one row
    /// (a table of unique keys; `NONE`: no rows).
    #[inline]
    pub(crate) fn rows_from(&self, first: u32) -> Matches<'_, B> {
        Matches {
            table_rows: &self.rows,
            next: &self.next,
            cur: first,
            last: first,
        }
    }

    /// Each linked key with the index of its first row.
    pub(crate) fn firsts(&self) -> impl Iterator<Item = (&K, u32)> + '_ {
        self.heads
            .iter()
            .flat_map(|h| h.iter().map(|(k, &(first, _))| (k, first)))
    }

    /// Drops the key map (the rows stay), once an index over the keys has
    /// replaced it: the table then finds no key by [`JoinTable::probe`].
    pub(crate) fn drop_keys(&mut self) {
        self.heads = std::array::from_fn(|_| fast_map());
    }

    /// The keys linked so far (every key once [`JoinTable::flush`]ed).
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.heads.iter().flat_map(|h| h.keys())
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// How many distinct keys the linked rows have.
    pub fn key_count(&self) -> usize {
        self.heads.iter().map(|h| h.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.len() == 0
    }

    /// Build rows never marked in `matched` (B-side outer joins).
    pub fn unmatched<'a>(&'a self, matched: &'a MatchedRows) -> impl Iterator<Item = &'a B> + 'a {
        self.rows
            .segs
            .iter()
            .flatten()
            .enumerate()
            .filter(move |(i, _)| !matched.get(*i))
            .map(|(_, r)| r)
    }
}

/// Makes row `to` follow row `from` in its chain, growing `next` to reach
/// `from` (rows past its end have no successor).
#[inline]
fn link(next: &mut Vec<u32>, from: u32, to: u32) {
    let from = from as usize;
    if next.len() <= from {
        next.resize(from + 1, NONE);
    }
    next[from] = to;
}

/// A table's rows: consecutive runs of row indices, one `Vec` each, so
/// that a merge appends the other table's runs instead of moving its rows.
/// Every run but the first of an empty table is non-empty, and rows are
/// pushed onto the last.
struct Segments<B> {
    segs: Vec<Vec<B>>,
    /// The index of each run's first row.
    starts: Vec<u32>,
}

impl<B> Segments<B> {
    fn new() -> Self {
        Segments {
            segs: vec![Vec::new()],
            starts: vec![0],
        }
    }

    #[inline]
    fn push(&mut self, row: B) {
        self.segs.last_mut().expect("a run to push onto").push(row);
    }

    /// Rows in all runs: the last run's start plus its length.
    #[inline]
    fn len(&self) -> usize {
        self.starts.last().map_or(0, |&s| s as usize) + self.segs.last().map_or(0, Vec::len)
    }

    #[inline]
    fn get(&self, i: usize) -> &B {
        if let [only] = self.segs.as_slice() {
            return &only[i];
        }
        let s = self.starts.partition_point(|&start| start as usize <= i) - 1;
        &self.segs[s][i - self.starts[s] as usize]
    }

    /// Appends `other`'s runs, their indices starting at `offset` (this
    /// table's length, not empty).
    fn append(&mut self, other: Segments<B>, offset: u32) {
        for (seg, start) in other.segs.into_iter().zip(other.starts) {
            if !seg.is_empty() {
                self.starts.push(start + offset);
                self.segs.push(seg);
            }
        }
    }
}

/// Iterator over the rows of one key.
pub struct Matches<'a, B> {
    table_rows: &'a Segments<B>,
    next: &'a [u32],
    cur: u32,
    /// The chain's last row: reached, the iterator ends without reading
    /// `next` (for a key of one row, the usual case, `next` is not read
    /// at all: one random memory access fewer per probe of a large build).
    last: u32,
}

impl<'a, B> Iterator for Matches<'a, B> {
    type Item = (usize, &'a B);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.cur == NONE {
            return None;
        }
        let i = self.cur as usize;
        self.cur = if self.cur == self.last {
            NONE
        } else {
            self.next[i]
        };
        Some((i, self.table_rows.get(i)))
    }
}

/// A bitset of matched build rows; one per probing thread, OR-merged.
#[derive(Clone, Debug, Default)]
pub struct MatchedRows {
    bits: Vec<u64>,
}

impl MatchedRows {
    pub fn new(rows: usize) -> Self {
        MatchedRows {
            bits: vec![0; rows.div_ceil(64)],
        }
    }
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.bits[i / 64] |= 1 << (i % 64);
    }
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    pub fn merge(&mut self, o: &MatchedRows) {
        for (a, b) in self.bits.iter_mut().zip(&o.bits) {
            *a |= b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_and_outer() {
        let mut t: JoinTable<String, (&str, i32)> = JoinTable::new();
        t.insert("EU".into(), ("EU", 1));
        t.insert("US".into(), ("US", 2));
        t.insert("EU".into(), ("EU", 3));
        t.insert_unmatchable(("?", 4));
        t.flush();
        let got: Vec<_> = t.probe("EU").map(|(_, r)| r.1).collect();
        assert_eq!(got, vec![1, 3]);
        assert_eq!(t.probe("XX").count(), 0);
        let mut m = MatchedRows::new(t.len());
        for (i, _) in t.probe("EU") {
            m.set(i);
        }
        let un: Vec<_> = t.unmatched(&m).map(|r| r.1).collect();
        assert_eq!(un, vec![2, 4]);
    }

    #[test]
    fn chains_link_only_when_a_key_repeats_and_survive_merges() {
        let mut a: JoinTable<i32, i32> = JoinTable::new();
        for k in 0..100 {
            a.insert(k, k * 10);
        }
        a.flush();
        assert!(a.next.is_empty(), "unique keys need no links");
        let mut b: JoinTable<i32, i32> = JoinTable::new();
        for k in 0..100 {
            b.insert(k % 7, 1_000 + k);
        }
        b.flush();
        assert!(!b.next.is_empty());
        let mut c: JoinTable<i32, i32> = JoinTable::new();
        c.insert(3, 5_000);
        a.merge(b);
        a.merge(c);
        let got: Vec<i32> = a.probe(&3).map(|(_, r)| *r).collect();
        let mut want = vec![30];
        want.extend((0..100).filter(|k| k % 7 == 3).map(|k| 1_000 + k));
        want.push(5_000);
        assert_eq!(got, want);
        assert_eq!(a.probe(&99).map(|(_, r)| *r).collect::<Vec<_>>(), vec![990]);
        let (keyed, _) = a.into_parts();
        assert_eq!(keyed.len(), 201);
        let threes: Vec<i32> = keyed
            .iter()
            .filter(|(k, _)| *k == 3)
            .map(|(_, r)| *r)
            .collect();
        assert_eq!(threes, want);
    }

    #[test]
    fn insert_first_keeps_one_row_per_key() {
        let mut t: JoinTable<i32, i32> = JoinTable::new();
        assert_eq!(t.insert_first(1, 10, |_| true), None);
        assert_eq!(t.insert_first(1, 11, |_| true), None);
        assert_eq!(t.insert_first(2, 20, |_| false), Some((2, 20)));
        assert_eq!(t.probe(&1).map(|(_, r)| *r).collect::<Vec<_>>(), vec![10]);
        assert_eq!(t.probe(&2).count(), 0);
        assert_eq!(t.len(), 1);
    }

    /// Two rows with distinct values per key answer `EXISTS (... x <> y)`
    /// for every probe value as all the key's rows do.
    #[test]
    fn two_distinct_rows_answer_an_inequality_as_all_rows_do() {
        let rows: Vec<(i32, i64)> = (0..400)
            .map(|i| (i % 7, (i * 31 % 5) as i64 % (i as i64 % 4 + 1)))
            .collect();
        let mut all: JoinTable<i32, (i32, i64)> = JoinTable::new();
        let mut two: JoinTable<i32, (i32, i64)> = JoinTable::new();
        for (i, &row) in rows.iter().enumerate() {
            all.insert(row.0, row);
            // A table that refuses once, as a full budget does.
            let refused = two.insert_two_distinct(row.0, row, |a, b| a.1 == b.1, |_| i != 3);
            assert_eq!(refused.is_some(), i == 3);
        }
        all.flush();
        for key in 0..8 {
            let kept: Vec<i64> = two.probe(&key).map(|(_, r)| r.1).collect();
            assert!(kept.len() <= 2, "{kept:?}");
            if kept.len() == 2 {
                assert_ne!(kept[0], kept[1]);
            }
            for x in -1..6 {
                let by_all = all.probe(&key).any(|(_, r)| r.1 != x);
                let by_two = two.probe(&key).any(|(_, r)| r.1 != x);
                assert_eq!(by_all, by_two, "key {key}, x {x}");
            }
        }
        // The first two distinct values of key 0's rows are kept, in order.
        let firsts: Vec<i64> =
            rows.iter()
                .filter(|r| r.0 == 0)
                .map(|r| r.1)
                .fold(Vec::new(), |mut v, y| {
                    if v.len() < 2 && !v.contains(&y) {
                        v.push(y);
                    }
                    v
                });
        assert_eq!(two.probe(&0).map(|(_, r)| r.1).collect::<Vec<_>>(), firsts);
    }

    #[test]
    fn probes_give_each_keys_rows_in_insertion_order_across_merges() {
        // Keys with chains of 1 to 3 rows, interleaved, split over two
        // partial tables: every probe stops at its chain's last row.
        let (mut a, mut b) = (JoinTable::new(), JoinTable::new());
        let mut want: Vec<Vec<i64>> = vec![Vec::new(); 5];
        for i in 0..15i64 {
            let key = (i * 7) % 5;
            if want[key as usize].len() <= key as usize {
                want[key as usize].push(i);
                if i < 8 { &mut a } else { &mut b }.insert(key, i);
            }
        }
        a.merge(b);
        for (key, rows) in want.iter().enumerate() {
            let got: Vec<i64> = a.probe(&(key as i64)).map(|(_, r)| *r).collect();
            assert_eq!(&got, rows, "key {key}");
        }
        assert_eq!(a.probe(&9).count(), 0);
    }

    /// Keys link in batches: across batch boundaries, merges and a later
    /// `insert_first`, every chain keeps insertion order and no row is lost.
    #[test]
    fn batched_links_keep_insertion_order() {
        let n = BUILD_BATCH as i32 * 5 + 7;
        let mut a: JoinTable<i32, i32> = JoinTable::new();
        let mut b: JoinTable<i32, i32> = JoinTable::new();
        for r in 0..n {
            if r < n / 2 { &mut a } else { &mut b }.insert(r % 37, r);
        }
        assert!(a.has_pending() && b.has_pending());
        a.merge(b);
        assert!(!a.has_pending());
        a.insert(5, n);
        // A semi join's first-row insert sees the keys still pending.
        assert_eq!(a.insert_first(5, -1, |_| true), None);
        assert!(!a.has_pending());
        for key in 0..37 {
            let got: Vec<i32> = a.probe(&key).map(|(_, r)| *r).collect();
            let mut want: Vec<i32> = (0..n).filter(|r| r % 37 == key).collect();
            if key == 5 {
                want.push(n);
            }
            assert_eq!(got, want, "key {key}");
        }
        let (keyed, _) = a.into_parts();
        assert_eq!(keyed.len(), n as usize + 1);
    }

    #[test]
    fn merge_keeps_chains() {
        let mut a: JoinTable<i32, i32> = JoinTable::new();
        a.insert(1, 10);
        let mut b: JoinTable<i32, i32> = JoinTable::new();
        b.insert(1, 11);
        b.insert(2, 20);
        b.insert(1, 12);
        b.insert_unmatchable(99);
        a.merge(b);
        let mut ones: Vec<_> = a.probe(&1).map(|(_, r)| *r).collect();
        ones.sort();
        assert_eq!(ones, vec![10, 11, 12]);
        assert_eq!(a.probe(&2).map(|(_, r)| *r).collect::<Vec<_>>(), vec![20]);
        assert_eq!(a.len(), 5);
        // The merged rows follow this table's in their own insertion order.
        let none = MatchedRows::new(a.len());
        let all: Vec<i32> = a.unmatched(&none).copied().collect();
        assert_eq!(all, vec![10, 11, 20, 12, 99]);
    }

    #[test]
    fn merged_runs_keep_every_chain_and_take_later_inserts() {
        let part = |rows: std::ops::Range<i32>| {
            let mut t: JoinTable<i32, i32> = JoinTable::new();
            for r in rows {
                t.insert(r % 10, r);
            }
            t
        };
        let mut t = part(0..25);
        t.merge(part(25..26));
        t.merge(JoinTable::new());
        t.merge(part(26..60));
        assert_eq!(t.rows.segs.len(), 3);
        t.insert(3, 60);
        t.insert_unmatchable(61);
        t.flush();
        for key in 0..10 {
            let got: Vec<i32> = t.probe(&key).map(|(_, r)| *r).collect();
            let mut want: Vec<i32> = (0..60).filter(|r| r % 10 == key).collect();
            if key == 3 {
                want.push(60);
            }
            assert_eq!(got, want, "key {key}");
            for (i, r) in t.probe(&key) {
                assert_eq!(i as i32, *r, "row index of {r}");
            }
        }
        let none = MatchedRows::new(t.len());
        assert_eq!(t.unmatched(&none).count(), 62);
        let (keyed, unmatchable) = t.into_parts();
        assert_eq!(keyed.len(), 61);
        assert_eq!(unmatchable, vec![61]);
    }
}
