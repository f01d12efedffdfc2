//! OVER windows and Top-N per partition, for batch jobs.
//!
//! The generated code buffers a node's input rows, sorts them by partition
//! keys then order keys ([`super::sort::sort_rows`]), and cuts the sorted
//! rows into partitions ([`runs`]). Within a partition, [`peer_groups`] gives
//! each row's peers (rows equal on the order keys); the ranking functions,
//! [`frames`] (each row's frame as a row range) and [`over_frames`] (an
//! accumulator per frame) work on those ranges. Memory: the buffered rows
//! plus one result column per call and partition.
//!
//! [`TopN`] keeps, per partition key, only the rows whose rank can still be
//! within the limit: memory O(partitions x N) (plus ties for RANK and
//! DENSE_RANK), never a full sort.

use crate::util::{fast_map, FastMap};
use std::cmp::Ordering;
use std::hash::Hash;

/// Ranges `[start, end)` of consecutive rows that `same` deems equal.
pub fn runs<T>(rows: &[T], mut same: impl FnMut(&T, &T) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=rows.len() {
        if i == rows.len() || !same(&rows[start], &rows[i]) {
            if i > start {
                out.push((start, i));
            }
            start = i;
        }
    }
    out
}

/// For each row of a partition, the range `[start, end)` of its peer group.
pub fn peer_groups<T>(part: &[T], same: impl FnMut(&T, &T) -> bool) -> Vec<(usize, usize)> {
    let mut peers = Vec::with_capacity(part.len());
    for (s, e) in runs(part, same) {
        peers.extend(std::iter::repeat_n((s, e), e - s));
    }
    peers
}

/// `ROW_NUMBER()`: 1, 2, 3, ...
pub fn row_number(peers: &[(usize, usize)]) -> Vec<i64> {
    (1..=peers.len() as i64).collect()
}

/// `RANK()`: 1 + the number of rows before the row's peers.
pub fn rank(peers: &[(usize, usize)]) -> Vec<i64> {
    peers.iter().map(|&(s, _)| s as i64 + 1).collect()
}

/// `DENSE_RANK()`: 1 + the number of peer groups before the row's.
pub fn dense_rank(peers: &[(usize, usize)]) -> Vec<i64> {
    let mut out = Vec::with_capacity(peers.len());
    let mut group = 0;
    for (i, &(s, _)) in peers.iter().enumerate() {
        if s == i {
            group += 1;
        }
        out.push(group);
    }
    out
}

/// `PERCENT_RANK()`: (rank - 1) / (rows - 1), 0 for a single row.
pub fn percent_rank(peers: &[(usize, usize)]) -> Vec<f64> {
    let n = peers.len();
    peers
        .iter()
        .map(|&(s, _)| {
            if n <= 1 {
                0.0
            } else {
                s as f64 / (n - 1) as f64
            }
        })
        .collect()
}

/// `CUME_DIST()` as Flink 2.3 computes it: rows up to and including the
/// row itself / rows (peers are not counted ahead: they get different
/// values, in the order they come).
pub fn cume_dist(peers: &[(usize, usize)]) -> Vec<f64> {
    let n = peers.len() as f64;
    (1..=peers.len()).map(|i| i as f64 / n).collect()
}

/// `NTILE(buckets)`: bucket numbers 1..=buckets over the rows in order; the
/// first `rows % buckets` buckets hold one row more than the others.
pub fn ntile(rows: usize, buckets: u64) -> Vec<i64> {
    let buckets = (buckets.max(1) as usize).min(rows.max(1));
    let size = rows / buckets;
    let bigger = rows % buckets;
    let mut out = Vec::with_capacity(rows);
    for b in 0..buckets {
        let len = size + usize::from(b < bigger);
        out.extend(std::iter::repeat_n(b as i64 + 1, len));
    }
    out
}

/// The row `offset` rows before (`lead` false) or after row `i` of a
/// partition of `len` rows, if it exists (LAG / LEAD).
#[inline]
pub fn offset_row(i: usize, len: usize, offset: u64, lead: bool) -> Option<usize> {
    let offset = usize::try_from(offset).ok()?;
    if lead {
        i.checked_add(offset).filter(|&j| j < len)
    } else {
        i.checked_sub(offset)
    }
}

/// `ROWS` or `RANGE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Rows,
    Range,
}

/// A frame boundary; offsets are rows (ROWS) or key distance (RANGE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    UnboundedPreceding,
    Preceding(i64),
    CurrentRow,
    Following(i64),
    UnboundedFollowing,
}

/// The ORDER BY key of a RANGE frame with offsets, and the key's direction.
pub struct RangeKey<'a> {
    pub keys: RangeKeys<'a>,
    pub descending: bool,
}

/// The keys of a RANGE frame's rows (NULL: `None`).
pub enum RangeKeys<'a> {
    /// Integers in the offsets' unit (exact: scaled numbers, milliseconds).
    Exact(&'a [Option<i128>]),
    /// DOUBLE keys; an offset `n` is `n / 10^scale`.
    Double { keys: &'a [Option<f64>], scale: u8 },
    /// FLOAT keys: as DOUBLE, but the keys' difference is a FLOAT (as in
    /// Flink's generated comparator).
    Float { keys: &'a [Option<f32>], scale: u8 },
}

/// A RANGE key's non-NULL values in ascending direction (negated when the
/// key sorts descending), and where they start in the partition.
enum Ordered {
    Exact(Vec<i128>, usize),
    Double(Vec<f64>, usize, f64),
    Float(Vec<f32>, usize, f64),
}

impl Ordered {
    fn of(key: &RangeKey<'_>) -> Ordered {
        fn values<T: Copy + std::ops::Neg<Output = T>>(
            keys: &[Option<T>],
            descending: bool,
        ) -> (Vec<T>, usize) {
            let first = keys.iter().position(Option::is_some).unwrap_or(keys.len());
            let values = keys
                .iter()
                .flatten()
                .map(|&v| if descending { -v } else { v })
                .collect();
            (values, first)
        }
        match key.keys {
            RangeKeys::Exact(keys) => {
                let (v, first) = values(keys, key.descending);
                Ordered::Exact(v, first)
            }
            RangeKeys::Double { keys, scale } => {
                let (v, first) = values(keys, key.descending);
                Ordered::Double(v, first, 10f64.powi(i32::from(scale)))
            }
            RangeKeys::Float { keys, scale } => {
                let (v, first) = values(keys, key.descending);
                Ordered::Float(v, first, 10f64.powi(i32::from(scale)))
            }
        }
    }
}

/// Each row's frame `[start, end)` (empty when `start >= end`).
pub fn frames(
    peers: &[(usize, usize)],
    unit: Unit,
    start: Bound,
    end: Bound,
    key: Option<RangeKey<'_>>,
) -> Vec<(usize, usize)> {
    let len = peers.len();
    // RANGE offsets: keys in ascending direction over the non-NULL rows
    // (NULLs sit together at one end of the partition).
    let ordered: Option<Ordered> = key.as_ref().map(Ordered::of);
    (0..len)
        .map(|i| {
            let s = match start {
                Bound::UnboundedPreceding => 0,
                Bound::CurrentRow => match unit {
                    Unit::Rows => i,
                    Unit::Range => peers[i].0,
                },
                Bound::Preceding(n) | Bound::Following(n) => {
                    let n = if matches!(start, Bound::Preceding(_)) {
                        -n
                    } else {
                        n
                    };
                    match unit {
                        Unit::Rows => (i as i64 + n).clamp(0, len as i64) as usize,
                        Unit::Range => range_edge(&ordered, peers, i, n, true),
                    }
                }
                Bound::UnboundedFollowing => len,
            };
            let e = match end {
                Bound::UnboundedFollowing => len,
                Bound::CurrentRow => match unit {
                    Unit::Rows => i + 1,
                    Unit::Range => peers[i].1,
                },
                Bound::Preceding(n) | Bound::Following(n) => {
                    let n = if matches!(end, Bound::Preceding(_)) {
                        -n
                    } else {
                        n
                    };
                    match unit {
                        Unit::Rows => (i as i64 + n + 1).clamp(0, len as i64) as usize,
                        Unit::Range => range_edge(&ordered, peers, i, n, false),
                    }
                }
                Bound::UnboundedPreceding => 0,
            };
            (s, e)
        })
        .collect()
}

/// The first row (`lower`) or one past the last row (`!lower`) whose key is
/// at least / at most the current row's key + `delta`. A row with a NULL key
/// frames its NULL peers.
fn range_edge(
    ordered: &Option<Ordered>,
    peers: &[(usize, usize)],
    i: usize,
    delta: i64,
    lower: bool,
) -> usize {
    let own_peers = if lower { peers[i].0 } else { peers[i].1 };
    match ordered {
        None => own_peers,
        Some(Ordered::Exact(values, first)) => {
            let Some(&current) = i.checked_sub(*first).and_then(|k| values.get(k)) else {
                return own_peers;
            };
            let target = current + delta as i128;
            first
                + if lower {
                    values.partition_point(|&v| v < target)
                } else {
                    values.partition_point(|&v| v <= target)
                }
        }
        Some(Ordered::Double(values, first, unit)) => {
            let Some(&current) = i.checked_sub(*first).and_then(|k| values.get(k)) else {
                return own_peers;
            };
            // As Flink's generated comparator: the difference of the keys
            // against the offset (not the key moved by the offset).
            let delta = delta as f64 / unit;
            first
                + if lower {
                    values.partition_point(|&v| v - current < delta)
                } else {
                    values.partition_point(|&v| v - current <= delta)
                }
        }
        Some(Ordered::Float(values, first, unit)) => {
            let Some(&current) = i.checked_sub(*first).and_then(|k| values.get(k)) else {
                return own_peers;
            };
            let delta = delta as f64 / unit;
            first
                + if lower {
                    values.partition_point(|&v| f64::from(v - current) < delta)
                } else {
                    values.partition_point(|&v| f64::from(v - current) <= delta)
                }
        }
    }
}

/// The value of an accumulator over each frame. `add` folds row `j` into
/// it, `result` reads it. Frames that share their start and grow (a running
/// total, the whole partition) fold each row once, in row order, as Flink's
/// frames do; other frames fold their rows afresh, in row order (as Flink's
/// sliding and UNBOUNDED FOLLOWING frames do: O(rows x frame) per partition).
pub fn over_frames<A, R: Clone>(
    frames: &[(usize, usize)],
    mut new: impl FnMut() -> A,
    mut add: impl FnMut(&mut A, usize),
    mut result: impl FnMut(&A) -> R,
) -> Vec<R> {
    let growing = frames
        .windows(2)
        .all(|w| w[0].0 == w[1].0 && w[0].1 <= w[1].1);
    let mut out = Vec::with_capacity(frames.len());
    if growing {
        let mut acc = new();
        let mut upto = frames.first().map_or(0, |f| f.0);
        for &(s, e) in frames {
            while upto < e {
                if upto >= s {
                    add(&mut acc, upto);
                }
                upto += 1;
            }
            out.push(result(&acc));
        }
        return out;
    }
    // A frame equal to the previous one (RANGE peers) reuses its value.
    for (i, &(s, e)) in frames.iter().enumerate() {
        if i > 0 && frames[i - 1] == (s, e) {
            let same = out[i - 1].clone();
            out.push(same);
            continue;
        }
        let mut acc = new();
        for j in s..e {
            add(&mut acc, j);
        }
        out.push(result(&acc));
    }
    out
}

/// LISTAGG: the non-NULL values folded in, in order, joined by the
/// separator; NULL when there is none (Flink's LISTAGG skips NULLs).
#[derive(Default)]
pub struct ListAgg(Option<String>);

impl ListAgg {
    #[inline]
    pub fn add(&mut self, v: Option<&str>, separator: &str) {
        let Some(v) = v else { return };
        match &mut self.0 {
            Some(joined) => {
                joined.push_str(separator);
                joined.push_str(v);
            }
            None => self.0 = Some(v.to_owned()),
        }
    }
    pub fn result(&self) -> Option<crate::value::Str> {
        self.0.as_deref().map(crate::value::Str::from)
    }
}

/// FIRST_VALUE: the first non-NULL value folded in (Flink's FIRST_VALUE
/// skips NULLs).
pub struct FirstValue<T>(Option<T>);

impl<T> Default for FirstValue<T> {
    fn default() -> Self {
        FirstValue(None)
    }
}

impl<T> FirstValue<T> {
    #[inline]
    pub fn add(&mut self, v: Option<T>) {
        if self.0.is_none() {
            self.0 = v;
        }
    }
    pub fn result(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

/// LAST_VALUE: the last non-NULL value folded in (Flink's LAST_VALUE skips
/// NULLs).
pub struct LastValue<T>(Option<T>);

impl<T> Default for LastValue<T> {
    fn default() -> Self {
        LastValue(None)
    }
}

impl<T> LastValue<T> {
    #[inline]
    pub fn add(&mut self, v: Option<T>) {
        if v.is_some() {
            self.0 = v;
        }
    }
    pub fn result(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

/// Which ranking function a [`TopN`] bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankKind {
    RowNumber,
    Rank,
    DenseRank,
}

/// Top-N per partition: for each key, the rows ranked `1..=hi` by `cmp`
/// (kept in a buffer compacted to the best `hi` rows, plus ties where the
/// ranking function gives ties the same rank). Arrival order breaks ties.
pub struct TopN<K, T> {
    kind: RankKind,
    hi: usize,
    parts: FastMap<K, Vec<(T, u64)>>,
    seq: u64,
}

impl<K: Hash + Eq, T> TopN<K, T> {
    pub fn new(kind: RankKind, hi: u64) -> Self {
        TopN {
            kind,
            hi: usize::try_from(hi).unwrap_or(usize::MAX),
            parts: fast_map(),
            seq: 0,
        }
    }

    /// Adds a row of partition `key`; `cmp` orders rows by the ORDER BY keys.
    #[inline]
    pub fn push(&mut self, key: K, row: T, cmp: &mut impl FnMut(&T, &T) -> Ordering) {
        if self.hi == 0 {
            return;
        }
        self.seq += 1;
        let rows = self.parts.entry(key).or_default();
        rows.push((row, self.seq));
        if rows.len() >= self.hi.saturating_mul(2).saturating_add(16) {
            compact(rows, self.kind, self.hi, cmp);
        }
    }

    /// Folds another thread's partial state in (its rows arrived later).
    pub fn merge(&mut self, other: Self, cmp: &mut impl FnMut(&T, &T) -> Ordering) {
        let offset = self.seq;
        for (key, rows) in other.parts {
            let mine = self.parts.entry(key).or_default();
            mine.extend(rows.into_iter().map(|(r, s)| (r, s + offset)));
            if mine.len() >= self.hi.saturating_mul(2).saturating_add(16) {
                compact(mine, self.kind, self.hi, cmp);
            }
        }
        self.seq += other.seq;
    }

    /// Each partition's kept rows in order, with their ranks, ranks in
    /// `lo..=hi` only.
    pub fn finish(
        self,
        lo: u64,
        mut cmp: impl FnMut(&T, &T) -> Ordering,
    ) -> Vec<(K, Vec<(T, i64)>)> {
        let (kind, hi) = (self.kind, self.hi);
        let mut out = Vec::with_capacity(self.parts.len());
        for (key, mut rows) in self.parts {
            rows.sort_by(|a, b| cmp(&a.0, &b.0).then(a.1.cmp(&b.1)));
            let ranks = ranks_of(&rows, kind, &mut cmp);
            let kept: Vec<(T, i64)> = rows
                .into_iter()
                .zip(ranks)
                .filter(|(_, r)| *r as u64 >= lo && *r as usize <= hi)
                .map(|((row, _), r)| (row, r))
                .collect();
            out.push((key, kept));
        }
        out
    }
}

fn ranks_of<T>(
    rows: &[(T, u64)],
    kind: RankKind,
    cmp: &mut impl FnMut(&T, &T) -> Ordering,
) -> Vec<i64> {
    let mut ranks = Vec::with_capacity(rows.len());
    let mut dense = 0;
    for i in 0..rows.len() {
        let new_group = i == 0 || cmp(&rows[i - 1].0, &rows[i].0) != Ordering::Equal;
        if new_group {
            dense += 1;
        }
        ranks.push(match kind {
            RankKind::RowNumber => i as i64 + 1,
            RankKind::Rank if new_group => i as i64 + 1,
            RankKind::Rank => ranks[i - 1],
            RankKind::DenseRank => dense,
        });
    }
    ranks
}

/// Drops the rows that can no longer rank within `hi`.
fn compact<T>(
    rows: &mut Vec<(T, u64)>,
    kind: RankKind,
    hi: usize,
    cmp: &mut impl FnMut(&T, &T) -> Ordering,
) {
    rows.sort_by(|a, b| cmp(&a.0, &b.0).then(a.1.cmp(&b.1)));
    let ranks = ranks_of(rows, kind, cmp);
    let keep = ranks.iter().take_while(|&&r| r as usize <= hi).count();
    rows.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_functions_over_peers() {
        let part = [1, 1, 2, 3, 3, 3];
        let peers = peer_groups(&part, |a, b| a == b);
        assert_eq!(rank(&peers), vec![1, 1, 3, 4, 4, 4]);
        assert_eq!(dense_rank(&peers), vec![1, 1, 2, 3, 3, 3]);
        assert_eq!(cume_dist(&peers)[0], 1.0 / 6.0);
        assert_eq!(percent_rank(&peers)[2], 2.0 / 5.0);
        assert_eq!(ntile(5, 3), vec![1, 1, 2, 2, 3]);
        assert_eq!(ntile(2, 4), vec![1, 2]);
        assert_eq!(offset_row(0, 3, 1, false), None);
        assert_eq!(offset_row(1, 3, 1, true), Some(2));
    }

    #[test]
    fn frames_by_rows_and_range() {
        let keys = [None, Some(1), Some(2), Some(2), Some(5)];
        let peers = peer_groups(&keys, |a, b| a == b);
        let rows = frames(
            &peers,
            Unit::Rows,
            Bound::Preceding(1),
            Bound::Following(1),
            None,
        );
        assert_eq!(rows, vec![(0, 2), (0, 3), (1, 4), (2, 5), (3, 5)]);
        let key = RangeKey {
            keys: RangeKeys::Exact(&keys),
            descending: false,
        };
        let range = frames(
            &peers,
            Unit::Range,
            Bound::Preceding(1),
            Bound::CurrentRow,
            Some(key),
        );
        assert_eq!(range, vec![(0, 1), (1, 2), (1, 4), (1, 4), (4, 5)]);
        let sums = over_frames(&range, || 0, |a, j| *a += keys[j].unwrap_or(0), |a| *a);
        assert_eq!(sums, vec![0, 1, 5, 5, 5]);
        // DOUBLE keys, 1.5 PRECEDING AND 0.5 FOLLOWING, descending.
        let doubles = [Some(7.0), Some(6.0), Some(5.0), Some(2.5), None];
        let peers = peer_groups(&doubles, |a, b| a == b);
        let key = RangeKey {
            keys: RangeKeys::Double {
                keys: &doubles,
                scale: 1,
            },
            descending: true,
        };
        let range = frames(
            &peers,
            Unit::Range,
            Bound::Preceding(15),
            Bound::Following(5),
            Some(key),
        );
        assert_eq!(range, vec![(0, 1), (0, 2), (1, 3), (3, 4), (4, 5)]);
    }

    #[test]
    fn top_n_keeps_ties_for_rank() {
        let mut cmp = |a: &i32, b: &i32| a.cmp(b);
        let mut t = TopN::new(RankKind::Rank, 2);
        for v in [5, 1, 1, 1, 3, 0, 9, 0, 7] {
            t.push("k", v, &mut cmp);
        }
        let out = t.finish(1, cmp);
        assert_eq!(out[0].1, vec![(0, 1), (0, 1)]);
        let mut t = TopN::new(RankKind::DenseRank, 2);
        for v in [5, 1, 1, 3, 0, 0] {
            t.push("k", v, &mut cmp);
        }
        assert_eq!(t.finish(2, cmp)[0].1, vec![(1, 2), (1, 2)]);
    }

    #[test]
    fn listagg_skips_nulls_and_is_null_without_values() {
        let values = [Some("a"), None, Some("b"), Some("")];
        // A running frame and sliding frames of two rows.
        let running: Vec<(usize, usize)> = (1..=4).map(|e| (0, e)).collect();
        let sliding = [(0, 1), (0, 2), (1, 3), (2, 4), (4, 4)];
        let agg = |frames: &[(usize, usize)]| -> Vec<Option<String>> {
            over_frames(
                frames,
                ListAgg::default,
                |acc: &mut ListAgg, j| acc.add(values[j], "-"),
                |acc: &ListAgg| acc.result().map(|s| s.as_str().to_string()),
            )
        };
        let s = |v: &str| Some(v.to_string());
        assert_eq!(agg(&running), vec![s("a"), s("a"), s("a-b"), s("a-b-")]);
        assert_eq!(agg(&sliding), vec![s("a"), s("a"), s("b"), s("b-"), None]);
        let mut only_nulls = ListAgg::default();
        only_nulls.add(None, ",");
        assert!(only_nulls.result().is_none());
    }
}
