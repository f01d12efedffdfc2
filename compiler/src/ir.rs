//! The bound statement set: what the binder produces and the planner reads.
//!
//! Every name is resolved (columns are input positions), every expression
//! carries its Flink type, implicit casts are explicit `Cast` nodes, and each
//! INSERT's query produces exactly its sink's physical columns in order.
//! Relational operators form one tree per INSERT; the planner merges the trees
//! of all INSERTs into one DAG.

use std::collections::BTreeMap;
use std::fmt;

use crate::diagnostics::Span;
use crate::functions::{AggregateFunction, ScalarFunction};
use crate::types::DataType;

pub mod over;

/// Index of a table in [`BoundJob::tables`], printed `t3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId(pub u32);

impl fmt::Display for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

/// The whole job after binding.
#[derive(Clone, Debug)]
pub struct BoundJob {
    /// `SET` options in file order (later ones win).
    pub settings: Vec<(String, String)>,
    pub tables: Vec<Table>,
    pub views: Vec<View>,
    pub inserts: Vec<BoundInsert>,
}

impl BoundJob {
    pub fn table(&self, id: TableId) -> &Table {
        &self.tables[id.0 as usize]
    }
}

#[derive(Clone, Debug)]
pub struct Table {
    pub id: TableId,
    pub name: String,
    pub columns: Vec<Column>,
    pub connector: Connector,
    /// Positions of the primary key columns, if declared.
    pub primary_key: Vec<usize>,
    /// The rowtime column and its watermark expression.
    pub watermark: Option<(usize, Expr)>,
}

impl Table {
    /// Columns that are stored in (and written to) the table: not computed.
    pub fn physical_columns(&self) -> impl Iterator<Item = (usize, &Column)> {
        self.columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.computed.is_none())
    }
}

#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: DataType,
    /// For `c AS expr`: the expression over the table's physical columns
    /// (column positions are physical-column positions).
    pub computed: Option<Expr>,
}

/// A validated connector descriptor (`WITH (...)`).
#[derive(Clone, Debug)]
pub struct Connector {
    pub kind: ConnectorKind,
    /// Every option as written, keys in order, for codegen and run-time overrides.
    pub options: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectorKind {
    Filesystem { path: String, format: Format },
    Datagen,
    Print,
    Blackhole,
}

impl ConnectorKind {
    pub fn name(&self) -> &'static str {
        match self {
            ConnectorKind::Filesystem { .. } => "filesystem",
            ConnectorKind::Datagen => "datagen",
            ConnectorKind::Print => "print",
            ConnectorKind::Blackhole => "blackhole",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
}

#[derive(Clone, Debug)]
pub struct View {
    pub name: String,
    pub query: Rel,
}

/// `INSERT INTO|OVERWRITE target query`.
#[derive(Clone, Debug)]
pub struct BoundInsert {
    pub target: TableId,
    pub overwrite: bool,
    /// Produces the target's physical columns, in order, with their exact types.
    pub query: Rel,
    pub span: Span,
}

/// A named, typed output column of a relational operator.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub ty: DataType,
}

/// A relational operator with its output schema.
#[derive(Clone, Debug)]
pub struct Rel {
    pub kind: RelKind,
    pub schema: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum RelKind {
    /// All physical columns of a table, in declaration order.
    Scan {
        table: TableId,
    },
    /// Literal rows; every row has the schema's arity and types.
    Values {
        rows: Vec<Vec<Expr>>,
    },
    Filter {
        input: Box<Rel>,
        predicate: Expr,
    },
    Project {
        input: Box<Rel>,
        exprs: Vec<Expr>,
    },
    /// Groups by input columns `group` and computes `aggregates`; output is
    /// the group columns followed by one column per aggregate. `SELECT
    /// DISTINCT` is an aggregate over all columns with no aggregate calls.
    Aggregate {
        input: Box<Rel>,
        group: Vec<usize>,
        aggregates: Vec<AggregateCall>,
    },
    /// Output is the left columns followed by the right columns; the
    /// condition is over that concatenation.
    Join {
        kind: JoinKind,
        left: Box<Rel>,
        right: Box<Rel>,
        condition: Expr,
    },
    UnionAll {
        inputs: Vec<Rel>,
    },
    Sort {
        input: Box<Rel>,
        keys: Vec<SortKey>,
        offset: Option<u64>,
        limit: Option<u64>,
    },
    /// OVER windows of one specification: the input's columns plus one
    /// column per call. Rows are grouped by `partition` and ordered by
    /// `order` within each partition.
    Over {
        input: Box<Rel>,
        partition: Vec<usize>,
        order: Vec<SortKey>,
        calls: Vec<over::OverCall>,
    },
    /// A window table function: the input's columns plus `window_start`,
    /// `window_end` and `window_time`; HOP and CUMULATE emit a row per window.
    Window {
        input: Box<Rel>,
        window: WindowKind,
        time_column: usize,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows with at least one right row satisfying the condition
    /// (`EXISTS`, `IN` subqueries); output is the left columns only.
    Semi,
    /// Left rows with no right row satisfying the condition (`NOT EXISTS`,
    /// `NOT IN` subqueries); output is the left columns only.
    Anti,
}

impl JoinKind {
    /// Whether the output has the right side's columns (not semi/anti).
    pub fn outputs_right(self) -> bool {
        !matches!(self, JoinKind::Semi | JoinKind::Anti)
    }
}

/// Window sizes in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WindowKind {
    Tumble { size: i64, offset: i64 },
    Hop { slide: i64, size: i64, offset: i64 },
    Cumulate { step: i64, size: i64, offset: i64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortKey {
    pub column: usize,
    pub descending: bool,
    pub nulls_first: bool,
}

impl SortKey {
    /// `name ASC`, with `NULLS FIRST/LAST` only where it differs from Flink's
    /// default (first when ascending, last when descending).
    pub fn describe(&self, name: &str) -> String {
        let direction = if self.descending { "DESC" } else { "ASC" };
        let nulls = match (self.nulls_first == self.descending, self.nulls_first) {
            (false, _) => "",
            (true, true) => " NULLS FIRST",
            (true, false) => " NULLS LAST",
        };
        format!("{name} {direction}{nulls}")
    }
}

/// ` offset=N limit=M` for a sort's bounds (empty when unbounded).
pub fn bounds_text(offset: Option<u64>, limit: Option<u64>) -> String {
    let mut s = String::new();
    if let Some(o) = offset {
        s.push_str(&format!(" offset={o}"));
    }
    if let Some(l) = limit {
        s.push_str(&format!(" limit={l}"));
    }
    s
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AggregateCall {
    pub function: AggregateFunction,
    pub distinct: bool,
    /// Input column positions; empty for `COUNT(*)`.
    pub args: Vec<usize>,
    /// `FILTER (WHERE ...)`: an input column of type BOOLEAN.
    pub filter: Option<usize>,
    /// LISTAGG's separator (a literal; `None` is Flink's default `,`).
    pub separator: Option<String>,
    pub ty: DataType,
    pub name: String,
}

/// A typed scalar expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: DataType,
    /// Where the expression was written; excluded from structural equality by
    /// the planner (it compares kinds and types).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// Input column by position.
    Column(usize),
    Literal(Literal),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `CAST` (fails on bad input) or `TRY_CAST` (NULL on bad input).
    Cast {
        operand: Box<Expr>,
        try_cast: bool,
    },
    /// Searched CASE: the first branch whose condition is TRUE.
    Case {
        branches: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    InList {
        operand: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Like {
        operand: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<char>,
        negated: bool,
    },
    Call {
        function: ScalarFunction,
        args: Vec<Expr>,
    },
    /// `EXTRACT(unit FROM operand)`.
    Extract {
        unit: TimeUnit,
        operand: Box<Expr>,
    },
    /// `FLOOR(operand TO unit)` / `CEIL(operand TO unit)`.
    RoundTime {
        unit: TimeUnit,
        ceil: bool,
        operand: Box<Expr>,
    },
    /// `TIMESTAMPDIFF(unit, start, end)`: whole units from start to end.
    TimestampDiff {
        unit: TimeUnit,
        start: Box<Expr>,
        end: Box<Expr>,
    },
    /// `TIMESTAMPADD(unit, count, operand)`.
    TimestampAdd {
        unit: TimeUnit,
        count: Box<Expr>,
        operand: Box<Expr>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    Not,
    Negate,
    IsNull,
    IsNotNull,
    IsTrue,
    IsNotTrue,
    IsFalse,
    IsNotFalse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinaryOp {
    And,
    Or,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    IsDistinctFrom,
    IsNotDistinctFrom,
    Plus,
    Minus,
    Multiply,
    Divide,
    Modulo,
    /// `||` string concatenation.
    Concat,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::And => "AND",
            BinaryOp::Or => "OR",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::IsDistinctFrom => "IS DISTINCT FROM",
            BinaryOp::IsNotDistinctFrom => "IS NOT DISTINCT FROM",
            BinaryOp::Plus => "+",
            BinaryOp::Minus => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::Modulo => "%",
            BinaryOp::Concat => "||",
        }
    }
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
                | BinaryOp::IsDistinctFrom
                | BinaryOp::IsNotDistinctFrom
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TimeUnit {
    Millennium,
    Century,
    Decade,
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
    DayOfWeek,
    DayOfYear,
    Epoch,
}

/// A literal value, kept in a form that is exact and hashable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    Null,
    Boolean(bool),
    /// TINYINT..BIGINT.
    Integer(i64),
    /// Exact decimal digits as written (`-12.50`), with the expression's scale.
    Decimal(String),
    /// DOUBLE/FLOAT, stored as bits so literals hash and compare exactly.
    Double(u64),
    String(String),
    /// Days since 1970-01-01.
    Date(i32),
    /// Nanoseconds since midnight.
    Time(i64),
    /// Seconds since the epoch and nanoseconds of that second.
    Timestamp {
        seconds: i64,
        nanos: u32,
    },
    /// INTERVAL DAY TO SECOND, in milliseconds.
    IntervalMillis(i64),
    /// INTERVAL YEAR TO MONTH, in months.
    IntervalMonths(i32),
}

// Traversals of expression trees: they live with the IR they walk, so the
// binder, the planner and code generation share them without depending on
// each other.

/// Whether `e` is NULL when every column for which `padded` holds is NULL
/// (strict operators over such a column; anything else is assumed not).
pub fn null_when_null(e: &Expr, padded: &dyn Fn(usize) -> bool) -> bool {
    match &e.kind {
        ExprKind::Column(c) => padded(*c),
        ExprKind::Binary { op, left, right } => {
            !matches!(
                op,
                BinaryOp::And
                    | BinaryOp::Or
                    | BinaryOp::IsDistinctFrom
                    | BinaryOp::IsNotDistinctFrom
            ) && (null_when_null(left, padded) || null_when_null(right, padded))
        }
        ExprKind::Unary {
            op: UnaryOp::Not | UnaryOp::Negate,
            operand,
        }
        | ExprKind::Cast { operand, .. }
        | ExprKind::Extract { operand, .. }
        | ExprKind::RoundTime { operand, .. }
        | ExprKind::InList { operand, .. } => null_when_null(operand, padded),
        ExprKind::Like {
            operand, pattern, ..
        } => null_when_null(operand, padded) || null_when_null(pattern, padded),
        _ => false,
    }
}

/// Calls `f` on every node of the expression tree, parents first.
pub fn visit(expr: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(expr);
    for_each_child(expr, &mut |child| visit(child, f));
}

/// Calls `f` on each direct operand of `expr`, left to right.
pub fn for_each_child(expr: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &expr.kind {
        ExprKind::Column(_) | ExprKind::Literal(_) => {}
        ExprKind::Unary { operand, .. }
        | ExprKind::Cast { operand, .. }
        | ExprKind::Extract { operand, .. }
        | ExprKind::RoundTime { operand, .. } => f(operand),
        ExprKind::Binary { left, right, .. } => {
            f(left);
            f(right);
        }
        ExprKind::Case {
            branches,
            otherwise,
        } => {
            for (c, r) in branches {
                f(c);
                f(r);
            }
            if let Some(o) = otherwise {
                f(o);
            }
        }
        ExprKind::InList { operand, list, .. } => {
            f(operand);
            for e in list {
                f(e);
            }
        }
        ExprKind::Like {
            operand, pattern, ..
        } => {
            f(operand);
            f(pattern);
        }
        ExprKind::TimestampDiff {
            start: a, end: b, ..
        }
        | ExprKind::TimestampAdd {
            count: a,
            operand: b,
            ..
        } => {
            f(a);
            f(b);
        }
        ExprKind::Call { args, .. } => {
            for a in args {
                f(a);
            }
        }
    }
}

/// Levels of the expression tree (a column or literal is 1).
pub fn depth(expr: &Expr) -> usize {
    let mut deepest = 0;
    for_each_child(expr, &mut |child| deepest = deepest.max(depth(child)));
    deepest + 1
}

/// The expression with every span cleared, for structural comparison.
pub fn strip_spans(mut expr: Expr) -> Expr {
    map_children(&mut expr, &mut |e| {
        *e = strip_spans(std::mem::replace(e, placeholder()))
    });
    expr.span = Span::default();
    expr
}

fn placeholder() -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Null),
        ty: DataType::null(),
        span: Span::default(),
    }
}

/// Applies `f` to each direct child of `expr`.
pub fn map_children(expr: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut expr.kind {
        ExprKind::Column(_) | ExprKind::Literal(_) => {}
        ExprKind::Unary { operand, .. }
        | ExprKind::Cast { operand, .. }
        | ExprKind::Extract { operand, .. }
        | ExprKind::RoundTime { operand, .. } => f(operand),
        ExprKind::Binary { left, right, .. } => {
            f(left);
            f(right);
        }
        ExprKind::Case {
            branches,
            otherwise,
        } => {
            for (c, r) in branches {
                f(c);
                f(r);
            }
            if let Some(o) = otherwise {
                f(o);
            }
        }
        ExprKind::InList { operand, list, .. } => {
            f(operand);
            list.iter_mut().for_each(&mut *f);
        }
        ExprKind::Like {
            operand, pattern, ..
        } => {
            f(operand);
            f(pattern);
        }
        ExprKind::TimestampDiff {
            start: a, end: b, ..
        }
        | ExprKind::TimestampAdd {
            count: a,
            operand: b,
            ..
        } => {
            f(a);
            f(b);
        }
        ExprKind::Call { args, .. } => args.iter_mut().for_each(f),
    }
}
