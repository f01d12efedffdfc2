//! OVER windows in the bound IR: one [`OverCall`] per window function call,
//! computed by a `RelKind::Over` for one window specification (PARTITION BY
//! keys and ORDER BY keys); the calls of a SELECT with different
//! specifications become a chain of `Over` nodes.

use crate::functions::AggregateFunction;
use crate::types::DataType;

/// A window function call: its output is one column appended to the input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OverCall {
    pub function: OverFunction,
    /// Input column positions: the value argument (LAG/LEAD, FIRST_VALUE,
    /// LAST_VALUE, aggregates; empty for `COUNT(*)` and ranking functions),
    /// then LAG/LEAD's default or LISTAGG's separator when given.
    pub args: Vec<usize>,
    /// The frame the call aggregates over (aggregates, FIRST_VALUE,
    /// LAST_VALUE); ranking functions, NTILE, LAG and LEAD ignore it.
    pub frame: Frame,
    pub ty: DataType,
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OverFunction {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// `NTILE(n)`, n > 0.
    Ntile(u64),
    /// `LAG(value, offset [, default])`: the row `offset` before.
    Lag(u64),
    /// `LEAD(value, offset [, default])`: the row `offset` after.
    Lead(u64),
    FirstValue,
    LastValue,
    /// COUNT, SUM, AVG, MIN or MAX over the frame.
    Aggregate(AggregateFunction),
    /// `LISTAGG(value [, separator])`: the frame's non-NULL values joined;
    /// the separator (a constant) is the second argument when given.
    ListAgg,
}

impl OverFunction {
    pub fn name(self) -> String {
        match self {
            OverFunction::RowNumber => "ROW_NUMBER".into(),
            OverFunction::Rank => "RANK".into(),
            OverFunction::DenseRank => "DENSE_RANK".into(),
            OverFunction::PercentRank => "PERCENT_RANK".into(),
            OverFunction::CumeDist => "CUME_DIST".into(),
            OverFunction::Ntile(n) => format!("NTILE[{n}]"),
            OverFunction::Lag(o) => format!("LAG[{o}]"),
            OverFunction::Lead(o) => format!("LEAD[{o}]"),
            OverFunction::FirstValue => "FIRST_VALUE".into(),
            OverFunction::LastValue => "LAST_VALUE".into(),
            OverFunction::Aggregate(a) => a.name().to_ascii_uppercase(),
            OverFunction::ListAgg => "LISTAGG".into(),
        }
    }

    /// Whether the result depends on the frame.
    pub fn uses_frame(self) -> bool {
        matches!(
            self,
            OverFunction::FirstValue
                | OverFunction::LastValue
                | OverFunction::Aggregate(_)
                | OverFunction::ListAgg
        )
    }
}

/// `ROWS|RANGE BETWEEN start AND end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub unit: FrameUnit,
    pub start: FrameBound,
    pub end: FrameBound,
    /// RANGE offsets count units of 10^-scale of the ORDER BY key (`1.5
    /// PRECEDING` over an INT key is 15 at scale 1); 0 otherwise.
    pub scale: u8,
}

impl Frame {
    /// The frame SQL gives a window without a frame clause: RANGE BETWEEN
    /// UNBOUNDED PRECEDING AND CURRENT ROW (without ORDER BY every row of the
    /// partition is a peer, so that is the whole partition).
    pub const DEFAULT: Frame = Frame {
        unit: FrameUnit::Range,
        start: FrameBound::UnboundedPreceding,
        end: FrameBound::CurrentRow,
        scale: 0,
    };

    pub fn describe(&self) -> String {
        let unit = match self.unit {
            FrameUnit::Rows => "ROWS",
            FrameUnit::Range => "RANGE",
        };
        format!(
            "{unit} BETWEEN {} AND {}",
            self.start.describe(self.scale),
            self.end.describe(self.scale)
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameUnit {
    Rows,
    Range,
}

/// A frame boundary; offsets are row counts (ROWS) or a distance in the
/// ORDER BY key's unit (RANGE: the numeric value in units of 10^-scale,
/// milliseconds for DATE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(i64),
    CurrentRow,
    Following(i64),
    UnboundedFollowing,
}

impl FrameBound {
    /// The bound as written, its offset in units of 10^-scale.
    pub fn describe(&self, scale: u8) -> String {
        let offset = |n: i64| {
            if scale == 0 {
                return n.to_string();
            }
            let digits = format!("{:0>width$}", n, width = scale as usize + 1);
            let (int, frac) = digits.split_at(digits.len() - scale as usize);
            format!("{int}.{frac}")
        };
        match self {
            FrameBound::UnboundedPreceding => "UNBOUNDED PRECEDING".into(),
            FrameBound::Preceding(n) => format!("{} PRECEDING", offset(*n)),
            FrameBound::CurrentRow => "CURRENT ROW".into(),
            FrameBound::Following(n) => format!("{} FOLLOWING", offset(*n)),
            FrameBound::UnboundedFollowing => "UNBOUNDED FOLLOWING".into(),
        }
    }
}

/// A Top-N over a ranking function: keep the rows whose rank is in
/// `lo..=hi` (1-based; `hi` below 1 keeps nothing, and is kept as written
/// for Flink's refusal of such a RANK). Set by the planner when a filter on the rank column
/// of a single ROW_NUMBER/RANK/DENSE_RANK allows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RankLimit {
    pub lo: u64,
    pub hi: i64,
}

/// `partition=[k] order=[i ASC] calls=[RANK() : BIGINT NOT NULL, ...]`, with
/// input column names from `name`: what `check --print-bound` and explain print.
pub fn describe(
    partition: &[usize],
    order: &[super::SortKey],
    calls: &[OverCall],
    name: &dyn Fn(usize) -> String,
) -> String {
    let keys: Vec<String> = partition.iter().map(|&c| name(c)).collect();
    let order: Vec<String> = order.iter().map(|k| k.describe(&name(k.column))).collect();
    let calls: Vec<String> = calls
        .iter()
        .map(|c| {
            let args: Vec<String> = c.args.iter().map(|&a| name(a)).collect();
            let args = match (c.function, args.is_empty()) {
                (OverFunction::Aggregate(AggregateFunction::Count), true) => "*".to_string(),
                _ => args.join(", "),
            };
            let frame = if c.function.uses_frame() {
                format!(" {}", c.frame.describe())
            } else {
                String::new()
            };
            format!("{}({args}){frame} : {}", c.function.name(), c.ty)
        })
        .collect();
    format!(
        "partition=[{}] order=[{}] calls=[{}]",
        keys.join(", "),
        order.join(", "),
        calls.join(", ")
    )
}
