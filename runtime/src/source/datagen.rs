//! The `datagen` source: bounded rows of `sequence` and `random` fields.
//!
//! Every value is a pure function of (seed, column, row number), so any split
//! of the row range on any number of threads yields the same rows, and a run
//! with the same `seed` option (stmtc's extension; without it a seed is drawn
//! from the clock) is reproducible. Timestamps count back from the `now` the
//! caller passes (the job start, or a fixed instant for reproducible runs).
//!
//! Option mapping (`fields.<f>.*`): `kind` → [`FieldKind`]; `start`/`end` for
//! sequences; `min`/`max` for numbers; `length` for strings/bytes (default
//! 100); `null-rate`; `max-past` (milliseconds) for TIMESTAMP/DATE/TIME.

use crate::error::{Error, Result};
use crate::util::{mix, SplitMix64};
use crate::value::{Date, Decimal, DecimalType, Time, Timestamp};

#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    /// `start..=end`, one value per row, in order.
    Sequence { start: i64, end: i64 },
    /// Uniform in `[min, max]` (numbers) or of `length` (strings).
    Random,
}

#[derive(Clone, Debug)]
pub struct FieldSpec {
    pub kind: FieldKind,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub length: usize,
    pub null_rate: f64,
    pub max_past_ms: i64,
}

impl Default for FieldSpec {
    fn default() -> Self {
        FieldSpec {
            kind: FieldKind::Random,
            min: None,
            max: None,
            length: 100,
            null_rate: 0.0,
            max_past_ms: 0,
        }
    }
}

/// A configured datagen table.
#[derive(Clone, Debug)]
pub struct Datagen {
    pub fields: Vec<FieldSpec>,
    pub seed: u64,
    pub now: Timestamp,
    rows: u64,
}

impl Datagen {
    /// `number_of_rows` bounds the table; sequences bound it too (Flink stops
    /// at the end of the shortest sequence). Unbounded tables are an error here.
    pub fn new(
        fields: Vec<FieldSpec>,
        number_of_rows: Option<u64>,
        seed: Option<u64>,
        now: Timestamp,
    ) -> Result<Self> {
        let seq_len = fields
            .iter()
            .filter_map(|f| match f.kind {
                FieldKind::Sequence { start, end } => Some(if end >= start {
                    (end - start) as u64 + 1
                } else {
                    0
                }),
                FieldKind::Random => None,
            })
            .min();
        let rows = match (number_of_rows, seq_len) {
            (Some(n), Some(s)) => n.min(s),
            (Some(n), None) => n,
            (None, Some(s)) => s,
            (None, None) => {
                return Err(Error::new(
                    "datagen: an unbounded table needs 'number-of-rows' or a sequence field in batch mode",
                ))
            }
        };
        let seed = seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
        Ok(Datagen {
            fields,
            seed,
            now,
            rows,
        })
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Row ranges for `parts` threads.
    pub fn ranges(&self, parts: usize) -> Vec<std::ops::Range<u64>> {
        let parts = parts.max(1) as u64;
        let chunk = self.rows.div_ceil(parts).max(1);
        (0..self.rows.div_ceil(chunk))
            .map(|i| i * chunk..((i + 1) * chunk).min(self.rows))
            .collect()
    }

    /// The row with number `row` (0-based).
    pub fn row(&self, row: u64) -> DatagenRow<'_> {
        DatagenRow { gen: self, row }
    }
}

/// One generated row; getters produce each column's value on demand.
pub struct DatagenRow<'a> {
    gen: &'a Datagen,
    row: u64,
}

impl DatagenRow<'_> {
    fn rng(&self, col: usize) -> SplitMix64 {
        SplitMix64::new(
            mix(self.gen.seed ^ mix(col as u64 + 1)) ^ self.row.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        )
    }

    fn spec(&self, col: usize) -> &FieldSpec {
        &self.gen.fields[col]
    }

    /// `Some(rng)` unless this value is NULL by `null-rate`.
    fn value_rng(&self, col: usize) -> Option<SplitMix64> {
        let mut rng = self.rng(col);
        let rate = self.spec(col).null_rate;
        if rate > 0.0 && rng.next_f64() < rate {
            return None;
        }
        Some(rng)
    }

    /// Integers of any width: sequence value or uniform in `[min, max]` clamped to `[lo, hi]`.
    pub fn integer(&self, col: usize, lo: i64, hi: i64) -> Option<i64> {
        let spec = self.spec(col);
        if let FieldKind::Sequence { start, .. } = spec.kind {
            return Some(start.wrapping_add(self.row as i64));
        }
        let mut rng = self.value_rng(col)?;
        let min = spec.min.map_or(lo, |m| (m as i64).max(lo));
        let max = spec.max.map_or(hi, |m| (m as i64).min(hi));
        Some(rng.range_i64(min, max))
    }

    pub fn i8(&self, col: usize) -> Option<i8> {
        self.integer(col, i8::MIN as i64, i8::MAX as i64)
            .map(|v| v as i8)
    }
    pub fn i16(&self, col: usize) -> Option<i16> {
        self.integer(col, i16::MIN as i64, i16::MAX as i64)
            .map(|v| v as i16)
    }
    pub fn i32(&self, col: usize) -> Option<i32> {
        self.integer(col, i32::MIN as i64, i32::MAX as i64)
            .map(|v| v as i32)
    }
    pub fn i64(&self, col: usize) -> Option<i64> {
        self.integer(col, i64::MIN, i64::MAX)
    }

    pub fn f64(&self, col: usize) -> Option<f64> {
        let spec = self.spec(col);
        if let FieldKind::Sequence { start, .. } = spec.kind {
            return Some((start + self.row as i64) as f64);
        }
        let mut rng = self.value_rng(col)?;
        let (min, max) = (
            spec.min.unwrap_or(f64::MIN / 2.0),
            spec.max.unwrap_or(f64::MAX / 2.0),
        );
        Some(min + rng.next_f64() * (max - min))
    }

    pub fn f32(&self, col: usize) -> Option<f32> {
        let spec = self.spec(col);
        if spec.min.is_none() && spec.max.is_none() && spec.kind == FieldKind::Random {
            let mut rng = self.value_rng(col)?;
            return Some((f32::MIN / 2.0) + rng.next_f64() as f32 * f32::MAX);
        }
        self.f64(col).map(|v| v as f32)
    }

    pub fn bool(&self, col: usize) -> Option<bool> {
        let mut rng = self.value_rng(col)?;
        Some(rng.next() & 1 == 1)
    }

    /// DECIMAL: sequence value, or uniform in `[min, max]` (default: the type's range).
    pub fn decimal(&self, col: usize, ty: DecimalType) -> Option<Decimal> {
        let spec = self.spec(col);
        if let FieldKind::Sequence { start, .. } = spec.kind {
            return ty.from_i64(start + self.row as i64);
        }
        let mut rng = self.value_rng(col)?;
        let int_digits = (ty.precision - ty.scale).min(18) as i32;
        let limit = 10f64.powi(int_digits) - 10f64.powi(-(ty.scale as i32));
        let (min, max) = (spec.min.unwrap_or(-limit), spec.max.unwrap_or(limit));
        ty.from_f64(min + rng.next_f64() * (max - min))
    }

    /// STRING: the sequence number as text, or `length` random hex chars (as
    /// Flink's random string generator).
    pub fn string(&self, col: usize) -> Option<String> {
        let spec = self.spec(col);
        if let FieldKind::Sequence { start, .. } = spec.kind {
            return Some((start + self.row as i64).to_string());
        }
        let mut rng = self.value_rng(col)?;
        const HEX: &[u8; 16] = b"0123456789abcdef";
        Some(
            (0..spec.length)
                .map(|_| HEX[(rng.next() & 15) as usize] as char)
                .collect(),
        )
    }

    pub fn bytes(&self, col: usize) -> Option<Vec<u8>> {
        let mut rng = self.value_rng(col)?;
        Some(
            (0..self.spec(col).length)
                .map(|_| rng.next() as u8)
                .collect(),
        )
    }

    /// TIMESTAMP: `now` minus a random span up to `max-past`.
    pub fn timestamp(&self, col: usize) -> Option<Timestamp> {
        let mut rng = self.value_rng(col)?;
        let past = rng.range_i64(0, self.spec(col).max_past_ms.max(0));
        Some(Timestamp::from_millis(self.gen.now.millis - past))
    }

    pub fn date(&self, col: usize) -> Option<Date> {
        self.timestamp(col).map(Timestamp::date)
    }

    pub fn time(&self, col: usize) -> Option<Time> {
        self.timestamp(col).map(Timestamp::time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(rows: Option<u64>) -> Datagen {
        let fields = vec![
            FieldSpec {
                kind: FieldKind::Sequence {
                    start: 10,
                    end: 209,
                },
                ..FieldSpec::default()
            },
            FieldSpec {
                min: Some(1.0),
                max: Some(6.0),
                null_rate: 0.25,
                ..FieldSpec::default()
            },
            FieldSpec {
                length: 8,
                ..FieldSpec::default()
            },
        ];
        Datagen::new(
            fields,
            rows,
            Some(42),
            Timestamp::from_millis(1_700_000_000_000),
        )
        .unwrap()
    }

    #[test]
    fn bounded_reproducible_and_split_independent() {
        assert_eq!(gen(None).rows(), 200);
        assert_eq!(gen(Some(4)).rows(), 4);
        let g = gen(None);
        let all: Vec<_> = (0..g.rows())
            .map(|r| (g.row(r).i64(0), g.row(r).i32(1), g.row(r).string(2)))
            .collect();
        assert_eq!(all[0].0, Some(10));
        assert_eq!(all[199].0, Some(209));
        assert!(all.iter().all(|r| r.1.is_none_or(|v| (1..=6).contains(&v))));
        assert!(all.iter().any(|r| r.1.is_none()));
        assert_eq!(all[3].2.as_ref().unwrap().len(), 8);
        let again = gen(None);
        let split: Vec<_> = again
            .ranges(3)
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    again.row(r).i64(0),
                    again.row(r).i32(1),
                    again.row(r).string(2),
                )
            })
            .collect();
        assert_eq!(split, all);
        assert!(
            Datagen::new(vec![FieldSpec::default()], None, None, Timestamp::default()).is_err()
        );
    }
}
