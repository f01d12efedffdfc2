//! Sorting, top-N and DISTINCT for batch ORDER BY / LIMIT / SELECT DISTINCT.
//!
//! Comparators follow Flink's defaults: ascending puts NULLs first, descending
//! puts them last (`NULLS FIRST/LAST` override); floats compare with NaN
//! greatest (Java's `Double.compare`).

use crate::util::{fast_set, FastSet};
use std::cmp::Ordering;
use std::hash::Hash;

/// Compares nullable values; `nulls_first` decides where NULL goes.
#[inline]
pub fn cmp_nullable<T>(
    a: &Option<T>,
    b: &Option<T>,
    nulls_first: bool,
    cmp: impl FnOnce(&T, &T) -> Ordering,
) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => {
            if nulls_first {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Some(_), None) => {
            if nulls_first {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Some(x), Some(y)) => cmp(x, y),
    }
}

/// One sort key's comparison: direction and NULL placement (Flink defaults when
/// `nulls_first` is `None`).
#[inline]
pub fn cmp_key<T: Ord>(
    a: &Option<T>,
    b: &Option<T>,
    ascending: bool,
    nulls_first: Option<bool>,
) -> Ordering {
    let nf = nulls_first.unwrap_or(ascending);
    match (a, b) {
        (Some(x), Some(y)) => {
            let o = x.cmp(y);
            if ascending {
                o
            } else {
                o.reverse()
            }
        }
        _ => cmp_nullable(a, b, nf, |_, _| Ordering::Equal),
    }
}

/// `Double.compare`: -0.0 < 0.0, NaN greater than everything.
#[inline]
pub fn cmp_f64(a: &f64, b: &f64) -> Ordering {
    // total_cmp orders -NaN first; Java puts every NaN last, so treat NaN apart.
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.total_cmp(b),
    }
}

/// Sorts rows in place (stable, so equal keys keep their input order).
pub fn sort_rows<T>(rows: &mut [T], cmp: impl FnMut(&T, &T) -> Ordering) {
    rows.sort_by(cmp);
}

/// Keeps the `n` smallest rows by `cmp` (ORDER BY ... LIMIT n) in O(n) memory.
pub struct TopN<T, F: FnMut(&T, &T) -> Ordering> {
    n: usize,
    rows: Vec<T>,
    cmp: F,
}

impl<T, F: FnMut(&T, &T) -> Ordering> TopN<T, F> {
    pub fn new(n: usize, cmp: F) -> Self {
        TopN {
            n,
            rows: Vec::with_capacity(n.min(1 << 16) * 2),
            cmp,
        }
    }

    #[inline]
    pub fn push(&mut self, row: T) {
        if self.n == 0 {
            return;
        }
        self.rows.push(row);
        if self.rows.len() >= self.n * 2 + 16 {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let n = self.n;
        let cmp = &mut self.cmp;
        if self.rows.len() > n {
            self.rows.select_nth_unstable_by(n, |a, b| cmp(a, b));
            self.rows.truncate(n);
        }
    }

    /// Adds another thread's partial top-N.
    pub fn merge(&mut self, other: Vec<T>) {
        for r in other {
            self.push(r);
        }
    }

    /// The first `n` rows in order.
    pub fn finish(mut self) -> Vec<T> {
        let cmp = &mut self.cmp;
        self.rows.sort_by(|a, b| cmp(a, b));
        self.rows.truncate(self.n);
        self.rows
    }
}

/// SELECT DISTINCT: remembers keys seen; `insert` says whether a row is new.
pub struct Distinct<K> {
    seen: FastSet<K>,
}

impl<K: Hash + Eq> Default for Distinct<K> {
    fn default() -> Self {
        Distinct { seen: fast_set() }
    }
}

impl<K: Hash + Eq> Distinct<K> {
    #[inline]
    pub fn insert(&mut self, k: K) -> bool {
        self.seen.insert(k)
    }

    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Merges per-thread sets; the result holds each distinct key once.
    pub fn merge(&mut self, other: Self) {
        if self.seen.is_empty() {
            self.seen = other.seen;
            return;
        }
        self.seen.reserve(other.seen.len());
        self.seen.extend(other.seen);
    }

    pub fn into_keys(self) -> impl Iterator<Item = K> {
        self.seen.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_and_top_n() {
        let mut v = vec![Some(3), None, Some(1), Some(2)];
        sort_rows(&mut v, |a, b| cmp_key(a, b, true, None));
        assert_eq!(v, vec![None, Some(1), Some(2), Some(3)]);
        sort_rows(&mut v, |a, b| cmp_key(a, b, false, None));
        assert_eq!(v, vec![Some(3), Some(2), Some(1), None]);
        let mut t = TopN::new(3, |a: &i32, b: &i32| b.cmp(a));
        for i in 0..1000 {
            t.push((i * 7919) % 1000);
        }
        assert_eq!(t.finish(), vec![999, 998, 997]);
        let mut d = Distinct::default();
        assert!(d.insert("a"));
        assert!(!d.insert("a"));
        assert_eq!(cmp_f64(&f64::NAN, &1.0), Ordering::Greater);
        assert_eq!(cmp_f64(&-0.0, &0.0), Ordering::Less);
    }
}
