//! Aggregate accumulators with Flink's result types and NULL rules.
//!
//! Generated code defines the key type (`Hash + Eq`) and an accumulator struct
//! whose fields are the accumulators below; each thread fills its own
//! [`GroupTable`](super::group_table::GroupTable), and the partials are merged
//! at the end.
//!
//! Flink result types followed (the compiler picks the accumulator):
//! - COUNT → BIGINT; SUM of TINYINT..BIGINT → the same type, wrapping on
//!   overflow as Java arithmetic does ([`SumInt`]); SUM of FLOAT/DOUBLE → same;
//!   SUM of DECIMAL(p, s) → DECIMAL(38, s), NULL once it overflows;
//! - AVG of an integer type → that type, `sum / count` truncated toward zero
//!   (`AVG(INT)` of 1 and 2 is 1) ([`AvgInt`]); AVG of DOUBLE → DOUBLE; AVG of
//!   DECIMAL(p, s) → DECIMAL(38, max(6, s)) rounded HALF_UP ([`AvgDecimal`]);
//! - MIN/MAX → the input type; all ignore NULL inputs and give NULL for no rows
//!   (COUNT gives 0).

use crate::util::{fast_set, FastSet};
use crate::value::decimal::{self, Decimal, DecimalType};
use crate::value::temporal::Timestamp;
use std::borrow::Borrow;
use std::hash::Hash;

/// A float as a hash key: its bits, with -0.0 folded into 0.0 and every NaN
/// into one NaN, so that equal SQL values group together (as Java's
/// `Double.equals` on normalized values does in Flink's hash aggregate).
#[inline]
pub fn f64_key(v: f64) -> u64 {
    if v == 0.0 {
        0
    } else if v.is_nan() {
        f64::NAN.to_bits()
    } else {
        v.to_bits()
    }
}

/// The float a [`f64_key`] came from.
#[inline]
pub fn f64_from_key(k: u64) -> f64 {
    f64::from_bits(k)
}

/// COUNT(*) and COUNT(x).
#[derive(Clone, Copy, Debug, Default)]
pub struct Count(pub i64);

impl Count {
    #[inline]
    pub fn add_row(&mut self) {
        self.0 += 1;
    }
    #[inline]
    pub fn add<T>(&mut self, v: &Option<T>) {
        self.0 += v.is_some() as i64;
    }
    pub fn merge(&mut self, o: Count) {
        self.0 += o.0;
    }
    pub fn result(&self) -> i64 {
        self.0
    }
}

/// Integer types with Java's wrapping arithmetic.
pub trait JavaInt: Copy + Default {
    fn wrapping_add_(self, o: Self) -> Self;
    fn to_i64(self) -> i64;
    fn from_i64_wrapping(v: i64) -> Self;
}

macro_rules! java_int {
    ($($t:ty),*) => {$(
        impl JavaInt for $t {
            #[inline] fn wrapping_add_(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline] fn to_i64(self) -> i64 { self as i64 }
            #[inline] fn from_i64_wrapping(v: i64) -> Self { v as $t }
        }
    )*};
}
java_int!(i8, i16, i32, i64);

/// SUM of an integer type: same type, wraps on overflow; NULL if no non-NULL input.
#[derive(Clone, Copy, Debug, Default)]
pub struct SumInt<T>(pub Option<T>);

impl<T: JavaInt> SumInt<T> {
    #[inline]
    pub fn add(&mut self, v: Option<T>) {
        if let Some(v) = v {
            self.0 = Some(self.0.map_or(v, |s| s.wrapping_add_(v)));
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.add(o.0);
    }
    pub fn result(&self) -> Option<T> {
        self.0
    }
}

/// SUM of FLOAT/DOUBLE, in 8 bytes: before its first non-NULL value (a
/// NULL sum) it holds [`NO_SUM`], a signalling NaN, which no arithmetic
/// and no parse produces (their NaNs are quiet), so no sum can become it.
/// Group tables of many groups (TPC-H q18's 1.5M orders) hold 8 bytes less
/// per group than with an `Option<f64>`.
#[derive(Clone, Copy, Debug)]
pub struct SumFloat(f64);

/// The bits of a [`SumFloat`] that has summed nothing.
const NO_SUM: u64 = 0x7FF0_0000_0000_0001;

impl Default for SumFloat {
    fn default() -> Self {
        SumFloat(f64::from_bits(NO_SUM))
    }
}

impl SumFloat {
    #[inline]
    pub fn add(&mut self, v: Option<f64>) {
        if let Some(v) = v {
            // (A signalling NaN input would be taken for an empty sum; no
            // value the job computes is one.)
            self.0 = if self.0.to_bits() == NO_SUM {
                v
            } else {
                self.0 + v
            };
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.add(o.result());
    }
    pub fn result(&self) -> Option<f64> {
        (self.0.to_bits() != NO_SUM).then_some(self.0)
    }
}

/// SUM of DECIMAL(p, s) into DECIMAL(38, s); NULL once the sum overflows.
#[derive(Clone, Copy, Debug, Default)]
pub struct SumDecimal {
    sum: Option<i128>,
    overflow: bool,
}

impl SumDecimal {
    #[inline]
    pub fn add(&mut self, v: Option<Decimal>) {
        if let Some(v) = v {
            if self.overflow {
                return;
            }
            let s = self.sum.unwrap_or(0).checked_add(v.0);
            match s.filter(|&x| DecimalType::new(38, 0).fits(x)) {
                Some(x) => self.sum = Some(x),
                None => self.overflow = true,
            }
        }
    }
    pub fn merge(&mut self, o: Self) {
        if o.overflow {
            self.overflow = true;
        }
        self.add(o.sum.map(Decimal));
    }
    pub fn result(&self) -> Option<Decimal> {
        if self.overflow {
            None
        } else {
            self.sum.map(Decimal)
        }
    }
}

/// AVG of an integer type: sum in i64 (as Flink's BIGINT sum), truncating division.
#[derive(Clone, Copy, Debug, Default)]
pub struct AvgInt {
    sum: i64,
    count: i64,
}

impl AvgInt {
    #[inline]
    pub fn add<T: JavaInt>(&mut self, v: Option<T>) {
        if let Some(v) = v {
            self.sum = self.sum.wrapping_add(v.to_i64());
            self.count += 1;
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.sum = self.sum.wrapping_add(o.sum);
        self.count += o.count;
    }
    pub fn result<T: JavaInt>(&self) -> Option<T> {
        (self.count > 0).then(|| T::from_i64_wrapping(self.sum / self.count))
    }
}

/// AVG of FLOAT/DOUBLE.
#[derive(Clone, Copy, Debug, Default)]
pub struct AvgFloat {
    sum: f64,
    count: i64,
}

impl AvgFloat {
    #[inline]
    pub fn add(&mut self, v: Option<f64>) {
        if let Some(v) = v {
            self.sum += v;
            self.count += 1;
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.sum += o.sum;
        self.count += o.count;
    }
    pub fn result(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

/// SUM and AVG of the same DOUBLE argument in one 16-byte state (the count
/// says whether the SUM is NULL), instead of a [`SumFloat`] and an
/// [`AvgFloat`] (32 bytes): group entries stay small. Both results are
/// exactly theirs: the sum keeps SUM's first value as is (so `-0.0` stays
/// `-0.0`, as Flink's `sum IS NULL ? x : sum + x`), and the average adds
/// AVG's `0.0` start back (`0.0 + x1 + ... + xn` differs from `x1 + ... + xn`
/// only in the sign of a zero sum).
#[derive(Clone, Copy, Debug, Default)]
pub struct SumAvgFloat {
    sum: f64,
    count: i64,
}

impl SumAvgFloat {
    #[inline]
    pub fn add(&mut self, v: Option<f64>) {
        if let Some(v) = v {
            self.sum = if self.count == 0 { v } else { self.sum + v };
            self.count += 1;
        }
    }
    pub fn merge(&mut self, o: Self) {
        if o.count > 0 {
            self.sum = if self.count == 0 {
                o.sum
            } else {
                self.sum + o.sum
            };
            self.count += o.count;
        }
    }
    /// SUM's result: NULL when no input was non-NULL.
    pub fn sum(&self) -> Option<f64> {
        (self.count > 0).then_some(self.sum)
    }
    /// AVG's result.
    pub fn avg(&self) -> Option<f64> {
        (self.count > 0).then(|| (self.sum + 0.0) / self.count as f64)
    }
}

/// SUM and AVG of a DOUBLE that is never NULL where it is aggregated (the
/// compiler proves it from the filters below, e.g. `WHERE price > 0`), with
/// no FILTER: the rows counted are the group's rows, which the group's
/// `COUNT(*)` already counts, so the state is the sum alone (8 bytes, against
/// [`SumAvgFloat`]'s 16). Results take that count. The sum starts at `-0.0`,
/// the identity of IEEE addition, so its first value is kept as is, as
/// [`SumAvgFloat`] keeps it: the results are bit-identical to its.
#[derive(Clone, Copy, Debug)]
pub struct SumFloatRows(f64);

impl Default for SumFloatRows {
    fn default() -> Self {
        SumFloatRows(-0.0)
    }
}

impl SumFloatRows {
    #[inline]
    pub fn add(&mut self, v: Option<f64>) {
        debug_assert!(v.is_some(), "a NULL where the compiler proved none");
        if let Some(v) = v {
            self.0 += v;
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.0 += o.0;
    }
    /// SUM's result, `rows` being the group's `COUNT(*)`.
    pub fn sum(&self, rows: i64) -> Option<f64> {
        (rows > 0).then_some(self.0)
    }
    /// AVG's result, `rows` being the group's `COUNT(*)`.
    pub fn avg(&self, rows: i64) -> Option<f64> {
        (rows > 0).then(|| (self.0 + 0.0) / rows as f64)
    }
}

/// MIN and MAX of the same TIMESTAMP column in 24 bytes, where a
/// `MinMax<Timestamp, _>` each take 16 (`first_order`, `last_order`): the two
/// milliseconds, then the two sub-millisecond parts (`0` for no value yet).
#[derive(Clone, Copy, Debug, Default)]
pub struct TimestampRange {
    min_millis: i64,
    max_millis: i64,
    min_sub: u32,
    max_sub: u32,
}

impl TimestampRange {
    #[inline]
    pub fn add(&mut self, v: Option<Timestamp>) {
        if let Some(v) = v {
            let (millis, sub) = v.packed();
            if self.min_sub == 0 {
                (self.min_millis, self.min_sub) = (millis, sub);
                (self.max_millis, self.max_sub) = (millis, sub);
                return;
            }
            if (millis, sub) < (self.min_millis, self.min_sub) {
                (self.min_millis, self.min_sub) = (millis, sub);
            }
            if (millis, sub) > (self.max_millis, self.max_sub) {
                (self.max_millis, self.max_sub) = (millis, sub);
            }
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.add(o.min());
        self.add(o.max());
    }
    pub fn min(&self) -> Option<Timestamp> {
        Timestamp::unpacked(self.min_millis, self.min_sub)
    }
    pub fn max(&self) -> Option<Timestamp> {
        Timestamp::unpacked(self.max_millis, self.max_sub)
    }
}

/// AVG of DECIMAL(p, s): DECIMAL(38, s) sum divided by the count into
/// DECIMAL(38, max(6, s)), HALF_UP; NULL on overflow.
#[derive(Clone, Copy, Debug, Default)]
pub struct AvgDecimal {
    sum: SumDecimal,
    count: i64,
}

impl AvgDecimal {
    #[inline]
    pub fn add(&mut self, v: Option<Decimal>) {
        if v.is_some() {
            self.sum.add(v);
            self.count += 1;
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.sum.merge(o.sum);
        self.count += o.count;
    }
    /// `input_scale` is the argument's scale; the result type is
    /// [`AvgDecimal::result_type`].
    pub fn result(&self, input_scale: u8) -> Option<Decimal> {
        if self.count == 0 {
            return None;
        }
        let sum = self.sum.result()?;
        let st = DecimalType::new(38, input_scale);
        let ct = DecimalType::new(20, 0);
        decimal::div(
            sum,
            st,
            Decimal(self.count as i128),
            ct,
            Self::result_type(input_scale),
        )
        .ok()
        .flatten()
    }

    pub fn result_type(input_scale: u8) -> DecimalType {
        DecimalType::new(38, input_scale.max(6))
    }
}

/// MIN (`MAX = false`) or MAX (`MAX = true`) of any ordered type (floats via
/// `PartialOrd`). Which one is part of the type, so a group's accumulators
/// stay small (they live in the hash table, one per group).
#[derive(Clone, Debug)]
pub struct MinMax<T, const MAX: bool> {
    pub value: Option<T>,
}

impl<T: PartialOrd> MinMax<T, false> {
    pub fn min() -> Self {
        MinMax { value: None }
    }
}

impl<T: PartialOrd> MinMax<T, true> {
    pub fn max() -> Self {
        MinMax { value: None }
    }
}

impl<T: PartialOrd, const MAX: bool> MinMax<T, MAX> {
    #[inline]
    pub fn add(&mut self, v: Option<T>) {
        if let Some(v) = v {
            let replace = match &self.value {
                None => true,
                Some(cur) => {
                    if MAX {
                        v > *cur
                    } else {
                        v < *cur
                    }
                }
            };
            if replace {
                self.value = Some(v);
            }
        }
    }
    /// Borrowed variant for owned types (strings): clones only when it wins.
    #[inline]
    pub fn add_ref<Q>(&mut self, v: Option<&Q>, to_owned: impl FnOnce(&Q) -> T)
    where
        T: Borrow<Q>,
        Q: PartialOrd + ?Sized,
    {
        if let Some(v) = v {
            let replace = match &self.value {
                None => true,
                Some(cur) => {
                    if MAX {
                        v > cur.borrow()
                    } else {
                        v < cur.borrow()
                    }
                }
            };
            if replace {
                self.value = Some(to_owned(v));
            }
        }
    }
    pub fn merge(&mut self, o: Self) {
        self.add(o.value);
    }
    pub fn result(&self) -> Option<&T> {
        self.value.as_ref()
    }
}

/// COUNT(DISTINCT x) (and the set behind other DISTINCT aggregates).
#[derive(Clone, Debug)]
pub struct CountDistinct<T: Hash + Eq> {
    seen: FastSet<T>,
}

impl<T: Hash + Eq> Default for CountDistinct<T> {
    fn default() -> Self {
        CountDistinct { seen: fast_set() }
    }
}

impl<T: Hash + Eq> CountDistinct<T> {
    /// Adds a value; a new one is noted as growth of the group's memory
    /// (its inline size and the set's overhead, see [`super::memory::note_growth`]).
    #[inline]
    pub fn add(&mut self, v: Option<T>) {
        if let Some(v) = v {
            if self.seen.insert(v) {
                super::memory::note_growth(std::mem::size_of::<T>() + 8);
            }
        }
    }
    pub fn merge(&mut self, o: Self) {
        if o.seen.len() > self.seen.len() {
            let mine = std::mem::replace(&mut self.seen, o.seen);
            self.seen.reserve(mine.len());
            self.seen.extend(mine);
        } else {
            self.seen.reserve(o.seen.len());
            self.seen.extend(o.seen);
        }
    }
    pub fn result(&self) -> i64 {
        self.seen.len() as i64
    }
    /// The distinct values (for SUM(DISTINCT x) and the like).
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.seen.iter()
    }
}

/// LISTAGG as a GROUP BY aggregate: the group's non-NULL values joined by
/// the separator in the order they are added (the input order on one
/// thread; partials of several threads are appended in merge order); NULL
/// for a group without one. The joined string grows with the input: its
/// new capacity is noted as growth of the group's memory.
#[derive(Default)]
pub struct ListAgg {
    joined: Option<String>,
}

impl ListAgg {
    #[inline]
    pub fn add(&mut self, v: Option<&str>, separator: &str) {
        let Some(v) = v else { return };
        let before = self.joined.as_ref().map_or(0, String::capacity);
        match &mut self.joined {
            Some(joined) => {
                joined.push_str(separator);
                joined.push_str(v);
            }
            None => self.joined = Some(v.to_owned()),
        }
        let after = self.joined.as_ref().map_or(0, String::capacity);
        super::memory::note_growth(after.saturating_sub(before));
    }
    /// Appends another partial of the same group after this one's values.
    pub fn merge(&mut self, o: Self, separator: &str) {
        match (&mut self.joined, o.joined) {
            (Some(joined), Some(theirs)) => {
                joined.push_str(separator);
                joined.push_str(&theirs);
            }
            (None, theirs) => self.joined = theirs,
            (Some(_), None) => {}
        }
    }
    pub fn result(&self) -> Option<crate::value::Str> {
        self.joined.as_deref().map(crate::value::Str::from)
    }
}

/// `LISTAGG(DISTINCT v)`: each non-NULL value once, in the order of its
/// first occurrence (Flink 2.3's order on one task), joined when the group
/// is complete. Each new value is noted as growth (twice: the set and the
/// list hold it).
#[derive(Default)]
pub struct ListAggDistinct {
    seen: FastSet<crate::value::Str>,
    values: Vec<crate::value::Str>,
}

impl ListAggDistinct {
    #[inline]
    pub fn add(&mut self, v: Option<&str>) {
        let Some(v) = v else { return };
        if !self.seen.contains(v) {
            let v = crate::value::Str::from(v);
            let heap = if v.len() > crate::value::string::INLINE {
                v.len()
            } else {
                0
            };
            super::memory::note_growth(2 * (std::mem::size_of::<crate::value::Str>() + heap) + 8);
            self.seen.insert(v.clone());
            self.values.push(v);
        }
    }
    /// Adds another partial's values that are new here, in its order.
    pub fn merge(&mut self, o: Self) {
        for v in o.values {
            if self.seen.insert(v.clone()) {
                self.values.push(v);
            }
        }
    }
    pub fn result(&self, separator: &str) -> Option<crate::value::Str> {
        if self.values.is_empty() {
            return None;
        }
        let mut joined = String::new();
        for (i, v) in self.values.iter().enumerate() {
            if i > 0 {
                joined.push_str(separator);
            }
            joined.push_str(v);
        }
        Some(crate::value::Str::from(joined))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Acc {
        count: Count,
        sum: SumInt<i32>,
        avg: AvgInt,
        min: Option<MinMax<String, false>>,
        distinct: CountDistinct<i32>,
    }

    /// LISTAGG skips NULLs, keeps the order values come in, appends a
    /// merged partial after its own values, and notes its growth; the
    /// DISTINCT form keeps each value's first occurrence.
    #[test]
    fn listagg_orders_skips_nulls_merges_and_notes_growth() {
        crate::ops::memory::take_growth();
        let mut a = ListAgg::default();
        assert_eq!(a.result(), None);
        a.add(None, "|");
        assert_eq!(a.result(), None);
        for v in [Some("b"), None, Some("a"), Some("b")] {
            a.add(v, "|");
        }
        assert!(crate::ops::memory::take_growth() > 0);
        assert_eq!(a.result().as_deref(), Some("b|a|b"));
        let mut other = ListAgg::default();
        other.add(Some("c"), "|");
        a.merge(other, "|");
        a.merge(ListAgg::default(), "|");
        assert_eq!(a.result().as_deref(), Some("b|a|b|c"));
        let mut empty = ListAgg::default();
        let mut full = ListAgg::default();
        full.add(Some("x"), "");
        empty.merge(full, "");
        assert_eq!(empty.result().as_deref(), Some("x"));

        let mut d = ListAggDistinct::default();
        assert_eq!(d.result(","), None);
        for v in [
            Some("b"),
            None,
            Some("a"),
            Some("b"),
            Some("a long value beyond the inline size"),
        ] {
            d.add(v);
        }
        assert!(crate::ops::memory::take_growth() > 0);
        let mut e = ListAggDistinct::default();
        e.add(Some("c"));
        e.add(Some("a"));
        d.merge(e);
        assert_eq!(
            d.result(", ").as_deref(),
            Some("b, a, a long value beyond the inline size, c")
        );
    }

    /// The sum that takes its count from COUNT(*) gives bit-identical
    /// results to [`SumAvgFloat`] for inputs without NULLs (all it is used
    /// for), zero signs and merges included, and NULL for no rows.
    #[test]
    fn sum_float_rows_matches_sum_avg_float() {
        let inputs: &[&[f64]] = &[
            &[],
            &[-0.0],
            &[-0.0, -0.0],
            &[-0.0, 0.0],
            &[0.0, -0.0],
            &[1.5, -1.5],
            &[-1.5, 1.5, -0.0],
            &[0.1, 0.2, 0.3, 1e300, 1e300],
            &[f64::NAN, 2.0],
        ];
        for values in inputs {
            for split in 0..=values.len() {
                let (mut shared, mut rest) = (SumAvgFloat::default(), SumAvgFloat::default());
                let (mut rows, mut rows_rest) = (SumFloatRows::default(), SumFloatRows::default());
                for (i, &v) in values.iter().enumerate() {
                    if i < split {
                        shared.add(Some(v));
                        rows.add(Some(v));
                    } else {
                        rest.add(Some(v));
                        rows_rest.add(Some(v));
                    }
                }
                shared.merge(rest);
                rows.merge(rows_rest);
                let n = values.len() as i64;
                let bits = |v: Option<f64>| v.map(f64::to_bits);
                assert_eq!(
                    bits(rows.sum(n)),
                    bits(shared.sum()),
                    "{values:?} at {split}"
                );
                assert_eq!(
                    bits(rows.avg(n)),
                    bits(shared.avg()),
                    "{values:?} at {split}"
                );
            }
        }
    }

    /// MIN and MAX of timestamps in one packed state agree with two
    /// `MinMax`es, sub-millisecond parts, NULLs and merges included.
    #[test]
    fn timestamp_range_matches_min_and_max() {
        let ts = |millis: i64, nanos: u32| Some(Timestamp::new(millis, nanos));
        let inputs: &[&[Option<Timestamp>]] = &[
            &[],
            &[None],
            &[ts(5, 0)],
            &[ts(5, 7), None, ts(5, 3), ts(-2, 999_999)],
            &[ts(0, 0), ts(0, 1), ts(-1, 0), ts(i64::MAX, 999_999)],
            &[None, ts(i64::MIN, 0), None],
        ];
        for values in inputs {
            for split in 0..=values.len() {
                let (mut min, mut max) = (MinMax::<Timestamp, false>::min(), MinMax::max());
                let (mut range, mut rest) = (TimestampRange::default(), TimestampRange::default());
                for (i, &v) in values.iter().enumerate() {
                    min.add(v);
                    max.add(v);
                    if i < split {
                        range.add(v);
                    } else {
                        rest.add(v);
                    }
                }
                range.merge(rest);
                assert_eq!(range.min(), min.result().copied(), "{values:?} at {split}");
                assert_eq!(range.max(), max.result().copied(), "{values:?} at {split}");
            }
        }
    }

    /// A SUM of DOUBLE is NULL until a non-NULL value, keeps the first
    /// value's sign and NaN, and takes 8 bytes.
    #[test]
    fn sum_float_is_null_until_a_value() {
        assert_eq!(std::mem::size_of::<SumFloat>(), 8);
        let mut s = SumFloat::default();
        assert_eq!(s.result(), None);
        s.add(None);
        assert_eq!(s.result(), None);
        s.merge(SumFloat::default());
        assert_eq!(s.result(), None);
        s.add(Some(-0.0));
        assert_eq!(s.result().map(f64::to_bits), Some((-0.0f64).to_bits()));
        let mut nan = SumFloat::default();
        nan.add(Some(f64::NAN));
        nan.add(Some(1.0));
        assert!(nan.result().is_some_and(f64::is_nan));
        let mut merged = SumFloat::default();
        merged.merge(nan);
        assert!(merged.result().is_some_and(f64::is_nan));
        merged.add(None);
        assert!(merged.result().is_some_and(f64::is_nan));
    }

    /// The shared SUM+AVG state gives bit-identical results to a separate
    /// [`SumFloat`] and [`AvgFloat`], zero signs, NULLs and merges included.
    #[test]
    fn sum_avg_float_matches_separate_states() {
        let inputs: &[&[Option<f64>]] = &[
            &[],
            &[None],
            &[Some(-0.0)],
            &[Some(-0.0), Some(-0.0)],
            &[Some(-0.0), None, Some(0.0)],
            &[Some(0.0), Some(-0.0)],
            &[Some(1.5), Some(-1.5)],
            &[Some(-1.5), Some(1.5), Some(-0.0)],
            &[
                Some(0.1),
                Some(0.2),
                Some(0.3),
                None,
                Some(1e300),
                Some(1e300),
            ],
            &[Some(f64::NAN), Some(2.0)],
        ];
        for values in inputs {
            for split in 0..=values.len() {
                let (mut sum, mut avg) = (SumFloat::default(), AvgFloat::default());
                let (mut shared, mut rest) = (SumAvgFloat::default(), SumAvgFloat::default());
                let (mut sum_rest, mut avg_rest) = (SumFloat::default(), AvgFloat::default());
                for (i, &v) in values.iter().enumerate() {
                    if i < split {
                        sum.add(v);
                        avg.add(v);
                        shared.add(v);
                    } else {
                        sum_rest.add(v);
                        avg_rest.add(v);
                        rest.add(v);
                    }
                }
                sum.merge(sum_rest);
                avg.merge(avg_rest);
                shared.merge(rest);
                let bits = |v: Option<f64>| v.map(f64::to_bits);
                assert_eq!(
                    bits(shared.sum()),
                    bits(sum.result()),
                    "{values:?} at {split}"
                );
                assert_eq!(
                    bits(shared.avg()),
                    bits(avg.result()),
                    "{values:?} at {split}"
                );
            }
        }
    }

    #[test]
    fn grouped_partials_merge() {
        let rows = [
            ("a", Some(1)),
            ("b", Some(2)),
            ("a", Some(2)),
            ("a", None),
            ("b", Some(i32::MAX)),
        ];
        let mut parts = Vec::new();
        for chunk in rows.chunks(2) {
            let mut agg: std::collections::HashMap<String, Acc> = Default::default();
            for (k, v) in chunk {
                let acc = agg.entry(k.to_string()).or_default();
                acc.count.add_row();
                acc.sum.add(*v);
                acc.avg.add(*v);
                acc.min
                    .get_or_insert_with(MinMax::min)
                    .add_ref(Some(*k), str::to_string);
                acc.distinct.add(*v);
            }
            parts.push(agg);
        }
        let mut agg: std::collections::HashMap<String, Acc> = Default::default();
        for part in parts {
            for (k, b) in part {
                let a = agg.entry(k).or_default();
                a.count.merge(b.count);
                a.sum.merge(b.sum);
                a.avg.merge(b.avg);
                match (a.min.as_mut(), b.min) {
                    (Some(x), Some(y)) => x.merge(y),
                    (None, y) => a.min = y,
                    (Some(_), None) => {}
                }
                a.distinct.merge(b.distinct);
            }
        }
        let mut out: Vec<_> = agg
            .into_iter()
            .map(|(k, a)| {
                (
                    k,
                    a.count.result(),
                    a.sum.result(),
                    a.avg.result::<i32>(),
                    a.distinct.result(),
                )
            })
            .collect();
        out.sort();
        assert_eq!(
            out,
            vec![
                ("a".to_string(), 3, Some(3), Some(1), 2),
                // SUM(INT) wraps like Java; AVG sums in BIGINT.
                (
                    "b".to_string(),
                    2,
                    Some(i32::MIN + 1),
                    Some(1_073_741_824),
                    2
                ),
            ]
        );
    }

    #[test]
    fn decimal_sum_and_avg() {
        let mut avg = AvgDecimal::default();
        for v in [100, 200, 201] {
            avg.add(Some(Decimal(v)));
        }
        avg.add(None);
        // (1.00 + 2.00 + 2.01) / 3 = 1.67 at scale max(6, 2)
        assert_eq!(avg.result(2), Some(Decimal(1_670_000)));
        let mut s = SumDecimal::default();
        s.add(Some(Decimal(decimal::pow10(38) - 1)));
        s.add(Some(Decimal(1)));
        assert_eq!(s.result(), None);
        let mut f = MinMax::max();
        f.add(Some(1.5f64));
        f.add(Some(-2.0));
        assert_eq!(f.result(), Some(&1.5));
    }
}

/// `SINGLE_VALUE`: the value of the only row of a group, for scalar
/// subqueries; a second row is an error (Flink's message, prefixed with the
/// subquery's location by the caller).
#[derive(Clone, Debug)]
pub struct SingleValue<T> {
    pub value: Option<T>,
    pub rows: u64,
}

impl<T> Default for SingleValue<T> {
    fn default() -> Self {
        SingleValue {
            value: None,
            rows: 0,
        }
    }
}

impl<T> SingleValue<T> {
    #[inline]
    pub fn add(&mut self, v: Option<T>) {
        self.rows += 1;
        if self.rows == 1 {
            self.value = v;
        }
    }

    pub fn merge(&mut self, o: Self) {
        if self.rows == 0 {
            self.value = o.value;
        }
        self.rows += o.rows;
    }

    /// The value, or the error for a group of more than one row.
    pub fn result(&self, location: &str) -> crate::Result<Option<T>>
    where
        T: Clone,
    {
        if self.rows > 1 {
            return Err(crate::Error::new(format!(
                "{location}: SingleValueAggFunction received more than one element."
            )));
        }
        Ok(self.value.clone())
    }
}
